"""``/santacruz hint`` and the *Hint* button through the real discord.py and the fake Discord.

A 3-player game opened with ``hints:true`` in English, German and French: the player to move asks the coach every
few moves (once by the *Hint* button of their turn DM). Every answer is deferred first (ephemeral "thinking"), then
arrives as the asker's ephemeral follow-up: exactly the coach's advice in words of the asker's language
(:func:`i18n.coach.advice_text` of the advice the host gives for that position, which it thinks about once), and
nothing else happens (no channel post, no DM, the game's version unchanged). Refusals in words, changing nothing:
another player's turn, an outdated *Hint* button (on the hand ``status`` shows), a table without hints, no table, a
user without a seat. The
lobby and the game's posts say that hints are on.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.adapter import ids
from bot.adapter.words.archive import stats_text
from bot.adapter.words.common import esc
from bot.host.ratings import player_stats
from bot.host.settings import Settings
from i18n import percent, t
from i18n.coach import advice_text
from tests.fakediscord import CallbackType, FakeDiscord, FakeMessage, InteractionHandle
from tests.helpers.driver import TIMEOUT, Driver, board_posts

PLAYERS = ["alice", "bob", "carol"]
HINT_EVERY = 3
"""The player to move asks for a hint every this many moves."""
MOVES = 10
DISCORD_LOCALES = {"en": "en-US", "de": "de", "fr": "fr"}
"""The Discord locale a person of each language has."""


def names(driver: Driver) -> tuple[str, ...]:
    return tuple(s.name for s in driver.info().seats)


async def stored_version(driver: Driver) -> tuple[int, int]:
    """The game's version in the database and its move-log length: any change bumps them."""
    row = await driver.host.store.get_game(driver.info().game_id)
    assert row is not None
    return row.version, driver.info().seq


def seen_elsewhere(driver: Driver) -> tuple[int, ...]:
    """What everyone sees besides ephemeral answers: the channel's messages and each player's DMs."""
    fake = driver.fake
    return (len(fake.messages(driver.channel, ephemeral=False)),
            *(sum(not m.ephemeral for m in fake.dm_messages(u)) for u in PLAYERS))


async def deferred_answer(driver: Driver, handle: InteractionHandle) -> FakeMessage:
    """The answer of a hint: the interaction deferred first (ephemeral, "thinking"), then the asker's ephemeral
    follow-up."""
    callback = await handle.wait_for_callback(timeout=TIMEOUT)
    assert callback.kind == CallbackType.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE and callback.ephemeral, callback
    answer = await driver.answer(handle)
    assert answer.ephemeral
    meta = answer.interaction_metadata or {}
    assert meta.get("user", {}).get("id") == str(handle.user.id)  # the asker's, and only theirs to see
    return answer


async def check_hint(driver: Driver, handle: InteractionHandle, user: str, lang: str) -> None:
    """The hint ``user`` asked for is the coach's advice for their seat now, in words of ``lang``, and nothing
    else changed."""
    answer = await deferred_answer(driver, handle)
    advice = (await driver.host.hints.hint(driver.channel.id, driver.fake.user(user).id)).advice  # the same position
    assert answer.text == advice_text(advice, lang, names(driver), escape=esc, notation=False)
    assert " — " not in answer.text.splitlines()[1]  # the best move in words alone, without its notation
    seat = driver.host.games.seat_of(driver.channel.id, driver.fake.user(user).id)
    assert advice.seat == seat and advice.best.move in driver.host.play.legal_moves(driver.channel.id,
                                                                                    driver.fake.user(user).id)
    title = t("coach.title", lang, player=names(driver)[seat], round=advice.round)
    lines = answer.text.splitlines()
    assert lines[0] == title and lines[1].startswith(t("coach.best", lang, move="", words="").rstrip(" —-"))
    assert any(line.startswith("• ") for line in lines[2:])  # the reasons, in words


@pytest.fixture
def hint_settings(settings: Settings) -> Settings:
    return replace(settings, hint_seconds=0.2)


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
async def test_the_player_to_move_asks_the_coach_in_a_three_player_game(fake_discord: FakeDiscord,
                                                                        hint_settings: Settings, lang: str) -> None:
    driver = Driver(fake_discord, hint_settings, channel="games")
    await driver.start()
    try:
        await play_with_hints(driver, lang)
    finally:
        await driver.stop()


