"""The games this process holds, and the one way to change one: :class:`Games`.

``Games`` owns the cache (channel id -> :class:`bot.host.table.Table`) and one lock per channel. Tables come in from
the database when something touches their game (:attr:`Games.refresh`, :mod:`bot.host.refresh`, through
:mod:`bot.host.restore`: damaged games quarantined), read again when another process sharing the database moved it on
(a cheap version check); start-up reads only the games that owe work (:meth:`Games.owing_work`, :meth:`Games.load`);
and they leave memory when nobody touched them for a while (:attr:`Games.memory`, :mod:`bot.host.memory`). Every
change to a game happens like this::

    async with games.change(channel_id) as table:      # the channel's lock; the table as the database has it
        ...                                            # decide; a refusal raises HostError and changes nothing
        await games.write(table, Change(...), seats=..., game=...)

:meth:`Games.write` is the only write to an existing game: the store's ``apply`` writes the whole
:class:`bot.host.change.Change` in one transaction, and only after it committed is the table in memory changed
(its seats, game, columns, version and move log; a game no longer open is unloaded). Every write of a game's row
also stores whose move it then waits for (``waits_for``, :func:`bot.host.memory.waits_for`). A write's failure is
mapped to a refusal here, once, for every caller:

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
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any, Final

from bot.host.change import Change
from bot.host.errors import ChannelBusy, HostError, MoveConflict, StorageFailed, VersionConflict, storage_refusal
from bot.host.memory import ChannelLocks, Memory, waits_for
from bot.host.metrics import STORAGE_ERRORS
from bot.host.model import OPEN_STATUSES, MoveRow, NewDelivery, NewTimer, TimerRow
from bot.host.refresh import Refresh
from bot.host.restore import GameFactory, Restore
from bot.host.stores import GameStore
from bot.host.table import Seat, Table, TableInfo
from bot.host.timers import RAN_OUT
from engine import Game

log = logging.getLogger(__name__)

ARM_BATCH: Final = 200
"""Games whose missing timers one start-up transaction sets (:meth:`Games.arm_missing`)."""
OUTDATED: Final = "host.error.stale"
"""A change whose game another process changed first, refused as an outdated button or command."""
CONFLICT: Final = "host.error.conflict"
"""A move (or a vacation) that lost a race with another process: read again, try again."""
NOT_RUNNING: Final = {"lobby": "host.error.not_running", "over": "host.error.game_over"}
"""What a game that is not running says to a move (any other status: there is no game)."""
MEMORY_COLUMNS: Final = frozenset({"status", "opener_id", "last_move_at", "next_reminder_at"})
"""Columns of ``games`` that a :class:`Table` holds under the same name (seats and the game come as values)."""


class Games:
    """The games of one process, their locks, and the one write path; see the module docstring."""

    def __init__(self, store: GameStore, *, clock: Callable[[], float], factory: GameFactory, most: int = 1000,
                 memory_seconds: float = 1800.0) -> None:
        """``most`` and ``memory_seconds``: how many games stay in memory, and how long one nobody touches does
        (:mod:`bot.host.memory`)."""
        self.store = store
        self._clock = clock
        self.tables: dict[int, Table] = {}
        """Channel id -> the channel's current game (or its last one), for the games in memory."""
        self._locks = ChannelLocks()
        """One lock per channel: every change to a channel's game happens under it."""
        self.memory = Memory(self.tables, self._locks, clock=clock, most=most, seconds=memory_seconds)
        """Which games stay in memory (:mod:`bot.host.memory`)."""
        self.restore = Restore(store, self.write, clock=clock, factory=factory)
        """Stored games made tables again, and the quarantine of those that cannot be (:mod:`bot.host.restore`)."""
        self.refresh = Refresh(store, self.restore, self.memory, self._locks)
        """A game loaded when touched, and this process's copies made what the database holds
        (:mod:`bot.host.refresh`)."""
        self._unknown: set[int] = set()
        """Games loaded at start-up that were stored before ``waits_for`` was kept (written by :meth:`note_waits`)."""

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
        return self._locks.busy()

    @asynccontextmanager
    async def change(self, channel_id: int) -> AsyncIterator[Table | None]:
        """Every change to a channel's game happens inside: this process's lock for the channel, and the cached
        table checked against the database first (another process sharing it may have changed the game, or opened
        one); yields the channel's table (``None``: none in memory). ``host.error.storage`` if it cannot be read."""
        async with self._locks[channel_id]:
            await self.refresh.locked(channel_id)
            yield self.tables.get(channel_id)

    async def write(self, table: Table, change: Change, *, now: float | None = None, seats: list[Seat] | None = None,
                    game: Game | None = None, lost: str = OUTDATED) -> None:
        """Store ``change`` to the table's game (with its new ``seats`` and ``game`` state, when given) in one
        transaction at the version this process holds, then adopt it in memory; refused as the module says."""
        columns = self._columns(table, change, seats, game)
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
        self._unknown.discard(table.id)
        self.adopt(table, columns, version, seats=seats, game=game, move=change.move)

    @staticmethod
    def _columns(table: Table, change: Change, seats: list[Seat] | None, game: Game | None) -> dict[str, Any]:
        """The columns ``change`` writes with the new ``seats`` and ``game``, and (when it writes the game's row)
        whose move the game then waits for (:func:`bot.host.memory.waits_for`)."""
        columns = dict(change.columns)
        if seats is not None:
            columns["seats"] = [s.to_dict() for s in seats]
        if game is not None:
            columns["state"] = game.to_json()
        if replace(change, columns=columns).touches_game:
            columns["waits_for"] = waits_for(columns.get("status", table.status),
                                             table.seats if seats is None else seats,
                                             table.game if game is None else game)
        return columns

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
        self.refresh.lost(table.channel_id)
        if change.move is None:
            return
        await self.check_interaction(change.move.interaction_id)
        with storage_refusal():
            await self.refresh.reload(table.channel_id, table.id)

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

    async def arm_missing(self, of: str, change_for: Callable[[Table, set[str]], Change | None],
                          tables: Sequence[Table] | None = None) -> int:
        """At start-up: write ``change_for(table, the kinds of its pending timers)`` to every open game of ``tables``
        (default: every game in memory) it gives a change for (setting the ``of`` timers of games stored before they
        had them); how many were armed. They are written :data:`ARM_BATCH` games to a transaction (the first start
        after an upgrade may arm a thousand); a batch the database refuses (another process armed one of its games
        first) is written game by game. A database failure is logged: those games get them at the next start (or
        their next change)."""
        tables = [t for t in (list(self.tables.values()) if tables is None else tables) if t.status in OPEN_STATUSES]
        try:  # one read for all of them, not one per game
            pending = await self.store.pending_timer_kinds([table.id for table in tables])
        except StorageFailed as exc:
            log.warning("could not read the pending timers (%s); the %s timers are checked at the next start", exc, of)
            return 0
        owed = [(table, change) for table in tables
                if (change := change_for(table, pending.get(table.id, set()))) is not None]
        armed = 0
        for start in range(0, len(owed), ARM_BATCH):
            armed += await self._arm(of, owed[start:start + ARM_BATCH])
        if armed:
            log.info("set the %s timers of %d games stored without them", of, armed)
        return armed

    async def _arm(self, of: str, owed: list[tuple[Table, Change]]) -> int:
        """Write one batch of :meth:`arm_missing` in one transaction, else game by game; how many were armed."""
        owed = [(table, replace(change, columns=self._columns(table, change, None, None))) for table, change in owed]
        try:
            versions = await self.store.apply_all([(table.id, change, table.version) for table, change in owed],
                                                  now=self._clock())
        except (VersionConflict, MoveConflict, StorageFailed) as exc:
            log.info("setting the %s timers of %d games at once failed (%s); one game at a time", of, len(owed), exc)
        else:
            for (table, change), version in zip(owed, versions, strict=True):
                self._unknown.discard(table.id)
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

    async def create(self, table: Table, timers: Sequence[NewTimer], deliveries: Sequence[NewDelivery] = ()
                     ) -> TableInfo:
        """Store a new game (its id is then the table's) with the ``timers`` it sets and the ``deliveries`` it owes,
        and hold it; refused with ``host.error.game_exists`` when the channel has an open game (in another process
        too)."""
        self.check_free(table.channel_id)
        try:
            with storage_refusal():
                table.id = await self.store.insert_game(
                    channel_id=table.channel_id, guild_id=table.guild_id, opener_id=table.opener_id,
                    seats=table.seats_json(), options=table.options.to_dict(), seed=table.seed, status=table.status,
                    locale=table.options.locale, now=table.created_at, timers=timers, parent_id=table.parent_id,
                    deliveries=deliveries, waits_for=waits_for(table.status, table.seats, table.game))
        except ChannelBusy:
            raise HostError("host.error.game_exists") from None
        self.memory.hold(table)
        return table.info()

    # ------------------------------------------------------------------ start-up

    async def owing_work(self) -> list[tuple[int, int]]:
        """``(channel id, game id)`` of the open games that owe work whoever touches them (the database's
        ``owing_work``: waiting for a computer, a turn deadline without its timers, stored before ``waits_for``
        was kept), which start-up loads; every other game is loaded when touched."""
        owed = await self.store.owing_work(RAN_OUT)
        self._unknown |= {game_id for _, game_id, waits in owed if waits is None}
        return [(channel_id, game_id) for channel_id, game_id, _ in owed]

    async def load(self, games: Sequence[tuple[int, int]]) -> list[Table]:
        """Bring back the ``(channel id, game id)`` games from the database (damaged ones quarantined:
        :mod:`bot.host.restore`) and hold them; the tables (kept in memory whatever their number until
        ``memory.let_go``)."""
        loaded = await self.restore.load(games)
        for table in loaded:
            self.tables[table.channel_id] = table
            self.memory.touch(table.channel_id)
        return loaded

    async def note_waits(self, tables: Sequence[Table]) -> int:
        """At start-up: write whose move each game of ``tables`` stored before ``waits_for`` was kept waits for
        (once: the next start finds it); how many were written."""
        return await self.arm_missing("turn", lambda table, _: Change() if table.id in self._unknown else None, tables)

    def replay(self, table: Table, moves: list[str]) -> Game:
        """The game of the table's seats with ``moves`` played (:meth:`bot.host.restore.Restore.replay`)."""
        return self.restore.replay(table, moves)
