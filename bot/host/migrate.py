"""Copy a SQLite database to PostgreSQL: ``santacruz-bot migrate --from sqlite:PATH --to postgresql://…``.

Every row of every table the two schemas share (games, their move logs, users, …) is copied with its own
ids, in one PostgreSQL transaction, then each copied game is checked by replaying its move log with the
engine: the replay must succeed and, where the game has a snapshot, reach the same state. Rows already
in PostgreSQL (same primary key) are left as they are, so running it twice copies nothing twice; a row
whose stored copy differs is reported. The SQLite file is opened read-only and never changed.

A game the bot would quarantine as damaged (seats or options that cannot be read, or are not seats and options
of this bot; a move log that does not replay) is copied as it is and named in the report: the bot on PostgreSQL
quarantines it at start-up as the SQLite one does, and every other row is copied all the same.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import aiosqlite

from bot.host.errors import Damage, DamagedRow, StoreError
from bot.host.model import MoveRow, effective_moves
from bot.host.postgres_store import PostgresStore
from bot.host.restore import stored_options, stored_seats
from engine import Game, new_game

TABLES: Final = ("games", "moves", "users", "results", "ratings", "rating_history", "standings", "user_settings",
                  "deliveries", "timers", "turn_times", "web_pages", "web_servers", "web_revocations",
                  "dm_channels", "seat_people")
"""Copied in this order (moves refer to games). Tables only one side has are left out. The posts and DMs still
owed (``deliveries``) and the pending timers (deadlines, vacations, idle tables) come along, so nothing a game
waits for is lost; leases are not copied (they belong to running processes). The games' web pages keep their
tokens, so the links already posted keep working."""
KEYS: Final = {"games": ("id",), "moves": ("game_id", "seq"), "users": ("user_id",), "results": ("game_id", "seat"),
               "ratings": ("guild_id", "pool", "user_id"), "rating_history": ("guild_id", "pool", "user_id", "game_id"),
               "standings": ("guild_id", "user_id"), "user_settings": ("user_id",), "deliveries": ("id",),
               "timers": ("id",), "turn_times": ("game_id", "seq"), "web_pages": ("game_id",),
               "web_servers": ("guild_id",), "web_revocations": ("user_id",),
               "dm_channels": ("user_id",), "seat_people": ("user_id", "game_id")}
NUMBERED: Final = ("games", "deliveries", "timers")
"""Tables whose ids PostgreSQL numbers: their sequences continue after the copied ids."""


@dataclass
class MigrationReport:
    """What a copy did: rows copied and already present per table, games checked, and problems found."""

    copied: dict[str, int] = field(default_factory=dict)
    present: dict[str, int] = field(default_factory=dict)
    checked: int = 0
    problems: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The report in words, for the console."""
        out = [f"{table}: {self.copied.get(table, 0)} copied, {self.present.get(table, 0)} already there"
               for table in TABLES]
        out.append(f"games checked by replaying their moves: {self.checked}")
        out.extend(f"problem: {p}" for p in self.problems)
        return out


def sqlite_path(source: str) -> Path:
    """The file of a ``sqlite:PATH`` source (a plain path is accepted too)."""
    path = Path(source.removeprefix("sqlite:"))
    if not path.is_file():
        raise StoreError(f"there is no SQLite database at {path}")
    return path


async def copy_database(source: str, target_url: str) -> MigrationReport:
    """Copy ``source`` (``sqlite:PATH``) into the PostgreSQL database at ``target_url`` (migrated first)."""
    path = sqlite_path(source)
    report = MigrationReport()
    target = await PostgresStore.open(target_url)
    try:
        async with aiosqlite.connect(f"file:{path}?mode=ro", uri=True) as conn:
            conn.row_factory = aiosqlite.Row
            async with target.connection() as pg, pg.transaction():
                for table in TABLES:
                    await _copy_table(conn, pg, table, report)
                for table in NUMBERED:
                    await pg.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
                                     f" GREATEST((SELECT max(id) FROM {table}), 1))")
        for game_id in await target.game_ids():
            report.checked += 1
            try:
                game = await target.get_game(game_id)
            except DamagedRow as exc:
                report.problems.append(_damaged(game_id, exc.reason, exc.detail))
                continue
            if game is None:
                continue
            problem = _check(game.id, game.seats, game.options, game.seed, game.state, await target.moves(game.id))
            if problem:
                report.problems.append(problem)
    finally:
        await target.close()
    return report


async def _copy_table(conn: aiosqlite.Connection, pg: Any, table: str, report: MigrationReport) -> None:
    async with conn.execute(f"PRAGMA table_info({table})") as cur:
        source_columns = [row[1] for row in await cur.fetchall()]
    target_columns = {r["column_name"] for r in await pg.fetch(
        "SELECT column_name FROM information_schema.columns WHERE table_name = $1", table)}
    columns = [c for c in source_columns if c in target_columns]
    if not columns:
        return
    keys = KEYS[table]
    placeholders = ", ".join(f"${i}" for i in range(1, len(columns) + 1))
    insert = (f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({placeholders})"
              f" ON CONFLICT ({', '.join(keys)}) DO NOTHING")
    select = f"SELECT {', '.join(columns)} FROM {table} WHERE " + " AND ".join(
        f"{k} = ${i}" for i, k in enumerate(keys, start=1))
    copied = present = 0
    async with conn.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY {', '.join(keys)}") as cur:
        async for row in cur:
            values = [row[c] for c in columns]
            status = await pg.execute(insert, *values)
            if status.endswith(" 1"):
                copied += 1
                continue
            present += 1
            stored = await pg.fetchrow(select, *(row[k] for k in keys))
            if stored is not None and [stored[c] for c in columns] != values:
                report.problems.append(f"{table} {tuple(row[k] for k in keys)}: PostgreSQL already holds a "
                                       "different row; left as it is")
    report.copied[table], report.present[table] = copied, present


def _damaged(game_id: int, reason: str, detail: str) -> str:
    """The report's line for a game the bot will quarantine because its ``reason`` (seats, options) is damaged."""
    return (f"game {game_id}: its {reason} cannot be read ({detail}); copied as it is, the bot quarantines it as "
            "damaged and tells its channel")


def _check(game_id: int, seats: list[dict[str, Any]], options: dict[str, Any], seed: int, state: str | None,
           log: list[MoveRow]) -> str | None:
    """Why game ``game_id`` cannot be played on (seats or options the bot refuses) or does not replay to its
    stored state, or ``None`` when it does."""
    try:
        stored_seats(seats)
        stored_options(options)
    except Damage as exc:
        return _damaged(game_id, exc.reason, exc.detail)
    if state is None and not log:
        return None  # a lobby: nothing to replay
    try:
        moves = [row.move for row in effective_moves(log)]
        game = new_game([s["name"] for s in seats], seed, draft=bool(options.get("draft")))
        for move in moves:
            game.apply(move)
    except (ValueError, KeyError, TypeError) as exc:
        return f"game {game_id}: its move log does not replay ({exc})"
    if state is not None:
        try:
            snapshot = Game.from_json(state)
        except (ValueError, KeyError, TypeError):
            return None  # an unreadable snapshot is replaced by the replay when the game is loaded
        if json.loads(snapshot.to_json()) != json.loads(game.to_json()):
            return f"game {game_id}: its snapshot differs from the replay of its {len(moves)} moves " \
                   f"(the bot replays the log when it loads the game)"
    return None

