"""What every topic of the store's SQL shares: the connection as the SQL sees it (:class:`Db`), the base class of the
topics (:class:`SqlBase`: how a dialect runs a transaction, a read and a snapshot, and the two words that differ),
the columns each table's rows are read with, and the decoder of a ``games`` row.

A dialect (``bot.host.store`` for SQLite, ``bot.host.postgres_store`` for PostgreSQL) provides :meth:`SqlBase._write`
(one transaction; a unique-key clash raised as :class:`KeyClash`, any other failure as
:class:`bot.host.errors.StorageFailed`), :meth:`SqlBase._read`, :meth:`SqlBase._snapshot`, and two words:
:attr:`SqlBase.IS` (a comparison that matches ``NULL``) and :attr:`SqlBase.SKIP_LOCKED` (claiming rows another process
is claiming). Every query is written once, with ``?`` placeholders (PostgreSQL's are numbered by its dialect).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Collection, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, ClassVar, Final, Protocol

from bot.host.change import Change
from bot.host.errors import DamagedRow, StoreError
from bot.host.model import GameRow

BUSY_TIMEOUT: Final = 5.0
"""Seconds a write waits for another connection's transaction before it fails as locked (SQLite's busy timeout;
PostgreSQL's lock and statement timeouts, :func:`bot.host.postgres_store.timeouts`)."""

GAME_COLUMNS: Final = ("id", "channel_id", "guild_id", "opener_id", "seats", "options", "seed", "status",
                       "locale", "created_at", "updated_at", "last_move_at", "state", "next_reminder_at", "version",
                       "last_message_id", "parent_id")
"""The columns a :class:`GameRow` holds (the damage columns are read by ``damaged_untold``)."""
JSON_COLUMNS: Final[dict[str, type]] = {"seats": list, "options": dict}
"""The ``games`` columns stored as JSON, and the kind of value each must hold."""
MOVE_COLUMNS: Final = ("game_id", "seq", "seat", "user_id", "move", "interaction_id", "created_at")
DELIVERY_COLUMNS: Final = ("id", "game_id", "channel_id", "seq", "kind", "user_id", "payload", "created_at",
                           "due_at", "attempts", "done_at", "last_error")
TIMER_COLUMNS: Final = ("id", "game_id", "channel_id", "kind", "seat", "user_id", "payload", "created_at", "due_at")

GAMES: Final = f"SELECT {', '.join(GAME_COLUMNS)} FROM games"
"""The start of a query that reads whole ``games`` rows (decoded by :func:`decode_game_row`)."""
MOVES: Final = f"SELECT {', '.join(MOVE_COLUMNS)} FROM moves"
DELIVERIES: Final = f"SELECT {', '.join(DELIVERY_COLUMNS)} FROM deliveries"
TIMERS: Final = f"SELECT {', '.join(TIMER_COLUMNS)} FROM timers"
OPEN: Final = "status IN ('lobby', 'running')"
"""The condition of an open game (a lobby or a running game)."""
CHUNK: Final = 500
"""Ids per ``IN (...)`` list (both databases cap the parameters of one statement): a longer list goes in chunks."""


class KeyClash(StoreError):
    """A write refused by a unique key (raised by a dialect's transaction; the store names it)."""


class Db(Protocol):
    """A connection as the shared SQL uses it: ``?`` placeholders, rows as dicts."""

    async def fetch(self, sql: str, *params: Any) -> list[dict[str, Any]]: ...

    async def execute(self, sql: str, *params: Any) -> int:
        """Run ``sql``; how many rows it changed."""
        ...

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...


class SqlBase(ABC):
    """The base of every topic's queries: how to run them, which a dialect subclass says."""

    IS: ClassVar[str] = "IS"
    """The comparison that is true for two ``NULL``s."""
    SKIP_LOCKED: ClassVar[str] = ""
    """Appended to the subquery that claims timers (PostgreSQL: leave rows another process is claiming)."""
    NOTIFY_RELEASED: ClassVar[str | None] = None
    """Tells the processes sharing the database that work was given up (``None``: no other process shares it)."""

    @abstractmethod
    def _write(self) -> AbstractAsyncContextManager[Db]:
        """One write transaction, committed whole or rolled back whole."""

    @abstractmethod
    def _read(self) -> AbstractAsyncContextManager[Db]:
        """A connection for reads; a failure of the database is :class:`bot.host.errors.StorageFailed`."""

    @abstractmethod
    def _snapshot(self) -> AbstractAsyncContextManager[Db]:
        """Reads that see the database at one moment (read-only): no other commit falls between two of them."""

    @abstractmethod
    async def apply(self, game_id: int, change: Change, *, now: float, expect_version: int | None = None
                    ) -> int | None:
        """The one write of a change to a game (:meth:`bot.host.sql.games.GameSql.apply`), which the other topics'
        writes for tools and tests go through."""

    async def _fetch(self, sql: str, *params: Any, write: bool = False) -> list[dict[str, Any]]:
        """The rows of one statement: a read, or (``write``) a write transaction of its own."""
        async with self._write() if write else self._read() as db:
            return await db.fetch(sql, *params)

    async def _execute(self, sql: str, *params: Any) -> int:
        """One statement in a write transaction of its own; how many rows it changed."""
        async with self._write() as db:
            return await db.execute(sql, *params)

    async def _games(self, sql: str, *params: Any) -> list[GameRow]:
        """The ``games`` rows a query of :data:`GAME_COLUMNS` reads, decoded."""
        return [decode_game_row(r) for r in await self._fetch(sql, *params)]

    async def _game(self, sql: str, *params: Any) -> GameRow | None:
        return next(iter(await self._games(sql, *params)), None)


def placeholders(values: Collection[Any]) -> str:
    """``?, ?, ?`` for an ``IN (...)`` of ``values``."""
    return ", ".join("?" * len(values))


def dumps(value: Any) -> str:
    """JSON as the stores keep it: compact, keys sorted."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def decode_game_row(data: dict[str, Any]) -> GameRow:
    """A ``games`` row (of :data:`GAME_COLUMNS`) decoded, by both stores alike; :class:`DamagedRow` if its seats or
    options are not readable JSON of their kind."""
    data = dict(data)
    for key, kind in JSON_COLUMNS.items():
        try:
            data[key] = json.loads(data[key])
        except (TypeError, ValueError) as exc:
            raise DamagedRow(data["id"], data["channel_id"], key, f"unreadable JSON ({exc})") from None
        if not isinstance(data[key], kind):
            raise DamagedRow(data["id"], data["channel_id"], key, f"not a {kind.__name__}")
    return GameRow(**data)
