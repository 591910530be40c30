"""What happens to idle tables and to games whose channel is gone (a part of the host; see ``bot.host.idle``).

The host makes one :class:`IdleTables` (``host.idle_tables``), which registers the handlers of the idle timers with the
schedule (``bot.host.timers``)::

    await host.idle_tables.keep_open(channel_id, user_id, game_id) -> TableInfo   # "Keep it open" (anyone seated)
    await host.idle_tables.close_channel(channel_id, reason) -> TableInfo | None  # the channel was deleted
    await host.idle_tables.close_guild(guild_id, reason) -> list[TableInfo]       # the bot left (or lost) a server
    await host.idle_tables.guild_channels(guild_id) -> list[int]                  # its channels with a game
    await host.idle_tables.arm_missing() -> int     # at load(): timers for games stored before the bot had them

A fired timer writes what it changes through ``games.write`` with ``Change(timer=...)`` (the timer done, the game's
columns, its post and the next timer in one transaction), which then changes the table in memory, and returns the game's
:class:`TableInfo` so the adapter wakes the channel's outbox. A timer whose game moved on (started, over,
abandoned, another game in the channel) is only marked done.

A closed channel's open games become ``abandoned`` (not rated, as ``/santacruz abandon``), their timers are
cancelled and their pending posts and DMs given up with the reason, in one transaction: nothing is left to
post into a channel that is gone. The adapter stops the channel's computer task.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from bot.host.change import Change
from bot.host.deliveries import CHANNEL_GONE, LOBBY_EDIT, TURN_OVER_DM, abandoned_turn, lobby_edit
from bot.host.errors import HostError, storage_refusal
from bot.host.games import Games
from bot.host.idle import (
    ABANDONED,
    IDLE_ABANDON,
    IDLE_GAME,
    IDLE_KINDS,
    KEEP_OPEN_DAYS,
    LOBBY_CLOSED,
    LOBBY_EXPIRY,
    NOTICE,
    abandon_timer,
    idle_post,
    idle_timer,
    lobby_timer,
)
from bot.host.model import NewDelivery, TimerRow
from bot.host.settings import Settings
from bot.host.table import Table, TableInfo
from bot.host.timers import Schedule
from bot.host.vacation import pause_of

log = logging.getLogger(__name__)


class IdleTables:
    """Lobby expiry, idle-game announcements and their abandonment, and closing the games of a gone channel."""

    def __init__(self, games: Games, schedule: Schedule, settings: Settings, *, clock: Callable[[], float]) -> None:
        self.games = games
        self.store = games.store
        self.settings = settings
        self._clock = clock
        schedule.on(LOBBY_EXPIRY, self._on_lobby_expiry)
        schedule.on(IDLE_GAME, self._on_idle_game)
        schedule.on(IDLE_ABANDON, self._on_idle_abandon)

    # ------------------------------------------------------------------ the timers

    async def _table(self, timer: TimerRow, status: str, now: float) -> Table | None:
        """The timer's game in memory if it is still the channel's game and has ``status``; else ``None``, and the
        timer, whose game moved on, is marked done (another process may have done so: nothing to do then)."""
        table = self.games.tables.get(timer.channel_id)
        if table is None or table.id != timer.game_id or table.status != status:
            await self.games.finish_timer(timer.game_id, timer.id, now)
            return None
        return table

    async def _on_lobby_expiry(self, timer: TimerRow, now: float) -> TableInfo | None:
        """A lobby not started in time closes, and its channel is told."""
        async with self.games.change(timer.channel_id):
            table = await self._table(timer, "lobby", now)
            if table is None:
                return None
            days = self.settings.lobby_days
            # the lobby message's redraw comes with the post (_close): whichever process delivers it finds the message
            # and draws the lobby as the database has it
            await self._close(timer, table, now, idle_post(LOBBY_CLOSED, table.seq, table.options.locale, days))
            log.info("game %d: the lobby was not started within %g days and closed", table.id, days)
            return table.info()

    async def _close(self, timer: TimerRow, table: Table, now: float, post: NewDelivery) -> None:
        """The timer ends its game as abandoned (not rated), its channel told by ``post``: written with the timer
        done in one transaction, then applied."""
        redrawn = [lobby_edit(table.seq)] if table.status == "lobby" else []
        await self.games.write(table, Change({"status": "abandoned", "next_reminder_at": None},
                                             deliveries=[*redrawn, post, *abandoned_turn(table)], timer=timer.id),
                               now=now)

    async def _rearm_after_pause(self, timer: TimerRow, table: Table, now: float) -> bool:
        """A vacation pause holds the game: it is not idle; the period starts again when the pause ends. Whether
        the game was paused (the timer is then done, and the next one set, in one transaction)."""
        pause = pause_of(table)
        if pause is None:
            return False
        await self.games.write(table, Change(
            cancel_timers=IDLE_KINDS, timers=[idle_timer(self.settings, max(pause[1], now))], timer=timer.id),
            now=now)
        return True

    async def _idle(self, timer: TimerRow, now: float) -> Table | None:
        """Under the channel's lock: the running game a idle timer is for, or ``None`` when there is nothing to do
        (the game moved on: the timer is dropped; a vacation pauses it: the period starts again)."""
        table = await self._table(timer, "running", now)
        if table is None or await self._rearm_after_pause(timer, table, now):
            return None
        return table

    async def _on_idle_game(self, timer: TimerRow, now: float) -> TableInfo | None:
        """A game without a move for ``STALE_DAYS``: its players are mentioned with a "Keep it open" button (not
        while a vacation pauses it)."""
        async with self.games.change(timer.channel_id):
            table = await self._idle(timer, now)
            if table is None:
                return None
            people = [s.user_id for s in table.seats if s.user_id is not None]
            notice = idle_post(NOTICE, table.seq, table.options.locale, self.settings.stale_days,
                                user_ids=people, grace_days=KEEP_OPEN_DAYS)
            await self.games.write(table, Change(deliveries=[notice], timers=[abandon_timer(now)], timer=timer.id),
                                        now=now)
            log.info("game %d: no move for %g days; its players are asked to keep it open", table.id,
                     self.settings.stale_days)
            return table.info()

    async def _on_idle_abandon(self, timer: TimerRow, now: float) -> TableInfo | None:
        """Nobody kept the idle game open: it is abandoned without a result (unless a vacation pauses it now)."""
        async with self.games.change(timer.channel_id):
            table = await self._idle(timer, now)
            if table is None:
                return None
            await self._close(timer, table, now,
                              idle_post(ABANDONED, table.seq, table.options.locale, self.settings.stale_days))
            log.info("game %d: nobody kept it open; abandoned (not rated)", table.id)
            return table.info()

    # ------------------------------------------------------------------ games from before the idle timers

    async def arm_missing(self, tables: Sequence[Table] | None = None) -> int:
        """At start-up: give every lobby and running game of ``tables`` (default: those in memory) without its idle
        timer one (games stored before this bot had them), counted from the lobby's opening or the game's last move;
        how many were armed. A database failure is logged: that game gets its timer at the next start or its next
        move."""
        def idle(table: Table, pending: set[str]) -> Change | None:
            kind = LOBBY_EXPIRY if table.status == "lobby" else IDLE_GAME
            if pending & {kind, IDLE_ABANDON}:
                return None
            timer = (lobby_timer(self.settings, table.created_at) if kind == LOBBY_EXPIRY
                     else idle_timer(self.settings, table.last_move_at or table.created_at))
            return Change(cancel_timers=[kind], timers=[timer])

        return await self.games.arm_missing("idle", idle, tables)

    # ------------------------------------------------------------------ keep it open

    async def keep_open(self, channel_id: int, user_id: int, game_id: int) -> TableInfo:
        """Anyone seated keeps a game announced as idle open: the abandonment is cancelled and the idle
        period starts again. Refused (``host.error.not_stale``) when the game is not waiting for that (someone
        moved, or kept it open already)."""
        async with self.games.change(channel_id):
            table, _ = self.games.seat_at(channel_id, user_id, game_id)
            with storage_refusal():
                pending = await self.store.timers(table.id)
            if not any(timer.kind == IDLE_ABANDON for timer in pending):
                raise HostError("host.error.not_stale")
            now = self._clock()
            await self.games.write(table, Change(cancel_timers=IDLE_KINDS,
                                                      timers=[idle_timer(self.settings, now)]), now=now)
            return table.info()

    # ------------------------------------------------------------------ channels and servers that are gone

    async def close_channel(self, channel_id: int, reason: str) -> TableInfo | None:
        """The channel is gone: its open game is abandoned (not rated), its timers cancelled, its pending posts
        and DMs given up with ``reason``, each player's DM still showing a turn owed its edit (the game ended
        with its channel), and a lobby in a thread of its own owes its message's redraw (the message is in the parent
        channel: no Join button that leads nowhere), in one transaction. Returns the game if one was open in
        memory.
        ``host.error.storage`` if the database refused (nothing changed; the next failed post tries again)."""
        async with self.games.change(channel_id):
            with storage_refusal():
                abandoned = await self.store.close_channel(channel_id, now=self._clock(), reason=reason,
                                                           told=(TURN_OVER_DM, {"reason": CHANNEL_GONE, "why": reason}),
                                                           redrawn=LOBBY_EDIT)
            table = self.games.tables.get(channel_id)
            if table is None or table.id not in abandoned:
                return None
            self.games.adopt(table, {"status": "abandoned", "next_reminder_at": None}, abandoned[table.id])
            log.info("game %d abandoned: its channel is gone (%s)", table.id, reason)
            return table.info()

    async def guild_channels(self, guild_id: int) -> list[int]:
        """The server's channels with an open game in the database (whichever process holds it, if any) or a game
        in this host's memory (a finished one may still owe posts)."""
        with storage_refusal():
            stored = set(await self.store.open_channels_of(guild_id))
        known = {table.channel_id for table in list(self.games.tables.values()) if table.guild_id == guild_id}
        return sorted(stored | known)

    async def guilds(self) -> list[int]:
        """The servers with an open game in the database (``host.error.storage`` if it cannot be read)."""
        with storage_refusal():
            return await self.store.open_game_guilds()

    async def close_guild(self, guild_id: int, reason: str) -> list[TableInfo]:
        """The bot left the server (or was removed): each of its channels (:meth:`guild_channels`) is closed as by
        :meth:`close_channel`; returns the games abandoned that this host held."""
        closed = []
        for channel_id in await self.guild_channels(guild_id):
            info = await self.close_channel(channel_id, reason)
            if info is not None:
                closed.append(info)
        return closed
