"""A stored game back in memory (:class:`Restore`): its row and move log made a :class:`bot.host.table.Table`, its
game from the stored snapshot when that agrees with the log, else replayed from the log, and a game that cannot be
played on (unreadable seats or options, an illegal move in its log) quarantined as ``damaged`` (logged once, its
channel told once: :meth:`Restore.damaged_untold`). Every other game loads.

Start-up reads the games that owe work this way (:meth:`Restore.load`), and so does loading a game when it is touched
or reading it again after another process changed it (:mod:`bot.host.refresh`); :attr:`Restore.reads` counts them. A
snapshot is only a cache of the log: one that disagrees is replaced by the replayed game, written through the one write
path (``games.write``, handed in).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, Final, Protocol

import engine
from bot.host.change import Change
from bot.host.errors import Damage, HostError, StorageFailed, storage_refusal
from bot.host.model import DamagedGame, GameRow, MoveRow, effective_moves
from bot.host.stores import GameStore
from bot.host.table import DEADLINE_HOURS, Options, Seat, Table
from engine import Game, IllegalMove
from i18n import LOCALES

log = logging.getLogger(__name__)

MAX_PLAYERS: Final = 4

GameFactory = Callable[[Sequence[str], int, bool], Game]
"""``(names, seed, draft) -> Game``: how a new game is set up (tests inject a small island)."""


class Write(Protocol):
    """The one write path (``games.write``): how a replayed snapshot is stored."""

    async def __call__(self, table: Table, change: Change, *, game: Game | None = None) -> None: ...


def default_game_factory(names: Sequence[str], seed: int, draft: bool) -> Game:
    """A game on the default island."""
    return engine.new_game(names, seed, draft=draft)


class Restore:
    """Stored games made tables again, and the quarantine of those that cannot be; see the module docstring."""

    def __init__(self, store: GameStore, write: Write, *, clock: Callable[[], float], factory: GameFactory) -> None:
        self.store = store
        self._write = write
        self._clock = clock
        self._factory = factory
        self._damaged: dict[int, DamagedGame] = {}
        """Game id -> a quarantined game whose channel has not been told yet."""
        self.reads = 0
        """Games read from the database and made tables since start (each :meth:`read`)."""

    async def load(self, games: Sequence[tuple[int, int]]) -> list[Table]:
        """The stored ``(channel id, game id)`` games as tables (damaged ones quarantined and left out), and the
        quarantined games whose channel was not told yet."""
        self._damaged |= {d.game_id: d for d in await self.store.damaged_untold()}
        loaded = []
        for channel_id, game_id in games:
            table = await self.read(channel_id, game_id)
            if table is not None:
                loaded.append(table)
        return loaded

    async def read(self, channel_id: int, game_id: int) -> Table | None:
        """The table of the channel's stored game ``game_id``; ``None`` when it cannot be played on (quarantined: the
        caller lets it go)."""
        self.reads += 1
        try:
            row, moves = await self._stored_game(game_id)
            return await self._restore(row, moves)
        except Damage as damage:
            await self._quarantine(game_id, channel_id, damage)
            return None

    async def _stored_game(self, game_id: int) -> tuple[GameRow, list[MoveRow]]:
        """The game's row and move log, read at one moment."""
        stored = await self.store.game_with_moves(game_id)  # a DamagedRow is a Damage
        if stored is None:
            raise Damage("log", "the game row vanished")
        return stored

    async def _restore(self, row: GameRow, moves: list[MoveRow]) -> Table:
        """The table of a stored game; :class:`Damage` if its rows cannot be played on."""
        table = stored_table(row, moves)
        if row.state is not None or table.log or row.status == "running":
            table.game = await self._rebuild(table, row.state)
        return table

    async def _rebuild(self, table: Table, snapshot: str | None) -> Game:
        """The game from its snapshot if that agrees with the seats and the move log, else replayed from
        the log (:class:`Damage` if the log cannot be replayed)."""
        try:
            moves = [r.move for r in effective_moves(table.log)]
        except ValueError as exc:
            raise Damage("log", str(exc)) from None
        if snapshot is not None:
            try:
                game = Game.from_json(snapshot)
                if [m for _, m in game.moves] == moves and list(game.names) == table.names:
                    return game
            except (ValueError, KeyError, TypeError):
                log.exception("game %d: unreadable snapshot", table.id)
        log.warning("game %d: snapshot does not match the seats and move log; replaying %d moves",
                    table.id, len(moves))
        game = self.replay(table, moves)
        try:
            await self._write(table, Change(), game=game)
        except HostError as exc:  # the snapshot is only a cache of the log: play on without it
            log.warning("game %d: could not store the replayed snapshot: %s", table.id, exc.key)
        return game

    def replay(self, table: Table, moves: list[str]) -> Game:
        """The game of the table's seats with ``moves`` played (:class:`Damage` if they cannot be)."""
        try:
            game = self._factory(table.names, table.seed, table.options.draft)
        except (ValueError, KeyError, TypeError) as exc:
            raise Damage("seats", f"no game for {len(table.seats)} seats ({type(exc).__name__})") from None
        for number, move in enumerate(moves, 1):
            try:
                game.apply(move)
            except IllegalMove:  # the engine's reason may name hidden cards: not logged
                raise Damage("log", f"standing move {number} ({move!r}) cannot be played") from None
        return game

    # ------------------------------------------------------------------ quarantine

    async def _quarantine(self, game_id: int, channel_id: int, damage: Damage) -> None:
        """Mark a game that cannot be played on as damaged (logged once), to tell its channel once."""
        try:
            marked = await self.store.mark_damaged(game_id, reason=damage.reason, detail=damage.detail,
                                                   now=self._clock())
        except StorageFailed as exc:
            log.error("game %d in channel %d cannot continue (%s) and could not be marked damaged: %s",
                      game_id, channel_id, damage, exc)
            return
        if not marked:
            return
        log.error("game %d in channel %d cannot continue and is quarantined as damaged: %s",
                  game_id, channel_id, damage)
        untold = await self.store.damaged_untold()
        self._damaged.update({d.game_id: d for d in untold if d.game_id == game_id})

    def damaged_untold(self) -> list[DamagedGame]:
        """Quarantined games whose channel has not been told yet that the game cannot continue."""
        return sorted(self._damaged.values(), key=lambda d: d.game_id)

    async def mark_damage_told(self, game_id: int) -> None:
        """Record that the channel of a quarantined game was told (raises ``host.error.storage``)."""
        with storage_refusal():
            await self.store.mark_damage_told(game_id, now=self._clock())
        self._damaged.pop(game_id, None)


