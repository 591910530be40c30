"""Games in threads of their own: what Discord's threads ask of the bot.

``/santacruz new`` in a text channel opens its game in a public thread started from the lobby message it posts in
the channel (the thread shares the message's id, Discord's way), named after the game, with the longest
auto-archive duration. The bot needs two permissions for that (:data:`NEEDED`); without one it says so in words in
the channel, once per channel and permission, and the game is played in the channel itself. Discord archives a
thread after a week without a post: a post unarchives it by itself, but an edit in an archived thread is refused
(50083), so :func:`edit_message` unarchives it first. A thread a moderator locked can take no post: its game ends
(:mod:`bot.adapter.gone_channels`) and the channel is told why.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Final

import discord

from bot.adapter.sending import NO_PINGS, Attachments, files
from bot.adapter.words.common import channel_link, clip
from bot.host.priority import cosmetic
from bot.host.table import TableInfo
from i18n import t

log = logging.getLogger(__name__)

NAME_MAX: Final = 100
"""Discord's limit for a thread's name."""
ARCHIVE_MINUTES: Final = 10080
"""The longest auto-archive duration Discord offers (a week): a game played over days keeps its thread in sight."""
THREAD_ARCHIVED: Final = 50083
"""Discord's code of a 400 for an action (an edit) in an archived thread."""
THREAD_LOCKED: Final = 160005
"""Discord's code of a 400 for a message in a thread a moderator locked."""
LOCKED: Final = "thread locked"
"""The reason a game ends when its thread was locked (as ``channel deleted`` for a deleted one)."""
SEND_MESSAGES_IN_THREADS: Final = "send_messages_in_threads"
NEEDED: Final = ("create_public_threads", SEND_MESSAGES_IN_THREADS)
"""The permissions a game's thread needs: making it, and posting in it (Send Messages has no effect in threads)."""


def thread_name(info: TableInfo) -> str:
    """The name of a game's thread, in the game's language: its number and opener, within Discord's limit."""
    return clip(t("bot.thread.name", info.locale, number=info.game_id, opener=info.opener_name), NAME_MAX)


def missing(permissions: discord.Permissions) -> list[str]:
    """Which of the permissions a game's thread needs the bot lacks (``interaction.app_permissions``: the bot's in
    the channel, its overwrites counted)."""
    return [name for name in NEEDED if not getattr(permissions, name)]


def missing_text(permissions: list[str], locale: str) -> str:
    """What the channel is told when the bot may not give its games threads: which permissions it lacks."""
    names = ", ".join(f"**{t(f'bot.permission.{p}', locale)}**" for p in permissions)
    return t("bot.thread.missing", locale, permissions=names)


def can_hold_threads(channel: object) -> bool:
    """Whether a game opened in ``channel`` gets a public thread of its own: a server's text channel (not a thread,
    not a voice channel's chat, not an announcement channel, whose threads are announcement threads)."""
    return isinstance(channel, discord.TextChannel) and channel.type is discord.ChannelType.text


class ThreadNotices:
    """What the bot says in a channel about its games' threads: a permission it lacks (once per channel and
    permission while it runs), a locked thread whose game ended."""

    def __init__(self, client: discord.Client) -> None:
        self.client = client
        self._told: set[tuple[int, str]] = set()
        """(channel id, permission) the channel was told the bot lacks."""

    def untold(self, channel_id: int, permissions: list[str]) -> list[str]:
        """Those of ``permissions`` the channel was not told of yet (from now on it counts as told)."""
        new = [p for p in permissions if (channel_id, p) not in self._told]
        self._told.update((channel_id, p) for p in new)
        return new

    async def missing_in_thread(self, info: TableInfo, permission: str) -> None:
        """A post in the game's thread was refused for want of ``permission``: the parent channel is told, once."""
        if info.parent_id is None or not self.untold(info.parent_id, [permission]):
            return
        text = t("bot.thread.cannot_post", info.locale, thread=channel_link(info.channel_id), number=info.game_id,
                 permission=f"**{t(f'bot.permission.{permission}', info.locale)}**")
        await self._say(info.parent_id, text)

    async def locked(self, info: TableInfo) -> None:
        """The game's thread was locked and its game ended: the parent channel is told why."""
        if info.parent_id is not None:
            await self._say(info.parent_id, t("bot.thread.locked", info.locale, thread=channel_link(info.channel_id),
                                              number=info.game_id))

    async def _say(self, channel_id: int, text: str) -> None:
        try:
            await self.client.get_partial_messageable(channel_id).send(text, allowed_mentions=NO_PINGS)
        except discord.HTTPException as exc:
            log.warning("channel %d: could not say what its games' threads need (%s)", channel_id, exc.status)


async def add_players(client: discord.Client, info: TableInfo) -> None:
    """At the start of a game in a thread of its own: its players become the thread's members, so that it shows in
    their channel list and they hear of its posts (a mention adds only the one mentioned). A refusal costs nothing but
    that (the game goes on, their DMs too)."""
    if info.parent_id is None:
        return
    for user_id in info.humans:
        try:
            await client.http.add_user_to_thread(info.channel_id, user_id)
        except discord.HTTPException as exc:
            log.info("game %d: could not add a player to its thread (%s %s)", info.game_id, exc.status, exc.code)


async def edit_message(client: discord.Client, channel_id: int, message_id: int, *,
                       pictures: Attachments | None = None, tidy: bool = False, **fields: Any) -> discord.Message:
    """Edit a message of the bot's; in a thread that Discord archived meanwhile (an edit there is refused: 50083),
    the thread is unarchived first, as Discord's threads topic says (the bot started the thread, so it may), and the
    edit made again. A thread it cannot unarchive (locked by a moderator) raises the refusal.

    ``fields`` are :meth:`discord.PartialMessage.edit`'s but files: ``pictures`` (``(png, filename)`` pairs; not
    given: the attachments stay as they are) become the message's attachments, made into files again for each
    attempt (discord.py reads a file to its end when it sends it: sent again, it would arrive empty). ``tidy``: the
    edit only tidies (buttons taken off, *Undo* marks): posts and DMs go before it when Discord's budget is tight
    (:func:`bot.adapter.rate_limits.cosmetic`)."""
    if {"attachments", "file", "files"} & fields.keys():
        raise TypeError("edit_message takes pictures, never files: a file sent twice arrives empty")
    message = client.get_partial_messageable(channel_id).get_partial_message(message_id)

    async def edit() -> discord.Message:
        attached: dict[str, Any] = {} if pictures is None else {"attachments": files(*pictures)}
        return await message.edit(**fields, **attached)

    with cosmetic() if tidy else contextlib.nullcontext():
        try:
            return await edit()
        except discord.HTTPException as exc:
            if exc.code != THREAD_ARCHIVED:
                raise
        log.info("channel %d: unarchiving the thread to edit message %d", channel_id, message_id)
        await client.http.edit_channel(channel_id, archived=False, reason="a game's post is brought up to date")
        return await edit()
