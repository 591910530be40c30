"""The store's web pages (:class:`WebSql`): the tables are :data:`bot.host.schema.WEB_TABLES`: ``web_pages`` (each
game's random token, made the first time a post links to its page), ``web_servers`` (the servers that keep their games
off the web) and ``web_revocations`` (how often a person's links to their own view were revoked: forget-me raises the
number, :func:`bot.host.history_store.revoke_links`, and a link signed with an older one is refused).
:mod:`bot.host.web` reads them through ``bot.host.stores.WebRows``.

Every query is served by a primary key or a unique index: a token, a game, a server, a person.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.host.sql.base import CHUNK, SqlBase, placeholders


class WebSql(SqlBase):
    """Page tokens, the servers' choice, revocations, and the versions of games."""

    async def web_token(self, game_id: int, token: str, *, now: float) -> str:
        """The game's page token: the one stored, else ``token`` stored now (two processes at once store one)."""
        async with self._write() as db:
            await db.execute(
                """
                INSERT INTO web_pages (game_id, token, created_at)
                VALUES (?, ?, ?)
                ON CONFLICT (game_id) DO NOTHING
                """,
                game_id, token, now)
            rows = await db.fetch("SELECT token FROM web_pages WHERE game_id = ?", game_id)
        return str(rows[0]["token"])

    async def web_game(self, token: str) -> int | None:
        """The game whose page ``token`` is, or ``None``."""
        rows = await self._fetch("SELECT game_id FROM web_pages WHERE token = ?", token)
        return int(rows[0]["game_id"]) if rows else None

    async def set_web_shown(self, guild_id: int, shown: bool, *, now: float) -> None:
        """Whether the server's games are on the web (its choice, kept)."""
        await self._execute(
            """
            INSERT INTO web_servers (guild_id, shown, updated_at)
            VALUES (?, ?, ?)
            ON CONFLICT (guild_id) DO UPDATE
            SET shown = excluded.shown, updated_at = excluded.updated_at
            """,
            guild_id, int(shown), now)

    async def web_shown(self, guild_id: int) -> bool:
        """Whether the server lets its games be on the web (yes unless it chose otherwise)."""
        rows = await self._fetch("SELECT shown FROM web_servers WHERE guild_id = ?", guild_id)
        return not rows or bool(rows[0]["shown"])

    async def link_generation(self, user_id: int) -> int:
        """How often the person's links to their own view were revoked (0: never); a link carries the number."""
        rows = await self._fetch("SELECT generation FROM web_revocations WHERE user_id = ?", user_id)
        return int(rows[0]["generation"]) if rows else 0

    async def game_versions(self, game_ids: Sequence[int]) -> dict[int, int]:
        """Game id -> its version (every write bumps it), for the games of ``game_ids`` that exist."""
        found: dict[int, int] = {}
        ids = sorted(set(game_ids))
        async with self._read() as db:
            for start in range(0, len(ids), CHUNK):
                chunk = ids[start:start + CHUNK]
                rows = await db.fetch(f"SELECT id, version FROM games WHERE id IN ({placeholders(chunk)})", *chunk)
                found.update((int(r["id"]), int(r["version"])) for r in rows)
        return found

    async def listen_games(self, callback: Callable[[int], None]) -> bool:
        """Call ``callback(game_id)`` whenever any process changes a game; ``False`` where the database cannot tell
        (SQLite, one process: the caller polls :meth:`game_versions`)."""
        return False
