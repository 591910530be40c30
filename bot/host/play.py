"""Play (a part of the host): moves, undo, away and back, hand-over, and what a seat may see.

A move is checked here (the game, the seat, the turn, a pause, the engine's rules), then :meth:`Play.commit` writes it
in one transaction through ``games.write``: the move, the new state, what it owes (the channel post, the changed
hands' DMs, the next turn's DM, none to a person whose own move leaves them to move; at game over the results and
the animated replay), the next turn's deadline and idle timers and when to remind its person; and answers with a
:class:`bot.host.table.MoveResult`. The computers and the turn deadlines make their moves through :meth:`Play.commit`
too. Reading (:meth:`Play.view_for` and friends) never
touches the database; a seat's view is the only way its secrets leave the host.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from bot.host import deadlines, takeback, takeover, turn_times
from bot.host.change import Change
from bot.host.deliveries import SEAT_POST, TURN_DM, move_deliveries, owes_post
from bot.host.errors import HostError
from bot.host.games import Games
from bot.host.idle import IDLE_KINDS, idle_timer
from bot.host.model import UNDO, MoveRow, NewDelivery, TurnTime, effective_moves
from bot.host.ratings import SeatResult, game_results
from bot.host.reminders import KINDS as REMINDER_KINDS
from bot.host.reminders import Reminders
from bot.host.restore import GameFactory
from bot.host.settings import Settings
from bot.host.table import HOUR, MoveResult, Seat, SeatChange, Table, TableInfo
from bot.host.takeback import Risk
from bot.host.timers import TAKEOVER_LAPSE
from bot.host.user_settings import UserSettings
from bot.host.vacation import pause_of
from engine import Event, Game, IllegalMove, View, parse_move
from engine.history import score_breakdown


@dataclass(frozen=True, slots=True)
class Asked:
    """A person's moves not played: asked first, in one click (:meth:`Play.ask_or_play`). The question is worded by
    the adapter from these parameters; its click plays ``moves`` at ``seq`` of game ``game_id``, confirmed."""

    game_id: int
    seq: int
    moves: tuple[str, ...]
    builds_nothing: bool
    """The first move builds nothing (:func:`engine.builds_nothing`)."""
    risk: Risk
    """What the moves would do that cannot be taken back (``risk.final``: asked for that, naming it)."""
    names: tuple[str, ...]
    """The seats' names, as the question names the other players."""
    seat: int
    """The asker's seat."""


@dataclass(frozen=True, slots=True)
class Played:
    """A person's moves played (:meth:`Play.ask_or_play`), and what the adapter shows them after it, read under the
    same lock as the moves."""

    results: tuple[MoveResult, ...]
    """Each move played, in order (at least one)."""
    refused: HostError | None
    """Why a later move was not played (the ones before it stand), else ``None``."""
    info: TableInfo
    """The game after the moves."""
    undo: int | None
    """How many of the moves the person may take back now (*Undo*), else ``None``."""
    view: View | None
    """The person's own view when the moves leave them to move (a double move's card, its first build: the rest of
    their turn comes with this answer), else ``None``."""


