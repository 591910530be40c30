"""Threads in the fake with the real discord.py, as Discord's threads topic describes them."""

from __future__ import annotations

import discord
import pytest

from tests.fakediscord import FakeDiscord, run_bot
from tests.fakediscord.sample_bot import make_bot


async def test_threads_archive_when_idle_unarchive_on_a_post_and_refuse_edits_while_archived(
        fake_discord: FakeDiscord) -> None:
    """As Discord's threads topic says: a thread archives after its ``auto_archive_duration`` minutes without
    activity; sending a message to it unarchives it (THREAD_UPDATE first) unless a moderator locked it (160005);
    editing a message in an archived thread answers 50083, and no command can be used there; creating one needs
    Create Public Threads, posting in one Send Messages in Threads, both inherited from its channel (and missing from
    an interaction's ``app_permissions``); the bot may unarchive a locked thread it started."""
    fake = fake_discord
    async with run_bot(make_bot(fake), fake) as runner:
        bot = runner.bot
        channel = bot.get_channel(fake.channel("games").id)
        assert isinstance(channel, discord.TextChannel)
        lobby = await channel.send("a game opens")
        thread = await lobby.create_thread(name="Game 1 · alice", auto_archive_duration=10080)
        assert (thread.id, thread.parent_id, thread.auto_archive_duration) == (lobby.id, channel.id, 10080)
        with pytest.raises(discord.HTTPException) as bad:
            await bot.http.start_thread_without_message(channel.id, name="x", auto_archive_duration=30, type=11)
        assert (bad.value.status, bad.value.code) == (400, 50035)
        [refused] = fake.take_refused_bodies()  # sent on purpose: Discord's description refuses it as the fake does
        assert "auto_archive_duration" in refused
        post = await thread.send("move 1")
        fake_thread = fake.channel(thread.id)
        start = fake_thread.active_at
        assert await fake.archive_inactive_threads(start + 10080 * 60 - 1) == []
        assert await fake.archive_inactive_threads(start + 10080 * 60) == [fake_thread]
        assert channel.guild.get_thread(thread.id) is not None
        # discord.py keeps active threads only: THREAD_UPDATE archived drops it from the cache
        await fake.wait_until(lambda: channel.guild.get_thread(thread.id) is None, description="THREAD_UPDATE archived",
                              poll=0.01)
        with pytest.raises(discord.HTTPException) as archived:
            await post.edit(content="move 1, struck")
        assert (archived.value.status, archived.value.code) == (400, 50083)
        with pytest.raises(ValueError, match="archived thread"):  # nobody can use a command there
            fake.build_slash_command("sc count", user="alice", channel=fake_thread)
        events = len(fake.dispatched_events())
        await thread.send("move 2")  # a post unarchives it
        assert not fake_thread.archived
        assert [e["t"] for e in fake.dispatched_events()[events:]][:2] == ["THREAD_UPDATE", "MESSAGE_CREATE"]
        active = await fake.wait_until(lambda: channel.guild.get_thread(thread.id), description="THREAD_UPDATE active",
                                       poll=0.01)
        assert not active.archived and active.auto_archive_duration == 10080
        await post.edit(content="move 1, struck")
        await fake.archive_thread(fake_thread, locked=True)  # a moderator's lock: posting does not unarchive it
        with pytest.raises(discord.HTTPException) as locked:
            await thread.send("move 3")
        assert (locked.value.code, locked.value.text) == (160005, "Thread is locked")
        fake.deny_permission("games", "create_public_threads")
        fake.deny_permission("games", "send_messages_in_threads")
        with pytest.raises(discord.Forbidden) as denied:
            await (await channel.send("another game")).create_thread(name="Game 2 · alice")
        assert denied.value.code == 50013
        # a thread has its channel's permissions, and an interaction's app_permissions lack what is denied there
        await thread.edit(archived=False)  # the bot started it: it may unarchive it though it is locked
        with pytest.raises(discord.Forbidden):
            await thread.send("move 3")  # Send Messages in Threads is denied in its channel
        allowed = fake.build_slash_command("sc count", user="alice", channel="games").payload
        permissions = discord.Permissions(int(allowed["app_permissions"]))
        assert not permissions.create_public_threads and not permissions.send_messages_in_threads
        assert permissions.send_messages
        await fake.delete_channel(fake_thread)
        await fake.wait_until(lambda: channel.guild.get_thread(thread.id) is None, description="THREAD_DELETE",
                              poll=0.01)
