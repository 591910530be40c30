"""Someone new takes over a seat (a part of the host): the offer, the opener's confirmation, the lapse, and the
seat's own person coming back first.

A seat may be taken over while the computer plays it for a person who left it: away, handed over by the opener,
or out of time three times (``Seat.away``). A vacation is not leaving: its seat comes back by itself. Anyone not
seated in the game may offer to take such a seat (:meth:`Takeovers.offer`); whoever opened the game (or someone
with Manage Channels) confirms it (:meth:`Takeovers.confirm`), or the offer lapses after :data:`OFFER_HOURS` (a
timer). The seat's own person coming ``back`` meanwhile wins: the offer is withdrawn (:func:`withdrawn`, called by
:class:`bot.host.play.Play` with the seat's change). Once confirmed the seat is the newcomer's from the next move on:
their name on it, their DMs (the hand and, on their turn, the controls), and the people who played it before kept
in :attr:`bot.host.table.Seat.former`, so the log and the game-over post can name them all. The seat's results are
counted apart and not rated (:func:`bot.host.ratings.rated_people`): only people who played a game from its start
to its end are rated by it.

Every change is one write through ``games.write``, with the notice it owes the channel (``bot.takeover.*``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from bot.host import deadlines
from bot.host.change import Change
from bot.host.deliveries import HAND_DM, NOTICE_POST, TURN_DM
from bot.host.errors import HostError
from bot.host.games import Games
from bot.host.model import NewDelivery, NewTimer, TimerRow
from bot.host.reminders import KINDS as REMINDER_KINDS
from bot.host.reminders import Reminders
from bot.host.table import HOUR, Seat, Table, TableInfo, Waking
from bot.host.timers import TAKEOVER_LAPSE, Schedule

OFFER_HOURS: Final = 24
"""Hours an offer to take a seat waits for the opener's confirmation."""

OFFERED: Final = "offered"
TAKEN: Final = "taken"
LAPSED: Final = "lapsed"
WITHDRAWN: Final = "withdrawn"


@dataclass(frozen=True, slots=True)
class TakeoverChange(Waking):
    """What an offer, a confirmation or a lapse changed, for the adapter: the channel's notice is in the outbox;
    ``computer_to_move`` is false once a person plays the seat."""

    game_id: int
    channel_id: int
    seat: int
    state: str
    """:data:`OFFERED`, :data:`TAKEN` or :data:`LAPSED`."""
    name: str
    """The name of the seat's person before the take-over."""
    newcomer: str
    newcomer_id: int
    computer_to_move: bool
    info: TableInfo


def takeable(seat: Seat) -> bool:
    """Whether someone new may take ``seat``: the computer plays it for a person who left it (not a computer's
    seat, and not a vacation)."""
    return seat.user_id is not None and seat.away


def offer_of(seat: Seat) -> dict[str, Any] | None:
    """The seat's pending offer (``user_id``, ``name``, ``at``), or ``None``."""
    return seat.offer


def withdrawn(table: Table, seats: Sequence[Seat], seat: int) -> tuple[list[Seat], list[NewDelivery]]:
    """The seats with ``seat``'s offer withdrawn (its own person came back first), and the notice saying so; the
    seats unchanged and nothing owed when it has none."""
    offer = offer_of(seats[seat])
    if offer is None:
        return list(seats), []
    changed = list(seats)
    changed[seat] = replace(seats[seat], offer=None)
    notice = _notice(table, WITHDRAWN, seats[seat].name, str(offer["name"]), seat=seat)
    return changed, [notice]


