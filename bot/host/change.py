"""One change to a stored game, as the store writes it: :class:`Change`.

Every write to an existing game goes through the store's one ``apply(game_id, change, now=, expect_version=)``, which
writes the whole change in ONE transaction or nothing: the game's columns (seats and options as Python values, the state
as its JSON snapshot), the move appended to the log (with the time its turn took), the posts and DMs the change owes,
the timers it cancels and sets, the results of a finished game, and the timer whose firing made the change (marked
done). The host's :class:`bot.host.games.Games` builds it and adopts it in memory only after the store committed it.

This module imports nothing of ``bot.host`` but :mod:`bot.host.model` and :mod:`bot.host.ratings` (values only).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.host.model import MoveRow, NewDelivery, NewTimer, TurnTime
from bot.host.ratings import SeatResult


@dataclass(frozen=True, slots=True)
class Change:
    """What one write changes; every part is optional (an empty change only bumps the game's version)."""

    columns: Mapping[str, Any] = field(default_factory=dict)
    """Columns of ``games`` to set (``seats``, ``options`` as Python values; ``state`` as JSON text)."""
    move: MoveRow | None = None
    """A move (or an undo) appended to the log; a clash on its number or interaction is a ``MoveConflict``."""
    deliveries: Sequence[NewDelivery] = ()
    """The channel posts and DMs the change owes."""
    timers: Sequence[NewTimer] = ()
    """Timers the change sets (after cancelling :attr:`cancel_timers`)."""
    cancel_timers: Sequence[str] = ()
    """Kinds of the game's pending timers the change cancels."""
    results: Sequence[SeatResult] = ()
    """A finished game's results, with the ratings and standings they change."""
    turn_time: TurnTime | None = None
    """The time the person took for the turn :attr:`move` ends."""
    untimed: int | None = None
    """The number of a move an undo takes back: its turn's time, if it has one, is removed."""
    timer: int | None = None
    """The id of the timer whose firing this is: marked done with the change (``VersionConflict`` if it is done
    already). A timer's change without columns or move leaves the game's row (and version) as it is."""

    @property
    def touches_game(self) -> bool:
        """Whether the write sets the game's row (and bumps its version)."""
        return bool(self.columns) or self.move is not None or self.timer is None
