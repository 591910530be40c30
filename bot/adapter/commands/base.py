"""What every command feature shares: the parts of the cog it uses, and reading Discord input (where the command was
used, which game it is about, a typed option checked against its choices)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Sequence
from typing import Final

import discord
from discord import app_commands
from discord.app_commands import Choice
from discord.ext import commands

from bot.adapter.background import Background
from bot.adapter.dms import DirectMessages
from bot.adapter.emojis import Emojis
from bot.adapter.errors import ErrorTexts, Refusal
from bot.adapter.publish import Publisher
from bot.adapter.sending import reply
from bot.adapter.translator import locale_text
from bot.adapter.words.common import channel_link, esc
from bot.host.errors import HostError
from bot.host.host import Host
from bot.host.pictures import Pictures
from bot.host.settings import Settings
from bot.host.table import TableInfo
from i18n import t

log = logging.getLogger(__name__)

CHANGE_WAIT: Final = 1.0
"""Seconds a command or a click waits for a change of its game under way in this process (another command's, or
the sweep reading what another process wrote) before it decides from the game: what it offers, asks and refuses
is then decided on the game as it is, not as it was (Discord takes the first answer within 3 s)."""


def describe(name: str) -> app_commands.locale_str:
    """A command's description, translated per language."""
    return locale_text(f"commands.{name}.description")


def option(command: str, name: str) -> app_commands.locale_str:
    """An option's description, translated per language."""
    return locale_text(f"commands.{command}.option.{name}")


def choice(key: str, value: str) -> Choice[str]:
    return Choice(name=locale_text(key), value=value)


def chosen(value: str | None, choices: Sequence[Choice[str]]) -> str | None:
    """``value`` if it is one of an option's ``choices``: Discord offers only those, a forged request may not."""
    if value is None or any(c.value == value for c in choices):
        return value
    raise Refusal("bot.error.bad_value", value=esc(value))


GAME_HERE: Final = "santacruz_game_here"
"""The key of ``interaction.extras`` under which :meth:`Feature._find_game_here` keeps the channel whose game a
command acts on (or the refusal to say if the command needs a game)."""


def guild_only(interaction: discord.Interaction) -> int:
    """The channel of a command that needs a server's channel (a game's), refused in a DM."""
    if interaction.guild_id is None or interaction.channel_id is None:
        raise Refusal("bot.error.guild_only")
    return interaction.channel_id


def can_manage(interaction: discord.Interaction) -> bool:
    """Whether the user may manage the channel (starts, abandons and kicks as if they had opened the game)."""
    return interaction.guild_id is not None and interaction.permissions.manage_channels


class Feature(commands.Cog):
    """The cog's parts a feature uses (set by :class:`bot.adapter.cog.SantaCruzCog`), and what features share. A
    feature is a cog class of its own (so that its commands are typed as a cog's) that is only ever used as a part
    of :class:`~bot.adapter.cog.SantaCruzCog`."""

    bot: commands.Bot
    host: Host
    settings: Settings
    pictures: Pictures
    emojis: Emojis
    dms: DirectMessages
    publisher: Publisher
    background: Background
    errors: ErrorTexts

    async def _locale(self, interaction: discord.Interaction) -> str:
        """The user's language (remembered for the DMs they will get later, after a restart too)."""
        return await self.dms.locale(interaction)

    async def _find_game_here(self, interaction: discord.Interaction) -> None:
        """Which game a command typed in a server's channel acts on (:meth:`bot.host.lobby.Lobby.game_here`), kept with
        the interaction for :meth:`_channel_for`: a refusal is kept too, and said only by a command that needs a
        game. With a shared database, a game in a thread is read again as the command's own channel was."""
        if interaction.guild_id is None or interaction.channel_id is None:
            return
        try:
            channel_id = await self.host.lobby.game_here(interaction.channel_id, interaction.user.id)
        except HostError as exc:
            interaction.extras[GAME_HERE] = exc
            return
        interaction.extras[GAME_HERE] = channel_id
        if channel_id != interaction.channel_id:
            try:
                await self.host.refresh.channel(channel_id, wait=CHANGE_WAIT)
            except HostError as exc:  # the change itself checks again (and says so) if the database is refusing
                log.warning("could not read the game from the database before a command: %s", exc.key)

    def _channel_for(self, interaction: discord.Interaction) -> int:
        """The game's channel: in a server, the one whose game a command typed here acts on (this channel, or the
        user's one game in its threads: :meth:`_find_game_here`), or in a DM the one running game the user plays
        in."""
        if interaction.guild_id is not None and interaction.channel_id is not None:
            found = interaction.extras.get(GAME_HERE, interaction.channel_id)
            if isinstance(found, HostError):
                raise HostError(found.key, **found.params)
            return int(found)
        games = self.host.games.games_of(interaction.user.id)
        if len(games) == 1:
            return int(games[0].channel_id)
        if not games:
            raise Refusal("bot.error.dm_no_game")
        raise Refusal("bot.error.dm_many_games", channels=", ".join(channel_link(g.channel_id) for g in games))

    def _here(self, interaction: discord.Interaction) -> int:
        """The channel of a game command that needs a server's channel (refused in a DM): the one whose game it acts
        on (:meth:`_channel_for`)."""
        guild_only(interaction)
        return self._channel_for(interaction)

    def _game(self, game_id: int) -> TableInfo:
        """The game a button acts on; an outdated button when the host no longer has it."""
        info = self.host.games.find_game(game_id)
        if info is None:
            raise HostError("host.error.stale")
        return info

    def _current(self, game_id: int) -> TableInfo:
        """The game of a lobby or abandon button, refused if the channel has moved on to another game."""
        info = self._game(game_id)
        current = self.host.games.info(info.channel_id)
        if current is None or current.game_id != game_id:
            raise HostError("host.error.stale")
        return current

    def _read_again(self, interaction: discord.Interaction) -> Awaitable[object]:
        """The host's reading of what ``interaction`` acts on as the database has it: the channel's game, or in a
        DM the user's open games (any process may have changed or opened them). One indexed read per game when
        this process's copies are current."""
        if interaction.guild_id is not None and interaction.channel_id is not None:
            return self.host.refresh.channel(interaction.channel_id, wait=CHANGE_WAIT)
        return self.host.refresh.games_of(interaction.user.id, wait=CHANGE_WAIT)

    async def _open_lobby(self, interaction: discord.Interaction, info: TableInfo) -> None:
        """A lobby opened here (``new``, ``rematch``): the outbox posts its message (the host owes it), the answer to
        ``interaction`` says where it is, and the opener's DMs are checked."""
        locale = await self._locale(interaction)
        self.publisher.lobby_changed(info)
        await reply(interaction, t("bot.reply.opened_here", locale))
        if interaction.user.id in info.humans:
            await self.dms.welcome(interaction, info, locale)
