"""What a decision needs, where it is taken, through the real discord.py against the fake Discord, in
English, German and French: the set buttons of a turn DM list their cards; with a turn deadline the turn DM,
``/santacruz status`` and ``/santacruz games`` say when the time runs out; ``status`` for a player not to move is
headed "Your cards", not "Your cards changed"; the scoring-card menu and ``score`` autocomplete show what each card
would score now for the player and the best other player; the turn DM says which card builds where; and the
mover's confirmation and ``log`` say a landing in the channel's words ("… builds a lighthouse on site 10 (+2)").

One short drafted 2-player game per language (sets, landings, the first turn of play) carries every check; the
expected values are read from the host's real game (the engine's own scoring and tiles), not from the texts."""

from __future__ import annotations

from typing import Any

import pytest

from engine import BUILDING_SETS, SINGLE_BUILDS
from i18n import LOCALES, describe_move, listed, t, tn
from tests.fakediscord import FakeMessage
from tests.fakediscord.audit import plural_slips, relative_after_since, without_emojis
from tests.helpers.buttons import is_game_button, is_pick, move_of
from tests.helpers.clock import HOUR
from tests.helpers.driver import TIMEOUT, Driver, with_clock

DISCORD_LOCALES = {"en": "en-US", "de": "de", "fr": "fr"}
PLAYERS = ("alice", "bob")


def game_of(driver: Driver) -> Any:
    """The host's real game (the engine's truth the texts are checked against)."""
    return driver.host.games.tables[driver.channel.id].game


async def answer(driver: Driver, command: str, options: dict[str, Any], user: str, locale: str) -> FakeMessage:
    return await driver.answer(await driver.slash(command, options, user=user, locale=DISCORD_LOCALES[locale]))


def words_are_right(text: str, locale: str) -> None:
    assert relative_after_since(text) == [], text
    assert plural_slips(text, locale) == [], text


async def open_in(driver: Driver, locale: str) -> None:
    """``/santacruz new draft:true deadline:24``, bob joins, alice starts: every interaction in ``locale``."""
    dl = DISCORD_LOCALES[locale]
    lobby = await driver.open_lobby("alice", {"draft": True, "deadline": "24", "language": locale}, locale=dl)
    join = next(b for b in lobby.buttons if is_game_button(b["custom_id"], "join"))
    await (await driver.fake.click_button(lobby, join["custom_id"], user="bob", locale=dl)).wait_for_callback(
        timeout=TIMEOUT)
    start = next(b for b in lobby.buttons if is_game_button(b["custom_id"], "start"))
    await (await driver.fake.click_button(lobby, start["custom_id"], user="alice", locale=dl)).wait_for_callback(
        timeout=TIMEOUT)
    await driver.wait_posts(1)
    await driver.settle()


