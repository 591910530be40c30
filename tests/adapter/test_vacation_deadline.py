"""Vacations and turn deadlines through the real discord.py against the fake Discord, with a clock the test moves
(no real waiting): the vote buttons both ways and the 12-hour default, ``back`` from a DM, the deadline shown in the
lobby, its DM warning at 75 %, the computer's move at 100 % and the hand-over after the third; each across a
restart of the bot in the middle of its waiting period."""

from __future__ import annotations

from typing import Any

from bot.adapter import ids
from i18n import LOCALES, t
from tests.fakediscord import FakeMessage
from tests.helpers.clock import HOUR
from tests.helpers.driver import TIMEOUT, Driver, channel_post, run_timers, with_clock


def vote_id(driver: Driver, user: str, choice: str) -> str:
    info = driver.info()
    seat = next(s.seat for s in info.seats if s.user_id == driver.fake.user(user).id)
    return ids.vacation(info.game_id, seat, choice)


async def new_dm(driver: Driver, user: str, seen: int, words: str) -> FakeMessage:
    """The first of the user's DMs after the first ``seen`` that holds ``words``."""
    def found() -> FakeMessage | None:
        return next((m for m in driver.fake.dm_messages(user)[seen:] if words in m.text), None)
    message: FakeMessage = await driver.fake.wait_until(found, timeout=TIMEOUT, description=f"a DM with {words}")
    return message


async def click(driver: Driver, message: FakeMessage, custom_id: str, user: str) -> str:
    handle = await driver.fake.click_button(message, custom_id, user=user)
    return (await driver.answer(handle)).text


async def test_the_others_vote_to_pause_across_a_restart_and_back_from_a_dm_ends_it(driver: Driver) -> None:
    clock = await with_clock(driver)
    await driver.open_game(["alice", "bob", "carol"])
    await driver.settle()
    answer = await driver.answer(await driver.slash("vacation", {"days": 3}, user="carol",
                                                    channel=driver.fake.dm_channel("carol")))
    until = int(clock.now + 3 * 24 * HOUR)
    assert f"<t:{until}:f>" in answer.text and answer.ephemeral
    post = await channel_post(driver, "is on vacation for 3 days")
    assert sorted(b["label"] for b in post.buttons) == ["Let the computer play Carol", "Pause the game"]
    assert "Seuls les autres joueurs" in await click(driver, post, vote_id(driver, "carol", "pause"), "carol")
    assert "Your vote is counted" in await click(driver, post, vote_id(driver, "carol", "pause"), "alice")
    await driver.restart()  # in the middle of the vote: alice's vote stays, the buttons keep working
    assert "Stimme" in await click(driver, post, vote_id(driver, "carol", "pause"), "bob")
    await channel_post(driver, "The game is paused while Carol is on vacation")
    await driver.fake.wait_until(lambda: not driver.fake.message(post.id).buttons, timeout=TIMEOUT,
                                 description="the decided vote's buttons gone")
    late = vote_id(driver, "carol", "computer")  # a click that was on its way: refused in words
    old = driver.fake.add_bot_message(driver.channel, "old", buttons=[late])
    assert await click(driver, old, late, "alice") == t("host.error.vote_closed", "en", name="Carol")
    user = driver.to_move_user()
    assert user is not None
    refusal = await driver.play_slash(user, driver.pick(user))
    assert "Carol" in refusal.text and f"<t:{until}:f>" in refusal.text and driver.info().paused
    back = await driver.answer(await driver.slash("back", user="carol", channel=driver.fake.dm_channel("carol")))
    assert "1" in back.text and not driver.info().paused
    await channel_post(driver, "Carol is back from vacation")
    await driver.play_turn()


async def test_nobody_voting_lets_the_computer_play_until_the_vacation_ends(driver: Driver) -> None:
    clock = await with_clock(driver)
    vacationer = await driver.two_player_game()
    await driver.answer(await driver.slash("vacation", {"days": 2}, user=vacationer))
    await channel_post(driver, "is on vacation for 2 days")
    clock.advance(6)
    await driver.restart()  # in the middle of the 12 hours
    clock.advance(6)
    await run_timers(driver)
    await channel_post(driver, "The computer plays")
    await driver.settle()  # the computer made the vacationer's move
    assert driver.to_move_user() not in (vacationer, None)
    seat = next(s for s in driver.info().seats if s.user_id == driver.fake.user(vacationer).id)
    assert seat.vacation == "computer"
    clock.advance(36)
    await driver.restart()
    await run_timers(driver)
    await channel_post(driver, "is back from vacation")
    seat = next(s for s in driver.info().seats if s.user_id == driver.fake.user(vacationer).id)
    assert seat.vacation is None


