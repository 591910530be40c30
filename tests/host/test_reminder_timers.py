"""Turn reminders as ``turn_reminder`` timers, on both stores: two hosts on one database (as two processes would
be) racing for a due reminder write its DM once per turn and day, a restarted host does not send it again, and a
game stored before reminders were timers gets its timer once at start-up."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.host.change import Change
from bot.host.deliveries import TURN_DM
from bot.host.host import Host
from bot.host.postgres_store import PostgresStore
from bot.host.reminders import REMINDER
from bot.host.store import Store
from tests.helpers.clock import Clock
from tests.helpers.host import ADA, BO, CH, GUILD, STORED_BEFORE, make_host, play_first, user_to_move


@pytest.fixture(params=["sqlite", "postgres"])
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    """A way to open one new database again and again (each host gets its own connection, as a process does)."""
    opened: list[Any] = []

    async def connect() -> Any:
        if request.param == "postgres":
            store: Any = await PostgresStore.open(request.getfixturevalue("pg_url"))
        else:
            store = await Store.open(tmp_path / "store.db")
        opened.append(store)
        return store

    yield connect
    for store in opened:
        await store.close()


async def host_on(database: Any, clock: Clock) -> Host:
    host = make_host(await database(), clock, reminder_hours=1)
    await host.load()
    return host


async def reminders(host: Host, game_id: int) -> list[tuple[int | None, int]]:
    """The reminder DMs written for the game, as (player, position)."""
    return [(d.user_id, d.seq) for d in await host.games.store.deliveries(game_id)
            if d.kind == TURN_DM and d.payload.get("reminder")]


async def race(*hosts: Host) -> int:
    """Every host sweeps its due reminders at once; how many reminder DMs they wrote together."""
    written = await asyncio.gather(*(host.reminders.run() for host in hosts))
    return sum(len(w) for w in written)


async def started(database: Any, clock: Clock) -> tuple[Host, int, int]:
    """A host on ``database`` with Ada and Bo's game started in ``CH``: the host, the game, who is to move."""
    host = await host_on(database, clock)
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.start(CH, ADA)
    info = host.games.info(CH)
    assert info is not None
    return host, info.game_id, user_to_move(host, CH)


async def test_a_reminder_fires_once_per_turn_across_two_hosts_and_after_a_restart(database: Any) -> None:
    clock = Clock()
    one, game_id, first = await started(database, clock)
    two = await host_on(database, clock)
    assert await race(one, two) == 0  # not due before the delay
    clock.advance(2)
    assert await race(one, two) == 1
    assert await race(one, two) == 0
    assert await reminders(one, game_id) == [(first, 0)]

    # a restarted host does not send it again; the next one comes a day after the first, once
    three = await host_on(database, clock)
    assert await race(three, two) == 0 and await three.reminders.due() == []
    clock.advance(23)
    assert await race(three, two) == 0
    clock.advance(2)
    assert await race(three, two) == 1
    assert await reminders(three, game_id) == [(first, 0), (first, 0)]

    # the move replaces the timer: the other player's turn gets its own reminder, once
    await three.refresh.channel(CH)  # the move's command touches the game (the other host may have fired the reminder)
    await play_first(three)
    second = user_to_move(three, CH)
    assert second != first
    clock.advance(2)
    four = await host_on(database, clock)
    assert await race(three, four) == 1
    assert await race(three, four) == 0
    assert await reminders(four, game_id) == [(first, 0), (first, 0), (second, 1)]
    assert [t.kind for t in await four.games.store.timers(game_id)].count(REMINDER) == 1


async def test_a_game_stored_without_its_reminder_timer_gets_it_once_at_start_up(database: Any) -> None:
    clock = Clock()
    one, game_id, first = await started(database, clock)
    store = one.games.store
    await store.apply(game_id, Change(STORED_BEFORE, cancel_timers=[REMINDER]), now=clock.now)  # stored before timers
    assert REMINDER not in {t.kind for t in await store.timers(game_id)}
    assert (await store.get_game(game_id)).next_reminder_at == clock.now + 3600

    clock.advance(2)
    two, three = await host_on(database, clock), await host_on(database, clock)  # two processes start
    assert [t.kind for t in await store.timers(game_id)].count(REMINDER) == 1
    assert await race(two, three) == 1
    assert await reminders(two, game_id) == [(first, 0)]


async def test_missing_timers_are_set_in_one_batch_and_game_by_game_when_another_process_came_first(
        database: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("INFO", logger="bot.host.games")
    clock = Clock()
    host = await host_on(database, clock)
    channels = [CH + k for k in range(3)]
    for channel in channels:
        await host.lobby.open(channel, GUILD, ADA + channel, "Ada")
        await host.lobby.join(channel, BO + channel, "Bo")
        await host.lobby.start(channel, ADA + channel)
    games = [host.games.info(channel).game_id for channel in channels]  # type: ignore[union-attr]
    store = host.games.store
    for game_id in games:  # as stored before the timers
        await store.apply(game_id, Change(STORED_BEFORE, cancel_timers=[REMINDER]), now=clock.now)
    restarted = await host_on(database, clock)  # one batch sets all three
    for game_id in games:
        assert [t.kind for t in await store.timers(game_id)].count(REMINDER) == 1
    assert "set the reminder timers of 3 games" in caplog.text and "one game at a time" not in caplog.text
    versions = [restarted.games.of_game(g).version for g in games]  # type: ignore[union-attr]

    for game_id in games:
        await store.apply(game_id, Change(STORED_BEFORE, cancel_timers=[REMINDER]), now=clock.now)
    for channel in channels:
        await restarted.refresh.channel(channel)  # this process holds every game as stored now ...
    await store.apply(games[1], Change(), now=clock.now)  # ... but another process changed the middle one since
    armed = await restarted.reminders.arm_missing()  # the batch is refused whole, then written game by game
    assert armed == 2 and "3 games at once failed" in caplog.text
    kinds = [[t.kind for t in await store.timers(g)].count(REMINDER) for g in games]
    assert kinds == [1, 0, 1]  # the middle game gets its timer at the next start (or its next change)
    assert restarted.games.of_game(games[0]).version > versions[0]  # type: ignore[union-attr]
    assert (await host_on(database, clock)).games.info(channels[1]) is not None
    assert [t.kind for t in await store.timers(games[1])].count(REMINDER) == 1
