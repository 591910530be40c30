"""Games whose channel is gone: a deleted channel or thread (or a thread a moderator locked), a server the bot was
removed from (told by the gateway, or found missing when the bot is ready after being offline), or a post that found
the channel gone (404 Unknown Channel / Unknown Guild).

The host ends such a channel's open game as abandoned (not rated), cancels its timers, gives up its pending posts
and DMs and owes each player whose DM still shows a turn its edit, in one transaction
(:meth:`bot.host.idle_tables.IdleTables.close_channel`); here the channel's computer task is stopped and its outbox
woken to make those edits, after which nothing keeps running for it.
"""

from __future__ import annotations

import logging

import discord

from bot.adapter.background import Background
from bot.adapter.publish import Publisher
from bot.adapter.threads import LOCKED
from bot.host.errors import HostError
from bot.host.host import Host

log = logging.getLogger(__name__)


class GoneChannels:
    """Ends the games of channels and servers the bot can no longer reach."""

    def __init__(self, host: Host, publisher: Publisher, background: Background) -> None:
        self.host = host
        self.publisher = publisher
        self.background = background

    async def channel_gone(self, channel_id: int, reason: str) -> None:
        """End the channel's open game; stop its computer task and its outbox. A database failure is logged
        (the game stays; the next post that finds the channel gone tries again). A game in a thread of its own that was
        still a lobby has its lobby message in the parent channel redrawn by the outbox (the host owes it: no Join
        button that leads nowhere); a thread a moderator locked (``reason`` :data:`bot.adapter.threads.LOCKED`) is named
        in the parent channel with why its game ended."""
        try:
            info = await self.host.idle_tables.close_channel(channel_id, reason)
        except HostError as exc:
            log.warning("channel %d is gone (%s) but its game could not be ended (%s)", channel_id, reason, exc)
            return
        self.background.stop_computers(channel_id)
        self.publisher.forget_channel(channel_id)
        if info is None:
            return
        log.info("game %d ended: channel %d is gone (%s)", info.game_id, channel_id, reason)
        if reason == LOCKED:
            await self.publisher.threads.locked(info)

    async def threads_gone(self, channel_id: int, reason: str) -> None:
        """The channel was deleted, and its threads with it (Discord tells of the channel only): the games in its
        threads end as the channel's own did."""
        try:
            games = await self.host.lobby.games_in(channel_id)
        except HostError as exc:
            log.warning("channel %d is gone (%s) but the games of its threads could not be read (%s)", channel_id,
                        reason, exc)
            return
        for info in games:
            await self.channel_gone(info.channel_id, reason)

    async def guilds_left_while_offline(self, client: discord.Client) -> None:
        """When the bot is ready: end the games of servers it is no longer in (removed while it was offline, so no
        event told it), among the servers its gateway shards serve (another process's are not its business)."""
        joined = {guild.id for guild in client.guilds}
        try:
            guilds = await self.host.idle_tables.guilds()
        except HostError as exc:
            log.warning("cannot read the servers with open games (%s); those the bot left are found at the next start",
                        exc.key)
            return
        for guild_id in guilds:
            if guild_id not in joined and _served(client, guild_id):
                await self.guild_gone(guild_id, "the bot is no longer in the server")

    async def guild_gone(self, guild_id: int, reason: str) -> None:
        """End the open games of every channel of the server (and give up what they owe)."""
        try:
            channels = await self.host.idle_tables.guild_channels(guild_id)
        except HostError as exc:
            log.warning("the bot left server %d (%s) but its games could not be read (%s)", guild_id, reason, exc)
            return
        for channel_id in channels:
            await self.channel_gone(channel_id, reason)


def _served(client: discord.Client, guild_id: int) -> bool:
    """Whether this process's gateway shards serve ``guild_id`` (always, without sharding)."""
    count = client.shard_count
    shard_ids = getattr(client, "shard_ids", None)
    if not count or shard_ids is None:
        return True
    return (guild_id >> 22) % count in shard_ids
