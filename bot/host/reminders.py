"""Turn reminders (a part of the host): a DM to the person to move once their turn has waited long enough.

A reminder is a timer like the others (:data:`REMINDER`, ``turn_reminder``, see ``bot.host.timers``). Every change
that starts a turn (a start, a move, a seat change, a vacation's start or end) cancels the game's reminder timer and
sets the next one (:meth:`Reminders.timers`): the game's ``REMINDER_HOURS`` or the person's own delay after the turn
began, at most once a day, never for a computer, a person who turned reminders off or a game a vacation pauses. Its
payload names the position (``seq``) it belongs to. (``games.next_reminder_at`` is still written, for tools, but
nothing reads it.)

When the timer is due, whichever process claims it first (:meth:`Reminders.run`, or the sweep of every timer) fires
it, under the channel's lock and as the game is now:

* the turn moved on, the game is over or paused, the seat is a computer's, the person turned reminders off, or the
  turn's deadline has run out already (the computer is about to make that move): the timer is only marked done;
* the person is in their quiet hours, or their own delay is not over: the timer moves to its end;
* else, in one transaction: a ``turn_dm`` delivery marked ``reminder`` (the outbox sends it as the reminder DM,
  with the move controls), the seat's ``reminded_at``, the next reminder a day (or the game's delay, if longer)
  later, and the timer done. A database that refuses the write leaves the timer to be claimed again: the reminder
  is never sent without being recorded, so it goes once per turn and day, however many processes sweep.

:meth:`Reminders.due` and :meth:`Reminders.mark` (``host.reminders.due`` / ``host.reminders.mark``) read and fire the
same timers for tools and tests that drive reminders one by one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Final

from bot.host import deadlines
from bot.host.change import Change
from bot.host.deliveries import TURN_DM
from bot.host.errors import HostError, storage_refusal
from bot.host.games import Games
from bot.host.model import NewDelivery, NewTimer, TimerRow
from bot.host.people import People
from bot.host.table import DAY, HOUR, Reminder, Seat, Table, TableInfo
from bot.host.timers import REMINDER as REMINDER
from bot.host.timers import Schedule
from bot.host.user_settings import quiet_until
from engine import Game

log = logging.getLogger(__name__)

KINDS: Final = (REMINDER,)
"""The kinds a change that starts a turn cancels before it sets the next reminder."""
SEND: Final = "send"
DROP: Final = "drop"


class Reminders:
    """When each turn's person is reminded (the timer set with each turn) and what firing that timer writes."""

    def __init__(self, games: Games, schedule: Schedule, people: People, *, clock: Callable[[], float]) -> None:
        self.games = games
        self.schedule = schedule
        self.people = people
        self._clock = clock
        schedule.on(REMINDER, self._on_reminder)

    # ------------------------------------------------------------------ setting the timer

    def next_at(self, table: Table, game: Game, now: float,
                seats: list[Seat] | None = None) -> float | None:
        """When the seat to move should be reminded: a delay after its turn began, at most once a day.
        ``seats``: the seats as they will be (default: the table's)."""
        seats = table.seats if seats is None else seats
        seat = game.to_move
        if seat is None or game.is_over() or seats[seat].computer_plays or deadlines.paused(seats):
            return None
        own = self.people.settings_of(seats[seat].user_id)
        if not own.reminders:
            return None
        at = now + (own.reminder_hours or table.options.reminder_hours) * HOUR
        last = seats[seat].reminded_at
        return at if last is None else max(at, last + DAY)

    def timers(self, table: Table, game: Game | None, seq: int, now: float,
               seats: Sequence[Seat] | None = None) -> tuple[float | None, list[NewTimer]]:
        """``(when, timers)``: the reminder of the turn at position ``seq`` that starts (or is retimed) at ``now``
        and the timer to set with the change (none when nobody is to be reminded); cancel :data:`KINDS` with it."""
        if game is None:
            return None, []
        seats = list(table.seats if seats is None else seats)
        at = self.next_at(table, game, now, seats)
        if at is None:
            return None, []
        seat = game.to_move
        assert seat is not None
        return at, [NewTimer(REMINDER, at, seat, seats[seat].user_id, {"seq": seq})]

    # ------------------------------------------------------------------ firing it

    def _current(self, timer: TimerRow) -> Table | None:
        """The timer's table if the turn it was set for is still on, a person's to make, else ``None``."""
        table = self.games.live(timer.channel_id, timer.game_id)
        if (table is None or table.seq != timer.payload.get("seq") or timer.seat is None
                or table.playing.to_move != timer.seat):
            return None
        seat = table.seats[timer.seat]
        if seat.computer_plays or seat.user_id is None or seat.user_id != timer.user_id:
            return None
        return table

    async def _verdict(self, timer: TimerRow, now: float) -> tuple[Table | None, str | float]:
        """What a due reminder timer does now: :data:`SEND`, :data:`DROP` (the turn or the person's wish moved
        on), or the time it moves to (quiet hours, or the person's own delay not over)."""
        table = self._current(timer)
        if table is None or deadlines.paused(table.seats):
            return table, DROP
        place = table.seats[timer.seat] if timer.seat is not None else None
        assert place is not None and place.user_id is not None
        own = self.people.settings_of(place.user_id)
        if not own.reminders:
            return table, DROP
        quiet = quiet_until(own, now)
        if quiet is not None:
            return table, quiet
        since = table.last_move_at if table.last_move_at is not None else table.created_at
        if own.reminder_hours is not None and place.reminded_at is None and now < since + own.reminder_hours * HOUR:
            return table, since + own.reminder_hours * HOUR  # their own delay, changed during the turn, counts
        assert timer.seat is not None
        if await deadlines.runs_out(self.games, table, timer.seat, now):
            return table, DROP  # the computer makes this move in the same sweep: no reminder for a turn already lost
        return table, SEND

    async def _fire(self, timer: TimerRow, now: float) -> TableInfo | None:
        """Fire a claimed reminder timer under the channel's lock (see the module's docstring); the game's info when
        a reminder DM was written (the outbox of its channel is then to be woken)."""
        async with self.games.change(timer.channel_id):
            table, verdict = await self._verdict(timer, now)
            if table is None or verdict == DROP:
                await self.games.finish_timer(timer.game_id, timer.id, now)
                return None
            if not isinstance(verdict, str):
                await self.games.write(table, Change(
                    cancel_timers=KINDS, timers=[replace(_new(timer), due_at=verdict)], timer=timer.id), now=now)
                return None
            assert timer.seat is not None and timer.user_id is not None
            seats = list(table.seats)
            seats[timer.seat] = replace(seats[timer.seat], reminded_at=now)
            next_at = now + max(DAY, table.options.reminder_hours * HOUR)
            dm = NewDelivery(TURN_DM, table.seq, timer.user_id,
                             {"start": False, "hand_changed": False, "reminder": True})
            await self.games.write(table, Change(
                {"next_reminder_at": next_at}, deliveries=[dm], cancel_timers=KINDS,
                timers=[replace(_new(timer), due_at=next_at)], timer=timer.id),
                now=min(now, self._clock()), seats=seats)  # the DM is due when written (a sweep "as of later": now)
            log.info("game %d: seat %d is reminded of its turn", table.id, timer.seat)
            return table.info()

    async def _on_reminder(self, timer: TimerRow, now: float) -> TableInfo | None:
        return await self._fire(timer, now)

    async def run(self, now: float | None = None) -> list[object]:
        """Claim and fire the due reminder timers only (the sweep of every timer fires them too); the infos of the
        games whose reminder DM was written."""
        return await self.schedule.run_due(now, kinds=KINDS)

    # ------------------------------------------------------------------ one by one (tools and tests)

    async def due(self, now: float | None = None) -> list[Reminder]:
        """The turn reminders that would be sent now (one per game at most), read from the games' pending
        reminder timers without claiming them; send one with :meth:`mark`."""
        now = self._clock() if now is None else now
        due = []
        seen: set[int] = set()
        with storage_refusal():
            timers = await self.games.store.due_timers(now, KINDS)
        for timer in timers:
            if timer.game_id in seen:
                continue
            seen.add(timer.game_id)
            await self.games.refresh.channel(timer.channel_id)  # loaded, if this process does not hold it
            current, verdict = await self._verdict(timer, now)
            if current is None or verdict != SEND:
                continue
            assert timer.seat is not None and timer.user_id is not None
            place = current.seats[timer.seat]
            since = current.last_move_at if current.last_move_at is not None else current.created_at
            due.append(Reminder(
                game_id=current.id, channel_id=current.channel_id, guild_id=current.guild_id,
                locale=current.options.locale, seq=current.seq, seat=timer.seat, user_id=timer.user_id,
                name=place.name, waiting_since=since))
        return due

    async def mark(self, reminder: Reminder, now: float | None = None) -> bool:
        """Fire the reminder timer of ``reminder``'s turn now: its DM is written to the outbox and the next one
        set, as the sweep does. Returns whether this call wrote it (not: the game moved on, another process fired
        it first, or storage failed)."""
        now = self._clock() if now is None else now
        pending = await self.games.pending_timers(reminder.game_id, "reminder")
        timer = next((t for t in pending or () if t.kind == REMINDER and t.payload.get("seq") == reminder.seq
                      and t.due_at <= now), None)
        if timer is None:
            return False
        try:
            return await self._fire(timer, now) is not None
        except HostError as exc:
            log.warning("game %d: the reminder could not be stored (%s); it is tried again later",
                        reminder.game_id, exc.key)
            return False

    # ------------------------------------------------------------------ games from before the reminder timers

    async def arm_missing(self, tables: Sequence[Table] | None = None) -> int:
        """At start-up: give every running game of ``tables`` (default: those in memory) whose person to move has no
        reminder timer one (games stored before reminders were timers), when ``games.next_reminder_at`` said, else
        counted from the last move; how many were armed. A database failure is logged: that game gets it at the next
        start or move."""
        def reminder(table: Table, pending: set[str]) -> Change | None:
            if table.status != "running" or table.game is None or REMINDER in pending:
                return None
            since = table.last_move_at if table.last_move_at is not None else table.created_at
            at, timers = self.timers(table, table.game, table.seq, since)
            if at is None:
                return None
            if table.next_reminder_at is not None:
                timers = [replace(timers[0], due_at=table.next_reminder_at)]
            return Change(cancel_timers=KINDS, timers=timers)

        return await self.games.arm_missing("reminder", reminder, tables)


def _new(timer: TimerRow) -> NewTimer:
    """A pending timer as a new one (to set it again at another time)."""
    return NewTimer(timer.kind, timer.due_at, timer.seat, timer.user_id, dict(timer.payload))