class Takeovers:
    """Offers to take a seat, their confirmation and their lapse; see the module docstring."""

    def __init__(self, games: Games, schedule: Schedule, reminders: Reminders, *,
                 clock: Callable[[], float]) -> None:
        self.games = games
        self.reminders = reminders
        self._clock = clock
        schedule.on(TAKEOVER_LAPSE, self._on_lapse)

    async def offer(self, channel_id: int, user_id: int, name: str, seat: int | None = None) -> TakeoverChange:
        """``user_id`` (not seated) offers to take a seat the computer plays for someone who left it: ``seat``, or
        the only such seat. The opener is asked to confirm (a notice in the channel); the offer lapses after
        :data:`OFFER_HOURS`."""
        async with self.games.change(channel_id):
            table = self.games.running(channel_id)
            self._check_newcomer(table, user_id)
            number = self._offered_seat(table, seat)
            place = table.seats[number]
            offer = offer_of(place)
            if offer is not None and int(offer["user_id"]) != user_id:
                raise HostError("host.error.takeover_offered", name=place.name, newcomer=str(offer["name"]))
            now = self._clock()
            seats = list(table.seats)
            seats[number] = replace(place, offer={"user_id": user_id, "name": name, "at": now})
            lapse = NewTimer(TAKEOVER_LAPSE, now + OFFER_HOURS * HOUR, number, user_id, {"at": now})
            await self.games.write(table, Change(
                deliveries=[_notice(table, OFFERED, place.name, name, seat=number, newcomer_id=user_id)],
                timers=[lapse], cancel_timers=[TAKEOVER_LAPSE] if offer is not None else []), seats=seats)
            return self._answer(table, number, OFFERED, place.name, name, user_id, seats)

    async def confirm(self, channel_id: int, user_id: int, seat: int, newcomer_id: int, *,
                      can_manage: bool = False) -> TakeoverChange:
        """The opener (or Manage Channels) confirms ``newcomer_id``'s offer for ``seat``: the seat is theirs. Refused
        when that offer no longer stands (lapsed, withdrawn, replaced) or the newcomer has a seat meanwhile."""
        async with self.games.change(channel_id):
            table = self.games.running(channel_id)
            self.games.check_opener(table, user_id, can_manage)
            place = table.seats[seat] if 0 <= seat < len(table.seats) else None
            offer = offer_of(place) if place is not None else None
            if place is None or offer is None or int(offer["user_id"]) != newcomer_id or not takeable(place):
                raise HostError("host.error.takeover_gone")
            if table.seat_of(newcomer_id) is not None:
                raise HostError("host.error.takeover_seated_now", newcomer=str(offer["name"]))
            newcomer = str(offer["name"])
            seats = list(table.seats)
            seats[seat] = Seat(user_id=newcomer_id, name=newcomer, former=[
                *place.former, {"user_id": place.user_id, "name": place.name, "until": table.seq,
                                "moves": len(table.playing.moves)}])
            game = table.playing.clone()  # the game's own names follow the seats' (the views name the newcomer)
            game.names = [*game.names]
            game.names[seat] = newcomer
            now = self._clock()
            reminder, reminders = self.reminders.timers(table, table.playing, table.seq, now, seats)
            timers, cancel = deadlines.retimed(table, seats, now)
            dm = (NewDelivery(TURN_DM, table.seq, newcomer_id, {"start": False, "hand_changed": True})
                  if table.playing.to_move == seat else NewDelivery(HAND_DM, table.seq, newcomer_id, {}))
            await self.games.write(table, Change(
                {"next_reminder_at": reminder},
                deliveries=[_notice(table, TAKEN, place.name, newcomer, seat=seat, newcomer_id=newcomer_id), dm],
                timers=[*timers, *reminders], cancel_timers=[TAKEOVER_LAPSE, *cancel, *REMINDER_KINDS]),
                seats=seats, game=game)
            return self._answer(table, seat, TAKEN, place.name, newcomer, newcomer_id, seats)

    def open_seats(self, channel_id: int) -> list[int]:
        """The seats of the channel's running game that someone new may offer to take (none without one)."""
        table = self.games.live(channel_id)
        if table is None:
            return []
        return [i for i, s in enumerate(table.seats) if takeable(s)]

    def may_offer(self, channel_id: int, user_id: int) -> None:
        """Refuse ``user_id`` (with the reason) unless they may offer to take a seat in the channel's running game:
        anyone not seated in it. Asked before a *Take this seat* click acts; :meth:`offer` checks again."""
        self._check_newcomer(self.games.running(channel_id), user_id)

    @staticmethod
    def _check_newcomer(table: Table, user_id: int) -> None:
        if table.seat_of(user_id) is not None:
            raise HostError("host.error.takeover_seated")

    def may_confirm(self, channel_id: int, user_id: int, *, can_manage: bool = False) -> None:
        """Refuse ``user_id`` (with the reason) unless they may confirm an offer in the channel's running game: its
        opener, or someone with Manage Channels. Asked before a *Confirm* click acts; :meth:`confirm` checks again."""
        self.games.check_opener(self.games.running(channel_id), user_id, can_manage)

    async def _on_lapse(self, timer: TimerRow, now: float) -> TakeoverChange | None:
        """Nobody confirmed the offer in time: it lapses, with a notice (only the timer is done when that offer
        is no longer the seat's)."""
        table = self.games.of_game(timer.game_id)
        if table is None:  # another process holds the game: it runs the timer once this claim expires
            raise HostError("host.error.no_game")
        async with self.games.change(timer.channel_id):
            seat = timer.seat if timer.seat is not None else -1
            place = table.seats[seat] if table.status == "running" and 0 <= seat < len(table.seats) else None
            offer = offer_of(place) if place is not None else None
            if place is None or offer is None or offer.get("at") != timer.payload.get("at"):
                await self.games.finish_timer(timer.game_id, timer.id, now)
                return None
            seats = list(table.seats)
            seats[seat] = replace(place, offer=None)
            newcomer, newcomer_id = str(offer["name"]), int(offer["user_id"])
            await self.games.write(table, Change(deliveries=[_notice(table, LAPSED, place.name, newcomer, seat=seat)],
                                                 timer=timer.id), seats=seats, now=now)
            return self._answer(table, seat, LAPSED, place.name, newcomer, newcomer_id, seats)

    @staticmethod
    def _offered_seat(table: Table, seat: int | None) -> int:
        """The seat an offer is for: ``seat`` if it may be taken, else the only one that may."""
        open_seats = [i for i, s in enumerate(table.seats) if takeable(s)]
        if seat is None:
            if not open_seats:
                raise HostError("host.error.takeover_none")
            if len(open_seats) > 1:
                raise HostError("host.error.takeover_which",
                                names=", ".join(table.seats[i].name for i in open_seats))
            return open_seats[0]
        if seat not in open_seats:
            raise HostError("host.error.takeover_not_open", name=table.seats[seat].name
                            if 0 <= seat < len(table.seats) else str(seat))
        return seat

    def _answer(self, table: Table, seat: int, state: str, name: str, newcomer: str, newcomer_id: int,
                seats: list[Seat]) -> TakeoverChange:
        live = self.games.live(table.channel_id)
        info = (live or table).info()
        to_move = table.playing.to_move
        return TakeoverChange(game_id=table.id, channel_id=table.channel_id, seat=seat, state=state, name=name,
                              newcomer=newcomer, newcomer_id=newcomer_id,
                              computer_to_move=to_move is not None and seats[to_move].computer_plays, info=info)


def _notice(table: Table, state: str, name: str, newcomer: str, *, seat: int,
            newcomer_id: int | None = None) -> NewDelivery:
    """The channel's notice of an offer, a take-over, a lapse or a withdrawal (``bot.takeover.<state>``); an offer's
    carries the seat and the newcomer for the opener's *Confirm* button, the others the seat whose offer they
    decide (its post loses *Confirm*: :mod:`bot.host.buttons`)."""
    payload: dict[str, Any] = {"key": f"bot.takeover.{state}", "locale": table.options.locale,
                               "params": {"name": name, "newcomer": newcomer}}
    if state == OFFERED:
        payload["takeover"] = {"seat": seat, "user_id": newcomer_id}
    else:
        payload["seat"] = seat
    return NewDelivery(NOTICE_POST, table.seq, payload=payload)
