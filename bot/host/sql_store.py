"""The store's SQL, written once for SQLite and PostgreSQL: every query of :class:`SqlStore` uses ``?`` placeholders
and runs on a :class:`Db` that the dialect provides (``bot.host.store`` for SQLite, ``bot.host.postgres_store`` for
PostgreSQL, which numbers the placeholders ``$1``, ``$2``, …).

The move log is the truth; the ``state`` column of ``games`` is a cache of replaying it (the tables are in
:mod:`bot.host.schema`). A delivery (a channel post or a DM) and a timer are written in the SAME transaction as the
change that owes it, so a crash never loses one. At most one game per channel is open (a partial unique index: a
second is a clean :class:`ChannelBusy`); a clash on ``(game_id, seq)`` or on an interaction id is a clean
:class:`MoveConflict`; a write that expected another version is a :class:`VersionConflict` (a *conflict* with another
process); every write is one transaction, and a refused one (:class:`StorageFailed`) wrote nothing. A ``games`` row
is decoded by :func:`decode_game_row` on both stores alike: seats or options that cannot be read are a
:class:`DamagedRow`, which the host quarantines. What a dialect provides (and nothing else): :meth:`SqlStore._write`
(one transaction; a unique-key clash raised as :class:`KeyClash`, any other failure as :class:`StorageFailed`),
:meth:`SqlStore._read`, and two words: :attr:`SqlStore.IS` (a comparison that matches ``NULL``) and
:attr:`SqlStore.SKIP_LOCKED` (claiming rows another process is claiming).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, ClassVar, Final, Protocol

from bot.host import history_store, user_settings, web_store
from bot.host.change import Change
from bot.host.errors import ChannelBusy, DamagedRow, MoveConflict, StoreError, VersionConflict
from bot.host.history_store import Forgotten, TurnSpeed
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
from bot.host.user_settings import HELD_PATTERN, UserSettings

BUSY_TIMEOUT: Final = 5.0
"""Seconds a write waits for another connection's transaction before it fails as locked (SQLite's busy timeout;
PostgreSQL's lock and statement timeouts, :func:`bot.host.postgres_store.timeouts`)."""

GAME_COLUMNS: Final = ("id", "channel_id", "guild_id", "opener_id", "seats", "options", "seed", "status",
                       "locale", "created_at", "updated_at", "last_move_at", "state", "next_reminder_at", "version",
                       "last_message_id", "parent_id")
"""The columns a :class:`GameRow` holds (the damage columns are read by :meth:`SqlStore.damaged_untold`)."""
UPDATABLE: Final = frozenset(GAME_COLUMNS) - {"id", "channel_id", "guild_id", "seed", "created_at", "version",
                                              "last_message_id", "parent_id"}
JSON_COLUMNS: Final[dict[str, type]] = {"seats": list, "options": dict}
"""The ``games`` columns stored as JSON, and the kind of value each must hold."""
MOVE_COLUMNS: Final = ("game_id", "seq", "seat", "user_id", "move", "interaction_id", "created_at")
DELIVERY_COLUMNS: Final = ("id", "game_id", "channel_id", "seq", "kind", "user_id", "payload", "created_at",
                           "due_at", "attempts", "done_at", "last_error")
TIMER_COLUMNS: Final = ("id", "game_id", "channel_id", "kind", "seat", "user_id", "payload", "created_at", "due_at")

_GAMES: Final = f"SELECT {', '.join(GAME_COLUMNS)} FROM games"
_MOVES: Final = f"SELECT {', '.join(MOVE_COLUMNS)} FROM moves"
_DELIVERIES: Final = f"SELECT {', '.join(DELIVERY_COLUMNS)} FROM deliveries"
_TIMERS: Final = f"SELECT {', '.join(TIMER_COLUMNS)} FROM timers"
_OPEN: Final = "status IN ('lobby', 'running')"


class KeyClash(StoreError):
    """A write refused by a unique key (raised by a dialect's transaction; the store names it)."""


class Db(Protocol):
    """A connection as the shared SQL uses it: ``?`` placeholders, rows as dicts."""

    async def fetch(self, sql: str, *params: Any) -> list[dict[str, Any]]: ...

    async def execute(self, sql: str, *params: Any) -> int:
        """Run ``sql``; how many rows it changed."""
        ...

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...


