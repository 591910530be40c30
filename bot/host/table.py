"""The host's data: a :class:`Table` is one game in one channel, and the frozen answers the host gives.

A table's seats, options and status live in the ``games`` row of the database; its move log in
``moves``; its engine state is rebuilt from them (see :mod:`bot.host.sql`). Nothing here knows Discord:
users are plain integer ids, texts are message-catalogue keys.

A finished table is unloaded (:meth:`Table.unload`): its engine state and move log make way for a
compressed snapshot (about 1.5 KB instead of about 60 KB), from which :meth:`Table.current_game`
rebuilds the game when someone looks at the board, the status or the log of that last game.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar, Final, Protocol, Self, cast, runtime_checkable

from bot.host.model import MoveRow
from engine import Event, Game, View, parse_move
from engine.types import ScoreBreakdown

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


class _Stored:
    """A dataclass stored as JSON just as it is: its fields by name (a mixin of slots dataclasses)."""

    __slots__ = ()

    def to_dict(self: DataclassInstance) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        return cls(**data)


@dataclass(slots=True)
class Seat(_Stored):
    """A place at the table: a person (``user_id``) or a computer player (``user_id`` is ``None``)."""

    user_id: int | None
    name: str
    strength: str | None = None
    """A computer seat's strength (random, greedy, expert, master); ``None`` for a person."""
    away: bool = False
    """A person whose seat the computer plays for the rest of the game (until they come back)."""
    reminded_at: float | None = None
    """When this seat's player was last reminded that it is their turn."""
    vacation: dict[str, Any] | None = None
    """The player's vacation in this game, as stored (read it with :func:`bot.host.vacation.vacation_of`)."""
    timeouts: int = 0
    """How often this seat's turn ran past the game's deadline (the computer moved for it)."""
    offer: dict[str, Any] | None = None
    """Someone's offer to take this seat while the computer plays it for its person (``user_id``, ``name``,
    ``at``), waiting for the opener (:mod:`bot.host.takeover`)."""
    former: list[dict[str, Any]] = field(default_factory=list)
    """The people who played this seat before a take-over: ``user_id``, ``name``, and ``until``, the number of
    moves the log had when they left it."""
    breaks: list[dict[str, Any]] = field(default_factory=list)
    """The player's past vacations in this game: ``since`` and ``end``, and ``paused_from`` when the others
    paused the game for it (else ``None``); their turns' times leave these out (:mod:`bot.host.turn_times`)."""

    @property
    def is_computer(self) -> bool:
        return self.user_id is None

    @property
    def computer_plays(self) -> bool:
        """Whether the computer makes this seat's moves now (a computer seat, away, or on a vacation the others
        left to the computer)."""
        return self.user_id is None or self.away or self.vacation_state == "computer"

    @property
    def vacation_state(self) -> str | None:
        """``vote``, ``pause`` or ``computer`` while the player is on vacation in this game, else ``None``."""
        return None if self.vacation is None else str(self.vacation.get("state"))


def paused(seats: Sequence[Seat]) -> bool:
    """Whether a vacation pause holds the game."""
    return any(s.vacation_state == "pause" for s in seats)


@dataclass(frozen=True, slots=True)
class Options(_Stored):
    """What the opener chose for a game, and the time limits it was opened with."""

    draft: bool = False
    """Players choose their building-card sets instead of being dealt them."""
    locale: str = "en"
    """The game's language: en, de or fr."""
    reminder_hours: float = 12.0
    away_hours: float = 48.0
    replay: bool = True
    """Post an animated replay of the whole game in the channel at game over."""
    deadline_hours: int = 0
    """A person's turn deadline (hours; 0: none): a warning at 75 %, the computer moves for them at 100 %."""
    hints: bool = False
    """Players may ask the coach on their turn (``/santacruz hint``); such a game is not rated."""
    web: bool = True
    """The game has a web page (``/santacruz new web:false``: none; :mod:`bot.host.web`)."""


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """A seat as anyone may see it."""

    seat: int
    user_id: int | None
    name: str
    is_computer: bool
    strength: str | None
    away: bool
    vacation: str | None = None
    """``vote``, ``pause`` or ``computer`` while the player is on vacation, else ``None``."""
    vacation_until: float | None = None
    """When that vacation ends."""
    offered_to: str | None = None
    """The name of someone who offered to take this seat, while the opener has not confirmed it."""
    former: tuple[str, ...] = ()
    """The names of the people who played this seat before it was taken over, first first."""
    former_moves: tuple[int | None, ...] = ()
    """For each of ``former``, the number of moves the game had when they left the seat (``None``: not known)."""


