"""The commands Discord is told about stay as players know them: the ``/santacruz`` group, its 25 commands, their
options, choices and descriptions in every language, exactly as ``command_tree.json`` records them (whatever classes
the cog is composed of: discord.py collects the commands of every class of a cog)."""

from __future__ import annotations

import json
from pathlib import Path

import discord
from discord.ext import commands

from bot.adapter.cog import SantaCruzCog
from bot.adapter.translator import CatalogueTranslator

RECORDED = Path(__file__).with_name("command_tree.json")


async def test_the_synced_commands_are_those_recorded() -> None:
    bot = commands.Bot(command_prefix="!", intents=discord.Intents.none())
    cog = SantaCruzCog.__new__(SantaCruzCog)  # the class builds the group; the parts are not needed for its payload
    bot.tree.add_command(cog.app_command)
    await bot.tree.set_translator(CatalogueTranslator())
    assert bot.tree.translator is not None
    payload = [await c.get_translated_payload(bot.tree, bot.tree.translator) for c in bot.tree.get_commands()]
    assert json.loads(json.dumps(payload)) == json.loads(RECORDED.read_text(encoding="utf-8"))
    assert [o["name"] for o in payload[0]["options"]][:6] == ["new", "join", "leave", "start", "addbot", "kick"]