async def test_a_deadline_warns_then_the_computer_moves_and_the_third_time_takes_the_seat(driver: Driver) -> None:
    clock = await with_clock(driver)
    lobby = await driver.open_game(["alice", "bob"], deadline="12")
    assert "turn deadline 12 h" in lobby.text
    await driver.settle()
    timeouts: dict[str, int] = {"alice": 0, "bob": 0}
    while True:
        user = driver.to_move_user()
        assert user is not None
        seen = len(driver.fake.dm_messages(user))
        clock.advance(8)
        await driver.restart()  # before the warning
        clock.advance(1)
        await run_timers(driver)
        warning = await new_dm(driver, user, seen, f"<t:{int(clock.now + 3 * HOUR)}:R>")
        assert "then the computer moves" in warning.text or "dann zieht der Computer" in warning.text
        assert f"<t:{int(clock.now + 3 * HOUR)}:R>" in warning.text
        await driver.restart()  # before the deadline
        clock.advance(3)
        seq = driver.info().seq
        await run_timers(driver)
        await driver.wait_seq(seq + 1)
        timeouts[user] += 1
        name = driver.fake.user(user).global_name
        if timeouts[user] == 3:
            break
        await channel_post(driver, f"{name} ran out of time; the computer moved for them ({timeouts[user]} of 3)")
        await driver.settle()
    handed = await channel_post(driver, f"After 3 turns out of time, the computer plays {name}’s seat from now on")
    seat = next(s for s in driver.info().seats if s.user_id == driver.fake.user(user).id)
    assert seat.away
    assert handed.custom_ids == [ids.take_seat(driver.info().game_id, seat.seat)]  # someone new may take it over


async def test_a_reminder_during_a_vote_explains_the_vacation(driver: Driver) -> None:
    clock = await with_clock(driver)
    waiting = await driver.two_player_game()
    vacationer = "bob" if waiting == "alice" else "alice"
    nothing = await driver.answer(await driver.slash("vacation", {"days": 4}, user="carol",
                                                     channel=driver.fake.dm_channel("carol")))
    assert "Tu ne joues dans aucune partie" in nothing.text
    await driver.answer(await driver.slash("vacation", {"days": 4}, user=vacationer))
    until = int(clock.now + 4 * 24 * HOUR)
    await channel_post(driver, "is on vacation for 4 days")
    seen = len(driver.fake.dm_messages(waiting))
    clock.advance(12.5)
    cog: Any = driver.bot.get_cog("SantaCruz")
    assert await cog.send_reminders() == 1
    reminder = await new_dm(driver, waiting, seen, f"<t:{until}:f>")
    assert driver.fake.user(vacationer).global_name in reminder.text


async def test_a_deadline_passed_while_the_bot_was_down_sends_no_reminder_before_the_computer_moves(
        driver: Driver) -> None:
    clock = await with_clock(driver)
    await driver.open_game(["alice", "bob"], deadline="12")
    await driver.settle()
    user = driver.to_move_user()
    assert user is not None
    seq = driver.info().seq
    seen = len(driver.fake.dm_messages(user))
    clock.advance(13)  # the bot was down past the reminder (12 h), the warning (9 h) and the deadline (12 h)
    await driver.restart()
    cog: Any = driver.bot.get_cog("SantaCruz")
    assert await cog.background.send_reminders() == 0  # what the sweep does first...
    await run_timers(driver)  # ...then the computer moves for the player
    await driver.wait_seq(seq + 1)
    name = driver.fake.user(user).global_name
    await channel_post(driver, f"{name} ran out of time; the computer moved for them (1 of 3)")
    await driver.settle()
    where = f"<#{driver.channel.id}>"
    late = [m.text for m in driver.fake.dm_messages(user)[seen:]
            if any(t("bot.dm.reminder", loc, channel=where) in m.text or ("<t:" in m.text and ":R>" in m.text)
                   for loc in LOCALES)]
    assert late == [], late  # neither a reminder nor a warning for the turn the deadline took
