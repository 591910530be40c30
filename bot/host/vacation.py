"""Vacations (``/santacruz vacation days:N``): in each running game the player sits in, the other people vote to
pause the game or to let the computer play the seat until the player is back.

A vacation lives in the player's seat (``Seat.vacation``, stored with the game's seats): when it began
(``since``), when it ends (``until``), its state (``vote``, ``pause`` or ``computer``), who may vote (the other
people at the table when it began) and the votes cast, so that a restart in the middle of a vote keeps them.
The majority of the votes cast decides once everyone has voted; a tie, or no decision within
:data:`VOTE_HOURS` (the :data:`VOTE` timer), lets the computer play (at the seat's computer strength, as
``away`` does). The :data:`END` timer ends the vacation at ``until``; ``/santacruz back`` ends it early in every
game. While a pause holds a game nobody moves, no reminder is sent and no deadline runs.

Every change is written first (the seats, the channel's post, the timers, one transaction) and only then applied in
memory. Timers carry the vacation's ``since`` in their payload: one left from an earlier vacation does nothing.

:class:`Vacations` is a part of the host (``host.vacations``): the host calls it, and it registers the handlers
of its two timers with the schedule; when the seat to move is reminded after a change comes from ``bot.host.reminders``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from bot.host import deadlines
from bot.host.change import Change
from bot.host.deliveries import NOTICE_POST, TURN_DM
from bot.host.errors import HostError, storage_refusal
from bot.host.games import CONFLICT, Games
from bot.host.model import NewDelivery, NewTimer, TimerRow
from bot.host.reminders import KINDS as REMINDER_KINDS
from bot.host.reminders import Reminders
from bot.host.table import DAY, HOUR, Seat, Table, TableInfo, Waking
from bot.host.timers import END as END
from bot.host.timers import VOTE as VOTE
from bot.host.timers import Schedule

VOTE_HOURS: Final = 12.0
MIN_DAYS: Final = 1
MAX_DAYS: Final = 30
PAUSE: Final = "pause"
COMPUTER: Final = "computer"
VOTING: Final = "vote"
CHOICES: Final = (PAUSE, COMPUTER)


@dataclass(frozen=True, slots=True)
class Vacation:
    """A player's vacation in one game, as their seat stores it."""

    since: float
    until: float
    state: str
    """``vote`` while the others vote, then ``pause`` or ``computer``."""
    voters: tuple[int, ...]
    """The other people at the table when it began: they vote."""
    votes: dict[int, str] = field(default_factory=dict)
    """Voter -> ``pause`` or ``computer``."""
    paused_from: float | None = None
    """When the votes paused the game (``None`` unless they did)."""

    def decision(self) -> str:
        """What the votes cast decide: ``pause`` by a majority, else (a tie, or no vote) ``computer``."""
        pauses = sum(choice == PAUSE for choice in self.votes.values())
        return PAUSE if pauses > len(self.votes) - pauses else COMPUTER

    @property
    def everyone_voted(self) -> bool:
        return all(voter in self.votes for voter in self.voters)

    def to_dict(self) -> dict[str, Any]:
        return {"since": self.since, "until": self.until, "state": self.state, "voters": list(self.voters),
                "votes": {str(voter): choice for voter, choice in self.votes.items()},
                **({"paused_from": self.paused_from} if self.paused_from is not None else {})}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Vacation:
        return cls(since=float(data["since"]), until=float(data["until"]), state=str(data["state"]),
                   voters=tuple(int(v) for v in data.get("voters", ())),
                   votes={int(voter): str(choice) for voter, choice in dict(data.get("votes", {})).items()},
                   paused_from=float(data["paused_from"]) if data.get("paused_from") is not None else None)


def vacation_of(seat: Seat) -> Vacation | None:
    """The seat's vacation, or ``None``."""
    return Vacation.from_dict(seat.vacation) if seat.vacation is not None else None


def pause_of(table: Table) -> tuple[str, float] | None:
    """``(name, until)`` of the vacation pausing the game, or ``None`` when no pause holds it."""
    for seat in table.seats:
        vacation = vacation_of(seat)
        if vacation is not None and vacation.state == PAUSE:
            return seat.name, vacation.until
    return None


def with_vacation(seats: Sequence[Seat], seat: int, vacation: Vacation | None) -> list[Seat]:
    """The seats with ``seat``'s vacation set (or ended, with ``None``)."""
    changed = list(seats)
    changed[seat] = replace(seats[seat], vacation=vacation.to_dict() if vacation is not None else None)
    return changed


