"""Stale tables through the host's API on both stores, with a clock the tests move: a lobby nobody starts closes,
a game nobody moves in is announced and abandoned unless someone seated keeps it open, each across a restart in
the middle of the waiting period; a deleted channel's or a left server's games end with nothing left pending."""

from __future__ import annotations

from typing import Any

import pytest

from bot.host.deliveries import CHANNEL_GONE, IDLE_POST, LOBBY_EDIT, LOBBY_POST, TURN_DM, TURN_OVER_DM
from bot.host.errors import HostError
from bot.host.host import Host
from bot.host.idle import IDLE_ABANDON, IDLE_GAME, KEEP_OPEN_DAYS, LOBBY_EXPIRY
from bot.host.reminders import REMINDER
from bot.host.table import TableInfo
from bot.host.timers import KINDS
from tests.helpers.clock import Clock
from tests.helpers.host import ADA, BO, CH, CH2, CY, GUILD, STORED_BEFORE, make_host, play_first

DAY = 86400.0
OTHER_GUILD = 8
CH3 = 300


async def restarted(store: Any, clock: Clock, **settings: Any) -> Host:
    """A new host on the same database, as after a restart of the bot."""
    host = make_host(store, clock, **settings)
    await host.load()
    return host


async def due_timers(host: Host, now: float | None = None) -> list[object]:
    """Run the host's due timers but its turn reminders (``bot.host.reminders``, not this file's business)."""
    return await host.timers.run_due(now, kinds=[kind for kind in KINDS if kind != REMINDER])


async def timers(store: Any, game_id: int) -> list[tuple[str, float]]:
    """The game's timers but its turn reminder (``bot.host.reminders``, not this file's business)."""
    return [(t.kind, t.due_at) for t in await store.timers(game_id) if t.kind != REMINDER]


async def idle_posts(store: Any, game_id: int) -> list[dict[str, Any]]:
    return [d.payload for d in await store.deliveries(game_id) if d.kind == IDLE_POST]


async def started(host: Host, channel: int = CH, guild: int = GUILD) -> TableInfo:
    await host.lobby.open(channel, guild, ADA, "Ada")
    await host.lobby.join(channel, BO, "Bo")
    return (await host.lobby.start(channel, ADA)).info


async def test_a_lobby_not_started_closes_after_lobby_days_across_a_restart(store: Any) -> None:
    clock = Clock()
    host = await restarted(store, clock, lobby_days=7)
    lobby = await host.lobby.open(CH, GUILD, ADA, "Ada", locale="de")
    assert await timers(store, lobby.game_id) == [(LOBBY_EXPIRY, clock.now + 7 * DAY)]
    clock.now += 6 * DAY
    assert await due_timers(host) == []
    host = await restarted(store, clock, lobby_days=7)  # restarted in the middle of the week
    clock.now += DAY
    [closed] = await due_timers(host)
    assert isinstance(closed, TableInfo) and closed.status == "abandoned" and closed.game_id == lobby.game_id
    assert (await store.get_game(lobby.game_id)).status == "abandoned"
    assert await idle_posts(store, lobby.game_id) == [{"what": "lobby_closed", "locale": "de", "days": 7}]
    kinds = [d.kind for d in await store.deliveries(lobby.game_id)]
    assert kinds == [LOBBY_POST, LOBBY_EDIT, IDLE_POST], "the lobby message is redrawn (no buttons) before the post"
    assert await timers(store, lobby.game_id) == []
    with pytest.raises(HostError):
        await host.lobby.join(CH, BO, "Bo")
    assert (await restarted(store, clock)).games.info(CH) is None  # nothing open left to load


