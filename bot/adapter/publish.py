"""What a game's channel is told after the host answered, sent in order, one channel queue each.

The channel speaks the game's language: ONE message per move (events in words, the public board
picture, a mention of the player to move), the start, seat changes, an abandoned game, the lobby
message kept up to date, and after a restart the position whose post was lost. A move's DMs (the new
hands, the next player's controls) follow its post in the same job.

Everything is queued in the channel's :class:`Outbox` and sent by its task, so the messages of one
channel keep the order of the moves while other channels carry on, and no acknowledgement waits for
a picture or a DM. The ``queue_*`` methods are synchronous on purpose: called right after the host
answers, they fix the order before anything else can run.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable

import discord

from bot.adapter import texts
from bot.adapter.dms import DirectMessages
from bot.adapter.sending import ALLOWED_MENTIONS, post
from bot.adapter.views import lobby_view, post_view
from bot.host.host import Host
from bot.host.pictures import Pictures
from bot.host.table import MoveResult, SeatChange, StartResult, TableInfo
from i18n import t

log = logging.getLogger(__name__)

Job = Callable[[], Awaitable[None]]


class Outbox:
    """The messages of one channel, sent one job at a time in the order they were queued."""

    def __init__(self, channel_id: int) -> None:
        self.channel_id = channel_id
        self._jobs: deque[Job] = deque()
        self.task: asyncio.Task[None] | None = None

    def put(self, job: Job) -> None:
        self._jobs.append(job)
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._run(), name=f"santacruz-outbox-{self.channel_id}")

    async def _run(self) -> None:
        while self._jobs:
            job = self._jobs.popleft()
            try:
                await job()
            except Exception:
                log.exception("channel %d: sending after a move failed", self.channel_id)


class Publisher:
    """The channels' outboxes, the lobby messages, and the posts (with their DMs) that follow the host's answers."""

    def __init__(self, client: discord.Client, host: Host, pictures: Pictures, dms: DirectMessages) -> None:
        self.client = client
        self.host = host
        self.pictures = pictures
        self.dms = dms
        self.outboxes: dict[int, Outbox] = {}
        self._lobby_messages: dict[int, tuple[int, int]] = {}
        """Game id -> (channel id, message id) of its lobby message, to keep it up to date."""

    # ------------------------------------------------------------------ queueing

    def queue(self, channel_id: int, job: Job) -> None:
        """Send ``job`` after everything queued for ``channel_id`` before it."""
        box = self.outboxes.get(channel_id)
        if box is None:
            box = self.outboxes[channel_id] = Outbox(channel_id)
        box.put(job)

    def pending(self) -> list[asyncio.Task[None]]:
        """The outbox tasks still sending."""
        return [box.task for box in self.outboxes.values() if box.task is not None and not box.task.done()]

    def queue_move(self, result: MoveResult, *, clicked: int | None = None) -> None:
        """The post and DMs of a stored move (``clicked``: the DM whose controls were used, left as it is)."""
        self.queue(result.channel_id, lambda: self._publish_move(result, clicked=clicked))

    def queue_start(self, start: StartResult) -> None:
        info = start.info
        self.queue(info.channel_id, lambda: self._publish_start(start))
        if info.game_id in self._lobby_messages:
            self.queue_lobby(info)

    def queue_seat_change(self, change: SeatChange) -> None:
        self.queue(change.info.channel_id, lambda: self._publish_seat_change(change))

    def queue_abandoned(self, info: TableInfo, by: str) -> None:
        text = t("bot.post.abandoned", info.locale, name=texts.esc(by))

        async def abandoned() -> None:
            await post(self.client, info.channel_id, text)

        self.queue(info.channel_id, abandoned)
        if info.game_id in self._lobby_messages:
            self.queue_lobby(info)

    def lobby_posted(self, info: TableInfo, message_id: int) -> None:
        """Remember the lobby message of ``info``'s game, to keep it up to date."""
        self._lobby_messages[info.game_id] = (info.channel_id, message_id)

    def queue_lobby(self, info: TableInfo) -> None:
        """Bring the game's lobby message up to date (if the bot knows it by then)."""
        self.queue(info.channel_id, lambda: self._update_lobby(info))

    # ------------------------------------------------------------------ sending

    async def _publish_move(self, result: MoveResult, *, clicked: int | None = None) -> None:
        locale = result.locale
        board = await self.pictures.png(result.view, locale, key=(result.game_id, result.seq, None))
        pictures: list[tuple[bytes | None, str]] = [(board, "board.png")]
        if result.game_over:
            pictures.append((await self.pictures.png(result.view, locale, game_over=True), "game-over.png"))
        await post(self.client, result.channel_id, texts.move_post(result, locale), pictures=pictures,
                   view=post_view(result.game_id, result.seq, locale, game_over=result.game_over))
        if result.user_id is not None:
            await self.dms.strip_turn_dm(result.game_id, result.user_id, keep=clicked)
        if result.game_over:
            return
        info = self.host.info(result.channel_id)
        if info is None or info.game_id != result.game_id:
            return
        for user_id in result.dm_user_ids:
            if user_id != result.to_move_user_id:
                await self.dms.send_hand(info, user_id, turn=False)
        if result.to_move_user_id is not None and info.seq == result.seq:
            await self.dms.send_hand(info, result.to_move_user_id, turn=True)
        elif result.to_move_user_id is not None and result.to_move_user_id in result.dm_user_ids:
            await self.dms.send_hand(info, result.to_move_user_id, turn=False)

    async def _publish_start(self, start: StartResult) -> None:
        info = start.info
        board = await self.pictures.png(start.view, info.locale, key=(info.game_id, info.seq, None))
        await post(self.client, info.channel_id, texts.start_post(start, info.locale),
                   pictures=[(board, "board.png")], view=post_view(info.game_id, info.seq, info.locale))
        for user_id in start.dm_user_ids:
            await self.dms.send_hand(info, user_id, turn=user_id == start.to_move_user_id, start=True)

    async def _publish_seat_change(self, change: SeatChange) -> None:
        info = change.info
        await post(self.client, info.channel_id, texts.seat_change_post(change, info.locale))
        if change.away:
            await self.dms.strip_turn_dm(info.game_id, change.user_id)
        elif info.to_move == change.seat:
            await self.dms.send_hand(info, change.user_id, turn=True)

    async def _update_lobby(self, info: TableInfo) -> None:
        known = self._lobby_messages.get(info.game_id)
        if known is None:
            return
        if info.status != "lobby":
            self._lobby_messages.pop(info.game_id, None)
        channel = self.client.get_partial_messageable(known[0])
        try:
            await channel.get_partial_message(known[1]).edit(
                content=texts.lobby_text(info, info.locale), view=lobby_view(info, info.locale),
                allowed_mentions=ALLOWED_MENTIONS)
        except discord.HTTPException as exc:
            log.warning("game %d: could not update the lobby message (%s)", info.game_id, exc.status)

    async def publish_recovered(self, info: TableInfo) -> None:
        """Post the current position of ``info``'s game (its post was lost) and DM the player to move."""
        view = self.host.public_view(info.channel_id)
        board = await self.pictures.png(view, info.locale, key=(info.game_id, info.seq, None))
        seat = info.seats[info.to_move] if info.to_move is not None else None
        user_id = seat.user_id if seat is not None and not seat.is_computer and not seat.away else None
        await post(self.client, info.channel_id, texts.recovered_post(view, info.locale, user_id=user_id,
                                                                      name=seat.name if seat else None),
                   pictures=[(board, "board.png")], view=post_view(info.game_id, info.seq, info.locale))
        if user_id is not None:
            await self.dms.send_hand(info, user_id, turn=True)
