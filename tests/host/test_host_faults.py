"""The host when its database fails or holds damaged rows, on real SQLite files: a refused write changes
nothing (read-only, locked), a damaged game is quarantined while the others load (on PostgreSQL too, every
kind of damage alike), a reminder is sent once per period even when its mark cannot be stored, and finished
games are unloaded but still readable."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import aiosqlite
import asyncpg
import pytest

from bot.host.errors import HostError, damage_notice
from bot.host.host import Host
from bot.host.model import UNDO
from bot.host.postgres_store import PostgresStore
from bot.host.store import Store
from tests.host.test_host import ADA, BO, CH, CH2, CY, GUILD, Clock, make_host, play_first, refused

HOUR = 3600.0


async def read_only(store: Store, on: bool) -> None:
    """Make the store's own connection refuse writes (SQLITE_READONLY), or accept them again."""
    await store._conn.execute(f"PRAGMA query_only = {'ON' if on else 'OFF'}")  # the fault lives on this connection


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "faults.db"


@pytest.fixture
async def store(db: Path) -> AsyncIterator[Store]:
    store = await Store.open(db, busy_timeout=0.05)
    yield store
    await store.close()


async def test_a_refused_join_seats_nobody_and_a_restarted_game_plays_on(db: Path, store: Store) -> None:
    clock = Clock()
    host = make_host(store, clock)
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await host.lobby.join(CH, BO, "Bo")
    await read_only(store, True)
    error = await refused("host.error.storage", host.lobby.join(CH, CY, "Cy"))
    assert "try again" in error.text("en")
    assert host.games.info(CH).humans == (ADA, BO)
    await refused("host.error.storage", host.lobby.add_computer(CH, ADA))
    await refused("host.error.storage", host.lobby.leave(CH, BO))
    await refused("host.error.storage", host.lobby.start(CH, ADA))
    assert host.games.info(CH).status == "lobby" and host.games.info(CH).humans == (ADA, BO)
    await read_only(store, False)
    await host.lobby.start(CH, ADA)
    await store.close()

    again = await Store.open(db)
    try:
        second = make_host(again, clock)
        (info,) = await second.load()
        assert info.humans == (ADA, BO) and info.status == "running"
        result = await play_first(second)
        assert result.seq == 1
    finally:
        await again.close()


async def test_a_locked_database_refuses_away_and_changes_nothing(db: Path, store: Store) -> None:
    host = make_host(store, Clock())
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.start(CH, ADA)
    async with aiosqlite.connect(db, isolation_level=None) as other:
        await other.execute("BEGIN IMMEDIATE")
        await refused("host.error.storage", host.play.away(CH, ADA))
        user = host.games.info(CH).seats[host.games.info(CH).to_move].user_id
        await refused("host.error.storage", host.play.move(CH, user, host.play.legal_moves(CH, user)[0]))
        await other.execute("ROLLBACK")
    assert not any(s.away for s in host.games.info(CH).seats) and host.games.info(CH).seq == 0
    change = await host.play.away(CH, ADA)
    assert change.away and (await store.get_game(change.info.game_id)).seats[0]["away"] is True


class Database:
    """One database of either kind, behind the stores' backs: opened as a store (again after a restart), and
    changed or read with plain SQL (``?`` placeholders) as a bad disk, a bad hand-edit or an operator would."""

    def __init__(self, kind: str, path: Path, url: str | None) -> None:
        self.kind, self.path, self.url = kind, path, url

    async def open(self) -> Any:
        if self.url is not None:
            return await PostgresStore.open(self.url)
        return await Store.open(self.path)

    async def execute(self, sql: str, *params: object) -> None:
        if self.url is not None:
            conn = await asyncpg.connect(self.url)
            try:
                await conn.execute(_numbered(sql), *params)
            finally:
                await conn.close()
            return
        async with aiosqlite.connect(self.path, isolation_level=None) as db:
            await db.execute(sql, params)

    async def fetchone(self, sql: str, *params: object) -> tuple[Any, ...] | None:
        if self.url is not None:
            conn = await asyncpg.connect(self.url)
            try:
                row = await conn.fetchrow(_numbered(sql), *params)
            finally:
                await conn.close()
            return None if row is None else tuple(row)
        async with aiosqlite.connect(self.path, isolation_level=None) as db, db.execute(sql, params) as cur:
            found = await cur.fetchone()
            return None if found is None else tuple(found)


def _numbered(sql: str) -> str:
    """``?`` placeholders as PostgreSQL's ``$1``, ``$2``, …"""
    parts = sql.split("?")
    return parts[0] + "".join(f"${i}{part}" for i, part in enumerate(parts[1:], start=1))


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, db: Path) -> Database:
    """Each kind of database in turn (PostgreSQL: this test's empty one on the throwaway cluster)."""
    url = request.getfixturevalue("pg_url") if request.param == "postgres" else None
    return Database(request.param, db, url)


Damager = Callable[[Database, int], Awaitable[None]]


async def corrupt(database: Database, game_id: int, sql: str, *params: object) -> None:
    await database.execute(sql, *params, game_id)


async def cut_seats(database: Database, game_id: int) -> None:
    await corrupt(database, game_id, "UPDATE games SET seats = substr(seats, 1, 20) WHERE id = ?")


async def seats_not_a_list(database: Database, game_id: int) -> None:
    await corrupt(database, game_id, "UPDATE games SET seats = ? WHERE id = ?", json.dumps({"0": "Ada"}))


