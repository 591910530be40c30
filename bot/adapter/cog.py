"""The ``/santacruz`` cog: the command features composed into one cog, with what belongs to the cog as a whole.

:class:`SantaCruzCog` is made of the features of :mod:`bot.adapter.commands` (lobby, turn, table, archive, person),
each holding its commands with their buttons' handlers and autocomplete. Here: the parts they share (the host, the
pictures, DMs, the outbox, the background work), start-up and shutdown, the listeners for channels and servers that
are gone, the check before every command and click (with a database other processes share, the game as it is now),
and the one error handler that turns refusals into short ephemeral replies in the user's language.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Sequence
from concurrent.futures import Executor
from typing import Final

import discord
from discord import app_commands
from discord.ext import commands

from bot.adapter import telemetry
from bot.adapter.background import SHUTDOWN_GRACE, Background
from bot.adapter.commands.archive import ArchiveCommands
from bot.adapter.commands.base import CHANGE_WAIT, describe
from bot.adapter.commands.lobby import LobbyCommands
from bot.adapter.commands.person import PersonCommands
from bot.adapter.commands.table import TableCommands
from bot.adapter.commands.turn import TurnCommands
from bot.adapter.dms import DirectMessages
from bot.adapter.emojis import Emojis
from bot.adapter.errors import ErrorTexts, Refusal
from bot.adapter.gone_channels import GoneChannels
from bot.adapter.items import Clicks
from bot.adapter.publish import Publisher
from bot.adapter.sending import reply
from bot.adapter.threads import LOCKED
from bot.adapter.words.common import channel_link
from bot.host.errors import HostError
from bot.host.host import Host
from bot.host.pictures import Pictures
from bot.host.settings import Settings
from bot.host.table import TableInfo
from bot.host.workers import WorkerPool
from i18n import t

log = logging.getLogger(__name__)

UNKNOWN_INTERACTION: Final = 10062
ALREADY_ACKNOWLEDGED: Final = 40060
"""Discord's code of a 400 for an interaction answered already: the same interaction delivered twice (its first
delivery answered it, and the host carries a move out once)."""
"""Discord's code of a 404 for an interaction answered too late (after 3 s) or whose token expired."""


