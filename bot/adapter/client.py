"""The Discord client: :func:`create_bot` builds it, ``setup_hook`` opens the database and the host.

Nothing here starts the bot (``bot.adapter.main`` does, the tests use ``tests/fakediscord``)::

    bot = create_bot(Settings.load(), guild_ready_timeout=0.2)
    await bot.start(token)

With ``SHARD_COUNT`` set, :func:`create_bot` makes a :class:`ShardedSantaCruzBot` (discord.py's
``AutoShardedBot``) that runs the shards ``SHARD_IDS`` (default: all) of ``SHARD_COUNT``. Without it, one gateway
connection. Several processes may share one PostgreSQL database, each running its own shards (see the README).

At start-up the bot first opens its budget of requests (:meth:`SantaCruzBot.login`: every request to Discord takes a
token, :mod:`bot.adapter.rate_limits`), with ``DATABASE_URL`` set the one it shares with its other processes. Then
(``setup_hook``, after login and before the gateway connects) it opens the store (SQLite, or PostgreSQL),
loads every lobby and running game into the host, installs the command translator, registers the
buttons and menus (:data:`bot.adapter.items.ITEMS`: every button ever posted works again), adds the
``/santacruz`` cog and syncs the commands: to the ``DEV_GUILD_ID`` server at once when set, else globally.

A stop (:meth:`SantaCruzBot.stop`, what ``santacruz-bot`` does on SIGTERM or SIGINT) is clean: from its first
moment every interaction that arrives is answered in words that the bot is stopping (and changes nothing); the
changes under way are written; the computers stop; the posts and DMs already owed get ``SHUTDOWN_GRACE`` seconds to
go out (what is left stays owed in the database for the next start); the process gives up its leases at once, so
that another process sharing the database takes its work over; then the gateway, the HTTP session and the database
are closed. The whole stop ends within ``SHUTDOWN_GRACE`` and a fraction of a second whatever the gateway is doing:
:meth:`SantaCruzBot.connect` ends discord.py's connection loop once the stop is done, also while that loop waits
out its reconnect back-off or a connection attempt that goes unanswered (it looks for a stop only between attempts,
so a stop while Discord was unreachable took up to half a minute and more).
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import Executor
from typing import Any

import aiohttp
import discord
from discord import app_commands
from discord.ext import commands

from bot.adapter import telemetry
from bot.adapter.cog import SantaCruzCog
from bot.adapter.errors import Refusal
from bot.adapter.items import ITEMS
from bot.adapter.rate_limits import meter, sweep_seldom
from bot.adapter.translator import CatalogueTranslator
from bot.host.errors import HostError
from bot.host.host import Host
from bot.host.rate_budget import Budget, LocalBudget, LocalIdentifyTurns, SharedBudget, SharedIdentifyTurns
from bot.host.settings import Settings
from bot.host.stores import GameStore, open_store
from bot.host.table import TableInfo
from bot.host.workers import WorkerPool
from i18n import t

log = logging.getLogger(__name__)


class SantaCruzTree(app_commands.CommandTree["SantaCruzBot"]):
    """The command tree; errors outside the cog's commands (unknown or outdated commands) get the same
    short ephemeral answer as the cog's own refusals."""

    async def on_error(self, interaction: discord.Interaction[SantaCruzBot],
                       error: app_commands.AppCommandError, /) -> None:
        command = interaction.command
        if command is not None and command._has_any_error_handlers():
            return
        cog = self.client.get_cog("SantaCruz")
        if cog is None:
            await super().on_error(interaction, error)
            return
        await cog.handle_error(interaction, error)  # type: ignore[attr-defined]  # get_cog gives a plain Cog: ours