async def test_a_lobby_in_a_thread_whose_thread_is_gone_has_its_message_in_the_channel_redrawn(store: Any) -> None:
    """A deleted thread's lobby ends, and its message in the parent channel is owed its redraw (no Join button that
    leads nowhere; nothing else: the lobby message is no player's turn DM); a lobby in a deleted channel of its own
    owes none (its message went with the channel)."""
    host = await restarted(store, Clock())
    thread = await host.lobby.open(CH2, GUILD, ADA, "Ada", parent_id=CH, lobby_message=(CH, CH2))
    [posted] = await host.outbox.pending_deliveries(CH2)
    await host.outbox.delivered(posted, message_id=CH2)
    here = await host.lobby.open(CH3, GUILD, BO, "Bo")
    for channel, reason in ((CH2, "thread deleted"), (CH3, "channel deleted")):
        closed = await host.idle_tables.close_channel(channel, reason)
        assert closed is not None and closed.status == "abandoned"
    assert [(d.kind, d.channel_id) for d in await store.pending_deliveries()] == [(LOBBY_EDIT, CH2)]
    assert [d.kind for d in await store.deliveries(here.game_id)] == [LOBBY_POST]
    assert [d.game_id for d in await store.pending_deliveries()] == [thread.game_id]


async def test_a_started_lobby_never_expires(store: Any) -> None:
    clock = Clock()
    host = await restarted(store, clock, lobby_days=7, stale_days=14)
    info = await started(host)
    assert await timers(store, info.game_id) == [(IDLE_GAME, clock.now + 14 * DAY)]
    clock.now += 8 * DAY
    assert await due_timers(host) == []
    assert host.games.info(CH).status == "running"
    assert await idle_posts(store, info.game_id) == []


async def test_every_move_rearms_the_stale_timer(store: Any) -> None:
    clock = Clock()
    host = await restarted(store, clock, stale_days=14)
    info = await started(host)
    clock.now += 13 * DAY
    await play_first(host)
    assert await timers(store, info.game_id) == [(IDLE_GAME, clock.now + 14 * DAY)]
    clock.now += 13 * DAY
    assert await due_timers(host) == []
    assert await idle_posts(store, info.game_id) == []


async def test_a_stale_game_is_announced_kept_open_and_abandoned_unrated(store: Any) -> None:
    clock = Clock()
    host = await restarted(store, clock, stale_days=14)
    info = await started(host)
    await play_first(host)
    clock.now += 14 * DAY
    [announced] = await due_timers(host)
    assert announced.game_id == info.game_id and announced.status == "running"
    assert await idle_posts(store, info.game_id) == [
        {"what": "notice", "locale": "en", "days": 14, "user_ids": [ADA, BO], "grace_days": KEEP_OPEN_DAYS}]
    assert await timers(store, info.game_id) == [(IDLE_ABANDON, clock.now + KEEP_OPEN_DAYS * DAY)]

    host = await restarted(store, clock, stale_days=14)  # restarted while the players may keep it open
    clock.now += DAY
    with pytest.raises(HostError) as refused:
        await host.idle_tables.keep_open(CH, CY, info.game_id)
    assert refused.value.key == "host.error.not_seated"
    await host.idle_tables.keep_open(CH, BO, info.game_id)  # not the player to move: anyone seated may
    assert await timers(store, info.game_id) == [(IDLE_GAME, clock.now + 14 * DAY)]
    with pytest.raises(HostError) as refused:
        await host.idle_tables.keep_open(CH, ADA, info.game_id)
    assert refused.value.key == "host.error.not_stale"
    clock.now += 3 * DAY
    assert await due_timers(host) == []  # kept open: no abandonment when the three days are up
    assert host.games.info(CH).status == "running"

    clock.now += 11 * DAY
    [again] = await due_timers(host)
    assert again.status == "running" and len(await idle_posts(store, info.game_id)) == 2
    host = await restarted(store, clock, stale_days=14)
    clock.now += KEEP_OPEN_DAYS * DAY
    [abandoned] = await due_timers(host)
    assert abandoned.status == "abandoned" and host.games.info(CH).status == "abandoned"
    assert (await idle_posts(store, info.game_id))[-1] == {"what": "abandoned", "locale": "en", "days": 14}
    assert await timers(store, info.game_id) == []
    assert await host.archive.stats(GUILD, ADA) is None and await host.archive.stats(GUILD, BO) is None  # not rated
    assert (await restarted(store, clock)).games.info(CH) is None