class Play:
    """Moves and seats of running games; see the module docstring."""

    def __init__(self, games: Games, reminders: Reminders, settings: Settings, *, clock: Callable[[], float],
                 factory: GameFactory, settings_of: Callable[[int | None], UserSettings]) -> None:
        self.games = games
        self.reminders = reminders
        self.settings = settings
        self._clock = clock
        self._factory = factory
        self._settings_of = settings_of
        """A person's own settings (their quiet hours leave their turns' times)."""

    async def ask_or_play(self, channel_id: int, user_id: int, moves: Sequence[str], *, confirmed: bool = False,
                          interaction_id: int | None = None, game_id: int | None = None,
                          expected_seq: int | None = None) -> Asked | Played:
        """A person's move, or a double move and its first build (``moves``, in order), from a command or a click:
        the one call the adapter makes for it, under the channel's lock.

        Unless ``confirmed`` (the click after the question), moves that are asked first
        (:func:`bot.host.takeback.asks_first`: the first builds nothing, or one cannot be taken back) are not played
        but answered :class:`Asked`, with what the question names. Else they are played in order, each at the next
        position, and answered :class:`Played`. A refusal of the first move is raised (no game, not seated, not their
        turn, an outdated button, an illegal move); of a later one, it ends the answer and the moves before it stand.
        ``interaction_id`` (the first move's) makes a retry harmless (``already_done``); ``game_id`` and
        ``expected_seq`` (from a button's id) refuse a click on an outdated message (``host.error.stale``)."""
        async with self.games.change(channel_id):
            table, seat = await self._acting_seat(channel_id, user_id, interaction_id, game_id, expected_seq)
            asked = None if confirmed else takeback.asks_first(self.games.check_turn(table, seat), moves)
            if asked is not None:
                nothing, risk = asked
                return Asked(table.id, table.seq, tuple(moves), nothing, risk, tuple(table.names), seat)
            results: list[MoveResult] = []
            refused: HostError | None = None
            for i, move in enumerate(moves):
                try:
                    if i:
                        table, seat = await self._acting_seat(channel_id, user_id, None, game_id,
                                                              None if expected_seq is None else expected_seq + i)
                    results.append(await self._move(table, seat, user_id, move, interaction_id if i == 0 else None))
                except HostError as exc:
                    if not results:
                        raise
                    refused = exc
                    break
            return self._played(table, seat, user_id, results, refused)

    def _played(self, table: Table, seat: int, user_id: int, results: list[MoveResult],
                refused: HostError | None) -> Played:
        """The answer to a person's moves just played: what the adapter shows them, read under the same lock."""
        if table.status != "running":  # the game is over (and unloaded): nothing to take back, no turn left
            return Played(tuple(results), refused, table.info(), None, None)
        game = table.playing
        undo = len(results) if takeback.undo_owner(table.log, game) == user_id else None
        view = game.view(seat) if results[-1].to_move_user_id == user_id else None
        return Played(tuple(results), refused, table.info(), undo, view)

    async def move(self, channel_id: int, user_id: int, move: str, *, interaction_id: int | None = None,
                   game_id: int | None = None, expected_seq: int | None = None) -> MoveResult:
        """Make ``move`` (notation) for the user's seat at once, never asked first (tools and tests; a person's moves
        come through :meth:`ask_or_play`). Refused as :meth:`ask_or_play` says."""
        async with self.games.change(channel_id):
            table, seat = await self._acting_seat(channel_id, user_id, interaction_id, game_id, expected_seq)
            return await self._move(table, seat, user_id, move, interaction_id)

    async def _move(self, table: Table, seat: int, user_id: int, move: str,
                    interaction_id: int | None) -> MoveResult:
        """Make ``move`` for ``seat`` of the table (inside ``games.change``): checked against the turn and the rules,
        then written through :meth:`commit`."""
        game = self.games.check_turn(table, seat)
        try:
            text = str(parse_move(move))
            new = game.clone()
            events = new.apply(text)
        except IllegalMove as exc:
            raise HostError("host.error.illegal_move", move=str(move).strip(), reason=str(exc),
                            illegal=exc) from None
        return await self.commit(table, new, seat, user_id, text, interaction_id, events)

    async def undo(self, channel_id: int, user_id: int, *, interaction_id: int | None = None,
                   game_id: int | None = None, expected_seq: int | None = None) -> MoveResult:
        """Take back the user's last move, if it revealed nothing hidden and nobody has acted since
        (:func:`bot.host.takeback.undo_refusal`). ``expected_seq`` (an Undo button's) refuses a button whose game
        has moved on (an outdated button: ``host.error.stale``)."""
        async with self.games.change(channel_id):
            table, seat = await self._acting_seat(channel_id, user_id, interaction_id, game_id, expected_seq)
            game = table.playing
            refusal = takeback.undo_refusal(table.log, game, user_id)
            if refusal is not None:
                raise HostError(refusal)
            last = effective_moves(table.log)[-1]
            new = game.undo()
            return await self.commit(table, new, seat, user_id, UNDO, interaction_id, [], undone=last.move)

    async def _acting_seat(self, channel_id: int, user_id: int, interaction_id: int | None, game_id: int | None,
                           expected_seq: int | None) -> tuple[Table, int]:
        """The running table and the user's seat for a move or an undo (inside ``games.change``): refused when the
        interaction was already handled, the user has no seat, the click's position is outdated, or a vacation
        pauses the game."""
        await self.games.check_interaction(interaction_id)
        table, seat = self.games.seat_at(channel_id, user_id, game_id, expected_seq)
        self.check_not_paused(table)
        return table, seat

    def undoable_by(self, channel_id: int) -> int | None:
        """The person who may take the channel's last move back now (the *Undo* button is theirs), or ``None``."""
        table = self.games.live(channel_id)
        return takeback.undo_owner(table.log, table.playing) if table is not None else None

    async def commit(self, table: Table, new: Game, seat: int, user_id: int | None, text: str,
                      interaction_id: int | None, events: list[Event], *,
                      undone: str | None = None, seats: list[Seat] | None = None,
                      notices: Sequence[NewDelivery] = (), now: float | None = None,
                      timer: int | None = None) -> MoveResult:
        """Store the move, the new state, the deliveries it owes (``notices`` first) and the next turn's deadline
        timers in one transaction (with the ``timer`` that made it, done), then adopt them; answer for the cog.
        ``seats``: the seats as the move leaves them (a deadline's hand-over), default unchanged."""
        old = table.playing
        now = self._clock() if now is None else now
        row = MoveRow(table.id, table.seq + 1, seat, user_id, text, interaction_id, now)
        status = "over" if new.is_over() else "running"
        after = replace(table, seats=seats) if seats is not None else table
        reminder, reminders = self.reminders.timers(after, new, row.seq, now)
        if undone is None and old.pending is not None:  # the last build(s) of a double move: one post
            events = self._turn_events(table, new)
        result = self._move_result(after, new, row, seat, user_id, text, events, undone, table.options.replay,
                                   table.options.hints)
        people = [s.user_id for s in after.seats if s.user_id is not None]
        await self.games.write(table, Change(
            {"status": status, "last_move_at": now, "next_reminder_at": reminder}, row,
            deliveries=[*notices, *_unasked(move_deliveries(result, post=owes_post(old, new, undone), people=people),
                                            result, user_id, undone)],
            results=self._results(table, new, now) if status == "over" else [],
            turn_time=self._turn_time(table, new, row, undone),
            untimed=effective_moves(table.log)[-1].seq if undone is not None else None,
            cancel_timers=[*deadlines.KINDS, *IDLE_KINDS, *REMINDER_KINDS],
            timers=[*deadlines.turn_timers(table.options, after.seats, new, row.seq, now), *reminders,
                    *([] if status == "over" else [idle_timer(self.settings, now)])], timer=timer),
            now=now, seats=seats, game=new)
        return result

    def _turn_time(self, table: Table, new: Game, row: MoveRow, undone: str | None) -> TurnTime | None:
        """The time a person took for the turn their own ``row`` ends (``None``: a computer's move, an undo, a move
        after which the turn goes on, or a turn whose start the log does not tell)."""
        if row.user_id is None or undone is not None or (new.to_move == row.seat and not new.is_over()):
            return None
        start = turn_times.turn_start(table.log, row.seat, table.last_move_at)
        if start is None:
            return None
        seconds = turn_times.turn_seconds(start, row.created_at, self._settings_of(row.user_id),
                                          turn_times.breaks(table.seats, row.seat))
        return TurnTime(table.id, row.seq, table.guild_id, row.user_id, seconds, row.created_at)

    def _turn_events(self, table: Table, new: Game) -> list[Event]:
        """The public events of the whole turn that ``new``'s last move ends: a double move's card and its builds
        (replayed from the turn's start, a few moves a game; the engine keeps only the last move's events)."""
        moves = [m for _, m in new.moves]
        start = max(i for i, m in enumerate(moves) if parse_move(m).verb == "double")
        game = self.games.replay(table, moves[:start])
        events: list[Event] = []
        for move in moves[start:]:
            events.extend(game.apply(move))
        return events

    def _results(self, table: Table, final: Game, now: float) -> list[SeatResult]:
        """The results of a finished game, one per seat, with where each seat's points came from (the engine's
        breakdown replays the game; nothing secret remains once it is over)."""
        return game_results(final, score_breakdown(final), game_id=table.id, guild_id=table.guild_id,
                            user_ids=[s.user_id for s in table.seats], names=table.names, finished_at=now,
                            hints=table.options.hints, taken_over=[bool(s.former) for s in table.seats])

    @staticmethod
    def _move_result(table: Table, new: Game, row: MoveRow, seat: int, user_id: int | None, text: str,
                     events: list[Event], undone: str | None, replay: bool = False,
                     hints: bool = False) -> MoveResult:
        """The answer for the cog (and the payload of the move's post), before the move is stored. ``events``: the
        whole turn's (they also become the view's, which the picture sums up); ``replay``: the game's options ask
        for the animated replay at game over; ``hints``: the game has hints on (its post says so)."""
        old = table.playing
        changed = tuple(s for s in range(len(table.seats)) if _secret(old, s) != _secret(new, s))
        dealt = {e.get("seat") for e in events if e["type"] in _DEALT}
        # a person's own move (or undo) changes only what they did: no DM for it, unless a card was dealt to them
        told = tuple(s for s in changed if s != seat or user_id is None or s in dealt)
        view = new.view(None)
        if undone is None:
            view["events"] = list(events)
        passed = _passed(old, new, seat, undone)
        to_move = new.to_move
        next_seat = table.seats[to_move] if to_move is not None else None
        mover = table.seats[seat]
        over = new.is_over()
        return MoveResult(
            game_id=table.id, channel_id=table.channel_id, locale=table.options.locale, seq=row.seq,
            seat=seat, name=mover.name, user_id=mover.user_id, by_computer=user_id is None,
            move=undone if undone is not None else text, undo=undone is not None, events=events,
            view=view, to_move=to_move, to_move_name=next_seat.name if next_seat else None,
            to_move_user_id=next_seat.user_id if next_seat and not next_seat.computer_plays else None,
            computer_to_move=bool(next_seat and next_seat.computer_plays), secret_changed=changed,
            dm_user_ids=tuple(u for s in told if (u := table.seats[s].user_id) is not None),
            game_over=over, ranking=tuple(new.ranking()) if over else None, replay=over and replay,
            undoable=user_id is not None and undone is None and not over and new.can_undo(), hints=hints,
            turn_moves=_turn_moves(old, new) if undone is None and passed is not None else (),
            passed_user_id=table.seats[passed].user_id if passed is not None else None,
            former=tuple(tuple(str(f["name"]) for f in s.former) for s in table.seats)
            if any(s.former for s in table.seats) else ())

    async def away(self, channel_id: int, user_id: int) -> SeatChange:
        """Let the computer play the user's seat for the rest of the game (until :meth:`back`)."""
        return await self._own_seat(channel_id, user_id, True)

    async def back(self, channel_id: int, user_id: int) -> SeatChange:
        """Take one's seat back from the computer."""
        return await self._own_seat(channel_id, user_id, False)

    async def _own_seat(self, channel_id: int, user_id: int, away: bool) -> SeatChange:
        async with self.games.change(channel_id):
            return await self._set_away(*self.games.seat_at(channel_id, user_id), away)

    async def hand_over(self, channel_id: int, user_id: int, target_user_id: int, *,
                        can_manage: bool = False) -> SeatChange:
        """The opener (or Manage Channels) hands a player's seat to the computer when that player has
        been to move for the game's time limit (``AWAY_HOURS``)."""
        async with self.games.change(channel_id):
            table = self.games.running(channel_id)
            self.games.check_opener(table, user_id, can_manage)
            seat = self.games.seated(table, target_user_id)
            hours = table.options.away_hours
            since = table.last_move_at if table.last_move_at is not None else table.created_at
            if table.playing.to_move != seat or self._clock() - since < hours * HOUR:
                raise HostError("host.error.not_overdue", name=table.seats[seat].name, hours=f"{hours:g}")
            return await self._set_away(table, seat, True)

    async def _set_away(self, table: Table, seat: int, away: bool) -> SeatChange:
        place = table.seats[seat]
        if place.away == away:
            raise HostError("host.error.already_away" if away else "host.error.not_away")
        user_id = place.user_id
        assert user_id is not None  # a person's seat
        seats = list(table.seats)
        seats[seat] = place = replace(place, away=away)
        offer_withdrawn: list[NewDelivery] = []
        if not away:  # the seat's own person back first: an offer to take it is withdrawn
            seats, offer_withdrawn = takeover.withdrawn(table, seats, seat)
        changed = replace(table, seats=seats)
        reminder, reminders = self.reminders.timers(table, table.playing, table.seq, self._clock(), seats)
        to_move = table.playing.to_move
        change = SeatChange(info=replace(changed, next_reminder_at=reminder).info(), seat=seat, name=place.name,
                            user_id=user_id, away=away,
                            computer_to_move=to_move is not None and seats[to_move].computer_plays)
        owed = [NewDelivery(SEAT_POST, table.seq, payload=change.to_payload()), *offer_withdrawn]
        if not away and to_move == seat:
            owed.append(NewDelivery(TURN_DM, table.seq, user_id, {"start": False, "hand_changed": False}))
        timers, cancel = deadlines.retimed(table, seats, self._clock())
        await self.games.write(table, Change({"next_reminder_at": reminder}, deliveries=owed,
                                             timers=[*timers, *reminders],
                                             cancel_timers=[*cancel, *REMINDER_KINDS,
                                                            *([TAKEOVER_LAPSE] if offer_withdrawn else [])]),
                               seats=seats)
        return change

    def check_not_paused(self, table: Table) -> None:
        """Refuse any move while a vacation pause holds the game, saying whose vacation and until when."""
        pause = pause_of(table)
        if pause is not None:
            name, until = pause
            raise HostError("host.error.paused", name=name, until=int(until))

    def public_view(self, channel_id: int) -> View:
        """What everyone may see of the channel's (current or last) game."""
        return self.games.started(channel_id)[1].view(None)

    def view_for(self, channel_id: int, user_id: int, *, since: bool = False) -> View:
        """The user's own seat view (their cards, chips and legal moves), or the public view if not seated;
        ``since``: with what happened since their own last move (``view["you"]["since"]``).

        The only way secrets reach the cog: send it to that user alone (ephemeral or DM).
        """
        table, game = self.games.started(channel_id)
        return game.view(table.seat_of(user_id), since=since)

    def legal_moves(self, channel_id: int, user_id: int, prefix: str = "") -> list[str]:
        """The user's legal moves now (for autocomplete and buttons): empty unless it is their turn and
        they play their seat themselves. ``prefix`` filters by the start of the notation."""
        table = self.games.live(channel_id)
        seat = table.seat_of(user_id) if table is not None else None
        if table is None or seat is None or table.seats[seat].computer_plays or table.playing.to_move != seat:
            return []
        prefix = prefix.strip().lower()
        return [m for m in map(str, table.playing.legal_moves()) if m.lower().startswith(prefix)]


