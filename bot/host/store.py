"""Persistence: games and their append-only move log in SQLite (aiosqlite, WAL mode).

The move log is the truth; the ``state`` column of ``games`` is a cache of replaying it. Tables::

    games  id, channel_id, guild_id, opener_id, seats (JSON), options (JSON), seed (never shown),
           status (lobby | running | over | abandoned | damaged), locale, created_at, updated_at,
           last_move_at, state (engine JSON snapshot), next_reminder_at,
           damage_reason, damage_detail (why a damaged game cannot go on), damage_told (its channel was told)
    moves  game_id, seq, seat, user_id, move, interaction_id UNIQUE, created_at
           PRIMARY KEY (game_id, seq); an undo is a row of its own whose move is ``undo``
    users  user_id PRIMARY KEY, locale (the language of their last interaction: en, de or fr),
           updated_at
    (games.over_message_id: the id of the game-over post in its channel, once delivered)
    deliveries  id, game_id, channel_id, seq, kind, user_id, payload (JSON, public facts only), created_at,
           due_at, attempts, done_at, last_error: the transactional outbox, what the bot owes Discord
    user_settings  user_id PRIMARY KEY, time_zone, quiet_from, quiet_to, reminders, reminder_hours, turn_dms,
           updated_at: each person's own settings (``bot.host.user_settings``; a DM held for the end of their
           quiet hours is a delivery marked ``held`` in its payload, due then)
    results, ratings, rating_history, standings  players' history (:data:`HISTORY_TABLES`), written with a
           game's final move (``append_move(..., results=...)``) and read by ``bot.host.history_store``

A delivery (a channel post of a move, of the start, of a seat change or of an abandoned game; a turn DM; a
hand DM) is written in the SAME transaction as the change that owes it (:meth:`Store.append_move`,
:meth:`Store.update_game` with ``deliveries=``), so a crash never loses one: the adapter's dispatcher
delivers the pending rows of each channel in id order and marks them done (or due again later).

At most one game per channel is open (lobby or running): a partial unique index says so, so a
second one is a clean :class:`ChannelBusy`. A move and the game's new state are written in one
transaction (:meth:`Store.append_move`); a clash on ``(game_id, seq)`` or on the interaction id is a
clean :class:`MoveConflict` and writes nothing. Times are seconds since the epoch (UTC) as floats.

A database that refuses a read or a write (disk full, locked past the busy timeout, read-only, I/O
error) raises :class:`StorageFailed`; the transaction is rolled back, so nothing was written. A game
whose stored rows cannot be played on is marked ``damaged`` (:meth:`Store.mark_damaged`): it no longer
counts as open, and its channel is told once (``damage_told``).

The schema is versioned with ``PRAGMA user_version``: :data:`MIGRATIONS` is a list of steps, step
``i`` takes the database from version ``i`` to ``i + 1`` in one transaction.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final

import aiosqlite

from bot.host import history_store, user_settings
from bot.host.errors import (
    ChannelBusy,
    DamagedRow,
    MoveConflict,
    StaleGame,
    StorageFailed,
    StoreError,
    StoreOpenError,
)
from bot.host.history_store import Forgotten
from bot.host.model import (
    OPEN_STATUSES,
    DamagedGame,
    DeliveryRow,
    GameRow,
    MoveRow,
    NewDelivery,
    NewTimer,
    TimerRow,
)
from bot.host.ratings import Leaderboard, Rating, SeatResult
from bot.host.user_settings import HELD_PATTERN, USER_SETTINGS_TABLE, UserSettings

log = logging.getLogger(__name__)

BUSY_TIMEOUT: Final = 5.0
"""Seconds a write waits for another connection's transaction before it fails as locked (SQLite's busy timeout;
PostgreSQL's lock and statement timeouts, :func:`bot.host.postgres_store.timeouts`)."""

