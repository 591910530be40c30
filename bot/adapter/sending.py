"""The plain ways the bot speaks: a post in a game's channel and an ephemeral reply.

All clip the text to Discord's limit and only ever ping users; pictures travel as ``(png, filename)``
pairs, where a ``None`` png (a picture that could not be rendered) is left out and the words go alone.
:func:`post` logs a failure and goes on; :func:`deliver_post`, used by the outbox dispatcher, raises a
passing failure (:data:`TRANSIENT_ERRORS`) for a retry, posts the words without the pictures when the bot
may not attach files, and raises :class:`MissingPermission` when it may not post at all.
DMs, which need the user's DM channel and a notice when they cannot be delivered, are in ``bot.adapter.dms``.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import aiohttp
import discord

from bot.adapter.words.common import MESSAGE_MAX, clip

log = logging.getLogger(__name__)

ALLOWED_MENTIONS: Final = discord.AllowedMentions(users=True, roles=False, everyone=False, replied_user=False)
"""Only ever ping users (the player to move, a player whose DMs are closed)."""
NO_PINGS: Final = discord.AllowedMentions.none()
"""Name users without pinging them (the player to move is in their quiet hours)."""

Attachments = Sequence[tuple[bytes | None, str]]
"""Attachments as ``(png, filename)``; a ``None`` png is left out."""

TRANSIENT_ERRORS: Final = (discord.DiscordServerError, TimeoutError, aiohttp.ClientError, OSError)
"""Failures that pass: Discord's 5xx answers, timeouts and connection errors (discord.py waits out 429s)."""
ATTACH_FILES: Final = "attach_files"
SEND_MESSAGES: Final = "send_messages"


class MissingPermission(Exception):
    """The bot lacks a channel permission (``permission``: :data:`ATTACH_FILES` or :data:`SEND_MESSAGES`)."""

    def __init__(self, permission: str) -> None:
        super().__init__(permission)
        self.permission = permission


def files(*pictures: tuple[bytes | None, str]) -> list[discord.File]:
    """The pictures as attachments, without those that could not be rendered: made for one attempt (discord.py
    reads a file to its end when it sends it, so a file sent again would arrive empty; every retry makes its own)."""
    return [discord.File(io.BytesIO(png), filename=name) for png, name in pictures if png is not None]


def message_options(pictures: Attachments, view: discord.ui.View | discord.ui.LayoutView | None,
                    mentions: discord.AllowedMentions = ALLOWED_MENTIONS, nonce: str | None = None) -> dict[str, Any]:
    """The keyword arguments of a post or a DM: user pings only (``mentions``), the pictures, and the view and the
    nonce if any."""
    kwargs: dict[str, Any] = {"allowed_mentions": mentions, "files": files(*pictures)}
    if view is not None:
        kwargs["view"] = view
    if nonce is not None:
        kwargs["nonce"] = nonce
    return kwargs


async def post(client: discord.Client, channel_id: int, content: str, *, pictures: Attachments = (),
               view: discord.ui.View | None = None) -> discord.Message | None:
    """A message in a game's channel; a failure is logged, never raised (the game goes on)."""
    channel = client.get_partial_messageable(channel_id)
    try:
        return await channel.send(clip(content, MESSAGE_MAX), **message_options(pictures, view))
    except discord.HTTPException as exc:
        log.warning("channel %d: could not post (%s %s)", channel_id, exc.status, exc.text)
        return None


@dataclass(frozen=True, slots=True)
class Posted:
    """A post the outbox sent: the message, and whether its pictures were left out (the bot may not attach files
    in the channel)."""

    message: discord.Message
    without_pictures: bool = False


async def deliver_post(client: discord.Client, channel_id: int, content: str, *, pictures: Attachments = (),
                       view: discord.ui.View | None = None, mentions: discord.AllowedMentions = ALLOWED_MENTIONS,
                       nonce: str | None = None) -> Posted:
    """A message in a game's channel for the outbox, without its pictures when the bot may not attach files there.

    Raises :data:`TRANSIENT_ERRORS` (try again later), :class:`MissingPermission` (:data:`SEND_MESSAGES`)
    when the bot may not post there, and any other :class:`discord.HTTPException` (give up). ``mentions``: whom it
    may ping (someone in their quiet hours is named, not pinged). ``nonce`` (at most 25 characters) makes sending
    again harmless: Discord answers a message with a nonce it saw in the last few minutes with that message instead
    of a new one.
    """
    channel = client.get_partial_messageable(channel_id)
    text = clip(content, MESSAGE_MAX)
    try:
        return Posted(await channel.send(text, **message_options(pictures, view, mentions, nonce)))
    except discord.Forbidden:
        if not files(*pictures):
            raise MissingPermission(SEND_MESSAGES) from None
    try:  # Forbidden with pictures: perhaps only Attach Files is missing
        return Posted(await channel.send(text, **message_options((), view, mentions, nonce)), without_pictures=True)
    except discord.Forbidden:
        raise MissingPermission(SEND_MESSAGES) from None


async def reply(interaction: discord.Interaction, content: str, **kwargs: Any) -> None:
    """An ephemeral answer, whether or not the interaction was acknowledged already."""
    kwargs.setdefault("allowed_mentions", ALLOWED_MENTIONS)
    if interaction.response.is_done():
        await interaction.followup.send(clip(content, MESSAGE_MAX), ephemeral=True, **kwargs)
    else:
        await interaction.response.send_message(clip(content, MESSAGE_MAX), ephemeral=True, **kwargs)


async def reply_layout(interaction: discord.Interaction, layout: discord.ui.LayoutView, *,
                       files: Sequence[discord.File] = ()) -> None:
    """An ephemeral answer that is a Components V2 layout (its words in its text displays), whether or not the
    interaction was acknowledged already."""
    kwargs: dict[str, Any] = {"view": layout, "allowed_mentions": ALLOWED_MENTIONS, "ephemeral": True}
    if files:
        kwargs["files"] = list(files)
    if interaction.response.is_done():
        await interaction.followup.send(**kwargs)
    else:
        await interaction.response.send_message(**kwargs)