def _unasked(owed: list[NewDelivery], result: MoveResult, user_id: int | None,
             undone: str | None) -> list[NewDelivery]:
    """``owed`` without the turn DM to a person whose own move leaves them to move (a double move's card, its first
    build) and changed nothing they did not do: the rest of their turn comes in the answer to that move (the
    clicked DM edited in place, or the command's reply, with the controls). A computer's or a stand-in's move, an
    undo and a hand changed by a deal keep their DM."""
    if user_id is None or undone is not None or result.to_move_user_id != user_id or user_id in result.dm_user_ids:
        return owed
    return [d for d in owed if not (d.kind == TURN_DM and d.user_id == user_id)]


def _passed(old: Game, new: Game, seat: int, undone: str | None) -> int | None:
    """The seat whose turn passed with this change: the mover's once its turn is over (not after a double move's
    card or first build), the seat that was to move when an undo gives the turn back to another; else ``None``."""
    if undone is not None:
        return old.to_move if old.to_move is not None and old.to_move != new.to_move else None
    return seat if new.pending is None or new.is_over() else None


def _turn_moves(old: Game, new: Game) -> tuple[str, ...]:
    """The moves of the turn that ``new``'s last move ends: a double move's card and its builds, else that move."""
    moves = [m for _, m in new.moves]
    if old.pending is None:
        return (moves[-1],)
    start = max(i for i, m in enumerate(moves) if parse_move(m).verb == "double")
    return tuple(moves[start:])


_DEALT: Final = frozenset({"draw"})
"""Events that give a seat a card it did not choose (the deal of round 2), even in its own move."""


def _secret(game: Game, seat: int) -> tuple[Any, ...]:
    """What only ``seat`` holds (its scoring cards, bird chips, the card it put back: what its view's ``you`` shows of
    them), to tell if it changed, read from the game without drawing the seat's whole view; where it may build is not
    part of it (that changes whenever the turn passes, and comes with the turn DM)."""
    return sorted(game.hand_scoring[seat]), list(game.birds[seat]), game.discarded[seat]
