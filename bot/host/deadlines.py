"""Turn deadlines of a game (chosen at ``/santacruz new``): a warning by DM at 75 % of the deadline, then the
computer makes that one move for the player, and after the third time the seat goes to the computer.

When a person's turn starts, two timers (rows of the database, :class:`bot.host.model.NewTimer`) are written with
the change that started it: :data:`WARNING` and :data:`RAN_OUT`. Every change that starts another turn cancels
them (``cancel_timers=KINDS``) and sets the next turn's; a finished game keeps none (the store cancels them). Their
payload names the position (``seq``) they belong to, so a timer that lost a race with a move does nothing.
Deadlines do not run while a vacation pause holds the game, nor for a seat the computer plays.

:class:`Deadlines` is a part of the host (``host.deadlines``): it registers the two timer handlers with the schedule;
the computer's move for a seat that ran out of time is chosen by ``bot.host.computers`` and stored by
``bot.host.play`` (both handed in, so this module imports neither).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, Protocol

from bot.host.change import Change
from bot.host.deliveries import NOTICE_DM, NOTICE_POST
from bot.host.games import Games
from bot.host.model import NewDelivery, NewTimer, TimerRow
from bot.host.table import DEADLINE_HOURS as DEADLINE_HOURS
from bot.host.table import HOUR, MoveResult, Options, Seat, Table, TableInfo
from bot.host.table import paused as paused
from bot.host.timers import RAN_OUT as RAN_OUT
from bot.host.timers import WARNING as WARNING
from bot.host.timers import Schedule
from engine import Event, Game, parse_move

log = logging.getLogger(__name__)

KINDS: Final = (WARNING, RAN_OUT)
WARNING_SHARE: Final = 0.75
MAX_TIMEOUTS: Final = 3
"""After this many run-out turns in one game the seat goes to the computer (as a hand-over does)."""


def runs_for(seats: Sequence[Seat], game: Game | None) -> int | None:
    """The seat whose deadline runs now: a person to move who plays themselves in a game not paused."""
    seat = game.to_move if game is not None and not game.is_over() else None
    if seat is None or seats[seat].computer_plays or paused(seats):
        return None
    return seat


def turn_timers(options: Options, seats: Sequence[Seat], game: Game | None, seq: int, now: float) -> list[NewTimer]:
    """The deadline timers of the turn that starts at ``now`` at position ``seq`` (none without a deadline)."""
    seat = runs_for(seats, game) if options.deadline_hours else None
    if seat is None:
        return []
    until = now + options.deadline_hours * HOUR
    payload = {"seq": seq, "until": until}
    user_id = seats[seat].user_id
    return [NewTimer(WARNING, now + WARNING_SHARE * options.deadline_hours * HOUR, seat, user_id, payload),
            NewTimer(RAN_OUT, until, seat, user_id, payload)]


def runs_out_at(timers: Sequence[TimerRow]) -> float | None:
    """When the current turn's time runs out, from a game's pending timers (:data:`RAN_OUT`'s due time); ``None``
    when no deadline runs (none chosen, a computer or a vacation pause, the game over)."""
    return min((timer.due_at for timer in timers if timer.kind == RAN_OUT), default=None)


def retimed(table: Table, seats: Sequence[Seat], now: float) -> tuple[list[NewTimer], tuple[str, ...]]:
    """``(timers, cancel_timers)`` for a change of the seats (away, back, a vacation) that leaves the position as
    it is: the deadline starts anew only when whether it runs, or for whom, changed."""
    if runs_for(table.seats, table.game) == runs_for(seats, table.game):
        return [], ()
    return turn_timers(table.options, seats, table.game, table.seq, now), KINDS


async def runs_out(games: Games, table: Table, seat: int, now: float) -> bool:
    """Whether the deadline of ``seat``'s current turn has run out by ``now`` (the clock jumped past it while
    the bot was down): the computer is about to make that move, so a reminder for it is not sent. ``False``
    when no deadline runs for that seat, or the timers cannot be read (the reminder then goes, as before)."""
    if not table.options.deadline_hours or runs_for(table.seats, table.game) != seat:
        return False
    pending = await games.pending_timers(table.id, "deadline")
    return any(t.kind == RAN_OUT and t.seat == seat and t.payload.get("seq") == table.seq and t.due_at <= now
               for t in pending or ())


class Commit(Protocol):
    """How a move made for a seat is stored (``bot.host.play.Play.commit``)."""

    async def __call__(self, table: Table, new: Game, seat: int, user_id: int | None, text: str,
                       interaction_id: int | None, events: list[Event], *, seats: list[Seat] | None = ...,
                       notices: Sequence[NewDelivery] = ..., timer: int | None = ...) -> MoveResult: ...


class Deadlines:
    """The host's turn deadlines: the handlers of :data:`WARNING` and :data:`RAN_OUT`."""

    def __init__(self, games: Games, schedule: Schedule, *, choose: Callable[[Table, int], Awaitable[str]],
                 commit: Commit) -> None:
        """``choose(table, seat)``: the computer's move for the seat (``bot.host.computers``); ``commit``: how it is
        stored."""
        self.games = games
        self._choose = choose
        self._commit = commit
        schedule.on(WARNING, self._on_warning)
        schedule.on(RAN_OUT, self._on_ran_out)

    async def arm_missing(self, tables: Sequence[Table] | None = None) -> int:
        """At start-up: give every running game of ``tables`` (default: those in memory) whose turn deadline runs but
        has no timer for it (lost some other way than a move, or stored before) its turn's timers again, counted from
        the last move, so a deadline that passed while the bot was down is due at once; how many were armed."""
        def deadline(table: Table, pending: set[str]) -> Change | None:
            if table.status != "running" or table.game is None or RAN_OUT in pending:
                return None
            since = table.last_move_at if table.last_move_at is not None else table.created_at
            timers = turn_timers(table.options, table.seats, table.game, table.seq, since)
            return Change(cancel_timers=KINDS, timers=timers) if timers else None

        return await self.games.arm_missing("deadline", deadline, tables)

    async def turn_deadline(self, game_id: int) -> float | None:
        """When the time of the game's current turn runs out (its pending deadline timer), ``None`` without one or
        when the database cannot say (a nicety beside the turn: never a refusal)."""
        timers = await self.games.pending_timers(game_id, "deadline")
        return runs_out_at(timers) if timers is not None else None

    def _current(self, timer: TimerRow) -> Table | None:
        """The timer's table if the turn it was set for is still on and its deadline runs, else ``None``."""
        table = self.games.live(timer.channel_id, timer.game_id)
        if table is None or table.seq != timer.payload.get("seq") or runs_for(table.seats, table.playing) != timer.seat:
            return None
        return table

    async def _on_warning(self, timer: TimerRow, now: float) -> TableInfo | None:
        async with self.games.change(timer.channel_id):
            table = self._current(timer)
            if table is None or now >= float(timer.payload.get("until", now)):
                # the turn moved on, or the deadline itself has passed (the bot was down): warn of nothing
                await self.games.finish_timer(timer.game_id, timer.id, now)
                return None
            assert timer.user_id is not None
            warning = NewDelivery(NOTICE_DM, table.seq, timer.user_id, {
                "key": "bot.deadline.warning", "locale": table.options.locale,
                "params": {"until": int(timer.payload["until"]), "channel": table.channel_id}})
            await self.games.write(table, Change(deliveries=[warning], timer=timer.id), now=now)
            return table.info()

    async def _on_ran_out(self, timer: TimerRow, now: float) -> MoveResult | None:
        """The computer makes the player's move (chosen outside the lock, stored only if the turn is still on);
        the third time, the seat goes to the computer for the rest of the game."""
        table = self._current(timer)
        if table is None:
            await self.games.finish_timer(timer.game_id, timer.id, now)
            return None
        seat = timer.seat
        assert seat is not None  # a deadline runs for a seat
        text = await self._choose(table, seat)
        async with self.games.change(timer.channel_id):
            # Still this turn? Judged by the position, not by the copy in memory: reading the game again meanwhile
            # (another process wrote a reminder or a DM's state, which changes no position) makes a new copy, and
            # taking that for "the turn moved on" marked the deadline done with no move made and no new timer.
            current = self._current(timer)
            if current is None:
                await self.games.finish_timer(timer.game_id, timer.id, now)
                return None
            table, game = current, current.playing
            place = table.seats[seat]
            timeouts = place.timeouts + 1
            handed = timeouts >= MAX_TIMEOUTS
            seats = list(table.seats)
            seats[seat] = Seat(**{**place.to_dict(), "timeouts": timeouts, "away": place.away or handed})
            key = "bot.deadline.handed_over" if handed else "bot.deadline.ran_out"
            payload: dict[str, Any] = {"key": key, "locale": table.options.locale,
                                       "params": {"name": place.name, "count": timeouts}}
            if handed:
                payload["takeable"] = seat  # the post carries "Take this seat" (bot.host.takeover)
            notice = NewDelivery(NOTICE_POST, table.seq + 1, payload=payload)
            log.info("game %d: seat %d ran out of time (%d); the computer moves for it", table.id, seat, timeouts)
            new = game.clone()
            events = new.apply(text)
            return await self._commit(table, new, seat, None, str(parse_move(text)), None, events, seats=seats,
                                      notices=[notice], timer=timer.id)
