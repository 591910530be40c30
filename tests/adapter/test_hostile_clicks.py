"""Hostile and odd clicks through the fake Discord and the real discord.py: the post's *Undo* names its
position and takes nothing back once the game is elsewhere, a click whose id matches none of the bot's buttons gets
one answer in words, and an interaction Discord delivers twice is carried out once and logged as one warning."""

from __future__ import annotations

import logging

import pytest

from bot.adapter import ids
from i18n import t
from tests.helpers.driver import TIMEOUT, Driver, undoable_move


async def test_the_posts_undo_naming_another_position_takes_nothing_back(driver: Driver) -> None:
    fake = driver.fake
    mover, game, seq, post = await undoable_move(driver)
    assert ids.game(game, "undo", seq) in post.custom_ids
    # a stale client's Undo of an older post, and forged positions: refused as outdated, nothing taken back
    forged = fake.add_bot_message(driver.channel, "forged", buttons=[ids.game(game, "undo", n)
                                                                     for n in (seq - 1, seq + 1, 0)])
    for custom_id in forged.custom_ids:
        reply = await driver.answer(await fake.click_button(forged, custom_id, user=mover))
        assert reply.ephemeral and reply.text == t("host.error.stale", fake.user(mover).locale or "en")
        assert driver.info().seq == seq and driver.to_move_user() != mover
    # the post's own Undo still takes the move back
    reply = await driver.answer(await fake.click_button(post, ids.game(game, "undo", seq), user=mover))
    assert reply.ephemeral and reply.text.startswith("Taken back:")
    await driver.settle()
    assert driver.to_move_user() == mover and driver.info().seq == seq + 1


@pytest.mark.parametrize("locale", ["en-US", "de", "fr"])
async def test_a_click_matching_none_of_the_bots_buttons_is_answered_in_words(
        driver: Driver, locale: str, caplog: pytest.LogCaptureFixture) -> None:
    fake = driver.fake
    caplog.set_level(logging.WARNING)
    # ids no builder makes (and none of the bot's templates matches): damaged or forged, so typed as they come
    damaged = ["sc:undo:abc", "sc:1:undo:x", "sc:", "sc:" + "9" * 97, "x" * 100]
    forged = fake.add_bot_message(driver.channel, "forged", buttons=damaged)
    lang = locale.split("-")[0]
    for custom_id in damaged:
        click = await fake.click_button(forged, custom_id, user="alice", locale=locale)
        reply = await driver.answer(click)
        assert reply.ephemeral and reply.text == t("bot.error.unknown_button", lang)
        assert len(click.messages) == 1, "one answer"
    assert not [r for r in caplog.records if r.exc_info], "no traceback"
    driver.assert_no_errors()


async def test_an_interaction_delivered_twice_is_carried_out_once_and_one_warning(
        driver: Driver, caplog: pytest.LogCaptureFixture) -> None:
    fake = driver.fake
    caplog.set_level(logging.WARNING, logger="bot.adapter")
    mover = await driver.two_player_game()
    seq = driver.info().seq
    move = next(m for m in driver.host.play.legal_moves(driver.channel.id, fake.user(mover).id) if m.startswith("land"))
    command, options = driver.slash_for_move(move)
    handle = fake.build_slash_command(f"santacruz {command}", options, user=mover, channel=driver.channel)
    await fake.dispatch_interactions(handle, handle)  # the same interaction, delivered twice
    await handle.wait_until(lambda h: h.rejected_callbacks, what="the second acknowledgement", timeout=TIMEOUT)
    ((_, error),) = handle.rejected_callbacks
    assert (error.status, error.code, error.message) == (400, 40060, "Interaction has already been acknowledged.")
    await fake.wait_until(lambda: any("40060" in r.getMessage() for r in caplog.records), timeout=TIMEOUT,
                          description="the warning", poll=0.05)
    await driver.settle()
    assert handle.callback is not None, "the first delivery was answered"
    assert driver.info().seq <= seq + 1, "not carried out twice"  # a landing that reveals a tile asks first
    about = [r for r in caplog.records if r.name.startswith("bot.") and r.levelno >= logging.WARNING]
    assert len(about) == 1, [r.getMessage() for r in about]
    assert about[0].levelno == logging.WARNING and about[0].exc_info is None
    assert "santacruz land" in about[0].getMessage()
    driver.assert_no_errors()