async def play_with_hints(driver: Driver, lang: str) -> None:
    fake = driver.fake
    locale = DISCORD_LOCALES[lang]
    # no table yet: refused in words
    nothing = await deferred_answer(driver, await driver.slash("hint", user="alice", locale=locale))
    assert nothing.text == t("host.error.no_game", lang)
    lobby = await driver.open_game(PLAYERS, hints=True, language=lang)
    assert t("bot.lobby.hints", lang) in lobby.text
    await driver.settle()
    start = board_posts(fake, driver.channel)[0]
    assert t("bot.post.hints", lang) in start.text
    by_button = False
    for move in range(MOVES):
        user = driver.to_move_user()
        assert user is not None
        if move % HINT_EVERY == 0:
            before, seen = await stored_version(driver), seen_elsewhere(driver)
            if not by_button:  # once by the Hint button of the turn DM
                dm = await driver.wait_turn_dm(user)
                hint_id = ids.game(driver.info().game_id, "hint", driver.info().seq)
                assert hint_id in dm.custom_ids
                handle = await fake.click_button(dm, hint_id, user=user, locale=locale)
                by_button = True
            else:
                handle = await driver.slash("hint", user=user, locale=locale)
            await check_hint(driver, handle, user, lang)
            assert await stored_version(driver) == before and seen_elsewhere(driver) == seen
            # another player asking now: not their turn, in words
            waiting = next(p for p in PLAYERS if p != user)
            off = await deferred_answer(driver, await driver.slash("hint", user=waiting, locale=locale))
            assert off.text == t("host.error.hint_not_your_turn", lang, name=esc(names(driver)[driver.info().to_move]))
            assert await stored_version(driver) == before
        await driver.play_turn("slash")
        await driver.settle()
    assert by_button
    posts = board_posts(fake, driver.channel)  # the banner once at the start; again only when round 2 begins
    assert len(posts) > 1 and [p for p in posts if t("bot.post.hints", lang) in p.text] == posts[:1]


async def test_refusals_in_words_change_nothing(driver: Driver) -> None:
    fake = driver.fake
    dave = fake.add_user("dave", locale="en-US", global_name="Dave")
    fake.add_member(fake.guild(), dave)
    # a table without hints (the default)
    user = await driver.two_player_game()
    before = await stored_version(driver)
    off = await deferred_answer(driver, await driver.slash("hint", user=user))
    assert off.text == t("host.error.hints_off", fake.user(user).locale.split("-")[0])
    dm = await driver.wait_turn_dm(user)
    assert not any(":hint:" in c for c in dm.custom_ids)  # no Hint button without hints
    # someone without a seat
    stranger = await deferred_answer(driver, await driver.slash("hint", user="dave"))
    assert stranger.text == t("host.error.not_seated", "en")
    assert await stored_version(driver) == before


async def test_status_of_the_player_to_move_offers_the_hint_button(fake_discord: FakeDiscord,
                                                                   hint_settings: Settings) -> None:
    driver = Driver(fake_discord, hint_settings, channel="games")
    await driver.start()
    try:
        await driver.open_game(["alice", "bob"], hints=True)
        await driver.settle()
        user = driver.to_move_user()
        assert user is not None
        status = await driver.answer(await driver.slash("status", user=user))
        hint_id = ids.game(driver.info().game_id, "hint", driver.info().seq)
        assert status.ephemeral and hint_id in status.custom_ids
        await driver.play_turn("slash")
        await driver.settle()
        before = await stored_version(driver)
        old = await deferred_answer(driver, await driver.fake.click_button(status, hint_id, user=user))
        assert old.text == t("host.error.stale", driver.fake.user(user).locale.split("-")[0])
        assert await stored_version(driver) == before
    finally:
        await driver.stop()


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_stats_show_the_games_with_hints_on_a_line_apart(lang: str) -> None:
    rows = [{"game_id": 1, "name": "Ada", "score": 50, "rank": 1, "players": 2, "with_computers": 0,
             "scoring_cards": {}, "bird_chips": 0, "hints": True},
            {"game_id": 2, "name": "Ada", "score": 40, "rank": 2, "players": 2, "with_computers": 0,
             "scoring_cards": {}, "bird_chips": 0, "hints": True}]
    only = player_stats(1, rows, {}, [])
    assert only is not None and (only.games, only.games_with_hints, only.wins_with_hints) == (0, 2, 1)
    text = stats_text(only, lang).splitlines()
    assert text[1] == t("bot.stats.hints", lang, games=2, wins=1) and text[2] == t("bot.stats.unrated", lang)
    assert t("bot.stats.games", lang, games=0, wins=0, share="–") not in text  # no empty record
    mixed = player_stats(1, [{**rows[0], "game_id": 3, "hints": False, "score": 70}, *rows], {}, [])
    assert mixed is not None and (mixed.games, mixed.wins, mixed.scores, mixed.best_score) == (1, 1, [70], 70)
    lines = stats_text(mixed, lang).splitlines()
    assert lines[1] == t("bot.stats.games", lang, games=1, wins=1, share=percent(1, lang))
    assert t("bot.stats.hints", lang, games=2, wins=1) in lines
