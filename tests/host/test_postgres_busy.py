"""``BUSY_TIMEOUT`` on PostgreSQL, as on SQLite: a write that waits for a row another session holds fails after
that long as :class:`StorageFailed` and writes nothing; reads do not wait for it; and only the schema migration
waits for another process (its migration) however long that takes."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from bot.host.errors import StorageFailed
from bot.host.model import MoveRow
from bot.host.postgres_store import MIGRATION_LOCK, PostgresStore, timeouts

BUSY = 0.5
CH = 100


async def test_a_write_on_a_locked_row_fails_as_busy_and_reads_do_not_wait(pg_url: str) -> None:
    store = await PostgresStore.open(pg_url, busy_timeout=BUSY)
    locker = await asyncpg.connect(pg_url)
    try:
        game_id = await store.insert_game(channel_id=CH, guild_id=1, opener_id=7, seats=[{"user_id": 7, "name": "A"}],
                                          options={}, seed=1, status="running", locale="en", now=1.0)
        async with locker.transaction():
            await locker.execute("SELECT 1 FROM games WHERE id = $1 FOR UPDATE", game_id)
            with pytest.raises(StorageFailed, match="BUSY_TIMEOUT"):
                await store.update_game(game_id, now=2.0, locale="de")
            with pytest.raises(StorageFailed, match="BUSY_TIMEOUT"):
                await store.append_move(MoveRow(game_id, 1, 0, 7, "land 3", 55, 2.0), state="{}")
            assert (await store.get_game(game_id)).locale == "en"  # type: ignore[union-attr]  # reads go on
            assert await store.open_game_version(CH) == (game_id, 0)
        assert await store.moves(game_id) == []  # the refused move wrote nothing
        assert await store.update_game(game_id, now=3.0, locale="de") == 1  # the lock is gone: it is written
    finally:
        await locker.close()
        await store.close()


def test_the_timeouts_are_in_milliseconds_and_never_zero() -> None:
    assert timeouts(5) == {"lock_timeout": "5000", "statement_timeout": "5000"}
    assert timeouts(0.0001) == {"lock_timeout": "1", "statement_timeout": "1"}  # 0 would wait for ever


async def test_opening_waits_for_another_process_migrating_longer_than_busy_timeout(pg_url: str) -> None:
    locker = await asyncpg.connect(pg_url)
    try:
        await locker.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)  # another process is migrating
        opening = asyncio.create_task(PostgresStore.open(pg_url, busy_timeout=0.1))
        waiting = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
        for _ in range(600):
            if await locker.fetchval(waiting):
                break
            await asyncio.sleep(0.05)
        assert await locker.fetchval(waiting) == 1
        await asyncio.sleep(0.5)  # five times its busy timeout
        assert not opening.done()
        await locker.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)
        store = await asyncio.wait_for(opening, 60)
    finally:
        await locker.close()
    try:
        async with store.connection() as conn:  # the pool's connections keep the busy timeout after migrating
            assert await conn.fetchval("SHOW lock_timeout") == "100ms"
            assert await conn.fetchval("SHOW statement_timeout") == "100ms"
    finally:
        await store.close()
