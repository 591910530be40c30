"""REST: the application's own emojis, as Discord documents them (the Emoji resource: "List / Get / Create / Modify /
Delete Application Emoji", ``GET/POST /applications/{application.id}/emojis`` and ``GET/PATCH/DELETE
/applications/{application.id}/emojis/{emoji.id}``; its limits and errors: "An application can own up to 2000
emojis", "Emojis and animated emojis have a maximum file size of 256 KiB. Attempting to upload an emoji larger than
this limit will fail and return 400 Bad Request and an error message, but not a JSON status code", the JSON error
codes 10014 Unknown emoji, 30008 Maximum number of emojis reached, 50035 Invalid form body).

What the fake answers:

* a list ``{"items": [...]}``, one emoji, a new emoji (201), a renamed one, or 204 for a deleted one, each emoji with
  the documented fields (``user`` the bot: it uploaded them by the API);
* a name of 2-32 letters, digits and underscores (the description's ``minLength``/``maxLength``, and Discord's rule
  for emoji names), unique in the application: a second emoji of a name refused as Discord refuses it, 400 / 50035
  with ``errors.name._errors[0].code`` ``APPLICATION_EMOJI_NAME_ALREADY_TAKEN``;
* ``image`` a data URI (``data:image/png;base64,...``) of a PNG, JPEG, GIF or WebP: other data refused (50035, image);
  more than 256 KiB refused with a plain message and no code;
* the 2,001st emoji refused (30008); an id that is not the application's own, 404 / 10014;
* a button or select option that shows a custom emoji must show one the bot may use (the application's): Discord
  refuses the whole message otherwise, 400 / 50035 ``BUTTON_COMPONENT_INVALID_EMOJI`` "Invalid emoji"
  (:meth:`ApplicationEmojis.refused_components`, which the server asks of every request body).

The emojis and their rules are :class:`ApplicationEmojis` (``fake.application_emojis``; a test adds emojis directly
with :meth:`ApplicationEmojis.add`: an application that has them from before); the routes are the part
:class:`AppEmojis`.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from .kinds import SnowflakeGenerator
from .routing import NO_CONTENT, Created, RecordedRequest, route
from .validation import ApiError, FormErrors

LIMIT: Final = 2000
"""Emojis an application may own."""
SIZE_MAX: Final = 256 * 1024
"""Bytes of an emoji's image at most."""
NAME: Final = re.compile(r"[A-Za-z0-9_]{2,32}")
"""What an emoji's name may be."""
IMAGE: Final = re.compile(r"data:image/(png|jpeg|jpg|gif|webp);base64,(.*)", re.DOTALL)
MAGIC: Final = {"png": (b"\x89PNG\r\n\x1a\n",), "jpeg": (b"\xff\xd8\xff",), "jpg": (b"\xff\xd8\xff",),
                "gif": (b"GIF87a", b"GIF89a"), "webp": (b"RIFF",)}


class TooLarge(ApiError):
    """Discord's answer to an emoji over 256 KiB: 400 with a message on the image and no JSON status code."""

    def __init__(self) -> None:
        super().__init__(400, 0, "File cannot be larger than 256.0 kb.")

    def body(self) -> dict[str, Any]:
        return {"image": [self.message]}


@dataclass
class Emoji:
    """One emoji of the application."""

    id: int
    name: str
    image: bytes
    animated: bool = False


