"""A refused move is explained with the engine's reason, in the language of the user who made it."""

from __future__ import annotations

from i18n import t
from tests.helpers.driver import Driver


async def test_a_refused_move_gives_the_engine_reason_in_the_users_language(driver: Driver) -> None:
    fake = driver.fake
    mover = await driver.two_player_game()
    seq = driver.info().seq
    card = driver.host.play.view_for(driver.channel.id, fake.user(mover).id)["you"]["scoring_cards"][0]
    for locale, lang in (("de", "de"), ("fr", "fr"), ("en-US", "en")):
        reply = await driver.answer(await driver.slash("score", {"card": card}, user=mover, locale=locale))
        assert reply.ephemeral
        lines = reply.text.splitlines()
        assert lines[0] == t("bot.error.illegal", lang, move=f"score {card}")
        assert lines[1] == t("game.illegal.phase_land", lang)  # everyone lands first
        assert lines[2].startswith(t("bot.error.possible", lang, moves="")[:8])
    assert driver.info().seq == seq
