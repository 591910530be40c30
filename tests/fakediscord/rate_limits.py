"""Discord's rate limits as the fake enforces them: per-route buckets, the global limit, the invalid-request
threshold, and the gateway's session start limit (``max_concurrency``).

What Discord documents (its "Rate Limits" topic, the gateway's "Identifying", "Rate Limiting" and "Max Concurrency"
sections, and the interactions topic's "Endpoints"), and how :class:`RateLimits` follows it:

* **Per-route buckets.** A limited route answers with ``X-RateLimit-Limit``, ``-Remaining``, ``-Reset`` (epoch
  seconds), ``-Reset-After`` (seconds) and ``-Bucket`` (a hash naming the limit, the same for every route that shares
  it, "non-inclusive of top-level resources"). A bucket is counted per top-level resource of the path, its *major
  parameter* (``channel_id``, ``guild_id``, ``webhook_id`` + ``webhook_token``): posting in one channel leaves another
  channel's bucket alone. A bucket's window opens at its first request and holds ``limit`` requests until it resets.
  A request over it is answered 429 with ``X-RateLimit-Scope: user`` and the same headers. Discord's numbers are not
  documented ("should not be hard coded"); :data:`DISCORD_ROUTES` holds the ones observed for the routes this bot
  uses (the threads of ``discord/discord-api-docs`` cited there). A route not listed has no per-route limit here,
  as ``GET /channels/{id}/messages`` has none on Discord (it answers no bucket headers).
* **Shared limits.** A resource can be rate limited for everyone (a 429 with ``X-RateLimit-Scope: shared``, "The
  resource is being rate limited."): :meth:`RateLimits.limit_resource` makes one so for a while.
* **The global limit.** Every bot may make 50 requests per second, whatever the route; without an ``Authorization``
  header the limit is the address's. A request over it is answered 429 with ``X-RateLimit-Global: true``,
  ``X-RateLimit-Scope: global``, ``Retry-After`` and ``{"retry_after": ..., "global": true}``. The fake counts the
  requests of the last second (any second holds at most 50: the strictest reading). The interaction endpoints
  (``POST /interactions/{id}/{token}/callback`` and the ``/webhooks/{application_id}/{token}`` routes: the original
  response and the follow-ups) are not bound to it.
* **Invalid requests.** An address that makes 10,000 invalid requests (answered 401, 403 or 429; a 429 of scope
  ``shared`` does not count) in 10 minutes is banned by Cloudflare for a while: every request is then answered 429
  without the ``Via`` header that Discord's own answers carry, with a plain-text body (discord.py tells the two
  apart by exactly that). :attr:`RateLimits.crossed` records when the threshold was crossed.
* **Session starts.** ``GET /gateway/bot`` reports ``session_start_limit``: ``total`` (1000 a day), ``remaining``,
  ``reset_after`` (milliseconds) and ``max_concurrency`` (1 unless Discord raised it: large bots get 16 and more).
  Shards whose ``shard_id % max_concurrency`` are equal may IDENTIFY once per 5 seconds; an IDENTIFY too soon after
  the last one of its key is answered with an Invalid Session (op 9, ``d: false``), as Discord documents.

Every answer of the REST API carries ``Via: 1.1 google``, as Discord's do.
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

GLOBAL_LIMIT: Final = 50
"""Requests per second a bot may make (Discord's "Global Rate Limit")."""
INVALID_LIMIT: Final = 10_000
INVALID_WINDOW: Final = 600.0
"""The invalid requests an address may make in ten minutes before it is banned (Discord's "Invalid Request Limit")."""
BAN_SECONDS: Final = 3600.0
"""How long the fake bans an address that crossed the threshold (Discord says "temporarily")."""
INVALID_STATUSES: Final = frozenset({401, 403, 429})
IDENTIFY_SPACING: Final = 5.0
"""Seconds between two IDENTIFYs of the same ``shard_id % max_concurrency`` key."""
SESSION_STARTS: Final = 1000
"""IDENTIFYs a bot may make in 24 hours (``session_start_limit.total``)."""
DAY: Final = 86_400.0
VIA: Final = {"Via": "1.1 google"}
"""The header every answer of Discord's API carries (a Cloudflare ban's answer does not)."""
RATE_LIMITED: Final = "You are being rate limited."
RESOURCE_LIMITED: Final = "The resource is being rate limited."

_MAJOR: Final = ("channel_id", "guild_id", "webhook_id")


@dataclass(frozen=True)
class RouteLimit:
    """One route's per-route limit: ``limit`` requests per ``period`` seconds, per major parameter, counted in the
    bucket named ``bucket`` (routes naming the same bucket share it)."""

    method: str
    path: str
    """The route, its parameters in braces: ``/channels/{channel_id}/messages``."""
    limit: int
    period: float
    bucket: str

    def pattern(self) -> re.Pattern[str]:
        """The route as a regular expression whose groups are its parameters."""
        return re.compile(re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", self.path))

    @property
    def hash(self) -> str:
        """``X-RateLimit-Bucket``: a stable hash of the bucket's name (Discord's are opaque hex strings)."""
        return hashlib.md5(self.bucket.encode(), usedforsecurity=False).hexdigest()


DISCORD_ROUTES: Final = (
    # 5 per 5 s per channel: discord-api-docs#5646 (limit 5, reset after ~5 s), #8073 and #1442 (creating and editing
    # messages give the same bucket hash, yet each has its own count: two limits here)
    RouteLimit("POST", "/channels/{channel_id}/messages", 5, 5.0, "message create"),
    RouteLimit("PATCH", "/channels/{channel_id}/messages/{message_id}", 5, 5.0, "message edit"),
    # deleting: 5 per second (discord-api-docs#2761: a bucket of its own, unlike creating and editing)
    RouteLimit("DELETE", "/channels/{channel_id}/messages/{message_id}", 5, 1.0, "message delete"),
    # reactions: one per quarter second, adding and removing alike (discord-api-docs#981)
    RouteLimit("PUT", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me", 1, 0.25, "reaction"),
    RouteLimit("DELETE", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me", 1, 0.25, "reaction"),
    # a channel's settings (an archived thread opened again): 10 per 15 s (discord-api-docs#2190, #2761)
    RouteLimit("PATCH", "/channels/{channel_id}", 10, 15.0, "channel edit"),
    # webhooks, interaction webhooks among them ("share the same rate limit properties as normal webhooks"):
    # 5 per 2 s per webhook (discord-api-docs#6753)
    RouteLimit("POST", "/webhooks/{webhook_id}/{webhook_token}", 5, 2.0, "webhook"),
    RouteLimit("PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}", 5, 2.0, "webhook"),
    RouteLimit("DELETE", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}", 5, 2.0, "webhook"),
)
"""The per-route limits observed on Discord for the routes the bot uses (Discord sends them in the headers and may
change them; the threads cited say where each was seen)."""


def _millis(seconds: float) -> float:
    """``seconds`` to the millisecond, rounded up (a client that waits what it is told is never early)."""
    return max(0.0, math.ceil(round(seconds * 1000, 6)) / 1000)


@dataclass
class _Bucket:
    """One bucket of one major parameter: its window and what it holds."""

    limit: int
    period: float
    used: int = 0
    resets_at: float = 0.0


@dataclass
class Verdict:
    """What the limits say about one request: the headers its answer carries and, for a request over a limit, the
    answer itself (status, body)."""

    headers: dict[str, str]
    refusal: tuple[int, Any] | None = None
    scope: str | None = None
    """Of a 429: ``user``, ``global`` or ``shared``; ``cloudflare`` for a banned address's answer."""


@dataclass
class _Restriction:
    """A resource rate limited for everyone until ``until`` (a shared limit)."""

    method: str
    pattern: re.Pattern[str]
    until: float


@dataclass
class RateLimits:
    """The limits of one fake Discord, and what they counted. Every number can be lowered for a test (a global
    limit of 10, say, to show two processes keeping a shared budget).

    :param application_id: the application whose interaction webhooks are exempt from the global limit.
    :param routes: the per-route limits (``()``: none).
    :param global_limit: requests per second per bot token (and per address without a token).
    :param max_concurrency: ``session_start_limit.max_concurrency`` (see the module docstring).
    """

    application_id: int
    routes: Sequence[RouteLimit] = DISCORD_ROUTES
    global_limit: int = GLOBAL_LIMIT
    global_period: float = 1.0
    invalid_limit: int = INVALID_LIMIT
    invalid_window: float = INVALID_WINDOW
    ban_seconds: float = BAN_SECONDS
    max_concurrency: int = 1
    identify_spacing: float = IDENTIFY_SPACING
    session_starts: int = SESSION_STARTS
    clock: Callable[[], float] = time.time

    refused: Counter[str] = field(default_factory=Counter)
    """429s answered, by scope (``global``, ``user``, ``shared``, ``cloudflare``)."""
    refused_at: list[tuple[float, str]] = field(default_factory=list)
    """(time, scope) of each 429 answered."""
    invalid: deque[float] = field(default_factory=deque)
    """When each invalid request of the last :attr:`invalid_window` seconds was answered."""
    invalid_total: int = 0
    requests: int = 0
    """Every REST request judged (the exempt ones included)."""
    counted: list[float] = field(default_factory=list)
    """When each request that counts against a global limit was let through (for the busiest second)."""
    crossed: list[float] = field(default_factory=list)
    """When the invalid requests reached :attr:`invalid_limit` (the address was banned from then)."""
    banned_until: float = 0.0
    identifies: list[tuple[float, int]] = field(default_factory=list)
    """(time, shard id) of every IDENTIFY accepted."""
    refused_identifies: list[tuple[float, int]] = field(default_factory=list)
    """(time, shard id) of every IDENTIFY answered with an Invalid Session for coming too soon."""

    _compiled: list[tuple[RouteLimit, re.Pattern[str]]] = field(init=False, default_factory=list)
    _buckets: dict[tuple[str, str], _Bucket] = field(init=False, default_factory=dict)
    _recent: dict[str, deque[float]] = field(init=False, default_factory=dict)
    _restricted: list[_Restriction] = field(init=False, default_factory=list)
    _exempt: re.Pattern[str] = field(init=False)

    def __repr__(self) -> str:
        return (f"<RateLimits global {self.global_limit}/s, {len(self.routes)} routes; refused {dict(self.refused)}, "
                f"{self.invalid_count()} invalid, {len(self.refused_identifies)} IDENTIFYs too soon>")

    def __post_init__(self) -> None:
        self._compiled = [(route, route.pattern()) for route in self.routes]
        self._exempt = re.compile(rf"/interactions/\d+/[^/]+/callback|/webhooks/{self.application_id}/[^/]+(/.*)?")

    # -- REST ------------------------------------------------------------------------------

    def exempt(self, path: str) -> bool:
        """Whether the request is an interaction endpoint's (not bound to the global limit)."""
        return self._exempt.fullmatch(path) is not None

    def admit(self, method: str, path: str, authorization: str | None) -> Verdict:
        """Judge one request as it arrives: the headers for its answer, and a 429 if it is over a limit. A request
        admitted counts in its route's bucket and (unless it is an interaction endpoint's) in the global window."""
        now = self.clock()
        self.requests += 1
        if now < self.banned_until:
            self.refused["cloudflare"] += 1
            return Verdict({}, (429, "error code: 1015"), "cloudflare")
        headers: dict[str, str] = dict(VIA)
        found = self._bucket(method, path, now)
        if found is not None:
            limit, bucket = found
            headers |= self._bucket_headers(limit, bucket, now)
        restriction = next((r for r in self._restricted if r.until > now and r.method in ("*", method)
                            and r.pattern.fullmatch(path)), None)
        if restriction is not None:
            return self._refuse(headers, restriction.until - now, "shared", RESOURCE_LIMITED)
        if found is not None and found[1].used >= found[1].limit:
            return self._refuse(headers, found[1].resets_at - now, "user", RATE_LIMITED)
        if not self.exempt(path):
            recent = self._recent.setdefault(authorization or "address", deque())
            while recent and recent[0] <= now - self.global_period:
                recent.popleft()
            if len(recent) >= self.global_limit:
                glob = {**VIA, "X-RateLimit-Global": "true"}
                return self._refuse(glob, recent[0] + self.global_period - now, "global", RATE_LIMITED)
            recent.append(now)
            self.counted.append(now)
        if found is not None:
            limit, bucket = found
            bucket.used += 1
            headers |= self._bucket_headers(limit, bucket, now)
        return Verdict(headers)

    def _bucket(self, method: str, path: str, now: float) -> tuple[RouteLimit, _Bucket] | None:
        """The route's limit and its bucket for the path's major parameter (its window opened again if it reset);
        None for a route without a per-route limit."""
        for limit, pattern in self._compiled:
            match = pattern.fullmatch(path) if limit.method == method else None
            if match is None:
                continue
            groups = match.groupdict()
            major = "+".join(groups[name] for name in (*_MAJOR, "webhook_token") if name in groups)
            bucket = self._buckets.setdefault((limit.bucket, major), _Bucket(limit.limit, limit.period))
            if now >= bucket.resets_at:
                bucket.used, bucket.resets_at = 0, now + bucket.period
            return limit, bucket
        return None

    def _bucket_headers(self, limit: RouteLimit, bucket: _Bucket, now: float) -> dict[str, str]:
        return {"X-RateLimit-Limit": str(bucket.limit), "X-RateLimit-Remaining": str(bucket.limit - bucket.used),
                "X-RateLimit-Reset": f"{_millis(bucket.resets_at):.3f}",
                "X-RateLimit-Reset-After": f"{_millis(bucket.resets_at - now):.3f}",
                "X-RateLimit-Bucket": limit.hash}

    def _refuse(self, headers: dict[str, str], retry_after: float, scope: str, message: str) -> Verdict:
        retry_after = max(0.001, _millis(retry_after))
        self.refused[scope] += 1
        self.refused_at.append((self.clock(), scope))
        headers = {**headers, "X-RateLimit-Scope": scope, "Retry-After": str(math.ceil(retry_after))}
        body = {"message": message, "retry_after": retry_after, "global": scope == "global"}
        return Verdict(headers, (429, body), scope)

    def answered(self, verdict: Verdict, status: int, scope: str | None = None) -> None:
        """The request was answered ``status`` (a 429 of ``scope``, when the fake answered one of its own): an invalid
        one is counted (a 429 of scope shared is not, nor is a banned address's answer), and the address banned once
        the threshold is reached."""
        if status not in INVALID_STATUSES or (verdict.scope or scope) in ("shared", "cloudflare"):
            return
        now = self.clock()
        self.invalid_total += 1
        self.invalid.append(now)
        while self.invalid and self.invalid[0] <= now - self.invalid_window:
            self.invalid.popleft()
        if len(self.invalid) >= self.invalid_limit and now >= self.banned_until:
            self.crossed.append(now)
            self.banned_until = now + self.ban_seconds

    def busiest_second(self) -> int:
        """The most requests counted against a global limit that any one second held."""
        times = self.counted
        most, first = 0, 0
        for last, at in enumerate(times):
            while times[first] <= at - self.global_period:
                first += 1
            most = max(most, last - first + 1)
        return most

    def invalid_count(self) -> int:
        """The invalid requests of the last :attr:`invalid_window` seconds."""
        now = self.clock()
        return sum(1 for at in self.invalid if at > now - self.invalid_window)

    def limit_resource(self, method: str, path: str, seconds: float) -> None:
        """Rate limit a resource for everyone for ``seconds`` (its requests get a 429 of scope ``shared``, as when a
        crowd posts in one channel): ``path`` is a regular expression of the paths (``method`` ``*``: any)."""
        self._restricted.append(_Restriction(method, re.compile(path), self.clock() + seconds))

    # -- gateway ---------------------------------------------------------------------------

    def session_start_limit(self) -> dict[str, int]:
        """``GET /gateway/bot``'s ``session_start_limit``: what is left of today's IDENTIFYs, and the concurrency."""
        now = self.clock()
        today = [at for at, _ in self.identifies if at > now - DAY]
        reset_after = round((today[0] + DAY - now) * 1000) if today else 0
        return {"total": self.session_starts, "remaining": max(0, self.session_starts - len(today)),
                "reset_after": reset_after, "max_concurrency": self.max_concurrency}

    def identify(self, shard_id: int) -> bool:
        """An IDENTIFY of ``shard_id`` arrived: whether it may start a session (``False``: it came within
        :attr:`identify_spacing` seconds of the last one of its key, and is answered with an Invalid Session)."""
        now = self.clock()
        key = shard_id % self.max_concurrency
        last = next((at for at, shard in reversed(self.identifies) if shard % self.max_concurrency == key), None)
        if last is not None and now - last < self.identify_spacing:
            self.refused_identifies.append((now, shard_id))
            return False
        self.identifies.append((now, shard_id))
        return True