@pytest.mark.parametrize("locale", LOCALES)
async def test_a_turn_shows_what_the_decision_needs(driver: Driver, locale: str) -> None:
    clock = await with_clock(driver)
    await open_in(driver, locale)
    until = int(clock.now + 24 * HOUR)
    deadline_dm = t("bot.dm.deadline", locale, until=f"<t:{until}:R>", at=f"<t:{until}:t>")

    # the set buttons list their cards, as the engine deals them
    mover = driver.to_move_user()
    assert mover is not None
    other = next(p for p in PLAYERS if p != mover)
    dm = await driver.wait_turn_dm(mover)
    sets = {str(move_of(b["custom_id"])).split()[-1]: b for b in dm.buttons
            if str(move_of(b["custom_id"])).startswith("set ")}
    assert len(sets) == 4
    for letter, button in sets.items():
        assert button["label"].startswith(t("game.set.label", locale, set=letter,
                                            name=t(f"game.set.{letter}.name", locale)))
        for card, count in BUILDING_SETS[letter].items():
            assert tn(f"game.count.card.{card}", count, locale) in button["label"], button["label"]
    # the turn DM says when the time runs out; status says it for everyone, games too
    assert deadline_dm in dm.text
    words_are_right(dm.text, locale)
    status = await answer(driver, "status", {}, other, locale)
    assert t("bot.status.deadline", locale, until=f"<t:{until}:R>", at=f"<t:{until}:t>") in status.text
    assert t("bot.dm.your_cards", locale, channel=f"<#{driver.channel.id}>", phase="").split("(")[0] in status.text
    assert t("bot.dm.hand_changed", locale, channel=f"<#{driver.channel.id}>", phase="").split("(")[0] \
        not in status.text
    words_are_right(status.text, locale)
    games = await answer(driver, "games", {}, other, locale)
    assert t("bot.games.deadline", locale, until=f"<t:{until}:R>") in games.text
    words_are_right(games.text, locale)

    # the sets, then the landings by slash command: confirmation and log in the channel's words
    lands: list[tuple[str, int]] = []
    while game_of(driver).phase != "play":
        user = driver.to_move_user()
        assert user is not None
        seq = driver.info().seq
        move = driver.pick(user, lambda legal: legal[0])
        if move.startswith("set "):
            reply = await answer(driver, "choose", {"option": move}, user, locale)
        else:
            site = int(move.split()[1])
            reply = await driver.slash_confirmed("land", {"site": site}, user, DISCORD_LOCALES[locale])
            tile = game_of(driver).site_tile[site]
            seat = driver.host.games.seat_of(driver.channel.id, driver.fake.user(user).id)
            names = [p["name"] for p in driver.host.play.public_view(driver.channel.id)["players"]]
            said = describe_move(move, locale, names, seat, built=(tile.building, tile.points, False))
            to_you = describe_move(move, locale, names, seat, built=(tile.building, tile.points, False), you=True)
            assert t("bot.reply.played", locale, move=to_you) in reply.text  # said to the mover
            assert names[seat] not in reply.text
            lands.append((said, site))
        await driver.wait_seq(seq + 1)
    await driver.settle()
    log = await answer(driver, "log", {}, "alice", locale)
    for said, _ in lands:
        assert said in log.text

    # the first turn of play: scoring cards with what they score now, and which card builds where
    mover = driver.to_move_user()
    assert mover is not None
    seat = driver.host.games.seat_of(driver.channel.id, driver.fake.user(mover).id)
    game = game_of(driver)
    names = [p["name"] for p in driver.host.play.public_view(driver.channel.id)["players"]]
    dm = await driver.wait_turn_dm(mover)
    menu = next(s for s in dm.selects if is_pick(s["custom_id"], "score"))
    for option in menu["options"]:
        card = option["value"].split()[1]
        mine, theirs = game.card_points(seat, card), game.card_points(1 - seat, card)
        sign = {True: "+", False: ""}
        expected = t("bot.score.now", locale, card=t(f"game.scoring.{card}.name", locale),
                     points=f"{sign[mine > 0]}{mine}".replace("-", "−"), other=names[1 - seat],
                     other_points=f"{sign[theirs > 0]}{theirs}".replace("-", "−")) if theirs else t(
            "bot.score.now_alone", locale, card=t(f"game.scoring.{card}.name", locale),
            points=f"{sign[mine > 0]}{mine}".replace("-", "−"))  # nobody named when the other would score nothing
        assert option["label"] == expected
    handle = await driver.fake.autocomplete("santacruz score", "card", "", user=mover, channel=driver.channel,
                                            locale=DISCORD_LOCALES[locale])
    choices = (await handle.wait_for_callback(timeout=TIMEOUT)).choices
    assert {c["value"] for c in choices} == {o["value"].split()[1] for o in menu["options"]}
    labels = {o["value"].split()[1]: o["label"] for o in menu["options"]}
    assert all(c["name"].startswith(labels[c["value"]]) for c in choices)
    # "Where your cards build: Ship 1, 2, … · Road nowhere": the sites of each card's menu, per card held
    held = game.view(seat)["players"][seat]["building_cards"]
    parts = []
    for card in SINGLE_BUILDS:
        if not held.get(card):
            continue
        select = next((s for s in dm.selects if is_pick(s["custom_id"], card)), None)
        sites = sorted(int(o["value"].split()[1]) for o in select["options"]) if select else []
        where = listed(sites, locale) or t("bot.dm.builds_nowhere", locale)
        parts.append(f"{t(f'game.card.{card}.short', locale)} {where}")
    assert t("bot.dm.builds", locale, cards=" · ".join(parts)) in without_emojis(dm.text)  # each after its emoji
    assert deadline_dm in dm.text
    words_are_right(dm.text, locale)
