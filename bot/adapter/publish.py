"""What a game's channel (and its players, by DM) is told after the host stored a change: the channels' outboxes.

The host writes the posts and DMs a change owes (its deliveries) in the change's own transaction; here each
channel's :class:`ChannelOutbox` task delivers its pending rows in the order they were written (up to :data:`BATCH`
from one read), each by :class:`bot.adapter.delivery.Deliveries`, without holding up any other channel; after a passing
failure it waits out the backoff, except that after the database failed it, it tries again as soon as the database
answers again (the readiness check, looked at every :data:`STORAGE_PROBE` seconds meanwhile). At start-up the outboxes
simply resume from the database, however long the bot was down (what was owed from before the start is sent
:data:`CATCH_UP_AT_ONCE` deliveries at a time over every channel, so that the moves played meanwhile are not held);
the sweep (or a change of settings) wakes the channels whose held DMs are due. With a shared database only the process
holding a channel's lease delivers its posts, so they keep their order.

The lobby message is one of those deliveries (:mod:`bot.adapter.lobby_message`): posted when the lobby opens,
redrawn after each change of it with the newest state (the host skips a redraw that a later one makes again). No
acknowledgement waits for any of this: the methods named for what happened (:meth:`Publisher.moved`,
:meth:`~Publisher.started`...) only wake the channel's task.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Final

import discord

from bot.adapter.delivery import Backoff, Deliveries
from bot.adapter.dms import DirectMessages
from bot.adapter.lobby_message import LobbyMessages
from bot.adapter.threads import ThreadNotices
from bot.host.deliveries import Delivery
from bot.host.errors import CopyBehind, StorageFailed
from bot.host.host import Host
from bot.host.pictures import Pictures
from bot.host.priority import Owed, catching_up
from bot.host.table import MoveResult, SeatChange, StartResult, TableInfo
from bot.host.turns import Turns

log = logging.getLogger(__name__)

LEASE_RETRY: Final = 1.0
"""Seconds before a process looks again at a channel whose outbox another process holds."""
STORAGE_PROBE: Final = 1.0
"""Seconds between two looks at the database (the readiness check) while outboxes wait out their backoff after the
database failed them: once it answers again they try again at once, not after a backoff of up to five minutes."""
BATCH: Final = 20
"""How many due deliveries of a channel are sent from one read of its outbox (after a long outage a channel may owe
a hundred posts, each with the public view in its payload: reading them all again for each would be quadratic)."""
CATCH_UP_AT_ONCE: Final = 8
"""Deliveries left owed from before the start that are sent at once, over every channel: a start that owes hundreds of
posts (a restart after an outage, a restore) sends them a few at a time, so that the posts of the moves being played
meanwhile do not queue behind them for the event loop, the render workers and the budget, and the process does not
hold every owed post's pictures at once."""
ChannelGone = Callable[[int, str], Awaitable[None]]
"""``(channel_id, reason)``: what to do when a post finds the channel gone (end its games)."""