@dataclass(frozen=True, slots=True)
class Wake:
    """What the adapter must do after an answer that changed a game: deliver the posts and DMs stored for
    ``channel_id``, and let its computers move when ``computers`` (one is to move)."""

    channel_id: int
    computers: bool = False


@runtime_checkable
class Answer(Protocol):
    """An answer of the host that changed a game (a move, a start, a seat change, a vacation, a timer's change)."""

    @property
    def wake(self) -> Wake: ...


@dataclass(frozen=True, slots=True)
class TableInfo:
    """A game's public facts: for lobby messages, status commands and listings. Never holds the seed."""

    game_id: int
    channel_id: int
    guild_id: int | None
    status: str
    """``lobby``, ``running``, ``over`` or ``abandoned``."""
    opener_id: int
    seats: tuple[SeatInfo, ...]
    draft: bool
    locale: str
    seq: int
    """Rows in the game's move log (moves and undos): put it in button ids to tell outdated clicks apart."""
    to_move: int | None
    """The seat to move while running, else ``None``."""
    created_at: float
    last_move_at: float | None
    """Time of the last move, or of the start before the first move."""
    deadline_hours: int = 0
    """The turn deadline chosen at ``new`` (0: none)."""
    hints: bool = False
    """Players may ask the coach on their turn (chosen at ``new``); the game is not rated."""
    parent_id: int | None = None
    """For a game in a thread of its own (``channel_id``), the channel the thread is in."""

    @property
    def paused(self) -> bool:
        """Whether a vacation pause holds the game (nobody can move)."""
        return any(s.vacation == "pause" for s in self.seats)

    @property
    def opener_name(self) -> str:
        return next((s.name for s in self.seats if s.user_id == self.opener_id), "")

    @property
    def humans(self) -> tuple[int, ...]:
        """User ids of the seated people, in seat order."""
        return tuple(s.user_id for s in self.seats if s.user_id is not None)

    @property
    def wake(self) -> Wake:
        return Wake(self.channel_id)

    def to_payload(self) -> dict[str, Any]:
        """The public facts as JSON-shaped data (for a delivery's payload)."""
        return asdict(self)

    @classmethod
    def from_payload(cls, data: dict[str, Any]) -> TableInfo:
        return cls(**{**data, "seats": tuple(SeatInfo(**{**s, "former": tuple(s.get("former", ())),
                                                         "former_moves": tuple(s.get("former_moves", ()))})
                                             for s in data["seats"])})


class Waking:
    """An answer that wakes its channel: deliver what it owes, and let the computers move when
    ``computer_to_move`` (a mixin of slots dataclasses with these two fields)."""

    __slots__ = ()
    channel_id: int
    computer_to_move: bool

    @property
    def wake(self) -> Wake:
        return Wake(self.channel_id, self.computer_to_move)


class _SeatsAnswer:
    """An answer about a table's seats (a start, a seat change): it wakes the channel of its ``info``, and is a
    delivery's payload with ``info`` nested and the fields named in ``TUPLES`` as lists."""

    __slots__ = ()
    TUPLES: ClassVar[tuple[str, ...]] = ()
    info: TableInfo
    computer_to_move: bool

    @property
    def wake(self) -> Wake:
        return Wake(self.info.channel_id, self.computer_to_move)

    def to_payload(self) -> dict[str, Any]:
        return {**_fields_of(cast("DataclassInstance", self)), "info": self.info.to_payload()}

    @classmethod
    def from_payload(cls, data: dict[str, Any]) -> Self:
        return cls(**{**_tuples(cls, data), "info": TableInfo.from_payload(data["info"])})


def _fields_of(answer: DataclassInstance) -> dict[str, Any]:
    """An answer's fields by name, their values shared, for a delivery's payload, which is written as JSON at once:
    ``asdict``'s deep copy of the view cost more than a move's rules (with the JSON: 2.9 ms against 0.26 ms for a
    4-player view in round 1, measured)."""
    return {f.name: getattr(answer, f.name) for f in fields(answer)}


def _tuples(cls: type[_SeatsAnswer | MoveResult], data: dict[str, Any]) -> dict[str, Any]:
    """A payload with the lists of the fields ``cls.TUPLES`` names as tuples (a ``None`` stays ``None``)."""
    return {**data, **{k: tuple(data[k]) if data[k] is not None else None for k in cls.TUPLES}}


