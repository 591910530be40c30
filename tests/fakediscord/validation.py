"""What Discord refuses, and how it says so: :class:`ApiError` (a Discord-shaped JSON error a route answers with),
:class:`RateLimited` (its 429 past a rate limit), :class:`FormErrors` ("Invalid Form Body" errors by dotted path),
and the checks of message bodies, components, autocomplete choices, modals and application commands against
Discord's documented limits (lengths, counts, locales, names, empty messages). Each refusal is answered as Discord
does (HTTP 400, code 50035 or 50006), so that a bot bug shows up in a test rather than in production. The check
against Discord's own API description is :mod:`.openapi`. No I/O."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from .kinds import IS_COMPONENTS_V2, VALID_LOCALES, ComponentType, OptionType
from .message import UploadedFile, walk_components


class ApiError(Exception):
    """Raised by a route handler to answer with a Discord-shaped JSON error."""

    def __init__(self, status: int, code: int, message: str, errors: dict[str, Any] | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors
        self.headers = dict(headers or {})
        """Headers Discord sends with this answer (a rate limit's)."""

    def body(self) -> dict[str, Any]:
        """The JSON error body Discord sends."""
        body: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            body["errors"] = self.errors
        return body


class RateLimited(ApiError):
    """Discord's 429 Too Many Requests: the body says when to try again (``retry_after``, seconds) and whether the
    limit is the global one; the headers say the limit's scope (``X-RateLimit-Scope``: user, shared or global),
    ``Retry-After`` and, as on every answer of Discord's edge, ``Via`` (discord.py takes a 429 without it for
    Cloudflare's ban and gives up)."""

    def __init__(self, scope: str, retry_after: float) -> None:
        headers = {"X-RateLimit-Scope": scope, "Retry-After": str(max(1, math.ceil(retry_after))), "Via": "1.1 google",
                   "X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset-After": str(retry_after)}
        if scope == "global":
            headers["X-RateLimit-Global"] = "true"
        super().__init__(429, 0, "You are being rate limited.", headers=headers)
        self.retry_after = retry_after
        self.scope = scope

    def body(self) -> dict[str, Any]:
        return {"message": self.message, "retry_after": self.retry_after, "global": self.scope == "global"}


class FormErrors:
    """Collects "Invalid Form Body" errors by dotted path and renders Discord's nested shape."""

    def __init__(self) -> None:
        self.items: list[tuple[str, str, str]] = []

    def add(self, path: str, message: str, code: str = "BASE_TYPE_INVALID") -> None:
        self.items.append((path, code, message))

    def raise_if_any(self) -> None:
        error = self.error()
        if error is not None:
            raise error

    def error(self) -> ApiError | None:
        """Discord's "Invalid Form Body" answer for the errors collected (an empty path: the body itself), or None."""
        if not self.items:
            return None
        nested: dict[str, Any] = {}
        for path, code, message in self.items:
            node = nested
            for part in path.split(".") if path else ():
                node = node.setdefault(part, {})
            node.setdefault("_errors", []).append({"code": code, "message": message})
        return ApiError(400, 50035, "Invalid Form Body", nested)

    def summary(self) -> str:
        return "; ".join(f"{path}: {message}" for path, _, message in self.items)


_NAME_RE = re.compile(r"^[-_'\w]{1,32}$", re.UNICODE)


def valid_command_name(name: str) -> bool:
    """Discord's rule for chat-input command and option names: 1-32 word chars, ``-``, ``_``,
    ``'``, no spaces, and lowercase where a letter has a lowercase form."""
    return bool(_NAME_RE.match(name)) and name == name.lower()


def check_length(errors: FormErrors, path: str, value: Any, low: int, high: int) -> None:
    if value is None:
        return
    text = str(value)
    if not low <= len(text) <= high:
        errors.add(path, f"Must be between {low} and {high} in length.", "BASE_TYPE_BAD_LENGTH")


def validate_message(
    body: dict[str, Any], files: Sequence[UploadedFile], errors: FormErrors, *, partial: bool, prefix: str = "",
    was_v2: bool = False,
) -> None:
    """The message limits Discord enforces (content, embeds, components, emptiness). ``was_v2``: an edit of a message
    sent with IS_COMPONENTS_V2, which keeps the flag (Discord: "Once a message has been sent with this flag, it can't
    be removed from that message"), so that the edit may carry neither content nor embeds either."""
    content = body.get("content")
    if content is not None and len(str(content)) > 2000:
        errors.add(prefix + "content", "Must be 2000 or fewer in length.", "BASE_TYPE_MAX_LENGTH")
    flags = int(body.get("flags") or 0)
    if was_v2:
        if body.get("flags") is not None and not flags & IS_COMPONENTS_V2:
            errors.add(prefix + "flags", "The IS_COMPONENTS_V2 flag cannot be removed from a message sent with it")
        flags |= IS_COMPONENTS_V2
    embeds = body.get("embeds") or []
    if len(embeds) > 10:
        errors.add(prefix + "embeds", "Must be 10 or fewer in length.", "BASE_TYPE_MAX_LENGTH")
    total = 0
    for i, embed in enumerate(embeds):
        p = f"{prefix}embeds.{i}."
        for key, limit in (("title", 256), ("description", 4096)):
            if embed.get(key) is not None:
                check_length(errors, p + key, embed[key], 0, limit)
                total += len(str(embed[key]))
        fields = embed.get("fields") or []
        if len(fields) > 25:
            errors.add(p + "fields", "Must be 25 or fewer in length.", "BASE_TYPE_MAX_LENGTH")
        for j, fld in enumerate(fields):
            check_length(errors, f"{p}fields.{j}.name", fld.get("name", ""), 1, 256)
            check_length(errors, f"{p}fields.{j}.value", fld.get("value", ""), 1, 1024)
            total += len(str(fld.get("name", ""))) + len(str(fld.get("value", "")))
        footer = (embed.get("footer") or {}).get("text")
        if footer is not None:
            check_length(errors, p + "footer.text", footer, 0, 2048)
            total += len(str(footer))
        author = (embed.get("author") or {}).get("name")
        if author is not None:
            check_length(errors, p + "author.name", author, 0, 256)
            total += len(str(author))
    if total > 6000:
        errors.add(prefix + "embeds", "Embed size exceeds maximum size of 6000", "MAX_EMBED_SIZE_EXCEEDED")
    components = body.get("components") or []
    validate_components(components, errors, v2=bool(flags & IS_COMPONENTS_V2), prefix=prefix)
    if flags & IS_COMPONENTS_V2:
        for field_name in ("content", "embeds"):
            if body.get(field_name):
                errors.add(prefix + field_name,
                           f"The '{field_name}' field cannot be used when using MessageFlags.IS_COMPONENTS_V2")
        validate_v2(components, files, body, errors, partial=partial, prefix=prefix)
    if not partial and not (
        content
        or embeds
        or components
        or files
        or body.get("sticker_ids")
        or body.get("poll")
        or body.get("attachments")
    ):
        raise ApiError(400, 50006, "Cannot send an empty message")


V2_COMPONENTS_MAX = 40
"""Components of one Components V2 message, nested ones included."""

V2_TEXT_MAX = 4000
"""Characters of all text displays of one Components V2 message."""


def validate_v2(components: list[dict[str, Any]], files: Sequence[UploadedFile], body: dict[str, Any],
                errors: FormErrors, *, partial: bool, prefix: str) -> None:
    """Discord's limits of a Components V2 message: 40 components in all, 4,000 characters of text, galleries of
    1-10 items, and every ``attachment://`` a gallery names sent with the message (on an edit, also one it kept)."""
    every = list(walk_components(components))
    if len(every) > V2_COMPONENTS_MAX:
        errors.add(prefix + "components", f"Must be {V2_COMPONENTS_MAX} or fewer in total.", "BASE_TYPE_MAX_LENGTH")
    text = sum(len(str(c.get("content") or "")) for c in every if c.get("type") == ComponentType.TEXT_DISPLAY)
    if text > V2_TEXT_MAX:
        errors.add(prefix + "components", f"Text displays must be {V2_TEXT_MAX} or fewer characters in total.",
                   "BASE_TYPE_MAX_LENGTH")
    names = {f.filename for f in files} | {str(a.get("filename")) for a in body.get("attachments") or []}
    for gallery in (c for c in every if c.get("type") == ComponentType.MEDIA_GALLERY):
        items = gallery.get("items") or []
        if not 1 <= len(items) <= 10:
            errors.add(prefix + "components.items", "A media gallery holds 1-10 items")
        for item in items:
            url = str((item.get("media") or {}).get("url") or "")
            if url.startswith("attachment://") and url.removeprefix("attachment://") not in names and not partial:
                errors.add(prefix + "components.items.media.url", f"{url} names no attachment of the message")


def validate_components(components: list[dict[str, Any]], errors: FormErrors, *, v2: bool, prefix: str) -> None:
    if not v2:
        if len(components) > 5:
            errors.add(prefix + "components", "Must be 5 or fewer in length.", "BASE_TYPE_MAX_LENGTH")
        for i, row in enumerate(components):
            if row.get("type") != ComponentType.ACTION_ROW:
                errors.add(
                    f"{prefix}components.{i}.type", "Top-level components must be action rows without the v2 flag"
                )
                continue
            children = row.get("components") or []
            buttons = [c for c in children if c.get("type") == ComponentType.BUTTON]
            if not 1 <= len(children) <= 5 or (len(buttons) != len(children) and len(children) != 1):
                errors.add(f"{prefix}components.{i}.components", "An action row holds 1-5 buttons or one select menu")
    seen: set[str] = set()
    for comp in walk_components(components):
        cid = comp.get("custom_id")
        if cid is not None:
            check_length(errors, prefix + "components.custom_id", cid, 1, 100)
            if cid in seen:
                errors.add(prefix + "components.custom_id", f"Component custom id cannot be duplicated ({cid!r})")
            seen.add(cid)
        kind = comp.get("type")
        if kind == ComponentType.BUTTON:
            check_length(errors, prefix + "components.label", comp.get("label"), 0, 80)
            if comp.get("style") == 5:
                if not comp.get("url") or cid is not None:
                    errors.add(prefix + "components.url", "Link buttons need a url and no custom_id")
            elif comp.get("style") != 6 and cid is None:
                errors.add(prefix + "components.custom_id", "Buttons need a custom_id")
        elif kind in (3, 5, 6, 7, 8):
            check_length(errors, prefix + "components.placeholder", comp.get("placeholder"), 0, 150)
            lo, hi = int(comp.get("min_values", 1)), int(comp.get("max_values", 1))
            if not (0 <= lo <= 25 and 1 <= hi <= 25 and lo <= hi):
                errors.add(prefix + "components.min_values", "min_values/max_values out of range")
            if kind == ComponentType.STRING_SELECT:
                options = comp.get("options") or []
                if not 1 <= len(options) <= 25:
                    errors.add(prefix + "components.options", "A select menu needs 1-25 options")
                if hi > len(options):
                    errors.add(prefix + "components.max_values", "max_values exceeds the number of options")
                values = [o.get("value") for o in options]
                if len(set(values)) != len(values):
                    errors.add(prefix + "components.options", "Select option values must be unique")
                for o in options:
                    check_length(errors, prefix + "components.options.label", o.get("label"), 1, 100)
                    check_length(errors, prefix + "components.options.value", o.get("value"), 1, 100)
                    check_length(errors, prefix + "components.options.description", o.get("description"), 0, 100)


def validate_choices(choices: Any, errors: FormErrors) -> None:
    if not isinstance(choices, list):
        errors.add("data.choices", "choices must be a list")
        return
    if len(choices) > 25:
        errors.add("data.choices", "Must be 25 or fewer in length.", "BASE_TYPE_MAX_LENGTH")
    for i, choice in enumerate(choices):
        check_length(errors, f"data.choices.{i}.name", choice.get("name"), 1, 100)
        if isinstance(choice.get("value"), str):
            check_length(errors, f"data.choices.{i}.value", choice["value"], 0, 100)
        validate_localizations(choice.get("name_localizations"), f"data.choices.{i}.name_localizations", errors, 1, 100)


def validate_modal(data: dict[str, Any], errors: FormErrors) -> None:
    check_length(errors, "data.custom_id", data.get("custom_id"), 1, 100)
    check_length(errors, "data.title", data.get("title"), 1, 45)
    components = data.get("components") or []
    if not 1 <= len(components) <= 5:
        errors.add("data.components", "A modal needs 1-5 components")


def validate_localizations(
    value: Any, path: str, errors: FormErrors, low: int, high: int, *, name_rule: bool = False
) -> None:
    if not value:
        return
    for locale, text in value.items():
        if locale not in VALID_LOCALES:
            errors.add(f"{path}.{locale}", f"Invalid locale {locale!r}", "LOCALE_INVALID")
            continue
        check_length(errors, f"{path}.{locale}", text, low, high)
        if name_rule and not valid_command_name(str(text)):
            errors.add(f"{path}.{locale}", f"Invalid command name {text!r}", "APPLICATION_COMMAND_INVALID_NAME")


def validate_commands(commands: list[dict[str, Any]], errors: FormErrors) -> None:
    counts: dict[int, int] = {}
    names: set[tuple[int, str]] = set()
    for i, command in enumerate(commands):
        kind = int(command.get("type", 1))
        counts[kind] = counts.get(kind, 0) + 1
        key = (kind, str(command.get("name")))
        if key in names:
            errors.add(
                f"{i}.name",
                f"Application command names must be unique ({key[1]!r})",
                "APPLICATION_COMMANDS_DUPLICATE_NAME",
            )
        names.add(key)
        validate_command(command, f"{i}.", errors)
    if counts.get(1, 0) > 100:
        errors.add("_", "Maximum number of chat input commands reached (100)")
    for kind in (2, 3):
        if counts.get(kind, 0) > 5:
            errors.add("_", f"Maximum number of context menu commands of type {kind} reached (5)")


def validate_command(command: dict[str, Any], p: str, errors: FormErrors) -> None:
    kind = int(command.get("type", 1))
    name = str(command.get("name") or "")
    if kind == 1:
        if not valid_command_name(name):
            errors.add(p + "name", f"Invalid chat input command name {name!r}", "APPLICATION_COMMAND_INVALID_NAME")
        check_length(errors, p + "description", command.get("description") or "", 1, 100)
        validate_localizations(
            command.get("name_localizations"), p + "name_localizations", errors, 1, 32, name_rule=True
        )
        validate_localizations(
            command.get("description_localizations"), p + "description_localizations", errors, 1, 100
        )
        validate_options(command.get("options") or [], p + "options", errors, depth=0)
    else:
        check_length(errors, p + "name", name, 1, 32)
        if command.get("description"):
            errors.add(p + "description", "Context menu commands cannot have a description")


def validate_options(options: list[dict[str, Any]], path: str, errors: FormErrors, *, depth: int) -> None:
    if len(options) > 25:
        errors.add(path, "Must be 25 or fewer in length.", "BASE_TYPE_MAX_LENGTH")
    seen: set[str] = set()
    optional_seen = False
    for i, option in enumerate(options):
        p = f"{path}.{i}."
        kind = int(option.get("type", 0))
        name = str(option.get("name") or "")
        if not valid_command_name(name):
            errors.add(p + "name", f"Invalid option name {name!r}", "APPLICATION_COMMAND_INVALID_NAME")
        if name in seen:
            errors.add(
                p + "name", f"Option names must be unique ({name!r})", "APPLICATION_COMMAND_OPTIONS_DUPLICATE_NAME"
            )
        seen.add(name)
        check_length(errors, p + "description", option.get("description") or "", 1, 100)
        validate_localizations(
            option.get("name_localizations"), p + "name_localizations", errors, 1, 32, name_rule=True
        )
        validate_localizations(option.get("description_localizations"), p + "description_localizations", errors, 1, 100)
        if kind in (OptionType.SUB_COMMAND, OptionType.SUB_COMMAND_GROUP):
            if kind == OptionType.SUB_COMMAND_GROUP and depth > 0:
                errors.add(p + "type", "Subcommand groups cannot be nested")
            if kind == OptionType.SUB_COMMAND_GROUP and any(
                int(o.get("type", 0)) != OptionType.SUB_COMMAND for o in option.get("options") or []
            ):
                errors.add(p + "options", "Subcommand groups can only contain subcommands")
            validate_options(option.get("options") or [], p + "options", errors, depth=depth + 1)
            continue
        if option.get("required"):
            if optional_seen:
                errors.add(p + "required", "Required options must be placed before non-required options")
        else:
            optional_seen = True
        choices = option.get("choices") or []
        if len(choices) > 25:
            errors.add(p + "choices", "Must be 25 or fewer in length.", "BASE_TYPE_MAX_LENGTH")
        if choices and option.get("autocomplete"):
            errors.add(p + "autocomplete", "Autocomplete cannot be set with choices")
        for j, choice in enumerate(choices):
            check_length(errors, f"{p}choices.{j}.name", choice.get("name"), 1, 100)
            validate_localizations(
                choice.get("name_localizations"), f"{p}choices.{j}.name_localizations", errors, 1, 100
            )
