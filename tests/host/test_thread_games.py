"""Games in threads of their own, through the host on both stores: each thread holds one game, the channel the
threads are in holds any number, and a command typed in that channel finds the games of its threads (also those
another process opened), the user's own among them, and acts on the user's one game; a rematch stays in its
thread, and one typed in the channel names that thread."""

from __future__ import annotations

from typing import Any

import pytest

from bot.host.errors import HostError
from bot.host.postgres_store import PostgresStore
from bot.host.store import Store
from tests.helpers.clock import Clock
from tests.helpers.host import ADA, BO, CY, GUILD, make_host, play_first

PARENT, OTHER = 500, 600
STRANGER = 999
THREADS = (501, 502, 503)


async def test_a_channel_holds_a_game_per_thread_and_finds_each_users_games(store: Any) -> None:
    clock = Clock()
    host = make_host(store, clock)
    await host.load()
    for thread, (opener, name) in zip(THREADS, ((ADA, "Ada"), (BO, "Bo"), (ADA, "Ada")), strict=True):
        info = await host.lobby.open(thread, GUILD, opener, name, parent_id=PARENT)
        assert (info.channel_id, info.parent_id) == (thread, PARENT)
    await host.lobby.join(THREADS[0], BO, "Bo")
    await host.lobby.join(THREADS[1], CY, "Cy")
    await host.lobby.open(OTHER, GUILD, CY, "Cy")  # a game in a channel of its own: in no parent's list
    await host.lobby.start(THREADS[0], ADA)
    await play_first(host, THREADS[0])
    assert [g.channel_id for g in await host.lobby.games_in(PARENT)] == list(THREADS)
    assert [g.channel_id for g in await host.lobby.games_in(PARENT, ADA)] == [THREADS[0], THREADS[2]]
    assert [g.channel_id for g in await host.lobby.games_in(PARENT, BO)] == [THREADS[0], THREADS[1]]
    assert [g.channel_id for g in await host.lobby.games_in(PARENT, CY)] == [THREADS[1]]
    assert await host.lobby.games_in(OTHER) == []
    # which game a command typed in the channel acts on: the user's one game in its threads; several or none: refused
    # naming the threads; a channel's (or thread's) own game always
    assert await host.lobby.game_here(PARENT, CY) == THREADS[1]
    assert await host.lobby.game_here(THREADS[0], BO) == THREADS[0]
    assert await host.lobby.game_here(OTHER, ADA) == OTHER
    with pytest.raises(HostError) as several:
        await host.lobby.game_here(PARENT, BO)
    assert (several.value.key, several.value.params) == ("host.error.which_game", {"channels": THREADS[:2]})
    with pytest.raises(HostError) as none:
        await host.lobby.game_here(PARENT, STRANGER)
    assert (none.value.key, none.value.params) == ("host.error.no_game_here", {"channels": THREADS})
    # another process sees the same games from the database, the running one with its move
    if isinstance(store, PostgresStore):
        other = await PostgresStore.open(store.url)
    else:
        other = await Store.open(store.path)
    try:
        second = make_host(other, clock)
        found = await second.lobby.games_in(PARENT, BO)
        assert [(g.channel_id, g.status, g.seq) for g in found] == [(THREADS[0], "running", 1),
                                                                    (THREADS[1], "lobby", 0)]
    finally:
        await other.close()
    # a game that ends leaves the list; a rematch opens in the same thread, in the channel's list again
    await host.lobby.abandon(THREADS[2], ADA)
    assert [g.channel_id for g in await host.lobby.games_in(PARENT, ADA)] == [THREADS[0]]
    while (info := host.games.info(THREADS[0])) is not None and info.status == "running":
        await play_first(host, THREADS[0])
    assert [g.channel_id for g in await host.lobby.games_in(PARENT, ADA)] == []
    # a rematch typed in the channel names the thread of the user's last finished game (anyone's for a manager);
    # the abandoned one is no rematch, and someone who played in none is told there is no game to play again
    for user, can_manage in ((BO, False), (STRANGER, True)):
        with pytest.raises(HostError) as elsewhere:
            await host.lobby.rematch(PARENT, user, can_manage=can_manage)
        assert (elsewhere.value.key, elsewhere.value.params) == ("host.error.rematch_in_thread",
                                                                 {"channels": (THREADS[0],)})
    with pytest.raises(HostError) as nowhere:
        await host.lobby.rematch(PARENT, CY)
    assert (nowhere.value.key, nowhere.value.params) == ("host.error.no_previous_game", {})
    assert host.games.info(PARENT) is None
    rematch = await host.lobby.rematch(THREADS[0], BO)
    assert rematch.parent_id == PARENT
    assert [g.channel_id for g in await host.lobby.games_in(PARENT, ADA)] == [THREADS[0]]
