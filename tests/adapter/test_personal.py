"""A person's own games and settings through the real discord.py and the fake Discord, with the host's clock in the
test's hands (no real waiting): ``/santacruz games`` across two servers and in a DM, the settings panel (refusals in
words, a restart), quiet hours that hold DMs and pings and send what waited as ONE DM when they end (also after a
change of time zone while held), turn DMs off and the person's own reminders."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import aiosqlite
import pytest_asyncio

from bot.adapter import ids
from bot.adapter.words.common import esc
from bot.host.settings import Settings
from i18n import t, tn
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage
from tests.helpers.clock import Clock, at
from tests.helpers.driver import TIMEOUT, Driver, board_posts

HOUR = 3600.0


@pytest_asyncio.fixture
async def world(fake_discord: FakeDiscord, tmp_path: Path) -> AsyncIterator[tuple[Driver, Clock, FakeChannel]]:
    """A bot whose clock the test moves, and a second server ("Other Guild", channel "play") with Alice and Bob."""
    other = fake_discord.add_guild("Other Guild", owner="bob", channels=("play",))
    fake_discord.add_member(other, "alice")
    clock = Clock(at("2026-11-24 20:00"))
    settings = Settings(database_path=str(tmp_path / "santacruz.db"), ai_strength="random", ai_seconds=0.05,
                        reminder_hours=12, busy_timeout=0.2, picture_width=800)
    driver = Driver(fake_discord, settings, channel="games", clock=clock)
    await driver.start()
    try:
        yield driver, clock, fake_discord.channel(next(iter(other.channels)))
    finally:
        await driver.stop()


async def play_until(driver: Driver, channel: FakeChannel, user: str) -> None:
    """Play random moves in ``channel`` (by whoever is to move) until it is ``user``'s turn there."""
    driver.channel = channel
    for _ in range(12):
        if driver.to_move_user() == user:
            await driver.settle()
            return
        await driver.play_turn()
    raise AssertionError(f"{user}'s turn never came")


async def two_games(driver: Driver, second: FakeChannel) -> tuple[FakeChannel, FakeChannel]:
    """Alice and Bob play in the first server's "games" and in the other server's "play"."""
    first = driver.channel
    await driver.open_game(["alice", "bob"])
    driver.channel = second
    await driver.open_game(["bob", "alice"])
    driver.channel = first
    return first, second


async def settings(driver: Driver, user: str, **options: Any) -> FakeMessage:
    return await driver.answer(await driver.slash("settings", options, user=user))


def dms_since(fake: FakeDiscord, user: str, count: int) -> list[FakeMessage]:
    return fake.dm_messages(user)[count:]


async def test_games_across_two_servers_and_in_a_dm_yours_first(world: tuple[Driver, Clock, FakeChannel]) -> None:
    driver, clock, second = world
    fake = driver.fake
    first, _ = await two_games(driver, second)
    clock.now += HOUR
    await play_until(driver, first, "bob")  # the older game waits for Bob
    clock.now += HOUR
    await play_until(driver, second, "alice")  # the newer one for Alice: hers comes first all the same
    for channel in (fake.dm_channel("alice"), first):
        reply = await driver.answer(await driver.slash("games", user="alice", channel=channel))
        lines = reply.text.splitlines()
        assert lines[0] == t("bot.games.title", "en") and len(lines) == 3, reply.text
        assert lines[1].startswith(f"- <#{second.id}>: **your turn** (started <t:")
        assert lines[2].startswith(f"- <#{first.id}>: Bob’s turn (started <t:")
        for line, where in ((lines[1], second), (lines[2], first)):  # a link to the game's latest post
            latest = board_posts(fake, where)[-1]
            assert line.endswith(f"[latest post](https://discord.com/channels/{where.guild_id}/{where.id}/{latest.id})")
        assert reply.ephemeral or channel.guild_id is None
    reply = await driver.answer(await driver.slash("games", user="bob", channel=fake.dm_channel("bob")))
    assert reply.text.splitlines()[1].startswith(f"- <#{first.id}>: **du bist dran** (Zug begann <t:")
    # now both wait for Alice: the turn DM of the one says the other waits too
    clock.now += HOUR
    await play_until(driver, first, "alice")
    dm = await driver.wait_turn_dm("alice")
    assert tn("bot.games.others_wait", 1, "en") in dm.text
    reply = await driver.answer(await driver.slash("games", user="carol", channel=fake.dm_channel("carol")))
    assert reply.text == t("bot.games.none", "fr")


