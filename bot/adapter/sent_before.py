"""Deliveries left from before this start, looked for in Discord before they are sent.

A post or DM the database still owes at a start was normally never sent. Two things make it otherwise: a restored backup
(the database is as it was when the copy was taken, so it owes again what went out after that), and a process that died
between sending a delivery and recording it (Discord's nonce catches the second send for a few minutes only). So before
a delivery written before this process started goes out (the host says which: ``host.outbox.left_from_before``), the
bot's own messages in its channel (a post) or in the person's DMs (a DM), sent since the delivery was written, are read
(once per channel while they cover it) and its message is looked for among them:

* a game's start or move post by its *My cards* of the same position (``sc:<game>:hand:<seq>``), the game over's by
  its *Rematch* (a position's post is unique: the moves after a backup have later positions);
* a DM with a turn's controls by controls of that same turn; a DM of the turn whose controls were taken off since
  (the turn was played in the future the restore undid) does not count, and the person gets the controls again;
* every other post or DM by its words, as they would be sent now (a hand DM that shows another hand than the
  restored game's is sent: it is news).

Found, the delivery is recorded as delivered by that message (``host.outbox.already_sent``), not sent again. Not found,
it is sent as usual, so a post that never went out is never lost; at worst (more than :data:`HISTORY` messages since, or
no Read Message History) a post is sent twice. An undo's edit of the post it takes back, and the edit of a passed turn's
DMs, are simply made again: an edit adds no message.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

import discord

from bot.adapter import ids
from bot.adapter.compose import compose_post
from bot.adapter.dm_layout import words_of
from bot.adapter.dms import DirectMessages
from bot.adapter.sending import TRANSIENT_ERRORS
from bot.adapter.words.common import MESSAGE_MAX, clip
from bot.host.deliveries import LOBBY_EDIT, LOBBY_POST, MOVE_POST, START_POST, Delivery
from bot.host.host import Host
from bot.host.outbox import SendDm, SendGameOver, SendGathered, SendNotice, SendPost, Step

log = logging.getLogger(__name__)

HISTORY: Final = 200
"""The most messages of a channel read to look for deliveries left from before (oldest first, from the oldest
delivery's writing on)."""
MARGIN: Final = 60.0
"""Seconds before a delivery was written that its message is looked for from: the host's clock and Discord's may
differ a little."""


@dataclass(frozen=True, slots=True)
class Wanted:
    """What marks a delivery's message: one of these ``custom_ids``, move controls of the game's position ``turn``
    (game id, seq), or these ``words`` (the message's content)."""

    custom_ids: frozenset[str] = frozenset()
    turn: tuple[int, int] | None = None
    words: str | None = None

    def marks(self, message: Seen) -> bool:
        if self.custom_ids & message.custom_ids or (self.words is not None and self.words == message.words):
            return True
        return self.turn is not None and any(ids.is_turn_control(c, *self.turn) for c in message.custom_ids)


@dataclass(frozen=True, slots=True)
class Seen:
    """One of the bot's own messages as it was read: its id, the ids of its buttons and menus, its words (its content,
    or a hand message's texts)."""

    message_id: int
    custom_ids: frozenset[str]
    words: str


@dataclass(frozen=True, slots=True)
class _Read:
    since: float
    """The host's time the messages were read from."""
    messages: list[Seen]
    whole: bool
    """Every message since then was read (fewer than :data:`HISTORY`)."""


class SentBefore:
    """Looks for the deliveries left from before this start among the bot's own messages (see the module docstring)."""

    def __init__(self, client: discord.Client, host: Host, dms: DirectMessages) -> None:
        self.client = client
        self.host = host
        self.dms = dms
        self._read: dict[int, _Read] = {}
        """Channel id -> the bot's messages read there. They stay true for deliveries left from before: any message
        one of those went out as was sent before this process started."""

    async def find(self, delivery: Delivery, step: Step) -> int | None:
        """The message ``delivery`` went out as before this start, if Discord shows it; ``None``: send it (a
        delivery written since the start, or one not found). A passing failure to read Discord is raised (the
        delivery is tried again later, as its sending would be)."""
        if not self.host.outbox.left_from_before(delivery):
            return None
        try:
            found = await self._find(delivery, step)
        except TRANSIENT_ERRORS:
            raise
        except discord.HTTPException as exc:  # e.g. no Read Message History: it cannot be told, so it is sent
            log.info("game %d: could not read Discord to look for %s %d (%s %s); sending it", delivery.game_id,
                     delivery.kind, delivery.id, exc.status, exc.code)
            return None
        if found is not None:
            log.info("game %d: %s %d, left from before the start, is in Discord already (message %d): recorded, not "
                     "sent again", delivery.game_id, delivery.kind, delivery.id, found)
        return found

    async def _find(self, delivery: Delivery, step: Step) -> int | None:
        if isinstance(step, SendPost):
            wanted = post_wanted(delivery)
            if wanted is not None and not wanted.custom_ids:  # its words, as they go out now
                wanted = Wanted(words=clip((await compose_post(self.host, delivery)).text, MESSAGE_MAX))
            return None if wanted is None else await self._look(delivery.channel_id, delivery.created_at, wanted)
        if delivery.user_id is None:  # a channel's edit (a lobby message redrawn): nothing new to look for
            return None
        wanted = await self._dm_wanted(delivery, step)
        if wanted is None:
            return None
        channel_id = await self.dms.dm_channel_id(delivery.user_id)
        return await self._look(channel_id, delivery.created_at, wanted, private=True)

    async def _dm_wanted(self, delivery: Delivery, step: Step) -> Wanted | None:
        """What marks a DM delivery's message (``None``: nothing to look for: a skip, an edit)."""
        user_id = delivery.user_id
        assert user_id is not None
        if isinstance(step, SendDm):
            hand = await self.dms.hand_dm(step.info, user_id, turn=step.turn, reminder=step.reminder,
                                          start=step.start)
            if hand is None:
                return None
            if hand.hand.controls:
                return Wanted(turn=(hand.info.game_id, hand.info.seq))
            return Wanted(words=clip(hand.hand.text, MESSAGE_MAX))
        if isinstance(step, SendGathered):  # with a turn of the person's still standing, it carries its controls
            if step.turn is not None:
                return Wanted(turn=(step.turn.game_id, step.turn.seq))
            return Wanted(words=self.dms.gathered_words(user_id, step))
        if isinstance(step, SendNotice):
            return Wanted(words=self.dms.notice_words(step.info, user_id, delivery.payload))
        if isinstance(step, SendGameOver):
            words = await self.dms.game_over_words(step.info, user_id)
            return None if words is None else Wanted(words=words)
        return None

    async def _look(self, channel_id: int, since: float, wanted: Wanted, *, private: bool = False) -> int | None:
        """The newest of the bot's messages in the channel since ``since`` (the host's time) that ``wanted``
        marks."""
        read = self._read.get(channel_id)
        if read is None or not (read.since == since or (read.whole and read.since < since)):
            read = self._read[channel_id] = await self._read_since(channel_id, since, private)
        return next((m.message_id for m in reversed(read.messages) if wanted.marks(m)), None)

    async def _read_since(self, channel_id: int, since: float, private: bool) -> _Read:
        kind = discord.ChannelType.private if private else None
        channel = self.client.get_partial_messageable(channel_id, type=kind)
        after = discord.Object(discord.utils.time_snowflake(datetime.fromtimestamp(since - MARGIN, tz=UTC)))
        me = self.client.user
        messages: list[Seen] = []
        read = 0
        async for message in channel.history(limit=HISTORY, after=after, oldest_first=True):
            read += 1
            if me is not None and message.author.id == me.id:
                messages.append(Seen(message.id, frozenset(custom_ids(message.components)), words_of(message)))
        return _Read(since, messages, read < HISTORY)


def custom_ids(components: Iterable[Any]) -> set[str]:
    """Every ``custom_id`` of a message's components, however deep (rows, containers, sections)."""
    found: set[str] = set()
    stack = list(components)
    while stack:
        component = stack.pop()
        custom_id = getattr(component, "custom_id", None)
        if isinstance(custom_id, str):
            found.add(custom_id)
        stack.extend(getattr(component, "children", None) or ())
        accessory = getattr(component, "accessory", None)
        if accessory is not None:
            stack.append(accessory)
    return found


def post_wanted(delivery: Delivery) -> Wanted | None:
    """What marks a post's message: the *My cards* of its position for a game's start or move, the *Rematch* of the
    game over, the lobby's *Join* for its lobby message, else its words (an empty :class:`Wanted`: the caller words
    it); ``None`` for an edit (an undo's of the post it takes back, a lobby message's redraw, or the message that
    started a game's thread made its lobby message), which adds no message."""
    if delivery.kind == LOBBY_EDIT or (delivery.kind == LOBBY_POST and "message" in delivery.payload):
        return None
    if delivery.kind == LOBBY_POST:
        return Wanted(frozenset({ids.game(delivery.game_id, "join")}))
    if delivery.kind == START_POST:
        return Wanted(frozenset({ids.game(delivery.game_id, "hand", delivery.start().info.seq)}))
    if delivery.kind == MOVE_POST:
        result = delivery.move()
        if result.undo:
            return None
        if result.game_over:
            return Wanted(frozenset({ids.game(delivery.game_id, "rematch")}))
        return Wanted(frozenset({ids.game(delivery.game_id, "hand", result.seq)}))
    return Wanted()
