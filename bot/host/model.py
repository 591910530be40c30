"""The host's values: every row the stores read and write, as plain dataclasses (no I/O, no database).

:class:`GameRow` (a ``games`` row, seats and options decoded), :class:`MoveRow` (the append-only move log),
:class:`DeliveryRow` and :class:`NewDelivery` (the outbox: what a change owes Discord), :class:`TimerRow` and
:class:`NewTimer` (every "later": deadlines, vacations, idle tables), :class:`DamagedGame` (a quarantined game).
The game at its table and the host's answers are :mod:`bot.host.table`. This module imports nothing else of
``bot.host``, so that any part (and the stores) can use it.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Self

UNDO: Final = "undo"
"""The ``move`` text of a row that takes back the move before it."""

STATUSES: Final = ("lobby", "running", "over", "abandoned", "damaged")
OPEN_STATUSES: Final = ("lobby", "running")
COMPUTER: Final = "computer"
PERSON: Final = "person"
NOBODY: Final = "nobody"
"""What ``games.waits_for`` holds: whose move a game waits for (a computer's, a person's, nobody's: a lobby, a game
paused or over); ``NULL`` for a game stored before the column (:func:`bot.host.memory.waits_for`)."""


@dataclass(slots=True)
class GameRow:
    """One row of ``games``; ``seats`` and ``options`` decoded from JSON."""

    id: int
    channel_id: int
    guild_id: int | None
    opener_id: int
    seats: list[dict[str, Any]]
    options: dict[str, Any]
    seed: int = field(repr=False)
    status: str
    locale: str
    created_at: float
    updated_at: float
    last_move_at: float | None = None
    state: str | None = field(default=None, repr=False)
    next_reminder_at: float | None = None
    version: int = 0
    """Bumped by every write of the game: a process compares it with its cached copy (several processes)."""
    last_message_id: int | None = None
    """The game's latest post in its channel (the start or a move), once delivered."""
    parent_id: int | None = None
    """The channel whose thread the game has for its channel (``channel_id``), or ``None``."""


@dataclass(frozen=True, slots=True)
class DamagedGame:
    """A game quarantined because its stored rows cannot be played on."""

    game_id: int
    channel_id: int
    locale: str
    reason: str
    """What is damaged: ``seats``, ``options`` or ``log``."""
    detail: str
    """The first fault found, for the log (never a seed or a secret)."""


@dataclass(frozen=True, slots=True)
class MoveRow:
    """One row of ``moves``: a move (or an undo) as it was made."""

    game_id: int
    seq: int
    seat: int
    user_id: int | None
    move: str
    interaction_id: int | None
    created_at: float


@dataclass(frozen=True, slots=True)
class TurnTime:
    """One row of ``turn_times``: the seconds a person took for the turn their move ``seq`` ended
    (:mod:`bot.host.turn_times`)."""

    game_id: int
    seq: int
    guild_id: int | None
    user_id: int
    seconds: float
    moved_at: float


@dataclass(frozen=True, slots=True)
class NewDelivery:
    """A delivery a change owes, to be written with it: ``payload`` holds public facts only."""

    kind: str
    seq: int
    user_id: int | None = None
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class NewTimer:
    """A timer a change sets, written with it: at ``due_at`` the host's handler for ``kind`` runs once.
    ``payload`` holds public facts only (JSON)."""

    kind: str
    due_at: float
    seat: int | None = None
    user_id: int | None = None
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TimerRow:
    """One pending timer of ``timers``; ``payload`` decoded from JSON."""

    id: int
    game_id: int
    channel_id: int
    kind: str
    seat: int | None
    user_id: int | None
    payload: dict[str, Any]
    created_at: float
    due_at: float

    @classmethod
    def read(cls, row: Mapping[str, Any]) -> Self:
        """The row as the database gave it (its payload JSON text)."""
        return cls(**{**row, "payload": json.loads(row["payload"])})


@dataclass(frozen=True)
class DeliveryRow:
    """One row of ``deliveries``; ``payload`` decoded from JSON when first asked for (a channel's pending deliveries
    are read at every step of its outbox, and most are not sent in that step). ``done_at`` is ``None`` while
    pending."""

    id: int
    game_id: int
    channel_id: int
    seq: int
    kind: str
    user_id: int | None
    payload_json: str
    created_at: float
    due_at: float
    attempts: int
    done_at: float | None
    last_error: str | None

    @classmethod
    def read(cls, row: Mapping[str, Any]) -> Self:
        """The row as the database gave it (its payload JSON text)."""
        fields = dict(row)
        fields["payload_json"] = fields.pop("payload")
        return cls(**fields)

    @functools.cached_property
    def payload(self) -> dict[str, Any]:
        """The payload, decoded once."""
        decoded: dict[str, Any] = json.loads(self.payload_json)
        return decoded

    def marked(self, key: str) -> Any:
        """The payload's value of ``key`` (``None`` when it has none), decoded only when the payload's text names
        ``key`` at all: a channel's outbox asks each of its pending deliveries whether it is held or waits, at every
        step, and a channel may owe dozens of DMs held for a player's quiet hours."""
        return self.payload.get(key) if f'"{key}"' in self.payload_json else None


def effective_moves(rows: Iterable[MoveRow]) -> list[MoveRow]:
    """The moves that stand after applying the undo rows, in order (``replay`` plays these)."""
    stack: list[MoveRow] = []
    for row in rows:
        if row.move == UNDO:
            if not stack:
                raise ValueError(f"game {row.game_id}: undo at seq {row.seq} has no move to take back")
            stack.pop()
        else:
            stack.append(row)
    return stack
