"""The host: every decision about Santa Cruz games in channels. It knows nothing of Discord.

A cog parses Discord input, calls the host, and turns its answers into messages. Users and channels
are integer ids; names are the display names the cog passes in; every refusal is a :class:`HostError`
whose ``key`` is a message-catalogue key (``i18n/locales/*/host.json``) and ``params`` its values.
Secrets (the seed, the deck, anyone's cards) leave only through :meth:`Host.view_for`, for a user's
own seat. All times are seconds since the epoch (floats, UTC).

Public API (``await`` the ``async`` ones; the answer types live in ``bot/table.py``)::

    host = Host(store, settings, clock=time.time, game_factory=..., chooser=..., executor=None)
    # executor: a bot.host.workers.WorkerPool (replaced when a worker dies), a bare executor, or None (threads)
    await host.load() -> list[TableInfo]                   # at start-up: every lobby and running game (and
                                                           # the users' languages); damaged ones quarantined
    host.damaged_untold() -> list[DamagedGame]             # quarantined games whose channel is not told yet
    await host.mark_damage_told(game_id) -> None           # right after telling the channel

    # lobby (one open game per channel); opener-only actions also accept can_manage=True
    await host.open(channel_id, guild_id, user_id, name, *, draft=False, locale=None,
                    computers=0, strength=None) -> TableInfo
    await host.join(channel_id, user_id, name) -> TableInfo
    await host.leave(channel_id, user_id) -> TableInfo     # status "abandoned" when no person is left
    await host.add_computer(channel_id, user_id, strength=None, *, can_manage=False) -> TableInfo
    await host.remove_computer(channel_id, user_id, *, can_manage=False) -> TableInfo
    await host.start(channel_id, user_id, *, can_manage=False) -> StartResult
    await host.abandon(channel_id, user_id, *, can_manage=False, name=None) -> TableInfo
    await host.rematch(channel_id, user_id, *, can_manage=False) -> TableInfo   # after game over
    # (open also takes replay=True: post an animated replay of the game at game over)

    # play
    await host.play(channel_id, user_id, move, *, interaction_id=None, game_id=None,
                    expected_seq=None) -> MoveResult
    async for result in host.run_computers(channel_id): ...      # MoveResult per computer move
    host.computer_channels() -> list[int]                  # channels whose game waits for a computer
    await host.undo(channel_id, user_id, *, interaction_id=None, game_id=None,
                    expected_seq=None) -> MoveResult
    host.move_risk(channel_id, user_id, moves) -> Risk      # what cannot be taken back (bot/host/takeback.py)
    host.undoable_by(channel_id) -> int | None             # who may take the last move back now
    await host.away(channel_id, user_id) -> SeatChange
    await host.back(channel_id, user_id) -> SeatChange
    await host.hand_over(channel_id, user_id, target_user_id, *, can_manage=False) -> SeatChange

    # reading (no database access, never raises for a missing game unless noted)
    host.info(channel_id) -> TableInfo | None              # the channel's current or last game
    host.find_game(game_id) -> TableInfo | None            # e.g. for a DM button carrying the game id
    host.games_of(user_id) -> list[TableInfo]              # running games the user is seated in
    host.seat_of(channel_id, user_id) -> int | None
    host.view_for(channel_id, user_id) -> dict             # own seat view, or public if not seated
    host.public_view(channel_id) -> dict                   # raises HostError without a started game
    host.legal_moves(channel_id, user_id, prefix="") -> list[str]   # [] unless it is their turn

    # deliveries (the outbox): every change writes the posts and DMs it owes with itself
    await host.pending_deliveries(channel_id=None) -> list[Delivery]   # in the order they were written
    await host.resume_deliveries() -> list[Delivery]       # at start-up: all pending, due now
    await host.delivered(delivery, error=None, *, message_id=None) -> None   # sent (as message_id), or given up
    await host.retry_delivery(delivery, delay, error) -> None   # a passing failure: due again after delay
    host.now() -> float

    # the archive of finished games (public facts; a game's record only once it is over)
    await host.history(guild_id, limit=10) -> list[PastGame]   # newest first
    await host.past_game(guild_id, game_id) -> PastGame    # with its final public view
    await host.game_record(guild_id, channel_id, game_id=None) -> dict   # the export: names, options,
                                                           # the deal (no seed) and the moves
    await host.replay_record(game_id) -> dict              # the same, for the game-over animation

    # timers (rows of the database, each run once by one process): a part of the host registers a handler
    host.on_timer(kind, handler)                           # handler(timer: TimerRow, now) -> outcome | None
    await host.run_due_timers(now=None) -> list[object]    # claims the due timers, runs their handlers; the
                                                           # outcomes (MoveResult, SeatChange, ...) for the adapter

    # stale tables (bot/host/stale_tables.py): lobby expiry and stale-game timers are set by open/start/every move
    await host.stale.keep_open(channel_id, user_id, game_id) -> TableInfo   # "Keep it open" (anyone seated)
    await host.stale.close_channel(channel_id, reason) -> TableInfo | None  # its channel is gone: abandoned
    await host.stale.close_guild(guild_id, reason) -> list[TableInfo]       # the bot left the server

    # vacations (bot/host/vacation.py); turn deadlines (bot/host/deadlines.py) come from open(..., deadline_hours=)
    await host.vacations.start(user_id, days, now=None) -> list[VacationChange]   # every running game, from the store
    await host.vacations.vote(game_id, user_id, seat, choice) -> VacationChange   # choice: pause | computer
    await host.vacations.end(user_id, now=None) -> list[VacationChange]           # back early, in every game

    # turn reminders (driven from the database)
    await host.due_reminders(now=None) -> list[Reminder]
    await host.mark_reminded(reminder, now=None) -> None   # right after sending (or failing to send)

    # players' history per server (guild): results and ratings are written with a game's final move
    await host.stats(guild_id, user_id) -> PlayerStats | None   # None: no finished game there
    await host.leaderboard(guild_id, user_id, by="rating", page=0) -> Leaderboard   # by rating|wins|games
    await host.forget_me(user_id) -> Forgotten             # results and ratings deleted, "former player" in games

    # each person's own settings and games (bot.host.user_settings; settings loaded at load())
    host.settings_of(user_id) -> UserSettings              # the defaults for someone who never changed any
    await host.refresh_settings() -> None                  # shared database: read again (another process's changes)
    host.quiet_until(user_id, now=None) -> float | None    # the end of their quiet hours if now is inside them
    await host.change_settings(user_id, *, time_zone=None, quiet=None, quiet_off=False, reminders=None,
                               reminder_hours=None, turn_dms=None) -> UserSettings   # held DMs re-timed with it
    await host.open_games_for(user_id) -> list[OpenGame]   # from the database: theirs to move first
    await host.games_waiting(user_id, besides=None) -> int # open games waiting for their move
    await host.turn_deadline(game_id) -> float | None      # when the current turn's time runs out (a deadline)
    await host.hold_deliveries(deliveries, until) -> None  # DMs held for the end of quiet hours
    await host.held_deliveries(user_id) -> list[Delivery]  # their held DMs, of every game
    # (reminders follow each person's settings: off, their own hours, none in their quiet hours)

    # each user's own language (en/de/fr), for the DMs they get after a restart (loaded at load())
    await host.remember_locale(user_id, locale) -> bool    # stored only when it changed; True if so
    host.locale_of(user_id) -> str | None                  # None: never seen (use the game's language)

Error keys (``HostError.key``, with its ``params``); each text says what to do instead::

    host.error.no_game             no lobby or running game in the channel
    host.error.game_exists         the channel already has a lobby or running game
    host.error.not_in_lobby        the game has started (join, start, add/remove computer)
    host.error.not_running         the game is still in its lobby
    host.error.game_over           the game is over
    host.error.not_seated          the user has no seat in the game
    host.error.already_seated      join twice
    host.error.lobby_full          (max) four seats taken (``lobby_full_computers``: one of them a computer's)
    host.error.too_few_players     (min) start with one seat
    host.error.too_many_players    (max) open with too many computer seats
    host.error.not_opener          (opener) only the opener or Manage Channels may do this
    host.error.bad_locale          (locale, choices)
    host.error.bad_strength        (strength, choices)
    host.error.no_computer         no computer seat to remove
    host.error.leave_running       leave a running game (use away)
    host.error.not_your_turn       (name) of the seat to move
    host.error.you_are_away        the computer plays this user's seat (use back)
    host.error.illegal_move        (move, reason) the engine refused the move
    host.error.already_done        this interaction id was stored already
    host.error.stale               the button's game id or seq is not the current one
    host.error.conflict            another process stored a move meanwhile (reloaded; try again)
    host.error.undo_nothing        no move to take back
    host.error.undo_not_last       not the user's move, or someone acted since
    host.error.undo_hidden         the move revealed something hidden
    host.error.already_away        away (or hand over) twice
    host.error.not_away            back without being away
    host.error.not_overdue         (name, hours) hand over before the time limit, or not their turn
    host.error.no_previous_game    rematch without a finished game
    host.error.not_over            rematch when the last game did not end normally
    host.error.storage             the database refused the write (full, locked, read-only): nothing changed
    host.error.not_a_player        (name) kick someone without a seat
    host.error.kick_self           the opener kicks themselves (leave instead)
    host.error.not_stale           "Keep it open" when the game is not waiting for it (moved, or kept open)
    host.error.paused              (name, until) a vacation pause holds the game: nobody moves
    host.error.on_vacation         the computer plays the user's seat during their vacation (use back)
    host.error.bad_deadline        (hours, choices) a turn deadline this bot does not offer
    host.error.bad_vacation_days   (min, max) a vacation of too few or too many days
    host.error.no_games_for_vacation  the user sits in no running game
    host.error.already_on_vacation    on vacation in every game already
    host.error.vote_closed         (name) the vote on that vacation is over
    host.error.not_a_voter         (name) only the other players vote
    host.error.bad_time_zone       (zone) not a time zone of the standard library's database
    host.error.bad_quiet_hours     quiet hours outside 0-23, or starting and ending at the same hour
    host.error.bad_reminder_hours  (max) a reminder delay outside 1..max hours
    bot.history.no_such_game       (id) no finished game of that id in this server
    bot.export.not_finished        (id) export of a running, lobby or abandoned game: its secrets stay
    bot.export.nothing             export without an id in a channel without a finished game

Every change is written to the database first (one transaction) and only then applied in memory, so a
write that fails changes nothing anywhere (``host.error.storage``). A stored game that cannot be played
on (unreadable seats or options, an illegal move in its log) is quarantined at :meth:`Host.load` as
``damaged`` (see :meth:`Host.damaged_untold`); every other game loads. Finished games are unloaded to
a compressed snapshot (:meth:`bot.host.table.Table.unload`); reading them works as before.

The history methods refuse with ``bot.stats.storage_failed`` (the database could not be read or written;
nothing changed) and ``bot.leaderboard.bad_by`` (by, choices).

``illegal_move``'s ``reason`` is the engine's English explanation (for logs); ``HostError.illegal`` holds the
engine's :class:`engine.IllegalMove` (code and parameters), which ``text(locale)`` words in the user's language.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import secrets
import socket
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from concurrent.futures import Executor
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import replace
from typing import Any, Final

import engine
from bot.host import deadlines, takeback
from bot.host.errors import (
    ChannelBusy,
    Damage,
    DamagedRow,
    HostError,
    MoveConflict,
    StaleGame,
    StorageFailed,
    storage_refusal,
)
from bot.host.history_store import Forgotten
from bot.host.model import (
    OPEN_STATUSES,
    UNDO,
    DamagedGame,
    GameRow,
    MoveRow,
    NewDelivery,
    TimerRow,
    effective_moves,
)
from bot.host.ratings import BOARDS, POOLS, Leaderboard, PlayerStats, SeatResult, game_results, player_stats
from bot.host.settings import AI_STRENGTHS, Settings
from bot.host.stale import LOBBY_EXPIRY, STALE_KINDS, lobby_timer, stale_timer
from bot.host.stale_tables import StaleTables
from bot.host.stores import GameStore
from bot.host.table import (
    ABANDONED_POST,
    DAY,
    HAND_DM,
    HOUR,
    MOVE_POST,
    SEAT_POST,
    START_POST,
    TURN_DM,
    Delivery,
    MoveResult,
    Options,
    PastGame,
    Reminder,
    Seat,
    SeatChange,
    StartResult,
    Table,
    TableInfo,
)
from bot.host.user_settings import (
    MAX_REMINDER_HOURS,
    OpenGame,
    UserSettings,
    in_order,
    known_time_zone,
    open_game,
    quiet_until,
)
from bot.host.vacation import Vacations
from bot.host.workers import PoolBroken, WorkerPool, as_pool
from engine import Event, Game, IllegalMove, View, parse_move
from engine.ai import choose_move
from i18n import LOCALES, t

log = logging.getLogger(__name__)

RECORD_FORMAT: Final = "santacruz-game"
"""The ``format`` of an exported game record (``santacruz replay FILE`` reads it)."""
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 4

GameFactory = Callable[[Sequence[str], int, bool], Game]
"""``(names, seed, draft) -> Game``: how a new game is set up (tests inject a small island)."""
Chooser = Callable[[View, str, int, float], str]
"""``(seat view, strength, seed, seconds) -> move``: a computer player; runs in an executor."""


TIMER_LEASE: Final = 60.0
"""Seconds a process holds a claimed timer; after that another process may run it (the first one died)."""

TimerHandler = Callable[[TimerRow, float], Awaitable[object | None]]
"""What runs when a timer is due: ``handler(timer, now)`` (see :meth:`Host.on_timer`)."""


def default_game_factory(names: Sequence[str], seed: int, draft: bool) -> Game:
    """A game on the default island."""
    return engine.new_game(names, seed, draft=draft)


def default_chooser(view: View, strength: str, seed: int, budget: float) -> str:
    """The engine's computer players (``engine.ai``)."""
    return choose_move(view, strength=strength, seed=seed, budget=budget)


