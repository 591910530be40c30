"""A lobby's message in its channel (its text: :func:`lobby_content`), kept up to date: redrawn with the newest state
of its game (the outbox coalesces the clicks that came meanwhile), and without its buttons once the lobby closed,
whichever process closed it (the closing post carries the lobby as it closed): the message this process posted, else
(another process posted it, or this one before a restart) the message in the parent channel that started the game's
thread (it shares the thread's id), or the bot's message among the channel's last ones that carries the lobby's Join
button."""

from __future__ import annotations

import logging
from typing import Final

import discord

from bot.adapter import ids
from bot.adapter.sending import ALLOWED_MENTIONS, own_messages_with
from bot.adapter.threads import edit_message
from bot.adapter.views import lobby_view
from bot.adapter.words.lobby import lobby_text
from bot.host.deliveries import Delivery
from bot.host.host import Host
from bot.host.table import TableInfo

log = logging.getLogger(__name__)

LOBBY_SEARCH: Final = 50
"""How many of a channel's last messages are searched for a lobby message the bot no longer remembers."""


async def lobby_content(host: Host, info: TableInfo) -> str:
    """The lobby message's text in the game's language, with how fast each of its people usually moves in the
    server (read from the database)."""
    return lobby_text(info, info.locale, await host.archive.usual_speeds(info.guild_id, info.humans))


class LobbyMessages:
    """The lobby messages this process posted, by game."""

    def __init__(self, client: discord.Client, host: Host) -> None:
        self.client = client
        self.host = host
        self.known: dict[int, tuple[int, int]] = {}
        """Game id -> (channel id, message id) of its lobby message."""

    def posted(self, info: TableInfo, message_id: int, channel_id: int | None = None) -> None:
        """Remember the lobby message of ``info``'s game, to keep it up to date (``channel_id``: where it is, when not
        in the game's channel: the message in a channel that started the game's thread)."""
        self.known[info.game_id] = (channel_id or info.channel_id, message_id)

    def forget_channel(self, channel_id: int) -> None:
        """The channel is gone: no lobby message to redraw there."""
        self.known = {g: m for g, m in self.known.items() if m[0] != channel_id}

    async def redraw(self, info: TableInfo) -> None:
        """Redraw the lobby message of ``info``'s game with the newest state the host has of it."""
        known = self.known.get(info.game_id)
        if known is None:
            return
        info = self.host.games.find_game(info.game_id) or info
        if info.status != "lobby":
            self.known.pop(info.game_id, None)
        try:
            await edit_message(self.client, known[0], known[1], content=await lobby_content(self.host, info),
                               view=lobby_view(info, info.locale), allowed_mentions=ALLOWED_MENTIONS)
        except discord.HTTPException as exc:
            log.warning("game %d: could not update the lobby message (%s)", info.game_id, exc.status)

    async def closed_by(self, post: Delivery) -> None:
        """The post that says a lobby closed went out: its message loses its buttons. The lobby as it closed comes
        with the post (another process may have closed it, and this one may not hold its game); a post stored before
        it did takes the game this process holds, if any."""
        lobby = post.payload.get("lobby")
        info = TableInfo.from_payload(lobby) if lobby is not None else self.host.games.find_game(post.game_id)
        if info is None:
            log.info("game %d: its lobby closed, but this process does not know it", post.game_id)
            return
        await self.close(info)

    async def close(self, info: TableInfo) -> None:
        """Redraw a closed lobby's message without its buttons (``info``: its game as it closed), whichever process
        posted it or closed the lobby: the message this process remembers, else the one found from the game's
        channel (:meth:`_find`)."""
        known = self.known.pop(info.game_id, None)
        try:
            if known is None:
                known = await self._find(info)
                if known is None:
                    return
            await edit_message(self.client, *known, content=await lobby_content(self.host, info), view=None,
                               allowed_mentions=ALLOWED_MENTIONS)
        except discord.HTTPException as exc:
            log.warning("game %d: could not close the lobby message (%s)", info.game_id, exc.status)

    async def _find(self, info: TableInfo) -> tuple[int, int] | None:
        """(channel id, message id) of the game's lobby message: the bot's message with its Join button among the
        game's channel's last ones, else, for a game in a thread of its own, the message that started the thread
        (in the parent channel, with the thread's id)."""
        join = ids.game(info.game_id, "join")
        try:
            async for message in own_messages_with(self.client, info.channel_id, join.__eq__, limit=LOBBY_SEARCH):
                return message.channel.id, message.id
        except discord.HTTPException:
            if info.parent_id is None:
                raise  # a thread that is gone still has its starting message in the parent channel
        return (info.parent_id, info.channel_id) if info.parent_id is not None else None