class SantaCruzBot(commands.Bot):
    """A bot that hosts Santa Cruz games; ``host`` and ``store`` exist once ``setup_hook`` ran."""

    def __init__(self, settings: Settings, *, computer_executor: WorkerPool | Executor | None = None,
                 render_executor: WorkerPool | Executor | None = None, host_options: dict[str, Any] | None = None,
                 **client_options: Any) -> None:
        """``computer_executor`` runs the computer players and ``render_executor`` the pictures (both
        default to threads; ``santacruz-bot`` uses process pools that are replaced when a worker dies,
        see ``bot.host.workers``); ``host_options`` go to
        :class:`bot.host.host.Host` (tests fix ``new_seed`` or the ``clock``)."""
        intents = client_options.pop("intents", None)
        if intents is None:
            intents = discord.Intents.none()
            intents.guilds = True  # the channels and the servers' languages; nothing privileged
        trace = client_options.setdefault("http_trace", aiohttp.TraceConfig())  # discord.py takes one
        meter(trace, lambda: self.rate_budget, lambda: self.application_id)
        client_options.setdefault("allowed_mentions",
                                  discord.AllowedMentions(users=True, roles=False, everyone=False,
                                                          replied_user=False))
        super().__init__(command_prefix=commands.when_mentioned, intents=intents, help_command=None,
                         tree_cls=SantaCruzTree, **client_options)
        sweep_seldom(self.http)
        self.settings = settings
        self.computer_executor = computer_executor
        self.render_executor = render_executor
        self.host_options = dict(host_options or {})
        self.store: GameStore | None = None
        self.host: Host | None = None
        self.rate_budget: Budget | None = None
        """The requests to Discord, metered against the bot's global limit (:meth:`login` opens it): with PostgreSQL
        those of every process together."""
        self.identify_turns: LocalIdentifyTurns | SharedIdentifyTurns = LocalIdentifyTurns()
        """When each shard may IDENTIFY (shared by every process with PostgreSQL)."""
        self.loaded_games: list[TableInfo] = []
        """What ``host.load()`` found at start-up."""
        self.stopping = False
        """A stop began: interactions are answered that the bot is stopping (:meth:`stop`)."""
        self._closing: asyncio.Task[None] | None = None
        self._stopped = asyncio.Event()
        """Set once the stop is done (:meth:`close`): :meth:`connect` ends then."""
        self._connecting: asyncio.Future[None] | None = None
        self._closed_by_gateway = False
        self._stopping_answers: set[asyncio.Task[None]] = set()
        parsers = self._connection.parsers
        receive = parsers["INTERACTION_CREATE"]

        def interaction_create(data: Any) -> None:  # every interaction passes here, before discord.py's dispatch
            if self.stopping:
                self._answer_stopping(data)
                return
            telemetry.received(data)
            receive(data)

        parsers["INTERACTION_CREATE"] = interaction_create

    async def login(self, token: str) -> None:
        """discord.py's login, once the requests are metered (with PostgreSQL, those of every process in one
        budget): login's own requests (who the bot is, its application) take their tokens too."""
        if self.rate_budget is None and self.settings.database_url:  # several processes share the bot's limits
            self.rate_budget = await SharedBudget.open(self.settings.database_url, self.settings.global_rate_limit)
            self.identify_turns = SharedIdentifyTurns(self.settings.database_url)
        elif self.rate_budget is None:
            self.rate_budget = LocalBudget(self.settings.global_rate_limit)
        await super().login(token)

    async def setup_hook(self) -> None:
        telemetry.watch(self)
        self.store = await open_store(self.settings)
        log.info("%s; store: %s", self.shards_text(), "PostgreSQL" if self.settings.database_url else
                 f"SQLite {self.settings.database_path}")
        self.host = Host(self.store, self.settings, executor=self.computer_executor, **self.host_options)
        self.loaded_games = await self.host.load()
        await self.tree.set_translator(CatalogueTranslator())
        self.add_dynamic_items(*ITEMS)
        await self.add_cog(SantaCruzCog(self, self.host, self.settings, render_executor=self.render_executor,
                                       loaded_games=self.loaded_games))
        if self.settings.dev_guild_id is not None:
            guild = discord.Object(self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to server %d", len(synced), self.settings.dev_guild_id)
        else:
            synced = await self.tree.sync()
            log.info("synced %d commands globally (Discord may take a while to show them)", len(synced))

    async def connect(self, *, reconnect: bool = True) -> None:
        """discord.py's connection loop (the gateway, reconnecting after a break), ended as soon as a stop is done:
        the loop looks for a stop only between its attempts, and between two attempts it waits out a back-off that
        doubles up to about 17 minutes, or a connection attempt that goes unanswered (aiohttp gives up after 30 s).
        A close that discord.py makes itself before it raises (a refused token, a fatal close code) is waited for,
        and what it raises is raised as it is."""
        connecting = self._connecting = asyncio.ensure_future(super().connect(reconnect=reconnect))
        stopped = asyncio.ensure_future(self._stopped.wait())
        try:
            await asyncio.wait({connecting, stopped}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopped.cancel()
            if not connecting.done() and not self._closed_by_gateway:
                connecting.cancel()
            await asyncio.wait({connecting})
        if not connecting.cancelled():
            connecting.result()

    def stop(self) -> asyncio.Task[None]:
        """Stop cleanly (see the module docstring), in a task of its own."""
        return asyncio.get_running_loop().create_task(self.close(), name="santacruz-stop")

    async def close(self) -> None:
        """The clean stop, once however often it is asked for (see the module docstring)."""
        if asyncio.current_task() is self._connecting:
            self._closed_by_gateway = True  # discord.py's connection loop closes before it raises
        if self._closing is None:
            self._closing = asyncio.get_running_loop().create_task(self._close_cleanly())
            self._closing.add_done_callback(lambda _: self._stopped.set())
        await asyncio.shield(self._closing)

    async def _close_cleanly(self) -> None:
        self.stopping = True
        grace = self.settings.shutdown_grace  # the whole stop's: what settling takes, the posts owed have less
        ends = asyncio.get_running_loop().time() + grace
        if self.host is not None and not await self.host.settle(grace):
            log.warning("stopping: changes still under way after %g s are left to the database's transactions", grace)
        cog = self.get_cog("SantaCruz")
        if cog is not None:
            left = max(0.5, ends - asyncio.get_running_loop().time())
            await cog.shutdown(left)  # type: ignore[attr-defined]  # get_cog gives a plain Cog: ours
        if self.host is not None:
            try:
                released = await self.host.leases.release_all()
            except HostError:
                log.warning("stopping: the leases could not be given up; they run out by themselves")
            else:
                log.info("stopping: work given up for the other processes (%d leases still held)", released)
        await super().close()
        if self.rate_budget is not None:
            budget, self.rate_budget = self.rate_budget, None
            await budget.close()
        if self.store is not None:
            store, self.store = self.store, None
            await store.close()

    def _answer_stopping(self, data: Any) -> None:
        """Answer an interaction that arrived during a stop, in the user's language: nothing was done."""
        telemetry.stopping(data)
        interaction: discord.Interaction[SantaCruzBot] = discord.Interaction(data=data, state=self._connection)

        async def answer() -> None:
            try:
                if interaction.type is discord.InteractionType.autocomplete:
                    await interaction.response.autocomplete([])
                else:
                    text = t("bot.error.stopping", str(interaction.locale))
                    await interaction.response.send_message(text, ephemeral=True)
            except discord.HTTPException as exc:
                log.info("could not tell an interaction that the bot is stopping (%s)", exc.status)

        task = asyncio.get_running_loop().create_task(answer())
        self._stopping_answers.add(task)
        task.add_done_callback(self._stopping_answers.discard)

    def shards_down(self) -> list[int]:
        """The gateway shards of this process that are not connected now (for ``/readyz``)."""
        return [] if self.ws is not None and self.ws.open else [0]

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """A click whose ``custom_id`` matches none of the bot's buttons and menus (a forged or damaged id: discord.py
        hands it to nothing, and the player would see "This interaction failed") gets one answer in words, for the
        clicker alone. Every other interaction goes to its command or component as usual."""
        if interaction.type is not discord.InteractionType.component:
            return
        custom_id = str(dict(interaction.data or {}).get("custom_id", ""))
        if any(item.__discord_ui_compiled_template__.fullmatch(custom_id) for item in ITEMS):
            return
        cog = self.get_cog("SantaCruz")
        if cog is not None:
            await cog.handle_error(interaction, Refusal("bot.error.unknown_button"))  # type: ignore[attr-defined]

    async def on_ready(self) -> None:
        log.info("logged in as %s (%s); %d games loaded", self.user, self.shards_text(), len(self.loaded_games))

    def shards_text(self) -> str:
        """Which gateway shards this process runs, for the log."""
        return "one gateway connection, no sharding"


class ShardedSantaCruzBot(SantaCruzBot, commands.AutoShardedBot):
    """The same bot running the gateway shards ``SHARD_IDS`` of ``SHARD_COUNT`` (discord.py's ``AutoShardedBot``).

    Each shard IDENTIFYs at its turn (:attr:`identify_turns`): shards whose ``shard_id % max_concurrency`` are equal
    5 seconds apart, across every process with PostgreSQL, the others at once (discord.py's own hook waits 5 seconds
    before every shard but its process's first, and knows nothing of the other processes)."""

    _max_concurrency: int | None = None

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        if shard_id is None:
            await super().before_identify_hook(shard_id, initial=initial)
            return
        if self._max_concurrency is None:
            self._max_concurrency = max(1, (await self.fetch_session_start_limits()).max_concurrency)
        waited = await self.identify_turns.wait(shard_id % self._max_concurrency)
        log.info("shard %d identifies (waited %.1f s for its turn; max_concurrency %d)", shard_id, waited,
                 self._max_concurrency)

    def shards_down(self) -> list[int]:
        ids = self.shard_ids if self.shard_ids is not None else list(range(self.shard_count or 0))
        return [i for i in ids if i not in self.shards or self.shards[i].is_closed()]

    def shards_text(self) -> str:
        ids = self.shard_ids if self.shard_ids is not None else list(range(self.shard_count or 0))
        return f"shards {', '.join(map(str, ids))} of {self.shard_count}"


def create_bot(settings: Settings, **client_options: Any) -> SantaCruzBot:
    """The bot, not started. ``client_options`` go to :class:`discord.ext.commands.Bot` (tests pass
    ``guild_ready_timeout``), except ``computer_executor`` and ``render_executor`` (where computer players
    and pictures run; default: threads) and ``host_options`` (keyword arguments of :class:`bot.host.host.Host`).
    With ``SHARD_COUNT`` set it is a :class:`ShardedSantaCruzBot` running ``SHARD_IDS`` (all shards if empty)."""
    client_options.setdefault("http_trace", telemetry.http_trace())  # the 429s discord.py waits out, counted
    if settings.shard_count is None:
        return SantaCruzBot(settings, **client_options)
    client_options.setdefault("shard_count", settings.shard_count)
    client_options.setdefault("shard_ids", list(settings.shard_ids) or None)
    return ShardedSantaCruzBot(settings, **client_options)
