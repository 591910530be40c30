"""Opening a game and filling its seats: ``/santacruz new`` (in a text channel, in a thread of its own:
:mod:`bot.adapter.threads`), ``join`` (in a running game: taking over a seat left to the computer), ``leave``,
``start``, ``addbot``, ``kick``, and the lobby message's buttons (Join, Leave, Add computer, Remove computer, Start),
which work from the channel for a game in its thread. The host decides who may (``host.lobby``) and owes the lobby
message's post and redraws, which the outbox delivers (:mod:`bot.adapter.lobby_message`); here the answer becomes an
ephemeral reply, and a click is acknowledged."""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Final

import discord
from discord import app_commands
from discord.app_commands import Choice, Range

from bot.adapter import threads
from bot.adapter.commands.base import can_manage, choice, chosen, describe, guild_only, option
from bot.adapter.commands.takeover import TakeoverCommands
from bot.adapter.sending import reply
from bot.adapter.words.common import channel_link, esc
from bot.adapter.words.lobby import LANGUAGE_NAMES
from bot.adapter.words.notices import DEADLINE_CHOICES, deadline_hours
from bot.host.settings import AI_STRENGTHS
from bot.host.table import TableInfo
from i18n import LOCALES, t

log = logging.getLogger(__name__)

STRENGTH_CHOICES: Final = [choice(f"commands.choice.strength.{s}", s) for s in AI_STRENGTHS]
LANGUAGE_CHOICES: Final = [Choice(name=LANGUAGE_NAMES[lang], value=lang) for lang in LOCALES]
DEADLINE_OPTIONS: Final = [choice(f"commands.choice.deadline.{hours}", hours) for hours in DEADLINE_CHOICES]


