"""Persistence in one SQLite file (aiosqlite, WAL mode): what differs from PostgreSQL, and nothing else.

Every query is :class:`bot.host.sql.SqlStore`'s, shared with PostgreSQL; the schema is
:mod:`bot.host.schema`'s, versioned here with ``PRAGMA user_version`` (:func:`migrate`). What this module adds:
opening the file (a file that cannot be opened is a :class:`StoreOpenError` naming the likely cause), one
connection serialised by a lock so that one coroutine's transaction never interleaves with another's statements,
``BEGIN IMMEDIATE`` transactions, and SQLite's errors mapped to the store's (a refused key is a ``KeyClash``;
disk full, locked past the busy timeout, read-only or an I/O error is :class:`StorageFailed`, rolled back).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final

import aiosqlite

from bot.host import metrics
from bot.host.errors import StorageFailed, StoreError, StoreOpenError
from bot.host.model import GameRow
from bot.host.schema import MIGRATIONS, SCHEMA_VERSION
from bot.host.sql import BUSY_TIMEOUT, Db, KeyClash, SqlStore

__all__ = ["BUSY_TIMEOUT", "MIGRATIONS", "SCHEMA_VERSION", "GameRow", "Store", "cannot_open", "migrate"]

log = logging.getLogger(__name__)


async def migrate(conn: aiosqlite.Connection, target: int = SCHEMA_VERSION) -> int:
    """Bring the schema of ``conn`` (in autocommit mode) up to version ``target``; returns it."""
    async with conn.execute("PRAGMA user_version") as cur:
        row = await cur.fetchone()
    version = int(row[0]) if row else 0
    if version > SCHEMA_VERSION:
        raise StoreError(f"the database has schema version {version}, newer than this bot's {SCHEMA_VERSION}")
    if version >= target:
        return version
    async with conn.execute("PRAGMA foreign_keys") as cur:
        row = await cur.fetchone()
    foreign_keys = bool(row and row[0])
    await conn.execute("PRAGMA foreign_keys = OFF")  # a step may rebuild a table others refer to
    try:
        for step in range(version, target):
            await _migrate_step(conn, step)
    finally:
        if foreign_keys:
            await conn.execute("PRAGMA foreign_keys = ON")
    return target


async def _migrate_step(conn: aiosqlite.Connection, step: int) -> None:
    """Step ``step`` -> ``step + 1`` in one transaction; refused if it left a dangling reference."""
    await conn.execute("BEGIN IMMEDIATE")
    try:
        for statement in MIGRATIONS[step]:
            await conn.execute(statement)
        async with conn.execute("PRAGMA foreign_key_check") as cur:
            dangling = list(await cur.fetchall())
        if dangling:
            raise StoreError(f"migration {step} -> {step + 1} left {len(dangling)} dangling references")
        await conn.execute(f"PRAGMA user_version = {step + 1}")
    except BaseException:
        await conn.execute("ROLLBACK")
        raise
    await conn.execute("COMMIT")


def _try_to_open(path: str) -> None:
    sqlite3.connect(path).close()


def cannot_open(path: str | Path, error: Exception) -> str:
    """Why the database at ``path`` could not be opened, for the person starting the bot."""
    file = Path(path).expanduser().absolute()
    return f"cannot open the database {file}: {_likely_cause(file, str(error).lower())} (SQLite: {error})"


def _likely_cause(file: Path, said: str) -> str:
    folder = file.parent
    if file.is_dir():
        return "that is a folder; DATABASE_PATH must name a file"
    if not folder.exists():
        return f"the folder {folder} does not exist; create it or change DATABASE_PATH"
    if not folder.is_dir():
        return f"{folder} is a file, not a folder"
    if file.exists() and not os.access(file, os.R_OK | os.W_OK):
        return "no permission to read and write that file"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"no permission to write in the folder {folder} (SQLite writes its -wal and -shm files beside the file)"
    if "full" in said:
        return "the disk is full"
    if "not a database" in said:
        return "the file is not a SQLite database (a wrong path, or a damaged file)"
    if "readonly" in said or "read-only" in said:
        return "the file or its disk is read-only"
    return "check the path, the permissions and the free disk space"


class Store(SqlStore):
    """The database of one bot in a SQLite file. Open with ``await Store.open(path)``, end with
    ``await store.close()``."""

    shared: Final = False
    """One process owns a SQLite file (see the README): no leases needed."""

    def __init__(self, conn: aiosqlite.Connection, path: str) -> None:
        self._conn = conn
        self.path = path
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: str | Path, *, busy_timeout: float = BUSY_TIMEOUT) -> Store:
        """Open (creating if needed) the database at ``path``, in WAL mode, migrated to the latest schema.

        A file that cannot be opened or written is a :class:`StoreOpenError` naming the file and the likely
        cause (a missing folder, a folder in the way, permissions, a full disk, not a database). A write waits up
        to ``busy_timeout`` seconds for another process's lock, then fails."""
        try:
            # sqlite3 first: when aiosqlite fails to open, its worker thread may outlive the event loop and crash
            await asyncio.to_thread(_try_to_open, str(path))
            conn = await aiosqlite.connect(str(path), isolation_level=None)
        except (sqlite3.Error, OSError) as exc:
            raise StoreOpenError(cannot_open(path, exc)) from exc
        try:
            conn.row_factory = aiosqlite.Row
            await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute("PRAGMA synchronous = FULL")
            await conn.execute("PRAGMA foreign_keys = ON")
            await conn.execute(f"PRAGMA busy_timeout = {max(0, round(busy_timeout * 1000))}")
            await migrate(conn)
        except (sqlite3.Error, OSError) as exc:
            await conn.close()
            raise StoreOpenError(cannot_open(path, exc)) from exc
        except BaseException:
            await conn.close()
            raise
        return cls(conn, str(path))

    async def close(self) -> None:
        async with self._lock:
            await self._conn.close()

    # ------------------------------------------------------------------ plumbing

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[Db]:
        """One write transaction: committed whole, or rolled back whole (a refused write or commit is a
        :class:`StorageFailed`; a refused key a :class:`KeyClash`, which the caller names)."""
        with metrics.DATABASE_SECONDS.labels("write").time():
            async with self._lock:
                try:
                    await self._begin("BEGIN IMMEDIATE")
                except sqlite3.DatabaseError as exc:
                    raise _storage_failed("begin a write", exc) from exc
                try:
                    yield _SqliteDb(self._conn)
                    await self._conn.execute("COMMIT")
                except BaseException as exc:
                    await self._rollback()
                    if isinstance(exc, sqlite3.IntegrityError):
                        raise KeyClash(str(exc)) from exc
                    if isinstance(exc, sqlite3.DatabaseError):
                        raise _storage_failed("write", exc) from exc
                    raise

    async def _begin(self, statement: str) -> None:
        """Begin a transaction with ``statement``. The connection's thread runs it whatever happens to the caller: a
        caller cancelled meanwhile (a task stopped, a timeout) waits for it and rolls it back before it goes, else the
        connection would stay inside a transaction that nobody ends, and every later write would fail."""
        begun = asyncio.ensure_future(self._conn.execute(statement))
        try:
            await asyncio.shield(begun)
        except asyncio.CancelledError:
            with contextlib.suppress(sqlite3.DatabaseError):
                await begun
            await self._rollback()
            raise

    async def _rollback(self) -> None:
        """Roll back the open transaction, if SQLite has not already done so (it does on a full disk)."""
        if not self._conn.in_transaction:
            return
        try:
            await self._conn.execute("ROLLBACK")
        except sqlite3.DatabaseError as exc:
            log.warning("rollback failed: %s", exc)

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[Db]:
        """Reads on the store's connection; a database failure is :class:`StorageFailed`."""
        with metrics.DATABASE_SECONDS.labels("read").time():
            try:
                async with self._lock:
                    yield _SqliteDb(self._conn)
            except sqlite3.DatabaseError as exc:
                raise _storage_failed("read", exc) from exc

    @asynccontextmanager
    async def _snapshot(self) -> AsyncIterator[Db]:
        """A read transaction (``BEGIN`` takes its snapshot at the first read, in WAL mode); no write of this
        process comes between (the store's lock), nor, inside the transaction, another process's."""
        with metrics.DATABASE_SECONDS.labels("read").time():
            try:
                async with self._lock:
                    await self._begin("BEGIN")
                    try:
                        yield _SqliteDb(self._conn)
                    finally:
                        await self._rollback()
            except sqlite3.DatabaseError as exc:
                raise _storage_failed("read", exc) from exc

    async def listen_released(self, callback: Callable[[], None]) -> None:
        """Nothing to hear: no other process shares a SQLite file (see ``PostgresStore.listen_released``)."""

    async def schema_version(self) -> int:
        rows = await self._fetch("PRAGMA user_version")
        return int(rows[0]["user_version"])


class _SqliteDb:
    """An aiosqlite connection as the shared SQL uses it."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    async def fetch(self, sql: str, *params: Any) -> list[dict[str, Any]]:
        async with self._conn.execute(sql, params) as cur:
            return [dict(row) for row in await cur.fetchall()]

    async def execute(self, sql: str, *params: Any) -> int:
        async with self._conn.execute(sql, params) as cur:
            return cur.rowcount

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        await self._conn.executemany(sql, rows)


def _storage_failed(action: str, exc: sqlite3.DatabaseError) -> StorageFailed:
    return StorageFailed(f"the database could not {action}: {exc}")
