"""The two plain ways the bot speaks: a post in a game's channel and an ephemeral reply.

Both clip the text to Discord's limit and only ever ping users; pictures travel as ``(png, filename)``
pairs, where a ``None`` png (a picture that could not be rendered) is left out and the words go alone.
DMs, which need the user's DM channel and a notice when they cannot be delivered, are in ``bot.adapter.dms``.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Sequence
from typing import Any, Final

import discord

from bot.adapter import texts

log = logging.getLogger(__name__)

ALLOWED_MENTIONS: Final = discord.AllowedMentions(users=True, roles=False, everyone=False, replied_user=False)
"""Only ever ping users (the player to move, a player whose DMs are closed)."""

Attachments = Sequence[tuple[bytes | None, str]]
"""Attachments as ``(png, filename)``; a ``None`` png is left out."""


def files(*pictures: tuple[bytes | None, str]) -> list[discord.File]:
    """The pictures as attachments, without those that could not be rendered."""
    return [discord.File(io.BytesIO(png), filename=name) for png, name in pictures if png is not None]


def message_options(pictures: Attachments, view: discord.ui.View | None) -> dict[str, Any]:
    """The keyword arguments of a post or a DM: user pings only, the pictures, and the view if any."""
    kwargs: dict[str, Any] = {"allowed_mentions": ALLOWED_MENTIONS, "files": files(*pictures)}
    if view is not None:
        kwargs["view"] = view
    return kwargs


async def post(client: discord.Client, channel_id: int, content: str, *, pictures: Attachments = (),
               view: discord.ui.View | None = None) -> discord.Message | None:
    """A message in a game's channel; a failure is logged, never raised (the game goes on)."""
    channel = client.get_partial_messageable(channel_id)
    try:
        return await channel.send(texts.clip(content, texts.MESSAGE_MAX), **message_options(pictures, view))
    except discord.HTTPException as exc:
        log.warning("channel %d: could not post (%s %s)", channel_id, exc.status, exc.text)
        return None


async def reply(interaction: discord.Interaction, content: str, **kwargs: Any) -> None:
    """An ephemeral answer, whether or not the interaction was acknowledged already."""
    kwargs.setdefault("allowed_mentions", ALLOWED_MENTIONS)
    if interaction.response.is_done():
        await interaction.followup.send(texts.clip(content, texts.MESSAGE_MAX), ephemeral=True, **kwargs)
    else:
        await interaction.response.send_message(texts.clip(content, texts.MESSAGE_MAX), ephemeral=True, **kwargs)
