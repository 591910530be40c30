"""The host: every decision about Santa Cruz games in channels. It knows nothing of Discord.

:class:`Host` is the facade the adapter uses: it builds the host's parts and hands each call to the part that decides it
(see README's layout), each an attribute named after its module: ``games`` (the games in memory, their locks, the one
write path), ``lobby``, ``playing`` (``bot.host.play``), ``computers`` (and leases), ``reminders``, ``deadlines``,
``vacations``, ``takeovers``, ``stale`` (``bot.host.idle_tables``: idle tables and gone channels; the attribute keeps
its documented name), ``outbox``, ``archive``, ``people`` (languages, own settings, forget-me) and ``web`` (the games'
web pages); ``schedule``
(``bot.host.timers``) runs the timers of them all. The parts take ``Games``, the schedule and each other, never the
host.

A cog parses Discord input, calls the host (or a part, e.g. ``host.takeovers.may_confirm``), and turns its answers
into messages. Users and channels are integer ids; names are the display names the cog passes in; every refusal is a
:class:`HostError` whose ``key`` is a message-catalogue key (``i18n/locales/*/host.json``) and ``params`` its values.
Secrets (the seed, the deck, anyone's cards) leave only through :meth:`Host.view_for`, for a user's
own seat. All times are seconds since the epoch (floats, UTC).

Each method of :class:`Host` hands its call to one part, whose method of the same name says what it decides and
what it answers (README, "Where each decision lives"); the answer types live in ``bot/host/table.py``. Refusals
are :class:`HostError`; their keys, and what each text tells the player to do instead, are the catalogue
``i18n/locales/en/host.json`` (the history methods add ``bot.stats.storage_failed`` and ``bot.leaderboard.bad_by``,
the export ``bot.export.*``).

Every change is written to the database first (one transaction) and only then applied in memory, so a
write that fails changes nothing anywhere (``host.error.storage``): all of them go through
:meth:`bot.host.games.Games.write`, which also decides once what a lost race with another process is called.
A stored game that cannot be played
on (unreadable seats or options, an illegal move in its log) is quarantined at :meth:`Host.load` as
``damaged`` (see :meth:`Host.damaged_untold`); every other game loads. Finished games are unloaded to
a compressed snapshot (:meth:`bot.host.table.Table.unload`); reading them works as before.

``illegal_move``'s ``reason`` is the engine's English explanation (for logs); ``HostError.illegal`` holds the
engine's :class:`engine.IllegalMove` (code and parameters), which ``text(locale)`` words in the user's language.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import time
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import Executor
from contextlib import AbstractAsyncContextManager
from typing import Any

from bot.host.archive import RECORD_FORMAT as RECORD_FORMAT
from bot.host.archive import Archive
from bot.host.computers import Chooser as Chooser
from bot.host.computers import Computers
from bot.host.computers import default_chooser as default_chooser
from bot.host.deadlines import Deadlines
from bot.host.errors import HostError as HostError
from bot.host.errors import storage_refusal
from bot.host.games import Games
from bot.host.health import readiness, settle
from bot.host.hints import Coach, HintAnswer, Hints
from bot.host.hints import coach as default_coach
from bot.host.history_store import Forgotten, TurnSpeed
from bot.host.idle_tables import IdleTables
from bot.host.lobby import Lobby, new_seed
from bot.host.lobby import lobby_full as lobby_full
from bot.host.model import DamagedGame
from bot.host.outbox import Outbox, Step
from bot.host.people import People
from bot.host.play import Play
from bot.host.ratings import Leaderboard, PlayerStats
from bot.host.reminders import Reminders
from bot.host.restore import GameFactory as GameFactory
from bot.host.restore import default_game_factory as default_game_factory
from bot.host.settings import Settings
from bot.host.stores import GameStore
from bot.host.table import (
    Delivery,
    MoveResult,
    PastGame,
    Reminder,
    SeatChange,
    StartResult,
    Table,
    TableInfo,
)
from bot.host.takeback import Risk
from bot.host.takeover import TakeoverChange, Takeovers
from bot.host.timers import Schedule, TimerHandler
from bot.host.user_settings import OpenGame, UserSettings
from bot.host.vacation import Vacations
from bot.host.web import Web
from bot.host.workers import WorkerPool, as_pool
from engine import View

log = logging.getLogger(__name__)


class Host:
    """All games of one bot, one per channel; see the module docstring for the API. Every method hands the call to
    the part that decides it."""

    def __init__(self, store: GameStore, settings: Settings | None = None, *,
                 clock: Callable[[], float] = time.time,
                 game_factory: GameFactory = default_game_factory,
                 chooser: Chooser = default_chooser,
                 executor: WorkerPool | Executor | None = None,
                 new_seed: Callable[[], int] = new_seed,
                 coach: Coach = default_coach) -> None:
        """``executor`` runs the computer players and the coach: a :class:`WorkerPool` (replaced when a worker dies)
        or a bare executor (wrapped in one); default: the loop's thread pool. A process pool needs a picklable
        ``chooser`` and ``coach``, which :func:`default_chooser` and :func:`bot.host.hints.coach` are."""
        self.store = store
        self.settings = settings = settings or Settings()
        self._clock = clock
        self.workers = as_pool(executor, name="computers")
        self.shared = shared = bool(getattr(store, "shared", False))
        """Whether other processes may share the database (PostgreSQL): then leases decide who does what."""
        self.owner = owner = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        """This host's name in the database's leases and timer claims (unique per process and start)."""
        self.games = games = Games(store, clock=clock, factory=game_factory)
        self._tables = games.tables
        self.schedule = schedule = Schedule(store, games.refresh.channel, owner=owner, shared=shared, clock=clock)
        self.people = People(store, games, clock=clock, shared=shared)
        self.reminders = reminders = Reminders(games, schedule, self.people, clock=clock)
        self.playing = play = Play(games, reminders, settings, clock=clock, factory=game_factory,
                                          settings_of=self.people.settings_of)
        self.computers = Computers(store, games, play, settings, self.workers, chooser=chooser, owner=owner,
                                   shared=shared, clock=clock)
        self.lobby = Lobby(games, play, reminders, settings, clock=clock, factory=game_factory, new_seed=new_seed)
        self.deadlines = Deadlines(games, schedule, choose=self.computers.choice, commit=play.commit)
        """Turn deadlines: the warning and the computer's move when a turn runs out (``bot.host.deadlines``)."""
        self.takeovers = Takeovers(games, schedule, reminders, clock=clock)
        """Someone new taking over a seat the computer plays for someone who left it (``bot.host.takeover``)."""
        self.vacations = Vacations(games, schedule, reminders, clock=clock)
        """Vacations: the others' vote, the pause or the computer's play, and the end (``bot.host.vacation``)."""
        self.stale = IdleTables(games, schedule, settings, clock=clock)
        """Lobby expiry, idle games ("Keep it open") and the games of deleted channels (``bot.host.idle_tables``)."""
        self.outbox = Outbox(store, games, self.people, clock=clock)
        self.archive = Archive(store, factory=game_factory)
        self.hints = Hints(games, play, settings, self.workers, coach=coach)
        """The coach's advice on one's turn, in a table with hints on (``bot.host.hints``)."""
        self.web = Web(store, games, settings, self.hints, clock=clock, factory=game_factory)
        """The games' web pages: tokens, links, signed links to a seat's own view, what each shows
        (``bot.host.web``; the server is ``bot.web``)."""

    # ------------------------------------------------------------------ start-up and reading again

    async def load(self) -> list[TableInfo]:
        """Bring back every lobby and running game, and the users' languages, from the database (call once
        at start-up)."""
        await self.people.load()
        loaded = await self.games.load()
        log.info("loaded %d open games", len(loaded))
        await self.stale.arm_missing()
        await self.reminders.arm_missing()
        await self.deadlines.arm_missing()
        return loaded

    def damaged_untold(self) -> list[DamagedGame]:
        return self.games.restore.damaged_untold()

    async def mark_damage_told(self, game_id: int) -> None:
        await self.games.restore.mark_damage_told(game_id)

    async def refresh(self, channel_id: int, *, wait: float = 0.0) -> TableInfo | None:
        """The channel's game as the database has it now (``bot.host.games.Games.refresh``); a change under way in
        this process is waited for up to ``wait`` seconds (the adapter's: before what it decides from the copy)."""
        return await self.games.refresh.channel(channel_id, wait=wait)

    async def refresh_games_of(self, user_id: int, *, wait: float = 0.0) -> None:
        await self.games.refresh.games_of(user_id, wait=wait)

    async def refresh_game(self, game_id: int, *, wait: float = 0.0, strict: bool = False) -> TableInfo | None:
        return await self.games.refresh.game(game_id, wait=wait, strict=strict)

    async def refresh_all(self) -> list[TableInfo]:
        """With a shared database: read again every open game another process changed (or opened) since this
        one last looked, and let go of games ended elsewhere; the games that changed (the sweep uses it). People's
        own settings are read again too."""
        if not self.shared:
            return []
        with storage_refusal():
            stamps = await self.store.open_game_versions()
            await self.people.reload_settings()  # people's settings changed in other processes
        return await self.games.refresh.changed(stamps)

    @property
    def tables(self) -> dict[int, Table]:
        """Channel id -> the channel's current (or last) game in memory."""
        return self.games.tables

    # ------------------------------------------------------------------ lobby (bot.host.lobby)

    async def open(self, channel_id: int, guild_id: int | None, user_id: int, name: str, *, draft: bool = False,
                   locale: str | None = None, computers: int = 0, strength: str | None = None, replay: bool = True,
                   deadline_hours: int = 0, hints: bool = False, parent_id: int | None = None,
                   web: bool = True) -> TableInfo:
        return await self.lobby.open(channel_id, guild_id, user_id, name, draft=draft, locale=locale,
                                     computers=computers, strength=strength, replay=replay,
                                     deadline_hours=deadline_hours, hints=hints, parent_id=parent_id, web=web)

    async def games_in(self, parent_id: int, user_id: int | None = None) -> list[TableInfo]:
        return await self.lobby.games_in(parent_id, user_id)

    async def game_here(self, channel_id: int, user_id: int) -> int:
        return await self.lobby.game_here(channel_id, user_id)

    async def join(self, channel_id: int, user_id: int, name: str) -> TableInfo:
        return await self.lobby.join(channel_id, user_id, name)

    async def leave(self, channel_id: int, user_id: int) -> TableInfo:
        return await self.lobby.leave(channel_id, user_id)

    async def add_computer(self, channel_id: int, user_id: int, strength: str | None = None, *,
                           can_manage: bool = False) -> TableInfo:
        return await self.lobby.add_computer(channel_id, user_id, strength, can_manage=can_manage)

    async def remove_computer(self, channel_id: int, user_id: int, *, can_manage: bool = False) -> TableInfo:
        return await self.lobby.remove_computer(channel_id, user_id, can_manage=can_manage)

    async def start(self, channel_id: int, user_id: int, *, can_manage: bool = False) -> StartResult:
        return await self.lobby.start(channel_id, user_id, can_manage=can_manage)

    async def abandon(self, channel_id: int, user_id: int, *, can_manage: bool = False,
                      name: str | None = None) -> TableInfo:
        return await self.lobby.abandon(channel_id, user_id, can_manage=can_manage, name=name)

    async def rematch(self, channel_id: int, user_id: int, *, can_manage: bool = False) -> TableInfo:
        return await self.lobby.rematch(channel_id, user_id, can_manage=can_manage)

    async def kick(self, channel_id: int, user_id: int, target_user_id: int, target_name: str, *,
                   can_manage: bool = False) -> TableInfo | SeatChange:
        return await self.lobby.kick(channel_id, user_id, target_user_id, target_name, can_manage=can_manage)

    def may_abandon(self, channel_id: int, user_id: int, *, can_manage: bool = False) -> TableInfo:
        return self.lobby.may_abandon(channel_id, user_id, can_manage=can_manage)

    # ------------------------------------------------------------------ play (bot.host.play, bot.host.computers)

    async def play(self, channel_id: int, user_id: int, move: str, *, interaction_id: int | None = None,
                   game_id: int | None = None, expected_seq: int | None = None) -> MoveResult:
        return await self.playing.play(channel_id, user_id, move, interaction_id=interaction_id, game_id=game_id,
                                         expected_seq=expected_seq)

    async def undo(self, channel_id: int, user_id: int, *, interaction_id: int | None = None,
                   game_id: int | None = None, expected_seq: int | None = None) -> MoveResult:
        return await self.playing.undo(channel_id, user_id, interaction_id=interaction_id, game_id=game_id,
                                       expected_seq=expected_seq)

    def move_risk(self, channel_id: int, user_id: int, moves: Sequence[str]) -> Risk:
        return self.playing.move_risk(channel_id, user_id, moves)

    def undoable_by(self, channel_id: int) -> int | None:
        return self.playing.undoable_by(channel_id)

    async def away(self, channel_id: int, user_id: int) -> SeatChange:
        return await self.playing.away(channel_id, user_id)

    async def back(self, channel_id: int, user_id: int) -> SeatChange:
        return await self.playing.back(channel_id, user_id)

    async def hand_over(self, channel_id: int, user_id: int, target_user_id: int, *,
                        can_manage: bool = False) -> SeatChange:
        return await self.playing.hand_over(channel_id, user_id, target_user_id, can_manage=can_manage)

    async def hint(self, channel_id: int, user_id: int, *, game_id: int | None = None,
                   expected_seq: int | None = None) -> HintAnswer:
        return await self.hints.hint(channel_id, user_id, game_id=game_id, expected_seq=expected_seq)

    def run_computers(self, channel_id: int) -> AsyncIterator[MoveResult]:
        return self.computers.run_computers(channel_id)

    def computer_channels(self) -> list[int]:
        return self.computers.computer_channels()

    def played_elsewhere(self, channel_id: int) -> bool:
        """Whether another process was playing the channel's computers at this one's last try (shared database)."""
        return channel_id in self.computers.elsewhere

    @property
    def computer_lease(self) -> float:
        return self.computers.computer_lease

    async def settle(self, timeout: float) -> bool:
        return await settle(self.games.busy_locks(), timeout)

    async def release_all(self, *, keep: str | None = None) -> int:
        return await self.computers.release_all(keep=keep)

    async def on_work_released(self, callback: Callable[[], None]) -> None:
        await self.store.listen_released(callback)

    async def readiness(self) -> str | None:
        return await readiness(self.store, self.settings.busy_timeout)

    async def figures(self) -> dict[str, Any]:
        return await self.store.figures(self._clock())

    async def hold(self, lease: str, seconds: float) -> bool:
        return await self.computers.hold(lease, seconds)

    async def let_go(self, lease: str) -> None:
        await self.computers.let_go(lease)

    # ------------------------------------------------------------------ reading (no database access)

    def info(self, channel_id: int) -> TableInfo | None:
        return self.games.info(channel_id)

    def find_game(self, game_id: int) -> TableInfo | None:
        return self.games.find_game(game_id)

    def games_of(self, user_id: int) -> list[TableInfo]:
        return self.games.games_of(user_id)

    def seat_of(self, channel_id: int, user_id: int) -> int | None:
        return self.games.seat_of(channel_id, user_id)

    def public_view(self, channel_id: int) -> View:
        return self.playing.public_view(channel_id)

    def view_for(self, channel_id: int, user_id: int, *, since: bool = False) -> View:
        return self.playing.view_for(channel_id, user_id, since=since)

    def legal_moves(self, channel_id: int, user_id: int, prefix: str = "") -> list[str]:
        return self.playing.legal_moves(channel_id, user_id, prefix)

    # ------------------------------------------------------------------ the archive (bot.host.archive)

    async def history(self, guild_id: int | None, limit: int = 10) -> list[PastGame]:
        return await self.archive.history(guild_id, limit)

    async def past_game(self, guild_id: int | None, game_id: int) -> PastGame:
        return await self.archive.past_game(guild_id, game_id)

    async def game_record(self, guild_id: int | None, channel_id: int, game_id: int | None = None) -> dict[str, Any]:
        return await self.archive.game_record(guild_id, channel_id, game_id)

    async def replay_record(self, game_id: int) -> dict[str, Any]:
        return await self.archive.replay_record(game_id)

    async def stats(self, guild_id: int, user_id: int) -> PlayerStats | None:
        return await self.archive.stats(guild_id, user_id)

    async def leaderboard(self, guild_id: int, user_id: int, by: str = "rating", page: int = 0) -> Leaderboard:
        return await self.archive.leaderboard(guild_id, user_id, by, page)

    async def offer_seat(self, channel_id: int, user_id: int, name: str, seat: int | None = None) -> TakeoverChange:
        return await self.takeovers.offer(channel_id, user_id, name, seat)

    async def confirm_takeover(self, channel_id: int, user_id: int, seat: int, newcomer_id: int, *,
                               can_manage: bool = False) -> TakeoverChange:
        return await self.takeovers.confirm(channel_id, user_id, seat, newcomer_id, can_manage=can_manage)

    async def turn_speed(self, guild_id: int | None, user_id: int) -> TurnSpeed:
        return await self.archive.turn_speed(guild_id, user_id)

    # ------------------------------------------------------------------ timers and reminders

    def on_timer(self, kind: str, handler: TimerHandler) -> None:
        self.schedule.on(kind, handler)

    async def run_due_timers(self, now: float | None = None) -> list[object]:
        return await self.schedule.run_due(now)

    async def run_reminders(self, now: float | None = None) -> list[object]:
        return await self.reminders.run(now)

    async def due_reminders(self, now: float | None = None) -> list[Reminder]:
        return await self.reminders.due(now)

    async def mark_reminded(self, reminder: Reminder, now: float | None = None) -> bool:
        return await self.reminders.mark(reminder, now)

    # ------------------------------------------------------------------ the outbox (bot.host.outbox)

    def now(self) -> float:
        return self.outbox.now()

    async def pending_deliveries(self, channel_id: int | None = None) -> list[Delivery]:
        return await self.outbox.pending_deliveries(channel_id)

    async def resume_deliveries(self) -> list[Delivery]:
        return await self.outbox.resume_deliveries()

    async def last_post(self, game_id: int) -> tuple[int, Delivery] | None:
        return await self.outbox.last_post(game_id)

    async def delivered(self, delivery: Delivery, error: str | None = None, *,
                        message_id: int | None = None, closed: Sequence[int] = ()) -> None:
        await self.outbox.delivered(delivery, error, message_id=message_id, closed=closed)

    def left_from_before(self, delivery: Delivery) -> bool:
        return self.outbox.left_from_before(delivery)

    async def already_sent(self, delivery: Delivery, message_id: int) -> None:
        await self.outbox.already_sent(delivery, message_id)

    async def open_turn_dms(self, game_id: int, user_id: int) -> list[tuple[int, int]]:
        return await self.outbox.open_turn_dms(game_id, user_id)

    async def ended_by(self, delivery: Delivery) -> list[tuple[int, int]]:
        return await self.outbox.ended_by(delivery)

    async def missing_permission(self, channel_id: int, permission: str) -> None:
        await self.outbox.missing_permission(channel_id, permission)

    async def dm_failed(self, channel_id: int, user_id: int) -> None:
        await self.outbox.dm_failed(channel_id, user_id)

    async def retry_delivery(self, delivery: Delivery, delay: float, error: str) -> None:
        await self.outbox.retry_delivery(delivery, delay, error)

    async def turn_deadline(self, game_id: int) -> float | None:
        return await self.deadlines.turn_deadline(game_id)

    async def hold_deliveries(self, deliveries: Sequence[Delivery], until: float) -> None:
        await self.outbox.hold_deliveries(deliveries, until)

    async def held_deliveries(self, user_id: int) -> list[Delivery]:
        return await self.outbox.held_deliveries(user_id)

    def delivery_step(self, delivery: Delivery, later: Sequence[Delivery]) -> AbstractAsyncContextManager[Step]:
        return self.outbox.step(delivery, later)

    def ready_deliveries(self, pending: Sequence[Delivery]) -> list[int]:
        return self.outbox.ready(pending)

    def deliveries_wake_at(self, pending: Sequence[Delivery]) -> float | None:
        return self.outbox.wake_at(pending)

    async def held_channels_due(self) -> list[int]:
        return await self.outbox.held_channels_due()

    # ------------------------------------------------------------------ people (bot.host.people)

    async def remember_locale(self, user_id: int, locale: str) -> bool:
        return await self.people.remember_locale(user_id, locale)

    def locale_of(self, user_id: int) -> str | None:
        return self.people.locale_of(user_id)

    def settings_of(self, user_id: int | None) -> UserSettings:
        return self.people.settings_of(user_id)

    async def refresh_settings(self) -> None:
        await self.people.refresh_settings()

    def quiet_until(self, user_id: int, now: float | None = None) -> float | None:
        return self.people.quiet_until(user_id, now)

    async def change_settings(self, user_id: int, *, time_zone: str | None = None,
                              quiet: tuple[int, int] | None = None, quiet_off: bool = False,
                              reminders: bool | None = None, reminder_hours: float | None = None,
                              turn_dms: bool | None = None) -> UserSettings:
        return await self.people.change_settings(user_id, time_zone=time_zone, quiet=quiet, quiet_off=quiet_off,
                                                 reminders=reminders, reminder_hours=reminder_hours,
                                                 turn_dms=turn_dms)

    async def open_games_for(self, user_id: int) -> list[OpenGame]:
        return await self.people.open_games_for(user_id)

    async def games_waiting(self, user_id: int, *, besides: int | None = None) -> int:
        return await self.people.games_waiting(user_id, besides=besides)

    async def forget_me(self, user_id: int) -> Forgotten:
        return await self.people.forget_me(user_id)
