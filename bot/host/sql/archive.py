"""The store's archive (:class:`ArchiveSql`): finished games and players' history (results, ratings, leaderboards,
how fast each person moves, forgetting a person), whose queries are :mod:`bot.host.history_store`'s."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.host import history_store
from bot.host.history_store import Forgotten, TurnSpeed
from bot.host.model import GameRow
from bot.host.ratings import Leaderboard, Rating
from bot.host.sql.base import GAMES, SqlBase, placeholders


class ArchiveSql(SqlBase):
    """Finished games and players' history."""

    async def finished_games(self, guild_id: int | None, *, limit: int = 10) -> list[GameRow]:
        """A server's (``None``: direct messages') finished games, newest first (index
        ``games_finished_by_guild``)."""
        return await self._games(f"{GAMES} WHERE guild_id {self.IS} ? AND status = 'over' ORDER BY id DESC LIMIT ?",
                                 guild_id, limit)

    async def over_message_ids(self, game_ids: Sequence[int]) -> dict[int, int]:
        """Game id -> the id of its game-over post, for those of ``game_ids`` whose post was delivered."""
        if not game_ids:
            return {}
        rows = await self._fetch(
            f"""
            SELECT id, over_message_id
            FROM games
            WHERE id IN ({placeholders(game_ids)}) AND over_message_id IS NOT NULL
            """,
            *game_ids)
        return {int(r["id"]): int(r["over_message_id"]) for r in rows}

    async def player_history(self, guild_id: int, user_id: int
                             ) -> tuple[list[dict[str, Any]], dict[str, Rating], dict[str, list[float]]]:
        """A person's results in a server (oldest first), their ratings and each pool's rating history."""
        async with self._read() as db:
            results = await history_store.results_of(db, guild_id, user_id)
            ratings = await history_store.ratings_of(db, guild_id, user_id)
            history = {pool: await history_store.rating_history(db, guild_id, user_id, pool) for pool in ratings}
        return results, ratings, history

    async def turn_speed(self, guild_id: int | None, user_id: int) -> TurnSpeed:
        """How fast a person ends their turns in a server (see ``history_store.turn_speed``)."""
        async with self._read() as db:
            return await history_store.turn_speed(db, guild_id, user_id)

    async def leaderboard(self, guild_id: int, by: str, page: int, user_id: int) -> Leaderboard:
        """One page of a server's leaderboard and the caller's own row (see ``history_store.leaderboard``)."""
        async with self._read() as db:
            return await history_store.leaderboard(db, guild_id, by, page, user_id)

    async def forget_user(self, user_id: int, former_player: dict[str, str]) -> Forgotten:
        """Delete a person's results and ratings, rename their seats in finished games, in one transaction."""
        async with self._write() as db:
            return await history_store.forget(db, user_id, former_player)