async def test_the_settings_panel_refuses_in_words_and_survives_a_restart(
        world: tuple[Driver, Clock, FakeChannel]) -> None:
    driver, _, _ = world
    fake = driver.fake
    panel = await settings(driver, "alice")
    assert panel.text.startswith(t("bot.settings.title", "en")) and t("bot.settings.quiet_off", "en") in panel.text
    refused = await settings(driver, "alice", time_zone="Mars/Olympus_Mons")
    assert refused.text == t("host.error.bad_time_zone", "en", zone=esc("Mars/Olympus_Mons"))  # markdown escaped
    refused = await settings(driver, "bob", quiet_from=22)
    assert refused.text == t("bot.settings.quiet_both", "de")
    handle = await fake.autocomplete("santacruz settings", "time_zone", "berl", user="alice", channel=driver.channel)
    assert [c["value"] for c in (await handle.wait_for_callback(timeout=TIMEOUT)).choices] == ["Europe/Berlin"]
    saved = await settings(driver, "alice", time_zone="Europe/Berlin", quiet_from=22, quiet_to=7, reminder_hours=6,
                           turn_dms=False)
    assert saved.text.startswith(t("bot.settings.saved", "en"))
    await driver.restart()
    panel = await driver.answer(await driver.slash("settings", user="alice", channel=fake.dm_channel("alice")))
    for line in (t("bot.settings.time_zone", "en", zone="Europe/Berlin", time="20:00"),
                 t("bot.settings.quiet", "en", start="22", end="07"),
                 t("bot.settings.reminders", "en", hours="6 hours"),
                 t("bot.settings.turn_dms_off", "en")):
        assert line in panel.text, panel.text
    assert panel.custom_ids == [ids.forget_ask(fake.user('alice').id)]


async def test_quiet_hours_hold_dms_and_pings_and_collapse_them_into_one(
        world: tuple[Driver, Clock, FakeChannel]) -> None:
    driver, clock, second = world
    fake = driver.fake
    alice = fake.user("alice").id
    first, _ = await two_games(driver, second)
    await play_until(driver, first, "bob")
    await play_until(driver, second, "bob")
    await settings(driver, "alice", time_zone="Europe/Berlin", quiet_from=22, quiet_to=7)
    before = len(fake.dm_messages("alice"))
    clock.now = at("2026-11-24 23:30")  # quiet, until 7:00 tomorrow
    await play_until(driver, first, "alice")
    await play_until(driver, second, "alice")
    assert dms_since(fake, "alice", before) == []  # nothing in the night
    post = board_posts(fake, second)[-1]
    assert f"<@{alice}>" in post.text and post.allowed_mentions is not None
    assert "users" not in post.allowed_mentions.get("parse", []) and not post.allowed_mentions.get("users")
    held = await driver.host.store.held_deliveries(alice)
    assert held and {d.due_at for d in held} == {at("2026-11-25 07:00")}
    assert await driver.cog.publisher.release_held() == []  # not due before the end
    await driver.restart()  # a restart in the night sends nothing either: the held DMs are held again
    await driver.settle()
    assert dms_since(fake, "alice", before) == []
    assert {d.id for d in await driver.host.store.held_deliveries(alice)} == {d.id for d in held}
    assert {d.due_at for d in await driver.host.store.held_deliveries(alice)} == {at("2026-11-25 07:00")}
    clock.now = at("2026-11-25 07:00")
    assert set(await driver.cog.publisher.release_held()) == {first.id, second.id}
    dm = await fake.wait_for_dm("alice", lambda m: m.text.startswith(t("bot.held.header", "en")), timeout=TIMEOUT)
    await driver.settle()
    assert dms_since(fake, "alice", before) == [dm]  # ONE DM for all that waited
    assert f"<#{first.id}>" in dm.text and f"<#{second.id}>" in dm.text
    driver.channel = second  # with the controls of the latest turn
    assert driver.turn_dm("alice") is dm
    assert await driver.host.store.held_deliveries(alice) == []


