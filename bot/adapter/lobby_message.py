"""A lobby's message (drawn by :func:`bot.adapter.compose.compose_post`), delivered by the outbox like every other
post: posted when the lobby opens (for a game in a thread of its own, the message that started the thread is edited into
it), and redrawn with its game as it is when each later change's redraw goes out (the host skips a redraw that a later
one makes again); once the game is no lobby any more, without its buttons. Which message it is, is what the database
keeps of its post (``host.outbox.lobby_message``): any process finds it, after a restart too."""

from __future__ import annotations

import discord

from bot.adapter.compose import Composed
from bot.adapter.sending import ALLOWED_MENTIONS, Posted
from bot.adapter.threads import edit_message
from bot.host.deliveries import Delivery
from bot.host.host import Host


class LobbyMessages:
    """The lobby messages, posted and redrawn by the outbox (:data:`bot.host.deliveries.LOBBY_POST`,
    :data:`bot.host.deliveries.LOBBY_EDIT`) as :func:`bot.adapter.compose.compose_post` draws them."""

    def __init__(self, client: discord.Client, host: Host) -> None:
        self.client = client
        self.host = host

    async def edit_into(self, delivery: Delivery, composed: Composed) -> Posted:
        """The message posted already for a lobby (the one that started its game's thread, in the parent channel)
        made its lobby message."""
        message = await edit_message(self.client, int(delivery.payload["channel"]), int(delivery.payload["message"]),
                                     content=composed.text, view=composed.view, allowed_mentions=ALLOWED_MENTIONS)
        return Posted(message)

    async def redraw(self, delivery: Delivery, composed: Composed) -> list[int]:
        """Redraw the lobby message of ``delivery``'s game as composed (its view: the lobby's buttons, none once the
        game is no lobby); the lobby message's delivery when its buttons are gone for good (to record it closed), else
        nothing. A lobby whose message never went out has nothing to redraw."""
        found = await self.host.outbox.lobby_message(delivery.game_id)
        if found is None:
            return []
        posted, channel_id, message_id = found
        # once the game is no lobby, the redraw only takes the buttons off: the post that says so goes first
        await edit_message(self.client, channel_id, message_id, content=composed.text, view=composed.view,
                           allowed_mentions=ALLOWED_MENTIONS, tidy=composed.view is None)
        return [] if composed.view is not None else [posted]