async def test_a_move_after_the_announcement_cancels_the_abandonment(store: Any) -> None:
    clock = Clock()
    host = await restarted(store, clock, stale_days=14)
    info = await started(host)
    clock.now += 14 * DAY
    assert len(await due_timers(host)) == 1
    clock.now += DAY
    await play_first(host)
    assert await timers(store, info.game_id) == [(IDLE_GAME, clock.now + 14 * DAY)]
    clock.now += 2 * DAY
    assert await due_timers(host) == []
    assert host.games.info(CH).status == "running"


async def test_a_deleted_channel_ends_its_game_with_nothing_left_pending(store: Any) -> None:
    clock = Clock()
    host = await restarted(store, clock)
    gone = await started(host, CH)
    other = await started(host, CH2)
    assert await store.pending_deliveries(CH)  # the start post and the hands are still owed
    closed = await host.idle_tables.close_channel(CH, "channel deleted")
    assert closed is not None and closed.status == "abandoned" and host.games.info(CH).status == "abandoned"
    assert await store.pending_deliveries(CH) == []
    assert {d.last_error for d in await store.deliveries(gone.game_id)} == {"channel deleted"}
    in_flight = (await store.deliveries(gone.game_id))[0]  # a send that failed while the channel was closed
    await store.retry_delivery(in_flight.id, due_at=clock.now + 2, error="DiscordServerError 503")
    assert await store.pending_deliveries(CH) == []
    assert (await store.deliveries(gone.game_id))[0].last_error == "channel deleted"
    assert await timers(store, gone.game_id) == []
    assert await host.computers.computer_channels() == []
    assert await host.idle_tables.close_channel(CH, "channel deleted") is None  # twice: nothing more to do
    assert host.games.info(CH2).status == "running" and await store.pending_deliveries(CH2)
    assert await timers(store, other.game_id) != []
    assert (await restarted(store, clock)).games.info(CH) is None


async def test_leaving_a_server_ends_its_games_only(store: Any) -> None:
    clock = Clock()
    host = await restarted(store, clock)
    first = await started(host, CH)
    lobby = await host.lobby.open(CH2, GUILD, ADA, "Ada")
    elsewhere = await started(host, CH3, OTHER_GUILD)
    closed = await host.idle_tables.close_guild(GUILD, "removed from the server")
    assert sorted(i.game_id for i in closed) == sorted([first.game_id, lobby.game_id])
    assert all(i.status == "abandoned" for i in closed)
    assert await store.pending_deliveries(CH) == [] and await store.pending_deliveries(CH2) == []
    assert host.games.info(CH3).status == "running" and await timers(store, elsewhere.game_id) != []
    await play_first(host, CH3)


async def test_games_stored_without_stale_timers_get_them_at_the_next_start(store: Any) -> None:
    clock = Clock()
    host = await restarted(store, clock, lobby_days=7, stale_days=14)
    lobby = await host.lobby.open(CH, GUILD, ADA, "Ada")
    opened_at = clock.now
    clock.now += DAY
    running = await started(host, CH2)
    await play_first(host, CH2)
    moved_at = clock.now
    for game_id in (lobby.game_id, running.game_id):  # as stored by a bot from before the stale timers
        await store.update_game(game_id, now=clock.now, cancel_timers=[LOBBY_EXPIRY, IDLE_GAME], **STORED_BEFORE)
        assert await timers(store, game_id) == []
    clock.now += DAY
    await restarted(store, clock, lobby_days=7, stale_days=14)
    await restarted(store, clock, lobby_days=7, stale_days=14)  # a second start adds nothing more
    assert await timers(store, lobby.game_id) == [(LOBBY_EXPIRY, opened_at + 7 * DAY)]
    assert await timers(store, running.game_id) == [(IDLE_GAME, moved_at + 14 * DAY)]


