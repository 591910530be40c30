"""What runs beside the interactions: computer players, turn reminders, restart recovery, shutdown.

After the host stored a move, :meth:`Background.after_move` (and its siblings for a start and a seat
change) queues the channel's messages and, if a computer or an away player is to move, wakes that
channel's computer task. Computer moves come from :meth:`Host.run_computers`, whose players think in an
executor, one task per channel; each move is published like a person's.

Reminders are driven from the database (the host knows whose reminder is due), checked once a minute.
At start-up, a recently played game whose last position was never posted (the bot stopped between
storing a move and posting it) gets that post and its player to move their DM, and games whose turn
is a computer's carry on. At shutdown, queued messages get a few seconds to go out.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from typing import Final

import discord
from discord.ext import tasks

from bot.adapter.dms import DirectMessages
from bot.adapter.publish import Publisher
from bot.adapter.views import shows_position
from bot.host.host import Host, HostError, damage_notice
from bot.host.store import DamagedGame
from bot.host.table import MoveResult, SeatChange, StartResult, TableInfo

log = logging.getLogger(__name__)

SHUTDOWN_GRACE: Final = 5.0
"""Seconds the queued channel posts and DMs get to go out when the bot closes."""
REMINDER_INTERVAL: Final = 60.0
"""Seconds between two looks for due turn reminders."""
RECOVER_WINDOW: Final = 3600.0
"""At start-up, games moved within this many seconds are checked for a move whose post was lost."""
RECOVER_HISTORY: Final = 10


class Background:
    """The computer tasks, the reminder loop, and the start-up and shutdown work of the bot's games."""

    def __init__(self, client: discord.Client, host: Host, publisher: Publisher, dms: DirectMessages) -> None:
        self.client = client
        self.host = host
        self.publisher = publisher
        self.dms = dms
        self.computers: dict[int, asyncio.Task[None]] = {}
        self._computers_again: set[int] = set()

    # ------------------------------------------------------------------ after the host answered

    def after_move(self, result: MoveResult, *, clicked: int | None = None) -> None:
        """Queue the channel post and DMs of a stored move; let the computers play if it is their turn.

        Synchronous on purpose: called right after the host answers, so posts keep the moves' order.
        """
        self.publisher.queue_move(result, clicked=clicked)
        if result.computer_to_move:
            self.start_computers(result.channel_id)

    def after_start(self, start: StartResult) -> None:
        self.publisher.queue_start(start)
        if start.computer_to_move:
            self.start_computers(start.info.channel_id)

    def after_seat_change(self, change: SeatChange) -> None:
        self.publisher.queue_seat_change(change)
        if change.computer_to_move:
            self.start_computers(change.info.channel_id)

    # ------------------------------------------------------------------ computer players

    def start_computers(self, channel_id: int) -> None:
        """Let the channel's computers (and away players) move; a running task goes round once more."""
        task = self.computers.get(channel_id)
        if task is not None and not task.done():
            self._computers_again.add(channel_id)
            return
        self.computers[channel_id] = asyncio.create_task(self._run_computers(channel_id),
                                                         name=f"santacruz-computers-{channel_id}")

    async def _run_computers(self, channel_id: int) -> None:
        """Post each computer move as it comes (the host chooses them off the event loop)."""
        try:
            while True:
                self._computers_again.discard(channel_id)
                async for result in self.host.run_computers(channel_id):
                    self.after_move(result)
                if channel_id not in self._computers_again:
                    return
        except Exception:
            log.exception("channel %d: the computer players stopped", channel_id)

    # ------------------------------------------------------------------ reminders

    @tasks.loop(seconds=REMINDER_INTERVAL)
    async def reminder_loop(self) -> None:
        try:
            await self.send_reminders()
        except Exception:
            log.exception("sending turn reminders failed")

    @reminder_loop.before_loop
    async def _before_reminders(self) -> None:
        await self.client.wait_until_ready()

    async def send_reminders(self, now: float | None = None) -> int:
        """DM every player whose reminder is due (driven from the database); returns how many were due.

        Each reminder goes out in the player's own language when the bot knows it (after a restart too),
        else in the game's (``reminder.locale``): :meth:`DirectMessages.send_hand` chooses."""
        due = await self.host.due_reminders(now)
        for reminder in due:
            info = self.host.info(reminder.channel_id)
            try:
                if info is not None:
                    await self.dms.send_hand(info, reminder.user_id, turn=True, reminder=True)
            finally:
                await self.host.mark_reminded(reminder, now)
        return len(due)

    # ------------------------------------------------------------------ start-up and shutdown

    def start(self, loaded_games: list[TableInfo]) -> None:
        """Start the reminders; check the recently played games for a lost post; let waiting computers move."""
        self.reminder_loop.start()
        for damaged in self.host.damaged_untold():
            self.publisher.queue(damaged.channel_id, functools.partial(self._tell_damaged, damaged))
        now = time.time()
        for info in loaded_games:
            if info.status != "running":
                continue
            if info.last_move_at is not None and now - info.last_move_at < RECOVER_WINDOW:
                self.publisher.queue(info.channel_id, functools.partial(self._recover, info))
            if info.to_move is not None:
                seat = info.seats[info.to_move]
                if seat.is_computer or seat.away:
                    self.start_computers(info.channel_id)

    async def _tell_damaged(self, damaged: DamagedGame) -> None:
        """Tell a quarantined game's channel, once, that the game cannot continue and why."""
        channel = self.client.get_partial_messageable(damaged.channel_id)
        try:
            await channel.send(damage_notice(damaged, damaged.locale))
        except discord.HTTPException as exc:
            log.warning("game %d: cannot tell the channel that the game is damaged (%s)", damaged.game_id, exc.status)
            return
        try:
            await self.host.mark_damage_told(damaged.game_id)
        except HostError:
            log.warning("game %d: the channel was told it is damaged, but that could not be stored", damaged.game_id)

    async def _recover(self, info: TableInfo) -> None:
        """After a restart: if the last position of a recently played game was never posted (the bot
        stopped between storing a move and posting it), post it now and send the player to move their DM."""
        current = self.host.info(info.channel_id)
        if current is None or current.game_id != info.game_id or current.seq != info.seq:
            return  # the game moved on since start-up: that move's post shows the position
        channel = self.client.get_partial_messageable(info.channel_id)
        try:
            async for message in channel.history(limit=RECOVER_HISTORY):
                if shows_position(message, info.game_id, info.seq):
                    return
        except discord.HTTPException as exc:
            log.warning("game %d: cannot read the channel to check the last post (%s)", info.game_id, exc.status)
            return
        log.info("game %d: position %d was not posted before the restart; posting it", info.game_id, info.seq)
        await self.publisher.publish_recovered(info)

    def stop(self) -> None:
        """Stop the reminders."""
        self.reminder_loop.cancel()

    async def shutdown(self, grace: float = SHUTDOWN_GRACE) -> None:
        """Stop the computer players, give queued messages ``grace`` seconds, then cancel what is left."""
        self.reminder_loop.cancel()
        tasks_ = [task for task in self.computers.values() if not task.done()]
        for task in tasks_:
            task.cancel()
        pending = self.publisher.pending()
        if pending:
            _, still = await asyncio.wait(pending, timeout=grace)
            for task in still:
                task.cancel()
            tasks_ += list(still)
        if tasks_:
            await asyncio.wait(tasks_, timeout=grace)
