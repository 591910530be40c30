"""Which games this process holds in memory (:class:`Memory`), and whose move each stored game waits for.

A game comes into memory when something touches it: an interaction, a timer, a delivery, its computers (through
:mod:`bot.host.refresh`, or ``games.change``, which read it with :mod:`bot.host.restore` when this process does not
hold it). Start-up loads only the games that owe work whoever touches them (``Games.load``). Memory is bounded: a
game nobody touched for ``GAME_MEMORY_MINUTES`` leaves it, and past ``GAMES_IN_MEMORY`` games the least recently
touched do (:meth:`Memory.let_go`), never while a change holds the channel's lock or a part pins it for work under
way outside the lock (:meth:`Memory.pinned`: a computer or the coach thinking). A game let go is read again at its
next touch, as after a restart; nothing else changes for its players.

The channels' locks (:class:`ChannelLocks`) are kept while someone holds or waits for one, so that they do not grow
with every channel ever touched either.

Whose move a game waits for (:func:`waits_for`) is written with every change to it (``games.waits_for``), so that
start-up and the sweep find the games waiting for a computer without reading every game.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from bot.host.model import COMPUTER, NOBODY, PERSON
from bot.host.table import Seat, Table, paused
from engine import Game


def waits_for(status: str, seats: Sequence[Seat], game: Game | None) -> str:
    """Whose move a game with ``status``, ``seats`` and ``game`` waits for: :data:`~bot.host.model.COMPUTER` when the
    computer makes the move of the seat to move (a computer seat, an away person's, a vacation left to the computer),
    :data:`~bot.host.model.PERSON` when its person makes it, else :data:`~bot.host.model.NOBODY` (a lobby, a game a
    vacation pauses, a game over)."""
    seat = game.to_move if status == "running" and game is not None and not paused(seats) else None
    if seat is None:
        return NOBODY
    return COMPUTER if seats[seat].computer_plays else PERSON


class ChannelLocks:
    """One :class:`asyncio.Lock` per channel, held weakly: a lock lives while someone holds it, waits for it or is
    about to take it (each keeps a reference), and is made again for the next change of a channel nobody was
    changing."""

    def __init__(self) -> None:
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()

    def __getitem__(self, channel_id: int) -> asyncio.Lock:
        lock = self._locks.get(channel_id)
        if lock is None:
            lock = self._locks[channel_id] = asyncio.Lock()
        return lock

    def locked(self, channel_id: int) -> bool:
        """Whether a change of the channel holds its lock now."""
        lock = self._locks.get(channel_id)
        return lock is not None and lock.locked()

    def busy(self) -> list[asyncio.Lock]:
        """The locks held now."""
        return [lock for lock in list(self._locks.values()) if lock.locked()]


class Memory:
    """The games of ``tables`` (channel id -> table, ``Games.tables``) in memory: when each was last touched, which
    are pinned, and which leave; see the module docstring."""

    def __init__(self, tables: dict[int, Table], locks: ChannelLocks, *, clock: Callable[[], float], most: int,
                 seconds: float) -> None:
        """``most``: the games held at most (``GAMES_IN_MEMORY``); ``seconds``: how long a game nobody touched stays
        (``GAME_MEMORY_MINUTES``)."""
        self.tables = tables
        """Channel id -> the channel's game in memory (``Games.tables``)."""
        self._locks = locks
        self._clock = clock
        self.most = most
        self.seconds = seconds
        self._touched: dict[int, float] = {}
        """Channel id -> when its table was last touched (every table held has one)."""
        self._pins: Counter[int] = Counter()
        self.let_go_total = 0
        """Games that left memory since start (for the metrics and the tests)."""

    def hold(self, table: Table) -> None:
        """Hold ``table`` as its channel's game (just loaded or created: touched now); past :attr:`most` games, the
        least recently touched leave."""
        self.tables[table.channel_id] = table
        self.touch(table.channel_id)
        if len(self.tables) > self.most:
            self.let_go()

    def touch(self, channel_id: int) -> None:
        """The channel's game (if held) is being used: it stays in memory a while longer."""
        if channel_id in self.tables:
            self._touched[channel_id] = self._clock()

    @contextmanager
    def pinned(self, channel_id: int) -> Iterator[None]:
        """Keep the channel's game in memory meanwhile (work on it under way without the lock)."""
        self._pins[channel_id] += 1
        try:
            yield
        finally:
            self._pins[channel_id] -= 1
            if not self._pins[channel_id]:
                del self._pins[channel_id]

    def busy(self, channel_id: int) -> bool:
        """Whether the channel's game must stay: a change holds its lock, or a part pinned it."""
        return self._locks.locked(channel_id) or channel_id in self._pins

    def let_go(self) -> list[int]:
        """Let the games nobody touched for :attr:`seconds` leave memory, and the least recently touched ones past
        :attr:`most` games (busy games stay, whatever their age); the channels of the games that left."""
        now = self._clock()
        for channel_id in self._touched.keys() - self.tables.keys():  # a table dropped by a reading of the database
            del self._touched[channel_id]
        left: list[int] = []
        for channel_id in sorted(self.tables, key=lambda c: self._touched.get(c, 0.0)):
            idle = now - self._touched.get(channel_id, 0.0) >= self.seconds
            if not idle and len(self.tables) <= self.most:
                break  # the rest were touched later still
            if self.busy(channel_id):
                continue
            del self.tables[channel_id]
            self._touched.pop(channel_id, None)
            left.append(channel_id)
        self.let_go_total += len(left)
        return left