async def test_leaving_a_server_ends_games_another_process_holds(store: Any) -> None:
    clock = Clock()
    other_process = await restarted(store, clock)
    host = await restarted(store, clock)
    game = await started(host, CH)  # opened through the first process only
    assert await other_process.idle_tables.guild_channels(GUILD) == [CH]
    await other_process.idle_tables.close_guild(GUILD, "removed from the server")
    assert (await store.get_game(game.game_id)).status == "abandoned"
    assert await store.pending_deliveries(CH) == [] and await timers(store, game.game_id) == []


async def test_a_finished_game_keeps_no_timer_and_its_rematch_lobby_expires(store: Any) -> None:
    clock = Clock()
    host = await restarted(store, clock, lobby_days=7)
    finished = await started(host)
    await host.play.away(CH, ADA)
    await host.play.away(CH, BO)
    async for _ in host.computers.run_computers(CH):  # the computer plays both seats to the end
        pass
    assert host.games.info(CH).status == "over" and await timers(store, finished.game_id) == []
    rematch = await host.lobby.rematch(CH, BO)
    assert await timers(store, rematch.game_id) == [(LOBBY_EXPIRY, clock.now + 7 * DAY)]
    clock.now += 7 * DAY
    [closed] = await due_timers(host)
    assert closed.game_id == rematch.game_id and closed.status == "abandoned"


async def test_a_game_paused_by_a_vacation_does_not_go_stale(store: Any) -> None:
    clock = Clock()
    host = await restarted(store, clock, stale_days=14)
    info = await started(host)
    await host.vacation.start(ADA, 20)
    seat_of_ada = host.games.seat_of(CH, ADA)
    assert seat_of_ada is not None
    await host.vacation.vote(info.game_id, BO, seat_of_ada, "pause")
    pause = host.vacation.pause_of(host.games.tables[CH])
    assert pause is not None
    clock.now += 14 * DAY
    assert await due_timers(host) == []  # paused: no notice, the period starts again when the pause ends
    assert await idle_posts(store, info.game_id) == []
    assert (IDLE_GAME, pause[1] + 14 * DAY) in await timers(store, info.game_id)


async def test_a_deleted_channel_owes_an_edit_to_each_dm_still_showing_a_turn(store: Any) -> None:
    """The DMs that went out with a turn's controls and were not told yet that it passed are each owed their edit,
    one per person, in the transaction that ends the game; a DM already told is not, nor a game of another channel."""
    clock = Clock()
    host = await restarted(store, clock)
    gone = await started(host, CH)
    other = await started(host, CH2)
    turn_dms = [d for d in await store.deliveries(gone.game_id) if d.kind == TURN_DM]
    for n, delivery in enumerate(turn_dms, start=1):
        await store.mark_delivered(delivery.id, now=clock.now, edited_id=1000 + n)
    told = [d for d in await store.deliveries(other.game_id) if d.kind == TURN_DM]
    for delivery in told:
        await store.mark_delivered(delivery.id, now=clock.now, edited_id=2000, closed=[delivery.id])
    assert turn_dms and told
    await host.idle_tables.close_channel(CH, "channel deleted")
    await host.idle_tables.close_channel(CH2, "channel deleted")
    owed = await store.pending_deliveries(CH)
    assert sorted((d.user_id, d.kind, d.seq, d.payload["reason"], d.payload["why"]) for d in owed) == [
        (user_id, TURN_OVER_DM, max(d.seq for d in turn_dms if d.user_id == user_id), CHANNEL_GONE, "channel deleted")
        for user_id in sorted({d.user_id for d in turn_dms if d.user_id is not None})]
    assert await store.pending_deliveries(CH2) == []  # its one turn DM was told already