def _new_seed() -> int:
    return secrets.randbits(62)


def lobby_full(seats: Sequence[Seat]) -> str:
    """The refusal of a full lobby: it suggests removing a computer seat only when there is one."""
    return "host.error.lobby_full_computers" if any(s.is_computer for s in seats) else "host.error.lobby_full"



class Host:
    """All games of one bot, one per channel; see the module docstring for the API."""

    def __init__(self, store: GameStore, settings: Settings | None = None, *,
                 clock: Callable[[], float] = time.time,
                 game_factory: GameFactory = default_game_factory,
                 chooser: Chooser = default_chooser,
                 executor: WorkerPool | Executor | None = None,
                 new_seed: Callable[[], int] = _new_seed) -> None:
        """``executor`` runs the computer players: a :class:`WorkerPool` (replaced when a worker dies) or a
        bare executor (wrapped in one); default: the loop's thread pool. A process pool needs a picklable
        ``chooser``, which :func:`default_chooser` is."""
        self.store = store
        self.settings = settings or Settings()
        self._clock = clock
        self._factory = game_factory
        self._chooser = chooser
        self.workers = as_pool(executor, name="computers")
        self._new_seed = new_seed
        self._tables: dict[int, Table] = {}
        """Channel id -> the channel's current game (or its last one, while in memory)."""
        self._locks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        """One lock per channel: every change to a channel's game happens under it."""
        self._thinking: defaultdict[int, asyncio.Semaphore] = defaultdict(lambda: asyncio.Semaphore(1))
        """One computer move thought about at a time per channel (fair to the other channels)."""
        self._user_locales: dict[int, str] = {}
        """User id -> the language of their last interaction, as stored."""
        self._damaged: dict[int, DamagedGame] = {}
        """Game id -> a quarantined game whose channel has not been told yet."""
        self._reminder_holds: dict[int, tuple[int, float]] = {}
        """Game id -> (seq, until): a reminder was sent but its mark could not be stored; none again
        for that turn before ``until``."""
        self._stale: set[int] = set()
        """Channels whose table lost a race with another process: read again before the next change."""
        self.shared = bool(getattr(store, "shared", False))
        """Whether other processes may share the database (PostgreSQL): then leases decide who does what."""
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        """This host's name in the database's leases and timer claims (unique per process and start)."""
        self._timer_handlers: dict[str, TimerHandler] = {}
        """Timer kind -> what runs when such a timer is due (see :meth:`on_timer`)."""
        self.deadlines = deadlines.Deadlines(self)
        """Turn deadlines: the warning and the computer's move when a turn runs out (``bot.host.deadlines``)."""
        self.vacations = Vacations(self)
        """Vacations: the others' vote, the pause or the computer's play, and the end (``bot.host.vacation``)."""
        self._user_settings: dict[int, UserSettings] = {}
        """User id -> their own settings, as stored (absent: the defaults)."""
        self.stale = StaleTables(self)
        """Lobby expiry, stale games ("Keep it open") and the games of deleted channels (``bot.host.stale_tables``)."""

    # ------------------------------------------------------------------ start-up

    async def load(self) -> list[TableInfo]:
        """Bring back every lobby and running game, and the users' languages, from the database (call once
        at start-up)."""
        self._user_locales = {user: locale for user, locale in (await self.store.user_locales()).items()
                              if locale in LOCALES}
        self._damaged = {d.game_id: d for d in await self.store.damaged_untold()}
        self._user_settings = await self.store.user_settings()
        loaded = []
        for channel_id, game_id, _ in await self.store.open_game_versions():
            try:
                table = await self._restore(await self._stored_game(game_id))
            except Damage as damage:
                await self._quarantine(game_id, channel_id, damage)
                continue
            self._tables[channel_id] = table
            loaded.append(table.info())
        log.info("loaded %d open games", len(loaded))
        await self.stale.arm_missing()
        return loaded

    async def _stored_game(self, game_id: int) -> GameRow:
        try:
            row = await self.store.get_game(game_id)
        except DamagedRow as exc:
            raise Damage(exc.reason, exc.detail) from None
        if row is None:
            raise Damage("log", "the game row vanished")
        return row

    async def _restore(self, row: GameRow) -> Table:
        """The table of a stored game; :class:`Damage` if its rows cannot be played on."""
        table = Table(
            id=row.id, channel_id=row.channel_id, guild_id=row.guild_id, opener_id=row.opener_id,
            seats=_stored_seats(row.seats), options=_stored_options(row.options),
            seed=row.seed, status=row.status, created_at=row.created_at, last_move_at=row.last_move_at,
            next_reminder_at=row.next_reminder_at, version=row.version, log=await self.store.moves(row.id))
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
        game = self._replay(table, moves)
        try:
            table.version = await self.store.update_game(table.id, now=self._clock(), state=game.to_json(),
                                                         expect_version=table.version)
        except (StorageFailed, StaleGame) as exc:  # the snapshot is only a cache of the log: play on without it
            log.warning("game %d: could not store the replayed snapshot: %s", table.id, exc)
        return game

    def _replay(self, table: Table, moves: list[str]) -> Game:
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

    # ------------------------------------------------------------------ helpers

    @asynccontextmanager
    async def _lock(self, channel_id: int) -> AsyncIterator[None]:
        """Every change to a channel's game happens inside: this process's lock for the channel, and the
        cached table checked against the database first (another process sharing it may have changed the
        game, or opened one). A write that still finds the game changed (a race with another process) is
        refused as stale (``host.error.stale``), and the table is read again for the next try."""
        async with self._locks[channel_id]:
            with storage_refusal():
                await self._refresh(channel_id)
            try:
                yield
            except StaleGame:
                log.info("channel %d: the game changed in another process meanwhile; reading it again", channel_id)
                self._stale.add(channel_id)
                raise HostError("host.error.stale") from None

    async def _refresh(self, channel_id: int) -> None:
        """Make the channel's table what the database holds (a cheap version check when nothing changed)."""
        stamp = await self.store.open_game_version(channel_id)
        if self._is_current(channel_id, stamp):
            return
        table = self._tables.get(channel_id)
        if stamp is not None:
            await self._reload(channel_id, stamp[0])  # changed or opened by another process
        elif table is not None:
            await self._reload(channel_id, table.id)  # ended (or changed) by another process

    def _is_current(self, channel_id: int, stamp: tuple[int, int] | None) -> bool:
        """Whether this process's copy of the channel's game is what the database holds: ``stamp`` is the
        ``(game id, version)`` of the channel's open game there (``None``: it has none)."""
        if channel_id in self._stale:
            return False
        table = self._tables.get(channel_id)
        if stamp is None:
            return table is None or table.status not in OPEN_STATUSES
        return table is not None and (table.id, table.version) == stamp

    async def _reload(self, channel_id: int, game_id: int) -> None:
        """Read one game from the database into this process's memory (finished games stay small)."""
        try:
            table = await self._restore(await self._stored_game(game_id))
        except Damage as damage:
            self._tables.pop(channel_id, None)
            await self._quarantine(game_id, channel_id, damage)
            return
        self._stale.discard(channel_id)
        if table.status not in OPEN_STATUSES:
            table.unload()
        self._tables[channel_id] = table

    async def refresh(self, channel_id: int) -> TableInfo | None:
        """The channel's game as the database has it now (loaded if this process had not; with several
        processes, the adapter calls this before reading a game it may not hold). One indexed read when this
        process's copy is current, without waiting for the channel's lock (autocomplete answers within seconds);
        the lock is taken only to read the game again.

        It never waits for a change under way: while the channel's lock is held (a move waiting for the database,
        up to ``BUSY_TIMEOUT``), the table is as that change read it from the database when it began, and that
        copy is the answer (a read-only command is acknowledged at once; the change checks again under the lock)."""
        with storage_refusal():
            stamp = await self.store.open_game_version(channel_id)
        lock = self._locks[channel_id]
        if not self._is_current(channel_id, stamp) and not lock.locked():
            async with lock:
                with storage_refusal():
                    await self._refresh(channel_id)
        return self.info(channel_id)

    async def refresh_games_of(self, user_id: int) -> None:
        """The open games the user sits in as the database has them now (a command in a DM acts on the user's
        game, which another process may have changed or opened); only those whose version differs are read."""
        with storage_refusal():
            rows = await self.store.open_games_of(user_id)
        stored = {row.channel_id: row for row in rows}
        held = {channel_id for channel_id, table in self._tables.items()
                if table.status in OPEN_STATUSES and table.seat_of(user_id) is not None}
        for channel_id in sorted(held | stored.keys()):
            table, row = self._tables.get(channel_id), stored.get(channel_id)
            if (row is None or table is None or (table.id, table.version) != (row.id, row.version)
                    or channel_id in self._stale):
                await self.refresh(channel_id)  # opened, changed or ended by another process

    async def refresh_game(self, game_id: int) -> TableInfo | None:
        """The game ``game_id`` (e.g. of a DM button) as the database has it now, loaded if need be; ``None``
        if there is no such game."""
        info = self.find_game(game_id)
        if info is not None:
            return await self.refresh(info.channel_id)
        with storage_refusal():
            row = await self.store.get_game(game_id)
        if row is None:
            return None
        info = await self.refresh(row.channel_id)
        return info if info is not None and info.game_id == game_id else None

    # for the host's parts in other modules (bot.host.stale_tables)
    @property
    def tables(self) -> dict[int, Table]:
        """Channel id -> the channel's current (or last) game in memory."""
        return self._tables

    def channel_lock(self, channel_id: int) -> AbstractAsyncContextManager[None]:
        """What every change to the channel's game happens inside (see :meth:`_lock`)."""
        return self._lock(channel_id)

    def running_table(self, channel_id: int, game_id: int | None = None) -> Table:
        """The channel's running game (of ``game_id``, if given), else the refusal that says why not."""
        return self._running(channel_id, game_id)

    def lock_of(self, channel_id: int) -> asyncio.Lock:
        """The channel's lock, for the host's parts (deadlines, vacations): every change happens under it."""
        return self._locks[channel_id]

    def mark_stale(self, channel_id: int) -> None:
        """The channel's table lost a race with another process (for the host's parts): read it again first."""
        self._stale.add(channel_id)

    def table_of_game(self, game_id: int) -> Table | None:
        """The table of a game this process has loaded (for the host's parts), else ``None``."""
        return next((t for t in self._tables.values() if t.id == game_id), None)

    async def commit_move(self, table: Table, new: Game, seat: int, user_id: int | None, text: str,
                          events: list[Event], *, seats: list[Seat] | None = None,
                          notices: Sequence[NewDelivery] = ()) -> MoveResult:
        """Store a move made for a seat by one of the host's parts (under the channel's lock; see ``_commit``);
        ``host.error.storage`` if the database refuses."""
        with storage_refusal():
            return await self._commit(table, new, seat, user_id, text, None, events, seats=seats, notices=notices)

    def _check_not_paused(self, table: Table) -> None:
        """Refuse any move while a vacation pause holds the game, saying whose vacation and until when."""
        pause = self.vacations.pause_of(table)
        if pause is not None:
            name, until = pause
            raise HostError("host.error.paused", name=name, until=int(until))

    def _open_table(self, channel_id: int) -> Table:
        table = self._tables.get(channel_id)
        if table is None or table.status not in OPEN_STATUSES:
            raise HostError("host.error.no_game")
        return table

    def _lobby(self, channel_id: int) -> Table:
        table = self._open_table(channel_id)
        if table.status != "lobby":
            raise HostError("host.error.not_in_lobby")
        return table

    def _running(self, channel_id: int, game_id: int | None = None) -> Table:
        table = self._tables.get(channel_id)
        if table is None:
            raise HostError("host.error.no_game")
        if game_id is not None and game_id != table.id:
            raise HostError("host.error.stale")
        if table.status == "lobby":
            raise HostError("host.error.not_running")
        if table.status == "over":
            raise HostError("host.error.game_over")
        if table.status != "running":
            raise HostError("host.error.no_game")
        return table

    @staticmethod
    def _seated(table: Table, user_id: int) -> int:
        seat = table.seat_of(user_id)
        if seat is None:
            raise HostError("host.error.not_seated")
        return seat

    @staticmethod
    def _check_opener(table: Table, user_id: int, can_manage: bool) -> None:
        if user_id != table.opener_id and not can_manage:
            opener = table.seat_of(table.opener_id)
            raise HostError("host.error.not_opener",
                            opener=table.seats[opener].name if opener is not None else "")

    def _strength(self, strength: str | None) -> str:
        strength = (strength or self.settings.ai_strength).lower()
        if strength not in AI_STRENGTHS:
            raise HostError("host.error.bad_strength", strength=strength, choices=", ".join(AI_STRENGTHS))
        return strength

    @staticmethod
    def _computer_seat(seats: list[Seat], strength: str, locale: str) -> Seat:
        taken = {s.name for s in seats}
        number = 1 + sum(s.is_computer for s in seats)
        while t("host.computer_name", locale, number=number) in taken:
            number += 1
        return Seat(None, t("host.computer_name", locale, number=number), strength=strength)

    async def _save_seats(self, table: Table, seats: list[Seat], **columns: Any) -> None:
        """Write the game's new seats (and other columns) in one transaction; ``host.error.storage`` if the
        database refuses. The caller assigns them to the table only after this returns."""
        with storage_refusal():
            table.version = await self.store.update_game(table.id, now=self._clock(),
                                                         seats=[s.to_dict() for s in seats],
                                                         expect_version=table.version, **columns)

    def next_reminder(self, table: Table, game: Game, now: float, seats: list[Seat] | None = None) -> float | None:
        """When the seat to move should be reminded (for the host's parts; see ``_next_reminder``)."""
        return self._next_reminder(table, game, now, seats)

    def _next_reminder(self, table: Table, game: Game, now: float,
                       seats: list[Seat] | None = None) -> float | None:
        """When the seat to move should be reminded: a delay after its turn began, at most once a day.
        ``seats``: the seats as they will be (default: the table's)."""
        seats = table.seats if seats is None else seats
        seat = game.to_move
        if seat is None or seats[seat].computer_plays:
            return None
        own = self.settings_of(seats[seat].user_id)
        if not own.reminders:
            return None
        at = now + (own.reminder_hours or table.options.reminder_hours) * HOUR
        last = seats[seat].reminded_at
        return at if last is None else max(at, last + DAY)

    async def _check_interaction(self, interaction_id: int | None) -> None:
        if interaction_id is None:
            return
        with storage_refusal():
            stored = await self.store.move_by_interaction(interaction_id)
        if stored is not None:
            raise HostError("host.error.already_done")

    # ------------------------------------------------------------------ lobby

    async def open(self, channel_id: int, guild_id: int | None, user_id: int, name: str, *,
                   draft: bool = False, locale: str | None = None, computers: int = 0,
                   strength: str | None = None, replay: bool = True, deadline_hours: int = 0) -> TableInfo:
        """Open a lobby in the channel with the opener seated and ``computers`` computer seats; ``deadline_hours``
        (one of :data:`bot.host.deadlines.DEADLINE_HOURS`, 0: none) is each person's turn deadline."""
        locale = (locale or self.settings.default_locale).lower()
        if locale not in LOCALES:
            raise HostError("host.error.bad_locale", locale=locale, choices=", ".join(LOCALES))
        strength = self._strength(strength)
        if not 0 <= computers < MAX_PLAYERS:
            raise HostError("host.error.too_many_players", max=MAX_PLAYERS)
        if deadline_hours not in deadlines.DEADLINE_HOURS:
            raise HostError("host.error.bad_deadline", hours=deadline_hours,
                            choices=", ".join(str(h) for h in deadlines.DEADLINE_HOURS))
        options = Options(draft=bool(draft), locale=locale, reminder_hours=self.settings.reminder_hours,
                          away_hours=self.settings.away_hours, replay=bool(replay), deadline_hours=deadline_hours)
        seats = [Seat(user_id, name)]
        for _ in range(computers):
            seats.append(self._computer_seat(seats, strength, locale))
        async with self._lock(channel_id):
            return await self._create(channel_id, guild_id, user_id, seats, options)

    async def _create(self, channel_id: int, guild_id: int | None, opener_id: int, seats: list[Seat],
                      options: Options) -> TableInfo:
        current = self._tables.get(channel_id)
        if current is not None and current.status in OPEN_STATUSES:
            raise HostError("host.error.game_exists")
        now = self._clock()
        seed = self._new_seed()
        try:
            with storage_refusal():
                game_id = await self.store.insert_game(
                    channel_id=channel_id, guild_id=guild_id, opener_id=opener_id,
                    seats=[s.to_dict() for s in seats], options=options.to_dict(), seed=seed, status="lobby",
                    locale=options.locale, now=now, timers=[lobby_timer(self.settings, now)])
        except ChannelBusy:
            raise HostError("host.error.game_exists") from None
        table = Table(id=game_id, channel_id=channel_id, guild_id=guild_id, opener_id=opener_id, seats=seats,
                      options=options, seed=seed, status="lobby", created_at=now)
        self._tables[channel_id] = table
        return table.info()

    async def join(self, channel_id: int, user_id: int, name: str) -> TableInfo:
        async with self._lock(channel_id):
            table = self._lobby(channel_id)
            if table.seat_of(user_id) is not None:
                raise HostError("host.error.already_seated")
            if len(table.seats) >= MAX_PLAYERS:
                raise HostError(lobby_full(table.seats), max=MAX_PLAYERS)
            seats = [*table.seats, Seat(user_id, name)]
            await self._save_seats(table, seats)
            table.seats = seats
            return table.info()

    async def leave(self, channel_id: int, user_id: int) -> TableInfo:
        """Leave a lobby. The opener's role passes to the next person; with nobody left the lobby closes."""
        async with self._lock(channel_id):
            table = self._open_table(channel_id)
            if table.status != "lobby":
                raise HostError("host.error.leave_running")
            seat = self._seated(table, user_id)
            seats = [s for i, s in enumerate(table.seats) if i != seat]
            people = [s.user_id for s in seats if s.user_id is not None]
            status = "lobby" if people else "abandoned"
            opener_id = people[0] if people and user_id == table.opener_id else table.opener_id
            await self._save_seats(table, seats, status=status, opener_id=opener_id)
            table.seats, table.status, table.opener_id = seats, status, opener_id
            return table.info()

    async def add_computer(self, channel_id: int, user_id: int, strength: str | None = None, *,
                           can_manage: bool = False) -> TableInfo:
        async with self._lock(channel_id):
            table = self._lobby(channel_id)
            self._check_opener(table, user_id, can_manage)
            strength = self._strength(strength)
            if len(table.seats) >= MAX_PLAYERS:
                raise HostError(lobby_full(table.seats), max=MAX_PLAYERS)
            seats = [*table.seats, self._computer_seat(table.seats, strength, table.options.locale)]
            await self._save_seats(table, seats)
            table.seats = seats
            return table.info()

    async def remove_computer(self, channel_id: int, user_id: int, *, can_manage: bool = False) -> TableInfo:
        """Remove the last computer seat."""
        async with self._lock(channel_id):
            table = self._lobby(channel_id)
            self._check_opener(table, user_id, can_manage)
            computers = [i for i, s in enumerate(table.seats) if s.is_computer]
            if not computers:
                raise HostError("host.error.no_computer")
            seats = [s for i, s in enumerate(table.seats) if i != computers[-1]]
            await self._save_seats(table, seats)
            table.seats = seats
            return table.info()

    async def start(self, channel_id: int, user_id: int, *, can_manage: bool = False) -> StartResult:
        async with self._lock(channel_id):
            table = self._lobby(channel_id)
            self._check_opener(table, user_id, can_manage)
            if len(table.seats) < MIN_PLAYERS:
                raise HostError("host.error.too_few_players", min=MIN_PLAYERS)
            game = self._factory(table.names, table.seed, table.options.draft)
            now = self._clock()
            reminder = self._next_reminder(table, game, now)
            to_move = game.to_move
            assert to_move is not None
            seat = table.seats[to_move]
            started = replace(table, game=game, status="running", last_move_at=now, next_reminder_at=reminder)
            result = StartResult(
                info=started.info(), view=game.view(None), to_move=to_move,
                to_move_user_id=None if seat.computer_plays else seat.user_id,
                computer_to_move=seat.computer_plays,
                dm_user_ids=tuple(s.user_id for s in table.seats if s.user_id is not None))
            await self._save_seats(table, table.seats, status="running", state=game.to_json(), last_move_at=now,
                                   next_reminder_at=reminder, deliveries=_start_deliveries(result),
                                   cancel_timers=[LOBBY_EXPIRY],
                                   timers=[stale_timer(self.settings, now),
                                           *deadlines.turn_timers(table.options, table.seats, game, 0, now)])
            table.game, table.status, table.last_move_at, table.next_reminder_at = game, "running", now, reminder
            return result

    async def abandon(self, channel_id: int, user_id: int, *, can_manage: bool = False,
                      name: str | None = None) -> TableInfo:
        """End the channel's lobby or running game without a result (opener or Manage Channels); the
        channel is told that ``name`` (default: the user's seat name) abandoned it."""
        async with self._lock(channel_id):
            table = self._open_table(channel_id)
            self._check_opener(table, user_id, can_manage)
            if name is None:
                seat = table.seat_of(user_id)
                name = table.seats[seat].name if seat is not None else ""
            notice = NewDelivery(ABANDONED_POST, table.seq, payload={"name": name, "locale": table.options.locale})
            with storage_refusal():
                table.version = await self.store.update_game(table.id, now=self._clock(), status="abandoned",
                                                             next_reminder_at=None, deliveries=[notice],
                                                             expect_version=table.version)
            table.status, table.next_reminder_at = "abandoned", None
            table.unload()
            return table.info()

    async def rematch(self, channel_id: int, user_id: int, *, can_manage: bool = False) -> TableInfo:
        """A new lobby with the finished game's players seated (computers keep their strength)."""
        async with self._lock(channel_id):
            current = self._tables.get(channel_id)
            if current is not None and current.status in OPEN_STATUSES:
                raise HostError("host.error.game_exists")
            try:
                with storage_refusal():
                    last = await self.store.latest_game(channel_id)
            except DamagedRow:  # the last game was quarantined: it did not end normally
                raise HostError("host.error.not_over") from None
            if last is None:
                raise HostError("host.error.no_previous_game")
            if last.status != "over":
                raise HostError("host.error.not_over")
            seats = [Seat(s["user_id"], s["name"], strength=s["strength"]) for s in last.seats]
            seated = any(s.user_id == user_id for s in seats)
            if not seated and not can_manage:
                raise HostError("host.error.not_seated")
            opener = user_id if seated else last.opener_id
            return await self._create(channel_id, last.guild_id, opener, seats, Options.from_dict(last.options))

    # ------------------------------------------------------------------ play

    async def play(self, channel_id: int, user_id: int, move: str, *, interaction_id: int | None = None,
                   game_id: int | None = None, expected_seq: int | None = None) -> MoveResult:
        """Make ``move`` (notation) for the user's seat.

        ``interaction_id`` makes a retry harmless (``already_done``); ``game_id`` and ``expected_seq``
        (from a button's id) refuse a click on a message the game has moved on from (``stale``).
        """
        async with self._lock(channel_id):
            await self._check_interaction(interaction_id)
            table = self._running(channel_id, game_id)
            seat = self._seated(table, user_id)
            if expected_seq is not None and expected_seq != table.seq:
                raise HostError("host.error.stale")
            self._check_not_paused(table)
            if table.seats[seat].vacation_state == "computer":
                raise HostError("host.error.on_vacation")
            if table.seats[seat].away:
                raise HostError("host.error.you_are_away")
            game = table.game
            assert game is not None
            to_move = game.to_move
            if to_move != seat:
                assert to_move is not None
                raise HostError("host.error.not_your_turn", name=table.seats[to_move].name)
            try:
                text = str(parse_move(move))
                new = game.clone()
                events = new.apply(text)
            except IllegalMove as exc:
                raise HostError("host.error.illegal_move", move=str(move).strip(), reason=str(exc),
                                illegal=exc) from None
            with storage_refusal():
                return await self._commit(table, new, seat, user_id, text, interaction_id, events)

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
        try:
            while True:
                async with self._thinking[channel_id]:
                    turn = self._computer_turn(channel_id)
                    if turn is None:
                        return
                    if not await self.hold(lease, self.computer_lease):
                        log.info("channel %d: another process plays its computers", channel_id)
                        return
                    result = await self._computer_move(channel_id, *turn)
                if result is not None:
                    yield result
        finally:
            await self.let_go(lease)

    # ------------------------------------------------------------------ several processes over one database

    @property
    def computer_lease(self) -> float:
        """Seconds a process holds a channel's computers while they think (with a shared database): twice
        ``LEASE_SECONDS``, and long enough for ten thinking times."""
        return max(2 * self.settings.lease_seconds, 10 * self.settings.ai_seconds)

    async def hold(self, lease: str, seconds: float) -> bool:
        """Whether this process may do the work named ``lease`` (a channel's outbox, its computers) for the next
        ``seconds``: always with a store of its own; with a shared database, while no other live process holds
        it (a dead holder's lease expires)."""
        if not self.shared:
            return True
        with storage_refusal():
            return await self.store.take_lease(lease, self.owner, now=self._clock(), seconds=seconds)

    async def let_go(self, lease: str) -> None:
        """Give up ``lease`` (done with the work, so that another process may take it at once)."""
        if not self.shared:
            return
        try:
            await self.store.release_lease(lease, self.owner)
        except StorageFailed as exc:  # it expires by itself
            log.warning("could not give up the lease %s (%s); it expires by itself", lease, exc)

    async def refresh_all(self) -> list[TableInfo]:
        """With a shared database: read again every open game another process changed (or opened) since this
        one last looked, and let go of games ended elsewhere; the games that changed (the sweep uses it). People's
        own settings are read again too."""
        if not self.shared:
            return []
        with storage_refusal():
            stamps = await self.store.open_game_versions()
            self._user_settings = await self.store.user_settings()  # people's settings changed in other processes
        changed = []
        open_channels = {channel_id for channel_id, _, _ in stamps}
        for channel_id, game_id, version in stamps:
            table = self._tables.get(channel_id)
            if table is None or table.id != game_id or table.version != version:
                async with self._locks[channel_id]:
                    with storage_refusal():
                        await self._refresh(channel_id)
                info = self.info(channel_id)
                if info is not None:
                    changed.append(info)
        for channel_id, table in list(self._tables.items()):
            if table.status in OPEN_STATUSES and channel_id not in open_channels:
                async with self._locks[channel_id]:
                    with storage_refusal():
                        await self._refresh(channel_id)
        return changed

    def computer_channels(self) -> list[int]:
        """The channels whose running game waits for a computer (or an away player's) move."""
        return [channel_id for channel_id in self._tables if self._computer_turn(channel_id) is not None]

    def _computer_turn(self, channel_id: int) -> tuple[Table, int] | None:
        """The table and seat when a computer is to move in the channel's running game."""
        table = self._tables.get(channel_id)
        if table is None or table.status != "running" or table.game is None or deadlines.paused(table.seats):
            return None
        seat = table.game.to_move
        if seat is None or not table.seats[seat].computer_plays:
            return None
        return table, seat

    async def _computer_move(self, channel_id: int, table: Table, seat: int) -> MoveResult | None:
        """Think about ``seat``'s move outside the lock, then store it; ``None`` if the game moved meanwhile."""
        game, seq = table.game, table.seq
        assert game is not None
        text = await self.computer_choice(table, seat)
        async with self._lock(channel_id):
            turn = self._computer_turn(channel_id)
            if turn is None or turn[0] is not table or turn[1] != seat or table.seq != seq or table.game is not game:
                log.info("game %d: the game moved while the computer thought; thinking again", table.id)
                return None
            new = game.clone()
            events = new.apply(text)
            return await self._commit(table, new, seat, None, str(parse_move(text)), None, events)

    async def computer_choice(self, table: Table, seat: int) -> str:
        """The computer's move for ``seat`` in the table's position now (thought about in the worker pool, without
        the channel's lock; a legal one: an illegal choice falls back to a random move, logged)."""
        game, seq = table.game, table.seq
        assert game is not None
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
            return await self.workers.run(self._chooser, view, strength, ai_seed, self.settings.ai_seconds,
                                          what=f"game {game_id}")
        except PoolBroken as exc:
            log.warning("%s; strength fell back from %s to random for game %d", exc, strength, game_id)
        except Exception:
            log.exception("the computer player failed; strength fell back from %s to random for game %d",
                          strength, game_id)
        return _random_move(view, ai_seed)

    async def undo(self, channel_id: int, user_id: int, *, interaction_id: int | None = None,
                   game_id: int | None = None, expected_seq: int | None = None) -> MoveResult:
        """Take back the user's last move, if it revealed nothing hidden and nobody has acted since
        (:func:`bot.host.takeback.undo_refusal`). ``expected_seq`` (an Undo button's) refuses a button whose game
        has moved on (``stale``)."""
        async with self._lock(channel_id):
            await self._check_interaction(interaction_id)
            table = self._running(channel_id, game_id)
            seat = self._seated(table, user_id)
            if expected_seq is not None and expected_seq != table.seq:
                raise HostError("host.error.stale")
            self._check_not_paused(table)
            game = table.game
            assert game is not None
            refusal = takeback.undo_refusal(table.log, game, user_id)
            if refusal is not None:
                raise HostError(refusal)
            last = effective_moves(table.log)[-1]
            new = game.undo()
            with storage_refusal():
                return await self._commit(table, new, seat, user_id, UNDO, interaction_id, [], undone=last.move)

    async def _commit(self, table: Table, new: Game, seat: int, user_id: int | None, text: str,
                      interaction_id: int | None, events: list[Event], *,
                      undone: str | None = None, seats: list[Seat] | None = None,
                      notices: Sequence[NewDelivery] = ()) -> MoveResult:
        """Store the move, the new state, the deliveries it owes (``notices`` first) and the next turn's deadline
        timers in one transaction, then adopt them; answer for the cog. ``seats``: the seats as the move leaves
        them (a deadline's hand-over), default unchanged."""
        assert table.game is not None
        now = self._clock()
        row = MoveRow(table.id, table.seq + 1, seat, user_id, text, interaction_id, now)
        status = "over" if new.is_over() else "running"
        seats = table.seats if seats is None else seats
        after = replace(table, seats=seats) if seats is not table.seats else table
        reminder = self._next_reminder(after, new, now)
        if undone is None and table.game.pending is not None:  # the last build(s) of a double move: one post
            events = self._turn_events(table, new)
        result = self._move_result(after, new, row, seat, user_id, text, events, undone, table.options.replay)
        results = self._results(table, new, now) if status == "over" else []
        columns: dict[str, Any] = {"seats": [s.to_dict() for s in seats]} if seats is not table.seats else {}
        try:
            version = await self.store.append_move(
                row, state=new.to_json(), status=status, last_move_at=now, next_reminder_at=reminder,
                deliveries=[*notices, *_move_deliveries(result, post=_owes_post(table.game, new, undone))],
                results=results, cancel_timers=[*deadlines.KINDS, *STALE_KINDS],
                timers=[*deadlines.turn_timers(table.options, seats, new, row.seq, now),
                        *([] if status == "over" else [stale_timer(self.settings, now)])],
                expect_version=table.version, **columns)
        except (MoveConflict, StaleGame):
            await self._check_interaction(interaction_id)
            log.warning("game %d: move %d was stored by someone else; reloading", table.id, row.seq)
            stored = await self.store.get_game(table.id)
            if stored is not None:
                self._tables[table.channel_id] = await self._restore(stored)
            raise HostError("host.error.conflict") from None
        table.game, table.status, table.last_move_at, table.next_reminder_at = new, status, now, reminder
        table.version = version
        table.seats = seats
        table.log.append(row)
        if status == "over":
            table.unload()  # a finished game keeps only a compressed snapshot in memory
        return result

    def _turn_events(self, table: Table, new: Game) -> list[Event]:
        """The public events of the whole turn that ``new``'s last move ends: a double move's card and its builds
        (replayed from the turn's start, a few moves a game; the engine keeps only the last move's events)."""
        moves = [m for _, m in new.moves]
        start = max(i for i, m in enumerate(moves) if parse_move(m).verb == "double")
        game = self._replay(table, moves[:start])
        events: list[Event] = []
        for move in moves[start:]:
            events.extend(game.apply(move))
        return events

    def _results(self, table: Table, final: Game, now: float) -> list[SeatResult]:
        """The results of a finished game, one per seat: the whole game is replayed for its score events (which
        name the scoring card behind their points); nothing secret remains once it is over."""
        replay = self._factory(table.names, table.seed, table.options.draft)
        events: list[Event] = []
        for _, move in final.moves:
            events.extend(replay.apply(move))
        return game_results(final, events, game_id=table.id, guild_id=table.guild_id,
                            user_ids=[s.user_id for s in table.seats], names=table.names, finished_at=now)

    @staticmethod
    def _move_result(table: Table, new: Game, row: MoveRow, seat: int, user_id: int | None, text: str,
                     events: list[Event], undone: str | None, replay: bool = False) -> MoveResult:
        """The answer for the cog (and the payload of the move's post), before the move is stored. ``events``: the
        whole turn's (they also become the view's, which the picture sums up); ``replay``: the game's options ask
        for the animated replay at game over."""
        old = table.game
        assert old is not None
        changed = tuple(s for s in range(len(table.seats)) if _secret(old, s) != _secret(new, s))
        dealt = {e.get("seat") for e in events if e["type"] in _DEALT}
        # a person's own move (or undo) changes only what they did: no DM for it, unless a card was dealt to them
        told = tuple(s for s in changed if s != seat or user_id is None or s in dealt)
        view = new.view(None)
        if undone is None:
            view["events"] = list(events)
        to_move = new.to_move
        next_seat = table.seats[to_move] if to_move is not None else None
        mover = table.seats[seat]
        over = new.is_over()
        return MoveResult(
            game_id=table.id, channel_id=table.channel_id, locale=table.options.locale, seq=row.seq,
            seat=seat, name=mover.name, user_id=mover.user_id, by_computer=user_id is None,
            move=undone if undone is not None else text, undo=undone is not None, events=events,
            view=view, to_move=to_move, to_move_name=next_seat.name if next_seat else None,
            to_move_user_id=next_seat.user_id if next_seat and not next_seat.computer_plays else None,
            computer_to_move=bool(next_seat and next_seat.computer_plays), secret_changed=changed,
            dm_user_ids=tuple(u for s in told if (u := table.seats[s].user_id) is not None),
            game_over=over, ranking=tuple(new.ranking()) if over else None, replay=over and replay,
            undoable=user_id is not None and undone is None and not over and new.can_undo())

    def move_risk(self, channel_id: int, user_id: int, moves: Sequence[str]) -> takeback.Risk:
        """What ``moves`` (the user's next, in order) would do that cannot be taken back: the adapter asks a
        confirmation naming it when ``final``, else plays at once and offers *Undo* (:mod:`bot.host.takeback`).
        Nothing is final when the moves are not the user's to make now (playing them is refused with the reason)."""
        if not self.legal_moves(channel_id, user_id):
            return takeback.Risk(tuple(moves))
        game = self._tables[channel_id].game
        assert game is not None
        return takeback.move_risk(game, moves)

    def undoable_by(self, channel_id: int) -> int | None:
        """The person who may take the channel's last move back now (the *Undo* button is theirs), or ``None``."""
        table = self._tables.get(channel_id)
        if table is None or table.status != "running" or table.game is None:
            return None
        return takeback.undo_owner(table.log, table.game)

    # ------------------------------------------------------------------ away and back

    async def away(self, channel_id: int, user_id: int) -> SeatChange:
        """Let the computer play the user's seat for the rest of the game (until :meth:`back`)."""
        async with self._lock(channel_id):
            table = self._running(channel_id)
            return await self._set_away(table, self._seated(table, user_id), True)

    async def back(self, channel_id: int, user_id: int) -> SeatChange:
        """Take one's seat back from the computer."""
        async with self._lock(channel_id):
            table = self._running(channel_id)
            return await self._set_away(table, self._seated(table, user_id), False)

    async def kick(self, channel_id: int, user_id: int, target_user_id: int, target_name: str, *,
                   can_manage: bool = False) -> TableInfo | SeatChange:
        """What ``/kick`` means, decided here: in a lobby the opener (or Manage Channels) removes a player
        (never themselves: they leave); in a running game the seat of a player who has been to move for the
        time limit goes to the computer (:meth:`hand_over`). ``target_name`` words the refusal when the target
        has no seat. Returns the lobby after the removal, or the seat change."""
        table = self._tables.get(channel_id)
        if table is not None and table.status in OPEN_STATUSES and table.seat_of(target_user_id) is None:
            raise HostError("host.error.not_a_player", name=target_name)
        if table is not None and table.status == "lobby":
            self._check_opener(table, user_id, can_manage)
            if target_user_id == user_id:
                raise HostError("host.error.kick_self")
            return await self.leave(channel_id, target_user_id)
        return await self.hand_over(channel_id, user_id, target_user_id, can_manage=can_manage)

    def may_abandon(self, channel_id: int, user_id: int, *, can_manage: bool = False) -> TableInfo:
        """The channel's open game if the user may abandon it (its opener, or Manage Channels); else a refusal.
        Asked before the confirm button is shown; :meth:`abandon` checks again when it is pressed."""
        table = self._open_table(channel_id)
        self._check_opener(table, user_id, can_manage)
        return table.info()

    async def hand_over(self, channel_id: int, user_id: int, target_user_id: int, *,
                        can_manage: bool = False) -> SeatChange:
        """The opener (or Manage Channels) hands a player's seat to the computer when that player has
        been to move for the game's time limit (``AWAY_HOURS``)."""
        async with self._lock(channel_id):
            table = self._running(channel_id)
            self._check_opener(table, user_id, can_manage)
            seat = self._seated(table, target_user_id)
            assert table.game is not None
            hours = table.options.away_hours
            since = table.last_move_at if table.last_move_at is not None else table.created_at
            if table.game.to_move != seat or self._clock() - since < hours * HOUR:
                raise HostError("host.error.not_overdue", name=table.seats[seat].name, hours=f"{hours:g}")
            return await self._set_away(table, seat, True)

    async def _set_away(self, table: Table, seat: int, away: bool) -> SeatChange:
        place = table.seats[seat]
        if place.away == away:
            raise HostError("host.error.already_away" if away else "host.error.not_away")
        user_id = place.user_id
        assert table.game is not None and user_id is not None
        seats = list(table.seats)
        seats[seat] = place = replace(place, away=away)
        changed = replace(table, seats=seats)
        reminder = self._next_reminder(table, table.game, self._clock(), seats)
        to_move = table.game.to_move
        change = SeatChange(info=replace(changed, next_reminder_at=reminder).info(), seat=seat, name=place.name,
                            user_id=user_id, away=away,
                            computer_to_move=to_move is not None and seats[to_move].computer_plays)
        owed = [NewDelivery(SEAT_POST, table.seq, payload=change.to_payload())]
        if not away and to_move == seat:
            owed.append(NewDelivery(TURN_DM, table.seq, user_id, {"start": False, "hand_changed": False}))
        timers, cancel = deadlines.retimed(table, seats, self._clock())
        await self._save_seats(table, seats, next_reminder_at=reminder, deliveries=owed, timers=timers,
                               cancel_timers=cancel)
        table.seats, table.next_reminder_at = seats, reminder
        return change

    # ------------------------------------------------------------------ reading

    def info(self, channel_id: int) -> TableInfo | None:
        table = self._tables.get(channel_id)
        return table.info() if table is not None else None

    def find_game(self, game_id: int) -> TableInfo | None:
        table = self.table_of_game(game_id)
        return table.info() if table is not None else None

    def games_of(self, user_id: int) -> list[TableInfo]:
        return [t.info() for t in self._tables.values()
                if t.status == "running" and t.seat_of(user_id) is not None]

    def seat_of(self, channel_id: int, user_id: int) -> int | None:
        table = self._tables.get(channel_id)
        return table.seat_of(user_id) if table is not None else None

    def _started(self, channel_id: int) -> tuple[Table, Game]:
        table = self._tables.get(channel_id)
        if table is None:
            raise HostError("host.error.no_game")
        game = table.current_game()
        if game is None:
            raise HostError("host.error.not_running" if table.status == "lobby" else "host.error.no_game")
        return table, game

    def public_view(self, channel_id: int) -> View:
        """What everyone may see of the channel's (current or last) game."""
        return self._started(channel_id)[1].view(None)

    def view_for(self, channel_id: int, user_id: int) -> View:
        """The user's own seat view (their cards, chips and legal moves), or the public view if not seated.

        The only way secrets reach the cog: send it to that user alone (ephemeral or DM).
        """
        table, game = self._started(channel_id)
        return game.view(table.seat_of(user_id))

    def legal_moves(self, channel_id: int, user_id: int, prefix: str = "") -> list[str]:
        """The user's legal moves now (for autocomplete and buttons): empty unless it is their turn and
        they play their seat themselves. ``prefix`` filters by the start of the notation."""
        table = self._tables.get(channel_id)
        if table is None or table.status != "running" or table.game is None:
            return []
        seat = table.seat_of(user_id)
        if seat is None or table.seats[seat].computer_plays or table.game.to_move != seat:
            return []
        prefix = prefix.strip().lower()
        return [m for m in map(str, table.game.legal_moves()) if m.lower().startswith(prefix)]

    # ------------------------------------------------------------------ the archive of finished games

    async def history(self, guild_id: int | None, limit: int = 10) -> list[PastGame]:
        """The server's last ``limit`` finished games, newest first."""
        rows = await self.store.finished_games(guild_id, limit=limit)
        links = await self.store.over_message_ids([r.id for r in rows])
        return [await self._past_game(row, links.get(row.id)) for row in rows]

    async def past_game(self, guild_id: int | None, game_id: int) -> PastGame:
        """One finished game of the server, with its final public view."""
        row = await self._finished(guild_id, game_id)
        links = await self.store.over_message_ids([row.id])
        return await self._past_game(row, links.get(row.id), with_view=True)

    async def game_record(self, guild_id: int | None, channel_id: int, game_id: int | None = None) -> dict[str, Any]:
        """The export of a finished game of the server (without ``game_id``: the channel's last game): names,
        options, the dealt set-up without the seed, and the moves. A game not over is refused: its secrets stay."""
        if game_id is None:
            last = await self.store.latest_game(channel_id)
            if last is None:
                raise HostError("bot.export.nothing")
            game_id = last.id
        row = await self.store.get_game(game_id)
        if row is None or row.guild_id != guild_id:
            raise HostError("bot.history.no_such_game", id=game_id)
        if row.status != "over":
            raise HostError("bot.export.not_finished", id=game_id)
        return await self._record(row)

    async def replay_record(self, game_id: int) -> dict[str, Any]:
        """A finished game's record (see :meth:`game_record`), for its animated replay."""
        row = await self.store.get_game(game_id)
        if row is None or row.status != "over":
            raise HostError("bot.export.not_finished", id=game_id)
        return await self._record(row)

    async def _finished(self, guild_id: int | None, game_id: int) -> GameRow:
        row = await self.store.get_game(game_id)
        if row is None or row.guild_id != guild_id or row.status != "over":
            raise HostError("bot.history.no_such_game", id=game_id)
        return row

    async def _final_game(self, row: GameRow) -> Game:
        """A finished game's final state: its snapshot, or replayed from its moves."""
        if row.state is not None:
            return Game.from_json(row.state)
        game = self._factory([s["name"] for s in row.seats], row.seed, bool(row.options.get("draft")))
        for move in effective_moves(await self.store.moves(row.id)):
            game.apply(move.move)
        return game

    async def _past_game(self, row: GameRow, over_message_id: int | None, *, with_view: bool = False) -> PastGame:
        game = await self._final_game(row)
        view = game.view(None)
        return PastGame(
            game_id=row.id, channel_id=row.channel_id, guild_id=row.guild_id,
            finished_at=row.last_move_at if row.last_move_at is not None else row.updated_at,
            names=tuple(s["name"] for s in row.seats), computers=tuple(s["user_id"] is None for s in row.seats),
            scores=tuple(p["score"] for p in view["players"]), ranking=tuple(game.ranking()),
            locale=str(row.options.get("locale", "en")), over_message_id=over_message_id,
            view=view if with_view else None)

    async def _record(self, row: GameRow) -> dict[str, Any]:
        """The seed-free record of a finished game (never call it for one that is not over)."""
        assert row.status == "over"
        names = [s["name"] for s in row.seats]
        setup = self._factory(names, row.seed, bool(row.options.get("draft"))).setup_record()
        moves = effective_moves(await self.store.moves(row.id))
        final = await self._final_game(row)
        return {
            "format": RECORD_FORMAT, "version": 1, "game_id": row.id, "names": names,
            "seats": [{"name": s["name"], "computer": s["user_id"] is None, "strength": s.get("strength")}
                      for s in row.seats],
            "options": {k: v for k, v in row.options.items() if k in ("draft", "locale", "replay")},
            "started_at": row.created_at, "finished_at": row.last_move_at,
            "setup": setup, "moves": [{"seat": m.seat, "move": m.move, "at": m.created_at} for m in moves],
            "scores": [p["score"] for p in final.view(None)["players"]], "ranking": final.ranking()}

    # ------------------------------------------------------------------ timers

    def on_timer(self, kind: str, handler: TimerHandler) -> None:
        """Run ``handler(timer, now)`` when a timer of ``kind`` is due. The handler writes what the timer
        changes with :meth:`GameStore.finish_timer` (one transaction: the timer done, the game's columns, its
        posts and new timers), then applies it in memory, and returns what the adapter must act on (a
        ``MoveResult``, a ``SeatChange``, ...) or ``None``."""
        if kind in self._timer_handlers:
            raise ValueError(f"timer kind {kind!r} has a handler already")
        self._timer_handlers[kind] = handler

    async def run_due_timers(self, now: float | None = None) -> list[object]:
        """Claim the timers due at ``now`` (each is claimed by one process; a claim of a process that died
        expires after :data:`TIMER_LEASE` seconds and another takes it over) and run their handlers, soonest
        first; returns the handlers' outcomes. One timer's failure is logged and does not stop the others; a
        storage failure leaves the timer to be claimed again when its lease ends."""
        now = self._clock() if now is None else now
        with storage_refusal():
            claimed = await self.store.claim_timers(now, owner=self.owner, lease=TIMER_LEASE)
        outcomes: list[object] = []
        for timer in claimed:
            handler = self._timer_handlers.get(timer.kind)
            if self.shared and handler is not None:  # the handler judges the game as the database has it now
                try:
                    await self.refresh(timer.channel_id)
                except HostError as exc:
                    log.warning("game %d: cannot read it for its %s timer (%s)", timer.game_id, timer.kind, exc.key)
                    continue
            if handler is None:
                log.warning("game %d: no handler for a timer of kind %r (timer %d); left for another process",
                            timer.game_id, timer.kind, timer.id)
                continue
            try:
                outcome = await handler(timer, now)
            except (StorageFailed, StaleGame, HostError) as exc:
                log.warning("game %d: the %s timer could not run (%s); it is tried again later",
                            timer.game_id, timer.kind, exc)
                continue
            except Exception:
                log.exception("game %d: the %s timer failed; it is tried again later", timer.game_id, timer.kind)
                continue
            if outcome is not None:
                outcomes.append(outcome)
        return outcomes

    # ------------------------------------------------------------------ reminders

    async def due_reminders(self, now: float | None = None) -> list[Reminder]:
        """Turn reminders to send now (one per game at most). Mark each with :meth:`mark_reminded` as soon
        as it is sent, or could not be sent (DMs closed): an unmarked reminder is returned again."""
        now = self._clock() if now is None else now
        try:
            rows = await self.store.reminders_due(now)
        except StorageFailed as exc:
            log.warning("cannot read the due reminders: %s", exc)
            return []
        due = []
        for row in rows:
            table = self._tables.get(row.channel_id)
            if (table is None or table.id != row.id or table.game is None or self._held(table, now)
                    or deadlines.paused(table.seats)):
                continue
            seat = table.game.to_move
            if seat is None or table.seats[seat].computer_plays:
                continue
            place = table.seats[seat]
            assert place.user_id is not None
            since = table.last_move_at if table.last_move_at is not None else table.created_at
            if not self._may_remind(place.user_id, since, place.reminded_at, now):
                continue
            if await self.deadlines.runs_out(table, seat, now):
                continue  # the computer makes this move in the same sweep: no reminder for a turn already lost
            due.append(Reminder(
                game_id=table.id, channel_id=table.channel_id, guild_id=table.guild_id,
                locale=table.options.locale, seq=table.seq, seat=seat, user_id=place.user_id, name=place.name,
                waiting_since=table.last_move_at if table.last_move_at is not None else table.created_at))
        return due

    def _may_remind(self, user_id: int, since: float, reminded_at: float | None, now: float) -> bool:
        """Whether the person's own settings let a reminder go now: reminders on, their own delay passed (a delay
        changed during the turn counts), and not in their quiet hours (a reminder due then waits for their end)."""
        own = self.settings_of(user_id)
        if not own.reminders or quiet_until(own, now) is not None:
            return False
        return own.reminder_hours is None or reminded_at is not None or now >= since + own.reminder_hours * HOUR

    async def mark_reminded(self, reminder: Reminder, now: float | None = None) -> bool:
        """Record that ``reminder`` was sent: the next one for this turn comes a day (or the game's delay,
        if longer) later. Does nothing if the game has moved on since.

        If the database refuses the mark, the host still sends no second reminder for this turn before
        the next one is due (it remembers that in memory) and the mark is retried with it. Returns whether
        this call recorded it (not: the game moved on, another process recorded it first, or storage failed),
        which with a shared database decides who sends it."""
        async with self._lock(reminder.channel_id):
            table = self._tables.get(reminder.channel_id)
            now = self._clock() if now is None else now
            if (table is None or table.id != reminder.game_id or table.seq != reminder.seq
                    or table.status != "running"):
                return False
            if self.shared and (table.next_reminder_at is None or table.next_reminder_at > now):
                return False  # another process recorded (and sent) this reminder first
            seats = list(table.seats)
            seats[reminder.seat] = replace(seats[reminder.seat], reminded_at=now)
            next_at = now + max(DAY, table.options.reminder_hours * HOUR)
            try:
                version = await self.store.update_game(table.id, now=now, seats=[s.to_dict() for s in seats],
                                                       next_reminder_at=next_at, expect_version=table.version)
            except StaleGame:
                return False  # another process changed the game meanwhile (and reminded, if it was still due)
            except StorageFailed as exc:
                log.warning("game %d: could not store that a reminder was sent (%s); holding the next one",
                            table.id, exc)
                self._reminder_holds[table.id] = (table.seq, next_at)
                return False
            self._reminder_holds.pop(table.id, None)
            table.seats, table.next_reminder_at, table.version = seats, next_at, version
            return True

    def _held(self, table: Table, now: float) -> bool:
        """Whether a reminder for this turn was sent but not recorded, and the next is not due yet."""
        hold = self._reminder_holds.get(table.id)
        if hold is None:
            return False
        seq, until = hold
        if seq != table.seq or now >= until:
            del self._reminder_holds[table.id]
            return False
        return True

    # ------------------------------------------------------------------ deliveries (the outbox)

    def now(self) -> float:
        """The host's clock (seconds since the epoch): the time deliveries are due by."""
        return self._clock()

    async def pending_deliveries(self, channel_id: int | None = None) -> list[Delivery]:
        """The posts and DMs not delivered yet (of one channel, or of every channel), in the order the
        changes that owe them were stored; each is due at its ``due_at``."""
        return [Delivery.from_row(r) for r in await self.store.pending_deliveries(channel_id)]

    async def resume_deliveries(self) -> list[Delivery]:
        """At start-up: every pending delivery, made due now (a backoff from before does not carry over)."""
        await self.store.deliveries_due(self._clock())
        return await self.pending_deliveries()

    async def delivered(self, delivery: Delivery, error: str | None = None, *,
                        message_id: int | None = None) -> None:
        """Record that ``delivery`` was sent (as the message ``message_id``, if known), or given up for good
        (``error`` says why). The game-over post's message id is kept for the history's links."""
        over = message_id if delivery.kind == MOVE_POST and delivery.payload.get("game_over") else None
        post = message_id if delivery.kind in (MOVE_POST, START_POST) else None
        await self.store.mark_delivered(delivery.id, now=self._clock(), error=error, over_message_id=over,
                                        post_id=post)

    async def retry_delivery(self, delivery: Delivery, delay: float, error: str) -> None:
        """``delivery`` failed for a passing reason (``error``): it is due again ``delay`` seconds from now."""
        await self.store.retry_delivery(delivery.id, due_at=self._clock() + delay, error=error)

    # ------------------------------------------------------------------ users' languages

    async def remember_locale(self, user_id: int, locale: str) -> bool:
        """Remember the language of the user's last interaction (``en``, ``de`` or ``fr``), for the DMs
        they get later, after a restart too. Writes to the database only when it changed; returns whether
        it did."""
        locale = str(locale).lower()
        if locale not in LOCALES:
            raise HostError("host.error.bad_locale", locale=locale, choices=", ".join(LOCALES))
        if self._user_locales.get(user_id) == locale:
            return False
        await self.store.set_user_locale(user_id, locale, now=self._clock())
        self._user_locales[user_id] = locale
        return True

    def locale_of(self, user_id: int) -> str | None:
        """The user's stored language, or ``None`` if the bot has not seen them interact."""
        return self._user_locales.get(user_id)

    # ------------------------------------------------------------------ people's own settings and games

    def settings_of(self, user_id: int | None) -> UserSettings:
        """A person's own settings (the defaults for someone who never changed any, or a computer seat)."""
        return self._user_settings.get(user_id, UserSettings()) if user_id is not None else UserSettings()

    async def refresh_settings(self) -> None:
        """With a shared database: people's own settings as the database has them (another process may have
        changed someone's since the last sweep), read before ``/santacruz settings`` shows or changes them, so that
        a change keeps what the other process stored. ``host.error.storage`` if they cannot be read."""
        if not self.shared:
            return
        with storage_refusal():
            self._user_settings = await self.store.user_settings()

    def quiet_until(self, user_id: int, now: float | None = None) -> float | None:
        """The end of the person's quiet hours if ``now`` is inside them, else ``None``."""
        return quiet_until(self.settings_of(user_id), self._clock() if now is None else now)

    async def change_settings(self, user_id: int, *, time_zone: str | None = None,
                              quiet: tuple[int, int] | None = None, quiet_off: bool = False,
                              reminders: bool | None = None, reminder_hours: float | None = None,
                              turn_dms: bool | None = None) -> UserSettings:
        """Change some of a person's settings (``None``: unchanged; ``quiet``: first quiet hour and the hour they
        end, local; ``quiet_off``: no quiet hours). Their held DMs are re-timed in the same transaction: due at the
        end of the quiet hours as the new settings have them (a new time zone moves it), or now.
        Refusals: ``host.error.bad_time_zone`` (zone), ``host.error.bad_quiet_hours``,
        ``host.error.bad_reminder_hours`` (max); ``host.error.storage`` if the database refuses."""
        old = self.settings_of(user_id)
        changes: dict[str, Any] = {}
        if time_zone is not None:
            name = time_zone.strip()
            if not known_time_zone(name):
                raise HostError("host.error.bad_time_zone", zone=time_zone.strip()[:64])
            changes["time_zone"] = name
        if quiet_off:
            changes.update(quiet_from=None, quiet_to=None)
        elif quiet is not None:
            start, end = quiet
            if not (0 <= start <= 23 and 0 <= end <= 23) or start == end:
                raise HostError("host.error.bad_quiet_hours")
            changes.update(quiet_from=start, quiet_to=end)
        if reminder_hours is not None:
            if not 1 <= reminder_hours <= MAX_REMINDER_HOURS:
                raise HostError("host.error.bad_reminder_hours", max=MAX_REMINDER_HOURS)
            changes["reminder_hours"] = float(reminder_hours)
        if reminders is not None:
            changes["reminders"] = bool(reminders)
        if turn_dms is not None:
            changes["turn_dms"] = bool(turn_dms)
        new = replace(old, **changes)
        if new == old:
            return old
        now = self._clock()
        with storage_refusal():
            await self.store.set_user_settings(user_id, new, now=now, held_due_at=quiet_until(new, now) or now)
        self._user_settings[user_id] = new
        return new

    async def open_games_for(self, user_id: int) -> list[OpenGame]:
        """Every open game (lobby or running) the person sits in, read from the database (games of other bot
        processes too): theirs to move first, longest waiting first. ``host.error.storage`` if it cannot be read."""
        with storage_refusal():
            rows = await self.store.open_games_of(user_id)
        return in_order([g for row in rows if (g := open_game(row, user_id)) is not None])

    async def games_waiting(self, user_id: int, *, besides: int | None = None) -> int:
        """How many open games (other than ``besides``) wait for the person's move; 0 if the database cannot say."""
        try:
            games = await self.open_games_for(user_id)
        except HostError:
            return 0
        return sum(1 for g in games if g.yours and g.game_id != besides)

    async def turn_deadline(self, game_id: int) -> float | None:
        """When the time of the game's current turn runs out (its pending deadline timer), ``None`` without one or
        when the database cannot say (a nicety beside the turn: never a refusal)."""
        try:
            with storage_refusal():
                timers = await self.store.timers(game_id)
        except HostError:
            return None
        return deadlines.runs_out_at(timers)

    async def hold_deliveries(self, deliveries: Sequence[Delivery], until: float) -> None:
        """Hold DMs for the end of their player's quiet hours: due at ``until``, marked held (one transaction)."""
        await self.store.hold_deliveries([(d.id, d.payload) for d in deliveries], due_at=until)

    async def held_deliveries(self, user_id: int) -> list[Delivery]:
        """The person's pending held DMs, of every game, in the order they were written."""
        return [Delivery.from_row(r) for r in await self.store.held_deliveries(user_id)]

    # ------------------------------------------------------------------ players' history

    async def stats(self, guild_id: int, user_id: int) -> PlayerStats | None:
        """A person's statistics and ratings in a server; ``None`` when they have finished no game there."""
        try:
            results, ratings, history = await self.store.player_history(guild_id, user_id)
        except StorageFailed as exc:
            log.warning("reading the stats of a player failed: %s", exc)
            raise HostError("bot.stats.storage_failed") from None
        line = next((history[pool] for pool in POOLS if history.get(pool)), [])
        return player_stats(user_id, results, ratings, line)

    async def leaderboard(self, guild_id: int, user_id: int, by: str = "rating", page: int = 0) -> Leaderboard:
        """One page of a server's leaderboard by ``rating``, ``wins`` or ``games``, with the caller's own row."""
        if by not in BOARDS:
            raise HostError("bot.leaderboard.bad_by", by=by, choices=", ".join(BOARDS))
        try:
            return await self.store.leaderboard(guild_id, by, page, user_id)
        except StorageFailed as exc:
            log.warning("reading a leaderboard failed: %s", exc)
            raise HostError("bot.stats.storage_failed") from None

    async def forget_me(self, user_id: int) -> Forgotten:
        """Delete the person's results, ratings and rating history, call them "former player" in finished
        games (in each game's language, their saved state too) and empty the payloads of the posts and DMs already
        sent that name them (``history_store.forget``); their moves stay. One transaction: a failure changes
        nothing."""
        former = {locale: t("bot.forget.former_player", locale) for locale in LOCALES}
        try:
            forgotten = await self.store.forget_user(user_id, former)
        except StorageFailed as exc:
            log.warning("forget-me failed: %s", exc)
            raise HostError("bot.stats.storage_failed") from None
        for table in self._tables.values():
            if table.status not in ("lobby", "running"):
                for i, seat in enumerate(table.seats):
                    if seat.user_id == user_id:
                        seat.name = former[table.options.locale]
                        if table.game is not None and i < len(table.game.names):
                            table.game.names[i] = seat.name
        return forgotten