class SqlStore(web_store.WebStore, ABC):
    """Every query of the store, once; a dialect subclass says how to connect and how to run a transaction."""

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
        """A connection for reads; a failure of the database is :class:`StorageFailed`."""

    @abstractmethod
    def _snapshot(self) -> AbstractAsyncContextManager[Db]:
        """Reads that see the database at one moment (read-only): no other commit falls between two of them."""

    async def _fetch(self, sql: str, *params: Any, write: bool = False) -> list[dict[str, Any]]:
        """The rows of one statement: a read, or (``write``) a write transaction of its own."""
        async with self._write() if write else self._read() as db:
            return await db.fetch(sql, *params)

    async def _games(self, sql: str, *params: Any) -> list[GameRow]:
        """The ``games`` rows a query of :data:`GAME_COLUMNS` reads, decoded."""
        return [decode_game_row(r) for r in await self._fetch(sql, *params)]

    async def _game(self, sql: str, *params: Any) -> GameRow | None:
        return next(iter(await self._games(sql, *params)), None)

    async def _execute(self, sql: str, *params: Any) -> int:
        """One statement in a write transaction of its own; how many rows it changed."""
        async with self._write() as db:
            return await db.execute(sql, *params)

    # ------------------------------------------------------------------ games

    async def insert_game(self, *, channel_id: int, guild_id: int | None, opener_id: int,
                          seats: list[dict[str, Any]], options: dict[str, Any], seed: int, status: str,
                          locale: str, now: float, timers: Sequence[NewTimer] = (), parent_id: int | None = None
                          ) -> int:
        """Store a new game (with the ``timers`` it sets) and return its id; :class:`ChannelBusy` if the channel has an
        open one. ``parent_id``: the channel whose thread ``channel_id`` is, for a game in a thread of its own."""
        try:
            async with self._write() as db:
                rows = await db.fetch(
                    "INSERT INTO games (channel_id, guild_id, opener_id, seats, options, seed, status, locale,"
                    " created_at, updated_at, parent_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    channel_id, guild_id, opener_id, dumps(seats), dumps(options), seed, status, locale, now, now,
                    parent_id)
                game_id = int(rows[0]["id"])
                await _set_timers(db, game_id, now, timers, ())
        except KeyClash as exc:
            raise ChannelBusy(f"channel {channel_id} has an open game") from exc
        return game_id

    async def apply(self, game_id: int, change: Change, *, now: float, expect_version: int | None = None
                    ) -> int | None:
        """Write ``change`` to the game in ONE transaction (see :class:`bot.host.change.Change`): mark its timer
        done, append its move, set its columns and bump the version, add the deliveries it owes, cancel and set
        timers, write a finished game's results. Returns the game's new version (``None``: a timer's change that
        left the game's row alone). ``expect_version``: write only if the game is still at that version, else
        :class:`VersionConflict`; a clash on the move's number or interaction is a :class:`MoveConflict`; a timer
        done already is a :class:`VersionConflict`."""
        (version,) = await self.apply_all([(game_id, change, expect_version)], now=now)
        return version

    async def apply_all(self, changes: Sequence[tuple[int, Change, int | None]], *, now: float) -> list[int | None]:
        """Write several games' changes (``(game id, change, expected version)``, each as :meth:`apply` writes it) in
        ONE transaction: all of them, or none when any is refused (:class:`VersionConflict`, :class:`MoveConflict`).
        Their new versions, in order. Start-up uses it to set the timers of many games stored without them at once."""
        try:
            async with self._write() as db:
                return [await _apply(db, game_id, change, now, expect) for game_id, change, expect in changes]
        except KeyClash as exc:
            games = ", ".join(str(game_id) for game_id, _, _ in changes)
            raise MoveConflict(f"game {games}: the move or its interaction is stored already") from exc

    async def update_game(self, game_id: int, *, now: float, deliveries: Sequence[NewDelivery] = (),
                          timers: Sequence[NewTimer] = (), cancel_timers: Sequence[str] = (),
                          expect_version: int | None = None, **columns: Any) -> int:
        """:meth:`apply` of a change without a move (for tools and tests); returns the game's new version."""
        version = await self.apply(game_id, Change(columns, deliveries=deliveries, timers=timers,
                                                   cancel_timers=cancel_timers), now=now, expect_version=expect_version)
        assert version is not None
        return version

    async def get_game(self, game_id: int) -> GameRow | None:
        return await self._game(f"{_GAMES} WHERE id = ?", game_id)

    async def game_with_moves(self, game_id: int) -> tuple[GameRow, list[MoveRow]] | None:
        """A game's row and its move log as of one moment (read apart, the log could be a move ahead of the row)."""
        async with self._snapshot() as db:
            rows = await db.fetch(f"{_GAMES} WHERE id = ?", game_id)
            moves = await db.fetch(f"{_MOVES} WHERE game_id = ? ORDER BY seq", game_id) if rows else []
        return (decode_game_row(rows[0]), [MoveRow(**r) for r in moves]) if rows else None

    async def open_games(self) -> list[GameRow]:
        """Every game in a lobby or running, oldest first."""
        return await self._games(f"{_GAMES} WHERE {_OPEN} ORDER BY id")

    async def game_ids(self) -> list[int]:
        """Every game's id, whatever its status, oldest first (rows not decoded: a damaged one is read alone)."""
        return [int(r["id"]) for r in await self._fetch("SELECT id FROM games ORDER BY id")]

    async def all_games(self) -> list[GameRow]:
        """Every game, whatever its status, oldest first."""
        return await self._games(f"{_GAMES} ORDER BY id")

    async def latest_game(self, channel_id: int) -> GameRow | None:
        """The channel's most recent game, whatever its status."""
        return await self._game(f"{_GAMES} WHERE channel_id = ? ORDER BY id DESC LIMIT 1", channel_id)

    async def open_games_in(self, parent_id: int) -> list[GameRow]:
        """The open games (lobby or running) in the threads of channel ``parent_id``, oldest first."""
        return await self._games(f"{_GAMES} WHERE parent_id = ? AND {_OPEN} ORDER BY id", parent_id)

    async def finished_games_in(self, parent_id: int, user_id: int | None = None) -> list[GameRow]:
        """The finished games in the threads of channel ``parent_id``, newest first (the last 100); with ``user_id``,
        those whose seats name the user (a LIKE prefilter, as :meth:`open_games_of`: the caller checks them)."""
        seated = "%" if user_id is None else user_settings.seats_name(user_id)
        return await self._games(f"{_GAMES} WHERE parent_id = ? AND status = 'over' AND seats LIKE ? ORDER BY id DESC"
                                 " LIMIT 100", parent_id, seated)

    async def game_version(self, game_id: int) -> int | None:
        """The game's version (bumped by every write), or ``None`` if there is no such game."""
        rows = await self._fetch("SELECT version FROM games WHERE id = ?", game_id)
        return int(rows[0]["version"]) if rows else None

    async def open_game_versions(self) -> list[tuple[int, int, int]]:
        """``(channel id, game id, version)`` of every open game, oldest first (not decoded: each is loaded alone)."""
        rows = await self._fetch(f"SELECT channel_id, id, version FROM games WHERE {_OPEN} ORDER BY id")
        return [(int(r["channel_id"]), int(r["id"]), int(r["version"])) for r in rows]

    async def open_game_version(self, channel_id: int) -> tuple[int, int] | None:
        """``(game id, version)`` of the channel's open game, or ``None``."""
        rows = await self._fetch(f"SELECT id, version FROM games WHERE channel_id = ? AND {_OPEN}", channel_id)
        return (int(rows[0]["id"]), int(rows[0]["version"])) if rows else None

    # ------------------------------------------------------------------ damaged games

    async def mark_damaged(self, game_id: int, *, reason: str, detail: str, now: float) -> bool:
        """Quarantine an open game (status ``damaged``, no reminders, its channel not told yet); False (and nothing
        written) if the game is not open any more."""
        async with self._write() as db:
            changed = await db.execute(
                "UPDATE games SET status = 'damaged', damage_reason = ?, damage_detail = ?, damage_told = 0,"
                f" next_reminder_at = NULL, updated_at = ?, version = version + 1 WHERE id = ? AND {_OPEN}",
                reason, detail, now, game_id)
            if changed != 1:
                return False
            await db.execute("UPDATE timers SET done_at = ? WHERE game_id = ? AND done_at IS NULL", now, game_id)
            return True

    async def damaged_untold(self) -> list[DamagedGame]:
        """Damaged games whose channel has not been told yet, oldest first."""
        rows = await self._fetch("SELECT id, channel_id, locale, damage_reason, damage_detail FROM games"
                                 " WHERE status = 'damaged' AND damage_told = 0 ORDER BY id")
        return [DamagedGame(int(r["id"]), int(r["channel_id"]), str(r["locale"]), str(r["damage_reason"] or ""),
                            str(r["damage_detail"] or "")) for r in rows]

    async def mark_damage_told(self, game_id: int, *, now: float) -> None:
        """Record that the damaged game's channel was told it cannot continue."""
        await self._execute("UPDATE games SET damage_told = 1, updated_at = ? WHERE id = ? AND status = 'damaged'",
                            now, game_id)

    # ------------------------------------------------------------------ moves

    async def append_move(self, move: MoveRow, *, deliveries: Sequence[NewDelivery] = (),
                          results: Sequence[SeatResult] = (), timers: Sequence[NewTimer] = (),
                          cancel_timers: Sequence[str] = (), expect_version: int | None = None,
                          **game_columns: Any) -> int:
        """:meth:`apply` of a move at its own time (for tools and tests); returns the game's new version."""
        version = await self.apply(move.game_id, Change(game_columns, move, deliveries, timers, cancel_timers, results),
                                   now=move.created_at, expect_version=expect_version)
        assert version is not None
        return version

    async def moves(self, game_id: int) -> list[MoveRow]:
        """A game's move log in order, undo rows included."""
        return [MoveRow(**r) for r in await self._fetch(f"{_MOVES} WHERE game_id = ? ORDER BY seq", game_id)]

    async def move_by_interaction(self, interaction_id: int) -> MoveRow | None:
        """The move stored for a Discord interaction, if any."""
        rows = await self._fetch(f"{_MOVES} WHERE interaction_id = ?", interaction_id)
        return MoveRow(**rows[0]) if rows else None

    # ------------------------------------------------------------------ timers and leases (several processes)

    async def pending_timer_kinds(self) -> dict[int, set[str]]:
        """Game id -> the kinds of its pending timers (games without one left out)."""
        kinds: dict[int, set[str]] = {}
        for row in await self._fetch("SELECT DISTINCT game_id, kind FROM timers WHERE done_at IS NULL"):
            kinds.setdefault(int(row["game_id"]), set()).add(str(row["kind"]))
        return kinds

    async def timers(self, game_id: int) -> list[TimerRow]:
        """A game's pending timers, soonest first."""
        rows = await self._fetch(f"{_TIMERS} WHERE game_id = ? AND done_at IS NULL ORDER BY due_at, id", game_id)
        return [TimerRow.read(r) for r in rows]

    async def claim_timers(self, now: float, *, owner: str, lease: float, limit: int = 100,
                           kinds: Sequence[str] | None = None) -> list[TimerRow]:
        """The timers due at ``now`` that no live lease holds (only of ``kinds`` if given), leased to ``owner``
        until ``now + lease``: with several processes each timer is claimed by one; a dead process's claim expires."""
        only = "" if kinds is None else f" AND kind IN ({', '.join('?' * len(kinds))})"
        rows = await self._fetch(
            "UPDATE timers SET lease_owner = ?, lease_until = ? WHERE id IN (SELECT id FROM timers"
            f" WHERE done_at IS NULL AND due_at <= ? AND (lease_until IS NULL OR lease_until < ?){only}"
            f" ORDER BY due_at, id LIMIT ?{self.SKIP_LOCKED}) RETURNING {', '.join(TIMER_COLUMNS)}",
            owner, now + lease, now, now, *(kinds or ()), limit, write=True)
        return sorted((TimerRow.read(r) for r in rows), key=lambda t: (t.due_at, t.id))

    async def finish_timer(self, timer_id: int, *, now: float, deliveries: Sequence[NewDelivery] = (),
                           timers: Sequence[NewTimer] = (), cancel_timers: Sequence[str] = (),
                           expect_version: int | None = None, **columns: Any) -> int | None:
        """:meth:`apply` of a timer's firing (for tools and tests, which know only the timer): the game's new version,
        ``None`` if no column changed."""
        rows = await self._fetch("SELECT game_id FROM timers WHERE id = ?", timer_id)
        if not rows:
            raise VersionConflict(f"there is no timer {timer_id}")
        return await self.apply(int(rows[0]["game_id"]), Change(columns, None, deliveries, timers, cancel_timers,
                                                                timer=timer_id), now=now, expect_version=expect_version)

    async def take_lease(self, name: str, owner: str, *, now: float, seconds: float) -> bool:
        """Hold the lease ``name`` (e.g. a channel's outbox) until ``now + seconds``, if it is free, expired or
        already ``owner``'s; whether ``owner`` holds it now."""
        rows = await self._fetch(
            "INSERT INTO leases (name, owner, until) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE"
            " SET owner = excluded.owner, until = excluded.until"
            " WHERE leases.owner = excluded.owner OR leases.until < ? RETURNING owner",
            name, owner, now + seconds, now, write=True)
        return bool(rows)

    async def release_lease(self, name: str, owner: str) -> None:
        """Give the lease up (only if ``owner`` holds it)."""
        await self._execute("DELETE FROM leases WHERE name = ? AND owner = ?", name, owner)

    async def lease_holder(self, name: str) -> str | None:
        """Who last held the lease ``name``, run out or not (``None``: nobody, or it was given up)."""
        return next((str(r["owner"]) for r in await self._fetch("SELECT owner FROM leases WHERE name = ?", name)), None)

    async def release_all(self, owner: str, *, keep: str | None = None) -> int:
        """Give up ``owner``'s leases (but those named ``keep``…) and timer claims in one transaction (it stops), so
        that another process may take the work over at once; how many leases were given up."""
        async with self._write() as db:
            released = await db.execute("DELETE FROM leases WHERE owner = ? AND name NOT LIKE ?", owner,
                                        f"{keep}%" if keep else "")
            await db.execute("UPDATE timers SET lease_owner = NULL, lease_until = NULL"
                             " WHERE lease_owner = ? AND done_at IS NULL", owner)
            if self.NOTIFY_RELEASED is not None:  # delivered to the listeners when this transaction commits
                await db.fetch(self.NOTIFY_RELEASED, owner)
        return released

    async def figures(self, now: float) -> dict[str, Any]:
        """For the metrics: the posts and DMs owed (``backlog``), the oldest due one's age (``oldest``), ``games``."""
        async with self._read() as db:
            [owed] = await db.fetch("SELECT COUNT(*) AS n, MIN(CASE WHEN due_at <= ? THEN created_at END) AS first"
                                    " FROM deliveries WHERE done_at IS NULL", now)
            games = await db.fetch("SELECT status, COUNT(*) AS n FROM games GROUP BY status")
        return {"backlog": int(owed["n"]), "oldest": max(0.0, now - float(owed["first"] or now)),
                "games": {str(r["status"]): int(r["n"]) for r in games}}

    # ------------------------------------------------------------------ deliveries (the outbox)

    async def pending_deliveries(self, channel_id: int | None = None) -> list[DeliveryRow]:
        """The deliveries not done yet (of one channel, or of all), in the order they were written."""
        where, params = ("", ()) if channel_id is None else (" AND channel_id = ?", (channel_id,))
        rows = await self._fetch(f"{_DELIVERIES} WHERE done_at IS NULL{where} ORDER BY id", *params)
        return [DeliveryRow.read(r) for r in rows]

    async def deliveries(self, game_id: int) -> list[DeliveryRow]:
        """Every delivery of a game, done or not, in order."""
        return [DeliveryRow.read(r) for r in await self._fetch(f"{_DELIVERIES} WHERE game_id = ? ORDER BY id", game_id)]

    async def open_messages(self, game_id: int, user_id: int | None) -> list[tuple[int, int]]:
        """A person's turn DMs of a game not told yet that their turn passed, or (``user_id`` ``None``) its posts
        whose buttons are on (``bot.host.buttons``): (delivery id, message id), in order."""
        rows = await self._fetch(f"SELECT id, message_id FROM deliveries WHERE game_id = ? AND user_id {self.IS} ?"
                                 " AND message_id IS NOT NULL AND closed_at IS NULL ORDER BY id", game_id, user_id)
        return [(int(r["id"]), int(r["message_id"])) for r in rows]

    async def last_post(self, game_id: int) -> tuple[int, DeliveryRow] | None:
        """The game's latest post in its channel as whichever process sent it: its message and the delivery it was
        (a start's or a move's; an undo edits the post of the move it takes back, so that post stays the latest);
        ``None`` before the first post went out."""
        async with self._snapshot() as db:
            games = await db.fetch("SELECT last_message_id FROM games WHERE id = ?", game_id)
            rows = await db.fetch(f"{_DELIVERIES} WHERE game_id = ? AND kind IN ('move_post', 'start_post')"
                                  " AND done_at IS NOT NULL ORDER BY id DESC LIMIT 1", game_id)
        if not games or games[0]["last_message_id"] is None or not rows:
            return None
        return int(games[0]["last_message_id"]), DeliveryRow.read(rows[0])

    async def mark_delivered(self, delivery_id: int, *, now: float, error: str | None = None,
                             over_message_id: int | None = None, post_id: int | None = None,
                             edited_id: int | None = None, closed: Sequence[int] = ()) -> None:
        """The delivery is done: sent, or given up (``error`` says why). ``over_message_id``: it was the game-over
        post, sent as this message (recorded on its game in the same transaction); ``edited_id``: a DM with a turn's
        controls or a post with buttons, sent as this message (edited later); ``closed``: the deliveries it closed."""
        async with self._write() as db:
            await db.execute("UPDATE deliveries SET done_at = ?, attempts = attempts + 1,"
                             " last_error = COALESCE(?, last_error), message_id = COALESCE(?, message_id)"
                             " WHERE id = ?", now, error, edited_id, delivery_id)
            await db.executemany("UPDATE deliveries SET closed_at = ? WHERE id = ?", [(now, i) for i in closed])
            for column, value in (("over_message_id", over_message_id), ("last_message_id", post_id)):
                if value is not None:
                    await db.execute(f"UPDATE games SET {column} = ? WHERE id ="
                                     " (SELECT game_id FROM deliveries WHERE id = ?)", value, delivery_id)

    async def close_channel(self, channel_id: int, *, now: float, reason: str,
                            told: tuple[str, dict[str, Any]] | None = None) -> dict[int, int]:
        """The channel is gone (deleted, or the bot left its server): its open games become ``abandoned`` (their
        timers cancelled) and its pending deliveries are given up with ``reason``, in one transaction; with ``told``
        (a delivery's kind and payload), each player whose DM still shows a turn of such a game is owed one. Returns
        the games it abandoned: id -> new version."""
        async with self._write() as db:
            rows = await db.fetch("UPDATE games SET status = 'abandoned', next_reminder_at = NULL, updated_at = ?,"
                                  " version = version + 1 WHERE channel_id = ? AND status IN (?, ?)"
                                  " RETURNING id, version", now, channel_id, *OPEN_STATUSES)
            await db.execute("UPDATE timers SET done_at = ? WHERE channel_id = ? AND done_at IS NULL", now, channel_id)
            await db.execute("UPDATE deliveries SET done_at = ?, last_error = ? WHERE channel_id = ?"
                             " AND done_at IS NULL", now, reason, channel_id)
            abandoned = {int(r["id"]): int(r["version"]) for r in rows}
            if told is not None and abandoned:
                await db.execute("INSERT INTO deliveries (game_id, channel_id, seq, kind, user_id, payload, created_at,"
                                 " due_at) SELECT game_id, channel_id, MAX(seq), ?, user_id, ?, ?, ? FROM deliveries"
                                 f" WHERE game_id IN ({', '.join('?' * len(abandoned))}) AND message_id IS NOT NULL"
                                 " AND closed_at IS NULL GROUP BY game_id, channel_id, user_id", told[0],
                                 dumps(told[1]), now, now, *abandoned)
        return abandoned

    async def deliveries_due(self, now: float) -> int:
        """Every pending delivery due at ``now`` (at start-up: no backoff carries over) but a held DM; how many."""
        return await self._execute("UPDATE deliveries SET due_at = ? WHERE done_at IS NULL AND due_at > ? AND payload"
                                   " NOT LIKE ?", now, now, HELD_PATTERN)  # held: due when quiet hours end

    async def retry_delivery(self, delivery_id: int, *, due_at: float, error: str) -> None:
        """The delivery failed for a passing reason: due again at ``due_at`` (unless given up meanwhile)."""
        await self._execute("UPDATE deliveries SET attempts = attempts + 1, due_at = ?, last_error = ?"
                            " WHERE id = ? AND done_at IS NULL", due_at, error, delivery_id)

    # ------------------------------------------------------------------ the archive of finished games

    async def finished_games(self, guild_id: int | None, *, limit: int = 10) -> list[GameRow]:
        """A server's (``None``: direct messages') finished games, newest first (index ``games_finished_by_guild``)."""
        return await self._games(f"{_GAMES} WHERE guild_id {self.IS} ? AND status = 'over' ORDER BY id DESC LIMIT ?",
                                 guild_id, limit)

    async def over_message_ids(self, game_ids: Sequence[int]) -> dict[int, int]:
        """Game id -> the id of its game-over post, for those of ``game_ids`` whose post was delivered."""
        if not game_ids:
            return {}
        rows = await self._fetch(f"SELECT id, over_message_id FROM games WHERE id IN ({', '.join('?' * len(game_ids))})"
                                 " AND over_message_id IS NOT NULL", *game_ids)
        return {int(r["id"]): int(r["over_message_id"]) for r in rows}

    # ------------------------------------------------------------------ users

    async def set_user_locale(self, user_id: int, locale: str, *, now: float) -> None:
        """Store (insert or replace) the language of the user's last interaction."""
        await self._execute("INSERT INTO users (user_id, locale, updated_at) VALUES (?, ?, ?) ON CONFLICT (user_id)"
                            " DO UPDATE SET locale = excluded.locale, updated_at = excluded.updated_at", user_id,
                            locale, now)

    async def user_locales(self) -> dict[int, str]:
        """Every stored user's language: user id -> locale."""
        return {int(r["user_id"]): str(r["locale"]) for r in await self._fetch("SELECT user_id, locale FROM users")}

    # ------------------------------------------------------------------ people's own settings (bot.host.user_settings)

    async def user_settings(self) -> dict[int, UserSettings]:
        """Every stored person's settings: user id -> settings."""
        async with self._read() as db:
            return await user_settings.read_all(db)

    async def set_user_settings(self, user_id: int, settings: UserSettings, *, now: float,
                                held_due_at: float) -> int:
        """Store a person's settings, their held DMs made due at ``held_due_at`` (one transaction); how many moved."""
        async with self._write() as db:
            return await user_settings.write(db, user_id, settings, now=now, held_due_at=held_due_at)

    async def hold_deliveries(self, holds: Sequence[tuple[int, dict[str, Any]]], *, due_at: float) -> None:
        """Hold DM deliveries ``(id, payload)`` until ``due_at`` (marked held), in one transaction."""
        async with self._write() as db:
            await user_settings.hold(db, list(holds), due_at)

    async def held_deliveries(self, user_id: int) -> list[DeliveryRow]:
        """A person's pending held DMs, of every game, in the order they were written."""
        rows = await self._fetch(f"{_DELIVERIES} WHERE user_id = ? AND done_at IS NULL AND payload LIKE ?"
                                 " ORDER BY id", user_id, HELD_PATTERN)
        return [DeliveryRow.read(r) for r in rows]

    async def open_games_of(self, user_id: int) -> list[GameRow]:
        """The open games whose seats name ``user_id`` (a LIKE prefilter: the caller checks them), oldest first."""
        return await self._games(f"{_GAMES} WHERE {_OPEN} AND seats LIKE ? ORDER BY id",
                                 user_settings.seats_name(user_id))

    # ------------------------------------------------------------------ players' history (bot.host.history_store)

    async def player_history(self, guild_id: int, user_id: int) -> tuple[list[dict[str, Any]], dict[str, Rating],
                                                                          dict[str, list[float]]]:
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


