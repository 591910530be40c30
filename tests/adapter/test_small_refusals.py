"""Small things of issue 18 through the fake Discord and the real discord.py: a ``history id:`` too large for any
game is refused in words (never "storage is not working"), and an interaction that reached the bot after Discord's
3 s (10062 Unknown interaction) is one warning naming its command, without a traceback."""

from __future__ import annotations

import pytest

from i18n import t
from tests.adapter.conftest import Driver


@pytest.mark.parametrize("number", [2**53 + 1, 2**63 - 1, 2**63, 2**64 + 5, 10**30])
async def test_a_history_id_beyond_any_game_is_refused_in_words(driver: Driver, number: int) -> None:
    for export in (False, True):
        reply = await driver.answer(await driver.slash("history", {"id": number, "export": export}, user="alice"))
        assert reply.text == t("bot.history.bad_id", "en", id=number, most=2**53)
        assert reply.text != t("bot.stats.storage_failed", "en")
    assert driver.runner is not None
    driver.runner.assert_no_errors()
