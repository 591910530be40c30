"""Display names holding mentions with short ids (``<@123>``, ``<@&4>``, ``<#56>``), which
``discord.utils.escape_mentions`` (17-20 digits only) lets through, are escaped wherever a name goes into a message,
through the real discord.py and the fake Discord, in the lobby and in a game's posts."""

from __future__ import annotations

import re

import pytest

from bot.adapter.words.common import esc
from tests.helpers.driver import Driver, board_posts

NAME = "<@123> <@!7> <@&4> <#56> <@12345678901234567890123>"
RAW_MENTION = re.compile(r"<[@#][!&]?\d+>")


@pytest.mark.parametrize("name", [NAME, "<@1>", "<#9>", "<@&0123>"])
def test_every_mention_in_a_name_is_broken_whatever_its_digits(name: str) -> None:
    assert RAW_MENTION.search(esc(name)) is None
    assert esc(name).replace("\u200b", "").replace("\\", "") == name  # readable as typed


async def test_a_name_with_short_mentions_is_escaped_in_the_lobby_and_the_posts(driver: Driver) -> None:
    fake = driver.fake
    fake.add_member(fake.default_guild, fake.add_user("mallory", locale="en-US", global_name=NAME))
    await driver.open_game(["alice", "mallory"])
    await driver.settle()
    await driver.play_turn()
    await driver.settle()
    ours = [m for m in fake.messages(driver.channel, ephemeral=False) if m.author_id == fake.bot_user.id]
    with_name = [m for m in ours if "<\u200b@123>" in m.text]
    assert with_name, "the name appears in the channel"
    players = {str(fake.user(u).id) for u in ("alice", "mallory")}
    for message in ours:
        assert all(m.group(0)[2:-1].lstrip("!") in players
                   for m in RAW_MENTION.finditer(message.text) if m.group(0).startswith("<@")), message.text
        assert "<#56>" not in message.text and "<@&4>" not in message.text and "<@123>" not in message.text
    assert board_posts(fake, driver.channel)
