"""A person's own things, on every server: ``/santacruz games`` (their open games), ``/santacruz settings`` (time zone,
quiet hours, reminders, turn DMs; its time zone autocomplete) and "Forget me…" below the settings (asked, then
confirmed by its owner alone: :class:`bot.adapter.items.Checked`)."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.app_commands import Choice, Range

from bot.adapter import options
from bot.adapter.commands.base import Feature, describe, option
from bot.adapter.errors import Refusal
from bot.adapter.sending import reply
from bot.adapter.views import forget_view, settings_view
from bot.adapter.words.person import games_text, settings_text
from bot.host.user_settings import MAX_REMINDER_HOURS
from i18n import t


class PersonCommands(Feature):
    """A person's games and settings, and forgetting them."""

    @app_commands.command(name="games", description=describe("games"))
    async def games(self, interaction: discord.Interaction) -> None:
        """Every open game the user sits in, on every server (read from the database), theirs to move first."""
        await interaction.response.defer(ephemeral=True, thinking=True)  # the host reads the database
        locale = await self._locale(interaction)
        games = await self.host.people.open_games_for(interaction.user.id)
        deadlines = {g.game_id: until for g in games if g.status == "running"
                     and (until := await self.host.deadlines.turn_deadline(g.game_id)) is not None}
        usual = {g.game_id: await self.host.archive.usual_speeds(g.guild_id, [user_id for user_id, _ in g.people])
                 for g in games}
        await reply(interaction, games_text(games, locale, deadlines, usual),
                    allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name="settings", description=describe("settings"))
    @app_commands.describe(time_zone=option("settings", "time_zone"), quiet_from=option("settings", "quiet_from"),
                           quiet_to=option("settings", "quiet_to"), quiet_off=option("settings", "quiet_off"),
                           reminders=option("settings", "reminders"),
                           reminder_hours=option("settings", "reminder_hours"), turn_dms=option("settings", "turn_dms"),
                           server_web=option("settings", "server_web"))
    async def settings_(self, interaction: discord.Interaction, time_zone: str | None = None,
                        quiet_from: Range[int, 0, 23] | None = None, quiet_to: Range[int, 0, 23] | None = None,
                        quiet_off: bool = False, reminders: bool | None = None,
                        reminder_hours: Range[int, 1, MAX_REMINDER_HOURS] | None = None,
                        turn_dms: bool | None = None, server_web: bool | None = None) -> None:
        """The user's own settings: shown as they are, or changed (then shown), with "Forget me…" below; and in a
        server whose bot has web pages, whether its games are on the web (``server_web``: Manage Server only)."""
        locale = await self._locale(interaction)
        server = await self._server_web(interaction, server_web)
        user_id = interaction.user.id
        await self.host.people.refresh_settings()  # another process may have changed them since its last sweep
        if (quiet_from is None) != (quiet_to is None) and not quiet_off:
            raise Refusal("bot.settings.quiet_both")
        quiet = (quiet_from, quiet_to) if quiet_from is not None and quiet_to is not None else None
        asked = (time_zone, quiet, reminders, reminder_hours, turn_dms)
        changing = quiet_off or any(value is not None for value in asked)
        if changing:
            await self.host.people.change_settings(user_id, time_zone=time_zone, quiet=quiet, quiet_off=quiet_off,
                                                   reminders=reminders, reminder_hours=reminder_hours,
                                                   turn_dms=turn_dms)
            await self.publisher.release_held()  # held DMs the change made due go out now
        text = settings_text(self.host.people.settings_of(user_id), locale, now=self.host.outbox.now(),
                             default_hours=self.settings.reminder_hours, saved=changing or server_web is not None)
        if server is not None:
            text = f"{text}\n{t('bot.settings.server_web_on' if server else 'bot.settings.server_web_off', locale)}"
        await reply(interaction, text, view=settings_view(user_id, locale))

    async def _server_web(self, interaction: discord.Interaction, shown: bool | None) -> bool | None:
        """Whether this server's games are on the web, after setting it to ``shown`` (Manage Server only); ``None``
        where that is not a question (a DM, or a bot without web pages)."""
        if interaction.guild_id is None or not self.host.web.enabled:
            if shown is not None:
                raise Refusal("bot.settings.server_web_here")
            return None
        if shown is not None:
            if not interaction.permissions.manage_guild:
                raise Refusal("bot.settings.server_web_manage")
            await self.host.web.set_shown(interaction.guild_id, shown)
            return shown
        return await self.host.web.shown(interaction.guild_id)

    @settings_.autocomplete("time_zone")
    async def _time_zones(self, interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        return options.time_zones(current)

    async def forget_asked(self, interaction: discord.Interaction, user_id: int) -> None:
        """"Forget me…" on a settings panel: the confirm question."""
        locale = await self._locale(interaction)
        await reply(interaction, t("bot.forget.question", locale), view=forget_view(user_id, locale))

    async def forget_confirmed(self, interaction: discord.Interaction, user_id: int) -> None:
        """The confirm button of forget-me: the host forgets the person (results, ratings, names in finished games)."""
        locale = await self._locale(interaction)
        forgotten = await self.host.people.forget_me(user_id)
        await interaction.response.edit_message(
            content=t("bot.forget.done", locale, results=forgotten.results, ratings=forgotten.ratings,
                      games=forgotten.games_renamed), view=None)
