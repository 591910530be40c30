"""Counting what Discord and the players see, at the places everything passes: every interaction as it arrives
(the gateway's INTERACTION_CREATE), every request to Discord (discord.py's HTTP client, and aiohttp's trace of every
answer under it), the gateway's connection events, and the event loop itself.

:func:`watch` installs them on a client. An interaction is counted once, at its first answer, by kind, command (or
button, its id without numbers) and outcome (:data:`bot.host.metrics.INTERACTIONS`), with the time from its creation
to that answer (:data:`bot.host.metrics.ACK_SECONDS`); the cog's one error handler says when the answer is a refusal
(:func:`note_outcome`). A request Discord refuses is counted by what it was and its status
(:data:`bot.host.metrics.DISCORD_ERRORS`); one it answers 429, which discord.py waits out and sends again without a
word to the bot, by the limit's scope (:func:`http_trace`, :data:`bot.host.metrics.RATE_LIMITS`). The gateway's
new sessions, resumes and losses are counted per shard (:data:`bot.host.metrics.GATEWAY_EVENTS`); its
latency and the servers are read at each scrape (:func:`observe`); :func:`watch_loop` measures the event loop's lag,
:func:`watch_gc` the garbage collections' pauses.
"""

from __future__ import annotations

import asyncio
import gc
import re
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Final

import aiohttp
import discord
from discord.webhook.async_ import AsyncWebhookAdapter, async_context

from bot.host import metrics

KINDS: Final = {2: "command", 3: "component", 4: "autocomplete", 5: "modal"}
CALLBACKS: Final = {4: "answered", 5: "deferred", 6: "deferred", 7: "answered", 8: "answered", 9: "answered"}
"""Interaction callback types and the outcome each means (5 and 6: the answer follows later)."""
LOOP_INTERVAL: Final = 1.0
"""Seconds between two measures of the event loop's lag."""
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
    """Count every refused request of ``client``, every first answer to an interaction and the gateway's events
    (call in ``setup_hook``: interaction answers go through discord.py's webhook adapter, which is chosen per task
    context, and the tasks that handle interactions are started after it)."""
    _watch_gateway(client)
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


def http_trace() -> aiohttp.TraceConfig:
    """An aiohttp trace for a client's HTTP session (discord.py's ``http_trace`` option) that counts every answer 429
    by the limit's scope (Discord's ``X-RateLimit-Scope``: user, shared or global; none when it says no scope) and
    what the request was. discord.py waits a rate limit out and sends the request again, so nothing else sees it."""
    trace = aiohttp.TraceConfig()

    async def answered(session: aiohttp.ClientSession, context: Any, params: aiohttp.TraceRequestEndParams) -> None:
        if params.response.status != RATE_LIMITED:
            return
        headers = params.response.headers
        scope = headers.get("X-RateLimit-Scope") or ("global" if headers.get("X-RateLimit-Global") else "none")
        path = _API_VERSION.sub("", params.url.path, count=1)
        metrics.RATE_LIMITS.labels(scope.lower()[:16], request_kind(params.method, path)).inc()

    trace.on_request_end.append(answered)
    return trace


RATE_LIMITED: Final = 429
_API_VERSION: Final = re.compile(r"^/api/v[0-9]+")


GATEWAY_EVENTS: Final = {"connect": "session", "resumed": "resume", "disconnect": "disconnect"}
"""discord.py's gateway events (``on_connect``: READY, a new session; ``on_resumed``; ``on_disconnect``: a connection
lost or an attempt that failed; each also ``on_shard_…`` with the shard) -> their name in the metrics."""


def _watch_gateway(client: discord.Client) -> None:
    """Count the gateway's events per shard (a single connection is shard 0)."""
    add = getattr(client, "add_listener", None)
    if add is None:  # a plain client has no listeners to add (the bot is a commands.Bot)
        return
    sharded = isinstance(client, discord.AutoShardedClient)
    for event, name in GATEWAY_EVENTS.items():

        async def happened(shard_id: int | None = None, *, _name: str = name) -> None:
            metrics.GATEWAY_EVENTS.labels(str(shard_id or 0), _name).inc()

        add(happened, f"on_shard_{event}" if sharded else f"on_{event}")


def observe(client: discord.Client) -> None:
    """Set the gateway's figures before an exposition: each shard's latency and the servers this process sees."""
    if isinstance(client, discord.AutoShardedClient):
        latencies = dict(client.latencies)
    else:
        latencies = {0: client.latency}
    metrics.observe_gateway(latencies, len(client.guilds))


async def watch_loop(interval: float = LOOP_INTERVAL) -> None:
    """Measure the event loop's lag until cancelled: how much later than asked a task that sleeps ``interval``
    seconds wakes (the time the loop spent on other work meanwhile)."""
    loop = asyncio.get_running_loop()
    while True:
        asked = loop.time()
        await asyncio.sleep(interval)
        metrics.LOOP_LAG.observe(max(0.0, loop.time() - asked - interval))


def watch_gc() -> None:
    """Time every garbage collection of this process (:data:`bot.host.metrics.GC_PAUSE`), once for good."""
    if _timed_gc not in gc.callbacks:
        gc.callbacks.append(_timed_gc)


_gc_started = 0.0


def _timed_gc(phase: str, info: dict[str, int]) -> None:
    global _gc_started
    if phase == "start":
        _gc_started = time.perf_counter()
    else:
        metrics.GC_PAUSE.labels(str(info["generation"])).observe(time.perf_counter() - _gc_started)