async def unknown_seat_key(database: Database, game_id: int) -> None:
    seats = [{"user_id": ADA, "name": "Ada", "hat": 1}, {"user_id": BO, "name": "Bo"}]
    await corrupt(database, game_id, "UPDATE games SET seats = ? WHERE id = ?", json.dumps(seats))


async def cut_options(database: Database, game_id: int) -> None:
    await corrupt(database, game_id, "UPDATE games SET options = substr(options, 1, 5) WHERE id = ?")


async def unknown_option_key(database: Database, game_id: int) -> None:
    await corrupt(database, game_id, "UPDATE games SET options = ? WHERE id = ?", json.dumps({"colour": "red"}))


async def illegal_move(database: Database, game_id: int) -> None:
    await corrupt(database, game_id, "UPDATE moves SET move = 'build 999' WHERE seq = 1 AND game_id = ?")


async def undo_first(database: Database, game_id: int) -> None:
    await corrupt(database, game_id, "UPDATE moves SET move = ? WHERE seq = 1 AND game_id = ?", UNDO)


DAMAGES: list[tuple[Damager, str]] = [
    (cut_seats, "seats"), (seats_not_a_list, "seats"), (unknown_seat_key, "seats"), (cut_options, "options"),
    (unknown_option_key, "options"), (illegal_move, "log"), (undo_first, "log")]
"""Every kind of damage a stored game can have, and the reason it is quarantined for (shared with the
migration's tests)."""


@pytest.mark.parametrize(("damage", "reason"), DAMAGES, ids=[d.__name__ for d, _ in DAMAGES])
async def test_a_damaged_game_is_quarantined_and_the_others_load(database: Database, damage: Damager, reason: str,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    store = await database.open()
    host = make_host(store, clock)
    for channel in (CH, CH2):
        await host.lobby.open(channel, GUILD, ADA, "Ada")
        await host.lobby.join(channel, BO, "Bo")
        await host.lobby.start(channel, ADA)
        await play_first(host, channel)
    bad, good = host.games.info(CH).game_id, host.games.info(CH2).game_id
    await store.close()
    await damage(database, bad)

    again = await database.open()
    try:
        second = make_host(again, clock)
        loaded = await second.load()
        assert [i.game_id for i in loaded] == [good]
        assert second.games.info(CH) is None and second.games.info(CH2).seq == 1
        assert (await play_first(second, CH2)).seq == 2
        (untold,) = second.restore.damaged_untold()
        assert (untold.game_id, untold.channel_id, untold.reason) == (bad, CH, reason)
        assert f"#{bad}" in damage_notice(untold, "de")
        logged = [r for r in caplog.records if r.levelname == "ERROR" and f"game {bad} " in r.getMessage()]
        assert len(logged) == 1 and reason in logged[0].getMessage()
        await second.lobby.open(CH, GUILD, BO, "Bo")  # the channel is free again
        await second.restore.mark_damage_told(bad)
        assert second.restore.damaged_untold() == []
    finally:
        await again.close()
    third_store = await database.open()
    try:
        third = make_host(third_store, clock)
        assert {i.channel_id for i in await third.load()} == {CH, CH2}
        assert third.restore.damaged_untold() == []
        stored = await database.fetchone("SELECT status, damage_reason, damage_told FROM games WHERE id = ?", bad)
        assert stored == ("damaged", reason, 1)
    finally:
        await third_store.close()


async def test_no_reminder_goes_unrecorded_while_the_database_is_read_only(store: Store) -> None:
    clock = Clock()
    host = make_host(store, clock, reminder_hours=1)
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.start(CH, ADA)
    clock.advance(2)
    (reminder,) = await host.reminders.due()
    await read_only(store, True)
    assert await host.reminders.mark(reminder) is False  # not written: not sent (its DM is the outbox's row)
    with pytest.raises(HostError):  # nor claimed
        await host.reminders.run()
    await read_only(store, False)
    assert [d for d in await store.pending_deliveries() if d.payload.get("reminder")] == []
    (again,) = await host.reminders.due()  # still due, the same turn: once the database writes, it goes once
    assert again == reminder
    [info] = await host.reminders.run()
    assert info.game_id == reminder.game_id
    assert await host.reminders.due() == [] and await host.reminders.run() == []
    owed = [d for d in await store.pending_deliveries() if d.payload.get("reminder")]
    assert [(d.user_id, d.seq) for d in owed] == [(reminder.user_id, reminder.seq)]
    row = await store.get_game(reminder.game_id)
    assert row.next_reminder_at is not None and row.next_reminder_at > clock.now


async def test_a_finished_game_is_unloaded_but_its_board_and_rematch_work(store: Store) -> None:
    host: Host = make_host(store, Clock())
    await host.lobby.open(CH, GUILD, ADA, "Ada", computers=1)
    await host.lobby.start(CH, ADA)
    await host.play.away(CH, ADA)
    results = [r async for r in host.computers.run_computers(CH)]
    assert results[-1].game_over
    table = host.games.tables[CH]
    assert table.game is None and table.log == [] and table.packed is not None
    info = host.games.info(CH)
    assert info.status == "over" and info.seq == len(results)
    assert host.play.public_view(CH) == results[-1].view
    assert host.play.view_for(CH, ADA)["you"]["seat"] == 0
    with pytest.raises(HostError):
        await host.play.move(CH, ADA, "pass")
    assert (await host.lobby.rematch(CH, ADA)).status == "lobby"
