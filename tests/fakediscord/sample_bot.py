"""A small discord.py bot that uses what the fake serves, for the fake's own tests (``test_*.py`` here): a cog with
an ``app_commands.Group`` and a nested group, options, autocomplete, a persistent view with a button and a select menu,
a modal, files, DMs, deferrals, followups and edits, a guild command, and German command names."""

from __future__ import annotations

import asyncio
import io

import discord
from discord import app_commands
from discord.ext import commands
from PIL import Image

from .fixtures import BotRunner
from .server import FakeDiscord


def png_bytes(width: int = 12, height: int = 8) -> bytes:
    """A small red PNG."""
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


GERMAN = {
    "sc": "sc",
    "Santa Cruz commands": "Santa-Cruz-Befehle",
    "game": "spiel",
    "Manage games": "Spiele verwalten",
    "new": "neu",
    "Start a new game": "Ein neues Spiel starten",
    "players": "spieler",
    "How many players": "Wie viele Spieler",
}


class GermanTranslator(app_commands.Translator):
    """Translates a few command strings to German (to fill ``*_localizations``)."""

    async def translate(
        self, string: app_commands.locale_str, locale: discord.Locale, context: app_commands.TranslationContextTypes
    ) -> str | None:
        if locale is discord.Locale.german:
            return GERMAN.get(string.message)
        return None


class GameView(discord.ui.View):
    """A persistent view: fixed custom ids, no timeout."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Join", custom_id="sample:join", style=discord.ButtonStyle.primary)
    async def join(self, interaction: discord.Interaction, button: discord.ui.Button[GameView]) -> None:
        await interaction.response.send_message(f"{interaction.user.name} joined", ephemeral=True)

    @discord.ui.select(
        custom_id="sample:colour",
        placeholder="Pick a colour",
        options=[discord.SelectOption(label=c.title(), value=c) for c in ("red", "blue", "green")],
    )
    async def colour(self, interaction: discord.Interaction, select: discord.ui.Select[GameView]) -> None:
        await interaction.response.edit_message(content=f"{interaction.user.name} picked {select.values[0]}")


class NameModal(discord.ui.Modal, title="Name your game"):
    name: discord.ui.TextInput[NameModal] = discord.ui.TextInput(label="Game name", custom_id="sample:name")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"named {self.name.value}")


class SantaCog(commands.Cog):
    """The commands under test."""

    sc = app_commands.Group(name="sc", description="Santa Cruz commands")
    game = app_commands.Group(name="game", description="Manage games", parent=sc)

    def __init__(self, bot: SantaBot) -> None:
        self.bot = bot
        self.dm_errors: list[discord.HTTPException] = []
        self.pair_arrivals = 0
        self.pair_event = asyncio.Event()

    @game.command(name="new", description="Start a new game")
    @app_commands.describe(players="How many players", title="Name of the game", expert="Use expert rules")
    async def new(
        self,
        interaction: discord.Interaction,
        players: app_commands.Range[int, 2, 4],
        title: str,
        expert: bool = False,
    ) -> None:
        guild_locale = interaction.guild_locale.value if interaction.guild_locale else None
        await interaction.response.send_message(
            f"{title}: {players} players, expert={expert}, locale={interaction.locale.value}, "
            f"guild_locale={guild_locale}",
            view=GameView(),
        )

    @game.command(name="join", description="Join a game")
    async def join(self, interaction: discord.Interaction, game: str) -> None:
        await interaction.response.send_message(f"joined {game}", ephemeral=True)

    @join.autocomplete("game")
    async def join_autocomplete(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        names = ["Alpha", "Alphabet", "Beta", "Gamma"]
        return [app_commands.Choice(name=n, value=n.lower()) for n in names if n.lower().startswith(current.lower())]

    @sc.command(name="board", description="Post the board picture")
    async def board(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        assert interaction.channel is not None and isinstance(interaction.channel, discord.abc.Messageable)
        await interaction.channel.send("Board:", file=discord.File(io.BytesIO(png_bytes()), filename="board.png"))
        await interaction.followup.send("Board posted")

    @sc.command(name="remind", description="DM a player")
    async def remind(self, interaction: discord.Interaction, player: discord.User) -> None:
        try:
            await player.send("Your turn in Santa Cruz", view=GameView())
        except discord.Forbidden as exc:
            self.dm_errors.append(exc)
            await interaction.response.send_message(f"cannot DM {player.name}", ephemeral=True)
        else:
            await interaction.response.send_message(f"reminded {player.name}", ephemeral=True)

    @sc.command(name="count", description="Count to two")
    async def count(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("1")
        await interaction.edit_original_response(content="2")

    @sc.command(name="pair", description="Waits until two of these run at once")
    async def pair(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True)
        self.pair_arrivals += 1
        if self.pair_arrivals == 2:
            self.pair_event.set()
        await asyncio.wait_for(self.pair_event.wait(), 15)
        await interaction.edit_original_response(content=f"paired {interaction.user.name}")

    @sc.command(name="rename", description="Name the game")
    async def rename(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(NameModal())


@app_commands.command(name="admin", description="Guild-only admin command")
async def admin(interaction: discord.Interaction) -> None:
    await interaction.response.send_message(f"admin in {interaction.guild.name if interaction.guild else '?'}")


class SantaBot(commands.Bot):
    """The bot under test: syncs global commands and one guild command in ``setup_hook``."""

    def __init__(self, guild_id: int) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default())
        self.guild_id = guild_id
        self.cog: SantaCog | None = None

    async def setup_hook(self) -> None:
        self.add_view(GameView())  # persistent: survives restarts
        self.cog = SantaCog(self)
        await self.add_cog(self.cog)
        self.tree.add_command(admin, guild=discord.Object(self.guild_id))
        await self.tree.set_translator(GermanTranslator())
        await self.tree.sync()
        await self.tree.sync(guild=discord.Object(self.guild_id))


def make_bot(fake: FakeDiscord) -> SantaBot:
    return SantaBot(fake.default_guild.id)


def cog_of(runner: BotRunner) -> SantaCog:
    bot = runner.bot
    assert isinstance(bot, SantaBot) and bot.cog is not None
    return bot.cog
