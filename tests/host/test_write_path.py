"""The one write path: the store's ``apply`` writes a whole :class:`Change` or nothing (on both stores), and
:meth:`Games.write` adopts it in memory only after it committed, mapping a lost race to each caller's refusal
(two hosts on one real SQLite file play two processes)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.host.change import Change
from bot.host.errors import MoveConflict, VersionConflict
from bot.host.games import CONFLICT
from bot.host.host import Host
from bot.host.model import MoveRow, NewDelivery, NewTimer
from bot.host.store import Store
from bot.host.table import Seat
from bot.host.timers import KINDS
from tests.helpers.clock import Clock
from tests.helpers.host import ADA, BO, CH, CY, GUILD, make_host, play_first, refused, user_to_move

CHANNEL = 4343


async def new_game(store: Any) -> int:
    return int(await store.insert_game(channel_id=CHANNEL, guild_id=1, opener_id=7, seats=[], options={},
                                       seed=5, status="running", locale="en", now=1.0))


async def test_a_change_is_written_whole_or_not_at_all(store: Any) -> None:
    game_id = await new_game(store)
    await store.update_game(game_id, now=2.0, timers=[NewTimer("chime", 3.0)])
    await store.append_move(MoveRow(game_id, 1, 0, 7, "land 3", None, 2.5))
    (timer,) = await store.timers(game_id)
    version = await store.game_version(game_id)
    taken = MoveRow(game_id, 1, 1, 8, "land 4", None, 4.0)  # move 1 is stored already
    with pytest.raises(MoveConflict):
        await store.apply(game_id, Change({"locale": "fr"}, taken, [NewDelivery("seat_post", 1)],
                                          [NewTimer("later", 9.0)], ["chime"], timer=timer.id), now=4.0)
    assert [t.id for t in await store.timers(game_id)] == [timer.id], "the timer is not done, nothing was added"
    assert await store.game_version(game_id) == version
    assert await store.deliveries(game_id) == []
    assert (await store.get_game(game_id)).locale == "en"
    assert [m.move for m in await store.moves(game_id)] == ["land 3"]

    done = await store.apply(game_id, Change({"locale": "fr"}, MoveRow(game_id, 2, 1, 8, "land 4", None, 4.0),
                                             [NewDelivery("seat_post", 2)], [NewTimer("later", 9.0)], ["chime"],
                                             timer=timer.id), now=4.0)
    assert done == version + 1
    assert [t.kind for t in await store.timers(game_id)] == ["later"]
    assert [d.kind for d in await store.deliveries(game_id)] == ["seat_post"]
    assert [m.move for m in await store.moves(game_id)] == ["land 3", "land 4"]


async def test_a_timers_change_without_columns_leaves_the_version_and_a_done_timer_refuses(store: Any) -> None:
    game_id = await new_game(store)
    await store.update_game(game_id, now=2.0, timers=[NewTimer("one", 3.0), NewTimer("two", 3.0)])
    one, two = await store.timers(game_id)
    version = await store.game_version(game_id)
    assert await store.apply(game_id, Change(deliveries=[NewDelivery("notice_post", 0)], timer=one.id), now=5.0) is None
    assert await store.game_version(game_id) == version
    with pytest.raises(VersionConflict):  # done already: nothing of the change is written
        await store.apply(game_id, Change({"locale": "de"}, deliveries=[NewDelivery("seat_post", 0)], timer=one.id),
                          now=6.0)
    assert [d.kind for d in await store.deliveries(game_id)] == ["notice_post"]
    assert await store.apply(game_id, Change({"locale": "de"}, timer=two.id), now=7.0) == version + 1
    assert await store.timers(game_id) == []


@pytest.fixture
async def two_hosts(tmp_path: Path) -> AsyncIterator[tuple[Host, Host]]:
    """Two hosts on one SQLite file, each with its own connection: two processes' copies of the same games."""
    first, second = await Store.open(tmp_path / "two.db"), await Store.open(tmp_path / "two.db")
    clock = Clock()
    yield make_host(first, clock), make_host(second, clock)
    await first.close()
    await second.close()


async def test_a_lost_race_refuses_each_caller_with_its_key_and_changes_nothing_in_memory(
        two_hosts: tuple[Host, Host]) -> None:
    one, two = two_hosts
    await one.lobby.open(CH, GUILD, ADA, "Ada")
    await two.load()
    await two.refresh.channel(CH)  # two holds the game too
    await one.lobby.join(CH, BO, "Bo")  # two's copy is now behind
    behind = two.games.tables[CH]
    version, seats = behind.version, list(behind.seats)
    await refused("host.error.stale", two.games.write(behind, Change(), seats=[*seats, Seat(CY, "Cy")]))
    assert (behind.version, behind.seats) == (version, seats), "nothing adopted"
    await refused(CONFLICT, two.games.write(behind, Change(), seats=[*seats, Seat(CY, "Cy")], lost=CONFLICT))
    assert (await two.lobby.join(CH, CY, "Cy")).humans == (ADA, BO, CY), "read again before the next change"
    assert (await one.refresh.channel(CH)).humans == (ADA, BO, CY)


async def test_a_move_that_lost_a_race_is_a_conflict_and_the_game_is_read_again_at_once(
        two_hosts: tuple[Host, Host]) -> None:
    one, two = two_hosts
    await one.lobby.open(CH, GUILD, ADA, "Ada")
    await one.lobby.join(CH, BO, "Bo")
    await one.lobby.start(CH, ADA)
    await two.load()
    await two.refresh.channel(CH)  # two holds the game too
    await play_first(one, CH, interaction_id=77)
    behind = two.games.tables[CH]
    assert behind.seq == 0
    game = behind.game
    assert game is not None
    new = game.clone()
    text = str(game.legal_moves()[0])
    new.apply(text)
    row = MoveRow(behind.id, 1, 0, ADA, text, None, 0.0)
    await refused("host.error.conflict", two.games.write(behind, Change({"last_move_at": 0.0}, row), game=new))
    assert two.games.info(CH) == one.games.info(CH), "the game was read again"
    again = MoveRow(behind.id, 2, 1, ADA, text, 77, 0.0)  # an interaction stored already
    await refused("host.error.already_done", two.games.write(two.games.tables[CH], Change(move=again), game=new))
    user = user_to_move(two, CH)
    assert (await two.play.move(CH, user, two.play.legal_moves(CH, user)[0])).seq == 2


async def test_the_host_handles_exactly_the_timer_kinds_the_registry_names(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "kinds.db")
    try:
        assert Host(store).timers.kinds == frozenset(KINDS)
    finally:
        await store.close()