# ---------------------------------------------------------------------- the pieces of a write


async def _apply(db: Db, game_id: int, change: Change, now: float, expect_version: int | None) -> int | None:
    """One game's change inside a write transaction (see :meth:`SqlStore.apply`); its new version."""
    if change.timer is not None and not await db.execute(
            "UPDATE timers SET done_at = ? WHERE id = ? AND done_at IS NULL", now, change.timer):
        raise VersionConflict(f"timer {change.timer} is done already")
    move = change.move
    if move is not None:
        await db.execute(f"INSERT INTO moves ({', '.join(MOVE_COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                         move.game_id, move.seq, move.seat, move.user_id, move.move, move.interaction_id,
                         move.created_at)
    if change.untimed is not None:
        await db.execute("DELETE FROM turn_times WHERE game_id = ? AND seq = ?", game_id, change.untimed)
    took = change.turn_time
    if took is not None:
        await db.execute("INSERT INTO turn_times (game_id, seq, guild_id, user_id, seconds, moved_at)"
                         " VALUES (?, ?, ?, ?, ?, ?)", took.game_id, took.seq, took.guild_id, took.user_id,
                         took.seconds, took.moved_at)
    version = await _update(db, game_id, now, change.columns, expect_version) if change.touches_game else None
    await _add_deliveries(db, game_id, now, change.deliveries)
    await _set_timers(db, game_id, now, change.timers, change.cancel_timers)
    if change.results:
        await history_store.write_results(db, change.results, now)
    return version


