"""Computers (a part of the host): the computer players' moves.

A computer (or an away person's seat) to move is thought about in the worker pool on a view of the position, WITHOUT
the channel's lock, and stored through ``play.commit`` only if the game has not moved meanwhile. With a shared
database one process at a time plays a channel's computers, holding the lease ``computers:<channel>``
(:mod:`bot.host.leases`); :meth:`Computers.played_elsewhere` says whether another process held it at the last try.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import defaultdict
from collections.abc import AsyncIterator, Callable

from bot.host import metrics
from bot.host.games import Games
from bot.host.leases import Leases
from bot.host.memory import waits_for
from bot.host.model import COMPUTER
from bot.host.play import Play
from bot.host.settings import Settings
from bot.host.table import MoveResult, Table
from bot.host.workers import PoolBroken, WorkerPool
from engine import IllegalMove, View, parse_move
from engine.ai import choose_move

log = logging.getLogger(__name__)

Chooser = Callable[[View, str, int, float], str]
"""``(seat view, strength, seed, seconds) -> move``: a computer player; runs in an executor."""


class Computers:
    """The computer players of every channel."""

    def __init__(self, games: Games, play: Play, leases: Leases, settings: Settings, workers: WorkerPool, *,
                 chooser: Chooser) -> None:
        self.games = games
        self.play = play
        self.leases = leases
        self.settings = settings
        self.workers = workers
        self._chooser = chooser
        self.elsewhere: set[int] = set()
        """Channels whose computers another process was playing at this process's last try."""
        self._thinking: defaultdict[int, asyncio.Semaphore] = defaultdict(lambda: asyncio.Semaphore(1))
        """One computer move thought about at a time per channel (fair to the other channels)."""

    async def run_computers(self, channel_id: int) -> AsyncIterator[MoveResult]:
        """Play the computer's moves while the seat to move is a computer (or a person who is away).

        Each move is chosen in the computer worker pool on a view of the position, WITHOUT the channel's
        lock (so commands in the channel are answered meanwhile), and stored under the lock only if the game
        has not moved since (same seq, same seat to move, still the computer's); otherwise the computer
        thinks again. At most one move per channel is thought about at a time, so one channel's computers
        queue behind each other and never crowd out another channel's. Safe to run twice at once for a
        channel: each move is made exactly once. A failed write raises (nothing changed; call again).
        """
        lease = f"computers:{channel_id}"
        await self.games.refresh.channel(channel_id)  # loaded, if this process does not hold it
        try:
            with self.games.memory.pinned(channel_id):  # held while a move is thought about without the lock
                async for result in self._moves(channel_id, lease):
                    yield result
        finally:
            await self.leases.let_go(lease)

    async def _moves(self, channel_id: int, lease: str) -> AsyncIterator[MoveResult]:
        """:meth:`run_computers`'s moves, while this process holds the channel's computers' ``lease``."""
        while True:
            async with self._thinking[channel_id]:
                turn = self._computer_turn(channel_id)
                if turn is None:
                    return
                if not await self.leases.hold(lease, self.computer_lease):
                    if channel_id not in self.elsewhere:
                        log.info("channel %d: another process plays its computers", channel_id)
                    self.elsewhere.add(channel_id)
                    return
                self.elsewhere.discard(channel_id)
                result = await self._computer_move(channel_id, *turn)
            if result is not None:
                yield result

    def played_elsewhere(self, channel_id: int) -> bool:
        """Whether another process was playing the channel's computers at this one's last try (shared database)."""
        return channel_id in self.elsewhere

    @property
    def computer_lease(self) -> float:
        """Seconds a process holds a channel's computers while they think (with a shared database): twice
        ``LEASE_SECONDS``, and long enough for ten thinking times."""
        return max(2 * self.settings.lease_seconds, 10 * self.settings.ai_seconds)

    async def computer_channels(self) -> list[int]:
        """The channels whose running game waits for a computer (or an away player's) move: those this process holds,
        and those the database says (a game not held is loaded when its computers move). Raises ``StorageFailed``."""
        held = [channel_id for channel_id in list(self.games.tables) if self._computer_turn(channel_id) is not None]
        return sorted({*held, *await self.games.store.computer_turns()})

    def _computer_turn(self, channel_id: int) -> tuple[Table, int] | None:
        """The table and seat when a computer is to move in the channel's running game."""
        table = self.games.live(channel_id)
        if table is None or waits_for(table.status, table.seats, table.game) != COMPUTER:
            return None
        seat = table.playing.to_move
        assert seat is not None  # it waits for a computer's move
        return table, seat

    async def _computer_move(self, channel_id: int, table: Table, seat: int) -> MoveResult | None:
        """Think about ``seat``'s move outside the lock, then store it; ``None`` if the game moved meanwhile."""
        game, seq = table.playing, table.seq
        text = await self.choice(table, seat)
        async with self.games.change(channel_id):
            turn = self._computer_turn(channel_id)
            if turn is None or turn[0] is not table or turn[1] != seat or table.seq != seq or table.game is not game:
                log.info("game %d: the game moved while the computer thought; thinking again", table.id)
                return None
            new = game.clone()
            events = new.apply(text)
            return await self.play.commit(table, new, seat, None, str(parse_move(text)), None, events)

    async def choice(self, table: Table, seat: int) -> str:
        """The computer's move for ``seat`` in the table's position now (thought about in the worker pool, without
        the channel's lock; a legal one: an illegal choice falls back to a random move, logged)."""
        game, seq = table.playing, table.seq
        view = game.view(seat)
        strength = table.seats[seat].strength or self.settings.ai_strength
        ai_seed = (table.seed + 7919 * seq) % (1 << 62)
        text = await self._think(table.id, view, strength, ai_seed)
        if not game.is_legal(text):
            log.error("the computer player chose an illegal %r move; strength fell back from %s to random "
                      "for game %d", _verb_for_log(text), strength, table.id)  # the verb: a card may be secret
            text = _random_move(view, ai_seed)
        return text

    async def _think(self, game_id: int, view: View, strength: str, ai_seed: int) -> str:
        """The computer's move for ``view`` from the worker pool, or a random legal move (logged) when the
        pool broke twice or the player failed."""
        try:
            with metrics.COMPUTER_SECONDS.labels(strength).time():
                return await self.workers.run(self._chooser, view, strength, ai_seed, self.settings.ai_seconds,
                                              what=f"game {game_id}")
        except PoolBroken as exc:
            log.warning("%s; strength fell back from %s to random for game %d", exc, strength, game_id)
        except Exception:
            log.exception("the computer player failed; strength fell back from %s to random for game %d",
                          strength, game_id)
        return _random_move(view, ai_seed)


def default_chooser(view: View, strength: str, seed: int, budget: float) -> str:
    """The engine's computer players (``engine.ai``)."""
    return choose_move(view, strength=strength, seed=seed, budget=budget)


def _verb_for_log(text: str) -> str:
    """The verb of a move's notation, the only part a log may show (its card may be secret); "?" if malformed."""
    try:
        return parse_move(text).verb
    except IllegalMove:
        return "?"


def _random_move(view: View, seed: int) -> str:
    """A random legal move of the seat whose ``view`` this is (the fallback of a computer player)."""
    return str(random.Random(seed).choice(view["you"]["legal_moves"]))