def _owes_post(old: Game | None, new: Game, undone: str | None) -> bool:
    """Whether a move owes the channel a post: once its turn is over (a double move's card and its first build
    leave the turn open; its post comes after the last build, with the whole turn); an undo, when the move it takes
    back had its post (it ended a turn), and the adapter edits that post where it can."""
    if undone is not None:
        return old is None or old.pending is None
    return new.pending is None or new.is_over()


def _move_deliveries(result: MoveResult, *, post: bool = True) -> list[NewDelivery]:
    """What a move owes: its channel post (``post``; the game-over post carries the replay when
    :attr:`MoveResult.replay` says so), then the DMs of the hands others changed and the next player's turn DM.
    One DM at most per person: the player to move gets the turn DM, which shows their hand."""
    owed = [NewDelivery(MOVE_POST, result.seq, payload=result.to_payload())] if post else []
    if result.game_over:
        return owed
    for user_id in result.dm_user_ids:
        if user_id != result.to_move_user_id:
            owed.append(NewDelivery(HAND_DM, result.seq, user_id, {"start": False}))
    if result.to_move_user_id is not None:
        owed.append(NewDelivery(TURN_DM, result.seq, result.to_move_user_id,
                                {"start": False, "hand_changed": result.to_move_user_id in result.dm_user_ids}))
    return owed


