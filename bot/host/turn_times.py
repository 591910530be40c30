"""How long a person takes for their turn: measured when their move ends it, stored with the move, summed up as
a median and a 90th percentile per person and server.

A turn's time runs from the moment it became the person's turn (the last row of the move log by another seat:
a move, or an undo that gave the turn back) to the move that ends it (the last build of a double move). Not
counted: the person's own quiet hours (their time zone and hours as they are set when they move), their own
vacations in the game, and every pause of the game by someone's vacation (:attr:`bot.host.table.Seat.breaks`
keeps the past ones). Moves the computer makes for a person (away, a vacation, a turn deadline) have no time;
nor has a turn whose start the log cannot tell (the first player taking back their first move). An undo takes
the undone move's time away in the same transaction, so a turn played again counts once.

Pure functions: :class:`bot.host.play.Play` measures a turn with them, the store writes the
:class:`bot.host.model.TurnTime` with the move (:class:`bot.host.change.Change`), and
:func:`bot.host.history_store.turn_speed` reads a person's :class:`bot.host.history_store.TurnSpeed`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bot.host.model import MoveRow
from bot.host.table import Seat
from bot.host.user_settings import UserSettings, quiet_windows


def turn_start(log: Sequence[MoveRow], seat: int, started_at: float | None) -> float | None:
    """When it became ``seat``'s turn: the time of the log's last row by another seat; ``started_at`` (the game's
    start) when the log is empty; ``None`` when every row is the seat's own (its start is not in the log)."""
    for row in reversed(log):
        if row.seat != seat:
            return row.created_at
    return started_at if not log else None


def breaks(seats: Sequence[Seat], seat: int) -> list[tuple[float, float]]:
    """The spans of time that do not count for ``seat``: its own vacations, and the pauses of everyone's."""
    spans = []
    for number, place in enumerate(seats):
        for taken in place.breaks:
            if number == seat:
                spans.append((float(taken["since"]), float(taken["end"])))
            elif taken.get("paused_from") is not None:
                spans.append((float(taken["paused_from"]), float(taken["end"])))
    return spans


def turn_seconds(start: float, end: float, settings: UserSettings, off: Iterable[tuple[float, float]]) -> float:
    """The seconds from ``start`` to ``end`` outside the person's quiet hours and the spans ``off``."""
    spans = sorted((max(a, start), min(b, end)) for a, b in [*off, *quiet_windows(settings, start, end)]
                   if min(b, end) > max(a, start))
    excluded, reach = 0.0, start
    for a, b in spans:  # the union's length
        if b > reach:
            excluded += b - max(a, reach)
            reach = b
    return max(0.0, end - start - excluded)