class LobbyCommands(TakeoverCommands):
    """The lobby: its commands and its message's buttons; ``join`` in a running game offers to take over a seat
    (:class:`~bot.adapter.commands.takeover.TakeoverCommands`)."""

    @app_commands.command(name="new", description=describe("new"))
    @app_commands.describe(draft=option("new", "draft"), language=option("new", "language"),
                           computers=option("new", "computers"), strength=option("new", "strength"),
                           replay=option("new", "replay"), deadline=option("new", "deadline"),
                           hints=option("new", "hints"), thread=option("new", "thread"), web=option("new", "web"))
    @app_commands.choices(language=LANGUAGE_CHOICES, strength=STRENGTH_CHOICES, deadline=DEADLINE_OPTIONS)
    async def new(self, interaction: discord.Interaction, draft: bool = False, language: str | None = None,
                  computers: Range[int, 0, 3] = 0, strength: str | None = None, replay: bool = True,
                  deadline: str | None = None, hints: bool = False, thread: bool = True, web: bool = True) -> None:
        """In a text channel the game gets a public thread of its own (``thread:false``: the game is played in the
        channel, as in a thread or where the bot may not make threads: then it says so, once); ``web:false`` keeps
        the game off the web (no page, no *Open board*)."""
        channel_id = guild_only(interaction)
        language, strength = chosen(language, LANGUAGE_CHOICES), chosen(strength, STRENGTH_CHOICES)
        hours = deadline_hours(chosen(deadline, DEADLINE_OPTIONS))
        options: dict[str, Any] = {"draft": draft, "locale": self._new_game_locale(interaction, language),
                                   "computers": computers, "strength": strength, "replay": replay,
                                   "deadline_hours": hours, "hints": hints, "web": web}
        lacking: list[str] = []
        channel = interaction.channel
        if thread and threads.can_hold_threads(channel):
            assert isinstance(channel, discord.TextChannel)
            lacking = threads.missing(interaction.app_permissions)
            if not lacking and interaction.app_permissions.send_messages:  # its lobby message starts the thread
                await self._open_in_thread(interaction, channel, options)
                return
        info = await self.host.lobby.open(channel_id, interaction.guild_id, interaction.user.id,
                                          interaction.user.display_name, **options)
        await self._open_lobby(interaction, info)
        untold = self.publisher.threads.untold(channel_id, lacking)
        if untold:  # said in the channel, for everyone who opens games there (and who may grant it)
            await interaction.followup.send(threads.missing_text(untold, info.locale),
                                            allowed_mentions=discord.AllowedMentions.none())

    async def _open_in_thread(self, interaction: discord.Interaction, channel: discord.TextChannel,
                              options: dict[str, Any]) -> None:
        """The game in a public thread of its own: the channel gets its lobby message (which starts the thread and
        shares its id, so the game is opened for that id first), the thread is named after the game, and the opener
        is told where it is. Where the thread cannot be made after all, the game is opened in the channel."""
        await interaction.response.defer(ephemeral=True, thinking=True)  # the host may wait for the database
        locale = await self._locale(interaction)
        channel_id = channel.id
        opener = interaction.user.display_name
        starter = await channel.send(t("bot.thread.opening", str(options["locale"]), opener=esc(opener)),
                                     allowed_mentions=discord.AllowedMentions.none())
        try:
            info = await self.host.lobby.open(starter.id, interaction.guild_id, interaction.user.id, opener,
                                              parent_id=channel_id, lobby_message=(channel_id, starter.id), **options)
        except Exception:
            with contextlib.suppress(discord.HTTPException):
                await starter.delete()
            raise
        try:
            await starter.create_thread(name=threads.thread_name(info), auto_archive_duration=threads.ARCHIVE_MINUTES)
        except discord.HTTPException as exc:  # e.g. the permission was taken meanwhile: the channel holds the game
            log.warning("game %d: no thread could be made in channel %d (%s %s); the game is played in the channel",
                        info.game_id, channel_id, exc.status, exc.code)
            await self.host.idle_tables.close_channel(starter.id, "its thread could not be made")
            try:
                info = await self.host.lobby.open(channel_id, interaction.guild_id, interaction.user.id, opener,
                                                  lobby_message=(channel_id, starter.id), **options)
            except Exception:  # e.g. the channel has a game of its own: nothing is left of the attempt
                with contextlib.suppress(discord.HTTPException):
                    await starter.delete()
                raise
        self.publisher.lobby_changed(info)  # the outbox edits the starting message into the lobby message
        await reply(interaction, t("bot.reply.opened", locale, channel=channel_link(info.channel_id)))
        await self.dms.welcome(interaction, info, locale)

    def _new_game_locale(self, interaction: discord.Interaction, language: str | None) -> str:
        """The language of a new game: chosen, else the server's (when the catalogues have it), else the default."""
        if language:
            return language
        guild_locale = interaction.guild_locale
        if guild_locale is not None:
            lang = str(guild_locale.value).split("-", 1)[0].lower()
            if lang in LOCALES:
                return lang
        return str(self.settings.default_locale)

    @app_commands.command(name="join", description=describe("join"))
    @app_commands.describe(seat=option("join", "seat"))
    async def join(self, interaction: discord.Interaction, seat: Range[int, 1, 4] | None = None) -> None:
        """Join the lobby; in a running game, offer to take over a seat the computer plays for someone who left it
        (``seat``, numbered from 1; without it, the only one). With no such seat and none named, a running game
        refuses as before: it has started (wait for the next one)."""
        channel_id = self._here(interaction)
        current = self.host.games.info(channel_id)
        if current is not None and current.status == "running" and (
                seat is not None or self.host.takeover.open_seats(channel_id)):
            await self._offer_seat(interaction, channel_id, seat - 1 if seat is not None else None)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)  # the host may wait for the database
        locale = await self._locale(interaction)
        info = await self.host.lobby.join(channel_id, interaction.user.id, interaction.user.display_name)
        await reply(interaction, t("bot.reply.joined", locale, count=len(info.seats)))
        self.publisher.lobby_changed(info)
        await self.dms.welcome(interaction, info, locale)

    @join.autocomplete("seat")
    async def _open_seats(self, interaction: discord.Interaction, current: str) -> list[Choice[int]]:
        return self._open_seat_choices(interaction.channel_id, current)

    @app_commands.command(name="leave", description=describe("leave"))
    async def leave(self, interaction: discord.Interaction) -> None:
        channel_id = self._here(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)  # the host may wait for the database
        info = await self.host.lobby.leave(channel_id, interaction.user.id)
        await reply(interaction, t("bot.reply.left", await self._locale(interaction)))
        self.publisher.lobby_changed(info)

    @app_commands.command(name="start", description=describe("start"))
    async def start(self, interaction: discord.Interaction) -> None:
        channel_id = self._here(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)  # the host may wait for the database
        start = await self.host.lobby.start(channel_id, interaction.user.id, can_manage=can_manage(interaction))
        self.background.after_start(start)
        await reply(interaction, t("bot.reply.started", await self._locale(interaction)))
        await threads.add_players(self.bot, start.info)

    @app_commands.command(name="addbot", description=describe("addbot"))
    @app_commands.describe(strength=option("addbot", "strength"))
    @app_commands.choices(strength=STRENGTH_CHOICES)
    async def addbot(self, interaction: discord.Interaction, strength: str | None = None) -> None:
        channel_id = self._here(interaction)
        strength = chosen(strength, STRENGTH_CHOICES)
        await interaction.response.defer(ephemeral=True, thinking=True)  # the host may wait for the database
        info = await self.host.lobby.add_computer(channel_id, interaction.user.id, strength,
                                                  can_manage=can_manage(interaction))
        await reply(interaction, t("bot.reply.computer_added", await self._locale(interaction),
                                   name=esc(info.seats[-1].name)))
        self.publisher.lobby_changed(info)

    @app_commands.command(name="kick", description=describe("kick"))
    @app_commands.describe(player=option("kick", "player"))
    async def kick(self, interaction: discord.Interaction, player: discord.User) -> None:
        """In the lobby: remove a player (opener). Running: hand an absent player's seat to the computer."""
        channel_id = self._here(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)  # the host may wait for a computer's move
        locale = await self._locale(interaction)
        outcome = await self.host.lobby.kick(channel_id, interaction.user.id, player.id, player.display_name,
                                             can_manage=can_manage(interaction))
        if isinstance(outcome, TableInfo):  # removed from the lobby
            await reply(interaction, t("bot.reply.kicked", locale, name=esc(player.display_name)))
            self.publisher.lobby_changed(outcome)
            return
        self.background.after_seat_change(outcome)
        await reply(interaction, t("bot.reply.handed_over", locale, name=esc(outcome.name)))

    # ------------------------------------------------------------------ the lobby message's buttons
    # A click is answered once the host stored its change (the outbox redraws the lobby message it sits on): the
    # acknowledgement, as the lobby message's own answer came before.

    async def _lobby_changed(self, interaction: discord.Interaction, info: TableInfo) -> None:
        self.publisher.lobby_changed(info)
        await interaction.response.defer()

    async def join_clicked(self, interaction: discord.Interaction, game_id: int) -> None:
        locale = await self._locale(interaction)
        current = self._current(game_id)
        info = await self.host.lobby.join(current.channel_id, interaction.user.id, interaction.user.display_name)
        await self._lobby_changed(interaction, info)
        await self.dms.welcome(interaction, info, locale)

    async def leave_clicked(self, interaction: discord.Interaction, game_id: int) -> None:
        current = self._current(game_id)
        await self._lobby_changed(interaction, await self.host.lobby.leave(current.channel_id, interaction.user.id))

    async def addbot_clicked(self, interaction: discord.Interaction, game_id: int) -> None:
        current = self._current(game_id)
        await self._lobby_changed(interaction, await self.host.lobby.add_computer(
            current.channel_id, interaction.user.id, can_manage=can_manage(interaction)))

    async def removebot_clicked(self, interaction: discord.Interaction, game_id: int) -> None:
        current = self._current(game_id)
        await self._lobby_changed(interaction, await self.host.lobby.remove_computer(
            current.channel_id, interaction.user.id, can_manage=can_manage(interaction)))

    async def start_clicked(self, interaction: discord.Interaction, game_id: int) -> None:
        """Start: the host starts the game (the opener, or someone who may manage the channel); the lobby message's
        redraw (without its buttons), the start's post and the DMs go out from the outbox."""
        current = self._current(game_id)
        start = await self.host.lobby.start(current.channel_id, interaction.user.id, can_manage=can_manage(interaction))
        self.background.after_start(start)
        await interaction.response.defer()
        await threads.add_players(self.bot, start.info)
