"""Leases (a part of the host): the work one process does at a time when several share the database, named
``<kind>:<channel>``: a channel's outbox (the adapter's publisher, so that its posts keep their order) and a
channel's computer players (:mod:`bot.host.computers`). A lease runs out unless renewed, so a dead holder's work is
taken over; a stopping process gives its leases up at once and tells the others (:meth:`Leases.release_all`,
:meth:`Leases.listen`). With a store of its own a process holds every lease without asking.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.host import metrics
from bot.host.errors import StorageFailed, storage_refusal
from bot.host.stores import GameStore

log = logging.getLogger(__name__)


class Leases:
    """The leases of this process (its ``owner`` name in the database)."""

    def __init__(self, store: GameStore, *, owner: str, shared: bool, clock: Callable[[], float]) -> None:
        self.store = store
        self.owner = owner
        self.shared = shared
        self._clock = clock
        self._held: set[str] = set()
        """The leases this process holds now (a shared database)."""

    async def hold(self, lease: str, seconds: float) -> bool:
        """Whether this process may do the work named ``lease`` (a channel's outbox, its computers) for the next
        ``seconds``: always with a store of its own; with a shared database, while no other live process holds
        it (a dead holder's lease expires)."""
        if not self.shared:
            return True
        now = self._clock()
        with storage_refusal(doing="taking a lease"):
            before = None if lease in self._held else await self.store.lease_holder(lease)
            held = await self.store.take_lease(lease, self.owner, now=now, seconds=seconds)
        if held and lease not in self._held:
            self._held.add(lease)
            if before is not None and before != self.owner:  # another process's, run out: taken over
                metrics.LEASE_TAKEOVERS.labels(lease.partition(":")[0]).inc()
        elif not held:
            self._held.discard(lease)
        return held

    async def let_go(self, lease: str) -> None:
        """Give up ``lease`` (done with the work, so that another process may take it at once)."""
        self._held.discard(lease)
        if not self.shared:
            return
        try:
            await self.store.release_lease(lease, self.owner)
        except StorageFailed as exc:  # it expires by itself
            log.warning("could not give up the lease %s (%s); it expires by itself", lease, exc)

    async def release_all(self, *, keep: str | None = None) -> int:
        """Give up every lease (but those named ``keep``-something, e.g. ``outbox:`` while the posts owed go out) and
        timer claim of this process at once (it stops), and tell the other processes, so that they take the work
        over now instead of after the leases run out; how many leases were given up."""
        self._held = {lease for lease in self._held if keep and lease.startswith(keep)}
        if not self.shared:
            return 0
        with storage_refusal(doing="giving up the leases"):
            return await self.store.release_all(self.owner, keep=keep)

    async def listen(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` when another process gives its work up (:meth:`release_all` there), to take it over
        now rather than when its leases run out (nothing to hear with a store of its own)."""
        await self.store.listen_released(callback)
