"""The games' web pages in the database, read and written the same way by both stores (SQLite and PostgreSQL).

The tables are :data:`bot.host.schema.WEB_TABLES`: ``web_pages`` (each game's random token, made the first time a post
links to its page), ``web_servers`` (the servers that keep their games off the web) and ``web_revocations`` (how often
a person's links to their own view were revoked: forget-me raises the number, :func:`revoke_links`, and a link signed
with an older one is refused). :class:`WebStore` is the stores' part for them (a base of
:class:`bot.host.sql.SqlStore`); :class:`WebRows` its interface, which :mod:`bot.host.web` reads through.

Every query is served by a primary key or a unique index: a token, a game, a server, a person.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Final, Protocol

_CHUNK: Final = 500
"""Game ids per ``IN (...)`` list (both databases cap the parameters of one statement)."""


class Sql(Protocol):
    """A connection as these queries use it: ``?`` placeholders, rows as dicts."""

    async def fetch(self, sql: str, *params: Any) -> list[dict[str, Any]]: ...

    async def execute(self, sql: str, *params: Any) -> int: ...


class WebRows(Protocol):
    """What the web pages read and write: tokens, the servers' choice, revocations, and the versions of games."""

    async def web_token(self, game_id: int, token: str, *, now: float) -> str: ...

    async def web_game(self, token: str) -> int | None: ...

    async def set_web_shown(self, guild_id: int, shown: bool, *, now: float) -> None: ...

    async def web_shown(self, guild_id: int) -> bool: ...

    async def link_generation(self, user_id: int) -> int: ...

    async def game_versions(self, game_ids: Sequence[int]) -> dict[int, int]: ...

    async def listen_games(self, callback: Callable[[int], None]) -> bool: ...


class WebStore:
    """The web pages' queries, for both stores (each provides ``_read`` and ``_write`` as :class:`SqlStore` says)."""

    def _read(self) -> AbstractAsyncContextManager[Sql]:
        raise NotImplementedError

    def _write(self) -> AbstractAsyncContextManager[Sql]:
        raise NotImplementedError

    async def web_token(self, game_id: int, token: str, *, now: float) -> str:
        """The game's page token: the one stored, else ``token`` stored now (two processes at once store one)."""
        async with self._write() as db:
            await db.execute("INSERT INTO web_pages (game_id, token, created_at) VALUES (?, ?, ?)"
                             " ON CONFLICT (game_id) DO NOTHING", game_id, token, now)
            rows = await db.fetch("SELECT token FROM web_pages WHERE game_id = ?", game_id)
        return str(rows[0]["token"])

    async def web_game(self, token: str) -> int | None:
        """The game whose page ``token`` is, or ``None``."""
        async with self._read() as db:
            rows = await db.fetch("SELECT game_id FROM web_pages WHERE token = ?", token)
        return int(rows[0]["game_id"]) if rows else None

    async def set_web_shown(self, guild_id: int, shown: bool, *, now: float) -> None:
        """Whether the server's games are on the web (its choice, kept)."""
        async with self._write() as db:
            await db.execute("INSERT INTO web_servers (guild_id, shown, updated_at) VALUES (?, ?, ?)"
                             " ON CONFLICT (guild_id) DO UPDATE SET shown = excluded.shown,"
                             " updated_at = excluded.updated_at", guild_id, int(shown), now)

    async def web_shown(self, guild_id: int) -> bool:
        """Whether the server lets its games be on the web (yes unless it chose otherwise)."""
        async with self._read() as db:
            rows = await db.fetch("SELECT shown FROM web_servers WHERE guild_id = ?", guild_id)
        return not rows or bool(rows[0]["shown"])

    async def link_generation(self, user_id: int) -> int:
        """How often the person's links to their own view were revoked (0: never); a link carries the number."""
        async with self._read() as db:
            rows = await db.fetch("SELECT generation FROM web_revocations WHERE user_id = ?", user_id)
        return int(rows[0]["generation"]) if rows else 0

    async def game_versions(self, game_ids: Sequence[int]) -> dict[int, int]:
        """Game id -> its version (every write bumps it), for the games of ``game_ids`` that exist."""
        found: dict[int, int] = {}
        ids = sorted(set(game_ids))
        async with self._read() as db:
            for start in range(0, len(ids), _CHUNK):
                chunk = ids[start:start + _CHUNK]
                rows = await db.fetch(f"SELECT id, version FROM games WHERE id IN ({', '.join('?' * len(chunk))})",
                                      *chunk)
                found.update((int(r["id"]), int(r["version"])) for r in rows)
        return found

    async def listen_games(self, callback: Callable[[int], None]) -> bool:
        """Call ``callback(game_id)`` whenever any process changes a game; ``False`` where the database cannot tell
        (SQLite, one process: the caller polls :meth:`game_versions`)."""
        return False


async def revoke_links(db: Sql, user_id: int) -> None:
    """Refuse every link to the person's own view made so far (inside forget-me's transaction)."""
    await db.execute("INSERT INTO web_revocations (user_id, generation) VALUES (?, 1)"
                     " ON CONFLICT (user_id) DO UPDATE SET generation = web_revocations.generation + 1", user_id)