HISTORY_TABLES: Final = (
    """CREATE TABLE results (
        game_id        INTEGER NOT NULL,
        seat           INTEGER NOT NULL,
        guild_id       INTEGER,
        user_id        INTEGER,
        name           TEXT NOT NULL,
        score          INTEGER NOT NULL,
        rank           INTEGER NOT NULL,
        players        INTEGER NOT NULL,
        with_computers INTEGER NOT NULL,
        scoring_cards  TEXT NOT NULL,
        bird_chips     INTEGER NOT NULL,
        finished_at    REAL NOT NULL,
        PRIMARY KEY (game_id, seat)
    )""",
    "CREATE INDEX results_by_user ON results (guild_id, user_id, finished_at, game_id)",
    "CREATE INDEX results_of_user ON results (user_id)",
    """CREATE TABLE ratings (
        guild_id   INTEGER NOT NULL,
        pool       TEXT NOT NULL CHECK (pool IN ('humans', 'mixed')),
        user_id    INTEGER NOT NULL,
        mu         REAL NOT NULL,
        sigma      REAL NOT NULL,
        ordinal    REAL NOT NULL,
        games      INTEGER NOT NULL,
        updated_at REAL NOT NULL,
        PRIMARY KEY (guild_id, pool, user_id)
    )""",
    "CREATE INDEX ratings_board ON ratings (guild_id, pool, ordinal DESC, user_id)",
    "CREATE INDEX ratings_by_user ON ratings (user_id)",
    """CREATE TABLE rating_history (
        guild_id INTEGER NOT NULL,
        pool     TEXT NOT NULL,
        user_id  INTEGER NOT NULL,
        game_id  INTEGER NOT NULL,
        mu       REAL NOT NULL,
        sigma    REAL NOT NULL,
        ordinal  REAL NOT NULL,
        at       REAL NOT NULL,
        PRIMARY KEY (guild_id, pool, user_id, game_id)
    )""",
    "CREATE INDEX rating_history_in_order ON rating_history (guild_id, pool, user_id, at, game_id)",
    "CREATE INDEX rating_history_by_user ON rating_history (user_id)",
    """CREATE TABLE standings (
        guild_id   INTEGER NOT NULL,
        user_id    INTEGER NOT NULL,
        name       TEXT NOT NULL,
        games      INTEGER NOT NULL,
        wins       INTEGER NOT NULL,
        updated_at REAL NOT NULL,
        PRIMARY KEY (guild_id, user_id)
    )""",
    "CREATE INDEX standings_by_wins ON standings (guild_id, wins DESC, user_id)",
    "CREATE INDEX standings_by_games ON standings (guild_id, games DESC, user_id)",
    "CREATE INDEX standings_by_user ON standings (user_id)",
)
"""Players' history (shared in form by both stores): ``results`` one row per seat of each finished game (the
scoring cards played with their points as JSON), ``ratings`` per (guild, pool, person) with the ordinal for the
leaderboard's index, ``rating_history`` a row per rated game, ``standings`` games and wins per (guild, person)."""

SHARED_TABLES: Final = (
    "ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 0",
    """CREATE TABLE timers (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id     INTEGER NOT NULL,
        channel_id  INTEGER NOT NULL,
        kind        TEXT NOT NULL,
        seat        INTEGER,
        user_id     INTEGER,
        payload     TEXT NOT NULL,
        created_at  REAL NOT NULL,
        due_at      REAL NOT NULL,
        done_at     REAL,
        lease_owner TEXT,
        lease_until REAL
    )""",
    "CREATE INDEX timers_pending ON timers (due_at) WHERE done_at IS NULL",
    "CREATE INDEX timers_of_game ON timers (game_id, due_at) WHERE done_at IS NULL",
    """CREATE TABLE leases (
        name  TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        until REAL NOT NULL
    )""",
)
"""Schema step 8 (both stores, PostgreSQL with wider types): ``games.version``, ``timers`` and ``leases``."""

HELD_INDEX: Final = "CREATE INDEX deliveries_of_user ON deliveries (user_id) WHERE done_at IS NULL"
"""A person's pending DMs (held for the end of their quiet hours, or collapsed into one)."""

LAST_POST_COLUMN: Final = "ALTER TABLE games ADD COLUMN last_message_id INTEGER"
"""Schema step 10 (both stores): the id of the game's latest post in its channel (the start or a move)."""

