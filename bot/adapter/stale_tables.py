"""Games whose channel is gone: a deleted channel or thread, a server the bot was removed from, or a post that
found the channel gone (404 Unknown Channel / Unknown Guild).

The host ends such a channel's open game as abandoned (not rated), cancels its timers and gives up its pending
posts and DMs in one transaction (:meth:`bot.host.stale_tables.StaleTables.close_channel`); here the channel's
computer task is stopped and its outbox told that nothing is left to deliver, so nothing keeps running for it.
"""

from __future__ import annotations

import logging

from bot.adapter.background import Background
from bot.adapter.publish import Publisher
from bot.host.host import Host, HostError

log = logging.getLogger(__name__)


class GoneChannels:
    """Ends the games of channels and servers the bot can no longer reach."""

    def __init__(self, host: Host, publisher: Publisher, background: Background) -> None:
        self.host = host
        self.publisher = publisher
        self.background = background

    async def channel_gone(self, channel_id: int, reason: str) -> None:
        """End the channel's open game; stop its computer task and its outbox. A database failure is logged
        (the game stays; the next post that finds the channel gone tries again)."""
        try:
            info = await self.host.stale.close_channel(channel_id, reason)
        except HostError as exc:
            log.warning("channel %d is gone (%s) but its game could not be ended (%s)", channel_id, reason, exc)
            return
        self.background.stop_computers(channel_id)
        self.publisher.forget_channel(channel_id)
        if info is not None:
            log.info("game %d ended: channel %d is gone (%s)", info.game_id, channel_id, reason)

    async def guild_gone(self, guild_id: int, reason: str) -> None:
        """End the open games of every channel of the server the host knows (and give up what they owe)."""
        channels = [channel_id for channel_id, table in self.host.tables.items() if table.guild_id == guild_id]
        for channel_id in channels:
            await self.channel_gone(channel_id, reason)