async def _update(db: Db, game_id: int, now: float, columns: Mapping[str, Any], expect_version: int | None) -> int:
    """Set ``columns`` of the game and bump its version (only at ``expect_version`` when given); a game no
    longer open has its pending timers cancelled with it."""
    unknown = columns.keys() - UPDATABLE
    if unknown:
        raise ValueError(f"cannot update {sorted(unknown)}")
    values = {k: dumps(v) if k in JSON_COLUMNS else v for k, v in columns.items()}
    values["updated_at"] = now
    check = "" if expect_version is None else " AND version = ?"
    params = (*values.values(), game_id) + (() if expect_version is None else (expect_version,))
    rows = await db.fetch(f"UPDATE games SET {', '.join(f'{k} = ?' for k in values)}, version = version + 1"
                          f" WHERE id = ?{check} RETURNING version", *params)
    if not rows:
        if expect_version is not None and await db.fetch("SELECT 1 FROM games WHERE id = ?", game_id):
            raise VersionConflict(f"game {game_id} is no longer at version {expect_version}")
        raise StoreError(f"there is no game {game_id}")
    if values.get("status") not in (None, *OPEN_STATUSES):
        await db.execute("UPDATE timers SET done_at = ? WHERE game_id = ? AND done_at IS NULL", now, game_id)
    return int(rows[0]["version"])