MIGRATIONS: Final[tuple[tuple[str, ...], ...]] = (
    # 0 -> 1: games and the move log
    (
        """CREATE TABLE games (
            id           INTEGER PRIMARY KEY AUTOINCREMENT,
            channel_id   INTEGER NOT NULL,
            guild_id     INTEGER,
            opener_id    INTEGER NOT NULL,
            seats        TEXT NOT NULL,
            options      TEXT NOT NULL,
            seed         INTEGER NOT NULL,
            status       TEXT NOT NULL CHECK (status IN ('lobby', 'running', 'over', 'abandoned')),
            locale       TEXT NOT NULL,
            created_at   REAL NOT NULL,
            updated_at   REAL NOT NULL,
            last_move_at REAL,
            state        TEXT
        )""",
        """CREATE UNIQUE INDEX games_one_open_per_channel ON games (channel_id)
            WHERE status IN ('lobby', 'running')""",
        "CREATE INDEX games_by_channel ON games (channel_id, id)",
        """CREATE TABLE moves (
            game_id        INTEGER NOT NULL REFERENCES games (id),
            seq            INTEGER NOT NULL CHECK (seq >= 1),
            seat           INTEGER NOT NULL,
            user_id        INTEGER,
            move           TEXT NOT NULL,
            interaction_id INTEGER UNIQUE,
            created_at     REAL NOT NULL,
            PRIMARY KEY (game_id, seq)
        ) WITHOUT ROWID""",
    ),
    # 1 -> 2: turn reminders driven from the database
    (
        "ALTER TABLE games ADD COLUMN next_reminder_at REAL",
        "CREATE INDEX games_reminders ON games (next_reminder_at) WHERE next_reminder_at IS NOT NULL",
    ),
    # 2 -> 3: each user's language, for the DMs they get after a restart
    (
        """CREATE TABLE users (
            user_id    INTEGER PRIMARY KEY,
            locale     TEXT NOT NULL,
            updated_at REAL NOT NULL
        )""",
    ),
    # 3 -> 4: the deliveries each change owes (channel posts and DMs), written with the change
    (
        """CREATE TABLE deliveries (
            id         INTEGER PRIMARY KEY AUTOINCREMENT,
            game_id    INTEGER NOT NULL REFERENCES games (id),
            channel_id INTEGER NOT NULL,
            seq        INTEGER NOT NULL,
            kind       TEXT NOT NULL,
            user_id    INTEGER,
            payload    TEXT NOT NULL,
            created_at REAL NOT NULL,
            due_at     REAL NOT NULL,
            attempts   INTEGER NOT NULL DEFAULT 0,
            done_at    REAL,
            last_error TEXT
        )""",
        "CREATE INDEX deliveries_pending ON deliveries (channel_id, id) WHERE done_at IS NULL",
    ),
    # 4 -> 5: quarantine of a game whose rows cannot be played on (status 'damaged', why, channel told).
    # SQLite cannot alter a CHECK: the table is rebuilt (migrate() turns foreign keys off meanwhile).
    (
        """CREATE TABLE games_v4 (
            id               INTEGER PRIMARY KEY AUTOINCREMENT,
            channel_id       INTEGER NOT NULL,
            guild_id         INTEGER,
            opener_id        INTEGER NOT NULL,
            seats            TEXT NOT NULL,
            options          TEXT NOT NULL,
            seed             INTEGER NOT NULL,
            status           TEXT NOT NULL
                             CHECK (status IN ('lobby', 'running', 'over', 'abandoned', 'damaged')),
            locale           TEXT NOT NULL,
            created_at       REAL NOT NULL,
            updated_at       REAL NOT NULL,
            last_move_at     REAL,
            state            TEXT,
            next_reminder_at REAL,
            damage_reason    TEXT,
            damage_detail    TEXT,
            damage_told      INTEGER NOT NULL DEFAULT 0
        )""",
        """INSERT INTO games_v4 (id, channel_id, guild_id, opener_id, seats, options, seed, status, locale,
               created_at, updated_at, last_move_at, state, next_reminder_at)
           SELECT id, channel_id, guild_id, opener_id, seats, options, seed, status, locale,
               created_at, updated_at, last_move_at, state, next_reminder_at FROM games""",
        """UPDATE sqlite_sequence SET seq = (SELECT seq FROM sqlite_sequence WHERE name = 'games')
           WHERE name = 'games_v4' AND EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'games')""",
        "DROP TABLE games",
        "ALTER TABLE games_v4 RENAME TO games",
        """CREATE UNIQUE INDEX games_one_open_per_channel ON games (channel_id)
            WHERE status IN ('lobby', 'running')""",
        "CREATE INDEX games_by_channel ON games (channel_id, id)",
        "CREATE INDEX games_reminders ON games (next_reminder_at) WHERE next_reminder_at IS NOT NULL",
        "CREATE INDEX games_damaged_untold ON games (id) WHERE status = 'damaged' AND damage_told = 0",
    ),
    # 5 -> 6: the archive of finished games: where each game-over message is, and a server's games newest first
    (
        "ALTER TABLE games ADD COLUMN over_message_id INTEGER",
        "CREATE INDEX games_finished_by_guild ON games (guild_id, id) WHERE status = 'over'",
    ),
    # 6 -> 7: players' history: results of finished games, ratings and their history, standings
    HISTORY_TABLES,
    # 7 -> 8: several processes over one database: a game's version (every write bumps it), timers, leases
    SHARED_TABLES,
    # 8 -> 9: each person's own settings (time zone, quiet hours, reminders, turn DMs), and their held DMs
    (*USER_SETTINGS_TABLE, HELD_INDEX),
    # 9 -> 10: where a game's last post is (the link of /santacruz games)
    (LAST_POST_COLUMN,),
)
SCHEMA_VERSION: Final = len(MIGRATIONS)

_GAME_COLUMNS: Final = ("id", "channel_id", "guild_id", "opener_id", "seats", "options", "seed", "status",
                        "locale", "created_at", "updated_at", "last_move_at", "state", "next_reminder_at", "version",
                        "last_message_id")
"""The columns a :class:`GameRow` holds (the damage columns are read by :meth:`Store.damaged_untold`)."""
_UPDATABLE: Final = frozenset(_GAME_COLUMNS) - {"id", "channel_id", "guild_id", "seed", "created_at", "version",
                                                "last_message_id"}
_JSON_COLUMNS: Final = frozenset({"seats", "options"})
_MOVE_COLUMNS: Final = ("game_id", "seq", "seat", "user_id", "move", "interaction_id", "created_at")
_DELIVERY_COLUMNS: Final = ("id", "game_id", "channel_id", "seq", "kind", "user_id", "payload", "created_at",
                            "due_at", "attempts", "done_at", "last_error")
_TIMER_COLUMNS: Final = ("id", "game_id", "channel_id", "kind", "seat", "user_id", "payload", "created_at", "due_at")






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


