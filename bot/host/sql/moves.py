"""The store's move log (:class:`MoveSql`): append-only, primary key ``(game_id, seq)``, an interaction stored once.
A move is written by :meth:`bot.host.sql.games.GameSql.apply`, with its game's new state, in one transaction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.host.change import Change
from bot.host.errors import MoveConflict
from bot.host.model import MoveRow, NewDelivery, NewTimer
from bot.host.ratings import SeatResult
from bot.host.sql.base import MOVES, KeyClash, SqlBase
from bot.host.sql.games import add_moves


class MoveSql(SqlBase):
    """Reading the move log, and writing a move at its own time (for tools and tests)."""

    async def append_move(self, move: MoveRow, *, deliveries: Sequence[NewDelivery] = (),
                          results: Sequence[SeatResult] = (), timers: Sequence[NewTimer] = (),
                          cancel_timers: Sequence[str] = (), expect_version: int | None = None,
                          **game_columns: Any) -> int:
        """``apply`` of a move at its own time (for tools and tests); returns the game's new version."""
        change = Change(game_columns, move, deliveries, timers, cancel_timers, results)
        version = await self.apply(move.game_id, change, now=move.created_at, expect_version=expect_version)
        assert version is not None
        return version

    async def append_moves(self, moves: Sequence[MoveRow]) -> None:
        """Append ``moves`` (of any games) to the logs in one transaction, leaving the games' rows as they are: for a
        tool that stores games played elsewhere, each game's state then written with ``apply`` (the scale benchmark's
        fill, ``bench/scale_fill.py``). A move stored already is a :class:`bot.host.errors.MoveConflict`."""
        try:
            async with self._write() as db:
                await add_moves(db, moves)
        except KeyClash as exc:
            raise MoveConflict(f"{len(moves)} moves: one is stored already") from exc

    async def moves(self, game_id: int) -> list[MoveRow]:
        """A game's move log in order, undo rows included."""
        return [MoveRow(**r) for r in await self._fetch(f"{MOVES} WHERE game_id = ? ORDER BY seq", game_id)]

    async def move_by_interaction(self, interaction_id: int) -> MoveRow | None:
        """The move stored for a Discord interaction, if any."""
        rows = await self._fetch(f"{MOVES} WHERE interaction_id = ?", interaction_id)
        return MoveRow(**rows[0]) if rows else None
