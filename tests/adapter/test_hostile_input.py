"""Hostile input through the fake Discord: what any member can type or forge gets a clear ephemeral refusal,
changes nothing and logs no error (the driver fails a test whose bot logged one).

Unicode digits ("²", "٣") are not numbers; forged option values outside a command's choices are refused;
names with markdown, masked links or mentions are escaped in every refusal; a forged button carrying another
server's game id is refused where it was clicked, so the Manage Channels of that other server counts for nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.adapter import ids
from bot.adapter.words.common import esc
from i18n import listed, t
from tests.fakediscord import FakeDiscord, InteractionHandle
from tests.helpers.driver import TIMEOUT, Driver
from tests.helpers.names import HOSTILE_NAMES


@pytest.fixture(autouse=True)
def hostile_world(fake_discord: FakeDiscord) -> None:
    """The world the bot (``driver``) starts in: two members whose display names are hostile, and a second server
    owned by carol (who may manage channels there, not in the game's server)."""
    guild = fake_discord.default_guild
    for name, display in HOSTILE_NAMES.items():
        fake_discord.add_member(guild, fake_discord.add_user(name, locale="en-US", global_name=display))
    fake_discord.add_guild("Carol's Server", owner="carol", channels=("elsewhere",))


async def refused(driver: Driver, handle: InteractionHandle) -> str:
    reply = await driver.answer(handle)
    assert reply.ephemeral, reply.text
    assert reply.text != t("bot.error.unexpected", "en"), "an internal error, not a refusal"
    return reply.text


async def forged_slash(driver: Driver, command: str, options: dict[str, Any], forged: dict[str, Any], *,
                       user: str) -> InteractionHandle:
    """A slash command whose option values were changed after the client built it (a self-made request)."""
    handle = driver.fake.build_slash_command(f"santacruz {command}", options, user=user, channel=driver.channel,
                                             locale="en-US")
    values = handle.payload["data"]["options"][0].setdefault("options", [])
    for name, value in forged.items():
        option = next((o for o in values if o["name"] == name), None)
        if option is None:
            values.append({"name": name, "type": 3, "value": value})
        else:
            option["value"] = value
    return (await driver.fake.dispatch_interactions(handle))[0]


async def test_unicode_digits_are_refused_not_crashed(driver: Driver) -> None:
    mover = await driver.two_player_game()
    seq = driver.info().seq
    # a member who does not play, and the player to move
    for user in ("carol", mover):
        for option in ("pile ²", "pile ٣"):
            text = await refused(driver, await driver.slash("choose", {"option": option}, user=user, locale="en-US"))
            assert text == t("bot.error.bad_option", "en", option=option, choices="—")
    text = await refused(driver, await driver.slash("choose", {"option": "²"}, user=mover, locale="en-US"))
    assert text == t("bot.error.nothing_to_choose", "en")
    text = await refused(driver, await driver.slash("choose", {"option": "²"}, user="carol", locale="en-US"))
    assert text == t("host.error.not_seated", "en")
    # the same through a forged menu value on the mover's turn DM
    dm = await driver.wait_turn_dm(mover)
    menu = dm.selects[0]["custom_id"]
    forged = driver.fake.build_component_interaction(menu, 3, values=["land ²"], message=dm, user=mover,
                                                     locale="en-US")
    await driver.fake.dispatch_interactions(forged)
    text = await refused(driver, forged)
    legal = driver.host.play.legal_moves(driver.channel.id, driver.fake.user(mover).id)
    sites = listed([m.split()[1] for m in legal], "en")
    assert text == t("bot.error.bad_site", "en", site="²", sites=sites)
    assert driver.info().seq == seq


async def test_forged_option_values_are_refused(driver: Driver) -> None:
    bad = t("bot.error.bad_value", "en", value=esc("__class__"))
    text = await refused(driver, await forged_slash(driver, "rules", {"topic": "overview"}, {"topic": "__class__"},
                                                    user="carol"))
    assert text == bad
    text = await refused(driver, await forged_slash(driver, "new", {"language": "en"}, {"language": "xx"},
                                                    user="carol"))
    assert text == t("bot.error.bad_value", "en", value="xx")
    assert driver.info() is None, "no lobby was opened"
    lobby = await driver.open_lobby("bob")
    text = await refused(driver, await forged_slash(driver, "addbot", {}, {"strength": "**godlike**"}, user="bob"))
    assert text == t("bot.error.bad_value", "en", value=esc("**godlike**"))
    assert len(driver.info().seats) == 1
    game_id = driver.info().game_id
    click = await driver.fake.click_button(lobby, ids.game(game_id, "join"), user="alice")
    await click.wait_for_callback(timeout=TIMEOUT)
    click = await driver.fake.click_button(lobby, ids.game(game_id, "start"), user="bob")
    await click.wait_for_callback(timeout=TIMEOUT)
    await driver.settle()
    mover = driver.to_move_user()
    assert mover is not None
    seq = driver.info().seq
    text = await refused(driver, await forged_slash(driver, "build", {"card": "ship", "site": 3}, {"card": "land"},
                                                    user=mover))
    assert text == t("bot.error.bad_value", "en", value="land")
    text = await refused(driver, await forged_slash(driver, "build", {"card": "double", "kind": "road"},
                                                    {"kind": "[x](https://evil.example)"}, user=mover))
    assert text == t("bot.error.bad_value", "en", value=esc("[x](https://evil.example)"))
    assert driver.info().seq == seq


async def test_names_are_escaped_in_private_refusals(driver: Driver) -> None:
    fake = driver.fake
    lobby = await driver.open_lobby("mallory")
    game_id = driver.info().game_id
    click = await fake.click_button(lobby, ids.game(game_id, "start"), user="carol", locale="en-US")
    text = await refused(driver, click)
    assert text == t("host.error.not_opener", "en", opener=esc(HOSTILE_NAMES["mallory"]))
    assert HOSTILE_NAMES["mallory"] not in text and "\\[click me]" in text and "@everyone" not in text
    text = await refused(driver, await driver.slash("abandon", user="carol", locale="en-US"))
    assert text == t("host.error.not_opener", "en", opener=esc(HOSTILE_NAMES["mallory"]))
    confirm = await driver.answer(await driver.slash("abandon", user="mallory"))
    await (await fake.click_button(confirm, ids.game(game_id, "abandon"), user="mallory")).wait_for_callback(
        timeout=TIMEOUT)
    await fake.wait_until(lambda: driver.info() is None or driver.info().status == "abandoned", timeout=TIMEOUT,
                          description="the lobby abandoned")

    await driver.open_game(["mallory", "trudy"])
    await driver.settle()
    mover = driver.to_move_user()
    assert mover is not None
    other = "trudy" if mover == "mallory" else "mallory"
    text = await refused(driver, await driver.slash("land", {"site": 1}, user=other, locale="en-US"))
    assert text == t("host.error.not_your_turn", "en", name=esc(HOSTILE_NAMES[mover]))
    assert HOSTILE_NAMES[mover] not in text


async def test_a_forged_button_from_another_server_is_refused(driver: Driver) -> None:
    fake = driver.fake
    lobby = await driver.open_lobby("bob")
    info = driver.info()
    await driver.answer(await driver.slash("addbot", user="bob"))
    # a message in carol's own server (where she may manage channels) carrying the buttons of bob's game
    buttons = [ids.game(info.game_id, action) for action in ("start", "addbot", "join")]
    forged_message = fake.add_bot_message("elsewhere", "forged", buttons=buttons)
    for custom_id in buttons:
        forged = fake.build_button_click(forged_message, custom_id, user="carol", locale="en-US")
        await fake.dispatch_interactions(forged)
        text = await refused(driver, forged)
        assert text == t("bot.error.wrong_channel", "en", channel=f"<#{driver.channel.id}>")
    after = driver.info()
    assert after.status == "lobby" and len(after.seats) == len(info.seats) + 1
    # in the game's own channel carol is a member without Manage Channels: only the opener may start
    click = await fake.click_button(lobby, ids.game(info.game_id, "start"), user="carol", locale="en-US")
    assert await refused(driver, click) == t("host.error.not_opener", "en", opener="Bob")
    assert driver.info().status == "lobby"
