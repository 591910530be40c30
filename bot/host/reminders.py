"""Turn reminders (a part of the host): a DM to the person to move once their turn has waited long enough.

When a turn starts (a start, a move, a seat change, a vacation's end), the change stores when its person is to be
reminded (``games.next_reminder_at``, :meth:`Reminders.next_at`): the game's ``REMINDER_HOURS`` or the person's own
delay after the turn began, at most once a day, never for a computer or a person who turned reminders off. The
sweep asks for the due ones (:meth:`Reminders.due`: not in the person's quiet hours, not while a vacation pauses the
game, not for a turn whose deadline has already run out) and records each right after sending it
(:meth:`Reminders.mark`); with a shared database the process that records it first sends it. A mark the database
refused is held in memory, so the same turn is not reminded twice before the next one is due.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace

from bot.host import deadlines
from bot.host.change import Change
from bot.host.errors import HostError, StorageFailed
from bot.host.games import Games
from bot.host.people import People
from bot.host.table import DAY, HOUR, Reminder, Seat, Table
from bot.host.user_settings import quiet_until
from engine import Game

log = logging.getLogger(__name__)


class Reminders:
    """When each turn's person is reminded, which reminders are due, and recording that one was sent."""

    def __init__(self, games: Games, people: People, *, clock: Callable[[], float], shared: bool) -> None:
        self.games = games
        self.people = people
        self._clock = clock
        self.shared = shared
        self._reminder_holds: dict[int, tuple[int, float]] = {}
        """Game id -> (seq, until): a reminder was sent but its mark could not be stored; none again
        for that turn before ``until``."""

    def next_at(self, table: Table, game: Game, now: float,
                       seats: list[Seat] | None = None) -> float | None:
        """When the seat to move should be reminded: a delay after its turn began, at most once a day.
        ``seats``: the seats as they will be (default: the table's)."""
        seats = table.seats if seats is None else seats
        seat = game.to_move
        if seat is None or seats[seat].computer_plays:
            return None
        own = self.people.settings_of(seats[seat].user_id)
        if not own.reminders:
            return None
        at = now + (own.reminder_hours or table.options.reminder_hours) * HOUR
        last = seats[seat].reminded_at
        return at if last is None else max(at, last + DAY)

    async def due(self, now: float | None = None) -> list[Reminder]:
        """Turn reminders to send now (one per game at most). Mark each with :meth:`mark` as soon
        as it is sent, or could not be sent (DMs closed): an unmarked reminder is returned again."""
        now = self._clock() if now is None else now
        try:
            rows = await self.games.store.reminders_due(now)
        except StorageFailed as exc:
            log.warning("cannot read the due reminders: %s", exc)
            return []
        due = []
        for row in rows:
            table = self.games.tables.get(row.channel_id)
            if (table is None or table.id != row.id or table.game is None or self._held(table, now)
                    or deadlines.paused(table.seats)):
                continue
            seat = table.game.to_move
            if seat is None or table.seats[seat].computer_plays:
                continue
            place = table.seats[seat]
            assert place.user_id is not None
            since = table.last_move_at if table.last_move_at is not None else table.created_at
            if not self._may_remind(place.user_id, since, place.reminded_at, now):
                continue
            if await deadlines.runs_out(self.games.store, table, seat, now):
                continue  # the computer makes this move in the same sweep: no reminder for a turn already lost
            due.append(Reminder(
                game_id=table.id, channel_id=table.channel_id, guild_id=table.guild_id,
                locale=table.options.locale, seq=table.seq, seat=seat, user_id=place.user_id, name=place.name,
                waiting_since=table.last_move_at if table.last_move_at is not None else table.created_at))
        return due

    def _may_remind(self, user_id: int, since: float, reminded_at: float | None, now: float) -> bool:
        """Whether the person's own settings let a reminder go now: reminders on, their own delay passed (a delay
        changed during the turn counts), and not in their quiet hours (a reminder due then waits for their end)."""
        own = self.people.settings_of(user_id)
        if not own.reminders or quiet_until(own, now) is not None:
            return False
        return own.reminder_hours is None or reminded_at is not None or now >= since + own.reminder_hours * HOUR

    async def mark(self, reminder: Reminder, now: float | None = None) -> bool:
        """Record that ``reminder`` was sent: the next one for this turn comes a day (or the game's delay,
        if longer) later. Does nothing if the game has moved on since.

        If the database refuses the mark, the host still sends no second reminder for this turn before
        the next one is due (it remembers that in memory) and the mark is retried with it. Returns whether
        this call recorded it (not: the game moved on, another process recorded it first, or storage failed),
        which with a shared database decides who sends it."""
        async with self.games.change(reminder.channel_id):
            table = self.games.tables.get(reminder.channel_id)
            now = self._clock() if now is None else now
            if (table is None or table.id != reminder.game_id or table.seq != reminder.seq
                    or table.status != "running"):
                return False
            if self.shared and (table.next_reminder_at is None or table.next_reminder_at > now):
                return False  # another process recorded (and sent) this reminder first
            seats = list(table.seats)
            seats[reminder.seat] = replace(seats[reminder.seat], reminded_at=now)
            next_at = now + max(DAY, table.options.reminder_hours * HOUR)
            try:
                await self.games.write(table, Change({"next_reminder_at": next_at}), now=now, seats=seats)
            except HostError as exc:
                if exc.key != "host.error.storage":
                    return False  # another process changed the game meanwhile (and reminded, if it was still due)
                log.warning("game %d: could not store that a reminder was sent; holding the next one", table.id)
                self._reminder_holds[table.id] = (table.seq, next_at)
                return False
            self._reminder_holds.pop(table.id, None)
            return True

    def _held(self, table: Table, now: float) -> bool:
        """Whether a reminder for this turn was sent but not recorded, and the next is not due yet."""
        hold = self._reminder_holds.get(table.id)
        if hold is None:
            return False
        seq, until = hold
        if seq != table.seq or now >= until:
            del self._reminder_holds[table.id]
            return False
        return True
