"""This server's finished games and its players' history: ``/santacruz history`` (the last games, one game again, a
game's record as JSON) and ``/santacruz stats`` (a player's statistics, or with ``leaderboard:`` the leaderboard, whose
page buttons are here too)."""

from __future__ import annotations

import asyncio
import io
import json
from typing import Final

import discord
from discord import app_commands
from discord.app_commands import Range

from bot.adapter import posts
from bot.adapter.commands.base import Feature, choice, chosen, describe, guild_only, option
from bot.adapter.errors import Refusal
from bot.adapter.links import board_button, board_link
from bot.adapter.sending import ALLOWED_MENTIONS, files, reply
from bot.adapter.views import leaderboard_view
from bot.adapter.words.archive import history_text, leaderboard_text, past_game_text, stats_text
from bot.adapter.words.common import esc
from bot.host.ratings import BOARDS
from i18n import t
from render.stats import render_stats

BOARD_CHOICES: Final = [choice(f"commands.stats.choice.{by}", by) for by in BOARDS]
MAX_GAME_ID: Final = 2**53 - 1
"""The largest game number ``history id:`` takes (Discord's largest safe integer option)."""


class ArchiveCommands(Feature):
    """The archive of finished games, statistics and leaderboards (the host reads them from the database)."""

    def _jump_url(self, guild_id: int | None, channel_id: int, message_id: int | None) -> str | None:
        """The link to a message (a game-over post), or ``None`` while it is not known."""
        if message_id is None:
            return None
        channel = self.bot.get_partial_messageable(channel_id, guild_id=guild_id)
        return channel.get_partial_message(message_id).jump_url

    @app_commands.command(name="history", description=describe("history"))
    @app_commands.rename(game_id="id")
    @app_commands.describe(game_id=option("history", "id"), export=option("history", "export"))
    async def history(self, interaction: discord.Interaction, game_id: Range[int, 1, MAX_GAME_ID] | None = None,
                      export: bool = False) -> None:
        """This server's last finished games; with ``id``, that one game again (board, ranking, chart); with
        ``export``, a game's record as a JSON file (that game, or this channel's last one).

        An ``id`` outside the range Discord was told (a forged or outdated client sends any number; one of 2^63 or
        more fits no database integer) is refused in words before anything is read."""
        channel_id = guild_only(interaction)
        if game_id is not None and not 1 <= game_id <= MAX_GAME_ID:
            raise Refusal("bot.history.bad_id", id=game_id, most=MAX_GAME_ID)
        await interaction.response.defer(ephemeral=True, thinking=True)  # the host reads the database
        locale = await self._locale(interaction)
        if export:
            await self._export(interaction, channel_id, game_id, locale)
            return
        if game_id is not None:
            await self._past_game(interaction, game_id, locale)
            return
        games = await self.host.archive.history(interaction.guild_id)
        links = [self._jump_url(g.guild_id, g.channel_id, g.over_message_id) for g in games]
        await reply(interaction, history_text(games, links, locale), allowed_mentions=discord.AllowedMentions.none())

    async def _past_game(self, interaction: discord.Interaction, game_id: int, locale: str) -> None:
        """One finished game of this server again, as its game-over post showed it: the ranking, the final overview,
        the chart and the board (each alone in its gallery, so that Discord crops none), and *Open board* (its web
        page: the replay, zoom) when it has one."""
        past = await self.host.archive.past_game(interaction.guild_id, game_id)
        assert past.view is not None
        key = (past.game_id, "final", None)
        overview, chart, board = await asyncio.gather(
            self.pictures.png(past.view, locale, key=key, overview=True),
            self.pictures.png(past.view, locale, key=key, game_over=True),
            self.pictures.png(past.view, locale, key=key))
        drawn = [(overview, "overview.png"), (chart, "game-over.png"), (board, "board.png")]
        url = self._jump_url(past.guild_id, past.channel_id, past.over_message_id)
        page = await board_link(self.host, past.game_id)
        shown = posts.layout(past_game_text(past, url, locale), [name for png, name in drawn if png is not None],
                             [board_button(page, locale)] if page is not None else [], colour=None)
        await interaction.followup.send(view=shown, files=files(*drawn), ephemeral=True,
                                        allowed_mentions=discord.AllowedMentions.none())

    async def _export(self, interaction: discord.Interaction, channel_id: int, game_id: int | None,
                      locale: str) -> None:
        """A finished game's record (deal without the seed, and the moves) as a JSON file."""
        record = await self.host.archive.game_record(interaction.guild_id, channel_id, game_id)
        name = f"santacruz-game-{record['game_id']}.json"
        data = json.dumps(record, ensure_ascii=False, indent=1).encode()
        await reply(interaction, t("bot.export.sent", locale, id=record["game_id"], file=name),
                    file=discord.File(io.BytesIO(data), filename=name))

    @app_commands.command(name="stats", description=describe("stats"))
    @app_commands.describe(player=option("stats", "player"), leaderboard=option("stats", "leaderboard"))
    @app_commands.choices(leaderboard=BOARD_CHOICES)
    async def stats(self, interaction: discord.Interaction, player: discord.User | None = None,
                    leaderboard: str | None = None) -> None:
        """A player's statistics on this server; with ``leaderboard``, this server's leaderboard ordered that way."""
        guild_only(interaction)
        assert interaction.guild_id is not None
        by = chosen(leaderboard, BOARD_CHOICES)
        if by is not None and player is not None:
            raise Refusal("bot.stats.player_or_leaderboard")
        locale = await self._locale(interaction)
        if by is not None:
            board = await self.host.archive.leaderboard(interaction.guild_id, interaction.user.id, by)
            await reply(interaction, leaderboard_text(board, interaction.user.id, locale),
                        view=leaderboard_view(board, locale) or discord.utils.MISSING)
            return
        who = player or interaction.user
        await interaction.response.defer(ephemeral=True, thinking=True)
        stats = await self.host.archive.stats(interaction.guild_id, who.id)
        speed = await self.host.archive.turn_speed(interaction.guild_id, who.id)
        if stats is None:
            await reply(interaction, t("bot.stats.none", locale, name=esc(who.display_name)))
            return
        if not stats.games:  # only games with hints or taken over: no record to draw
            await reply(interaction, stats_text(stats, locale, speed))
            return
        titles = (t("bot.stats.chart_rating", locale), t("bot.stats.chart_score", locale))
        png = await asyncio.to_thread(render_stats, stats.rating_history, stats.scores, titles=titles)
        await reply(interaction, stats_text(stats, locale, speed), files=files((png, "stats.png")))

    async def leaderboard_page(self, interaction: discord.Interaction, by: str, page: int) -> None:
        """A leaderboard's previous/next button (the page is in its custom id: it works after a restart)."""
        guild_only(interaction)
        assert interaction.guild_id is not None
        locale = await self._locale(interaction)
        board = await self.host.archive.leaderboard(interaction.guild_id, interaction.user.id, by, page)
        await interaction.response.edit_message(content=leaderboard_text(board, interaction.user.id, locale),
                                                view=leaderboard_view(board, locale), allowed_mentions=ALLOWED_MENTIONS)
