"""Two hosts (as two processes would have) over one PostgreSQL database: a host whose copy of a game is behind
decides nothing on it. Reading a game again costs one indexed read when the copy is current, without
waiting for the channel's lock; strictly (the outbox's), a copy that a slow change of this process keeps behind is
refused rather than taken; a command that touches several games (vacation, back) reads each again under its lock
before deciding."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.host.errors import CopyBehind
from bot.host.host import Host
from bot.host.vacation import PAUSE
from tests.helpers.clock import Clock
from tests.helpers.host import ADA, BO, CH, CH2, CY, GUILD, play_first, two_hosts

WAIT = 60.0
"""Only a guard against a hang (a refresh waiting for a lock the test holds); never a timing claim."""


async def two_games(host: Host) -> None:
    """Ada plays in two channels: with Bo in ``CH``, with Cy in ``CH2``."""
    for channel, user, name in ((CH, BO, "Bo"), (CH2, CY, "Cy")):
        await host.lobby.open(channel, GUILD, ADA, "Ada")
        await host.lobby.join(channel, user, name)
        await host.lobby.start(channel, ADA)


async def test_a_current_copy_is_read_without_waiting_for_the_channels_lock(stores: Any) -> None:
    clock = Clock()
    one, two = two_hosts(stores, clock)
    await one.load()
    await two_games(one)
    await two.load()
    async with two.games.change(CH):  # a change of this process in the channel is under way
        info = await asyncio.wait_for(two.refresh.channel(CH), WAIT)
    assert info == one.games.info(CH)
    await play_first(one, CH)  # now two's copy is behind: read again (under the lock, free again)
    info = await two.refresh.channel(CH)
    assert info is not None and info.seq == 1 and info == one.games.info(CH)


async def test_a_copy_kept_behind_by_a_slow_change_is_refused_strictly_and_read_once_it_is_done(
        stores: Any) -> None:
    """The outbox decides from the copy whether a turn has passed: strictly, a copy still behind after the wait
    (a change of this process holding the channel's lock) is refused, never taken as the answer."""
    clock = Clock()
    one, two = two_hosts(stores, clock)
    await one.load()
    await two_games(one)
    await two.load()
    game_id = one.games.info(CH).game_id
    async with two.games.change(CH):  # a change of two's in the channel is under way, slower than the wait
        await play_first(one, CH)  # and meanwhile the other process moved: two's copy is behind
        assert (await two.refresh.game(game_id, wait=0.01)).seq == 0  # not strict: the copy as it is
        with pytest.raises(CopyBehind):
            await two.refresh.game(game_id, wait=0.01, strict=True)
    info = await asyncio.wait_for(two.refresh.game(game_id, wait=WAIT, strict=True), WAIT)
    assert info is not None and info.seq == 1 and info == one.games.info(CH)


async def test_vacation_and_back_where_one_copy_is_behind_change_every_game_at_the_first_try(stores: Any) -> None:
    clock = Clock()
    one, two = two_hosts(stores, clock)
    await one.load()
    await two_games(one)
    await two.load()  # holds both games
    await play_first(one, CH)  # two's copy of the first game is one move behind

    changes = await two.vacation.start(ADA, 3)
    assert sorted((c.channel_id, c.state) for c in changes) == [(CH, "vote"), (CH2, "vote")]
    for channel in (CH, CH2):
        row = await stores[0].get_game(one.games.info(channel).game_id)
        assert row.seats[0]["vacation"]["state"] == "vote"
    assert two.games.info(CH).seq == 1  # read again before deciding

    game_id = one.games.info(CH).game_id
    await one.vacation.vote(game_id, BO, 0, PAUSE)  # two's copy of the first game is behind again
    ended = await two.vacation.end(ADA)
    assert sorted((c.channel_id, c.state) for c in ended) == [(CH, None), (CH2, None)]
    for channel in (CH, CH2):
        row = await stores[0].get_game(one.games.info(channel).game_id)
        assert row.seats[0]["vacation"] is None


async def test_vacation_loads_a_game_this_process_never_held(stores: Any) -> None:
    clock = Clock()
    one, two = two_hosts(stores, clock)
    await one.load()
    await two.load()  # before the games were opened: it holds neither
    await two_games(one)
    changes = await two.vacation.start(ADA, 2)
    assert sorted(c.channel_id for c in changes) == [CH, CH2]
    assert all(c.info is not None and c.info == two.games.info(c.channel_id) for c in changes)
    await one.refresh.channel(CH)
    assert one.games.info(CH).seats[0].vacation == "vote"


async def test_a_settings_change_keeps_what_another_process_stored_since_its_last_sweep(stores: Any) -> None:
    clock = Clock()
    one, two = two_hosts(stores, clock)
    await one.load()
    await two.load()
    await one.people.change_settings(ADA, time_zone="Europe/Berlin")
    assert two.people.settings_of(ADA).time_zone != "Europe/Berlin"  # two's copy is behind
    await two.people.refresh_settings()  # what /santacruz settings does first
    assert two.people.settings_of(ADA) == one.people.settings_of(ADA)
    changed = await two.people.change_settings(ADA, reminders=False)
    assert (changed.time_zone, changed.reminders) == ("Europe/Berlin", False)
    assert (await stores[0].user_settings())[ADA] == changed
