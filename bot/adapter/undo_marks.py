"""*Undo* on a game's posts: only the latest post of a move carries it, and an undo edits the post of the move it takes
back, whichever process sent that post and when (the latest post is looked up in the database and checked on
Discord, when this process did not send it or sent it before a restart). In a thread Discord archived meanwhile the
thread is unarchived for the edit (:func:`bot.adapter.threads.edit_message`). An edited post keeps its *Open board*."""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import discord

from bot.adapter import ids, posts
from bot.adapter.links import board_link
from bot.adapter.sending import NO_PINGS, Attachments, Posted
from bot.adapter.threads import edit_message
from bot.adapter.words.posts import move_post
from bot.host.deliveries import MOVE_POST
from bot.host.host import Host
from bot.host.table import MoveResult

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class LatestPost:
    """A game's latest turn post as this process sent it: to take its *Undo* off, or to edit it for an undo."""

    channel_id: int
    message_id: int
    text: str
    pictures: list[str]
    result: MoveResult
    undo: bool
    """It carries *Undo*."""
    mentions: discord.AllowedMentions
    """Whom it was sent to ping (kept by an edit that only takes *Undo* off: an edit pings nobody anyway)."""


@dataclass(frozen=True, slots=True)
class FoundPost:
    """A game's latest post that this process did not send (or sent before a restart), as Discord has it."""

    message: discord.Message
    result: MoveResult
    """The move it is the post of (its delivery's payload)."""
    custom_ids: frozenset[str]


class UndoMarks:
    """The latest post of each game this process sent, and the edits that move *Undo* along."""

    def __init__(self, client: discord.Client, host: Host) -> None:
        self.client = client
        self.host = host
        self.latest: OrderedDict[int, LatestPost] = OrderedDict()
        """Game id -> its latest turn post sent by this process, for the games posted in last: as many as the games
        a process holds in memory (``GAMES_IN_MEMORY``; each keeps its move's result, the public view with it). A game
        left out finds its latest post in the database and on Discord, as after a restart."""

    def sent(self, result: MoveResult, posted: Posted, text: str, pictures: Sequence[str], *, undo: bool,
             mentions: discord.AllowedMentions) -> None:
        """``result``'s post went out (``pictures``: the files it was meant to carry)."""
        shown = [] if posted.without_pictures else list(pictures)
        self._keep(result.game_id, LatestPost(result.channel_id, posted.message.id, text, shown, result, undo,
                                              mentions))

    def _keep(self, game_id: int, post: LatestPost) -> None:
        """Remember ``post`` as the game's latest, forgetting the games posted in longest ago past the bound."""
        self.latest[game_id] = post
        self.latest.move_to_end(game_id)
        while len(self.latest) > self.host.settings.games_in_memory:
            self.latest.popitem(last=False)

    async def strip_previous(self, game_id: int) -> None:
        """The game's previous post loses its *Undo* once a newer post comes (an edit pings nobody): the one this
        process sent, and the one another process sent after it (or this one before a restart)."""
        latest = self.latest.pop(game_id, None)
        theirs = await self._found(game_id, latest)
        link = await board_link(self.host, game_id) if theirs is not None or (latest and latest.undo) else None
        if theirs is not None and ids.game(game_id, "undo", theirs.result.seq) in theirs.custom_ids:
            message, result = theirs.message, theirs.result
            names = [a.filename for a in message.attachments]
            await self._edit(game_id, message.channel.id, message.id, posts.move_layout(
                result, move_post(result, result.locale), names, result.locale, undo=False, link=link), NO_PINGS)
        if latest is not None and latest.undo:
            await self._edit(game_id, latest.channel_id, latest.message_id, posts.move_layout(
                latest.result, latest.text, latest.pictures, latest.result.locale, undo=False, link=link),
                latest.mentions)

    async def edit_taken_back(self, result: MoveResult, text: str, pictures: Attachments) -> bool:
        """An undo: the post of the move taken back is edited (that move struck through, ``pictures``: the overview
        and the board as they are now, no new ping), whichever process sent it and when; whether it was (``False``:
        gone or not found)."""
        latest = self.latest.pop(result.game_id, None)
        message_id, had_pictures = (latest.message_id, bool(latest.pictures)) if latest is not None else (None, False)
        theirs = await self._found(result.game_id, latest)  # sent by another process, or before a restart
        if theirs is not None:  # a later post than this process knows: the move's if it is of the seq taken back
            message_id, had_pictures = ((theirs.message.id, bool(theirs.message.attachments))
                                        if theirs.result.seq == result.seq - 1 else (None, False))
        if message_id is None:
            return False
        sent = [(png, name) for png, name in pictures if png is not None] if had_pictures else []
        names = [name for _png, name in sent]
        link = await board_link(self.host, result.game_id)
        layout = posts.move_layout(result, text, names, result.locale, undo=False, link=link)
        try:
            await edit_message(self.client, result.channel_id, message_id, view=layout, pictures=sent,
                               allowed_mentions=NO_PINGS)
        except (discord.NotFound, discord.Forbidden):  # gone, or in a thread it may not unarchive (locked)
            log.info("game %d: the post of the move taken back is gone or cannot be edited; posting the undo",
                     result.game_id)
            return False
        self._keep(result.game_id, LatestPost(result.channel_id, message_id, text, names, result, False, NO_PINGS))
        return True

    async def _edit(self, game_id: int, channel_id: int, message_id: int, layout: discord.ui.LayoutView,
                    mentions: discord.AllowedMentions) -> None:
        try:
            await edit_message(self.client, channel_id, message_id, view=layout, allowed_mentions=mentions, tidy=True)
        except discord.HTTPException as exc:
            log.info("game %d: could not take Undo off the previous post (%s)", game_id, exc.status)

    async def _found(self, game_id: int, latest: LatestPost | None) -> FoundPost | None:
        """The game's latest post when this process does not know it as ``latest`` (another process sharing the
        database sent it, or this one before a restart), as Discord has it; ``None`` when it is ``latest``, a start,
        or cannot be read (then nothing is edited that might be another post)."""
        try:
            found = await self.host.outbox.last_post(game_id)
            if found is None or found[1].kind != MOVE_POST or (latest is not None and latest.message_id == found[0]):
                return None
            message_id, delivery = found
            result = delivery.move()  # a payload it cannot read fails here, not in the middle of an edit
            message = await self.client.get_partial_messageable(delivery.channel_id).fetch_message(message_id)
            custom_ids = {i for item in discord.ui.LayoutView.from_message(message, timeout=None).walk_children()
                          if isinstance(i := getattr(item, "custom_id", None), str)}
        except discord.HTTPException as exc:
            log.info("game %d: the latest post could not be read from Discord (%s)", game_id, exc.status)
            return None
        except Exception as exc:  # taking Undo off is a nicety: it never costs the post it comes with
            log.warning("game %d: the latest post could not be looked up (%s: %s)", game_id, type(exc).__name__, exc)
            return None
        if ids.game(game_id, "hand", result.seq) not in custom_ids:
            return None  # not that move's post (it was given up, and an older one is the latest that went out)
        return FoundPost(message, result, frozenset(custom_ids))
