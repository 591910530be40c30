"""The host when its database fails or holds damaged rows, on real SQLite files: a refused write changes
nothing (read-only, locked), a damaged game is quarantined while the others load (on PostgreSQL too, every
kind of damage alike), a reminder is sent once per period even when its mark cannot be stored, and finished
games are unloaded but still readable."""

from __future__ import annotations

from pathlib import Path

import aiosqlite
import pytest

from bot.host.errors import HostError, damage_notice
from bot.host.host import Host
from bot.host.store import Store
from tests.helpers.clock import Clock
from tests.helpers.damage import DAMAGES, Damager, Database
from tests.helpers.host import ADA, BO, CH, CH2, CY, GUILD, make_host, play_first, refused

pytestmark = pytest.mark.busy_timeout(0.05)
"""A write to a locked SQLite file is refused soon."""


async def read_only(store: Store, on: bool) -> None:
    """Make the store's own connection refuse writes (SQLITE_READONLY), or accept them again."""
    await store._conn.execute(f"PRAGMA query_only = {'ON' if on else 'OFF'}")  # the fault lives on this connection


async def test_a_refused_join_seats_nobody_and_a_restarted_game_plays_on(sqlite_path: Path, sqlite: Store) -> None:
    clock = Clock()
    host = make_host(sqlite, clock)
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await host.lobby.join(CH, BO, "Bo")
    await read_only(sqlite, True)
    error = await refused("host.error.storage", host.lobby.join(CH, CY, "Cy"))
    assert "try again" in error.text("en")
    assert host.games.info(CH).humans == (ADA, BO)
    await refused("host.error.storage", host.lobby.add_computer(CH, ADA))
    await refused("host.error.storage", host.lobby.leave(CH, BO))
    await refused("host.error.storage", host.lobby.start(CH, ADA))
    assert host.games.info(CH).status == "lobby" and host.games.info(CH).humans == (ADA, BO)
    await read_only(sqlite, False)
    await host.lobby.start(CH, ADA)
    await sqlite.close()

    again = await Store.open(sqlite_path)
    try:
        second = make_host(again, clock)
        await second.load()
        info = await second.refresh.channel(CH)  # loaded when touched
        assert info is not None and info.humans == (ADA, BO) and info.status == "running"
        result = await play_first(second)
        assert result.seq == 1
    finally:
        await again.close()


async def test_a_locked_database_refuses_away_and_changes_nothing(sqlite_path: Path, sqlite: Store) -> None:
    host = make_host(sqlite, Clock())
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.start(CH, ADA)
    async with aiosqlite.connect(sqlite_path, isolation_level=None) as other:
        await other.execute("BEGIN IMMEDIATE")
        await refused("host.error.storage", host.play.away(CH, ADA))
        user = host.games.info(CH).seats[host.games.info(CH).to_move].user_id
        await refused("host.error.storage", host.play.move(CH, user, host.play.legal_moves(CH, user)[0]))
        await other.execute("ROLLBACK")
    assert not any(s.away for s in host.games.info(CH).seats) and host.games.info(CH).seq == 0
    change = await host.play.away(CH, ADA)
    assert change.away and (await sqlite.get_game(change.info.game_id)).seats[0]["away"] is True


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, sqlite_path: Path) -> Database:
    """Each kind of database in turn (PostgreSQL: this test's empty one on the throwaway cluster)."""
    url = request.getfixturevalue("pg_url") if request.param == "postgres" else None
    return Database(request.param, sqlite_path, url)


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
    bad = host.games.info(CH).game_id
    await store.close()
    await damage(database, bad)

    again = await database.open()
    try:
        second = make_host(again, clock)
        assert await second.load() == []  # neither owes work (or the damaged one is quarantined at once)
        assert await second.refresh.channel(CH) is None and second.games.info(CH) is None  # quarantined
        assert (await second.refresh.channel(CH2)).seq == 1  # type: ignore[union-attr]
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
        await third.load()
        touched = [await third.refresh.channel(channel) for channel in (CH, CH2)]
        assert [info.channel_id if info is not None else None for info in touched] == [CH, CH2]
        assert third.restore.damaged_untold() == []
        stored = await database.fetchone("SELECT status, damage_reason, damage_told FROM games WHERE id = ?", bad)
        assert stored == ("damaged", reason, 1)
    finally:
        await third_store.close()


async def test_no_reminder_goes_unrecorded_while_the_database_is_read_only(sqlite: Store) -> None:
    clock = Clock()
    host = make_host(sqlite, clock, reminder_hours=1)
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.start(CH, ADA)
    clock.advance(2)
    (reminder,) = await host.reminders.due()
    await read_only(sqlite, True)
    assert await host.reminders.mark(reminder) is False  # not written: not sent (its DM is the outbox's row)
    with pytest.raises(HostError):  # nor claimed
        await host.reminders.run()
    await read_only(sqlite, False)
    assert [d for d in await sqlite.pending_deliveries() if d.payload.get("reminder")] == []
    (again,) = await host.reminders.due()  # still due, the same turn: once the database writes, it goes once
    assert again == reminder
    [info] = await host.reminders.run()
    assert info.game_id == reminder.game_id
    assert await host.reminders.due() == [] and await host.reminders.run() == []
    owed = [d for d in await sqlite.pending_deliveries() if d.payload.get("reminder")]
    assert [(d.user_id, d.seq) for d in owed] == [(reminder.user_id, reminder.seq)]
    row = await sqlite.get_game(reminder.game_id)
    assert row.next_reminder_at is not None and row.next_reminder_at > clock.now


async def test_a_finished_game_is_unloaded_but_its_board_and_rematch_work(sqlite: Store) -> None:
    host: Host = make_host(sqlite, Clock())
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
