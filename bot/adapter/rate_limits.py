"""Every request the bot sends to Discord's API takes a token of the bot's budget first (:mod:`bot.host.rate_budget`:
shared by every process through PostgreSQL, or this process's own on SQLite), and shard connections wait for their
IDENTIFY turn.

The hook is discord.py's documented ``http_trace`` (an ``aiohttp.TraceConfig``): aiohttp awaits its
``on_request_start`` before each request goes out, so every request of discord.py's HTTP client takes a token, its
own retries after a 429 or a 5xx included, whichever discord.py method sent it; and once the request has its
connection (``on_connection_reuseconn``, ``on_connection_create_end``), one that got it only after its token's slot
was over takes another. What does not count against
Discord's global limit takes none: the interaction endpoints (answers to interactions and their follow-ups, which
Discord exempts), the gateway's websocket and the CDN. discord.py's own limiter still keeps each route's bucket and
waits out any 429 that comes.

Each request takes its token at the priority of the work that sends it (:mod:`bot.host.priority`: ``with cosmetic():
await message.edit(...)`` for an edit that only tidies, ``with catching_up():`` for a post or DM owed from before
this process started), so that the posts and turn DMs of the moves being played go first when the budget is tight.

discord.py keeps a rate-limit bucket per route and forgets one idle for five minutes, looking through all of them
each time it makes a new one past 256. Every interaction has buckets of its own (its token is in its routes), so a
bot answering ten moves a second holds thousands, and went through them all some thirty times a second (1.5 ms each
at 9,000 buckets): :func:`sweep_seldom` lets it look at most once a second.
"""

from __future__ import annotations

import asyncio
import math
import re
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import TYPE_CHECKING, Final

import aiohttp
import discord

from bot.host import priority

if TYPE_CHECKING:
    from bot.host.rate_budget import Budget

SWEEP_EVERY: Final = 1.0
"""Seconds between two of discord.py's sweeps of its idle rate-limit buckets (:func:`sweep_seldom`)."""
_INTERACTION: Final = re.compile(r"/interactions/\d+/[^/]+/callback|/webhooks/(\d+)/[^/]+(?:/.*)?")
"""The interaction endpoints (Discord's "Receiving and Responding": not bound to the global rate limit)."""


def counts(url: str, application_id: int | None) -> bool:
    """Whether a request to ``url`` counts against the bot's global limit: a request of the REST API that is not one
    of the interaction endpoints (the application's own webhooks)."""
    base = discord.http.Route.BASE
    if not url.startswith(base + "/"):
        return False  # the gateway, the CDN
    path = url[len(base):].split("?", 1)[0]
    found = _INTERACTION.fullmatch(path)
    if found is None:
        return True
    webhook = found.group(1)
    return webhook is not None and application_id is not None and int(webhook) != application_id


def meter(trace: aiohttp.TraceConfig, budget: Callable[[], Budget | None],
          application_id: Callable[[], int | None]) -> None:
    """Make each counted request of the client whose ``http_trace`` is ``trace`` wait for a token of ``budget()``
    (none yet: it goes at once). The trace may do more (telemetry counts its 429s)."""

    async def on_request_start(session: aiohttp.ClientSession, context: SimpleNamespace,
                               params: aiohttp.TraceRequestStartParams) -> None:
        shared = budget()
        if shared is not None and counts(str(params.url), application_id()):
            context.priority = priority.current()
            await shared.take(context.priority)
            context.granted_at = context.token_at = asyncio.get_running_loop().time()

    async def on_connection(session: aiohttp.ClientSession, context: SimpleNamespace, params: object) -> None:
        """The request has its connection (reused, or made): if that took it past its token's slot, it takes
        another (:meth:`Budget.spend`)."""
        token_at = getattr(context, "token_at", None)
        shared = budget()
        if token_at is not None and shared is not None:
            context.token_at = await shared.spend(token_at, context.priority)

    async def on_request_headers_sent(session: aiohttp.ClientSession, context: SimpleNamespace,
                                      params: aiohttp.TraceRequestHeadersSentParams) -> None:
        granted_at = getattr(context, "granted_at", None)
        shared = budget()
        if granted_at is not None and shared is not None:  # how late the request left after its first token
            shared.left_late(asyncio.get_running_loop().time() - granted_at)

    trace.on_request_start.append(on_request_start)
    trace.on_connection_reuseconn.append(on_connection)
    trace.on_connection_create_end.append(on_connection)
    trace.on_request_headers_sent.append(on_request_headers_sent)


def sweep_seldom(http: discord.http.HTTPClient) -> None:
    """Make ``http`` (discord.py's HTTP client) sweep its idle rate-limit buckets at most once every
    :data:`SWEEP_EVERY` seconds instead of at every new bucket: what it forgets is the same (buckets idle for five
    minutes), a second later at most."""
    sweep = http._try_clear_expired_ratelimits
    last = -math.inf

    def seldom() -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= SWEEP_EVERY:
            last = now
            sweep()

    http._try_clear_expired_ratelimits = seldom  # type: ignore[method-assign]  # discord.py's own, pinned
