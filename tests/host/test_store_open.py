"""A database file that cannot be opened or written: a clear message naming the file and the likely cause,
from ``Store.open`` and from ``santacruz-bot`` at start-up (exit code 3, no traceback). Every fault is real:
a missing folder, a folder in the way, a file that is no database, a folder without write permission."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.host.errors import StoreError, StoreOpenError
from bot.host.store import Store


async def refusal(path: Path) -> str:
    with pytest.raises(StoreOpenError) as caught:
        await Store.open(path)
    assert isinstance(caught.value, StoreError)
    return str(caught.value)


async def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    path = tmp_path / "no-such-folder" / "santacruz.db"
    text = await refusal(path)
    assert str(path) in text
    assert f"the folder {path.parent} does not exist" in text
    assert not path.parent.exists()


async def test_a_folder_in_place_of_the_file(tmp_path: Path) -> None:
    text = await refusal(tmp_path)
    assert str(tmp_path) in text
    assert "that is a folder" in text


async def test_a_file_that_is_not_a_database_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    content = b"shopping list\n" * 400
    path.write_bytes(content)
    text = await refusal(path)
    assert str(path) in text
    assert "not a SQLite database" in text
    assert path.read_bytes() == content


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write in any folder, so the permission fault cannot be made")
async def test_a_folder_without_write_permission(tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        text = await refusal(folder / "santacruz.db")
    finally:
        folder.chmod(0o700)
    assert f"no permission to write in the folder {folder}" in text


async def test_a_good_path_still_opens(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "fine.db")
    try:
        assert await store.schema_version() > 0
    finally:
        await store.close()


def test_the_bot_says_so_at_start_up_and_exits_without_a_traceback(tmp_path: Path) -> None:
    """``santacruz-bot`` with an unusable ``DATABASE_PATH`` stops before logging in (no network needed)."""
    path = tmp_path / "missing" / "santacruz.db"
    env = {**os.environ, "DISCORD_TOKEN": "not-a-real-token", "DATABASE_PATH": str(path), "LOG_LEVEL": "INFO"}
    done = subprocess.run([sys.executable, "-m", "bot.adapter.main"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 3, done.stderr
    assert f"santacruz-bot: cannot open the database {path}" in done.stderr
    assert "does not exist" in done.stderr
    assert "Traceback" not in done.stderr
    assert "not-a-real-token" not in done.stderr + done.stdout


async def test_processes_starting_together_on_an_empty_postgresql_migrate_it_once(pg_empty_url: str) -> None:
    """Four stores opened at once on a new database (as four bot processes starting together): the advisory lock
    lets one migrate, the others find the schema done; every step is recorded once."""
    from bot.host.postgres_store import PG_SCHEMA_VERSION, PostgresStore

    stores = await asyncio.gather(*(PostgresStore.open(pg_empty_url) for _ in range(4)))
    try:
        assert [await s.schema_version() for s in stores] == [PG_SCHEMA_VERSION] * 4
        async with stores[0].connection() as conn:
            steps = [r["version"] for r in await conn.fetch("SELECT version FROM schema_version ORDER BY version")]
        assert steps == list(range(1, PG_SCHEMA_VERSION + 1))
        game_id = await stores[1].insert_game(channel_id=1, guild_id=2, opener_id=3, seats=[], options={}, seed=4,
                                              status="lobby", locale="en", now=5.0)
        assert (await stores[2].get_game(game_id)) is not None
    finally:
        for store in stores:
            await store.close()
