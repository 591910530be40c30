"""Someone new takes over a seat left to the computer, through the real discord.py against the fake Discord, with a
clock the test moves: *Take this seat* under the post that handed the seat over, refused to someone seated; the
offer's post with the opener's *Confirm*, refused to a stranger (also a forged click, which changes nothing) and
pressed by someone with Manage Channels; the newcomer's DMs and none for the person who left; the log and the
game-over post naming both people; the ratings as the README says (the seat taken over counted apart, the others
rated as in a game with computers). Then the lapse after a day across a restart, and the seat's own person coming
back first (both take *Confirm* off the offer's post). And how fast each person usually moves, in the lobby and in
``games``, on SQLite and PostgreSQL (what is left out of a turn's time is the host's, tested in
``tests/host/test_turn_times.py``; here one turn over quiet hours shows it is left out of what the lines say)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.adapter import ids
from bot.adapter.words.archive import duration
from bot.host.settings import Settings
from i18n import t
from tests.fakediscord import FakeDiscord, FakeMessage
from tests.helpers.buttons import is_take_seat
from tests.helpers.clock import DAY, HOUR, Clock
from tests.helpers.driver import TIMEOUT, Driver, channel_post, run_timers, with_clock

EN = "en"


def seat_of(driver: Driver, user: str) -> int:
    return int(next(s.seat for s in driver.info().seats if s.user_id == driver.fake.user(user).id))


async def click(driver: Driver, message: FakeMessage, custom_id: str, user: str) -> FakeMessage:
    return await driver.answer(await driver.fake.click_button(message, custom_id, user=user))


def newcomers(driver: Driver) -> None:
    for name in ("dave", "erin"):
        user = driver.fake.add_user(name, locale="en-US", global_name=name.title())
        driver.fake.add_member(driver.fake.guild(), user)


async def play_turns(driver: Driver, clock: Any, users: tuple[str, ...], turns: int) -> None:
    """Each turn after ten minutes of the clock, until each of ``users`` has ``turns`` timed turns here."""
    guild = driver.info().guild_id
    while True:
        speeds = [await driver.host.archive.turn_speed(guild, driver.fake.user(u).id) for u in users]
        if min(s.turns for s in speeds) >= turns:
            return
        clock.advance(1 / 6)
        await driver.play_turn()
        await driver.settle()


async def test_a_newcomer_takes_over_a_seat_once_confirmed_and_the_seat_is_named_and_rated_apart(
        driver: Driver) -> None:
    clock = await with_clock(driver)
    newcomers(driver)
    fake = driver.fake
    # bob opens; alice owns the server (Manage Channels); no replay: the game-over post is read for its words only
    await driver.open_game(["bob", "alice", "carol"], replay=False)
    await driver.settle()
    await play_turns(driver, clock, ("alice", "bob"), 3)
    game, carol = driver.info().game_id, seat_of(driver, "carol")
    await driver.answer(await driver.slash("away", user="carol"))
    handed = await channel_post(driver, "Carol is away")
    take = ids.take_seat(game, carol)
    assert [(b["custom_id"], b["label"]) for b in handed.buttons] == [(take, "Take this seat")]
    # someone seated may not take another seat; someone not seated offers
    assert (await click(driver, handed, take, "alice")).text == t("host.error.takeover_seated", EN)
    answer = await click(driver, handed, take, "dave")
    assert answer.ephemeral and "Your offer to take over Carol’s seat is posted" in answer.text
    offer = await channel_post(driver, "Dave offers to take over Carol’s seat")
    confirm = ids.confirm_takeover(game, carol, fake.user('dave').id)
    assert offer.text.startswith(f"<@{fake.user('bob').id}> ")  # the opener is pinged
    assert [(b["custom_id"], b["label"]) for b in offer.buttons] == [(confirm, "Let Dave play it")]
    # a stranger's click, and forged ones, are refused in words and change nothing
    not_opener = t("host.error.not_opener", EN, opener="Bob")
    assert (await click(driver, offer, confirm, "erin")).text == not_opener
    forged = fake.add_bot_message(driver.channel, "forged",
                                  buttons=[ids.confirm_takeover(game, carol, fake.user("erin").id)])
    assert (await click(driver, forged, forged.custom_ids[0], "erin")).text == not_opener
    assert (await click(driver, forged, forged.custom_ids[0], "bob")).text == t("host.error.takeover_gone", "de")
    seat = driver.info().seats[carol]
    assert (seat.user_id, seat.offered_to) == (fake.user("carol").id, "Dave")
    # someone who may manage the channel confirms: the seat is Dave's, his cards come by DM, Carol's stop
    carol_dms = len(fake.dm_messages("carol"))
    await driver.fake.click_button(offer, confirm, user="alice")
    await channel_post(driver, "Dave takes over Carol’s seat and plays it from now on")
    await fake.wait_until(lambda: not fake.message(offer.id).buttons and not fake.message(handed.id).buttons,
                          timeout=TIMEOUT, description="Confirm and Take this seat gone")
    hand = await fake.wait_until(lambda: fake.dm_messages("dave"), timeout=TIMEOUT, description="Dave's hand")
    assert f"<#{driver.channel.id}>" in hand[-1].text
    assert driver.info().seats[carol].user_id == fake.user("dave").id
    back = await driver.answer(await driver.slash("back", user="carol"))
    assert back.text == t("host.error.not_seated", "fr")
    if driver.to_move_user() == "dave":
        await driver.play_turn("dm")
        await driver.settle()
    log = await driver.answer(await driver.slash("log", user="erin"))
    assert "🪑 _Dave takes over Carol’s seat._" in log.text
    before = log.text.split("🪑 _Dave takes over Carol’s seat._")[0]
    assert "Carol" in before and "Dave" not in before
    # everyone away: the computers finish the game
    for user in ("bob", "alice", "dave"):
        await driver.answer(await driver.slash("away", user=user))
    await fake.wait_until(lambda: driver.info().status == "over", timeout=TIMEOUT, description="game over",
                          poll=0.2)
    await driver.settle()
    over = await channel_post(driver, "Game over")
    # the posts that handed Bob's, Alice's and Dave's seats to the computer lost Take this seat with the game's end
    await fake.wait_until(lambda: not [c for m in fake.messages(driver.channel) if m.id != forged.id
                                       for c in m.custom_ids if is_take_seat(c, game)], timeout=TIMEOUT,
                          description="no Take this seat after the game's end (the forged post is the test's)")
    assert "Carol, then Dave" in over.text
    guild = driver.info().guild_id
    speeds = {u: await driver.host.archive.turn_speed(guild, fake.user(u).id) for u in ("bob", "alice")}
    usual = {u: duration(speed.median, EN) for u, speed in speeds.items()}
    assert f"⏱️ Usually moves within: Bob {usual['bob']}, Alice {usual['alice']}" in over.text
    assert len(fake.dm_messages("carol")) == carol_dms
    # ratings: Dave's seat counted apart, not rated; Bob and Alice rated among games with computers; Carol nothing
    dave = await driver.answer(await driver.slash("stats", user="dave"))
    assert "Seats taken over from someone who left (not rated, not counted above): 1, wins:" in dave.text
    assert t("bot.stats.unrated", EN) in dave.text
    alice = await driver.answer(await driver.slash("stats", user="alice"))
    assert "in games with computers" in alice.text and "Seats taken over" not in alice.text
    gone = await driver.answer(await driver.slash("stats", {"player": fake.user("carol").id}, user="alice"))
    assert gone.text == t("bot.stats.none", EN, name="Carol")


async def test_an_offer_lapses_after_a_day_and_the_seats_own_person_coming_back_wins(driver: Driver) -> None:
    """Each decided offer's post loses *Confirm*, found by the message it went out as however busy the channel was
    meanwhile (sixty messages later), and only that offer's: another seat's offer keeps its own."""
    clock = await with_clock(driver)
    newcomers(driver)
    await driver.open_game(["alice", "bob", "carol"])
    await driver.settle()
    game, bob, carol = driver.info().game_id, seat_of(driver, "bob"), seat_of(driver, "carol")
    await driver.answer(await driver.slash("away", user="bob"))
    handed = await channel_post(driver, "Bob is away")
    # /santacruz join in the running game offers too (the only seat that may be taken)
    answer = await driver.answer(await driver.slash("join", user="dave"))
    assert "Your offer to take over Bob’s seat is posted" in answer.text
    offer = await channel_post(driver, "Dave offers to take over Bob’s seat")
    confirm = offer.custom_ids[0]
    for i in range(60):  # the channel talks on: the offer is far behind its last fifty messages
        driver.fake.add_bot_message(driver.channel, f"chat {i}")
    clock.advance(23)
    await driver.restart()
    clock.advance(1)
    await run_timers(driver)
    await channel_post(driver, "Dave’s offer to take over Bob’s seat lapsed")
    await driver.fake.wait_until(lambda: not driver.fake.message(offer.id).buttons, timeout=TIMEOUT,
                                 description="the lapsed offer's Confirm gone")
    late = await click(driver, driver.fake.add_bot_message(driver.channel, "old", buttons=[confirm]), confirm, "alice")
    assert late.text == t("host.error.takeover_gone", EN)
    # Erin offers for Bob's seat, Dave for Carol's; Bob comes back first and keeps his seat
    await driver.answer(await driver.slash("away", user="carol"))
    handed_carol = await channel_post(driver, "Carol is away")
    await click(driver, handed, ids.take_seat(game, bob), "erin")
    second = await channel_post(driver, "Erin offers to take over Bob’s seat")
    await click(driver, handed_carol, ids.take_seat(game, carol), "dave")
    third = await channel_post(driver, "Dave offers to take over Carol’s seat")
    await driver.answer(await driver.slash("back", user="bob"))
    await channel_post(driver, "Bob is back, so Erin’s offer to take over their seat is withdrawn")
    await driver.fake.wait_until(lambda: not driver.fake.message(second.id).buttons, timeout=TIMEOUT,
                                 description="the withdrawn offer's Confirm gone")
    await driver.fake.wait_until(lambda: not driver.fake.message(handed.id).buttons, timeout=TIMEOUT,
                                 description="Take this seat gone from Bob's hand-over")
    assert driver.fake.message(third.id).custom_ids == [ids.confirm_takeover(game, carol, driver.fake.user('dave').id)]
    assert driver.fake.message(handed_carol.id).custom_ids == [ids.take_seat(game, carol)]
    seat = driver.info().seats[bob]
    assert (seat.user_id, seat.away, seat.offered_to) == (driver.fake.user("bob").id, False, None)
    assert driver.info().seats[carol].offered_to == "Dave"
    take = ids.take_seat(game, bob)  # a click that was on its way: refused in words
    again = await click(driver, driver.fake.add_bot_message(driver.channel, "old", buttons=[take]), take, "dave")
    assert again.text == t("host.error.takeover_not_open", EN, name="Bob")


@pytest.mark.parametrize("database", ["sqlite", "postgres"])
async def test_how_fast_each_person_usually_moves_in_the_lobby_and_in_games(
        fake_discord: FakeDiscord, settings: Settings, database: str, request: pytest.FixtureRequest) -> None:
    """Alice's three turns take 10 minutes, 9 hours over her quiet hours (13:00-21:00 UTC, not counted: 1 hour) and 2
    hours, Bob's 20 minutes each: the lobby says Alice usually moves within 1 hour (counting her quiet hours it
    would be 2), Bob within 20 minutes; ``games`` says it under each game."""
    if database == "postgres":
        settings = Settings(database_url=request.getfixturevalue("pg_url"), ai_strength="random", ai_seconds=0.05,
                            picture_width=800)
    clock = Clock.real_time()
    clock.now = (clock.now // DAY + 1) * DAY + 12 * HOUR  # tomorrow 12:00 UTC
    driver = Driver(fake_discord, settings, channel="games", clock=clock)
    await driver.start()
    try:
        await driver.answer(await driver.slash("settings", {"time_zone": "UTC", "quiet_from": 13, "quiet_to": 21},
                                               user="alice"))
        await driver.two_player_game()
        guild, alice = driver.info().guild_id, fake_discord.user("alice").id
        alice_turns = 0
        async def timed(user: str) -> int:
            return int((await driver.host.archive.turn_speed(guild, fake_discord.user(user).id)).turns)

        while await timed("alice") < 3 or await timed("bob") < 3:
            user = driver.to_move_user()
            if user == "bob":
                clock.advance(1 / 3)
            else:
                quiet_starts = clock.now // DAY * DAY + 13 * HOUR
                clock.now = [clock.now + 10 * 60, quiet_starts + 8 * HOUR + HOUR - (quiet_starts - clock.now),
                             clock.now + 2 * HOUR][min(alice_turns, 2)]
                alice_turns += 1
            while driver.to_move_user() == user and driver.info().status == "running":
                await driver.play_turn()
            await driver.settle()
        assert (await driver.host.archive.turn_speed(guild, alice)).median == HOUR
        lobby = await driver.open_lobby("alice", channel="general")
        assert "1. Alice · ⏱️ usually moves within 1 h 0 min" in lobby.text
        await driver.answer(await driver.slash("join", user="bob", channel="general"))
        await fake_discord.wait_until(lambda: "2. Bob · ⏱️ usually moves within 20 min" in fake_discord.message(
            lobby.id).text, timeout=TIMEOUT, description="the lobby redrawn with Bob's line")
        games = await driver.answer(await driver.slash("games", user="bob"))
        assert games.text.count("⏱️ Zieht meist binnen: Alice 1 Std. 0 Min., Bob 20 Min.") == 2  # Bob reads German
    finally:
        await driver.stop()
