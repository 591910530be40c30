"""Counting what Discord and the players see, at the two places everything passes: every interaction as it arrives
(the gateway's INTERACTION_CREATE) and every request to Discord (discord.py's HTTP client).

:func:`watch` installs both on a client. An interaction is counted once, at its first answer, by kind, command (or
button, its id without numbers) and outcome (:data:`bot.host.metrics.INTERACTIONS`), with the time from its creation
to that answer (:data:`bot.host.metrics.ACK_SECONDS`); the cog's one error handler says when the answer is a refusal
(:func:`note_outcome`). A request Discord refuses is counted by what it was and its status
(:data:`bot.host.metrics.DISCORD_ERRORS`).
"""

from __future__ import annotations

import re
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Final

import discord
from discord.webhook.async_ import AsyncWebhookAdapter, async_context

from bot.host import metrics

KINDS: Final = {2: "command", 3: "component", 4: "autocomplete", 5: "modal"}
CALLBACKS: Final = {4: "answered", 5: "deferred", 6: "deferred", 7: "answered", 8: "answered", 9: "answered"}
"""Interaction callback types and the outcome each means (5 and 6: the answer follows later)."""
REMEMBERED: Final = 2000
"""Interactions waiting for their first answer that are remembered (older ones are forgotten, uncounted)."""

_WORD: Final = re.compile(r"[ _]")
"""Where a move's verb ends in a button's id (``land_41``, ``discard_eruption``)."""
_pending: OrderedDict[int, list[str]] = OrderedDict()
"""Interaction id -> [kind, command, outcome noted before the answer, or ""]."""


def describe(data: dict[str, Any]) -> tuple[str, str]:
    """An interaction payload's kind and the command (``santacruz land``) or button (``sc:undo``) it is for."""
    kind = KINDS.get(int(data.get("type", 0)), "other")
    inner = data.get("data") or {}
    if kind in ("command", "autocomplete"):
        words = [str(inner.get("name", "?"))]
        options = inner.get("options") or []
        while options and options[0].get("type") in (1, 2):  # a subcommand (group)
            words.append(str(options[0].get("name", "?")))
            options = options[0].get("options") or []
        return kind, " ".join(words)
    # a button's id without its numbers, and of a move only its verb ("sc:discard:ok"): never the card it names
    parts = [_WORD.split(part, maxsplit=1)[0] for part in str(inner.get("custom_id", "?")).split(":")]
    return kind, ":".join(p for p in parts if p and not p.isdigit())[:40] or "?"


def received(data: dict[str, Any]) -> tuple[str, str]:
    """An interaction arrived: remember it until its first answer; its kind and command."""
    kind, command = describe(data)
    _pending[int(data["id"])] = [kind, command, ""]
    while len(_pending) > REMEMBERED:
        _pending.popitem(last=False)
    return kind, command


def note_outcome(interaction: discord.Interaction, outcome: str) -> None:
    """The interaction's answer will be a refusal (``refused``) or an unexpected error's words (``error``)."""
    entry = _pending.get(interaction.id)
    if entry is not None:
        entry[2] = outcome


def answered(interaction_id: int, callback_type: int | None, ok: bool) -> None:
    """The first answer to an interaction went out (``ok``) or failed: count it once, with its delay."""
    entry = _pending.pop(interaction_id, None)
    if entry is None:
        return
    kind, command, noted = entry
    outcome = (noted or CALLBACKS.get(callback_type or 0, "answered")) if ok else "unanswered"
    metrics.INTERACTIONS.labels(kind, command, outcome).inc()
    created = discord.utils.snowflake_time(interaction_id).timestamp()
    metrics.ACK_SECONDS.labels(kind).observe(max(0.0, time.time() - created))


def stopping(data: dict[str, Any]) -> None:
    """An interaction answered with "the bot is stopping"."""
    kind, command = received(data)
    _pending.pop(int(data["id"]), None)
    metrics.INTERACTIONS.labels(kind, command, "stopping").inc()


def request_kind(method: str, path: str) -> str:
    """What a request to Discord was, for the error counter."""
    if path.startswith("/interactions/"):
        return "interaction"
    if path.startswith("/webhooks/"):
        return "followup"
    if path.endswith("/messages") and method == "POST":
        return "message"
    if "/messages/" in path:
        return "edit" if method == "PATCH" else "message_other"
    if path.endswith("/threads") or "/threads" in path:
        return "thread"
    if path.startswith("/users/@me/channels"):
        return "dm_channel"
    return "other"


def watch(client: discord.Client) -> None:
    """Count every refused request of ``client`` and every first answer to an interaction (call in ``setup_hook``:
    interaction answers go through discord.py's webhook adapter, which is chosen per task context, and the tasks
    that handle interactions are started after it)."""
    http = client.http
    send: Callable[..., Any] = http.request

    async def request(route: discord.http.Route, **kwargs: Any) -> Any:
        try:
            return await send(route, **kwargs)
        except discord.HTTPException as exc:
            metrics.DISCORD_ERRORS.labels(request_kind(route.method, route.path), str(exc.status)).inc()
            raise

    http.request = request  # type: ignore[method-assign]  # the one door every request of the bot goes through
    async_context.set(_CountingAdapter())


class _CountingAdapter(AsyncWebhookAdapter):
    """discord.py's webhook adapter (interaction answers and follow-ups), counting each first answer."""

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # discord.py leaves it untyped

    async def request(self, route: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super().request(route, *args, **kwargs)
        except discord.HTTPException as exc:
            metrics.DISCORD_ERRORS.labels(request_kind(route.method, route.path), str(exc.status)).inc()
            raise

    async def create_interaction_response(self, interaction_id: int, token: str, **kwargs: Any) -> Any:
        params = kwargs["params"]
        try:
            result = await super().create_interaction_response(interaction_id, token, **kwargs)
        except discord.HTTPException:
            answered(interaction_id, None, False)
            raise
        payload = params.payload or _multipart_json(params.multipart)
        answered(interaction_id, (payload or {}).get("type"), True)
        return result


def _multipart_json(parts: Any) -> dict[str, Any]:
    """The ``payload_json`` of a multipart answer, decoded (``{}`` if it has none)."""
    for part in parts or ():
        if part.get("name") == "payload_json":
            value = part.get("value")
            return discord.utils._from_json(value) if isinstance(value, str) else {}
    return {}