class Store:
    """The database of one bot. Open with ``await Store.open(path)``, end with ``await store.close()``.

    All access goes through one connection, serialised by a lock so that one coroutine's transaction
    never interleaves with another's statements.
    """

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
    async def _transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction: committed whole, or rolled back whole (a refused write or commit is a
        :class:`StorageFailed`; an ``IntegrityError`` passes through for the caller to name)."""
        async with self._lock:
            try:
                await self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.DatabaseError as exc:
                raise _storage_failed("begin a write", exc) from exc
            try:
                yield self._conn
                await self._conn.execute("COMMIT")
            except BaseException as exc:
                await self._rollback()
                if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.IntegrityError):
                    raise _storage_failed("write", exc) from exc
                raise

    async def _rollback(self) -> None:
        """Roll back the open transaction, if SQLite has not already done so (it does on a full disk)."""
        if not self._conn.in_transaction:
            return
        try:
            await self._conn.execute("ROLLBACK")
        except sqlite3.DatabaseError as exc:
            log.warning("rollback failed: %s", exc)

    async def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        try:
            async with self._lock, self._conn.execute(sql, params) as cur:
                return list(await cur.fetchall())
        except sqlite3.DatabaseError as exc:
            raise _storage_failed("read", exc) from exc

    async def schema_version(self) -> int:
        rows = await self._fetchall("PRAGMA user_version")
        return int(rows[0][0])

    # ------------------------------------------------------------------ games

    async def insert_game(self, *, channel_id: int, guild_id: int | None, opener_id: int,
                          seats: list[dict[str, Any]], options: dict[str, Any], seed: int, status: str,
                          locale: str, now: float, timers: Sequence[NewTimer] = ()) -> int:
        """Store a new game (with the ``timers`` it sets) and return its id; :class:`ChannelBusy` if the channel
        has an open one."""
        try:
            async with self._transaction() as conn:
                cur = await conn.execute(
                    "INSERT INTO games (channel_id, guild_id, opener_id, seats, options, seed, status, locale,"
                    " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (channel_id, guild_id, opener_id, _dumps(seats), _dumps(options), seed, status, locale,
                     now, now))
                game_id = cur.lastrowid
                assert game_id is not None
                await self._set_timers(conn, game_id, now, timers, ())
        except sqlite3.IntegrityError as exc:
            raise ChannelBusy(f"channel {channel_id} has an open game") from exc
        assert game_id is not None
        return game_id

    async def update_game(self, game_id: int, *, now: float, deliveries: Sequence[NewDelivery] = (),
                          timers: Sequence[NewTimer] = (), cancel_timers: Sequence[str] = (),
                          expect_version: int | None = None, **columns: Any) -> int:
        """Set some columns of a game (``seats``/``options`` as Python values) and its ``updated_at``, add the
        ``deliveries`` the change owes, cancel its pending timers of the kinds ``cancel_timers`` and set
        ``timers``, in one transaction; returns the game's new version.

        ``expect_version``: write only if the game is still at that version, else :class:`StaleGame`."""
        async with self._transaction() as conn:
            version = await self._update(conn, game_id, now, columns, expect_version)
            await self._add_deliveries(conn, game_id, now, deliveries)
            await self._set_timers(conn, game_id, now, timers, cancel_timers)
            return version

    @staticmethod
    async def _update(conn: aiosqlite.Connection, game_id: int, now: float, columns: dict[str, Any],
                      expect_version: int | None = None) -> int:
        unknown = columns.keys() - _UPDATABLE
        if unknown:
            raise ValueError(f"cannot update {sorted(unknown)}")
        columns = {k: _dumps(v) if k in _JSON_COLUMNS else v for k, v in columns.items()}
        columns["updated_at"] = now
        assignments = ", ".join(f"{k} = ?" for k in columns)
        check = "" if expect_version is None else " AND version = ?"
        params = (*columns.values(), game_id) + (() if expect_version is None else (expect_version,))
        async with conn.execute(f"UPDATE games SET {assignments}, version = version + 1 WHERE id = ?{check}"
                                " RETURNING version", params) as cur:
            row = await cur.fetchone()
        if row is None:
            if expect_version is not None:
                async with conn.execute("SELECT version FROM games WHERE id = ?", (game_id,)) as cur:
                    if await cur.fetchone() is not None:
                        raise StaleGame(f"game {game_id} is no longer at version {expect_version}")
            raise StoreError(f"there is no game {game_id}")
        if columns.get("status") not in (None, *OPEN_STATUSES):
            await conn.execute("UPDATE timers SET done_at = ? WHERE game_id = ? AND done_at IS NULL", (now, game_id))
        return int(row[0])

    @staticmethod
    async def _set_timers(conn: aiosqlite.Connection, game_id: int, now: float, timers: Sequence[NewTimer],
                          cancel: Sequence[str]) -> None:
        """Cancel the game's pending timers of the kinds ``cancel``, then add ``timers``."""
        if cancel:
            marks = ", ".join("?" for _ in cancel)
            await conn.execute(f"UPDATE timers SET done_at = ? WHERE game_id = ? AND done_at IS NULL"
                               f" AND kind IN ({marks})", (now, game_id, *cancel))
        if timers:
            await conn.executemany(
                "INSERT INTO timers (game_id, channel_id, kind, seat, user_id, payload, created_at, due_at)"
                " SELECT id, channel_id, ?, ?, ?, ?, ?, ? FROM games WHERE id = ?",
                [(t.kind, t.seat, t.user_id, _dumps(t.payload), now, t.due_at, game_id) for t in timers])

    # ------------------------------------------------------------------ timers and leases (several processes)

    async def pending_timer_kinds(self) -> dict[int, set[str]]:
        """Game id -> the kinds of its pending timers (games without one left out)."""
        rows = await self._fetchall("SELECT DISTINCT game_id, kind FROM timers WHERE done_at IS NULL")
        kinds: dict[int, set[str]] = {}
        for row in rows:
            kinds.setdefault(int(row[0]), set()).add(str(row[1]))
        return kinds

    async def timers(self, game_id: int) -> list[TimerRow]:
        """A game's pending timers, soonest first."""
        rows = await self._fetchall(f"SELECT {', '.join(_TIMER_COLUMNS)} FROM timers"
                                    " WHERE game_id = ? AND done_at IS NULL ORDER BY due_at, id", (game_id,))
        return [_timer_row(r) for r in rows]

    async def claim_timers(self, now: float, *, owner: str, lease: float, limit: int = 100) -> list[TimerRow]:
        """The timers due at ``now`` that no live lease holds, leased to ``owner`` until ``now + lease``: with
        several processes each timer is claimed by one; a dead process's claim expires."""
        async with self._transaction() as conn, conn.execute(
                f"UPDATE timers SET lease_owner = ?, lease_until = ? WHERE id IN (SELECT id FROM timers"
                " WHERE done_at IS NULL AND due_at <= ? AND (lease_until IS NULL OR lease_until < ?)"
                f" ORDER BY due_at, id LIMIT ?) RETURNING {', '.join(_TIMER_COLUMNS)}",
                (owner, now + lease, now, now, limit)) as cur:
            rows = await cur.fetchall()
        return sorted((_timer_row(r) for r in rows), key=lambda t: (t.due_at, t.id))

    async def finish_timer(self, timer_id: int, *, now: float, deliveries: Sequence[NewDelivery] = (),
                           timers: Sequence[NewTimer] = (), cancel_timers: Sequence[str] = (),
                           expect_version: int | None = None, **columns: Any) -> int | None:
        """The timer has fired: mark it done and write what its firing changed (columns of its game, posts,
        timers) in one transaction. Returns the game's new version, or ``None`` if no column changed."""
        async with self._transaction() as conn:
            async with conn.execute("UPDATE timers SET done_at = ? WHERE id = ? AND done_at IS NULL"
                                    " RETURNING game_id", (now, timer_id)) as cur:
                row = await cur.fetchone()
            if row is None:
                raise StaleGame(f"timer {timer_id} is done already")
            game_id = int(row[0])
            version = await self._update(conn, game_id, now, columns, expect_version) if columns else None
            await self._add_deliveries(conn, game_id, now, deliveries)
            await self._set_timers(conn, game_id, now, timers, cancel_timers)
            return version

    async def take_lease(self, name: str, owner: str, *, now: float, seconds: float) -> bool:
        """Hold the lease ``name`` (e.g. a channel's outbox) until ``now + seconds``, if it is free, expired or
        already ``owner``'s; whether ``owner`` holds it now."""
        async with self._transaction() as conn, conn.execute(
                "INSERT INTO leases (name, owner, until) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE"
                " SET owner = excluded.owner, until = excluded.until"
                " WHERE leases.owner = excluded.owner OR leases.until < ? RETURNING owner",
                (name, owner, now + seconds, now)) as cur:
            return await cur.fetchone() is not None

    async def release_lease(self, name: str, owner: str) -> None:
        """Give the lease up (only if ``owner`` holds it)."""
        async with self._transaction() as conn:
            await conn.execute("DELETE FROM leases WHERE name = ? AND owner = ?", (name, owner))

    async def game_version(self, game_id: int) -> int | None:
        """The game's version (bumped by every write), or ``None`` if there is no such game."""
        rows = await self._fetchall("SELECT version FROM games WHERE id = ?", (game_id,))
        return int(rows[0][0]) if rows else None

    async def open_game_versions(self) -> list[tuple[int, int, int]]:
        """``(channel id, game id, version)`` of every game in a lobby or running, oldest first (rows not decoded:
        start-up loads each on its own, the sweep compares versions)."""
        rows = await self._fetchall(
            "SELECT channel_id, id, version FROM games WHERE status IN ('lobby', 'running') ORDER BY id")
        return [(int(r[0]), int(r[1]), int(r[2])) for r in rows]

    async def open_game_version(self, channel_id: int) -> tuple[int, int] | None:
        """``(game id, version)`` of the channel's open game, or ``None``."""
        rows = await self._fetchall("SELECT id, version FROM games WHERE channel_id = ?"
                                    " AND status IN ('lobby', 'running')", (channel_id,))
        return (int(rows[0][0]), int(rows[0][1])) if rows else None

    async def get_game(self, game_id: int) -> GameRow | None:
        rows = await self._fetchall(f"SELECT {', '.join(_GAME_COLUMNS)} FROM games WHERE id = ?", (game_id,))
        return _game_row(rows[0]) if rows else None

    async def open_games(self) -> list[GameRow]:
        """Every game in a lobby or running, oldest first."""
        rows = await self._fetchall(
            f"SELECT {', '.join(_GAME_COLUMNS)} FROM games WHERE status IN ('lobby', 'running') ORDER BY id")
        return [_game_row(r) for r in rows]

    async def latest_game(self, channel_id: int) -> GameRow | None:
        """The channel's most recent game, whatever its status."""
        rows = await self._fetchall(
            f"SELECT {', '.join(_GAME_COLUMNS)} FROM games WHERE channel_id = ? ORDER BY id DESC LIMIT 1",
            (channel_id,))
        return _game_row(rows[0]) if rows else None

    async def reminders_due(self, now: float) -> list[GameRow]:
        """Running games whose next reminder time has come, earliest first."""
        rows = await self._fetchall(
            f"SELECT {', '.join(_GAME_COLUMNS)} FROM games WHERE status = 'running'"
            " AND next_reminder_at IS NOT NULL AND next_reminder_at <= ? ORDER BY next_reminder_at", (now,))
        return [_game_row(r) for r in rows]

    # ------------------------------------------------------------------ damaged games

    async def mark_damaged(self, game_id: int, *, reason: str, detail: str, now: float) -> bool:
        """Quarantine an open game: status ``damaged``, no reminders, its channel not told yet.
        Returns False (and writes nothing) if the game is not open any more."""
        async with self._transaction() as conn:
            cur = await conn.execute(
                "UPDATE games SET status = 'damaged', damage_reason = ?, damage_detail = ?, damage_told = 0,"
                " next_reminder_at = NULL, updated_at = ?, version = version + 1"
                " WHERE id = ? AND status IN ('lobby', 'running')", (reason, detail, now, game_id))
            if cur.rowcount != 1:
                return False
            await conn.execute("UPDATE timers SET done_at = ? WHERE game_id = ? AND done_at IS NULL", (now, game_id))
            return True

    async def damaged_untold(self) -> list[DamagedGame]:
        """Damaged games whose channel has not been told yet, oldest first."""
        rows = await self._fetchall(
            "SELECT id, channel_id, locale, damage_reason, damage_detail FROM games"
            " WHERE status = 'damaged' AND damage_told = 0 ORDER BY id")
        return [DamagedGame(int(r["id"]), int(r["channel_id"]), str(r["locale"]), str(r["damage_reason"] or ""),
                            str(r["damage_detail"] or "")) for r in rows]

    async def mark_damage_told(self, game_id: int, *, now: float) -> None:
        """Record that the damaged game's channel was told it cannot continue."""
        async with self._transaction() as conn:
            await conn.execute(
                "UPDATE games SET damage_told = 1, updated_at = ? WHERE id = ? AND status = 'damaged'",
                (now, game_id))

    # ------------------------------------------------------------------ moves

    async def append_move(self, move: MoveRow, *, deliveries: Sequence[NewDelivery] = (),
                          results: Sequence[SeatResult] = (), timers: Sequence[NewTimer] = (),
                          cancel_timers: Sequence[str] = (), expect_version: int | None = None,
                          **game_columns: Any) -> int:
        """Append ``move``, update its game's columns, add the ``deliveries`` it owes and (the final move of a
        finished game) its ``results`` with the ratings they change in ONE transaction.

        Raises :class:`MoveConflict` (and writes nothing) when ``(game_id, seq)`` or the interaction id
        is already stored, :class:`StaleGame` when ``expect_version`` is given and the game is past it. Timers
        as in :meth:`update_game`; returns the game's new version.
        """
        try:
            async with self._transaction() as conn:
                await conn.execute(
                    f"INSERT INTO moves ({', '.join(_MOVE_COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (move.game_id, move.seq, move.seat, move.user_id, move.move, move.interaction_id,
                     move.created_at))
                version = await self._update(conn, move.game_id, move.created_at, game_columns, expect_version)
                await self._add_deliveries(conn, move.game_id, move.created_at, deliveries)
                await self._set_timers(conn, move.game_id, move.created_at, timers, cancel_timers)
                if results:
                    await history_store.write_results(_SqliteSql(conn), results, move.created_at)
                return version
        except sqlite3.IntegrityError as exc:
            raise MoveConflict(f"game {move.game_id}: move {move.seq} or its interaction is stored already") \
                from exc

    async def moves(self, game_id: int) -> list[MoveRow]:
        """A game's move log in order, undo rows included."""
        rows = await self._fetchall(
            f"SELECT {', '.join(_MOVE_COLUMNS)} FROM moves WHERE game_id = ? ORDER BY seq", (game_id,))
        return [MoveRow(**dict(r)) for r in rows]

    async def move_by_interaction(self, interaction_id: int) -> MoveRow | None:
        """The move stored for a Discord interaction, if any."""
        rows = await self._fetchall(
            f"SELECT {', '.join(_MOVE_COLUMNS)} FROM moves WHERE interaction_id = ?", (interaction_id,))
        return MoveRow(**dict(rows[0])) if rows else None

    # ------------------------------------------------------------------ deliveries (the outbox)

    @staticmethod
    async def _add_deliveries(conn: aiosqlite.Connection, game_id: int, now: float,
                              deliveries: Sequence[NewDelivery]) -> None:
        if not deliveries:
            return
        await conn.executemany(
            "INSERT INTO deliveries (game_id, channel_id, seq, kind, user_id, payload, created_at, due_at)"
            " SELECT id, channel_id, ?, ?, ?, ?, ?, ? FROM games WHERE id = ?",
            [(d.seq, d.kind, d.user_id, _dumps(d.payload), now, now, game_id) for d in deliveries])

    async def pending_deliveries(self, channel_id: int | None = None) -> list[DeliveryRow]:
        """The deliveries not done yet (of one channel, or of all), in the order they were written."""
        where = "done_at IS NULL" + ("" if channel_id is None else " AND channel_id = ?")
        rows = await self._fetchall(
            f"SELECT {', '.join(_DELIVERY_COLUMNS)} FROM deliveries WHERE {where} ORDER BY id",
            () if channel_id is None else (channel_id,))
        return [_delivery_row(r) for r in rows]

    async def deliveries(self, game_id: int) -> list[DeliveryRow]:
        """Every delivery of a game, done or not, in order."""
        rows = await self._fetchall(
            f"SELECT {', '.join(_DELIVERY_COLUMNS)} FROM deliveries WHERE game_id = ? ORDER BY id", (game_id,))
        return [_delivery_row(r) for r in rows]

    async def mark_delivered(self, delivery_id: int, *, now: float, error: str | None = None,
                             over_message_id: int | None = None, post_id: int | None = None) -> None:
        """The delivery is done: sent, or given up (``error`` says why). ``over_message_id``: it was the game-over
        post, sent as this message (recorded on its game in the same transaction)."""
        async with self._transaction() as conn:
            await conn.execute("UPDATE deliveries SET done_at = ?, attempts = attempts + 1,"
                               " last_error = COALESCE(?, last_error) WHERE id = ?", (now, error, delivery_id))
            if over_message_id is not None:
                await conn.execute("UPDATE games SET over_message_id = ? WHERE id ="
                                   " (SELECT game_id FROM deliveries WHERE id = ?)", (over_message_id, delivery_id))
            if post_id is not None:
                await conn.execute("UPDATE games SET last_message_id = ? WHERE id ="
                                   " (SELECT game_id FROM deliveries WHERE id = ?)", (post_id, delivery_id))

    async def close_channel(self, channel_id: int, *, now: float, reason: str) -> dict[int, int]:
        """The channel is gone (deleted, or the bot left its server): its open games become ``abandoned`` (their
        timers cancelled) and its pending deliveries are given up with ``reason``, in one transaction. Returns the
        games it abandoned: id -> new version."""
        async with self._transaction() as conn:
            async with conn.execute("UPDATE games SET status = 'abandoned', next_reminder_at = NULL, updated_at = ?,"
                                    " version = version + 1 WHERE channel_id = ? AND status IN (?, ?)"
                                    " RETURNING id, version", (now, channel_id, *OPEN_STATUSES)) as cur:
                abandoned = {int(r[0]): int(r[1]) for r in await cur.fetchall()}
            await conn.execute("UPDATE timers SET done_at = ? WHERE channel_id = ? AND done_at IS NULL",
                               (now, channel_id))
            await conn.execute("UPDATE deliveries SET done_at = ?, last_error = ? WHERE channel_id = ?"
                               " AND done_at IS NULL", (now, reason, channel_id))
            return abandoned

    async def deliveries_due(self, now: float) -> int:
        """Make every pending delivery due at ``now`` (at start-up: no backoff carries over); how many."""
        async with self._transaction() as conn:
            cur = await conn.execute("UPDATE deliveries SET due_at = ? WHERE done_at IS NULL AND due_at > ?",
                                     (now, now))
            return cur.rowcount

    async def retry_delivery(self, delivery_id: int, *, due_at: float, error: str) -> None:
        """The delivery failed for a passing reason: try again at ``due_at`` (unless it was given up meanwhile, e.g.
        its channel is gone: that stays as it is)."""
        async with self._transaction() as conn:
            await conn.execute("UPDATE deliveries SET attempts = attempts + 1, due_at = ?, last_error = ?"
                               " WHERE id = ? AND done_at IS NULL", (due_at, error, delivery_id))

    # ------------------------------------------------------------------ the archive of finished games

    async def finished_games(self, guild_id: int | None, *, limit: int = 10) -> list[GameRow]:
        """A server's (``None``: direct messages') finished games, newest first (index ``games_finished_by_guild``)."""
        rows = await self._fetchall(
            f"SELECT {', '.join(_GAME_COLUMNS)} FROM games WHERE guild_id IS ? AND status = 'over'"
            " ORDER BY id DESC LIMIT ?", (guild_id, limit))
        return [_game_row(r) for r in rows]

    async def over_message_ids(self, game_ids: Sequence[int]) -> dict[int, int]:
        """Game id -> the id of its game-over post, for those of ``game_ids`` whose post was delivered."""
        if not game_ids:
            return {}
        rows = await self._fetchall(
            f"SELECT id, over_message_id FROM games WHERE id IN ({', '.join('?' * len(game_ids))})"
            " AND over_message_id IS NOT NULL", tuple(game_ids))
        return {int(r["id"]): int(r["over_message_id"]) for r in rows}

    # ------------------------------------------------------------------ users

    async def set_user_locale(self, user_id: int, locale: str, *, now: float) -> None:
        """Store (insert or replace) the language of the user's last interaction."""
        async with self._transaction() as conn:
            await conn.execute(
                "INSERT INTO users (user_id, locale, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET locale = excluded.locale, updated_at = excluded.updated_at",
                (user_id, locale, now))

    async def user_locales(self) -> dict[int, str]:
        """Every stored user's language: user id -> locale."""
        rows = await self._fetchall("SELECT user_id, locale FROM users")
        return {int(r["user_id"]): str(r["locale"]) for r in rows}

    # ------------------------------------------------------------------ people's own settings (bot.host.user_settings)

    async def user_settings(self) -> dict[int, UserSettings]:
        """Every stored person's settings: user id -> settings."""
        async with self._reading() as db:
            return await user_settings.read_all(db)

    async def set_user_settings(self, user_id: int, settings: UserSettings, *, now: float,
                                held_due_at: float) -> int:
        """Store a person's settings and make their held DMs due at ``held_due_at``, in one transaction; how
        many held DMs moved."""
        async with self._transaction() as conn:
            return await user_settings.write(_SqliteSql(conn), user_id, settings, now=now, held_due_at=held_due_at)

    async def hold_deliveries(self, holds: Sequence[tuple[int, dict[str, Any]]], *, due_at: float) -> None:
        """Hold DM deliveries ``(id, payload)`` until ``due_at`` (marked held), in one transaction."""
        async with self._transaction() as conn:
            await user_settings.hold(_SqliteSql(conn), list(holds), due_at)

    async def held_deliveries(self, user_id: int) -> list[DeliveryRow]:
        """A person's pending held DMs, of every game, in the order they were written."""
        rows = await self._fetchall(
            f"SELECT {', '.join(_DELIVERY_COLUMNS)} FROM deliveries WHERE user_id = ? AND done_at IS NULL"
            " AND payload LIKE ? ORDER BY id", (user_id, HELD_PATTERN))
        return [_delivery_row(r) for r in rows]

    async def open_games_of(self, user_id: int) -> list[GameRow]:
        """The open games (lobby or running) whose seats name ``user_id`` (a LIKE prefilter: the caller checks
        the seats exactly), oldest first."""
        rows = await self._fetchall(
            f"SELECT {', '.join(_GAME_COLUMNS)} FROM games WHERE status IN ('lobby', 'running') AND seats LIKE ?"
            " ORDER BY id", (user_settings.seats_name(user_id),))
        return [_game_row(r) for r in rows]

    # ------------------------------------------------------------------ players' history (bot.host.history_store)

    @asynccontextmanager
    async def _reading(self) -> AsyncIterator[history_store.Sql]:
        """Reads on the store's connection; a database failure is :class:`StorageFailed`, as for every read."""
        try:
            async with self._lock:
                yield _SqliteSql(self._conn)
        except sqlite3.DatabaseError as exc:
            raise _storage_failed("read", exc) from exc

    async def player_history(self, guild_id: int, user_id: int) -> tuple[list[dict[str, Any]], dict[str, Rating],
                                                                          dict[str, list[float]]]:
        """A person's results in a server (oldest first), their ratings and each pool's rating history."""
        async with self._reading() as db:
            results = await history_store.results_of(db, guild_id, user_id)
            ratings = await history_store.ratings_of(db, guild_id, user_id)
            history = {pool: await history_store.rating_history(db, guild_id, user_id, pool) for pool in ratings}
        return results, ratings, history

    async def leaderboard(self, guild_id: int, by: str, page: int, user_id: int) -> Leaderboard:
        """One page of a server's leaderboard and the caller's own row (see ``history_store.leaderboard``)."""
        async with self._reading() as db:
            return await history_store.leaderboard(db, guild_id, by, page, user_id)

    async def forget_user(self, user_id: int, former_player: dict[str, str]) -> Forgotten:
        """Delete a person's results and ratings, rename their seats in finished games, in one transaction."""
        async with self._transaction() as conn:
            return await history_store.forget(_SqliteSql(conn), user_id, former_player)