def _start_deliveries(start: StartResult) -> list[NewDelivery]:
    """What a start owes: its channel post, then every person's hand (with controls for the first player)."""
    owed = [NewDelivery(START_POST, 0, payload=start.to_payload())]
    for user_id in start.dm_user_ids:
        kind = TURN_DM if user_id == start.to_move_user_id else HAND_DM
        owed.append(NewDelivery(kind, 0, user_id, {"start": True, "hand_changed": True}))
    return owed


def _verb_for_log(text: str) -> str:
    """The verb of a move's notation, the only part a log may show (its card may be secret); "?" if malformed."""
    try:
        return parse_move(text).verb
    except IllegalMove:
        return "?"


def _random_move(view: View, seed: int) -> str:
    """A random legal move of the seat whose ``view`` this is (the fallback of a computer player)."""
    return str(random.Random(seed).choice(view["you"]["legal_moves"]))


def _stored_seats(data: list[Any]) -> list[Seat]:
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


def _stored_options(data: dict[str, Any]) -> Options:
    """The options of a stored row; :class:`Damage` if they are not options of this bot."""
    try:
        options = Options.from_dict(data)
    except TypeError as exc:
        raise Damage("options", str(exc)) from None
    if options.locale not in LOCALES:
        raise Damage("options", f"unknown language {options.locale!r}")
    if options.deadline_hours not in deadlines.DEADLINE_HOURS:
        raise Damage("options", f"unknown turn deadline {options.deadline_hours!r}")
    return options


_DEALT: Final = frozenset({"draw"})
"""Events that give a seat a card it did not choose (the deal of round 2), even in its own move."""


def _secret(game: Game, seat: int) -> dict[str, Any]:
    """What only ``seat`` holds (scoring cards, bird chips, the card put back), to tell if it changed; where it
    may build is not part of it (that changes whenever the turn passes, and comes with the turn DM)."""
    you = game.view(seat)["you"]
    return {key: you.get(key) for key in ("scoring_cards", "bird_chips", "discarded")}
