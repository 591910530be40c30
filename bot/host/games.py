"""The games this process holds, and the one way to change one: :class:`Games`.

``Games`` owns the cache (channel id -> :class:`bot.host.table.Table`), one lock per channel, and bringing tables
in from the database: at start-up (:meth:`Games.load`, damaged games quarantined), and whenever another process
sharing the database moved a game on (:meth:`Games.refresh` and friends: a cheap version check, the game read
again only when it changed). Every change to a game happens like this::

    async with games.change(channel_id) as table:      # the channel's lock; the table as the database has it
        ...                                            # decide; a refusal raises HostError and changes nothing
        await games.write(table, Change(...), seats=..., game=...)

:meth:`Games.write` is the only write to an existing game: the store's ``apply`` writes the whole
:class:`bot.host.change.Change` in one transaction, and only after it committed is the table in memory changed
(its seats, game, columns, version and move log; a game no longer open is unloaded). A write's failure is mapped to
a refusal here, once, for every caller:

* the database refused (``StorageFailed``): ``host.error.storage``, nothing changed anywhere;
* another process changed the game first (``VersionConflict``, ``MoveConflict``), a *conflict*: the table is read again
  before the next change, and the caller hears ``host.error.conflict`` for a move (a stored interaction:
  ``host.error.already_done``; the table is read again at once) and otherwise the key it passed as ``lost``
  (``host.error.stale`` for lobby and seat changes and "Keep it open", as those buttons were outdated;
  ``host.error.conflict`` for vacations).

A new game is stored by :meth:`Games.create` (``host.error.game_exists`` when the channel has an open one). The
parts read a game's pending timers through :meth:`Games.pending_timers` (a failure logged, never a refusal), and at
start-up :meth:`Games.arm_missing` sets the timers of games stored before they had them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any, Final

import engine
from bot.host.change import Change
from bot.host.errors import (
    ChannelBusy,
    CopyBehind,
    Damage,
    HostError,
    MoveConflict,
    StorageFailed,
    VersionConflict,
    storage_refusal,
)
from bot.host.metrics import STORAGE_ERRORS
from bot.host.model import OPEN_STATUSES, DamagedGame, GameRow, MoveRow, NewTimer, TimerRow, effective_moves
from bot.host.stores import GameStore
from bot.host.table import DEADLINE_HOURS, Options, Seat, Table, TableInfo
from engine import Game, IllegalMove
from i18n import LOCALES

log = logging.getLogger(__name__)

ARM_BATCH: Final = 200
"""Games whose missing timers one start-up transaction sets (:meth:`Games.arm_missing`)."""
MAX_PLAYERS: Final = 4
OUTDATED: Final = "host.error.stale"
"""A change whose game another process changed first, refused as an outdated button or command."""
CONFLICT: Final = "host.error.conflict"
"""A move (or a vacation) that lost a race with another process: read again, try again."""
NOT_RUNNING: Final = {"lobby": "host.error.not_running", "over": "host.error.game_over"}
"""What a game that is not running says to a move (any other status: there is no game)."""
MEMORY_COLUMNS: Final = frozenset({"status", "opener_id", "last_move_at", "next_reminder_at"})
"""Columns of ``games`` that a :class:`Table` holds under the same name (seats and the game come as values)."""

GameFactory = Callable[[Sequence[str], int, bool], Game]
"""``(names, seed, draft) -> Game``: how a new game is set up (tests inject a small island)."""


def stored_table(row: GameRow, log: list[MoveRow]) -> Table:
    """The table of a stored game's row and move log, without its game (:class:`Damage` for rows it cannot read)."""
    return Table(id=row.id, channel_id=row.channel_id, guild_id=row.guild_id, opener_id=row.opener_id,
                 seats=stored_seats(row.seats), options=stored_options(row.options), seed=row.seed, status=row.status,
                 created_at=row.created_at, last_move_at=row.last_move_at, next_reminder_at=row.next_reminder_at,
                 version=row.version, log=log, parent_id=row.parent_id)


def default_game_factory(names: Sequence[str], seed: int, draft: bool) -> Game:
    """A game on the default island."""
    return engine.new_game(names, seed, draft=draft)


