"""Discord having trouble, on a test's request: an error answered in place of a route's answer (or after carrying
the request out: the answer is what got lost), a rate limit's 429, a request held on its way until the test releases
it, the bot's permissions denied in a channel, as a channel overwrite would, and Discord unreachable altogether
(:meth:`Faults.go_away`)."""

from __future__ import annotations

import asyncio
import re
import socket
from dataclasses import dataclass, field
from typing import Final

from .entities import ChannelRef, FakeChannel
from .routing import RecordedRequest
from .validation import ApiError, RateLimited

DENIABLE: Final = {"send_messages": 1 << 11, "attach_files": 1 << 15, "send_messages_in_threads": 1 << 38,
                    "create_public_threads": 1 << 35, "manage_threads": 1 << 34}
"""The permissions :meth:`FakeDiscord.deny_permission` can take from the bot in a channel, with their bits (Discord's
permissions topic): an interaction's ``app_permissions`` lack the bits denied in its channel."""


@dataclass(eq=False)
class InjectedError:
    """An error :meth:`Faults.inject_error` (or :meth:`Faults.rate_limit`) answers the next matching requests with
    (``remaining``: how many more; ``None``: all)."""

    method: str
    pattern: re.Pattern[str]
    error: ApiError
    remaining: int | None
    after: bool = False
    """Carry the request out first, then answer with the error (the answer is what got lost)."""


@dataclass(eq=False)
class Stall:
    """A request held on its way, as a slow network or a busy Discord holds it: :attr:`arrived` is set when the
    matching request comes; it is carried out once :meth:`release` is called."""

    method: str
    pattern: re.Pattern[str]
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    released: asyncio.Event = field(default_factory=asyncio.Event)

    def release(self) -> None:
        self.released.set()


class Faults:
    """The part of :class:`~tests.fakediscord.server.FakeDiscord` that makes Discord fail on purpose."""

    def inject_error(
        self,
        method: str,
        path: str,
        *,
        status: int = 403,
        code: int = 50013,
        message: str = "Missing Permissions",
        times: int | None = 1,
        after: bool = False,
    ) -> None:
        """Make the next ``times`` requests (``None``: all) matching ``method`` (or ``"*"``) and the
        path regex ``path`` (``re.fullmatch`` on e.g. ``/channels/123/messages``) fail with this
        Discord error. discord.py retries 500, 502, 504 and 524 itself with sleeps of 1, 3, 5... s
        (five times, then raises); a 503 it raises at once: use :meth:`fail_route` for that.
        ``after=True``: the request is carried out (a message is created), only its answer is the error."""
        error = ApiError(status, code, message)
        self._injected.append(InjectedError(method.upper(), re.compile(path), error, times, after))

    def stall(self, method: str, path: str) -> Stall:
        """Hold the next request matching ``method`` and the path regex ``path`` on its way (not answered, not
        carried out) until the returned stall is released: what the bot does meanwhile meets a Discord that has
        not seen the request yet."""
        held = Stall(method.upper(), re.compile(path))
        self._stalls.append(held)
        return held

    def clear_errors(self) -> None:
        """Forget every injected error (from :meth:`inject_error` and :meth:`fail_route`)."""
        self._injected.clear()

    def fail_route(self, method: str, path: str, *, status: int = 503, times: int | None = 1,
                   after: bool = False) -> None:
        """Answer the next ``times`` requests matching ``method`` and ``path`` (as :meth:`inject_error`)
        with a server error, as Discord does when it has trouble (default 503 Service Unavailable);
        ``after=True``: when the work was done all the same (the bot cannot tell)."""
        message = {500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable",
                   504: "Gateway Timeout"}.get(status, "Server Error")
        self.inject_error(method, path, status=status, code=0, message=message, times=times, after=after)

    def rate_limit(self, method: str, path: str, *, scope: str = "user", retry_after: float = 0.05,
                   times: int = 1) -> None:
        """Answer the next ``times`` requests matching ``method`` and the path regex ``path`` 429 Too Many Requests,
        as Discord does past a rate limit of ``scope`` (user, shared or global; see
        :class:`~tests.fakediscord.validation.RateLimited`): the request is not carried out, and discord.py waits
        ``retry_after`` seconds and sends it again."""
        self._injected.append(InjectedError(method.upper(), re.compile(path), RateLimited(scope, retry_after), times))

    async def go_away(self) -> None:
        """Discord becomes unreachable, as when the network between it and the bot fails: every open connection (the
        gateway's, and the REST API's kept alive) breaks off without a close frame, and a new connection goes
        unanswered: its packets are lost, as behind a firewall or a dead route (a listening socket whose queue is full
        and that never accepts drops every further connection request on Linux), and the client waits for its own
        timeout. It lasts until the fake stops."""
        if self._runner is None or self.port is None:
            raise RuntimeError("FakeDiscord is not started")
        if self._site is not None:
            site, self._site = self._site, None
            await site.stop()
        server = self._runner.server
        for handler in server.connections if server is not None else ():
            if handler.transport is not None:
                handler.transport.abort()
        for conn in self.connections:
            conn.closed = True  # the fake's gateway sends nothing more on it
        self._end_outage()
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(0)
        filler = socket.create_connection(("127.0.0.1", self.port))  # the one place in the queue, never accepted
        self._unreachable = [listener, filler]
        self.notify()

    def _end_outage(self) -> None:
        """Close what keeps Discord unreachable (:meth:`go_away`), when the fake stops."""
        for sock in self._unreachable:
            sock.close()
        self._unreachable = []

    async def _fault_for(self, rec: RecordedRequest) -> tuple[ApiError | None, ApiError | None]:
        """Hold ``rec`` while a :meth:`stall` asks for it; then the injected error it meets, if any: ``(answer at
        once, answer after carrying the request out)``."""
        held = next((h for h in self._stalls if h.method == rec.method and h.pattern.fullmatch(rec.path)), None)
        if held is not None:
            self._stalls.remove(held)
            held.arrived.set()
            await held.released.wait()
        for injected in self._injected:
            if injected.method in ("*", rec.method) and injected.pattern.fullmatch(rec.path):
                if injected.remaining is not None:
                    injected.remaining -= 1
                    if injected.remaining <= 0:
                        self._injected.remove(injected)
                return (None, injected.error) if injected.after else (injected.error, None)
        return None, None

    def deny_permission(self, channel: ChannelRef, permission: str, denied: bool = True) -> None:
        """Deny the bot ``permission`` in ``channel`` (or allow it again), as a channel overwrite would: a message
        (with files; in a thread: ``send_messages_in_threads``) there then fails with 403 / 50013, and so do
        creating a thread under it (``create_public_threads``) and unarchiving a thread a moderator locked that the
        bot did not start (``manage_threads``). A thread has its channel's permissions (denied in a channel, denied in
        its threads); an interaction's ``app_permissions`` there lack what is denied."""
        if permission not in DENIABLE:
            raise ValueError(f"the fake denies {', '.join(DENIABLE)}, not {permission!r}")
        denied_here = self._denied.setdefault(self.channel(channel).id, set())
        if denied:
            denied_here.add(permission)
        else:
            denied_here.discard(permission)

    def _denied_in(self, channel: FakeChannel) -> set[str]:
        """The bot's permissions denied in ``channel``: its own overwrites', and a thread's parent's (a thread has the
        permissions of its channel, Discord's threads topic says)."""
        denied = set(self._denied.get(channel.id, set()))
        if channel.is_thread and channel.parent_id is not None:
            denied |= self._denied.get(channel.parent_id, set())
        return denied