@dataclass(frozen=True, slots=True)
class VacationChange(Waking):
    """What a vacation changed in one game, for the adapter: wake the channel's outbox, and run the computers when
    ``computer_to_move``."""

    game_id: int
    channel_id: int
    seat: int
    name: str
    state: str | None
    """``vote``, ``pause`` or ``computer``; ``None``: the vacation ended."""
    until: float
    computer_to_move: bool
    info: TableInfo | None
    """The game after the change."""


@dataclass(slots=True)
class _Plan:
    """A change to one game, computed before it is written: the new seats, what it owes and its timers."""

    seats: list[Seat]
    deliveries: list[NewDelivery]
    timers: list[NewTimer] = field(default_factory=list)
    cancel: tuple[str, ...] = ()


Planner = Callable[[Sequence[Seat], int, Table], _Plan | None]
"""``(seats, seat, table) -> the change``, or ``None``: nothing to do."""


class Vacations:
    """The host's vacations; see the module docstring."""

    def __init__(self, games: Games, schedule: Schedule, reminders: Reminders, *, clock: Callable[[], float]) -> None:
        self.games = games
        self.reminders = reminders
        self._clock = clock
        schedule.on(VOTE, self._on_vote_timer)
        schedule.on(END, self._on_end_timer)

    # ------------------------------------------------------------------ reading

    @staticmethod
    def pause_of(table: Table) -> tuple[str, float] | None:
        """``(name, until)`` of the vacation pausing the game, or ``None`` when no pause holds it."""
        return pause_of(table)

    # ------------------------------------------------------------------ the commands

    async def start(self, user_id: int, days: int, now: float | None = None) -> list[VacationChange]:
        """Go on vacation for ``days`` in every running game the user sits in (read from the database, so also
        games another process holds or changed). Games where the user is on vacation already are left as they are, so a
        second try after a storage failure finishes the rest."""
        if not MIN_DAYS <= days <= MAX_DAYS:
            raise refusal("host.error.bad_vacation_days", min=MIN_DAYS, max=MAX_DAYS)
        now = self._clock() if now is None else now
        rows = await self._games_of(user_id)
        if not rows:
            raise refusal("host.error.no_games_for_vacation")
        def begin(seats: Sequence[Seat], seat: int, table: Table) -> _Plan | None:
            return self._begin(seats, seat, now, days)

        changes = await self._each(rows, user_id, now, begin)
        if not changes:
            raise refusal("host.error.already_on_vacation")
        return changes

    async def end(self, user_id: int, now: float | None = None) -> list[VacationChange]:
        """End the user's vacation early in every game (``/santacruz back``); empty when they are on none."""
        now = self._clock() if now is None else now
        def finish(seats: Sequence[Seat], seat: int, table: Table) -> _Plan | None:
            return self._finish(seats, seat, table, now)

        return await self._each(await self._games_of(user_id), user_id, now, finish)

    async def _each(self, games: list[tuple[int, int]], user_id: int, now: float, planner: Planner
                    ) -> list[VacationChange]:
        """Make a change in each of the user's ``games`` (one transaction each); the changes made. Each game is
        decided on as the database has it: under its channel's lock this process's copy is checked against the
        database first, and read again (or loaded) if another process changed (or holds) it."""
        changes = []
        for game_id, channel_id in games:
            async with self.games.change(channel_id) as table:
                if table is None or table.id != game_id:
                    continue  # ended (or damaged) meanwhile
                change = await self._loaded(table, user_id, now, planner)
            if change is not None:
                changes.append(change)
        return changes

    async def vote(self, game_id: int, user_id: int, seat: int, choice: str,
                   now: float | None = None) -> VacationChange:
        """A vote of one of the other people (a button under the vacation's post): the votes decide once all
        have voted. A voter may change their vote while the vote is open."""
        if choice not in CHOICES:
            raise refusal("host.error.stale")
        known = self.games.of_game(game_id)
        if known is None:
            raise refusal("host.error.stale")
        async with self.games.change(known.channel_id) as table:  # the game as the database has it now
            if table is None or table.id != game_id or table.status != "running" or not 0 <= seat < len(table.seats):
                raise refusal("host.error.stale")
            now = self._clock() if now is None else now
            place = table.seats[seat]
            vacation = vacation_of(place)
            if table.status != "running" or vacation is None or vacation.state != VOTING:
                raise refusal("host.error.vote_closed", name=place.name)
            if user_id not in vacation.voters:
                raise refusal("host.error.not_a_voter", name=place.name)
            vacation = replace(vacation, votes={**vacation.votes, user_id: choice})
            if vacation.everyone_voted:
                plan = self._decide(table, seat, vacation, now)
            else:
                plan = _Plan(with_vacation(table.seats, seat, vacation), [])
            return await self._apply(table, seat, plan, now)

    # ------------------------------------------------------------------ the timers

    async def _on_vote_timer(self, timer: TimerRow, now: float) -> VacationChange | None:
        """Nobody decided within :data:`VOTE_HOURS`: the votes cast decide (a tie or none: the computer)."""
        def decide(table: Table, seat: int, vacation: Vacation) -> _Plan | None:
            return self._decide(table, seat, vacation, now) if vacation.state == VOTING else None

        return await self._on_timer(timer, now, decide)

    async def _on_end_timer(self, timer: TimerRow, now: float) -> VacationChange | None:
        """The vacation is over: the player plays their seat again."""
        def finish(table: Table, seat: int, vacation: Vacation) -> _Plan | None:
            return self._finish(table.seats, seat, table, now)  # never None: the seat is on vacation

        return await self._on_timer(timer, now, finish)

    async def _on_timer(self, timer: TimerRow, now: float,
                        planner: Callable[[Table, int, Vacation], _Plan | None]) -> VacationChange | None:
        """A vacation's timer fires: the change ``planner`` makes to the vacation it was set for, with the timer
        done; only the timer is marked done when that vacation is over (or a later one) or there is nothing to do."""
        table = self._timer_table(timer)
        async with self.games.change(timer.channel_id):
            current = self._current(table, timer)
            plan = planner(table, *current) if current is not None else None
            if current is None or plan is None:
                await self.games.finish_timer(timer.game_id, timer.id, now)
                return None
            return await self._apply(table, current[0], plan, now, timer.id)

    def _timer_table(self, timer: TimerRow) -> Table:
        table = self.games.of_game(timer.game_id)
        if table is None:  # another process holds the game: it runs the timer once this claim expires
            raise refusal("host.error.no_game")
        return table

    @staticmethod
    def _current(table: Table, timer: TimerRow) -> tuple[int, Vacation] | None:
        """The seat and the vacation the timer was set for, if it is still on (not ended, not a later one)."""
        if table.status != "running" or timer.seat is None or timer.seat >= len(table.seats):
            return None
        vacation = vacation_of(table.seats[timer.seat])
        if vacation is None or vacation.since != timer.payload.get("since"):
            return None
        return timer.seat, vacation

    # ------------------------------------------------------------------ the changes

    @staticmethod
    def _begin(seats: Sequence[Seat], seat: int, now: float, days: int) -> _Plan | None:
        """The vacation begins: the others vote (or, with nobody to vote, the computer plays at once)."""
        if seats[seat].vacation is not None:
            return None
        voters = tuple(s.user_id for i, s in enumerate(seats)
                       if i != seat and s.user_id is not None and s.vacation is None)
        vacation = Vacation(since=now, until=now + days * DAY, state=VOTING if voters else COMPUTER, voters=voters)
        locale_params = {"name": seats[seat].name, "until": int(vacation.until), "days": days}
        post: dict[str, Any] = {"key": "bot.vacation.vote" if voters else "bot.vacation.computer_plays",
                                "params": locale_params}
        if voters:
            post["vote"] = seat
        timers = [NewTimer(END, vacation.until, seat, seats[seat].user_id, {"since": now})]
        if voters:
            timers.append(NewTimer(VOTE, now + VOTE_HOURS * HOUR, seat, seats[seat].user_id, {"since": now}))
        return _Plan(with_vacation(seats, seat, vacation), [NewDelivery(NOTICE_POST, 0, payload=post)], timers)

    @staticmethod
    def _decide(table: Table, seat: int, vacation: Vacation, now: float) -> _Plan:
        """The vote is decided: the game pauses, or the computer plays the seat until the vacation ends."""
        state = vacation.decision()
        decided = replace(vacation, state=state, paused_from=now if state == PAUSE else None)
        key = "bot.vacation.paused" if decided.state == PAUSE else "bot.vacation.computer_plays"
        post = {"key": key, "seat": seat, "params": {"name": table.seats[seat].name, "until": int(decided.until)}}
        seats = with_vacation(table.seats, seat, decided)
        others_voting = any(s.vacation_state == VOTING for s in seats)
        return _Plan(seats, [NewDelivery(NOTICE_POST, 0, payload=post)], cancel=() if others_voting else (VOTE,))

    @staticmethod
    def _finish(seats: Sequence[Seat], seat: int, table: Table, now: float) -> _Plan | None:
        """The vacation ends (at its end, or early by ``back``): the player plays again; a pause is lifted. The
        seat keeps the vacation as a break (:attr:`bot.host.table.Seat.breaks`) for the turns' times."""
        vacation = vacation_of(seats[seat])
        if vacation is None:
            return None
        post = {"key": "bot.vacation.over", "seat": seat, "params": {"name": seats[seat].name}}
        ended = with_vacation(seats, seat, None)
        taken = {"since": vacation.since, "end": now, "paused_from": vacation.paused_from}
        ended[seat] = replace(ended[seat], breaks=[*ended[seat].breaks, taken])
        alone = not any(s.vacation is not None for s in ended)  # no other vacation's timers to keep
        plan = _Plan(ended, [NewDelivery(NOTICE_POST, 0, payload=post)], cancel=(VOTE, END) if alone else ())
        to_move = table.to_move
        if to_move is not None and not plan.seats[to_move].computer_plays and (
                to_move == seat or deadlines.paused(seats)):
            user_id = plan.seats[to_move].user_id
            plan.deliveries.append(NewDelivery(TURN_DM, 0, user_id, {"start": False, "hand_changed": False}))
        return plan

    # ------------------------------------------------------------------ writing, then applying

    async def _games_of(self, user_id: int) -> list[tuple[int, int]]:
        """``(game id, channel id)`` of every running game the user sits in, as the database has them."""
        with storage_refusal(doing="reading the open games"):
            rows = await self.games.store.open_games_of(user_id)
        return [(row.id, row.channel_id) for row in rows
                if row.status == "running" and any(s.get("user_id") == user_id for s in row.seats)]

    async def _loaded(self, table: Table, user_id: int, now: float,
                      planner: Planner) -> VacationChange | None:
        """Plan and make a change to a game this process holds (under its channel's lock)."""
        seat = table.seat_of(user_id)
        if table.status != "running" or seat is None:
            return None
        plan = planner(table.seats, seat, table)
        if plan is None:
            return None
        return await self._apply(table, seat, plan, now)

    async def _apply(self, table: Table, seat: int, plan: _Plan, now: float, timer: int | None = None
                     ) -> VacationChange:
        """Write the plan with the deadline's timers and the next reminder it implies (with the ``timer`` that made
        it, done), then adopt it."""
        timers, cancel = deadlines.retimed(table, plan.seats, now)
        reminder, reminders = self.reminders.timers(table, table.game, table.seq, now, plan.seats)
        owed = [replace(d, seq=table.seq, payload={**d.payload, "locale": table.options.locale})
                if d.kind == NOTICE_POST else replace(d, seq=table.seq) for d in plan.deliveries]
        await self.games.write(table, Change(
            {"next_reminder_at": reminder}, deliveries=owed, timers=[*plan.timers, *timers, *reminders],
            cancel_timers=(*plan.cancel, *cancel, *REMINDER_KINDS), timer=timer),
            now=now, seats=plan.seats, lost=CONFLICT)
        return self._change(table.id, table.channel_id, seat, plan.seats, table)

    @staticmethod
    def _change(game_id: int, channel_id: int, seat: int, seats: list[Seat], table: Table) -> VacationChange:
        vacation = vacation_of(seats[seat])
        to_move = table.to_move
        computer_to_move = (to_move is not None and seats[to_move].computer_plays
                            and not deadlines.paused(seats))
        return VacationChange(game_id=game_id, channel_id=channel_id, seat=seat, name=seats[seat].name,
                              state=vacation.state if vacation is not None else None,
                              until=vacation.until if vacation is not None else 0.0,
                              computer_to_move=computer_to_move,
                              info=table.info())



def refusal(key: str, **params: Any) -> Exception:
    """The host's refusal (:class:`bot.host.errors.HostError`)."""
    return HostError(key, **params)