class SantaCruzCog(PersonCommands, ArchiveCommands, TableCommands, TurnCommands, LobbyCommands, commands.GroupCog,
                   name="SantaCruz", group_name="santacruz", group_description=describe("santacruz")):
    """``/santacruz …``: the features' commands and clicks over one host. (discord.py collects the commands of the
    classes in reverse order of this list: the lobby's first, as ``/santacruz`` lists them.)"""

    def __init__(self, bot: commands.Bot, host: Host, settings: Settings, *,
                 render_executor: WorkerPool | Executor | None = None, loaded_games: Sequence[TableInfo] = ()) -> None:
        """``loaded_games``: what ``host.load()`` found at start-up (recovered and resumed in ``cog_load``)."""
        self.bot = bot
        self.host = host
        self.settings = settings
        self.loaded_games = list(loaded_games)
        self.pictures = Pictures(render_executor, width=settings.picture_width)
        self.emojis = Emojis()
        """The application's emojis beside the words of cards, resources, buildings and bird chips (found or
        uploaded at ``cog_load``; none until then, or if Discord refuses them: the words alone)."""
        self.dms = DirectMessages(bot, self.host, self.pictures, self.emojis)
        self.publisher = Publisher(bot, self.host, self.pictures, self.dms)
        self.background = Background(bot, self.host, self.publisher, self.dms,
                                     retry_seconds=settings.retry_seconds, sweep_seconds=settings.sweep_seconds)
        self.errors = ErrorTexts(self.host, self._channel_for)
        self.gone = GoneChannels(self.host, self.publisher, self.background)
        self.publisher.on_channel_gone = self.gone.channel_gone

    # ------------------------------------------------------------------ life cycle

    async def cog_load(self) -> None:
        await self.emojis.load(self.bot, self.pictures.emoji)  # before the first DM or post goes out
        self.background.start(self.loaded_games)

    async def cog_unload(self) -> None:
        self.background.stop()

    async def shutdown(self, grace: float = SHUTDOWN_GRACE) -> None:
        """Stop the computer players, give queued messages ``grace`` seconds, then cancel what is left."""
        await self.background.shutdown(grace)

    async def send_reminders(self, now: float | None = None) -> int:
        """DM every player whose reminder is due; returns how many were due."""
        return await self.background.send_reminders(now)

    # ------------------------------------------------------------------ channels and servers that are gone

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        await self.gone.channel_gone(channel.id, "channel deleted")
        await self.gone.threads_gone(channel.id, "the thread's channel was deleted")

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        await self.gone.channel_gone(payload.thread_id, "thread deleted")

    @commands.Cog.listener()
    async def on_raw_thread_update(self, payload: discord.RawThreadUpdateEvent) -> None:
        """A moderator locked a thread: a game in it can take no post, and ends as a deleted thread's does."""
        if dict(payload.data.get("thread_metadata") or {}).get("locked"):
            await self.gone.channel_gone(payload.thread_id, LOCKED)

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        await self.gone.guild_gone(guild.id, "the bot left the server")

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        await self.gone.guilds_left_while_offline(self.bot)

    # ------------------------------------------------------------------ before every command and click

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        """Before every command: the channel's game as the database has it now (loaded if this process does not hold
        it; with a database other processes share, read again if one changed it); then which game a command typed
        here acts on (in a channel whose threads hold games, the user's one game there). A command that touches
        several games (``vacation``, ``back``) has the host check each game again under its lock."""
        await self._refresh(self._read_again(interaction))
        if interaction.type is discord.InteractionType.application_command:
            await self._find_game_here(interaction)
        return True

    async def refresh_game(self, game_id: int) -> None:
        """Before a click on a game's button (a DM's arrive at shard 0's process, whatever the game's server): the
        game loaded, or read again, as :meth:`interaction_check` says."""
        await self._refresh(self.host.refresh.game(game_id, wait=CHANGE_WAIT))

    async def _refresh(self, reading: Awaitable[object]) -> None:
        try:
            await reading
        except HostError as exc:  # the change itself checks again (and says so) if the database is refusing
            log.warning("could not read the game from the database before an interaction: %s", exc.key)
        if self.host.restore.damaged_untold():  # the game read was found damaged: its channel hears it now
            self.background.tell_damaged_soon()

    def check_origin(self, interaction: discord.Interaction, game_id: int) -> None:
        """A click acts on a game only from the game's channel (or the channel whose thread it is: a thread has its
        channel's permissions) or from the DM of one of its players, so that the permissions it carries (Manage
        Channels) are those of the game's channel: a forged id is refused."""
        info = self.host.games.find_game(game_id)
        if info is None or interaction.channel_id in (info.channel_id, info.parent_id):
            return  # a game the host forgot: the handler says it is outdated (a rematch opens here); the channel
            # whose thread the game has holds its lobby message, and commands typed there act on the game
        if interaction.guild_id is None and self.host.games.seat_of(info.channel_id, interaction.user.id) is not None:
            return
        raise Refusal("bot.error.wrong_channel", channel=channel_link(info.channel_id))

    # ------------------------------------------------------------------ errors

    async def cog_app_command_error(self, interaction: discord.Interaction,
                                    error: app_commands.AppCommandError) -> None:
        await self.handle_error(interaction, error)

    async def handle_error(self, interaction: discord.Interaction, error: Exception) -> None:
        """The one place refusals become short ephemeral replies; anything unexpected is logged."""
        original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        if self.bot.is_closed():
            log.info("the bot closed while handling an interaction: %r", original)
            return
        # name the command or the component, never the values chosen (a discard is secret)
        what = (interaction.command.qualified_name if interaction.command
                else dict(interaction.data or {}).get("custom_id", "?"))
        if isinstance(original, discord.NotFound) and original.code == UNKNOWN_INTERACTION:
            # it reached the bot after Discord's 3 s (a slow moment): expected, and nothing can answer it any more
            log.warning("%s came too late to be answered (10062 Unknown interaction)", what)
            return
        if isinstance(original, discord.HTTPException) and original.code == ALREADY_ACKNOWLEDGED:
            # Discord delivered the same interaction twice: the first delivery answered it, nothing is left to say
            log.warning("%s was delivered twice; the first delivery answered it (40060 already acknowledged)", what)
            return
        locale = await self._locale(interaction)
        text = self.errors.text(interaction, original, locale)
        telemetry.note_outcome(interaction, "error" if text is None else "refused")
        if text is None:
            log.error("unexpected error while handling %s", what, exc_info=original)
            text = t("bot.error.unexpected", locale)
        try:
            await reply(interaction, text)
        except discord.HTTPException as exc:
            log.warning("could not send an error reply (%s %s)", exc.status, exc.text)


def _clicks_of(cog: SantaCruzCog) -> Clicks:
    """Never called: mypy checks here that the cog has every handler the buttons and menus hand clicks to."""
    return cog
