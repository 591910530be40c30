"""The store's games (:class:`GameSql`): a new game, the one write of a change (its move, columns, deliveries, timers
and results in ONE transaction), reading games by id, channel, thread or status, and quarantine of damaged games.

At most one game per channel is open (a partial unique index: a second is a clean :class:`ChannelBusy`); a clash on
``(game_id, seq)`` or on an interaction id is a clean :class:`MoveConflict`; a write that expected another version is
a :class:`VersionConflict` (a *conflict* with another process). The move log is the truth; the ``state`` column is a
cache of replaying it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from bot.host import history_store, user_settings
from bot.host.change import Change
from bot.host.errors import ChannelBusy, MoveConflict, StoreError, VersionConflict
from bot.host.model import COMPUTER, OPEN_STATUSES, PERSON, DamagedGame, GameRow, MoveRow, NewDelivery, NewTimer
from bot.host.sql.base import (
    GAME_COLUMNS,
    GAMES,
    JSON_COLUMNS,
    MOVE_COLUMNS,
    MOVES,
    OPEN,
    Db,
    KeyClash,
    SqlBase,
    decode_game_row,
    dumps,
)
from bot.host.sql.deliveries import add_deliveries
from bot.host.sql.timers import cancel_all_timers, set_timers

UPDATABLE: Final = frozenset(GAME_COLUMNS) - {"id", "channel_id", "guild_id", "seed", "created_at", "version",
                                              "last_message_id", "parent_id"} | {"waits_for"}
"""The ``games`` columns a change may set (the others are fixed when the game is stored, or written by their own
queries: the version, the last post's message)."""
NO_DEADLINE: Final = ('%"deadline_hours":0,%', '%"deadline_hours":0}%')
"""The stored options of a game without a turn deadline (0 hours; options are stored as :func:`dumps` writes them)."""


class GameSql(SqlBase):
    """Games: stored, changed one :class:`bot.host.change.Change` at a time, read, quarantined."""

    async def insert_game(self, *, channel_id: int, guild_id: int | None, opener_id: int,
                          seats: list[dict[str, Any]], options: dict[str, Any], seed: int, status: str,
                          locale: str, now: float, timers: Sequence[NewTimer] = (), parent_id: int | None = None,
                          deliveries: Sequence[NewDelivery] = (), waits_for: str | None = None) -> int:
        """Store a new game (with the ``timers`` it sets and the ``deliveries`` it owes) and return its id;
        :class:`ChannelBusy` if the channel has an open one. ``parent_id``: the channel whose thread ``channel_id``
        is, for a game in a thread of its own; ``waits_for``: whose move it waits for (``None``: not known, as for a
        game stored before the column)."""
        try:
            async with self._write() as db:
                rows = await db.fetch(
                    """
                    INSERT INTO games (channel_id, guild_id, opener_id, seats, options, seed, status, locale,
                                       created_at, updated_at, parent_id, waits_for)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    RETURNING id
                    """,
                    channel_id, guild_id, opener_id, dumps(seats), dumps(options), seed, status, locale, now, now,
                    parent_id, waits_for)
                game_id = int(rows[0]["id"])
                await seat_people(db, game_id, seats, status)
                await set_timers(db, game_id, now, timers, ())
                await add_deliveries(db, game_id, now, deliveries)
        except KeyClash as exc:
            raise ChannelBusy(f"channel {channel_id} has an open game") from exc
        return game_id

    async def apply(self, game_id: int, change: Change, *, now: float, expect_version: int | None = None
                    ) -> int | None:
        """Write ``change`` to the game in ONE transaction (see :class:`bot.host.change.Change`): mark its timer
        done, append its move, set its columns and bump the version, add the deliveries it owes, cancel and set
        timers, write a finished game's results. Returns the game's new version (``None``: a timer's change that
        left the game's row alone).

        ``expect_version``: write only if the game is still at that version, else :class:`VersionConflict`; a clash
        on the move's number or interaction is a :class:`MoveConflict`; a timer done already is a
        :class:`VersionConflict`."""
        (version,) = await self.apply_all([(game_id, change, expect_version)], now=now)
        return version

    async def apply_all(self, changes: Sequence[tuple[int, Change, int | None]], *, now: float) -> list[int | None]:
        """Write several games' changes (``(game id, change, expected version)``, each as :meth:`apply` writes it)
        in ONE transaction: all of them, or none when any is refused (:class:`VersionConflict`,
        :class:`MoveConflict`). Their new versions, in order. Start-up uses it to set the timers of many games
        stored without them at once."""
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
        change = Change(columns, deliveries=deliveries, timers=timers, cancel_timers=cancel_timers)
        version = await self.apply(game_id, change, now=now, expect_version=expect_version)
        assert version is not None
        return version

    async def get_game(self, game_id: int) -> GameRow | None:
        return await self._game(f"{GAMES} WHERE id = ?", game_id)

    async def game_with_moves(self, game_id: int) -> tuple[GameRow, list[MoveRow]] | None:
        """A game's row and its move log as of one moment (read apart, the log could be a move ahead of the row)."""
        async with self._snapshot() as db:
            rows = await db.fetch(f"{GAMES} WHERE id = ?", game_id)
            moves = await db.fetch(f"{MOVES} WHERE game_id = ? ORDER BY seq", game_id) if rows else []
        return (decode_game_row(rows[0]), [MoveRow(**r) for r in moves]) if rows else None

    async def open_games(self) -> list[GameRow]:
        """Every game in a lobby or running, oldest first."""
        return await self._games(f"{GAMES} WHERE {OPEN} ORDER BY id")

    async def game_ids(self) -> list[int]:
        """Every game's id, whatever its status, oldest first (rows not decoded: a damaged one is read alone)."""
        return [int(r["id"]) for r in await self._fetch("SELECT id FROM games ORDER BY id")]

    async def all_games(self) -> list[GameRow]:
        """Every game, whatever its status, oldest first."""
        return await self._games(f"{GAMES} ORDER BY id")

    async def latest_game(self, channel_id: int) -> GameRow | None:
        """The channel's most recent game, whatever its status."""
        return await self._game(f"{GAMES} WHERE channel_id = ? ORDER BY id DESC LIMIT 1", channel_id)

    async def open_games_in(self, parent_id: int) -> list[GameRow]:
        """The open games (lobby or running) in the threads of channel ``parent_id``, oldest first."""
        return await self._games(f"{GAMES} WHERE parent_id = ? AND {OPEN} ORDER BY id", parent_id)

    async def finished_games_in(self, parent_id: int, user_id: int | None = None) -> list[GameRow]:
        """The finished games in the threads of channel ``parent_id``, newest first (the last 100); with
        ``user_id``, those whose seats name the user (a LIKE prefilter, as ``open_games_of``: the caller checks
        them)."""
        seated = "%" if user_id is None else user_settings.seats_name(user_id)
        return await self._games(
            f"""
            {GAMES}
            WHERE parent_id = ? AND status = 'over' AND seats LIKE ?
            ORDER BY id DESC
            LIMIT 100
            """,
            parent_id, seated)

    async def game_version(self, game_id: int) -> int | None:
        """The game's version (bumped by every write), or ``None`` if there is no such game."""
        rows = await self._fetch("SELECT version FROM games WHERE id = ?", game_id)
        return int(rows[0]["version"]) if rows else None

    async def owing_work(self, deadline_kind: str) -> list[tuple[int, int, str | None]]:
        """``(channel id, game id, waits_for)`` of the open games that owe work whoever touches them, oldest first:
        those stored before ``waits_for`` was kept (``NULL``), the running games waiting for a computer, and those
        waiting for a person under a turn deadline without a pending timer of ``deadline_kind`` (a deadline whose
        timers were lost). Start-up loads these and no others."""
        rows = await self._fetch(
            f"""
            SELECT channel_id, id, waits_for
            FROM games
            WHERE {OPEN}
              AND (waits_for IS NULL
                   OR (status = 'running' AND waits_for = ?)
                   OR (status = 'running' AND waits_for = ? AND options NOT LIKE ? AND options NOT LIKE ?
                       AND NOT EXISTS (SELECT 1 FROM timers
                                       WHERE timers.game_id = games.id AND timers.done_at IS NULL
                                         AND timers.kind = ?)))
            ORDER BY id
            """,
            COMPUTER, PERSON, *NO_DEADLINE, deadline_kind)
        return [(int(r["channel_id"]), int(r["id"]), r["waits_for"]) for r in rows]

    async def computer_turns(self) -> list[int]:
        """The channels whose running game waits for a computer's move (as its last change stored it)."""
        rows = await self._fetch("SELECT channel_id FROM games WHERE status = 'running' AND waits_for = ? ORDER BY id",
                                 COMPUTER)
        return [int(r["channel_id"]) for r in rows]

    async def open_game_guilds(self) -> list[int]:
        """The servers with an open game."""
        rows = await self._fetch(f"SELECT DISTINCT guild_id FROM games WHERE {OPEN} AND guild_id IS NOT NULL")
        return sorted(int(r["guild_id"]) for r in rows)

    async def open_channels_of(self, guild_id: int) -> list[int]:
        """The channels of the server ``guild_id`` with an open game (rows not decoded: a damaged one counts too)."""
        rows = await self._fetch(f"SELECT channel_id FROM games WHERE guild_id = ? AND {OPEN} ORDER BY id", guild_id)
        return [int(r["channel_id"]) for r in rows]

    async def open_game_version(self, channel_id: int) -> tuple[int, int] | None:
        """``(game id, version)`` of the channel's open game, or ``None``."""
        rows = await self._fetch(f"SELECT id, version FROM games WHERE channel_id = ? AND {OPEN}", channel_id)
        return (int(rows[0]["id"]), int(rows[0]["version"])) if rows else None

    async def figures(self, now: float) -> dict[str, Any]:
        """For the metrics: the posts and DMs owed (``backlog``), the oldest due one's age (``oldest``), ``games``
        (how many of each status)."""
        async with self._read() as db:
            [owed] = await db.fetch(
                """
                SELECT COUNT(*) AS n, MIN(CASE WHEN due_at <= ? THEN created_at END) AS first
                FROM deliveries
                WHERE done_at IS NULL
                """,
                now)
            games = await db.fetch("SELECT status, COUNT(*) AS n FROM games GROUP BY status")
        return {"backlog": int(owed["n"]), "oldest": max(0.0, now - float(owed["first"] or now)),
                "games": {str(r["status"]): int(r["n"]) for r in games}}

    # ------------------------------------------------------------------ damaged games

    async def mark_damaged(self, game_id: int, *, reason: str, detail: str, now: float) -> bool:
        """Quarantine an open game (status ``damaged``, no reminders, its channel not told yet); False (and nothing
        written) if the game is not open any more."""
        async with self._write() as db:
            changed = await db.execute(
                f"""
                UPDATE games
                SET status = 'damaged', damage_reason = ?, damage_detail = ?, damage_told = 0,
                    next_reminder_at = NULL, updated_at = ?, version = version + 1
                WHERE id = ? AND {OPEN}
                """,
                reason, detail, now, game_id)
            if changed != 1:
                return False
            await cancel_all_timers(db, game_id, now)
            return True

    async def damaged_untold(self) -> list[DamagedGame]:
        """Damaged games whose channel has not been told yet, oldest first."""
        rows = await self._fetch(
            """
            SELECT id, channel_id, locale, damage_reason, damage_detail
            FROM games
            WHERE status = 'damaged' AND damage_told = 0
            ORDER BY id
            """)
        return [DamagedGame(int(r["id"]), int(r["channel_id"]), str(r["locale"]), str(r["damage_reason"] or ""),
                            str(r["damage_detail"] or "")) for r in rows]

    async def mark_damage_told(self, game_id: int, *, now: float) -> None:
        """Record that the damaged game's channel was told it cannot continue."""
        await self._execute("UPDATE games SET damage_told = 1, updated_at = ? WHERE id = ? AND status = 'damaged'",
                            now, game_id)


# ---------------------------------------------------------------------- the pieces of a change's write


async def _apply(db: Db, game_id: int, change: Change, now: float, expect_version: int | None) -> int | None:
    """One game's change inside a write transaction (see :meth:`GameSql.apply`); its new version."""
    if change.timer is not None and not await db.execute(
            "UPDATE timers SET done_at = ? WHERE id = ? AND done_at IS NULL", now, change.timer):
        raise VersionConflict(f"timer {change.timer} is done already")
    if change.move is not None:
        await add_moves(db, [change.move])
    if change.untimed is not None:
        await db.execute("DELETE FROM turn_times WHERE game_id = ? AND seq = ?", game_id, change.untimed)
    took = change.turn_time
    if took is not None:
        await db.execute(
            """
            INSERT INTO turn_times (game_id, seq, guild_id, user_id, seconds, moved_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """,
            took.game_id, took.seq, took.guild_id, took.user_id, took.seconds, took.moved_at)
    version = await _update(db, game_id, now, change.columns, expect_version) if change.touches_game else None
    await add_deliveries(db, game_id, now, change.deliveries)
    await set_timers(db, game_id, now, change.timers, change.cancel_timers)
    if change.results:
        await history_store.write_results(db, change.results, now)
    return version


async def add_moves(db: Db, moves: Sequence[MoveRow]) -> None:
    """Inside a transaction: append ``moves`` to their games' logs (a clash on a move's number or interaction is the
    transaction's :class:`KeyClash`)."""
    await db.executemany(f"INSERT INTO moves ({', '.join(MOVE_COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                         [(m.game_id, m.seq, m.seat, m.user_id, m.move, m.interaction_id, m.created_at)
                          for m in moves])