class ChannelOutbox:
    """One channel's dispatcher task: the channel's due deliveries in order."""

    def __init__(self, channel_id: int, publisher: Publisher) -> None:
        self.channel_id = channel_id
        self._publisher = publisher
        self._wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.woken_by_storage = False
        """Woken from its backoff because the database answered again, and nothing delivered since: should the
        database fail it once more, it waits its backoff out (the readiness check said the database answers, yet it
        fails this outbox)."""
        self._timer: asyncio.TimerHandle | None = None
        """Wakes the channel when a "your cards changed" DM has waited long enough (:meth:`wake_in`)."""

    def wake_in(self, seconds: float) -> None:
        """Look for work again in ``seconds`` (unless woken sooner already): a DM waits until then. Not once the bot
        began to shut down (what still waits goes out at the next start)."""
        if self._publisher.closing is not None:
            return
        loop = asyncio.get_running_loop()
        when = loop.time() + max(0.0, seconds)
        if self._timer is not None and not self._timer.cancelled() and self._timer.when() <= when:
            return
        self.stop_timer()
        self._timer = loop.call_at(when, self.kick)

    def stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def kick(self) -> None:
        """Look for work now (a new delivery was stored); after the bot began to shut down, no
        new task starts (what is stored goes out at the next start)."""
        self._wake.set()
        if self._publisher.closing is not None:
            return
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._run(), name=f"santacruz-outbox-{self.channel_id}")

    async def _run(self) -> None:
        """Deliver until nothing is pending; wait out a backoff, or until woken."""
        failures = 0
        while True:
            self._wake.clear()
            try:
                more = await self._step()
                failures, self.woken_by_storage = 0, False
            except Exception as exc:  # e.g. the database is locked: try again later, never die
                failures += 1
                delay = self._publisher.backoff.delay(failures)
                if isinstance(exc, StorageFailed):
                    log.warning("channel %d: the outbox could not read or write the database (%s); trying again "
                                "in %.1f s", self.channel_id, exc, delay)
                    if not self.woken_by_storage:  # or as soon as the database answers again
                        with self._publisher.waiting_for_storage(self):
                            await self._sleep(delay)
                        continue
                else:
                    log.exception("channel %d: the outbox failed; trying again in %.1f s", self.channel_id, delay)
                await self._sleep(delay)
                continue
            if not more and not self._wake.is_set():
                await self._publisher.host.leases.let_go(self.lease)
                if self._wake.is_set():
                    continue  # woken while letting go (this task still ran, so no new one was started): look again
                return

    @property
    def lease(self) -> str:
        """The name of the lease that lets one process deliver this channel's posts (a shared database)."""
        return f"outbox:{self.channel_id}"

    async def _step(self) -> bool:
        """Deliver the pending deliveries that are due, in order, up to
        :data:`BATCH` of them from one read of the outbox (else wait for the first); whether anything may still be
        pending. With a shared database only the process holding the channel's lease delivers (so the posts keep
        their order); the others look again shortly, in case it let go."""
        host = self._publisher.host
        pending = await host.outbox.pending_deliveries(self.channel_id)
        ready = host.outbox.ready(pending)
        wake = host.outbox.wake_at(pending)
        if wake is not None:  # a "your cards changed" DM waits for the turn DM it may be folded into
            self.wake_in(wake - host.outbox.now())
        if not ready:  # DMs held for the end of quiet hours (the sweep wakes the channel when they are due), or waiting
            return False
        lease = host.settings.lease_seconds  # renewed with every delivery
        for done, i in enumerate(ready[:BATCH]):
            if not await host.leases.hold(self.lease, lease):
                await self._sleep(LEASE_RETRY)
                break
            delivery = pending[i]
            wait = delivery.due_at - host.outbox.now()
            # a stop sends a fresh post now, within its own grace, rather than wait out its grace for an Undo; a
            # delivery that failed before keeps its backoff, and is left to the next start when that ends after the
            # stop's grace (the posts after it wait for it: this channel has nothing more to do before the stop)
            closing = self._publisher.closing
            if wait > 0 and (closing is None or delivery.attempts):
                if closing is not None and wait >= closing - asyncio.get_running_loop().time():
                    return False
                if not done:
                    await self._sleep(min(wait, lease / 2))
                break
            # the game loaded if this process does not hold it, or read again if it moved in another process since
            # this one last looked (a change under way here, the sweep's reading of it, is waited for: a copy from
            # before it would call the turn passed)
            async with self._publisher.turn(delivery, pending[i + 1:]) as waited:  # one owed from before a start
                if waited and not await host.leases.hold(self.lease, lease):  # the wait may outlast the lease
                    await self._sleep(LEASE_RETRY)
                    break
                try:
                    await host.refresh.game(delivery.game_id, wait=lease / 2, strict=True)
                except CopyBehind:  # that change is slow (a busy machine): nothing is decided yet, look again shortly
                    log.info("channel %d: its game's copy is not up to date yet; delivering shortly", self.channel_id)
                    await self._sleep(LEASE_RETRY)
                    break
                if not await self._publisher.deliver(delivery, pending[i + 1:]):
                    break  # due again later, or the channel is gone: what was read is out of date
        return True

    def storage_answered(self) -> None:
        """The database answers again: try again now rather than at the end of the backoff."""
        self.woken_by_storage = True
        self.kick()

    async def _sleep(self, seconds: float) -> None:
        """Wait ``seconds``, or less if woken (a new delivery, the database answering again)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), timeout=seconds)


class Publisher:
    """The channels' outboxes: they deliver what the host stored."""

    def __init__(self, client: discord.Client, host: Host, pictures: Pictures, dms: DirectMessages, *,
                 backoff: Backoff | None = None) -> None:
        self.client = client
        self.host = host
        self.backoff = backoff or Backoff()
        """Waits between tries of a delivery that failed for a passing reason (tests make them short)."""
        self.outboxes: dict[int, ChannelOutbox] = {}
        self.threads = ThreadNotices(client)
        """What the bot says in a channel about its games' threads (a permission it lacks, a locked thread)."""
        self.deliveries = Deliveries(client, host, pictures, dms, LobbyMessages(client, host), self.threads)
        self.on_channel_gone: ChannelGone | None = None
        """Called when a post finds its channel gone (404 Unknown Channel or Unknown Guild), after giving it up."""
        self.closing: float | None = None
        """When the bot is shutting down, the event loop's time its posts must be out by: the outboxes at work may
        finish, no new one starts (:meth:`close`)."""
        self.storage_probe = STORAGE_PROBE
        """Seconds between two looks at the database while outboxes wait out a backoff after it failed them."""
        self._after_storage_failure: set[ChannelOutbox] = set()
        """The outboxes asleep in their backoff after the database failed them."""
        self._storage_watch: asyncio.Task[None] | None = None
        self._catching_up = Turns(CATCH_UP_AT_ONCE)
        """The turns of the deliveries owed from before the start, by channel."""
        self._under_way: dict[int, Owed] = {}
        """The delivery owed from before the start that each channel is sending or waits to send (:meth:`turn`): a
        move being played that waits behind it hurries it (:meth:`wake`)."""
        self._owed_moves: set[tuple[int, int]] = set()
        """(game id, seq) of the moves the computers made at the start for the games that waited for them: owed from
        before the start like the deliveries left from before it, though written since (:meth:`moved`). A start's
        only, so never more than the games it found waiting for a computer."""

    def close(self, until: float) -> None:
        """Start no outbox task from now on (the bot is shutting down; the database keeps what is still owed, and the
        next start delivers it): a change that wakes a channel later, e.g. a server's removal arriving while the
        gateway closes, cannot start a task that would outlive the database. The outboxes at work are woken: a post
        they wait to send (its grace for an *Undo*) goes out now, within the stop's grace, which ends at ``until``
        (the event loop's time); a post waiting out a backoff past that is left to the next start."""
        self.closing = until
        if self._storage_watch is not None:
            self._storage_watch.cancel()
        for box in self.outboxes.values():
            box.stop_timer()
            box.kick()

    # ------------------------------------------------------------------ waking the outboxes

    def outbox(self, channel_id: int) -> ChannelOutbox:
        box = self.outboxes.get(channel_id)
        if box is None:
            box = self.outboxes[channel_id] = ChannelOutbox(channel_id, self)
        return box

    def wake(self, channel_id: int) -> None:
        """Deliver what the host stored for ``channel_id`` (after everything stored before it): a delivery owed from
        before the start that it waits behind no longer waits for its turn, and goes at the moves' priority."""
        if (owed := self._under_way.get(channel_id)) is not None:
            owed.hurry()
            self._catching_up.hurry(channel_id)
        self.outbox(channel_id).kick()

    async def resume(self) -> int:
        """At start-up: wake every channel with pending deliveries (due now); returns how many there are."""
        pending = await self.host.outbox.resume_deliveries()
        for channel_id in dict.fromkeys(d.channel_id for d in pending):
            self.outbox(channel_id).kick()  # owed themselves: they hurry none that waits for its turn
        if pending:
            log.info("resuming %d deliveries left from before the start", len(pending))
        return len(pending)

    async def release_held(self) -> list[int]:
        """Wake the channels whose held DMs are due (quiet hours over, or re-timed by a change of settings): the
        sweep calls it; returns those channels."""
        channels = await self.host.outbox.held_channels_due()
        for channel_id in channels:
            self.wake(channel_id)
        return channels

    async def sweep(self) -> int:
        """Wake every channel with deliveries due (a safety net; with a shared database also those of a
        process that died holding their outbox); returns how many channels."""
        now = self.host.outbox.now()
        due = {d.channel_id for d in await self.host.outbox.pending_deliveries() if d.due_at <= now}
        for channel_id in due:
            box = self.outboxes.get(channel_id)
            if box is None or box.task is None or box.task.done():
                self.wake(channel_id)
        return len(due)

    @contextlib.contextmanager
    def waiting_for_storage(self, box: ChannelOutbox) -> Iterator[None]:
        """While ``box`` waits out its backoff after the database failed it, it is woken as soon as the database
        answers again (:meth:`_watch_storage`)."""
        self._after_storage_failure.add(box)
        if self.closing is None and (self._storage_watch is None or self._storage_watch.done()):
            self._storage_watch = asyncio.create_task(self._watch_storage(), name="santacruz-storage-watch")
        try:
            yield
        finally:
            self._after_storage_failure.discard(box)

    async def _watch_storage(self) -> None:
        """While outboxes wait out a backoff after the database failed them, look at the database every
        :attr:`storage_probe` seconds, as the readiness check does (``/readyz``); once it answers, wake them: after an
        outage the posts go out at once, not after a backoff that doubled up to five minutes while it lasted."""
        while self._after_storage_failure:
            await asyncio.sleep(self.storage_probe)
            try:
                answers = await self.host.readiness() is None
            except Exception:  # the watch never dies (the backoffs would end by themselves anyway)
                answers = False
            if answers and self._after_storage_failure:
                log.info("the database answers again: %d outboxes try again now", len(self._after_storage_failure))
                for box in list(self._after_storage_failure):
                    box.storage_answered()
                return

    def pending(self) -> list[asyncio.Task[None]]:
        """The outbox tasks still sending, and the cosmetic edits beside them."""
        return [box.task for box in self.outboxes.values() if box.task is not None and not box.task.done()
                ] + list(self.deliveries.tidying)

    def moved(self, result: MoveResult, *, clicked: int | None = None, owed: bool = False) -> None:
        """A move was stored: deliver its post and DMs (``clicked``: the DM whose controls were used, left as it
        is). ``owed``: a computer's move owed from before the start (it was to move when this process started): its
        post and DMs take their turns with the deliveries left from before and give way to the moves being played now,
        as those do (a start may find hundreds of games waiting for a computer)."""
        if clicked is not None:
            self.deliveries.clicked[(result.game_id, result.seq)] = clicked
        if owed:
            self._owed_moves.add((result.game_id, result.seq))
            self.outbox(result.channel_id).kick()  # no hurry: it is owed itself
        else:
            self.wake(result.channel_id)

    def started(self, start: StartResult) -> None:
        self.wake(start.info.channel_id)

    def seat_changed(self, change: SeatChange) -> None:
        self.wake(change.info.channel_id)

    def abandoned(self, info: TableInfo) -> None:
        self.wake(info.channel_id)

    def lobby_changed(self, info: TableInfo) -> None:
        """A lobby opened or changed: its message's post or redraw is owed (the host stored it with the change)."""
        self.wake(info.channel_id)

    def forget_channel(self, channel_id: int) -> None:
        """The channel is gone and its posts were given up: the outbox edits the players' DMs still showing a turn of
        its game and redraws a thread's lobby message in its parent channel (the host owes those), then finds nothing
        pending and ends."""
        self.wake(channel_id)

    @contextlib.asynccontextmanager
    async def turn(self, delivery: Delivery, later: list[Delivery]) -> AsyncIterator[bool]:
        """Until ``delivery`` is sent: a delivery owed from before the start (:meth:`_owed`) waits for one of
        :data:`CATCH_UP_AT_ONCE` turns (its game read, its pictures drawn and its requests sent within it), and its
        pictures and requests give way to those of the moves being played (:func:`bot.host.priority.catching_up`),
        until a delivery written since waits behind it in its channel (``later``, or one :meth:`wake` hurried it
        for: a move being played, whose post it holds up): from then on it goes at the moves' priority, at once if it
        still waited for its turn. Others go at once. Gives whether it waited."""
        if not self._owed(delivery):
            yield False
            return
        channel_id = delivery.channel_id
        owed = self._under_way[channel_id] = Owed(hurried=not all(map(self._owed, later)))
        try:
            async with self._catching_up.turn(channel_id, hurry=owed.is_hurried) as waited:
                with catching_up(owed):
                    yield waited
        finally:
            if self._under_way.get(channel_id) is owed:
                del self._under_way[channel_id]

    def _owed(self, delivery: Delivery) -> bool:
        """Whether ``delivery`` is owed from before the start: left from before it, or of a computer's move the start
        found owed."""
        return (self.host.outbox.left_from_before(delivery)
                or (delivery.game_id, delivery.seq) in self._owed_moves)

    async def deliver(self, delivery: Delivery, later: list[Delivery]) -> bool:
        """Send one delivery (:meth:`Deliveries.deliver`); whether the channel's next one may follow now. A channel
        found gone has its games ended (:attr:`on_channel_gone`)."""
        outcome = await self.deliveries.deliver(delivery, later, self.backoff)
        if outcome.gone is not None and self.on_channel_gone is not None:
            await self.on_channel_gone(delivery.channel_id, outcome.gone)
        return outcome.go_on
