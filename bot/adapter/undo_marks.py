"""*Undo* on a game's posts: only the latest post of a move carries it, and an undo edits the post of the move it takes
back, whichever process sent that post and when (the latest post is looked up in the database and checked on
Discord, when this process did not send it or sent it before a restart). In a thread Discord archived meanwhile the
thread is unarchived for the edit (:func:`bot.adapter.threads.edit_message`). An edited post keeps its *Open board*.

Taking *Undo* off the previous post is a cosmetic edit: which post it is, is read before the new post goes out
(:meth:`UndoMarks.previous`), and the edit is made after it (:meth:`UndoMarks.strip`), beside the outbox, so that
the new post and the DMs after it never wait for it (nor for the budget's cosmetic share)."""

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
from bot.host.deliveries import MOVE_POST, Delivery
from bot.host.host import Host
from bot.host.table import MoveResult

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Marks:
    """What a turn's post's buttons and colour were made of (:class:`bot.adapter.posts.PostOf`), kept to edit it
    again: not the move's result, whose public view is ~90 KB in memory for each game remembered."""

    game_id: int
    seq: int
    to_move: int | None
    game_over: bool
    ranking: tuple[int, ...] | None
    locale: str

    @classmethod
    def of(cls, result: MoveResult) -> Marks:
        return cls(result.game_id, result.seq, result.to_move, result.game_over, result.ranking, result.locale)


@dataclass(frozen=True, slots=True)
class LatestPost:
    """A game's latest turn post as this process sent it: to take its *Undo* off, or to edit it for an undo."""

    channel_id: int
    message_id: int
    text: str
    pictures: list[str]
    marks: Marks
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


@dataclass(frozen=True, slots=True)
class Previous:
    """A game's latest post as it stood before a newer post went out: the post whose *Undo* that one takes off."""

    game_id: int
    latest: LatestPost | None
    """The one this process sent (``None``: none it remembers)."""
    stored: tuple[int, Delivery] | None
    """The one the database names (its message and delivery) when that is another: sent by another process, or by
    this one before a restart."""


class UndoMarks:
    """The latest post of each game this process sent, and the edits that move *Undo* along."""

    def __init__(self, client: discord.Client, host: Host) -> None:
        self.client = client
        self.host = host
        self.latest: OrderedDict[int, LatestPost] = OrderedDict()
        """Game id -> its latest turn post sent by this process, for the games posted in last: as many as the games
        a process holds in memory (``GAMES_IN_MEMORY``). A game left out finds its latest post in the database and on
        Discord, as after a restart."""

    def sent(self, result: MoveResult, posted: Posted, text: str, pictures: Sequence[str], *, undo: bool,
             mentions: discord.AllowedMentions) -> None:
        """``result``'s post went out (``pictures``: the files it was meant to carry)."""
        shown = [] if posted.without_pictures else list(pictures)
        self._keep(result.game_id, LatestPost(result.channel_id, posted.message.id, text, shown, Marks.of(result),
                                              undo, mentions))

    def _keep(self, game_id: int, post: LatestPost) -> None:
        """Remember ``post`` as the game's latest, forgetting the games posted in longest ago past the bound."""
        self.latest[game_id] = post
        self.latest.move_to_end(game_id)
        while len(self.latest) > self.host.settings.games_in_memory:
            self.latest.popitem(last=False)

    async def previous(self, game_id: int) -> Previous:
        """The game's latest post as it stands before a newer one goes out: the one this process sent, and the one
        the database names when another process sent it after that (or this one before a restart)."""
        latest = self.latest.get(game_id)
        return Previous(game_id, latest, await self._last_post(game_id, latest))

    async def strip(self, previous: Previous) -> None:
        """Once the newer post went out, ``previous`` loses its *Undo* (an edit pings nobody): the post this process
        sent, and the one another process sent after it, as Discord has it. A nicety: a failure is logged."""
        game_id, latest = previous.game_id, previous.latest
        try:
            theirs = await self._on_discord(game_id, *previous.stored) if previous.stored is not None else None
            link = await board_link(self.host, game_id) if theirs is not None or (latest and latest.undo) else None
            if theirs is not None and ids.game(game_id, "undo", theirs.result.seq) in theirs.custom_ids:
                message, result = theirs.message, theirs.result
                names = [a.filename for a in message.attachments]
                await self._edit(game_id, message.channel.id, message.id, posts.move_layout(
                    result, move_post(result, result.locale), names, result.locale, undo=False, link=link), NO_PINGS)
            if latest is not None and latest.undo:
                await self._edit(game_id, latest.channel_id, latest.message_id, posts.move_layout(
                    latest.marks, latest.text, latest.pictures, latest.marks.locale, undo=False, link=link),
                    latest.mentions)
        except Exception as exc:  # taking Undo off is a nicety: it never costs anything else
            log.warning("game %d: could not take Undo off the previous post (%s: %s)", game_id, type(exc).__name__,
                        exc)

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
        self._keep(result.game_id, LatestPost(result.channel_id, message_id, text, names, Marks.of(result), False,
                                              NO_PINGS))
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
        stored = await self._last_post(game_id, latest)
        return await self._on_discord(game_id, *stored) if stored is not None else None

    async def _last_post(self, game_id: int, latest: LatestPost | None) -> tuple[int, Delivery] | None:
        """The game's latest move post as the database has it (its message and delivery), when it is not ``latest``;
        ``None`` when it is, or is a start's, or cannot be read."""
        try:
            found = await self.host.outbox.last_post(game_id)
        except Exception as exc:  # taking Undo off is a nicety: it never costs the post it comes with
            log.warning("game %d: the latest post could not be looked up (%s: %s)", game_id, type(exc).__name__, exc)
            return None
        if found is None or found[1].kind != MOVE_POST or (latest is not None and latest.message_id == found[0]):
            return None
        return found

    async def _on_discord(self, game_id: int, message_id: int, delivery: Delivery) -> FoundPost | None:
        """The post ``message_id`` of ``delivery`` as Discord has it; ``None`` when it cannot be read or is not that
        move's post."""
        try:
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