async def _update(db: Db, game_id: int, now: float, columns: Mapping[str, Any], expect_version: int | None) -> int:
    """Set ``columns`` of the game and bump its version (only at ``expect_version`` when given); a game no
    longer open has its pending timers cancelled with it."""
    unknown = columns.keys() - UPDATABLE
    if unknown:
        raise ValueError(f"cannot update {sorted(unknown)}")
    values = {k: dumps(v) if k in JSON_COLUMNS else v for k, v in columns.items()}
    values["updated_at"] = now
    at_version = "" if expect_version is None else " AND version = ?"
    params = (*values.values(), game_id) + (() if expect_version is None else (expect_version,))
    setting = ", ".join(f"{k} = ?" for k in values)
    rows = await db.fetch(f"UPDATE games SET {setting}, version = version + 1 WHERE id = ?{at_version}"
                          " RETURNING version, status", *params)
    if not rows:
        if expect_version is not None and await db.fetch("SELECT 1 FROM games WHERE id = ?", game_id):
            raise VersionConflict(f"game {game_id} is no longer at version {expect_version}")
        raise StoreError(f"there is no game {game_id}")
    if values.get("status") not in (None, *OPEN_STATUSES):
        await cancel_all_timers(db, game_id, now)
    if "seats" in columns or "status" in columns:
        await seat_people(db, game_id, columns.get("seats"), str(rows[0]["status"]))
    return int(rows[0]["version"])


async def seat_people(db: Db, game_id: int, seats: Sequence[Mapping[str, Any]] | None, status: str) -> None:
    """Inside a transaction: who sits in the game while it is open (``seat_people``, by which
    :meth:`bot.host.sql.people.PeopleSql.open_games_of` finds a person's open games), from its ``seats`` as written
    (``None``: unchanged); nobody once it is no longer open."""
    if status in OPEN_STATUSES and seats is None:
        return
    await db.execute("DELETE FROM seat_people WHERE game_id = ?", game_id)
    if status in OPEN_STATUSES and seats is not None:
        people = sorted({int(seat["user_id"]) for seat in seats if seat.get("user_id") is not None})
        await db.executemany("INSERT INTO seat_people (user_id, game_id) VALUES (?, ?)",
                             [(user_id, game_id) for user_id in people])
