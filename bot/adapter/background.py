"""What runs beside the interactions: computer players, turn reminders, start-up, shutdown.

After the host stored a move (and the posts and DMs it owes), :meth:`Background.after_move` (and its siblings for a
start and a seat change) wakes the channel's outbox and, if a computer or an away player is to move, that channel's
computer task. Computer moves come from :meth:`bot.host.computers.Computers.run_computers`, whose players think in a
worker pool, one task per channel; each move is published like a person's. A computer task never dies of a failure:
a move that could not be stored (e.g. another process held the database's lock) is tried again after a wait that
doubles up to ``SWEEP_SECONDS``.

A periodic sweep (every ``SWEEP_SECONDS``) looks for due work: turn reminders (``turn_reminder`` timers: the
host claims each once and writes its DM to the outbox, which sends it; one failing reminder does not stop the
others), due timers (rows of the database: :meth:`bot.host.timers.Schedule.run_due`; each outcome carries its ``wake``
value, which channel to deliver and whether its computers move, and :meth:`Background.wake` acts on it without
looking at the answer's type), DMs held for the end of a player's quiet hours that are due now
(:meth:`~bot.adapter.publish.Publisher.release_held`) and running games whose seat to move is a computer's but
that have no live computer task. Reminders follow each person's own settings (off, their own delay, none in
their quiet hours).
At start-up the outboxes resume: every post and DM a stored change still owes is delivered, in order,
however long the bot was down (``bot.adapter.publish``); games whose turn is a computer's carry on, a few at a time
(:data:`OWED_COMPUTERS_AT_ONCE`).
At shutdown, pending messages get a few seconds to go out; what is left goes out at the next start.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Final

import discord
from discord.ext import tasks

from bot.adapter.dms import DirectMessages
from bot.adapter.publish import Publisher
from bot.host.errors import HostError, damage_notice
from bot.host.host import Host
from bot.host.model import DamagedGame
from bot.host.table import Answer, MoveResult, SeatChange, StartResult, TableInfo, Wake
from bot.host.vacation import VacationChange

log = logging.getLogger(__name__)

SHUTDOWN_GRACE: Final = 5.0
"""Seconds the queued channel posts and DMs get to go out when the bot closes."""
SWEEP_INTERVAL: Final = 60.0
"""Seconds between two sweeps for due work (turn reminders, computers without a task), by default."""
RETRY_DELAY: Final = 1.0
"""Seconds before a failed computer move is tried again (doubling after each failure), by default."""
OWED_COMPUTERS_AT_ONCE: Final = 2
"""Games whose computers a start found to move that play at once: each reads its game, thinks, writes its move and
owes its post through the same database and workers as the moves being played now (a start found 229 in the
benchmark, and reading and writing them all at once held the people's own moves up for seconds); the others wait
their turn."""
REMINDER_WAIT: Final = 10.0
"""Seconds the sweep waits for the reminder DMs it wrote to go out (what is left goes out meanwhile)."""


class Background:
    """The computer tasks, the reminder loop, and the start-up and shutdown work of the bot's games."""

    def __init__(self, client: discord.Client, host: Host, publisher: Publisher, dms: DirectMessages, *,
                 retry_seconds: float = RETRY_DELAY, sweep_seconds: float = SWEEP_INTERVAL) -> None:
        """``retry_seconds``: the first wait before a failed computer move is tried again (doubling up to
        ``sweep_seconds``); ``sweep_seconds``: the time between two sweeps for due work."""
        self.client = client
        self.host = host
        self.publisher = publisher
        self.dms = dms
        self.retry_seconds = retry_seconds
        self.sweep_seconds = sweep_seconds
        self.computers: dict[int, asyncio.Task[None]] = {}
        self._computers_again: set[int] = set()
        self._owed_turns = asyncio.Semaphore(OWED_COMPUTERS_AT_ONCE)
        """Held by the computers that a start found to move while they play (:data:`OWED_COMPUTERS_AT_ONCE`)."""
        self._resuming: asyncio.Task[int] | None = None
        self._listening: asyncio.Task[None] | None = None
        self._soon: asyncio.Task[None] | None = None
        self._telling: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ after the host answered

    def after_move(self, result: MoveResult, *, clicked: int | None = None, owed: bool = False) -> None:
        """Queue the channel post and DMs of a stored move; let the computers play if it is their turn. ``owed``: a
        computer's move that was owed from before this process started (:meth:`bot.adapter.publish.Publisher.moved`).

        Synchronous on purpose: called right after the host answers, so posts keep the moves' order.
        """
        self.publisher.moved(result, clicked=clicked, owed=owed)
        if result.computer_to_move:
            self.start_computers(result.channel_id)

    def after_start(self, start: StartResult) -> None:
        self.publisher.started(start)
        if start.computer_to_move:
            self.start_computers(start.info.channel_id)

    def after_seat_change(self, change: SeatChange) -> None:
        self.publisher.seat_changed(change)
        if change.computer_to_move:
            self.start_computers(change.info.channel_id)

    # ------------------------------------------------------------------ computer players

    def start_computers(self, channel_id: int, *, owed: bool = False) -> None:
        """Let the channel's computers (and away players) move; a running task goes round once more. Not once the
        bot is shutting down (the next start lets them move). ``owed``: they were to move when this process started,
        so their moves until a person is to move are owed from before it (their posts and DMs give way to the moves
        being played now, as the deliveries left from before do)."""
        if self.publisher.closing is not None:
            return
        task = self.computers.get(channel_id)
        if task is not None and not task.done():
            self._computers_again.add(channel_id)
            return
        self.computers[channel_id] = asyncio.create_task(self._run_computers(channel_id, owed=owed),
                                                         name=f"santacruz-computers-{channel_id}")

    async def _run_computers(self, channel_id: int, *, owed: bool = False) -> None:
        """Post each computer move as it comes (the host chooses them off the event loop). A failure is
        logged and the move tried again after a growing wait, until no computer is to move. ``owed``: the moves of
        the first round are owed from before the start (a round more was asked by a move made since)."""
        delay = self.retry_seconds
        while True:
            try:
                self._computers_again.discard(channel_id)
                async with self._owed_turns if owed else contextlib.nullcontext():
                    async for result in self.host.computers.run_computers(channel_id):
                        self.after_move(result, owed=owed and channel_id not in self._computers_again)
                        delay = self.retry_seconds
                if channel_id not in self._computers_again:
                    return
                owed = False
            except Exception as exc:
                info = self.host.games.info(channel_id)
                log.warning("game %s: a computer move failed (%s: %s); trying again in %.1f s",
                            info.game_id if info is not None else "?", type(exc).__name__, exc, delay)
                await asyncio.sleep(delay)
                delay = min(2 * delay, max(self.sweep_seconds, self.retry_seconds))

    def stop_computers(self, channel_id: int) -> None:
        """The channel's game ended from outside (its channel is gone): stop its computer task, if any."""
        self._computers_again.discard(channel_id)
        task = self.computers.pop(channel_id, None)
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()

    async def sweep_computers(self, *, starting: bool = False) -> list[int]:
        """Start a computer task in every channel whose running game waits for a computer but has none (the
        database says which, whichever process holds the game); returns those channels (each logged: a warning if a
        task had stopped, which should not happen; at debug level at start-up, and if another process was playing
        them at the last try, as with a shared database it does)."""
        started = []
        for channel_id in await self.host.computers.computer_channels():
            task = self.computers.get(channel_id)
            if task is None or task.done():
                info = self.host.games.info(channel_id)
                # another process thinking for it is the rule with a shared database; otherwise a task had stopped
                expected = starting or self.host.computers.played_elsewhere(channel_id) or (
                    self.host.shared and info is None)  # held by another process, maybe
                log.log(logging.DEBUG if expected else logging.WARNING,
                        "game %s: a computer is to move but no task was playing; starting one",
                        info.game_id if info is not None else "?")
                self.start_computers(channel_id, owed=starting)
                started.append(channel_id)
        return started

    # ------------------------------------------------------------------ the sweep: reminders and computers

    @tasks.loop(seconds=SWEEP_INTERVAL)
    async def sweep_loop(self) -> None:
        """Due work, every ``sweep_seconds``: with a shared database first the games other processes changed;
        then computers without a task, posts left undelivered, turn reminders, DMs held for the end of quiet hours
        and timers; the channels of games found damaged are told, and the games nobody touched for a while leave
        memory."""
        try:
            await self.host.refresh_all()
        except Exception as exc:
            log.warning("reading the games other processes changed failed (%s: %s)", type(exc).__name__, exc)
        try:
            await self.publisher.sweep()
        except Exception as exc:
            log.warning("looking for undelivered posts failed (%s: %s)", type(exc).__name__, exc)
        try:
            await self.sweep_computers()
        except Exception as exc:
            log.warning("looking for computers to move failed (%s: %s)", type(exc).__name__, exc)
        try:
            await self.send_reminders()
        except Exception as exc:
            log.warning("looking for due turn reminders failed (%s: %s); trying again at the next sweep",
                        type(exc).__name__, exc)
        try:
            await self.publisher.release_held()
        except Exception as exc:
            log.warning("looking for DMs held for the end of quiet hours failed (%s: %s); trying again at the next "
                        "sweep", type(exc).__name__, exc)
        try:
            await self.run_timers()
        except Exception as exc:
            log.warning("looking for due timers failed (%s: %s); trying again at the next sweep",
                        type(exc).__name__, exc)
        await self.tell_damaged()
        self.host.games.memory.let_go()

    async def run_timers(self, now: float | None = None) -> list[object]:
        """Run the due timers (the host claims each once, whichever process sweeps first) and act on what
        they changed: posts and DMs, and the computers when one is to move; returns the outcomes."""
        outcomes = await self.host.timers.run_due(now)
        for outcome in outcomes:
            self.after(outcome)
        return outcomes

    def after(self, outcome: object) -> None:
        """Act on any answer of the host that changed a game: what its wake value says."""
        if isinstance(outcome, Answer):
            self.wake(outcome.wake)

    def wake(self, wake: Wake) -> None:
        """Deliver what the host stored for the channel; let its computers move when one is to."""
        self.publisher.wake(wake.channel_id)
        if wake.computers:
            self.start_computers(wake.channel_id)

    def after_vacation(self, change: VacationChange) -> None:
        """A vacation began, was decided or ended in a game: its post goes out; the computer moves if it is its turn."""
        self.wake(change.wake)

    @sweep_loop.before_loop
    async def _before_sweep(self) -> None:
        await self.client.wait_until_ready()

    async def send_reminders(self, now: float | None = None) -> int:
        """Fire the due turn reminders (``turn_reminder`` timers, each claimed by one process) and send their DMs;
        returns how many were written. The host writes each reminder DM to the outbox with the timer done; the
        outbox sends it in the player's own language when the bot knows it (after a restart too), else in the
        game's. Waits until the woken channels have sent what they owe."""
        written = await self.host.reminders.run(now)
        for outcome in written:
            self.after(outcome)
        boxes = [self.publisher.outbox(info.channel_id) for info in written if isinstance(info, TableInfo)]
        sending = [box.task for box in boxes if box.task is not None and not box.task.done()]
        if sending:
            await asyncio.wait(sending, timeout=REMINDER_WAIT)
        return len(written)

    # ------------------------------------------------------------------ start-up and shutdown

    def start(self, loaded_games: list[TableInfo]) -> None:
        """Start the sweep; resume the deliveries left from before; let waiting computers move."""
        self.sweep_loop.change_interval(seconds=self.sweep_seconds)
        self.sweep_loop.start()
        for info in loaded_games:
            self.publisher.wake(info.channel_id)  # at once, so nothing queued after it can overtake it
        self._resuming = asyncio.create_task(self._resume(), name="santacruz-resume-deliveries")
        self._listening = asyncio.create_task(self._listen(), name="santacruz-listen-released")

    async def _listen(self) -> None:
        """With a shared database: sweep at once whenever another process gives its work up (it stops), so that its
        posts, computers and timers go on here within moments rather than when its leases run out."""
        try:
            await self.host.leases.listen(self.sweep_soon)
        except Exception as exc:
            log.warning("cannot hear other processes stop (%s); their work is taken over when its leases run out",
                        exc)

    def sweep_soon(self) -> None:
        """Run the sweep now, beside its schedule (once at a time; not while stopping)."""
        if not self.sweep_loop.is_running() or (self._soon is not None and not self._soon.done()):
            return
        self._soon = asyncio.get_running_loop().create_task(self.sweep_loop.coro(self), name="santacruz-sweep-now")

    async def _tell_damaged(self, damaged: DamagedGame) -> None:
        """Tell a quarantined game's channel, once, that the game cannot continue and why."""
        channel = self.client.get_partial_messageable(damaged.channel_id)
        try:
            await channel.send(damage_notice(damaged, damaged.locale))
        except discord.HTTPException as exc:
            log.warning("game %d: cannot tell the channel that the game is damaged (%s)", damaged.game_id, exc.status)
            return
        try:
            await self.host.restore.mark_damage_told(damaged.game_id)
        except HostError:
            log.warning("game %d: the channel was told it is damaged, but that could not be stored", damaged.game_id)

    async def _resume(self) -> int:
        """Let the computers move whose turn it is, tell the channels of games found damaged (once), then wake every
        channel that still owes a post or DM (also of games over since); how many are owed."""
        try:
            await self.sweep_computers(starting=True)
        except Exception as exc:
            log.warning("looking for computers to move failed (%s: %s); the sweep looks again", type(exc).__name__, exc)
        await self.tell_damaged()
        try:
            return await self.publisher.resume()
        except Exception:
            log.exception("could not read the deliveries left from before the start")
            return 0

    def tell_damaged_soon(self) -> None:
        """:meth:`tell_damaged` beside what runs now (once at a time)."""
        if self._telling is None or self._telling.done():
            self._telling = asyncio.create_task(self.tell_damaged(), name="santacruz-tell-damaged")

    async def tell_damaged(self) -> None:
        """Tell the channel of each game found damaged (at start-up, or when something touched it) that the game
        cannot continue, once."""
        for damaged in self.host.restore.damaged_untold():
            await self._tell_damaged(damaged)

    def stop(self) -> None:
        """Stop the sweep (reminders and the computers' safety net)."""
        self.sweep_loop.cancel()

    async def shutdown(self, grace: float = SHUTDOWN_GRACE) -> None:
        """Stop the computer players, give queued messages ``grace`` seconds, then cancel what is left."""
        ends = asyncio.get_running_loop().time() + grace  # one grace for the whole shutdown
        self.sweep_loop.cancel()
        self.publisher.close(ends)
        tasks_: list[asyncio.Task[Any]] = [task for task in self.computers.values() if not task.done()]
        for task in (self._resuming, self._listening, self._soon, self._telling):
            if task is not None and not task.done():
                tasks_.append(task)
        for task in tasks_:
            task.cancel()
        if tasks_:
            await asyncio.wait(tasks_, timeout=grace)
        try:  # the computers and timers to the other processes now; the posts owed once they went out
            await self.host.leases.release_all(keep="outbox:")
        except HostError:
            log.warning("stopping: the computers' leases could not be given up; they run out by themselves")
        pending = self.publisher.pending()
        if pending:
            _, still = await asyncio.wait(pending, timeout=max(0.5, ends - asyncio.get_running_loop().time()))
            for task in still:
                task.cancel()
            tasks_ += list(still)
        if tasks_:
            await asyncio.wait(tasks_, timeout=grace)