class ApplicationEmojis:
    """The application's emojis, and what Discord refuses of them (no I/O)."""

    def __init__(self, snowflakes: SnowflakeGenerator) -> None:
        self._snowflakes = snowflakes
        self.emojis: dict[int, Emoji] = {}
        """The application's emojis by id."""

    # ------------------------------------------------------------------ for tests

    def add(self, name: str, image: bytes = b"\x89PNG\r\n\x1a\n") -> Emoji:
        """An emoji the application has already (uploaded before the test), without a request."""
        emoji = Emoji(self._snowflakes.next(), name, image)
        self.emojis[emoji.id] = emoji
        return emoji

    def named(self, name: str) -> list[Emoji]:
        """The application's emojis of ``name`` (one at most, as Discord keeps them)."""
        return [e for e in self.emojis.values() if e.name == name]

    # ------------------------------------------------------------------ rules

    def refused_components(self, body: Any) -> ApiError | None:
        """Discord's answer to a body whose buttons or select options show a custom emoji the bot may not use (none
        of its application's), or ``None``."""
        errors = FormErrors()
        for path, emoji in _component_emojis(body, ""):
            emoji_id = emoji.get("id")
            if emoji_id is not None and (not str(emoji_id).isdigit() or int(emoji_id) not in self.emojis):
                errors.add(f"{path}emoji.id", "Invalid emoji", "BUTTON_COMPONENT_INVALID_EMOJI")
        return errors.error()

    def create(self, body: Any) -> Emoji:
        """A new emoji of a creation's ``body`` (name and image), refused as Discord refuses it."""
        body = body if isinstance(body, dict) else {}
        name = str(body.get("name") or "")
        image = self._image(body.get("image"))
        self.check_name(name, None)
        if len(self.emojis) >= LIMIT:
            raise ApiError(400, 30008, "Maximum number of emojis reached (2000)")
        emoji = Emoji(self._snowflakes.next(), name, image[1], animated=image[0] == "gif")
        self.emojis[emoji.id] = emoji
        return emoji

    def of_id(self, emoji_id: str) -> Emoji:
        """The emoji ``emoji_id`` (404 / 10014 if the application has none of it)."""
        emoji = self.emojis.get(int(emoji_id))
        if emoji is None:
            raise ApiError(404, 10014, "Unknown Emoji")
        return emoji

    def check_name(self, name: str, own: int | None) -> None:
        """Refuse ``name`` for an emoji (``own``: the emoji renamed, whose own name it may keep) as Discord does."""
        errors = FormErrors()
        if not NAME.fullmatch(name):
            errors.add("name", "Must be between 2 and 32 in length and contain only letters, digits and underscores.",
                       "BASE_TYPE_BAD_LENGTH" if not 2 <= len(name) <= 32 else "BASE_TYPE_INVALID")
        elif any(e.name == name and e.id != own for e in self.emojis.values()):
            errors.add("name", "Emoji name already taken.", "APPLICATION_EMOJI_NAME_ALREADY_TAKEN")
        errors.raise_if_any()

    def _image(self, data: Any) -> tuple[str, bytes]:
        """The image of a creation: its format and bytes (an invalid one refused as Discord refuses it)."""
        match = IMAGE.fullmatch(str(data or ""))
        decoded = b""
        if match is not None:
            try:
                decoded = base64.b64decode(match.group(2), validate=True)
            except (binascii.Error, ValueError):
                decoded = b""
        if match is None or not decoded.startswith(MAGIC[match.group(1)]):
            errors = FormErrors()
            errors.add("image", "Invalid image data", "IMAGE_INVALID")
            errors.raise_if_any()
            raise AssertionError  # unreachable: raise_if_any raised
        if len(decoded) > SIZE_MAX:
            raise TooLarge
        return match.group(1), decoded


class AppEmojis:
    """The part of :class:`~tests.fakediscord.server.FakeDiscord` that serves the application's emojis
    (:attr:`application_emojis`)."""

    @route("GET", "/applications/{app_id}/emojis")
    async def _r_list_emojis(self, rec: RecordedRequest, app_id: str) -> Any:
        self._check_app(app_id)
        return {"items": [self._emoji_payload(e) for e in self.application_emojis.emojis.values()]}

    @route("POST", "/applications/{app_id}/emojis")
    async def _r_create_emoji(self, rec: RecordedRequest, app_id: str) -> Any:
        self._check_app(app_id)
        return Created(self._emoji_payload(self.application_emojis.create(rec.json)))

    @route("GET", "/applications/{app_id}/emojis/{emoji_id}")
    async def _r_get_emoji(self, rec: RecordedRequest, app_id: str, emoji_id: str) -> Any:
        self._check_app(app_id)
        return self._emoji_payload(self.application_emojis.of_id(emoji_id))

    @route("PATCH", "/applications/{app_id}/emojis/{emoji_id}")
    async def _r_modify_emoji(self, rec: RecordedRequest, app_id: str, emoji_id: str) -> Any:
        self._check_app(app_id)
        emoji = self.application_emojis.of_id(emoji_id)
        body = rec.json if isinstance(rec.json, dict) else {}
        if "name" in body:
            name = str(body["name"] or "")
            self.application_emojis.check_name(name, emoji.id)
            emoji.name = name
        return self._emoji_payload(emoji)

    @route("DELETE", "/applications/{app_id}/emojis/{emoji_id}")
    async def _r_delete_emoji(self, rec: RecordedRequest, app_id: str, emoji_id: str) -> Any:
        self._check_app(app_id)
        del self.application_emojis.emojis[self.application_emojis.of_id(emoji_id).id]
        return NO_CONTENT

    def _emoji_payload(self, emoji: Emoji) -> dict[str, Any]:
        return {"id": str(emoji.id), "name": emoji.name, "roles": [], "user": self.bot_user.to_payload(),
                "require_colons": True, "managed": False, "animated": emoji.animated, "available": True}


def _component_emojis(node: Any, path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every ``emoji`` of a button or select option in a request body (a message's ``components``, an interaction
    answer's ``data.components``), with the dotted path of what carries it."""
    if isinstance(node, dict):
        emoji = node.get("emoji")
        if isinstance(emoji, dict) and (node.get("type") == 2 or "value" in node):
            yield path, emoji
        for key, value in node.items():
            if key in ("components", "options", "data", "accessory", "component"):
                yield from _component_emojis(value, f"{path}{key}.")
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from _component_emojis(item, f"{path}{i}.")
