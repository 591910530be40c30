"""Games loaded when touched (:mod:`bot.host.memory`, :mod:`bot.host.refresh`), on both stores (the ``store``
fixture): start-up reads only the games that owe work (counted by ``restore.reads``); a game nobody touched leaves
memory, never while a change holds it or a part pins it, and comes back when a click, a change or its timer touches it,
in the same process or after a restart."""

from __future__ import annotations

from typing import Any

from bot.host import deadlines
from bot.host.host import Host
from bot.host.table import TableInfo
from tests.helpers.clock import Clock
from tests.helpers.host import ADA, BO, CH, CH2, GUILD, STORED_BEFORE, make_host, play_first

CH3, CH4 = CH + 3, CH + 4


async def loaded(store: Any, clock: Clock, **settings: Any) -> Host:
    host = make_host(store, clock, **settings)
    await host.load()
    return host


async def started(host: Host, channel: int, *, deadline: int = 0) -> int:
    """Ada and Bo's game started in ``channel``; its id."""
    await host.lobby.open(channel, GUILD, ADA, "Ada", deadline_hours=deadline)
    await host.lobby.join(channel, BO, "Bo")
    return (await host.lobby.start(channel, ADA)).info.game_id


async def test_start_up_reads_only_the_games_that_owe_work(store: Any, clock: Clock) -> None:
    host = await loaded(store, clock)
    await host.lobby.open(CH, GUILD, ADA, "Ada")  # a lobby: nothing owed
    await started(host, CH2)  # a person to move: nothing owed
    await started(host, CH3)
    info = host.games.info(CH3)
    assert info is not None and info.to_move is not None
    await host.play.away(CH3, info.seats[info.to_move].user_id)  # the computer is to move: owed
    lost = await started(host, CH4, deadline=12)  # a turn deadline whose timers were lost: owed
    async with store._write() as db:
        await db.execute("UPDATE timers SET done_at = ? WHERE game_id = ? AND kind IN (?, ?)", clock.now, lost,
                         *deadlines.KINDS)

    again = await loaded(store, clock)
    assert again.restore.reads == 2 and set(again.games.tables) == {CH3, CH4}
    assert deadlines.RAN_OUT in {t.kind for t in await store.timers(lost)}  # set again
    third = await loaded(store, clock)
    assert third.restore.reads == 1 and list(third.games.tables) == [CH3]  # the computer's move is still owed
    await third.refresh.games_of(BO)  # what a DM command of Bo's reads first: Bo's games
    assert set(third.games.tables) == {CH2, CH3, CH4} and third.restore.reads == 3

    await store.update_game(host.games.info(CH2).game_id, now=clock.now, **STORED_BEFORE)  # type: ignore[union-attr]
    fourth = await loaded(store, clock)  # a game stored by a bot from before waits_for: read once, then written
    assert set(fourth.games.tables) == {CH2, CH3} and fourth.restore.reads == 2
    assert (await loaded(store, clock)).restore.reads == 1


async def test_a_game_let_go_comes_back_when_a_click_a_change_or_its_timer_touches_it(store: Any,
                                                                                      clock: Clock) -> None:
    host = await loaded(store, clock, games_in_memory=1, reminder_hours=1, game_memory_minutes=10)
    first = await started(host, CH)
    await started(host, CH2)  # past GAMES_IN_MEMORY: the least recently touched leaves
    assert list(host.games.tables) == [CH2] and host.games.memory.let_go_total == 1

    clicked = await host.refresh.game(first)  # what the adapter reads before a click on one of its buttons
    assert isinstance(clicked, TableInfo) and list(host.games.tables) == [CH]
    assert (await play_first(host, CH)).seq == 1
    async with host.games.change(CH2) as table:  # any change (a command, a vote, ...) reads its game under the lock
        assert table is not None and list(host.games.tables) == [CH2]
    async with host.games.change(CH):  # while a change holds CH, CH2 comes back: CH stays, past the bound ...
        await host.refresh.channel(CH2)
        assert set(host.games.tables) == {CH, CH2}
    assert host.games.memory.let_go() == [CH]  # ... and leaves afterwards
    clock.advance(2)  # both games' turn reminders are due: each timer reads its game if it is not held
    reads = host.restore.reads
    reminded = await host.reminders.run()
    assert sorted(i.channel_id for i in reminded if isinstance(i, TableInfo)) == [CH, CH2]
    assert host.restore.reads == reads + 1  # CH, let go; CH2 was held

    host.games.memory.most = 2
    await host.refresh.channel(CH)
    await host.refresh.channel(CH2)
    with host.games.memory.pinned(CH):  # work under way without the lock (a computer, the coach thinking)
        clock.advance(1)  # nobody touched either for GAME_MEMORY_MINUTES
        assert host.games.memory.let_go() == [CH2] and list(host.games.tables) == [CH]
    assert host.games.memory.let_go() == [CH] and host.games.tables == {}


async def test_after_a_restart_a_click_and_a_timer_read_their_games(store: Any, clock: Clock) -> None:
    host = await loaded(store, clock, reminder_hours=1)
    first = await started(host, CH)
    second = await started(host, CH2)
    again = await loaded(store, clock, reminder_hours=1)
    assert again.games.tables == {} and again.restore.reads == 0

    assert (await again.refresh.game(first)).game_id == first  # type: ignore[union-attr]  # a click
    assert (await play_first(again, CH)).seq == 1
    clock.advance(2)
    reminded = await again.reminders.run()  # CH2's reminder reads it; CH's (set again by the move) finds it held
    assert sorted(i.game_id for i in reminded if isinstance(i, TableInfo)) == [first, second]
    assert sorted(again.games.tables) == [CH, CH2] and again.restore.reads == 2
    assert [d.kind for d in await store.pending_deliveries(CH2) if d.payload.get("reminder")] == ["turn_dm"]
