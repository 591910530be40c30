"""The SQLite store on real files: migrations, WAL, one transaction per move, clean conflicts."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import aiosqlite
import pytest

from bot.host.errors import ChannelBusy, MoveConflict, StoreError
from bot.host.model import UNDO, MoveRow, effective_moves
from bot.host.store import MIGRATIONS, SCHEMA_VERSION, Store, migrate
from engine import Game, new_game
from tests.helpers.engine import TINY

NOW = 1_700_000_000.0
SEATS = [{"user_id": 1, "name": "Ada", "strength": None, "away": False, "reminded_at": None},
         {"user_id": None, "name": "Computer 1", "strength": "greedy", "away": False, "reminded_at": None}]
OPTIONS = {"draft": False, "locale": "en", "reminder_hours": 12.0, "away_hours": 48.0}


async def new_game_row(store: Store, channel: int = 5, status: str = "lobby") -> int:
    return await store.insert_game(channel_id=channel, guild_id=9, opener_id=1, seats=SEATS, options=OPTIONS,
                                   seed=77, status=status, locale="en", now=NOW)


def move(game_id: int, seq: int, text: str, interaction: int | None = None) -> MoveRow:
    return MoveRow(game_id, seq, 0, 1, text, interaction, NOW + seq)


async def columns(path: Path, table: str) -> list[str]:
    async with aiosqlite.connect(path) as conn, conn.execute(f"PRAGMA table_info({table})") as cur:
        return [row[1] for row in await cur.fetchall()]


async def user_version(path: Path) -> int:
    async with aiosqlite.connect(path) as conn, conn.execute("PRAGMA user_version") as cur:
        row = await cur.fetchone()
    assert row is not None
    return int(row[0])


# ---------------------------------------------------------------------- schema


async def test_an_empty_database_is_migrated_to_the_latest_version(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    store = await Store.open(path)
    assert await store.schema_version() == SCHEMA_VERSION == len(MIGRATIONS) == 16
    await store.close()
    assert await user_version(path) == SCHEMA_VERSION
    assert {"next_reminder_at", "version"} <= set(await columns(path, "games"))
    assert await columns(path, "leases") == ["name", "owner", "until"]
    assert await columns(path, "users") == ["user_id", "locale", "updated_at"]
    assert await columns(path, "moves") == ["game_id", "seq", "seat", "user_id", "move", "interaction_id",
                                            "created_at"]
    async with aiosqlite.connect(path) as conn, conn.execute("PRAGMA journal_mode") as cur:
        assert (await cur.fetchone())[0] == "wal"
    # opening again changes nothing
    store = await Store.open(path)
    assert await store.schema_version() == SCHEMA_VERSION
    await store.close()


async def test_a_version_1_database_is_upgraded_with_its_games(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    game = new_game(["Ada", "Computer 1"], 77, island=TINY)
    moves = [str(game.legal_moves()[0])]
    game.apply(moves[0])
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        assert await migrate(conn, 1) == 1
        await conn.execute(
            "INSERT INTO games (channel_id, guild_id, opener_id, seats, options, seed, status, locale,"
            " created_at, updated_at, last_move_at, state) VALUES (5, 9, 1, ?, ?, 77, 'running', 'en', ?, ?, ?, ?)",
            (json.dumps(SEATS), json.dumps(OPTIONS), NOW, NOW, NOW, game.to_json()))
        await conn.execute("INSERT INTO moves VALUES (1, 1, 0, 1, ?, 123, ?)", (moves[0], NOW))
    assert await user_version(path) == 1
    assert "next_reminder_at" not in await columns(path, "games")

    store = await Store.open(path)
    assert await store.schema_version() == SCHEMA_VERSION
    (row,) = await store.open_games()
    assert (row.id, row.channel_id, row.status, row.seats, row.options, row.seed) == (
        1, 5, "running", SEATS, OPTIONS, 77)
    assert row.next_reminder_at is None and Game.from_json(row.state) == game
    assert [m.move for m in await store.moves(1)] == moves
    assert (await store.move_by_interaction(123)).seq == 1
    await store.update_game(1, now=NOW + 5, next_reminder_at=NOW + 100)
    upgraded = await store.get_game(1)
    assert upgraded is not None and upgraded.next_reminder_at == NOW + 100
    await store.close()


async def test_a_version_2_database_is_upgraded_with_its_games_and_gets_the_users(tmp_path: Path) -> None:
    path = tmp_path / "v2.db"
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        assert await migrate(conn, 2) == 2
        await conn.execute(
            "INSERT INTO games (channel_id, guild_id, opener_id, seats, options, seed, status, locale,"
            " created_at, updated_at, last_move_at, state, next_reminder_at)"
            " VALUES (5, 9, 1, ?, ?, 77, 'running', 'en', ?, ?, ?, NULL, ?)",
            (json.dumps(SEATS), json.dumps(OPTIONS), NOW, NOW, NOW, NOW + 100))
        await conn.execute("INSERT INTO moves VALUES (1, 1, 0, 1, 'land 1', 123, ?)", (NOW,))
    assert await user_version(path) == 2
    async with aiosqlite.connect(path) as conn, conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'users'") as cur:
        assert await cur.fetchall() == []

    store = await Store.open(path)
    assert await store.schema_version() == SCHEMA_VERSION
    (row,) = await store.open_games()
    assert (row.id, row.channel_id, row.status, row.seats, row.options, row.seed, row.next_reminder_at) == (
        1, 5, "running", SEATS, OPTIONS, 77, NOW + 100)
    assert [(m.move, m.interaction_id) for m in await store.moves(1)] == [("land 1", 123)]
    assert await store.user_locales() == {}
    await store.set_user_locale(1, "de", now=NOW)
    await store.close()
    assert await columns(path, "users") == ["user_id", "locale", "updated_at"]
    async with aiosqlite.connect(path) as conn, conn.execute("PRAGMA journal_mode") as cur:
        assert (await cur.fetchone())[0] == "wal"


async def test_a_newer_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    async with aiosqlite.connect(path) as conn:
        await conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        await conn.commit()
    with pytest.raises(StoreError, match="newer"):
        await Store.open(path)


async def test_a_failing_migration_step_leaves_the_version_alone(tmp_path: Path) -> None:
    path = tmp_path / "half.db"
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        await migrate(conn, 1)
        await conn.execute("ALTER TABLE games ADD COLUMN next_reminder_at REAL")  # step 2 will clash
        with pytest.raises(Exception, match="duplicate column"):
            await migrate(conn)
    assert await user_version(path) == 1


# ---------------------------------------------------------------------- games


async def test_games_round_trip(store: Store) -> None:
    game_id = await new_game_row(store)
    row = await store.get_game(game_id)
    assert row is not None
    assert (row.channel_id, row.guild_id, row.opener_id, row.seats, row.options, row.seed, row.status) == (
        5, 9, 1, SEATS, OPTIONS, 77, "lobby")
    assert row.created_at == row.updated_at == NOW and row.state is None
    assert "77" not in repr(row)  # the seed is never shown
    await store.update_game(game_id, now=NOW + 1, status="running", seats=SEATS[:1], state="{}")
    row = await store.get_game(game_id)
    assert (row.status, row.seats, row.state, row.updated_at) == ("running", SEATS[:1], "{}", NOW + 1)
    assert await store.get_game(999) is None
    with pytest.raises(ValueError, match="seed"):
        await store.update_game(game_id, now=NOW, seed=1)
    with pytest.raises(StoreError):
        await store.update_game(999, now=NOW, status="over")


async def test_one_open_game_per_channel(store: Store) -> None:
    first = await new_game_row(store)
    with pytest.raises(ChannelBusy):
        await new_game_row(store)
    other = await new_game_row(store, channel=6)
    await store.update_game(first, now=NOW, status="over")
    second = await new_game_row(store)
    assert first < other < second  # ids grow (PostgreSQL may skip the one the refused insert drew)
    assert [g.id for g in await store.open_games()] == [other, second]
    assert (await store.latest_game(5)).id == second
    assert await store.latest_game(404) is None


# ---------------------------------------------------------------------- moves


async def test_a_move_and_the_game_are_written_together(store: Store) -> None:
    game_id = await new_game_row(store, status="running")
    await store.append_move(move(game_id, 1, "land 1", 10), state="S1", last_move_at=NOW + 1)
    row = await store.get_game(game_id)
    assert (row.state, row.last_move_at, row.updated_at) == ("S1", NOW + 1, NOW + 1)
    # a clash on (game_id, seq) writes neither the move nor the game's columns
    with pytest.raises(MoveConflict):
        await store.append_move(move(game_id, 1, "land 2", 11), state="S2")
    # nor does a clash on the interaction id
    with pytest.raises(MoveConflict):
        await store.append_move(move(game_id, 2, "land 2", 10), state="S2")
    # nor a bad game column
    with pytest.raises(ValueError):
        await store.append_move(move(game_id, 2, "land 2", 12), seed=5)
    assert (await store.get_game(game_id)).state == "S1"
    assert [(m.seq, m.move, m.interaction_id) for m in await store.moves(game_id)] == [(1, "land 1", 10)]
    assert await store.move_by_interaction(11) is None
    # computer moves have no interaction: any number of them
    await store.append_move(move(game_id, 2, "land 2"), state="S2")
    await store.append_move(move(game_id, 3, UNDO), state="S3")
    assert [m.interaction_id for m in await store.moves(game_id)] == [10, None, None]


def test_effective_moves_apply_the_undo_rows() -> None:
    rows = [move(1, 1, "set A"), move(1, 2, "set B"), move(1, 3, UNDO), move(1, 4, "set C"),
            move(1, 5, "land 1"), move(1, 6, UNDO), move(1, 7, UNDO), move(1, 8, "set D")]
    assert [r.move for r in effective_moves(rows)] == ["set A", "set D"]
    with pytest.raises(ValueError, match="no move to take back"):
        effective_moves([move(1, 1, UNDO)])


# ---------------------------------------------------------------------- users


async def test_user_locales_are_upserted_and_survive_a_new_store(tmp_path: Path) -> None:
    path = tmp_path / "users.db"
    store = await Store.open(path)
    assert await store.user_locales() == {}
    await store.set_user_locale(11, "de", now=NOW)
    await store.set_user_locale(12, "fr", now=NOW)
    await store.set_user_locale(11, "en", now=NOW + 5)  # the same user again: one row, the new language
    assert await store.user_locales() == {11: "en", 12: "fr"}
    await store.close()

    store = await Store.open(path)
    assert await store.user_locales() == {11: "en", 12: "fr"}
    await store.close()
    async with aiosqlite.connect(path) as conn, conn.execute(
            "SELECT user_id, locale, updated_at FROM users ORDER BY user_id") as cur:
        assert [tuple(r) for r in await cur.fetchall()] == [(11, "en", NOW + 5), (12, "fr", NOW)]


# ---------------------------------------------------------------------- a reader or writer cancelled


@pytest.mark.parametrize("cancelled", ["read", "write"])
async def test_a_task_cancelled_while_its_transaction_begins_leaves_the_connection_free(tmp_path: Path,
                                                                                        cancelled: str) -> None:
    """A task stopped while SQLite begins its transaction (a computer task ended with its channel, a timeout): the
    connection's thread begins it all the same, and the store ends it, so the writes after it still work."""
    store = await Store.open(tmp_path / "cancelled.db")
    try:
        game_id = await new_game_row(store)
        reading = asyncio.create_task(store.game_with_moves(game_id) if cancelled == "read"
                                      else store.update_game(game_id, now=NOW, status="running"))
        await asyncio.sleep(0)  # it took the store's lock and waits for BEGIN
        reading.cancel()
        with pytest.raises(asyncio.CancelledError):
            await reading
        assert await store.update_game(game_id, now=NOW, status="abandoned") == 1
        assert (await store.get_game(game_id)).status == "abandoned"  # type: ignore[union-attr]
    finally:
        await store.close()
