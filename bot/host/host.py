"""The host: every decision about Santa Cruz games in channels. It knows nothing of Discord.

:class:`Host` builds the host's parts once and hands each what it needs; the adapter (and every tool) then calls the
part that decides a question, through the attribute named as the part's module (README, "Where each decision lives"):
``games`` (:mod:`bot.host.games`: the games in memory, their locks, the one write path), ``restore`` (a stored game back
in memory, quarantine), ``refresh`` (reading again what another process changed), ``lobby``, ``play`` (moves, the
question before one, undo, away and back, what a seat may see), ``computers``, ``leases``, ``hints``, ``reminders``,
``deadlines``, ``vacation``, ``takeover``, ``idle_tables`` (idle tables and gone channels), ``outbox``, ``archive``,
``people`` (languages, own settings, forget-me), ``web`` (the games' web pages; the server is ``bot.web``) and
``timers`` (the schedule that runs the timers of them all). The parts take ``Games``, the schedule and each other, never
the host. The host itself only does what spans parts: :meth:`Host.load` at start-up, :meth:`Host.refresh_all` for the
sweep, :meth:`Host.settle` and :meth:`Host.readiness` for a stop and a health check, :meth:`Host.figures` for the
metrics.

A part's method says what it decides and what it answers (the answer types live in ``bot/host/table.py``). Users
and channels are integer ids; names are the display names the adapter passes in; every refusal is a
:class:`HostError` whose ``key`` is a message-catalogue key (``i18n/locales/en/host.json``, which says what each text
tells the player to do instead; the archive adds ``bot.stats.storage_failed``, ``bot.leaderboard.bad_by`` and
``bot.export.*``) and ``params`` its values. ``illegal_move``'s ``reason`` is the engine's English explanation (for
logs); ``HostError.illegal`` holds the engine's :class:`engine.IllegalMove` (code and parameters), which
``text(locale)`` words in the user's language. Secrets (the seed, the deck, anyone's cards) leave only through a seat's
own view (``play.view_for``, and the views in ``play.ask_or_play``'s answers), for a user's own seat. All times are
seconds since the epoch (floats, UTC).

Every change is written to the database first (one transaction) and only then applied in memory, so a write that
fails changes nothing anywhere (``host.error.storage``): all of them go through :meth:`bot.host.games.Games.write`,
which also decides once what a lost race with another process is called. A game is read from the database when
something touches it (``refresh``; :meth:`Host.load` at start-up reads only the games that owe work) and leaves memory
when nobody touched it for a while (``games.memory``). A stored game that cannot be played on (unreadable seats or
options, an illegal move in its log) is quarantined as ``damaged`` when it is read (see ``restore.damaged_untold``);
every other game loads. Finished games are unloaded to a compressed snapshot (:meth:`bot.host.table.Table.unload`);
reading them works as before.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import time
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any, Final

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
from bot.host.hints import Coach, Hints
from bot.host.hints import coach as default_coach
from bot.host.idle_tables import IdleTables
from bot.host.leases import Leases
from bot.host.lobby import Lobby, new_seed
from bot.host.lobby import lobby_full as lobby_full
from bot.host.outbox import Outbox
from bot.host.people import People
from bot.host.play import Play
from bot.host.reminders import Reminders
from bot.host.restore import GameFactory as GameFactory
from bot.host.restore import default_game_factory as default_game_factory
from bot.host.settings import Settings
from bot.host.stores import GameStore
from bot.host.table import TableInfo
from bot.host.takeover import Takeovers
from bot.host.timers import Schedule
from bot.host.vacation import Vacations
from bot.host.web import Web
from bot.host.workers import WorkerPool, as_pool

log = logging.getLogger(__name__)

LOAD_BATCH: Final = 500
"""Games :meth:`Host.load` reads (and sets missing timers of) before memory is bounded again."""


class Host:
    """All games of one bot, one per channel: the parts, each named as its module; see the module docstring."""

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
        self.clock = clock
        """The host's clock (seconds since the epoch): what every part decides by."""
        self.workers = as_pool(executor, name="computers")
        self.shared = shared = bool(getattr(store, "shared", False))
        """Whether other processes may share the database (PostgreSQL): then leases decide who does what."""
        self.owner = owner = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        """This host's name in the database's leases and timer claims (unique per process and start)."""
        self.games = games = Games(store, clock=clock, factory=game_factory, most=settings.games_in_memory,
                                   memory_seconds=60 * settings.game_memory_minutes)
        self.restore = games.restore
        self.refresh = games.refresh
        self.timers = timers = Schedule(store, games.refresh.channel, owner=owner, clock=clock)
        self.leases = Leases(store, owner=owner, shared=shared, clock=clock)
        self.people = people = People(store, games, clock=clock, shared=shared)
        self.reminders = reminders = Reminders(games, timers, people, clock=clock)
        self.play = play = Play(games, reminders, settings, clock=clock, factory=game_factory,
                                settings_of=people.settings_of)
        self.computers = computers = Computers(games, play, self.leases, settings, self.workers, chooser=chooser)
        self.lobby = Lobby(games, play, reminders, settings, clock=clock, factory=game_factory, new_seed=new_seed)
        self.deadlines = Deadlines(games, timers, choose=computers.choice, commit=play.commit)
        self.takeover = Takeovers(games, timers, reminders, clock=clock)
        self.vacation = Vacations(games, timers, reminders, clock=clock)
        self.idle_tables = IdleTables(games, timers, settings, clock=clock)
        self.outbox = Outbox(store, games, people, clock=clock)
        self.archive = Archive(store, factory=game_factory)
        self.hints = Hints(games, play, settings, self.workers, coach=coach)
        self.web = Web(store, games, settings, self.hints, clock=clock, factory=game_factory)

    async def load(self) -> list[TableInfo]:
        """At start-up: the users' languages, and the games that owe work whoever touches them (``games.owing_work``:
        a computer to move, a turn deadline without its timers, a game stored before the bot kept whose move each
        waits for), each with the timers it lacks set and whose move it waits for written; every other game is
        loaded when something touches it. They are read :data:`LOAD_BATCH` at a time, memory bounded between two
        (the first start after an upgrade reads every open game once); the games read."""
        await self.people.load()
        owed = await self.games.owing_work()
        loaded = []
        for start in range(0, len(owed), LOAD_BATCH):
            tables = await self.games.load(owed[start:start + LOAD_BATCH])
            await self.idle_tables.arm_missing(tables)
            await self.reminders.arm_missing(tables)
            await self.deadlines.arm_missing(tables)
            await self.games.note_waits(tables)
            loaded += [table.info() for table in tables]
            self.games.memory.let_go()
        log.info("loaded the %d open games that owe work (the others are loaded when touched)", len(loaded))
        return loaded

    async def refresh_all(self) -> list[TableInfo]:
        """With a shared database: read again every open game held that another process changed since this one last
        looked (or ended), and people's own settings; the games that changed (the sweep uses it)."""
        if not self.shared:
            return []
        with storage_refusal():
            await self.people.reload_settings()  # people's settings changed in other processes
        return await self.refresh.held_changed()

    async def settle(self, timeout: float) -> bool:
        """Whether the changes under way were written within ``timeout`` seconds (a stopping process lets them commit
        before it closes the database)."""
        return await settle(self.games.busy_locks(), timeout)

    async def readiness(self) -> str | None:
        """Why a move cannot be saved now (``None``: it can), for the operator's health check."""
        return await readiness(self.store, self.settings.busy_timeout)

    async def figures(self) -> dict[str, Any]:
        """For the metrics: the posts and DMs owed, the oldest due one's age, the games of each status."""
        return await self.store.figures(self.clock())
