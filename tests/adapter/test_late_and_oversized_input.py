"""Input Discord lets through that the bot answers calmly, through the fake Discord and the real discord.py: a
``history id:`` too large for any game is refused in words (never "storage is not working"), and an interaction
that reached the bot after Discord's 3 s (10062 Unknown interaction) is one warning naming its command, without a
traceback."""

from __future__ import annotations

import asyncio
import logging

import pytest

from i18n import t
from tests.helpers.driver import TIMEOUT, Driver


@pytest.mark.parametrize("number", [2**53, 2**53 + 1, 2**63 - 1, 2**63, 2**64 + 5, 10**30])
async def test_a_history_id_beyond_any_game_is_refused_in_words(driver: Driver, number: int) -> None:
    for export in (False, True):
        reply = await driver.answer(await driver.slash("history", {"id": number, "export": export}, user="alice"))
        assert reply.text == t("bot.history.bad_id", "en", id=number, most=2**53 - 1)
        assert reply.text != t("bot.stats.storage_failed", "en")
    driver.assert_no_errors()


async def test_an_interaction_that_came_too_late_is_one_warning_without_a_traceback(
        driver: Driver, caplog: pytest.LogCaptureFixture) -> None:
    fake = driver.fake
    caplog.set_level(logging.WARNING, logger="bot.adapter")
    fake.callback_deadline = 0.0  # Discord's is 3 s; 0 makes every answer late, as on a slow moment
    try:
        handle = await driver.slash("rules", user="alice")
        await handle.wait_until(lambda h: h.rejected_callbacks, what="a rejected callback", timeout=TIMEOUT)
        assert handle.rejected_callbacks[0][1].code == 10062
        await fake.wait_until(lambda: any("10062" in r.getMessage() for r in caplog.records), timeout=TIMEOUT,
                              description="the warning", poll=0.05)
        await asyncio.sleep(0.3)  # a second log line (e.g. a failed error reply) would come now
    finally:
        fake.callback_deadline = None
    about = [r for r in caplog.records if r.name.startswith("bot.") and r.levelno >= logging.WARNING]
    assert len(about) == 1, [r.getMessage() for r in about]
    assert about[0].levelno == logging.WARNING and about[0].exc_info is None
    assert "santacruz rules" in about[0].getMessage()
    driver.assert_no_errors()
    reply = await driver.answer(await driver.slash("history", {"id": 2**63}, user="alice"))  # answers again in time
    assert reply.text == t("bot.history.bad_id", "en", id=2**63, most=2**53 - 1)
