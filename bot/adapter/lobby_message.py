"""A lobby's message (its text: :func:`lobby_content`), delivered by the outbox like every other post: posted when the
lobby opens (for a game in a thread of its own, the message that started the thread is edited into it), and redrawn
with its game as it is when each later change's redraw goes out (the host skips a redraw that a later one makes
again); once the game is no lobby any more, without its buttons. Which message it is, is what the database keeps of
its post (``host.outbox.lobby_message``): any process finds it, after a restart too."""

from __future__ import annotations

import discord

from bot.adapter.sending import ALLOWED_MENTIONS, Posted, deliver_post
from bot.adapter.threads import edit_message
from bot.adapter.views import lobby_view
from bot.adapter.words.lobby import lobby_text
from bot.host.deliveries import Delivery
from bot.host.host import Host
from bot.host.table import TableInfo


async def lobby_content(host: Host, info: TableInfo) -> str:
    """The lobby message's text in the game's language, with how fast each of its people usually moves in the
    server (read from the database)."""
    return lobby_text(info, info.locale, await host.archive.usual_speeds(info.guild_id, info.humans))


class LobbyMessages:
    """The lobby messages, posted and redrawn by the outbox (:data:`bot.host.deliveries.LOBBY_POST`,
    :data:`bot.host.deliveries.LOBBY_EDIT`)."""

    def __init__(self, client: discord.Client, host: Host) -> None:
        self.client = client
        self.host = host

    async def post(self, delivery: Delivery, nonce: str) -> Posted | None:
        """The lobby message of ``delivery``'s game, drawn from the game as it is now: posted in its channel, or the
        message posted already (the one that started the game's thread) edited into it; ``None`` when the game is
        gone."""
        info = await self.host.outbox.game_of(delivery)
        if info is None:
            return None
        content, view = await lobby_content(self.host, info), lobby_view(info, info.locale)
        payload = delivery.payload
        if "message" in payload:
            message = await edit_message(self.client, int(payload["channel"]), int(payload["message"]),
                                         content=content, view=view, allowed_mentions=ALLOWED_MENTIONS)
            return Posted(message)
        return await deliver_post(self.client, delivery.channel_id, content, view=view, nonce=nonce)

    async def redraw(self, delivery: Delivery) -> list[int]:
        """Redraw the lobby message of ``delivery``'s game with the game as it is now (without its buttons once it
        is no lobby); the lobby message's delivery when its buttons are gone for good (to record it closed), else
        nothing. A lobby whose message never went out has nothing to redraw."""
        found = await self.host.outbox.lobby_message(delivery.game_id)
        info = await self.host.outbox.game_of(delivery)
        if found is None or info is None:
            return []
        posted, channel_id, message_id = found
        await edit_message(self.client, channel_id, message_id, content=await lobby_content(self.host, info),
                           view=lobby_view(info, info.locale), allowed_mentions=ALLOWED_MENTIONS)
        return [] if info.status == "lobby" else [posted]
