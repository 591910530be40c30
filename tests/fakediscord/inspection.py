"""What tests look at and wait for: the messages the fake stores, the requests it recorded, and the ``wait_*``
helpers that wake up on every change of the fake (a request, a gateway frame, a bot error log) instead of sleeping,
with a report of recent activity when they time out (:class:`FakeDiscordTimeout`)."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable
from typing import Any, TypeVar

from .entities import ChannelRef, UserRef
from .gateway import GatewaySession
from .message import FakeMessage
from .routing import RecordedRequest

T = TypeVar("T")


#: Default timeout (seconds) of every ``wait_*`` helper: generous, for slow CI machines.
DEFAULT_TIMEOUT = 15.0

POLL_CAP = 0.005
"""The longest pause between two looks at a condition given a ``poll`` to :meth:`FakeDiscord.wait_until` (on state
the fake does not see, e.g. the bot's database): such a look is cheap, and each pause the condition was already true
in is time the test waits for nothing, a few thousand times a run."""


class FakeDiscordTimeout(AssertionError):
    """A ``wait_*`` helper timed out; the message explains what was awaited and what happened."""


class Inspection:
    """The part of :class:`~tests.fakediscord.server.FakeDiscord` that tests read and wait on."""

    def messages(
        self, channel: ChannelRef | None = None, *, ephemeral: bool | None = None, include_deleted: bool = False
    ) -> list[FakeMessage]:
        """Messages of a channel, oldest first (``ephemeral=False`` hides ephemeral ones)."""
        ch = self.channel(channel)
        result = []
        for mid in self._channel_messages.get(ch.id, []):
            msg = self._messages[mid]
            if msg.deleted and not include_deleted:
                continue
            if ephemeral is not None and msg.ephemeral != ephemeral:
                continue
            result.append(msg)
        return result

    def dm_messages(self, user: UserRef) -> list[FakeMessage]:
        """Messages in the DM channel with ``user``, oldest first."""
        u = self.user(user)
        channel = self._dm_channels.get(u.id)
        return [] if channel is None else self.messages(channel)

    def all_messages(self) -> list[FakeMessage]:
        """Every stored message (all channels, including deleted), in creation order."""
        return list(self._messages.values())

    @property
    def unknown_requests(self) -> list[RecordedRequest]:
        """Requests no route matched (answered 404)."""
        return [r for r in self.requests if not r.known]

    def requests_to(
        self, method: str | None = None, path: str | re.Pattern[str] | None = None
    ) -> list[RecordedRequest]:
        """Recorded requests filtered by method and by a path regex (``re.fullmatch``)."""
        pattern = re.compile(path) if isinstance(path, str) else path
        return [
            r
            for r in self.requests
            if (method is None or r.method == method.upper())
            and (pattern is None or pattern.fullmatch(r.path) is not None)
        ]

    def assert_no_unknown_requests(self) -> None:
        """Fail if the bot called a route the fake does not implement."""
        unknown = self.unknown_requests
        assert not unknown, "unknown routes called: " + ", ".join(r.route for r in unknown)

    def dispatched_events(self, name: str | None = None) -> list[dict[str, Any]]:
        """Dispatch frames sent in all sessions (optionally only event ``name``)."""
        return [e for s in self.sessions for e in s.events if name is None or e["t"] == name]

    def notify(self) -> None:
        """Wake every ``wait_*`` call so it re-checks its condition. The fake calls this on each
        change of its own state; call it yourself if a condition depends on outside state."""
        event, self._changed = self._changed, asyncio.Event()
        event.set()

    async def wait_for_change(self, timeout: float) -> bool:
        """Wait until the fake's state changes (a request, a gateway frame, a bot error log...) or ``timeout``
        seconds pass; whether it changed. For a condition on state the fake does not see, looked at again after
        each change: what the bot does usually shows here right after it did it."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), timeout)
            return True
        return False

    async def wait_until(
        self,
        predicate: Callable[[], T],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        description: str = "condition",
        poll: float | None = None,
    ) -> T:
        """Wait until ``predicate()`` is truthy and return its value.

        The predicate is re-checked whenever the fake's state changes (a request, a gateway
        frame, a bot error log...). If it also depends on state the fake does not see (the
        bot's database, its cache), pass ``poll`` to re-check every ``poll`` seconds as well (at most
        :data:`POLL_CAP`: a look is cheap, a pause after the condition came true is waiting for nothing).
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            changed = self._changed
            result = predicate()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise FakeDiscordTimeout(self.diagnostics(f"timed out after {timeout}s waiting for {description}"))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), remaining if poll is None else min(poll, POLL_CAP, remaining))

    async def wait_for_message(
        self,
        channel: ChannelRef | None = None,
        predicate: Callable[[FakeMessage], object] | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        after: FakeMessage | int | None = None,
    ) -> FakeMessage:
        """Wait for a message in ``channel`` matching ``predicate`` (already-present ones count
        unless older than or equal to ``after``)."""
        ch = self.channel(channel)
        after_id = after.id if isinstance(after, FakeMessage) else (after or 0)

        def check() -> FakeMessage | None:
            for msg in self.messages(ch):
                if msg.id > after_id and (predicate is None or predicate(msg)):
                    return msg
            return None

        return await self.wait_until(check, timeout=timeout, description=f"a message in channel {ch.name or ch.id}")

    async def wait_for_dm(
        self,
        user: UserRef,
        predicate: Callable[[FakeMessage], object] | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> FakeMessage:
        """Wait for a DM to ``user`` matching ``predicate``."""
        u = self.user(user)

        def check() -> FakeMessage | None:
            for msg in self.dm_messages(u):
                if predicate is None or predicate(msg):
                    return msg
            return None

        return await self.wait_until(check, timeout=timeout, description=f"a DM to {u.name}")

    async def wait_for_request(
        self, method: str | None = None, path: str | None = None, *, count: int = 1, timeout: float = DEFAULT_TIMEOUT
    ) -> RecordedRequest:
        """Wait until ``count`` requests match (see :meth:`requests_to`); return the last of them."""

        def check() -> RecordedRequest | None:
            found = self.requests_to(method, path)
            return found[count - 1] if len(found) >= count and found[count - 1].status is not None else None

        return await self.wait_until(check, timeout=timeout, description=f"request {method} {path} x{count}")

    async def wait_for_connection(self, *, timeout: float = DEFAULT_TIMEOUT) -> GatewaySession:
        """Wait until a bot is connected (identified or resumed)."""

        def check() -> GatewaySession | None:
            return self.session if self.is_connected else None

        return await self.wait_until(check, timeout=timeout, description="a gateway connection")

    def diagnostics(self, headline: str = "fake discord state") -> str:
        """A multi-line report of recent activity (used in timeout errors)."""
        lines = [headline, f"gateway connected: {self.is_connected}; sessions: {len(self.sessions)}"]
        if self.server_errors:
            lines.append("ERRORS INSIDE THE FAKE (please fix tests/fakediscord):")
            lines.extend("  " + e.replace("\n", "\n  ") for e in self.server_errors[-3:])
        if self.bot_errors:
            lines.append("bot errors:")
            lines.extend("  " + e.replace("\n", "\n  ") for e in self.bot_errors[-5:])
        if self.validation_failures:
            lines.append("rejected payloads: " + " | ".join(self.validation_failures[-5:]))
        if self.unknown_requests:
            lines.append("unknown routes: " + ", ".join(r.route for r in self.unknown_requests))
        lines.append("last requests:")
        lines.extend(f"  {r}" for r in self.requests[-12:])
        return "\n".join(lines)
