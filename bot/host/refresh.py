"""A game loaded when touched, and another process's changes (:class:`Refresh`).

Whatever touches a game (a command, a click, a timer, a delivery, the computers) asks :meth:`Refresh.channel`,
:meth:`Refresh.game` or :meth:`Refresh.games_of` first, and a change goes through ``games.change``
(:meth:`Refresh.locked`): a game this process does not hold is read then (:mod:`bot.host.restore`) and held
(:mod:`bot.host.memory`), and a copy held is checked against the database (a cheap indexed version check) and read
again only when it differs, as when another process sharing the database changed it. The readers wait a while for
a change under way in this process rather than answer from a copy it is about to replace. A game that lost a race
with another process is marked outdated (:meth:`Refresh.lost`) and read again before its next change; the sweep
reads again the games held that another process changed (:meth:`Refresh.held_changed`).
"""

from __future__ import annotations

import asyncio
import contextlib

from bot.host.errors import CopyBehind, storage_refusal
from bot.host.memory import ChannelLocks, Memory
from bot.host.model import OPEN_STATUSES
from bot.host.restore import Restore
from bot.host.stores import GameStore
from bot.host.table import Table, TableInfo


class Refresh:
    """This process's copies of the games, loaded when touched and made what the database holds; see the module
    docstring. It shares the cache and the locks of :class:`bot.host.games.Games`, which makes it."""

    def __init__(self, store: GameStore, restore: Restore, memory: Memory, locks: ChannelLocks) -> None:
        self.store = store
        self.restore = restore
        self._memory = memory
        self._tables: dict[int, Table] = memory.tables
        """Channel id -> the channel's game in memory (``Games.tables``)."""
        self._locks = locks
        """One lock per channel (``Games``'): every change to a channel's game happens under it."""
        self._outdated: set[int] = set()
        """Channels whose table lost a race with another process: read again before the next change."""

    def _info(self, channel_id: int) -> TableInfo | None:
        table = self._tables.get(channel_id)
        return table.info() if table is not None else None

    async def channel(self, channel_id: int, *, wait: float = 0.0, strict: bool = False) -> TableInfo | None:
        """The channel's game as the database has it now: one indexed read when this process's copy is current. A
        change (or another reading) holding the lock is waited for up to ``wait`` seconds, then the game is read
        again; past that, the copy as it is is the answer (the change checks again under the lock), or with
        ``strict`` :class:`CopyBehind` (for a caller deciding what cannot be undone). ``host.error.storage`` if the
        database cannot be read."""
        self._memory.touch(channel_id)
        with storage_refusal():
            stamp = await self.store.open_game_version(channel_id)
        if self._is_current(channel_id, stamp):
            return self._info(channel_id)
        lock = self._locks[channel_id]
        if not lock.locked():
            await self._under_lock(channel_id)
            return self._info(channel_id)
        with contextlib.suppress(TimeoutError):
            if wait > 0:
                await asyncio.wait_for(lock.acquire(), wait)
                try:
                    await self.locked(channel_id)
                finally:
                    lock.release()
                return self._info(channel_id)
        if strict:
            raise CopyBehind(f"channel {channel_id}: a change under way here kept its game's copy behind for {wait} s")
        return self._info(channel_id)

    async def games_of(self, user_id: int, *, wait: float = 0.0) -> None:
        """The open games the user sits in as the database has them now; only those whose version differs are
        read (changes under way waited for as :meth:`channel` says, ``wait`` seconds for all of them together)."""
        with storage_refusal():
            rows = await self.store.open_games_of(user_id)
        stored = {row.channel_id: row for row in rows}
        held = {channel_id for channel_id, table in self._tables.items()
                if table.status in OPEN_STATUSES and table.seat_of(user_id) is not None}
        clock = asyncio.get_running_loop().time
        until = clock() + wait
        for channel_id in sorted(held | stored.keys()):
            table, row = self._tables.get(channel_id), stored.get(channel_id)
            if (row is None or table is None or (table.id, table.version) != (row.id, row.version)
                    or channel_id in self._outdated):  # opened, changed or ended by another process
                await self.channel(channel_id, wait=max(0.0, until - clock()))

    async def game(self, game_id: int, *, wait: float = 0.0, strict: bool = False) -> TableInfo | None:
        """The game ``game_id`` as the database has it now (as :meth:`channel` says), loaded if need be, or
        ``None``."""
        table = next((t for t in self._tables.values() if t.id == game_id), None)
        if table is not None:
            return await self.channel(table.channel_id, wait=wait, strict=strict)
        with storage_refusal():
            row = await self.store.get_game(game_id)
        if row is None:
            return None
        info = await self.channel(row.channel_id, wait=wait, strict=strict)
        return info if info is not None and info.game_id == game_id else None

    async def held_changed(self) -> list[TableInfo]:
        """Read again every open game held whose version in the database differs from this process's copy (another
        process changed it, ended it or opened the channel's next game), and those outdated; the games that
        changed. The games not held are read when touched."""
        held = {table.id: channel_id for channel_id, table in list(self._tables.items())
                if table.status in OPEN_STATUSES}
        with storage_refusal():
            versions = await self.store.game_versions(list(held))
        changed = []
        for game_id, channel_id in held.items():
            table = self._tables.get(channel_id)
            if table is None or table.id != game_id:
                continue  # let go or read again meanwhile
            if versions.get(game_id) != table.version or channel_id in self._outdated:
                await self._under_lock(channel_id)
                info = self._info(channel_id)
                if info is not None:
                    changed.append(info)
        return changed

    async def locked(self, channel_id: int) -> None:
        """Make the channel's table what the database holds (its lock held by the caller); ``host.error.storage``
        if the database cannot be read."""
        self._memory.touch(channel_id)
        with storage_refusal():
            stamp = await self.store.open_game_version(channel_id)
            if self._is_current(channel_id, stamp):
                return
            table = self._tables.get(channel_id)
            if stamp is not None:
                await self.reload(channel_id, stamp[0])  # changed or opened by another process
            elif table is not None:
                await self.reload(channel_id, table.id)  # ended (or changed) by another process

    def lost(self, channel_id: int) -> None:
        """The channel's game lost a race with another process: read it again before its next change."""
        self._outdated.add(channel_id)

    async def reload(self, channel_id: int, game_id: int) -> None:
        """Read one game from the database into this process's memory (finished games stay small)."""
        table = await self.restore.read(channel_id, game_id)
        if table is None:
            self._tables.pop(channel_id, None)
            return
        self._outdated.discard(channel_id)
        if table.status not in OPEN_STATUSES:
            table.unload()
        self._memory.hold(table)

    def _is_current(self, channel_id: int, stamp: tuple[int, int] | None) -> bool:
        """Whether this process's copy of the game is the database's: ``stamp``, its open game's (id, version)."""
        if channel_id in self._outdated:
            return False
        table = self._tables.get(channel_id)
        if stamp is None:
            return table is None or table.status not in OPEN_STATUSES
        return table is not None and (table.id, table.version) == stamp

    async def _under_lock(self, channel_id: int) -> None:
        """:meth:`locked`, taking the channel's lock."""
        async with self._locks[channel_id]:
            await self.locked(channel_id)
