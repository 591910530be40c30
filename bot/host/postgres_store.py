"""Persistence on PostgreSQL (asyncpg): what differs from SQLite, and nothing else.

Every query is :class:`bot.host.sql.SqlStore`'s, shared with SQLite (its ``?`` placeholders numbered
``$1``, ``$2``, … here, :func:`numbered`); the schema is :mod:`bot.host.schema`'s in PostgreSQL's words
(:data:`bot.host.schema.PG_MIGRATIONS`), versioned in a table ``schema_version`` and migrated under an advisory
lock, so two processes starting together migrate once. What this module adds: a connection pool, transactions,
PostgreSQL's errors mapped to the store's (a unique violation is a ``KeyClash``, which the store names), ``IS NOT
DISTINCT FROM`` and ``FOR UPDATE SKIP LOCKED`` (several processes claiming timers).

Waits are bounded as on SQLite (``BUSY_TIMEOUT``): every connection has ``lock_timeout`` and
``statement_timeout`` set to it, so a statement that waits for a row another session holds (``SELECT … FOR
UPDATE``, a long transaction, an operator's query) fails after that long, as :class:`StorageFailed`, and
nothing was written. Reads never wait for a writer (PostgreSQL's snapshots). Only the schema migration, which
waits for another process's migration, runs without those limits. Install with ``pip install -e ".[postgres]"``.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import TYPE_CHECKING, Any, Final

from bot.host import metrics
from bot.host.errors import StorageFailed, StoreError
from bot.host.schema import PG_MIGRATIONS
from bot.host.sql import BUSY_TIMEOUT, Db, KeyClash, SqlStore

if TYPE_CHECKING:
    import asyncpg

MIGRATION_LOCK: Final = 0x5A17C2
"""The advisory lock key under which migrations run (any constant shared by every process)."""
PG_SCHEMA_VERSION: Final = len(PG_MIGRATIONS)


def _asyncpg() -> Any:
    try:
        import asyncpg
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise StoreError('PostgreSQL needs asyncpg: pip install -e ".[postgres]"') from exc
    return asyncpg


async def migrate_pg(conn: asyncpg.Connection, target: int = PG_SCHEMA_VERSION) -> int:
    """Bring the schema up to version ``target`` under an advisory lock (each step one transaction). The lock
    and statement timeouts are off meanwhile: a process waits for another's migration, however long it takes."""
    await conn.execute("SET lock_timeout = 0; SET statement_timeout = 0")
    await conn.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
    try:
        await conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        version = await conn.fetchval("SELECT max(version) FROM schema_version") or 0
        if version > PG_SCHEMA_VERSION:
            raise StoreError(f"the database has schema version {version}, newer than this bot's "
                             f"{PG_SCHEMA_VERSION}")
        for step in range(version, target):
            async with conn.transaction():
                for statement in PG_MIGRATIONS[step]:
                    await conn.execute(statement)
                await conn.execute("INSERT INTO schema_version (version) VALUES ($1)", step + 1)
        return max(version, target)
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)
        await conn.execute("RESET lock_timeout; RESET statement_timeout")


RELEASED: Final = "santacruz_released"
"""The channel on which a stopping process tells the others that its leases and timer claims are free."""
GAME_CHANGED: Final = "santacruz_game"
"""The channel on which the database itself tells of every committed change to a game, with its id (the trigger of
:data:`bot.host.schema.GAME_NOTICES`)."""

