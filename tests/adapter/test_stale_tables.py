"""Stale tables and gone channels through the fake Discord and the real discord.py, with the host's clock moved by
the tests (days pass without waiting): a lobby nobody starts closes, a game nobody moves in is announced with a
"Keep it open" button and abandoned three days later, each across a restart in the middle of the wait; a deleted
channel, a post that finds its channel gone, and a server the bot was removed from end their games with nothing
left running or retried."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import discord
import pytest
import pytest_asyncio

from bot.host.host import Host
from bot.host.idle import KEEP_OPEN_DAYS
from bot.host.postgres_store import PostgresStore
from bot.host.settings import Settings
from bot.host.table import TableInfo
from i18n import t
from tests.fakediscord import FakeDiscord, FakeMessage
from tests.fakediscord.remote import poll
from tests.helpers.buttons import game_of
from tests.helpers.clock import Clock
from tests.helpers.driver import TIMEOUT, Driver, Gate, open_in_thread, run_timers, running

pytestmark = pytest.mark.moved_clock
"""The ``driver`` here is a bot whose host reads a :class:`Clock` the tests move by days (:func:`clock_of`)."""


async def post_saying(driver: Driver, text: str, channel: Any = None) -> FakeMessage:
    return await driver.fake.wait_for_message(channel if channel is not None else driver.channel,
                                              lambda m: m.content == text, timeout=TIMEOUT)


def clock_of(driver: Driver) -> Clock:
    """The clock the driver's host reads (this module is marked ``moved_clock``)."""
    assert isinstance(driver.clock, Clock)
    return driver.clock


async def nothing_running(driver: Driver, channel_id: int) -> None:
    """Wait until no computer task and no outbox of the channel is running any more."""
    def idle() -> bool:
        c = driver.cog
        task = c.background.computers.get(channel_id)
        box = c.publisher.outboxes.get(channel_id)
        return (task is None or task.done()) and (box is None or box.task is None or box.task.done())
    await driver.fake.wait_until(idle, timeout=TIMEOUT, description="nothing running for the channel", poll=0.05)


# ---------------------------------------------------------------------- lobbies


async def test_a_lobby_not_started_closes_after_a_week_across_a_restart(driver: Driver) -> None:
    lobby = await driver.open_lobby("alice")
    assert lobby.buttons
    clock_of(driver).advance(days=3)
    await driver.restart()  # which message is the lobby's is the database's to say, not the bot's memory
    clock_of(driver).advance(days=4)
    await run_timers(driver)
    await post_saying(driver, t("bot.stale.lobby_closed", "en", days="7 days"))
    await driver.fake.wait_until(lambda: not driver.fake.message(lobby.id).buttons, timeout=TIMEOUT,
                                 description="the lobby message without its buttons")
    assert t("bot.lobby.closed", "en") in driver.fake.message(lobby.id).content
    assert driver.info().status == "abandoned"
    await driver.open_lobby("bob")  # the channel is free again
    assert driver.info().status == "lobby"


async def test_a_started_lobby_does_not_close(driver: Driver) -> None:
    await driver.two_player_game()
    clock_of(driver).advance(days=8)
    await run_timers(driver)
    await driver.settle()
    assert driver.info().status == "running"
    closed = t("bot.stale.lobby_closed", "en", days="7 days")
    assert not [m for m in driver.fake.messages(driver.channel) if m.content == closed]