async def test_a_time_zone_change_while_held_moves_the_end(world: tuple[Driver, Clock, FakeChannel]) -> None:
    driver, clock, _ = world
    fake = driver.fake
    alice = fake.user("alice").id
    await driver.open_game(["alice", "bob"])
    await play_until(driver, driver.channel, "bob")
    await settings(driver, "alice", time_zone="Europe/Berlin", quiet_from=22, quiet_to=7)
    before = len(fake.dm_messages("alice"))
    clock.now = at("2026-11-24 23:30")
    await play_until(driver, driver.channel, "alice")
    assert {d.due_at for d in await driver.host.store.held_deliveries(alice)} == {at("2026-11-25 07:00")}
    # to London: 22:30 there, still quiet, now until 7:00 London time (an hour later)
    await settings(driver, "alice", time_zone="Europe/London")
    london = at("2026-11-25 07:00", ZoneInfo("Europe/London"))
    assert {d.due_at for d in await driver.host.store.held_deliveries(alice)} == {london}
    assert dms_since(fake, "alice", before) == []
    # to New York: 17:30 there, not quiet: what waited comes now, as one DM
    await settings(driver, "alice", time_zone="America/New_York")
    dm = await fake.wait_for_dm("alice", lambda m: m.text.startswith(t("bot.held.header", "en")), timeout=TIMEOUT)
    await driver.settle()
    assert dms_since(fake, "alice", before) == [dm] and driver.turn_dm("alice") is dm


async def test_turn_dms_off_and_the_persons_own_reminders(world: tuple[Driver, Clock, FakeChannel]) -> None:
    driver, clock, _ = world
    fake = driver.fake
    bob = fake.user("bob").id
    await driver.open_game(["alice", "bob"])
    await play_until(driver, driver.channel, "alice")
    await settings(driver, "bob", turn_dms=False, reminders=False)
    await settings(driver, "alice", reminder_hours=2)
    clock.now += HOUR
    await play_until(driver, driver.channel, "bob")
    try:
        driver.turn_dm("bob")
        raise AssertionError("Bob got move controls by DM although he turned turn DMs off")
    except LookupError:
        pass
    post = board_posts(fake, driver.channel)[-1]
    assert f"<@{bob}>" in post.text and "users" in post.allowed_mentions["parse"]  # the channel still pings him
    assert await driver.cog.send_reminders(now=clock.now + 48 * HOUR) == 0  # his reminders are off
    clock.now += HOUR
    await play_until(driver, driver.channel, "alice")
    assert await driver.cog.send_reminders(now=clock.now + 1 * HOUR) == 0
    before = len(fake.dm_messages("alice"))
    assert await driver.cog.send_reminders(now=clock.now + 2 * HOUR + 1) == 1  # after her own 2 hours
    (reminder,) = dms_since(fake, "alice", before)
    assert reminder.text.startswith(t("bot.dm.reminder", "en", channel=f"<#{driver.channel.id}>"))


async def test_a_locked_database_changes_no_setting_and_says_so(world: tuple[Driver, Clock, FakeChannel]) -> None:
    driver, _, _ = world
    await settings(driver, "bob")  # Bob's language is known before the database locks
    async with aiosqlite.connect(driver.settings.database_path) as other:  # another process holds the write lock
        await other.execute("BEGIN IMMEDIATE")
        refused = await settings(driver, "bob", quiet_from=22, quiet_to=7)
        await other.execute("ROLLBACK")
    assert refused.text == t("host.error.storage", "de")
    assert await driver.host.store.user_settings() == {}
    panel = await settings(driver, "bob")
    assert t("bot.settings.quiet_off", "de") in panel.text and not panel.text.startswith(t("bot.settings.saved", "de"))


async def test_joining_within_quiet_hours_sends_no_welcome_dm_and_says_why(
        world: tuple[Driver, Clock, FakeChannel]) -> None:
    driver, clock, _ = world
    fake = driver.fake
    await settings(driver, "alice", time_zone="Europe/Berlin", quiet_from=22, quiet_to=7)
    clock.now = at("2026-11-24 23:30")  # quiet, until 7:00 tomorrow
    before = len(fake.dm_messages("alice")), len(fake.dm_messages("bob"))
    await driver.open_lobby("bob")
    joined = await driver.slash("join", user="alice")
    quiet = t("bot.reply.welcome_quiet", "en", until=int(at("2026-11-25 07:00")))
    answer = await joined.wait_for_message(lambda m: m.text == quiet, timeout=TIMEOUT)
    assert answer.ephemeral
    assert fake.user("alice").id in driver.info().humans, "alice is seated"
    assert dms_since(fake, "alice", before[0]) == [], "no DM within quiet hours"
    assert [m.text for m in dms_since(fake, "bob", before[1])] == [
        t("bot.dm.welcome", "de", channel=f"<#{driver.channel.id}>")], "bob, not quiet, is welcomed by DM"