class _SqliteSql:
    """An aiosqlite connection as ``history_store`` uses it."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    async def fetch(self, sql: str, *params: Any) -> list[dict[str, Any]]:
        async with self._conn.execute(sql, params) as cur:
            return [dict(row) for row in await cur.fetchall()]

    async def execute(self, sql: str, *params: Any) -> int:
        cur = await self._conn.execute(sql, params)
        return cur.rowcount


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _timer_row(row: sqlite3.Row) -> TimerRow:
    data = dict(row)
    data["payload"] = json.loads(data["payload"])
    return TimerRow(**data)


def _delivery_row(row: sqlite3.Row) -> DeliveryRow:
    data = dict(row)
    data["payload"] = json.loads(data["payload"])
    return DeliveryRow(**data)


def _storage_failed(action: str, exc: sqlite3.DatabaseError) -> StorageFailed:
    return StorageFailed(f"the database could not {action}: {exc}")


_JSON_TYPES: Final[dict[str, type]] = {"seats": list, "options": dict}


def _game_row(row: sqlite3.Row) -> GameRow:
    return decode_game_row(dict(row))


def decode_game_row(data: dict[str, Any]) -> GameRow:
    """A ``games`` row (column -> stored value, of :data:`_GAME_COLUMNS`) decoded, by both stores alike;
    :class:`DamagedRow` if its seats or options are not readable JSON of their kind."""
    data = dict(data)
    for key in _JSON_COLUMNS:
        try:
            data[key] = json.loads(data[key])
        except (TypeError, ValueError) as exc:
            raise DamagedRow(data["id"], data["channel_id"], key, f"unreadable JSON ({exc})") from None
        if not isinstance(data[key], _JSON_TYPES[key]):
            raise DamagedRow(data["id"], data["channel_id"], key, f"not a {_JSON_TYPES[key].__name__}")
    return GameRow(**data)