@dataclass(frozen=True, slots=True)
class StartResult(_SeatsAnswer):
    """The answer to a start: post the public view, mention who moves, DM every person their hand."""

    info: TableInfo
    view: View
    """The public view (``Game.view(None)``)."""
    to_move: int
    to_move_user_id: int | None
    """The user to mention; ``None`` when a computer moves first."""
    computer_to_move: bool
    """True: call :meth:`bot.host.computers.Computers.run_computers` now."""
    dm_user_ids: tuple[int, ...]
    """Every seated person: each gets their own seat view (``host.play.view_for``) by DM."""

    TUPLES: ClassVar = ("dm_user_ids",)


@dataclass(frozen=True, slots=True)
class MoveResult(Waking):
    """Everything one channel message after a move (or an undo) needs, and whom to DM."""

    game_id: int
    channel_id: int
    locale: str
    seq: int
    """This row's number in the move log; the next button id uses it."""
    seat: int
    name: str
    user_id: int | None
    """The mover's user (an away person's id too); ``None`` for a computer seat."""
    by_computer: bool
    """The computer chose this move (a computer seat, or a person who is away)."""
    move: str
    """The move in notation; for an undo, the move taken back."""
    undo: bool
    events: list[Event]
    """Public events of the move, in order (empty for an undo)."""
    view: View
    """The public view after the move."""
    to_move: int | None
    to_move_name: str | None
    to_move_user_id: int | None
    """The user to mention: ``None`` when the game is over or the computer plays the next seat."""
    computer_to_move: bool
    """True: call :meth:`bot.host.computers.Computers.run_computers` (unless already iterating it)."""
    secret_changed: tuple[int, ...]
    """Seats whose secret cards, bird chips or discard changed."""
    dm_user_ids: tuple[int, ...]
    """The people among ``secret_changed`` who did not change it themselves (a mover's own move changes only what
    they did; a card dealt to them, or a move the computer made for them, did not come from them): each gets their
    hand (``host.play.view_for``) by DM."""
    game_over: bool
    ranking: tuple[int, ...] | None
    """Seats first to last when the game is over."""
    replay: bool = False
    """The game-over post carries the animated replay of the whole game (the game's options ask for it)."""
    undoable: bool = False
    """The mover may take this move back now (a person's own move that revealed nothing hidden): its post offers
    *Undo* until the next post."""
    hints: bool = False
    """The game has hints on (its post says so)."""
    turn_moves: tuple[str, ...] = ()
    """The moves of the turn this move ends, in order (a double move's card and its builds; else the move alone);
    empty while the turn goes on, and for an undo."""
    passed_user_id: int | None = None
    """The person whose turn passed with this change (they moved, the computer moved for them, an undo took it
    back): their turn DM is told so."""
    former: tuple[tuple[str, ...], ...] = ()
    """Per seat, the names of the people who played it before someone took it over (first first); empty when
    nobody took a seat over (the game-over post names them all)."""

    TUPLES: ClassVar = ("secret_changed", "dm_user_ids", "ranking", "turn_moves", "former")

    def to_payload(self) -> dict[str, Any]:
        """The public facts as JSON-shaped data: the card put back in round 2 stays secret."""
        data = _fields_of(self)
        if parse_move(self.move).verb == "discard":
            data["move"] = "discard"
        data["turn_moves"] = ["discard" if parse_move(m).verb == "discard" else m for m in self.turn_moves]
        return data

    @classmethod
    def from_payload(cls, data: dict[str, Any]) -> MoveResult:
        return cls(**_tuples(cls, data))


@dataclass(frozen=True, slots=True)
class SeatChange(_SeatsAnswer):
    """The answer to away, back and hand-over."""

    info: TableInfo
    seat: int
    name: str
    user_id: int
    away: bool
    computer_to_move: bool
    """True: call :meth:`bot.host.computers.Computers.run_computers` now."""


HOUR: Final = 3600.0
"""Seconds in an hour: every time of the host is in seconds since the epoch."""
DAY: Final = 24 * HOUR
DEADLINE_HOURS: Final = (0, 12, 24, 48, 72)
"""The turn deadlines ``/santacruz new`` offers (0: none; ``bot.host.deadlines``)."""

