"""The commands Discord is told about stay as players know them: the ``/santacruz`` group, its 25 commands, their
options, choices and descriptions in every language, exactly as ``command_tree.json`` records them (whatever classes
the cog is composed of: discord.py collects the commands of every class of a cog), and what the bot syncs is what
Discord's own API description accepts (``tests/fakediscord/openapi.py``)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import discord
from discord.ext import commands

from bot.adapter.cog import SantaCruzCog
from bot.adapter.translator import CatalogueTranslator
from tests.helpers.driver import Driver

RECORDED = Path(__file__).with_name("command_tree.json")
INT53_MAX = 2**53 - 1
"""The largest integer Discord's description allows an option's ``max_value`` (its ``Int53Type``)."""


async def test_the_synced_commands_are_those_recorded() -> None:
    bot = commands.Bot(command_prefix="!", intents=discord.Intents.none())
    cog = SantaCruzCog.__new__(SantaCruzCog)  # the class builds the group; the parts are not needed for its payload
    bot.tree.add_command(cog.app_command)
    await bot.tree.set_translator(CatalogueTranslator())
    assert bot.tree.translator is not None
    payload = [await c.get_translated_payload(bot.tree, bot.tree.translator) for c in bot.tree.get_commands()]
    assert json.loads(json.dumps(payload)) == json.loads(RECORDED.read_text(encoding="utf-8"))
    assert [o["name"] for o in payload[0]["options"]][:6] == ["new", "join", "leave", "start", "addbot", "kick"]


def _option(command: dict[str, Any], path: str) -> dict[str, Any]:
    node = command
    for name in path.split():
        node = next(o for o in node["options"] if o["name"] == name)
    return node


async def test_the_command_sync_is_what_discords_description_accepts(driver: Driver) -> None:
    fake = driver.fake
    assert fake.command_syncs, "the bot synced its commands at start"
    assert fake.refused_bodies == []
    group = fake.synced_command("santacruz")
    history_id = _option(group, "history id")
    assert history_id["max_value"] == INT53_MAX
    # the sync as it was before (2^53, one more than Discord allows) is refused whole, as Discord refuses it
    before = copy.deepcopy(fake.command_syncs[-1][1])
    _option(next(c for c in before if c["name"] == "santacruz"), "history id")["max_value"] = 2**53
    synced_before = fake.synced_commands()
    status, error = await fake.request_as_bot("PUT", f"/applications/{fake.application_id}/commands", before)
    assert status == 400 and error["code"] == 50035 and error["message"] == "Invalid Form Body"
    index = str(next(i for i, c in enumerate(before) if c["name"] == "santacruz"))
    subcommand = str(next(i for i, o in enumerate(group["options"]) if o["name"] == "history"))
    where = error["errors"][index]["options"][subcommand]["options"]["0"]["max_value"]["_errors"]
    assert where[0]["code"] == "NUMBER_TYPE_MAX" and str(INT53_MAX) in where[0]["message"]
    assert fake.synced_commands() == synced_before, "a refused sync changes nothing"
    (refused,) = fake.take_refused_bodies()
    assert refused.startswith("PUT /applications/") and "max_value" in refused
    assert fake.refused_bodies == []
