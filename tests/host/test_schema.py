"""The schema written once for both stores (``bot/host/schema.py``) gives the schema each store always had: a
fresh PostgreSQL database has exactly the columns, indexes and constraints recorded in ``pg_schema.txt`` (taken
from the hand-written PostgreSQL migrations before they were shared; ``pg_dump --schema-only`` of a fresh
database was the same before and after), a fresh SQLite file exactly the statements of ``sqlite_schema.txt``;
and a database of the previous schema version keeps its pending timers and deliveries firing after the upgrade, and
knows who sits in its open games.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiosqlite
import asyncpg
import pytest

from bot.host.postgres_store import PG_SCHEMA_VERSION, PostgresStore, migrate_pg
from bot.host.schema import MIGRATIONS, PG_MIGRATIONS, SCHEMA_VERSION
from bot.host.store import Store, migrate

HERE = Path(__file__).parent
NOW = 1_700_000_000.0
SEATS = [{"user_id": 1, "name": "Ada", "strength": None, "away": False, "reminded_at": None},
         {"user_id": None, "name": "Computer 1", "strength": "greedy", "away": False, "reminded_at": None}]

PG_SCHEMA_QUERY = """
SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' '
       || CASE WHEN is_nullable = 'YES' THEN 'null' ELSE 'not null' END
       || COALESCE(' default ' || column_default, '') || ' #' || ordinal_position AS line
  FROM information_schema.columns WHERE table_schema = 'public'
UNION ALL
SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'public'
UNION ALL
SELECT 'constraint ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
  FROM pg_constraint WHERE connamespace = 'public'::regnamespace
UNION ALL
SELECT 'identity ' || table_name || '.' || column_name || ' ' || identity_generation
  FROM information_schema.columns WHERE table_schema = 'public' AND is_identity = 'YES'
ORDER BY 1"""


def expected(name: str) -> list[str]:
    return (HERE / name).read_text(encoding="utf-8").splitlines()


async def pg_schema(url: str) -> list[str]:
    conn = await asyncpg.connect(url)
    try:
        return [str(r["line"]) for r in await conn.fetch(PG_SCHEMA_QUERY)]
    finally:
        await conn.close()


async def sqlite_schema(path: Path) -> list[str]:
    async with aiosqlite.connect(path) as conn, conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name") as cur:
        return [f"{t} {n}: {' '.join(str(s).split())}" for t, n, s in await cur.fetchall()]


def test_both_dialects_take_the_same_steps() -> None:
    assert len(MIGRATIONS) == len(PG_MIGRATIONS) == SCHEMA_VERSION == PG_SCHEMA_VERSION == 16
    assert all("AUTOINCREMENT" not in sql and "WITHOUT ROWID" not in sql and " REAL" not in sql
               for step in PG_MIGRATIONS for sql in step)


async def test_a_fresh_postgresql_database_has_the_recorded_schema(pg_empty_url: str) -> None:
    store = await PostgresStore.open(pg_empty_url)
    await store.close()
    assert await pg_schema(pg_empty_url) == expected("pg_schema.txt")


async def test_a_fresh_sqlite_file_has_the_recorded_schema(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "fresh.db")
    await store.close()
    assert await sqlite_schema(tmp_path / "fresh.db") == expected("sqlite_schema.txt")


# ---------------------------------------------------------------------- an upgrade from the previous version

GAME = ("INSERT INTO games (channel_id, guild_id, opener_id, seats, options, seed, status, locale, created_at,"
        " updated_at, last_move_at, state, version) VALUES (5, 9, 1, ?, ?, 77, 'running', 'en', ?, ?, ?, NULL, 3)")
TIMER = ("INSERT INTO timers (game_id, channel_id, kind, seat, user_id, payload, created_at, due_at)"
         " VALUES (1, 5, 'deadline', 0, 1, ?, ?, ?)")
DELIVERY = ("INSERT INTO deliveries (game_id, channel_id, seq, kind, user_id, payload, created_at, due_at)"
            " VALUES (1, 5, 1, 'move_post', NULL, ?, ?, ?)")


def rows() -> list[tuple[str, tuple[Any, ...]]]:
    return [(GAME, (json.dumps(SEATS), json.dumps({"locale": "en"}), NOW, NOW, NOW)),
            (TIMER, (json.dumps({"seq": 1}), NOW, NOW + 60)),
            (DELIVERY, (json.dumps({"text": "hello"}), NOW, NOW + 30))]


async def fires_after_the_upgrade(store: Any, since: int) -> None:
    """What a store upgraded from schema version ``since`` still does, and what its upgrade added."""
    assert await store.schema_version() == SCHEMA_VERSION
    assert await store.claim_timers(NOW + 59, owner="a", lease=60) == []
    (timer,) = await store.claim_timers(NOW + 60, owner="a", lease=60)
    assert (timer.game_id, timer.channel_id, timer.kind, timer.seat, timer.payload) == (1, 5, "deadline", 0, {"seq": 1})
    assert await store.finish_timer(timer.id, now=NOW + 61, expect_version=3, last_move_at=NOW + 61) == 4
    (delivery,) = await store.pending_deliveries(5)
    assert (delivery.kind, delivery.payload, delivery.due_at) == ("move_post", {"text": "hello"}, NOW + 30)
    await store.mark_delivered(delivery.id, now=NOW + 62, post_id=777)
    assert await store.pending_deliveries() == []
    (game,) = await store.open_games()
    assert (game.version, game.last_message_id, game.seats) == (4, 777, SEATS)
    if since < 15:  # the upgrade to 15 says who sits in the open games it found (later, their writes say it)
        for seat in SEATS:
            if seat.get("user_id") is not None:
                assert [g.id for g in await store.open_games_of(seat["user_id"])] == [game.id]
    # and to 16 finds a game's deliveries by game: its latest post
    latest = await store.last_post(game.id)
    assert latest is not None and (latest[0], latest[1].id) == (777, delivery.id)


@pytest.mark.parametrize("step", [14, SCHEMA_VERSION - 1])
async def test_a_sqlite_file_of_an_earlier_version_keeps_its_timers_and_deliveries(tmp_path: Path, step: int) -> None:
    path = tmp_path / f"v{step}.db"
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        assert await migrate(conn, step) == step
        for sql, params in rows():
            await conn.execute(sql, params)
    store = await Store.open(path)
    try:
        await fires_after_the_upgrade(store, step)
    finally:
        await store.close()


@pytest.mark.parametrize("step", [14, SCHEMA_VERSION - 1])
async def test_a_postgresql_database_of_an_earlier_version_keeps_its_timers_and_deliveries(
        pg_empty_url: str, step: int) -> None:
    conn = await asyncpg.connect(pg_empty_url)
    try:
        assert await migrate_pg(conn, step) == step
        for sql, params in rows():
            parts = sql.split("?")
            await conn.execute(parts[0] + "".join(f"${i}{p}" for i, p in enumerate(parts[1:], start=1)), *params)
    finally:
        await conn.close()
    store = await PostgresStore.open(pg_empty_url)
    try:
        await fires_after_the_upgrade(store, step)
    finally:
        await store.close()
