"""The fake's gateway with the real discord.py: the handshake and READY, plain JSON frames, a wrong token, a
restarted bot, RESUME after a drop or a RECONNECT, and Discord's sharding (IDENTIFY with ``[shard_id, shard_count]``:
each session gets its shard's guilds and their events, ``(guild_id >> 22) % shard_count``, DMs go to shard 0, and
``GET /gateway/bot`` recommends the shard count; driven with discord.py's own ``AutoShardedClient``)."""

from __future__ import annotations

import discord
import pytest
from discord import app_commands

from tests.fakediscord import TINY_PNG, BotRunner, FakeDiscord, patch_discord, run_bot, shard_of
from tests.fakediscord.sample_bot import make_bot


async def test_ready_populates_the_bot_cache(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    guild = fake.default_guild
    async with run_bot(make_bot(fake), fake) as runner:
        bot = runner.bot
        assert bot.user is not None and bot.user.id == fake.bot_user.id
        assert bot.application_id == fake.application_id
        cached = bot.get_guild(guild.id)
        assert cached is not None and cached.name == "Fake Guild"
        assert cached.preferred_locale is discord.Locale.american_english
        assert {c.name for c in cached.text_channels} == {"general", "games"}
        assert cached.me is not None and cached.me.id == fake.bot_user.id
        assert cached.get_role(guild.id) is not None  # @everyone
        assert await bot.user.display_avatar.read() == TINY_PNG  # the CDN is the fake too
        # the gateway handshake, as discord.py 2.7.1 does it
        session = fake.session
        assert session is not None
        assert session.intents == discord.Intents.default().value
        conn = fake.connections[0]
        assert conn.query["v"] == "10" and conn.query["encoding"] == "json"
        assert conn.query["compress"] == "zlib-stream" and conn.compressed
        assert fake.heartbeats >= 1  # discord.py heartbeats right after HELLO
        events = [e["t"] for e in fake.dispatched_events()]
        assert events[:2] == ["READY", "GUILD_CREATE"]
        assert [e["s"] for e in fake.dispatched_events()] == list(range(1, len(events) + 1))
    # discord.py's close() wakes its own reader, which closes the socket with 4000 first
    assert fake.connections[0].close_code == 4000
    assert not fake.is_connected and fake.session is None  # run_bot ended the session
    fake.assert_no_unknown_requests()


async def test_plain_json_frames_when_compression_is_off() -> None:
    async with FakeDiscord(gateway_compression=False) as fake, patch_discord(fake):
        async with run_bot(make_bot(fake), fake):
            handle = await fake.slash_command("sc count")
            await handle.wait_for_original_edit()
        assert not fake.connections[0].compressed


async def test_wrong_token_fails_login(fake_discord: FakeDiscord) -> None:
    runner = BotRunner(make_bot(fake_discord), fake_discord, token="not-the-token")
    with pytest.raises(RuntimeError) as info:
        await runner.start()
    assert isinstance(info.value.__cause__, discord.LoginFailure)
    assert fake_discord.requests[0].status == 401


async def test_restart_keeps_persistent_views_working(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with run_bot(make_bot(fake), fake):
        handle = await fake.slash_command("sc game new", {"players": 2, "title": "Old"})
        message = await handle.wait_for_message()
    assert not fake.is_connected

    # a fresh bot object, same fake: the old message's button still works
    async with run_bot(make_bot(fake), fake):
        assert len(fake.sessions) == 2
        click = await fake.click_button(message, "sample:join", user="carol")
        assert (await click.wait_for_message()).content == "carol joined"
    assert len(fake.command_syncs) == 4  # each start synced global + guild


async def test_reconnect_resumes_the_session(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with run_bot(make_bot(fake), fake):
        session = fake.session
        await fake.disconnect()
        # dispatched while the bot may still be away: kept, and replayed on RESUME if needed
        handle = await fake.slash_command("sc count")
        await handle.wait_for_original_edit()
        assert fake.resumes == 1 and fake.session is session
        assert len(fake.connections) == 2 and fake.connections[1].query.get("v") == "10"
        # RECONNECT (op 7) also resumes
        await fake.request_reconnect()
        await fake.wait_until(lambda: fake.resumes == 2, description="a second RESUME")
        handle = await fake.slash_command("sc count")
        await handle.wait_for_original_edit()


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
    async with FakeDiscord(shard_count=2, max_concurrency=2) as fake:  # two IDENTIFYs at once
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
    async with FakeDiscord(shard_count=2, max_concurrency=2) as fake:  # two IDENTIFYs at once
        fake.add_guild("One", owner="alice", shard=(1, 2))
        with patch_discord(fake):
            client = sharded_client(None, None)
            async with run_bot(client, fake):
                assert client.shard_count == 2
                assert sorted(fake.shard_sessions()) == [0, 1]
                assert fake.requests_to("GET", "/gateway/bot")
