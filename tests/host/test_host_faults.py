"""The host when its database fails or holds damaged rows, on real SQLite files: a refused write changes
nothing (read-only, locked), a damaged game is quarantined while the others load, a reminder is sent once
per period even when its mark cannot be stored, and finished games are unloaded but still readable."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import aiosqlite
import pytest

from bot.host.host import Host, HostError, damage_notice
from bot.host.store import UNDO, Store
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
    await host.open(CH, GUILD, ADA, "Ada")
    await host.join(CH, BO, "Bo")
    await read_only(store, True)
    error = await refused("host.error.storage", host.join(CH, CY, "Cy"))
    assert "try again" in error.text("en")
    assert host.info(CH).humans == (ADA, BO)
    await refused("host.error.storage", host.add_computer(CH, ADA))
    await refused("host.error.storage", host.leave(CH, BO))
    await refused("host.error.storage", host.start(CH, ADA))
    assert host.info(CH).status == "lobby" and host.info(CH).humans == (ADA, BO)
    await read_only(store, False)
    await host.start(CH, ADA)
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
    await host.open(CH, GUILD, ADA, "Ada")
    await host.join(CH, BO, "Bo")
    await host.start(CH, ADA)
    async with aiosqlite.connect(db, isolation_level=None) as other:
        await other.execute("BEGIN IMMEDIATE")
        await refused("host.error.storage", host.away(CH, ADA))
        user = host.info(CH).seats[host.info(CH).to_move].user_id
        await refused("host.error.storage", host.play(CH, user, host.legal_moves(CH, user)[0]))
        await other.execute("ROLLBACK")
    assert not any(s.away for s in host.info(CH).seats) and host.info(CH).seq == 0
    change = await host.away(CH, ADA)
    assert change.away and (await store.get_game(change.info.game_id)).seats[0]["away"] is True


async def corrupt(db: Path, game_id: int, sql: str, *params: object) -> None:
    async with aiosqlite.connect(db, isolation_level=None) as conn:
        await conn.execute(sql, (*params, game_id) if "?" in sql else ())


async def cut_seats(db: Path, game_id: int) -> None:
    await corrupt(db, game_id, "UPDATE games SET seats = substr(seats, 1, 20) WHERE id = ?")


async def unknown_seat_key(db: Path, game_id: int) -> None:
    seats = [{"user_id": ADA, "name": "Ada", "hat": 1}, {"user_id": BO, "name": "Bo"}]
    await corrupt(db, game_id, "UPDATE games SET seats = ? WHERE id = ?", json.dumps(seats))


async def unknown_option_key(db: Path, game_id: int) -> None:
    await corrupt(db, game_id, "UPDATE games SET options = ? WHERE id = ?", json.dumps({"colour": "red"}))


async def illegal_move(db: Path, game_id: int) -> None:
    await corrupt(db, game_id, "UPDATE moves SET move = 'build 999' WHERE seq = 1 AND game_id = ?")


async def undo_first(db: Path, game_id: int) -> None:
    await corrupt(db, game_id, "UPDATE moves SET move = ? WHERE seq = 1 AND game_id = ?", UNDO)


@pytest.mark.parametrize(("damage", "reason"), [(cut_seats, "seats"), (unknown_seat_key, "seats"),
                                                (unknown_option_key, "options"), (illegal_move, "log"),
                                                (undo_first, "log")])
async def test_a_damaged_game_is_quarantined_and_the_others_load(db: Path, store: Store, damage, reason,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    host = make_host(store, clock)
    for channel in (CH, CH2):
        await host.open(channel, GUILD, ADA, "Ada")
        await host.join(channel, BO, "Bo")
        await host.start(channel, ADA)
        await play_first(host, channel)
    bad, good = host.info(CH).game_id, host.info(CH2).game_id
    await store.close()
    await damage(db, bad)

    again = await Store.open(db)
    try:
        second = make_host(again, clock)
        loaded = await second.load()
        assert [i.game_id for i in loaded] == [good]
        assert second.info(CH) is None and second.info(CH2).seq == 1
        assert (await play_first(second, CH2)).seq == 2
        (untold,) = second.damaged_untold()
        assert (untold.game_id, untold.channel_id, untold.reason) == (bad, CH, reason)
        assert f"#{bad}" in damage_notice(untold, "de")
        logged = [r for r in caplog.records if r.levelname == "ERROR" and f"game {bad} " in r.getMessage()]
        assert len(logged) == 1 and reason in logged[0].getMessage()
        await second.open(CH, GUILD, BO, "Bo")  # the channel is free again
        await second.mark_damage_told(bad)
        assert second.damaged_untold() == []
    finally:
        await again.close()
    third_store = await Store.open(db)
    try:
        third = make_host(third_store, clock)
        assert {i.channel_id for i in await third.load()} == {CH, CH2}
        assert third.damaged_untold() == []
        async with aiosqlite.connect(db) as conn, conn.execute(
                "SELECT status, damage_reason, damage_told FROM games WHERE id = ?", (bad,)) as cur:
            assert await cur.fetchone() == ("damaged", reason, 1)
    finally:
        await third_store.close()


async def test_one_reminder_per_period_while_the_database_is_read_only(store: Store) -> None:
    clock = Clock()
    host = make_host(store, clock, reminder_hours=1)
    await host.open(CH, GUILD, ADA, "Ada")
    await host.join(CH, BO, "Bo")
    await host.start(CH, ADA)
    clock.advance(2)
    (reminder,) = await host.due_reminders()
    await read_only(store, True)
    await host.mark_reminded(reminder)
    for _ in range(5):
        clock.advance(1 / 60)
        assert await host.due_reminders() == []
    clock.advance(24)
    (again,) = await host.due_reminders()  # the next period: one more, and its mark is stored now
    await read_only(store, False)
    await host.mark_reminded(again)
    assert await host.due_reminders() == []
    row = await store.get_game(again.game_id)
    assert row.next_reminder_at is not None and row.next_reminder_at > clock.now


async def test_a_finished_game_is_unloaded_but_its_board_and_rematch_work(store: Store) -> None:
    host: Host = make_host(store, Clock())
    await host.open(CH, GUILD, ADA, "Ada", computers=1)
    await host.start(CH, ADA)
    await host.away(CH, ADA)
    results = [r async for r in host.run_computers(CH)]
    assert results[-1].game_over
    table = host._tables[CH]
    assert table.game is None and table.log == [] and table.packed is not None
    info = host.info(CH)
    assert info.status == "over" and info.seq == len(results)
    assert host.public_view(CH) == results[-1].view
    assert host.view_for(CH, ADA)["you"]["seat"] == 0
    with pytest.raises(HostError):
        await host.play(CH, ADA, "pass")
    assert (await host.rematch(CH, ADA)).status == "lobby"