@pytest.mark.parametrize("thread", [False, True], ids=["in-its-channel", "in-a-thread"])
async def test_a_lobby_closed_by_another_process_loses_its_buttons(fake_discord: FakeDiscord, pg_url: str,
                                                                   thread: bool) -> None:
    """Two processes over one PostgreSQL: the other one closes the lobby nobody started while this one restarts;
    this one, which no longer holds the game, delivers the closing post, and the lobby message (in the game's
    channel, or the channel's message that started the game's thread) loses its Join and Start buttons."""
    fake, now = fake_discord, Clock.real_time()
    settings = Settings(database_url=pg_url, picture_width=800, sweep_seconds=3600.0)
    driver = Driver(fake, settings, channel="games", clock=now)
    await driver.start()
    try:
        if thread:
            lobby, where, _ = await open_in_thread(driver, "alice")
        else:
            lobby, where = await driver.open_lobby("alice"), driver.channel
        game_id = game_of(lobby.custom_ids[0])
        assert lobby.buttons
        await driver.stop()

        store = await PostgresStore.open(pg_url)
        try:
            other = Host(store, settings, clock=now)
            await other.load()
            now.advance(days=8)
            closed = await other.timers.run_due()  # the other process's sweep
            assert [outcome.game_id for outcome in closed if isinstance(outcome, TableInfo)] == [game_id]
        finally:
            await store.close()

        await driver.start()  # the game closed while this process was away: it does not hold it
        assert driver.host.games.find_game(game_id) is None
        await post_saying(driver, t("bot.stale.lobby_closed", "en", days="7 days"), where)

        async def delivered() -> bool:
            return await driver.host.outbox.pending_deliveries(where.id) == []
        await poll(delivered, timeout=TIMEOUT, description="the closing post delivered")
        shown = fake.message(lobby.id)
        assert not shown.buttons and t("bot.lobby.closed", "en") in shown.content
    finally:
        await driver.stop()


# ---------------------------------------------------------------------- stale games


async def test_a_stale_game_is_kept_open_then_abandoned_across_restarts(driver: Driver) -> None:
    fake = driver.fake
    await driver.two_player_game()
    await driver.play_turn()
    await driver.settle()
    clock_of(driver).advance(days=10)
    await driver.restart()  # in the middle of the two weeks
    clock_of(driver).advance(days=4)
    hour = datetime.fromtimestamp(clock_of(driver).now, UTC).hour  # Bob is in his quiet hours: named, not pinged
    await driver.answer(await driver.slash("settings", {"quiet_from": hour, "quiet_to": (hour + 1) % 24}, user="bob"))
    await run_timers(driver)
    alice, bob = fake.user("alice"), fake.user("bob")
    notice_text = t("bot.stale.notice", "en", mentions=f"<@{alice.id}> <@{bob.id}>", days="14 days",
                    grace=f"{KEEP_OPEN_DAYS:g} days")
    notice = await post_saying(driver, notice_text)
    [button] = notice.buttons
    assert button["label"] == t("bot.button.keep_open", "en")
    allowed = notice.allowed_mentions or {}
    assert [int(u) for u in allowed.get("users", [])] == [alice.id] and "users" not in allowed.get("parse", [])

    clock_of(driver).advance(days=1)
    await driver.restart()  # in the middle of the three days
    refused = await driver.answer(await fake.click_button(notice, button["custom_id"], user="carol"))
    assert refused.ephemeral and refused.content == t("host.error.not_seated", "fr")
    click = await fake.click_button(notice, button["custom_id"], user="bob")  # not bob's turn: still his game
    await click.wait_for_callback(timeout=TIMEOUT)
    await fake.wait_until(lambda: fake.message(notice.id).content == t("bot.stale.kept_open", "en", name="Bob",
                                                                        days="14 days"),
                          timeout=TIMEOUT, description="the notice saying Bob kept the game open")
    assert not fake.message(notice.id).buttons
    clock_of(driver).advance(days=KEEP_OPEN_DAYS)
    await run_timers(driver)
    await driver.settle()
    assert driver.info().status == "running"  # kept open: not abandoned when the three days are up

    clock_of(driver).advance(days=14 - KEEP_OPEN_DAYS)
    await run_timers(driver)
    await fake.wait_until(
        lambda: [m for m in fake.messages(driver.channel) if m.content == notice_text and m.id != notice.id],
        timeout=TIMEOUT, description="a second notice")
    clock_of(driver).advance(days=1)
    await driver.restart()
    clock_of(driver).advance(days=KEEP_OPEN_DAYS - 1)
    await run_timers(driver)
    await post_saying(driver, t("bot.stale.abandoned", "en", days="14 days"))
    assert driver.info().status == "abandoned"
    guild_id = driver.channel.guild_id
    assert await driver.host.archive.stats(guild_id, alice.id) is None
    assert await driver.host.archive.stats(guild_id, bob.id) is None


