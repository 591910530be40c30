"""The fake Discord speaks Discord's sharding: IDENTIFY with ``[shard_id, shard_count]``, each session gets
its shard's guilds and their events (``(guild_id >> 22) % shard_count``), DMs go to shard 0, and
``GET /gateway/bot`` recommends the shard count. Driven with discord.py's own ``AutoShardedClient``."""

from __future__ import annotations

import discord
from discord import app_commands

from tests.fakediscord import FakeDiscord, patch_discord, run_bot
from tests.fakediscord.server import shard_of


def sharded_client(shard_ids: list[int] | None, shard_count: int | None) -> discord.AutoShardedClient:
    """A client with one command that answers with the shard it was reached on."""
    intents = discord.Intents.none()
    intents.guilds = True
    client = discord.AutoShardedClient(intents=intents, shard_ids=shard_ids, shard_count=shard_count)
    tree = app_commands.CommandTree(client)

    @tree.command(name="where", description="Which shard am I on?")
    async def where(interaction: discord.Interaction) -> None:
        shard = interaction.guild.shard_id if interaction.guild is not None else 0
        await interaction.response.send_message(f"shard {shard}")

    async def setup_hook() -> None:
        await tree.sync()

    async def before_identify_hook(shard_id: int | None, *, initial: bool = False) -> None:
        """No 5 s wait between two shards' IDENTIFY: the fake allows them at once (max_concurrency)."""

    client.setup_hook = setup_hook  # type: ignore[method-assign]  # a tiny client, no subclass needed
    client.before_identify_hook = before_identify_hook  # type: ignore[method-assign]  # the same
    return client


async def test_two_processes_each_get_their_shard_guilds_and_dms_go_to_shard_0() -> None:
    async with FakeDiscord(shard_count=2) as fake:
        fake.add_guild("Zero", owner="alice", shard=(0, 2), channels=("games",))
        fake.add_guild("One", owner="alice", shard=(1, 2), channels=("games",))
        zero, one = fake.guild("Zero"), fake.guild("One")
        assert shard_of(zero.id, 2) == 0 and shard_of(one.id, 2) == 1
        with patch_discord(fake):
            first, second = sharded_client([0], 2), sharded_client([1], 2)
            async with run_bot(first, fake), run_bot(second, fake):
                sessions = fake.shard_sessions()
                assert {k: s.shard for k, s in sessions.items()} == {0: (0, 2), 1: (1, 2)}
                for client, shard in ((first, 0), (second, 1)):
                    assert {g.id for g in client.guilds} == {g for g in fake.guilds if shard_of(g, 2) == shard}
                assert zero.id in {g.id for g in first.guilds} and one.id in {g.id for g in second.guilds}
                for guild, shard in ((zero, 0), (one, 1)):
                    channel = next(c for c in fake.channels.values() if c.guild_id == guild.id)
                    handle = await fake.slash_command("where", channel=channel, user="alice")
                    assert (await handle.wait_for_message()).content == f"shard {shard}"
                    assert any(e["t"] == "INTERACTION_CREATE" and e["d"]["id"] == str(handle.id)
                               for e in sessions[shard].events)
                dm = await fake.slash_command("where", channel=fake.dm_channel("alice"), user="alice")
                assert (await dm.wait_for_message()).content == "shard 0"
                assert any(e["t"] == "INTERACTION_CREATE" and e["d"]["id"] == str(dm.id) for e in sessions[0].events)


async def test_an_auto_sharded_client_asks_the_gateway_for_the_shard_count() -> None:
    async with FakeDiscord(shard_count=2) as fake:
        fake.add_guild("One", owner="alice", shard=(1, 2))
        with patch_discord(fake):
            client = sharded_client(None, None)
            async with run_bot(client, fake):
                assert client.shard_count == 2
                assert sorted(fake.shard_sessions()) == [0, 1]
                assert fake.requests_to("GET", "/gateway/bot")