class Games:
    """The games of one process, their locks, and the one write path; see the module docstring."""

    def __init__(self, store: GameStore, *, clock: Callable[[], float], factory: GameFactory) -> None:
        self.store = store
        self._clock = clock
        self._factory = factory
        self.tables: dict[int, Table] = {}
        """Channel id -> the channel's current game (or its last one, while in memory)."""
        self._locks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        """One lock per channel: every change to a channel's game happens under it."""
        self._outdated: set[int] = set()
        """Channels whose table lost a race with another process: read again before the next change."""
        self._damaged: dict[int, DamagedGame] = {}
        """Game id -> a quarantined game whose channel has not been told yet."""

    # ------------------------------------------------------------------ reading the cache

    def of_game(self, game_id: int) -> Table | None:
        """The table of a game this process has loaded, else ``None``."""
        return next((t for t in self.tables.values() if t.id == game_id), None)

    def live(self, channel_id: int, game_id: int | None = None) -> Table | None:
        """The channel's running table (of ``game_id``, if given) with its game in memory (:attr:`Table.playing`),
        else ``None``: for questions and timers, where no refusal is due."""
        table = self.tables.get(channel_id)
        if table is None or table.status != "running" or table.game is None:
            return None
        return table if game_id is None or table.id == game_id else None

    def info(self, channel_id: int) -> TableInfo | None:
        table = self.tables.get(channel_id)
        return table.info() if table is not None else None

    def find_game(self, game_id: int) -> TableInfo | None:
        table = self.of_game(game_id)
        return table.info() if table is not None else None

    def games_of(self, user_id: int) -> list[TableInfo]:
        return [t.info() for t in self.tables.values()
                if t.status == "running" and t.seat_of(user_id) is not None]

    def seat_of(self, channel_id: int, user_id: int) -> int | None:
        table = self.tables.get(channel_id)
        return table.seat_of(user_id) if table is not None else None

    def held(self, channel_id: int) -> Table:
        """The channel's table (its game, or its last one while in memory), else ``host.error.no_game``."""
        table = self.tables.get(channel_id)
        if table is None:
            raise HostError("host.error.no_game")
        return table

    def open_table(self, channel_id: int) -> Table:
        """The channel's lobby or running game, else ``host.error.no_game``."""
        table = self.held(channel_id)
        if table.status not in OPEN_STATUSES:
            raise HostError("host.error.no_game")
        return table

    def check_free(self, channel_id: int) -> None:
        """Refuse a new game (``host.error.game_exists``) where the channel has an open one in memory."""
        current = self.tables.get(channel_id)
        if current is not None and current.status in OPEN_STATUSES:
            raise HostError("host.error.game_exists")

    def lobby(self, channel_id: int) -> Table:
        """The channel's lobby, else the refusal that says why not."""
        table = self.open_table(channel_id)
        if table.status != "lobby":
            raise HostError("host.error.not_in_lobby")
        return table

    def running(self, channel_id: int, game_id: int | None = None) -> Table:
        """The channel's running game (of ``game_id``, if given), else the refusal that says why not."""
        table = self.held(channel_id)
        if game_id is not None and game_id != table.id:
            raise HostError(OUTDATED)
        if table.status != "running":
            raise HostError(NOT_RUNNING.get(table.status, "host.error.no_game"))
        return table

    def seat_at(self, channel_id: int, user_id: int, game_id: int | None = None,
                expected_seq: int | None = None) -> tuple[Table, int]:
        """The channel's running game and the user's seat in it, else the refusal that says why not: no running
        game, not seated, or a button of another game or position (``game_id``, ``expected_seq``) is outdated."""
        table = self.running(channel_id, game_id)
        seat = self.seated(table, user_id)
        if expected_seq is not None and expected_seq != table.seq:
            raise HostError(OUTDATED)
        return table, seat

    @staticmethod
    def seated(table: Table, user_id: int) -> int:
        seat = table.seat_of(user_id)
        if seat is None:
            raise HostError("host.error.not_seated")
        return seat

    @staticmethod
    def check_turn(table: Table, seat: int, refusal: str = "host.error.not_your_turn") -> Game:
        """The table's running game if ``seat``'s person is to move in it themselves: else ``on_vacation`` (the
        computer plays for them), ``you_are_away``, or ``refusal`` naming who is to move."""
        if table.seats[seat].vacation_state == "computer":
            raise HostError("host.error.on_vacation")
        if table.seats[seat].away:
            raise HostError("host.error.you_are_away")
        game = table.playing
        if game.to_move != seat:
            assert game.to_move is not None  # a running game always has someone to move
            raise HostError(refusal, name=table.seats[game.to_move].name)
        return game

    @staticmethod
    def check_opener(table: Table, user_id: int, can_manage: bool) -> None:
        if user_id != table.opener_id and not can_manage:
            opener = table.seat_of(table.opener_id)
            raise HostError("host.error.not_opener",
                            opener=table.seats[opener].name if opener is not None else "")

    def started(self, channel_id: int) -> tuple[Table, Game]:
        table = self.held(channel_id)
        game = table.current_game()
        if game is None:
            raise HostError("host.error.not_running" if table.status == "lobby" else "host.error.no_game")
        return table, game

    # ------------------------------------------------------------------ changing a game

    def busy_locks(self) -> list[asyncio.Lock]:
        """The locks of the channels whose game is being changed now."""
        return [lock for lock in self._locks.values() if lock.locked()]

    @asynccontextmanager
    async def change(self, channel_id: int) -> AsyncIterator[Table | None]:
        """Every change to a channel's game happens inside: this process's lock for the channel, and the cached
        table checked against the database first (another process sharing it may have changed the game, or opened
        one); yields the channel's table (``None``: none in memory). ``host.error.storage`` if it cannot be read."""
        async with self._locks[channel_id]:
            await self._refresh_or_refuse(channel_id)
            yield self.tables.get(channel_id)

    async def write(self, table: Table, change: Change, *, now: float | None = None, seats: list[Seat] | None = None,
                    game: Game | None = None, lost: str = OUTDATED) -> None:
        """Store ``change`` to the table's game (with its new ``seats`` and ``game`` state, when given) in one
        transaction at the version this process holds, then adopt it in memory; refused as the module says."""
        columns = dict(change.columns)
        if seats is not None:
            columns["seats"] = [s.to_dict() for s in seats]
        if game is not None:
            columns["state"] = game.to_json()
        now = self._clock() if now is None else now
        try:
            version = await self.store.apply(table.id, replace(change, columns=columns), now=now,
                                             expect_version=table.version)
        except (VersionConflict, MoveConflict):
            await self._lost(table, change)
            raise HostError(CONFLICT if change.move is not None else lost) from None
        except StorageFailed as exc:
            log.warning("game %d: the change could not be stored: %s", table.id, exc)
            STORAGE_ERRORS.labels("writing a change").inc()
            raise HostError("host.error.storage") from None
        self.adopt(table, columns, version, seats=seats, game=game, move=change.move)

    @staticmethod
    def adopt(table: Table, columns: Mapping[str, Any], version: int | None, *, seats: list[Seat] | None = None,
              game: Game | None = None, move: MoveRow | None = None) -> None:
        """Make the table in memory what the database now holds after a committed write (its ``columns``, the new
        ``version`` if the row changed, the ``move`` appended to its log); a game no longer open is unloaded."""
        if version is not None:
            table.version = version
        if seats is not None:
            table.seats = seats
        if game is not None:
            table.game = game
        for name in MEMORY_COLUMNS & columns.keys():
            setattr(table, name, columns[name])
        if move is not None:
            table.log.append(move)
        if table.status not in OPEN_STATUSES:
            table.unload()  # a finished game keeps only a compressed snapshot in memory

    async def _lost(self, table: Table, change: Change) -> None:
        """Another process changed the game first: read it again (at once for a move, whose interaction may be
        stored already: ``host.error.already_done``), else before the next change."""
        log.info("channel %d: the game changed in another process meanwhile; reading it again", table.channel_id)
        self._outdated.add(table.channel_id)
        if change.move is None:
            return
        await self.check_interaction(change.move.interaction_id)
        with storage_refusal():
            await self._reload(table.channel_id, table.id)

    async def check_interaction(self, interaction_id: int | None) -> None:
        """Refuse an interaction whose move is stored already (``host.error.already_done``)."""
        if interaction_id is None:
            return
        with storage_refusal():
            stored = await self.store.move_by_interaction(interaction_id)
        if stored is not None:
            raise HostError("host.error.already_done")

    async def finish_timer(self, game_id: int, timer_id: int, now: float) -> None:
        """Mark a timer whose game moved on as done (another process may have done so: nothing to do then)."""
        with contextlib.suppress(VersionConflict):
            await self.store.apply(game_id, Change(timer=timer_id), now=now)

    async def pending_timers(self, game_id: int, of: str) -> list[TimerRow] | None:
        """The game's pending timers, soonest first; ``None`` when the database cannot say (logged, ``of`` naming
        the timers wanted): reading them is a nicety, never a refusal."""
        try:
            return await self.store.timers(game_id)
        except StorageFailed as exc:
            log.warning("game %d: cannot read its %s timers (%s)", game_id, of, exc)
            return None

    async def arm_missing(self, of: str, change_for: Callable[[Table, set[str]], Change | None]) -> int:
        """At start-up: write ``change_for(table, the kinds of its pending timers)`` to every loaded open game it
        gives a change for (setting the ``of`` timers of games stored before they had them); how many were armed.
        They are written :data:`ARM_BATCH` games to a transaction (the first start after an upgrade may arm a
        thousand); a batch the database refuses (another process armed one of its games first) is written game by
        game. A database failure is logged: those games get them at the next start (or their next change)."""
        try:
            pending = await self.store.pending_timer_kinds()  # one read for every game, not one per game
        except StorageFailed as exc:
            log.warning("could not read the pending timers (%s); the %s timers are checked at the next start", exc, of)
            return 0
        owed = [(table, change) for table in list(self.tables.values()) if table.status in OPEN_STATUSES
                and (change := change_for(table, pending.get(table.id, set()))) is not None]
        armed = 0
        for start in range(0, len(owed), ARM_BATCH):
            armed += await self._arm(of, owed[start:start + ARM_BATCH])
        if armed:
            log.info("set the %s timers of %d games stored without them", of, armed)
        return armed

    async def _arm(self, of: str, owed: list[tuple[Table, Change]]) -> int:
        """Write one batch of :meth:`arm_missing` in one transaction, else game by game; how many were armed."""
        try:
            versions = await self.store.apply_all([(table.id, change, table.version) for table, change in owed],
                                                  now=self._clock())
        except (VersionConflict, MoveConflict, StorageFailed) as exc:
            log.info("setting the %s timers of %d games at once failed (%s); one game at a time", of, len(owed), exc)
        else:
            for (table, change), version in zip(owed, versions, strict=True):
                self.adopt(table, change.columns, version)
            return len(owed)
        armed = 0
        for table, change in owed:
            try:
                await self.write(table, change)
            except HostError as exc:
                log.warning("game %d: could not set its %s timers (%s); trying again at the next start",
                            table.id, of, exc)
                continue
            armed += 1
        return armed

    async def create(self, table: Table, timers: Sequence[NewTimer]) -> TableInfo:
        """Store a new game (its id is then the table's) with the ``timers`` it sets, and hold it; refused with
        ``host.error.game_exists`` when the channel has an open game (in another process too)."""
        self.check_free(table.channel_id)
        try:
            with storage_refusal():
                table.id = await self.store.insert_game(
                    channel_id=table.channel_id, guild_id=table.guild_id, opener_id=table.opener_id,
                    seats=table.seats_json(), options=table.options.to_dict(), seed=table.seed, status=table.status,
                    locale=table.options.locale, now=table.created_at, timers=timers, parent_id=table.parent_id)
        except ChannelBusy:
            raise HostError("host.error.game_exists") from None
        self.tables[table.channel_id] = table
        return table.info()

    # ------------------------------------------------------------------ start-up and quarantine

    async def load(self) -> list[TableInfo]:
        """Bring back every lobby and running game from the database (damaged ones quarantined)."""
        self._damaged = {d.game_id: d for d in await self.store.damaged_untold()}
        loaded = []
        for channel_id, game_id, _ in await self.store.open_game_versions():
            table = await self._read(channel_id, game_id)
            if table is not None:
                self.tables[channel_id] = table
                loaded.append(table.info())
        return loaded

    async def _read(self, channel_id: int, game_id: int) -> Table | None:
        """The table of a stored game; ``None`` when it cannot be played on (it leaves memory, quarantined)."""
        try:
            return await self._restore(*await self._stored_game(game_id))
        except Damage as damage:
            self.tables.pop(channel_id, None)
            await self._quarantine(game_id, channel_id, damage)
            return None

    async def _stored_game(self, game_id: int) -> tuple[GameRow, list[MoveRow]]:
        """The game's row and move log, read at one moment."""
        stored = await self.store.game_with_moves(game_id)  # a DamagedRow is a Damage
        if stored is None:
            raise Damage("log", "the game row vanished")
        return stored

    async def _restore(self, row: GameRow, log: list[MoveRow]) -> Table:
        """The table of a stored game; :class:`Damage` if its rows cannot be played on."""
        table = stored_table(row, log)
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
            await self.write(table, Change({"state": game.to_json()}))
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

    # ------------------------------------------------------------------ another process's changes

    async def _refresh(self, channel_id: int) -> None:
        """Make the channel's table what the database holds (a cheap version check when nothing changed)."""
        stamp = await self.store.open_game_version(channel_id)
        if self._is_current(channel_id, stamp):
            return
        table = self.tables.get(channel_id)
        if stamp is not None:
            await self._reload(channel_id, stamp[0])  # changed or opened by another process
        elif table is not None:
            await self._reload(channel_id, table.id)  # ended (or changed) by another process

    def _is_current(self, channel_id: int, stamp: tuple[int, int] | None) -> bool:
        """Whether this process's copy of the game is the database's: ``stamp``, its open game's (id, version)."""
        if channel_id in self._outdated:
            return False
        table = self.tables.get(channel_id)
        if stamp is None:
            return table is None or table.status not in OPEN_STATUSES
        return table is not None and (table.id, table.version) == stamp

    async def _reload(self, channel_id: int, game_id: int) -> None:
        """Read one game from the database into this process's memory (finished games stay small)."""
        table = await self._read(channel_id, game_id)
        if table is None:
            return
        self._outdated.discard(channel_id)
        if table.status not in OPEN_STATUSES:
            table.unload()
        self.tables[channel_id] = table

    async def refresh(self, channel_id: int, *, wait: float = 0.0, strict: bool = False) -> TableInfo | None:
        """The channel's game as the database has it now (see :meth:`bot.host.host.Host.refresh`): one indexed read
        when this process's copy is current. A change (or another reading) holding the lock is waited for up to
        ``wait`` seconds, then the game is read again; past that, the copy as it is is the answer (the change checks
        again under the lock), or with ``strict`` :class:`CopyBehind` (for a caller deciding what cannot be undone)."""
        with storage_refusal():
            stamp = await self.store.open_game_version(channel_id)
        if self._is_current(channel_id, stamp):
            return self.info(channel_id)
        lock = self._locks[channel_id]
        if not lock.locked():
            await self._refresh_locked(channel_id)
            return self.info(channel_id)
        with contextlib.suppress(TimeoutError):
            if wait > 0:
                await asyncio.wait_for(lock.acquire(), wait)
                try:
                    await self._refresh_or_refuse(channel_id)
                finally:
                    lock.release()
                return self.info(channel_id)
        if strict:
            raise CopyBehind(f"channel {channel_id}: a change under way here kept its game's copy behind for {wait} s")
        return self.info(channel_id)

    async def refresh_games_of(self, user_id: int, *, wait: float = 0.0) -> None:
        """The open games the user sits in as the database has them now; only those whose version differs are
        read (changes under way waited for as :meth:`refresh` says, ``wait`` seconds for all of them together)."""
        with storage_refusal():
            rows = await self.store.open_games_of(user_id)
        stored = {row.channel_id: row for row in rows}
        held = {channel_id for channel_id, table in self.tables.items()
                if table.status in OPEN_STATUSES and table.seat_of(user_id) is not None}
        clock = asyncio.get_running_loop().time
        until = clock() + wait
        for channel_id in sorted(held | stored.keys()):
            table, row = self.tables.get(channel_id), stored.get(channel_id)
            if (row is None or table is None or (table.id, table.version) != (row.id, row.version)
                    or channel_id in self._outdated):  # opened, changed or ended by another process
                await self.refresh(channel_id, wait=max(0.0, until - clock()))

    async def refresh_game(self, game_id: int, *, wait: float = 0.0, strict: bool = False) -> TableInfo | None:
        """The game ``game_id`` as the database has it now (as :meth:`refresh` says), loaded if need be, or ``None``."""
        table = self.of_game(game_id)
        if table is not None:
            return await self.refresh(table.channel_id, wait=wait, strict=strict)
        with storage_refusal():
            row = await self.store.get_game(game_id)
        if row is None:
            return None
        info = await self.refresh(row.channel_id, wait=wait, strict=strict)
        return info if info is not None and info.game_id == game_id else None

    async def refresh_all(self, stamps: list[tuple[int, int, int]]) -> list[TableInfo]:
        """Read again every open game whose ``(channel, game, version)`` stamp differs from this process's copy, and
        let go of games ended elsewhere; the games that changed."""
        changed = []
        open_channels = {channel_id for channel_id, _, _ in stamps}
        for channel_id, game_id, version in stamps:
            table = self.tables.get(channel_id)
            if table is None or table.id != game_id or table.version != version:
                await self._refresh_locked(channel_id)
                info = self.info(channel_id)
                if info is not None:
                    changed.append(info)
        for channel_id, table in list(self.tables.items()):
            if table.status in OPEN_STATUSES and channel_id not in open_channels:
                await self._refresh_locked(channel_id)
        return changed

    async def _refresh_locked(self, channel_id: int) -> None:
        """:meth:`_refresh` under the channel's lock."""
        async with self._locks[channel_id]:
            await self._refresh_or_refuse(channel_id)

    async def _refresh_or_refuse(self, channel_id: int) -> None:
        """:meth:`_refresh`; ``host.error.storage`` if the database cannot be read."""
        with storage_refusal():
            await self._refresh(channel_id)


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