# ---------------------------------------------------------------------- channels and servers that are gone



@pytest_asyncio.fixture
async def gated(fake_discord: FakeDiscord, settings: Settings) -> AsyncIterator[Driver]:
    """A started bot on a :class:`Clock` whose computer player is a :class:`Gate` (it thinks until let go)."""
    async with running(Driver(fake_discord, settings, channel="games", clock=Clock.real_time(), gate=Gate())) as d:
        yield d


async def test_a_deleted_channel_ends_its_game_while_a_computer_thinks(gated: Driver) -> None:
    driver, fake = gated, gated.fake
    await driver.open_game(["alice"], computers=1)
    await driver.settle()
    fake.fail_route("POST", rf"/channels/{driver.channel.id}/messages", times=None)  # posts pile up, retried
    driver.gate.close()
    seq = driver.info().seq
    await driver.play_turn()
    await driver.gate.wait_thinking()  # the computer is to move, and thinking
    await fake.delete_channel(driver.channel)
    game_id = driver.info().game_id
    await fake.wait_until(lambda: driver.info().status == "abandoned", timeout=TIMEOUT, poll=0.05,
                          description="the game abandoned")
    driver.gate.open()
    await nothing_running(driver, driver.channel.id)
    assert driver.info().seq == seq + 1  # the computer's move came too late: not stored
    store = driver.bot.store
    assert store is not None
    assert await store.pending_deliveries(driver.channel.id) == []
    assert {d.last_error for d in await store.deliveries(game_id) if d.last_error is not None} >= {"channel deleted"}
    assert await store.timers(game_id) == []
    assert await driver.host.computers.computer_channels() == []
    fake.clear_errors()
    await driver.restart()  # nothing is resumed for the deleted channel
    assert driver.info() is None or driver.info().status == "abandoned"
    assert await driver.host.outbox.pending_deliveries(driver.channel.id) == []


async def test_a_post_that_finds_the_channel_gone_ends_the_game(driver: Driver) -> None:
    fake = driver.fake
    await driver.two_player_game()
    fake.inject_error("POST", rf"/channels/{driver.channel.id}/messages", status=404, code=10003,
                      message="Unknown Channel", times=None)  # deleted while the bot did not hear of it
    await driver.play_turn()
    await fake.wait_until(lambda: driver.info().status == "abandoned", timeout=TIMEOUT, poll=0.05,
                          description="the game abandoned")
    await nothing_running(driver, driver.channel.id)
    assert await driver.host.outbox.pending_deliveries(driver.channel.id) == []


@pytest_asyncio.fixture
async def two_servers(fake_discord: FakeDiscord, settings: Settings) -> AsyncIterator[list[Driver]]:
    """Drivers for #games and #general of the default server and #lounge of another one, sharing one bot."""
    other = fake_discord.add_guild("Other Guild", owner="alice", channels=("lounge",))
    fake_discord.add_member(other, "bob")
    first = Driver(fake_discord, settings, channel="games", clock=Clock.real_time())
    await first.start()
    drivers = [first]
    for channel in ("general", "lounge"):
        shared = Driver(fake_discord, settings, channel=channel, seed=10 + len(drivers))
        shared.runner = first.runner
        drivers.append(shared)
    try:
        yield drivers
    finally:
        await first.stop()