def stored_table(row: GameRow, log: list[MoveRow]) -> Table:
    """The table of a stored game's row and move log, without its game (:class:`Damage` for rows it cannot read)."""
    return Table(id=row.id, channel_id=row.channel_id, guild_id=row.guild_id, opener_id=row.opener_id,
                 seats=stored_seats(row.seats), options=stored_options(row.options), seed=row.seed, status=row.status,
                 created_at=row.created_at, last_move_at=row.last_move_at, next_reminder_at=row.next_reminder_at,
                 version=row.version, log=log, parent_id=row.parent_id)


def stored_seats(data: list[Any]) -> list[Seat]:
    """The seats of a stored row; :class:`Damage` if any is not a seat."""
    if not 1 <= len(data) <= MAX_PLAYERS:
        raise Damage("seats", f"{len(data)} seats stored")
    seats = []
    for number, item in enumerate(data):
        try:
            seat = Seat.from_dict(item)
        except TypeError as exc:  # an unknown or missing key, or not an object
            raise Damage("seats", f"seat {number}: {exc}") from None
        if not isinstance(seat.name, str) or not (seat.user_id is None or isinstance(seat.user_id, int)):
            raise Damage("seats", f"seat {number}: not a name and a user id")
        seats.append(seat)
    return seats


def stored_options(data: dict[str, Any]) -> Options:
    """The options of a stored row; :class:`Damage` if they are not options of this bot."""
    try:
        options = Options.from_dict(data)
    except TypeError as exc:
        raise Damage("options", str(exc)) from None
    if options.locale not in LOCALES:
        raise Damage("options", f"unknown language {options.locale!r}")
    if options.deadline_hours not in DEADLINE_HOURS:
        raise Damage("options", f"unknown turn deadline {options.deadline_hours!r}")
    return options