async def _set_timers(db: Db, game_id: int, now: float, timers: Sequence[NewTimer], cancel: Sequence[str]) -> None:
    """Cancel the game's pending timers of the kinds ``cancel``, then add ``timers``."""
    if cancel:
        await db.execute(f"UPDATE timers SET done_at = ? WHERE game_id = ? AND done_at IS NULL"
                         f" AND kind IN ({', '.join('?' * len(cancel))})", now, game_id, *cancel)
    if timers:
        await db.executemany(
            "INSERT INTO timers (game_id, channel_id, kind, seat, user_id, payload, created_at, due_at)"
            " SELECT id, channel_id, ?, ?, ?, ?, ?, ? FROM games WHERE id = ?",
            [(t.kind, t.seat, t.user_id, dumps(t.payload), now, t.due_at, game_id) for t in timers])


async def _add_deliveries(db: Db, game_id: int, now: float, deliveries: Sequence[NewDelivery]) -> None:
    if deliveries:
        await db.executemany(
            "INSERT INTO deliveries (game_id, channel_id, seq, kind, user_id, payload, created_at, due_at)"
            " SELECT id, channel_id, ?, ?, ?, ?, ?, ? FROM games WHERE id = ?",
            [(d.seq, d.kind, d.user_id, dumps(d.payload), now, now, game_id) for d in deliveries])


# ---------------------------------------------------------------------- rows


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