async def test_removed_from_a_server_its_games_end_and_the_other_server_plays_on(two_servers: list[Driver]) -> None:
    games, general, lounge = two_servers
    fake = games.fake
    for driver in two_servers:
        await driver.two_player_game()
    await fake.remove_guild(fake.default_guild)
    for driver in (games, general):
        await fake.wait_until(lambda d=driver: d.info().status == "abandoned", timeout=TIMEOUT, poll=0.05,
                              description=f"the game in #{driver.channel.name} abandoned")
        await nothing_running(games, driver.channel.id)  # the edits of its turn DMs made
        assert await games.host.outbox.pending_deliveries(driver.channel.id) == []
    assert lounge.info().status == "running"
    seq = lounge.info().seq
    await lounge.play_turn()
    await lounge.wait_posts(2)
    assert lounge.info().seq == seq + 1
    assert games.runner is not None
    games.runner.assert_no_errors()


async def test_removed_from_a_server_while_offline_its_games_end_at_the_next_start(
        two_servers: list[Driver]) -> None:
    games, _, lounge = two_servers
    fake = games.fake
    for driver in (games, lounge):
        await driver.two_player_game()
    await games.stop()
    await fake.remove_guild("Other Guild")  # no bot connected: no event tells it
    await games.start()
    lounge.runner = games.runner

    def abandoned() -> bool:  # the start reads the game when it ends it (until then this process has no copy)
        info = lounge.info()
        return info is not None and info.status == "abandoned"

    await fake.wait_until(abandoned, timeout=TIMEOUT, poll=0.05,
                          description="the game of the server the bot left abandoned")
    await nothing_running(games, lounge.channel.id)  # the edits of its turn DMs made
    assert await games.host.outbox.pending_deliveries(lounge.channel.id) == []
    assert games.info().status == "running"
    await games.play_turn()


async def test_a_deleted_thread_ends_its_game(fake_discord: FakeDiscord, settings: Settings) -> None:
    thread = fake_discord.add_thread("games", "santa-cruz")
    driver = Driver(fake_discord, settings, channel=thread, clock=Clock.real_time())
    await driver.start()
    try:
        user = await driver.two_player_game()
        turn_dm = driver.turn_dm(user)
        await fake_discord.delete_channel(thread)
        await fake_discord.wait_until(lambda: driver.info().status == "abandoned", timeout=TIMEOUT, poll=0.05,
                                      description="the thread's game abandoned")
        gone = t("bot.dm.turn_over.channel_gone", fake_discord.user(user).locale.split("-")[0])
        told = await fake_discord.wait_until(
            lambda: (m := fake_discord.message(turn_dm.id)).text == gone and m, timeout=TIMEOUT, poll=0.05,
            description="the turn DM told that its game ended with its thread")
        assert not told.custom_ids, "its controls are taken off"
        await nothing_running(driver, thread.id)
        assert await driver.host.outbox.pending_deliveries(thread.id) == []
    finally:
        await driver.stop()


async def test_the_fake_answers_like_discord_once_a_channel_or_server_is_gone(two_servers: list[Driver]) -> None:
    games, general, lounge = two_servers
    fake, bot = games.fake, games.bot
    await fake.delete_channel(general.channel)
    await fake.wait_until(lambda: bot.get_channel(general.channel.id) is None, timeout=TIMEOUT,
                          description="the bot's cache without the deleted channel", poll=0.05)
    with pytest.raises(discord.NotFound) as unknown:
        await bot.get_partial_messageable(general.channel.id).send("hello")
    assert unknown.value.code == 10003
    await fake.remove_guild("Other Guild")
    await fake.wait_until(lambda: bot.get_guild(lounge.channel.guild_id) is None, timeout=TIMEOUT,
                          description="the bot's cache without the server", poll=0.05)
    with pytest.raises(discord.Forbidden) as no_access:
        await bot.get_partial_messageable(lounge.channel.id).send("hello")
    assert no_access.value.code == 50001
    assert (await bot.get_partial_messageable(games.channel.id).send("still here")).content == "still here"


