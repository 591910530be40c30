"""Turns: at most so many holders at a time, the others waiting in order of priority, then of arrival.

The render pool hands its executor at most ``slots`` pictures at once this way (:class:`bot.host.workers.WorkerPool`),
and the outboxes send the deliveries owed from before a start a few at a time
(:class:`bot.adapter.publish.Publisher`); a waiter named by a key may be let through at once (:meth:`Turns.hurry`).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager


class Turns:
    """``count`` turns: a holder keeps one for the block of :meth:`turn`, then hands it to the first still waiting."""

    def __init__(self, count: int) -> None:
        if count < 1:
            raise ValueError(f"turns need at least one, not {count}")
        self.free = count
        """Turns nobody holds (0 while anyone waits)."""
        self._waiting: list[tuple[int, int, asyncio.Future[bool]]] = []
        """A heap of (priority, arrival, wait): the wait is set ``True`` when handed a turn, ``False`` when hurried."""
        self._keyed: dict[Hashable, asyncio.Future[bool]] = {}
        """The waits that :meth:`hurry` may end, by key."""
        self._arrival = itertools.count()

    @property
    def waiting(self) -> int:
        """How many wait for a turn now."""
        return sum(1 for *_, wait in self._waiting if not wait.done())

    @asynccontextmanager
    async def turn(self, key: Hashable = None, *, priority: int = 0, hurry: bool = False) -> AsyncIterator[bool]:
        """Hold a turn for the block: at once when one is free, else once handed one (lower ``priority`` first, then
        in order of arrival) or hurried by ``key``; with ``hurry``, at once without taking one. Gives whether it
        waited."""
        if hurry:
            yield False
            return
        waited = self.free <= 0
        if not waited:
            self.free -= 1
            taken = True
        else:
            wait: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
            heapq.heappush(self._waiting, (priority, next(self._arrival), wait))
            if key is not None:
                self._keyed[key] = wait
            try:
                taken = await wait
            except asyncio.CancelledError:
                if wait.done() and not wait.cancelled() and wait.result():  # handed a turn as it was cancelled
                    self._hand_on()
                raise
            finally:
                if key is not None and self._keyed.get(key) is wait:
                    del self._keyed[key]
        try:
            yield waited
        finally:
            if taken:
                self._hand_on()

    def hurry(self, key: Hashable) -> bool:
        """The waiter of ``key`` goes at once, without taking a turn; whether one waited."""
        wait = self._keyed.pop(key, None)
        if wait is not None and not wait.done():
            wait.set_result(False)
            return True
        return False

    def _hand_on(self) -> None:
        """A turn is through: the first still waiting takes it (one cancelled or hurried meanwhile is passed over),
        else it is free."""
        while self._waiting:
            _, _, wait = heapq.heappop(self._waiting)
            if not wait.done():
                wait.set_result(True)
                return
        self.free += 1
