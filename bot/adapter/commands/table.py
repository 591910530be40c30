"""The table around a running game: ``/santacruz board``, ``status``, ``log``, ``abandon``, ``rematch``, ``away``,
``back``, ``vacation``, ``rules``, and the buttons beside them (*My cards*, the abandon question, *Rematch*, "Keep it
open" under an idle game's notice, a vacation's vote, *Cancel*)."""

from __future__ import annotations

import asyncio
import io
from typing import Final

import discord
from discord import app_commands
from discord.app_commands import Range

from bot.adapter import posts
from bot.adapter.commands.base import Feature, can_manage, choice, chosen, describe, guild_only, option
from bot.adapter.sending import ALLOWED_MENTIONS, files, reply
from bot.adapter.views import abandon_view
from bot.adapter.words.lobby import lobby_text
from bot.adapter.words.notices import kept_open_text
from bot.adapter.words.posts import log_file, log_fits, log_lines, status_text
from bot.host.errors import HostError
from i18n import RULE_TOPICS, t
from render.legend import render_legend

TOPIC_CHOICES: Final = [choice(f"rules.{topic}.title", topic) for topic in RULE_TOPICS]


class TableCommands(Feature):
    """What a game's players and its channel see and do besides their moves."""

    @app_commands.command(name="board", description=describe("board"))
    async def board(self, interaction: discord.Interaction) -> None:
        channel_id = self._channel_for(interaction)
        info = self.host.games.info(channel_id)
        view = self.host.play.public_view(channel_id)
        assert info is not None
        in_channel = interaction.guild_id is not None
        locale = info.locale if in_channel else await self._locale(interaction)
        await interaction.response.defer(ephemeral=not in_channel, thinking=True)
        drawn = await posts.pictures(self.pictures, view, locale, (info.game_id, info.seq, None))
        shown = posts.layout(status_text(info, view, locale), [name for png, name in drawn if png is not None], [],
                             colour=posts.accent(info.to_move))  # the overview the chat shows, then the board
        await interaction.followup.send(view=shown, files=files(*drawn), ephemeral=not in_channel,
                                        allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name="status", description=describe("status"))
    async def status(self, interaction: discord.Interaction) -> None:
        locale = await self._locale(interaction)
        channel_id = self._channel_for(interaction)
        info = self.host.games.info(channel_id)
        if info is None or info.status == "abandoned":
            raise HostError("host.error.no_game")
        if info.status == "lobby":
            usual = await self.host.archive.usual_speeds(info.guild_id, info.humans)
            await reply(interaction, lobby_text(info, locale, usual))
            return
        deadline = await self.host.deadlines.turn_deadline(info.game_id) if info.deadline_hours else None
        status = status_text(info, self.host.play.public_view(channel_id), locale, deadline=deadline)
        if info.status != "over" and self.host.games.seat_of(channel_id, interaction.user.id) is not None:
            # a player also sees their own hand (and the move buttons on their turn); only they see it (once the
            # game is over there is no hand left: the result is the status)
            await self.dms.show_hand(interaction, channel_id, heading=status)
            return
        await reply(interaction, status, allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name="log", description=describe("log"))
    async def log_(self, interaction: discord.Interaction) -> None:
        locale = await self._locale(interaction)
        channel_id = self._channel_for(interaction)
        info = self.host.games.info(channel_id)
        lines = log_lines(self.host.play.view_for(channel_id, interaction.user.id), locale,
                          info.seats if info is not None else ())
        if log_fits(lines):
            await reply(interaction, "\n".join(lines))
            return
        await reply(interaction, t("bot.log.attached", locale),
                    file=discord.File(io.BytesIO(log_file(lines).encode()), filename="santacruz-log.txt"))

    @app_commands.command(name="abandon", description=describe("abandon"))
    async def abandon(self, interaction: discord.Interaction) -> None:
        channel_id = self._here(interaction)
        locale = await self._locale(interaction)
        info = self.host.lobby.may_abandon(channel_id, interaction.user.id, can_manage=can_manage(interaction))
        await reply(interaction, t("bot.confirm.abandon", locale), view=abandon_view(info.game_id, locale))

    @app_commands.command(name="rematch", description=describe("rematch"))
    async def rematch(self, interaction: discord.Interaction) -> None:
        await self._rematch(interaction, guild_only(interaction))

    async def _rematch(self, interaction: discord.Interaction, channel_id: int) -> None:
        info = await self.host.lobby.rematch(channel_id, interaction.user.id, can_manage=can_manage(interaction))
        await self._open_lobby(interaction, info)

    @app_commands.command(name="away", description=describe("away"))
    async def away(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)  # the host may wait for a computer's move
        change = await self.host.play.away(self._channel_for(interaction), interaction.user.id)
        self.background.after_seat_change(change)
        await reply(interaction, t("bot.reply.away", await self._locale(interaction)))

    @app_commands.command(name="back", description=describe("back"))
    async def back(self, interaction: discord.Interaction) -> None:
        """Back from a vacation (in every game, also from a DM), or else from ``away`` in this channel's game."""
        await interaction.response.defer(ephemeral=True, thinking=True)  # the host may wait for a computer's move
        ended = await self.host.vacation.end(interaction.user.id)
        if ended:
            for ending in ended:
                self.background.after_vacation(ending)
            await reply(interaction, t("bot.reply.vacation_over", await self._locale(interaction), count=len(ended)))
            return
        change = await self.host.play.back(self._channel_for(interaction), interaction.user.id)
        self.background.after_seat_change(change)
        await reply(interaction, t("bot.reply.back", await self._locale(interaction)))

    @app_commands.command(name="vacation", description=describe("vacation"))
    @app_commands.describe(days=option("vacation", "days"))
    async def vacation(self, interaction: discord.Interaction, days: Range[int, 1, 30]) -> None:
        """Go on vacation in every running game the user sits in (works in DMs too): the others vote."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        changes = await self.host.vacation.start(interaction.user.id, days)
        for change in changes:
            self.background.after_vacation(change)
        await reply(interaction, t("bot.reply.vacation", await self._locale(interaction), count=len(changes),
                                   until=int(changes[0].until)))

    @app_commands.command(name="rules", description=describe("rules"))
    @app_commands.describe(topic=option("rules", "topic"))
    @app_commands.choices(topic=TOPIC_CHOICES)
    async def rules(self, interaction: discord.Interaction, topic: str | None = None) -> None:
        locale = await self._locale(interaction)
        topic = chosen(topic, TOPIC_CHOICES) or "overview"
        embed = discord.Embed(title=t(f"rules.{topic}.title", locale), description=t(f"rules.{topic}.text", locale))
        embed.set_author(name=t("rules.title", locale))
        embed.set_footer(text=t("rules.choose", locale, topics=t("rules.topics", locale)).replace("`", ""))
        if topic != "pictures":
            await interaction.response.send_message(embed=embed, ephemeral=True)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)  # the legend is drawn off the event loop
        png = await asyncio.to_thread(render_legend, locale=locale)
        embed.set_image(url="attachment://legend.png")
        await interaction.followup.send(embed=embed, file=discord.File(io.BytesIO(png), "legend.png"), ephemeral=True)

    # ------------------------------------------------------------------ the buttons

    async def hand_clicked(self, interaction: discord.Interaction, game_id: int) -> None:
        """*My cards* under a post: the clicker's own hand, for them alone."""
        await self.dms.show_hand(interaction, self._game(game_id).channel_id)

    async def abandon_clicked(self, interaction: discord.Interaction, game_id: int) -> None:
        locale = await self._locale(interaction)
        current = self._current(game_id)
        info = await self.host.lobby.abandon(current.channel_id, interaction.user.id,
                                             can_manage=can_manage(interaction), name=interaction.user.display_name)
        await interaction.response.edit_message(content=t("bot.reply.abandoned", locale), view=None)
        self.publisher.abandoned(info)

    async def cancel_clicked(self, interaction: discord.Interaction, game_id: int) -> None:
        locale = await self._locale(interaction)
        await interaction.response.edit_message(content=t("bot.reply.cancelled", locale), view=None)

    async def rematch_clicked(self, interaction: discord.Interaction, game_id: int) -> None:
        """Under a game-over message (whose game the host may have forgotten after a restart)."""
        info = self.host.games.find_game(game_id)
        await self._rematch(interaction, info.channel_id if info is not None else guild_only(interaction))

    async def keep_open_clicked(self, interaction: discord.Interaction, game_id: int) -> None:
        """Under an idle game's notice: anyone seated keeps the game open (the notice loses its button)."""
        info = self._game(game_id)
        await self.host.idle_tables.keep_open(info.channel_id, interaction.user.id, game_id)
        await interaction.response.edit_message(
            content=kept_open_text(interaction.user.display_name, self.settings.stale_days, info.locale), view=None,
            allowed_mentions=ALLOWED_MENTIONS)

    async def vacation_voted(self, interaction: discord.Interaction, game_id: int, seat: int, choice: str) -> None:
        """A vote button under a vacation's post: only the game's other players vote (the host decides)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        change = await self.host.vacation.vote(game_id, interaction.user.id, seat, choice)
        self.background.after_vacation(change)
        await reply(interaction, t(f"bot.vacation.voted.{choice}", await self._locale(interaction)))