class PostgresStore(SqlStore):
    """The database of one or many bot processes on PostgreSQL. ``await PostgresStore.open(url)``, then
    ``await store.close()``."""

    shared: Final = True
    """Several processes may share the database: the host takes leases for work only one may do."""
    IS = "IS NOT DISTINCT FROM"
    SKIP_LOCKED = " FOR UPDATE SKIP LOCKED"
    NOTIFY_RELEASED = f"SELECT pg_notify('{RELEASED}', ?)"

    def __init__(self, pool: asyncpg.Pool, url: str, busy_timeout: float = BUSY_TIMEOUT) -> None:
        self._pool = pool
        self.url = url
        self.busy_timeout = busy_timeout
        """Seconds a statement may wait for a lock (or run) before it fails as :class:`StorageFailed`."""
        self._listener: asyncpg.Connection | None = None
        self._game_listener: asyncpg.Connection | None = None

    @classmethod
    async def open(cls, url: str, *, min_size: int = 1, max_size: int = 10,
                   busy_timeout: float = BUSY_TIMEOUT) -> PostgresStore:
        """Connect a pool to ``url`` and migrate the schema to the latest version. A statement waits up to
        ``busy_timeout`` seconds for a lock another session holds (and runs at most that long), then fails."""
        asyncpg = _asyncpg()
        try:
            pool = await asyncpg.create_pool(url, min_size=min_size, max_size=max_size,
                                             server_settings=timeouts(busy_timeout))
        except (OSError, asyncpg.PostgresError) as exc:
            raise StoreError(f"cannot connect to PostgreSQL at {_redacted(url)}: {exc}") from exc
        try:
            async with pool.acquire() as conn:
                await migrate_pg(conn)
        except BaseException:
            await pool.close()
            raise
        return cls(pool, url, busy_timeout)

    async def close(self) -> None:
        for name in ("_listener", "_game_listener"):
            listener = getattr(self, name)
            if listener is not None:
                setattr(self, name, None)
                await listener.close()
        await self._pool.close()

    async def listen_released(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` when a process gives its work up (``NOTIFY`` on :data:`RELEASED`), on a connection of
        its own that stays open for it (a pooled one is not held)."""
        asyncpg = _asyncpg()
        try:
            self._listener = await asyncpg.connect(self.url)
            await self._listener.add_listener(RELEASED, lambda *_: callback())
        except (OSError, asyncpg.PostgresError) as exc:
            raise StorageFailed(f"PostgreSQL could not listen for released work: {exc}") from exc

    async def listen_games(self, callback: Callable[[int], None]) -> bool:
        """Call ``callback(game_id)`` for every committed change to a game, by any process (``NOTIFY`` on
        :data:`GAME_CHANGED`, sent by the database's trigger), on a connection of its own kept open for it."""
        asyncpg = _asyncpg()
        try:
            self._game_listener = await asyncpg.connect(self.url)
            await self._game_listener.add_listener(GAME_CHANGED, lambda *args: _game_changed(callback, args[-1]))
        except (OSError, asyncpg.PostgresError) as exc:
            raise StorageFailed(f"PostgreSQL could not listen for changed games: {exc}") from exc
        return True

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[asyncpg.Connection]:
        """One pooled connection (for tools such as the SQLite copy that need their own transaction)."""
        async with self._pool.acquire() as conn:
            yield conn

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[Db]:
        """One transaction; a refused unique key is a :class:`KeyClash` (callers name it), a failure of the
        database :class:`StorageFailed`, and nothing was written."""
        with metrics.DATABASE_SECONDS.labels("write").time():
            asyncpg = _asyncpg()
            with self._failures("write"):
                try:
                    async with self._pool.acquire() as conn, conn.transaction():
                        yield _PgDb(conn)
                except asyncpg.UniqueViolationError as exc:
                    raise KeyClash(str(exc)) from exc

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[Db]:
        """A pooled connection for reads; a failure of the database is :class:`StorageFailed`."""
        with metrics.DATABASE_SECONDS.labels("read").time(), self._failures("read"):
            async with self._pool.acquire() as conn:
                yield _PgDb(conn)

    @asynccontextmanager
    async def _snapshot(self) -> AsyncIterator[Db]:
        """A read-only ``REPEATABLE READ`` transaction: every read sees the moment of its first."""
        with metrics.DATABASE_SECONDS.labels("read").time(), self._failures("read"):
            async with self._pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
                yield _PgDb(conn)

    @contextmanager
    def _failures(self, action: str) -> Iterator[None]:
        """A failure of the database as :class:`StorageFailed` (a statement that waited ``busy_timeout`` for a lock,
        or ran that long, says so: the same refusal as SQLite's "database is locked"), a connection the server cut
        as it was used too (asyncpg's ``InternalClientError``, when the cut came between a statement and its
        answer: the database restarting); any other broken integrity rule is a bug, raised as it is."""
        asyncpg = _asyncpg()
        try:
            yield
        except asyncpg.IntegrityConstraintViolationError:
            raise
        except (asyncpg.LockNotAvailableError, asyncpg.QueryCanceledError) as exc:
            raise StorageFailed(f"PostgreSQL could not {action}: busy for more than {self.busy_timeout:g} s "
                                f"(BUSY_TIMEOUT; another session holds a lock): {exc}") from exc
        except (asyncpg.PostgresError, asyncpg.InterfaceError, asyncpg.InternalClientError, OSError) as exc:
            raise StorageFailed(f"PostgreSQL could not {action}: {exc}") from exc

    async def schema_version(self) -> int:
        rows = await self._fetch("SELECT max(version) AS v FROM schema_version")
        return int(rows[0]["v"] or 0)


@functools.lru_cache(maxsize=512)
def numbered(sql: str) -> str:
    """``sql`` with its ``?`` placeholders numbered as PostgreSQL's ``$1``, ``$2``, … (the shared SQL has no
    ``?`` inside a string literal)."""
    parts = sql.split("?")
    return parts[0] + "".join(f"${i}{part}" for i, part in enumerate(parts[1:], start=1))


class _PgDb:
    """An asyncpg connection as the shared SQL uses it."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self._conn = conn

    async def fetch(self, sql: str, *params: Any) -> list[dict[str, Any]]:
        return [dict(row) for row in await self._conn.fetch(numbered(sql), *params)]

    async def execute(self, sql: str, *params: Any) -> int:
        return _row_count(await self._conn.execute(numbered(sql), *params))

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        await self._conn.executemany(numbered(sql), rows)


def _game_changed(callback: Callable[[int], None], payload: str) -> None:
    """A notice of :data:`GAME_CHANGED` handed on as the game's id (anything else on the channel is not ours)."""
    if payload.isascii() and payload.isdigit():
        callback(int(payload))


def timeouts(busy_timeout: float) -> dict[str, str]:
    """The settings of each connection that bound its waits to ``busy_timeout`` seconds: ``lock_timeout`` (a
    row or table another session holds) and ``statement_timeout`` (anything else), in milliseconds, at least 1
    (PostgreSQL reads 0 as "wait for ever", where SQLite reads it as "do not wait")."""
    milliseconds = str(max(1, round(busy_timeout * 1000)))
    return {"lock_timeout": milliseconds, "statement_timeout": milliseconds}


def _redacted(url: str) -> str:
    """``url`` without its password, for messages and logs."""
    scheme, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not at or ":" not in credentials:
        return url
    return f"{scheme}{sep}{credentials.split(':', 1)[0]}:***@{host}"


def _row_count(status: str) -> int:
    """The number of rows a command changed, from its status tag (``"UPDATE 3"``, as asyncpg returns it; 0 for
    a tag without a count)."""
    count = status.rsplit(maxsplit=1)[-1]
    return int(count) if count.isdigit() else 0