@dataclass(frozen=True, slots=True)
class PastGame:
    """A finished game of a server as its history shows it: public facts only."""

    game_id: int
    channel_id: int
    guild_id: int | None
    finished_at: float
    names: tuple[str, ...]
    computers: tuple[bool, ...]
    """Per seat: a computer seat."""
    scores: tuple[int, ...]
    """Final scores per seat."""
    ranking: tuple[int, ...]
    """Seats first to last (ties broken by the engine's ranking)."""
    locale: str
    over_message_id: int | None
    """The game-over post in ``channel_id``, once delivered."""
    view: View | None = None
    """The final public view (for ``/santacruz history id:``); ``None`` in a history listing."""
    breakdown: tuple[ScoreBreakdown, ...] = ()
    """Per seat, where its points came from (:func:`engine.history.score_breakdown`), with the view."""

    @property
    def winner(self) -> str:
        return self.names[self.ranking[0]]


@dataclass(frozen=True, slots=True)
class Reminder:
    """A due turn reminder (:meth:`bot.host.reminders.Reminders.due`); :meth:`bot.host.reminders.Reminders.mark`
    fires its timer, which writes the reminder DM to the outbox.

    ``locale`` is the game's language; the DM goes out in the player's own when the bot knows it
    (:meth:`bot.host.people.People.locale_of`).
    """

    game_id: int
    channel_id: int
    guild_id: int | None
    locale: str
    seq: int
    seat: int
    user_id: int
    name: str
    waiting_since: float


@dataclass(eq=False)
class Table:
    """One game in one channel, as the host holds it in memory (the database has the same facts)."""

    id: int
    channel_id: int
    guild_id: int | None
    opener_id: int
    seats: list[Seat]
    options: Options
    seed: int = field(repr=False)
    status: str
    created_at: float
    last_move_at: float | None = None
    next_reminder_at: float | None = None
    version: int = 0
    parent_id: int | None = None
    """For a game in a thread of its own (``channel_id``), the channel the thread is in."""
    """The stored game's version this table reflects (every write bumps it; another process may have)."""
    game: Game | None = field(default=None, repr=False)
    log: list[MoveRow] = field(default_factory=list, repr=False)
    """The move log (undo rows included), as stored; emptied when the table is unloaded."""
    packed: bytes | None = field(default=None, repr=False)
    """The finished game's snapshot, zlib-compressed, once the table is unloaded (``game`` is then None)."""
    packed_seq: int = 0
    """The length of the move log when the table was unloaded."""

    @property
    def seq(self) -> int:
        return self.packed_seq if self.packed is not None else len(self.log)

    def unload(self) -> None:
        """Keep a finished table small: the game and its move log give way to a compressed snapshot."""
        if self.game is None:
            return
        self.packed_seq = len(self.log)
        self.packed = zlib.compress(self.game.to_json().encode())
        self.game, self.log = None, []

    @property
    def playing(self) -> Game:
        """The running game in memory (a running table always has one; an unloaded one has ended)."""
        assert self.game is not None, f"table {self.id} has no game in memory"
        return self.game

    @property
    def to_move(self) -> int | None:
        """The seat to move in the running game, else ``None``."""
        return self.game.to_move if self.game is not None and self.status == "running" else None

    def current_game(self) -> Game | None:
        """The game: the one in memory, or rebuilt from the snapshot of an unloaded table."""
        if self.game is None and self.packed is not None:
            return Game.from_json(zlib.decompress(self.packed).decode())
        return self.game

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    def seat_of(self, user_id: int) -> int | None:
        return next((i for i, s in enumerate(self.seats) if s.user_id == user_id), None)

    def seats_json(self) -> list[dict[str, Any]]:
        return [s.to_dict() for s in self.seats]

    def info(self) -> TableInfo:
        return TableInfo(
            game_id=self.id,
            channel_id=self.channel_id,
            guild_id=self.guild_id,
            status=self.status,
            opener_id=self.opener_id,
            seats=tuple(SeatInfo(i, s.user_id, s.name, s.is_computer, s.strength, s.away, s.vacation_state,
                                 float(s.vacation["until"]) if s.vacation is not None else None,
                                 str(s.offer["name"]) if s.offer is not None else None,
                                 tuple(str(f["name"]) for f in s.former),
                                 tuple(f.get("moves") for f in s.former))
                        for i, s in enumerate(self.seats)),
            draft=self.options.draft,
            locale=self.options.locale,
            seq=self.seq,
            to_move=self.to_move,
            created_at=self.created_at,
            last_move_at=self.last_move_at,
            deadline_hours=self.options.deadline_hours,
            hints=self.options.hints,
            parent_id=self.parent_id,
        )