async def test_posts_without_access_then_removed_from_the_server_ends_its_games_quietly(
        two_servers: list[Driver]) -> None:
    """Removed from a server, the bot's posts there are answered 403 Missing Access before GUILD_DELETE arrives: the
    opener is asked for no permission, nothing is retried, and ``/santacruz games`` no longer lists those games."""
    games, general, lounge = two_servers
    fake = games.fake
    for driver in two_servers:
        await driver.two_player_game()
    told_before = len(fake.dm_messages("alice"))
    fake.inject_error("POST", rf"/channels/{games.channel.id}/messages", status=403, code=50001,
                      message="Missing Access", times=None)  # Discord took the bot out; the gateway lags behind
    game_id = games.info().game_id
    await games.play_turn("dm")
    store = games.bot.store
    assert store is not None

    async def tried() -> bool:
        return any(d.attempts > 0 for d in await store.deliveries(game_id) if d.kind == "move_post")
    for _ in range(int(TIMEOUT / 0.05)):
        if await tried():
            break
        await asyncio.sleep(0.05)
    assert await tried(), "the post was never tried"
    await fake.remove_guild(fake.default_guild)
    for driver in (games, general):
        await fake.wait_until(lambda d=driver: d.info().status == "abandoned", timeout=TIMEOUT, poll=0.05,
                              description=f"the game in #{driver.channel.name} abandoned")
        await nothing_running(driver, driver.channel.id)
        assert await games.host.outbox.pending_deliveries(driver.channel.id) == []
    asked = t("bot.dm.missing_send_messages", "en", channel=f"<#{games.channel.id}>")
    assert [m.text for m in fake.dm_messages("alice")[told_before:] if m.text == asked] == []
    posts = len(fake.requests_to("POST", rf"/api/v\d+/channels/{games.channel.id}/messages"))
    await asyncio.sleep(0.5)
    assert len(fake.requests_to("POST", rf"/api/v\d+/channels/{games.channel.id}/messages")) == posts  # no retry
    listing = await games.answer(await games.slash("games", user="alice", channel=fake.dm_channel("alice")))
    assert f"<#{lounge.channel.id}>" in listing.text
    assert f"<#{games.channel.id}>" not in listing.text and f"<#{general.channel.id}>" not in listing.text
    assert games.runner is not None
    games.runner.assert_no_errors()


async def test_a_post_answered_missing_access_by_a_server_that_removed_the_bot_ends_the_game(
        two_servers: list[Driver]) -> None:
    """The bot is out of the server (Discord no longer shows it the server) and GUILD_DELETE has not come yet: the
    first post answered 403 Missing Access ends the channel's game at once, without asking the opener anything."""
    games, _, lounge = two_servers
    fake = games.fake
    for driver in (games, lounge):
        await driver.two_player_game()
    told_before = len(fake.dm_messages("alice"))
    fake.guild(fake.default_guild).members.pop(fake.bot_user.id)  # removed; the gateway has not said so yet
    await games.play_turn("dm")
    await fake.wait_until(lambda: games.info().status == "abandoned", timeout=TIMEOUT, poll=0.05,
                          description="the game of the server that removed the bot abandoned")
    await nothing_running(games, games.channel.id)
    assert await games.host.outbox.pending_deliveries(games.channel.id) == []
    asked = t("bot.dm.missing_send_messages", "en", channel=f"<#{games.channel.id}>")
    assert asked not in [m.text for m in fake.dm_messages("alice")[told_before:]]
    store = games.bot.store
    assert store is not None
    errors = {d.last_error for d in await store.deliveries(games.info().game_id) if d.last_error}
    assert any(e.startswith("the bot is no longer in the server") for e in errors), errors
    await fake.dispatch("GUILD_DELETE", {"id": str(fake.default_guild.id)})  # late: nothing left to end
    await fake.wait_until(lambda: games.bot.get_guild(fake.default_guild.id) is None, timeout=TIMEOUT, poll=0.05,
                          description="the bot's cache without the server")
    await nothing_running(games, games.channel.id)
    listing = await games.answer(await games.slash("games", user="alice", channel=fake.dm_channel("alice")))
    assert f"<#{lounge.channel.id}>" in listing.text and f"<#{games.channel.id}>" not in listing.text
    assert lounge.info().status == "running"
    assert games.runner is not None
    games.runner.assert_no_errors()
