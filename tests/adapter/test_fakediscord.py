"""End-to-end tests of the fake Discord server with the real discord.py.

A small ``commands.Bot`` is defined here (a cog with an ``app_commands.Group`` and a nested
group, options, autocomplete, a persistent view with a button and a select menu, a modal,
files, DMs, deferrals, followups and edits) and driven through :class:`FakeDiscord` over
HTTP and the gateway websocket on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import io
import json
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands
from PIL import Image

from tests.fakediscord import (
    EPHEMERAL,
    TINY_PNG,
    BotRunner,
    CallbackType,
    FakeDiscord,
    FakeDiscordTimeout,
    patch_discord,
    run_bot,
)

# --------------------------------------------------------------------------- the test bot


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

    @discord.ui.button(label="Join", custom_id="sc:join", style=discord.ButtonStyle.primary)
    async def join(self, interaction: discord.Interaction, button: discord.ui.Button[GameView]) -> None:
        await interaction.response.send_message(f"{interaction.user.name} joined", ephemeral=True)

    @discord.ui.select(
        custom_id="sc:colour",
        placeholder="Pick a colour",
        options=[discord.SelectOption(label=c.title(), value=c) for c in ("red", "blue", "green")],
    )
    async def colour(self, interaction: discord.Interaction, select: discord.ui.Select[GameView]) -> None:
        await interaction.response.edit_message(content=f"{interaction.user.name} picked {select.values[0]}")


class NameModal(discord.ui.Modal, title="Name your game"):
    name: discord.ui.TextInput[NameModal] = discord.ui.TextInput(label="Game name", custom_id="sc:name")

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


# --------------------------------------------------------------------------- connection


async def test_ready_populates_the_bot_cache(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    guild = fake.default_guild
    async with run_bot(make_bot(fake), fake) as runner:
        bot = runner.bot
        assert bot.user is not None and bot.user.id == fake.bot_user.id
        assert bot.application_id == fake.application_id
        cached = bot.get_guild(guild.id)
        assert cached is not None and cached.name == "Fake Guild"
        assert cached.preferred_locale is discord.Locale.american_english
        assert {c.name for c in cached.text_channels} == {"general", "games"}
        assert cached.me is not None and cached.me.id == fake.bot_user.id
        assert cached.get_role(guild.id) is not None  # @everyone
        assert await bot.user.display_avatar.read() == TINY_PNG  # the CDN is the fake too
        # the gateway handshake, as discord.py 2.7.1 does it
        session = fake.session
        assert session is not None
        assert session.intents == discord.Intents.default().value
        conn = fake.connections[0]
        assert conn.query["v"] == "10" and conn.query["encoding"] == "json"
        assert conn.query["compress"] == "zlib-stream" and conn.compressed
        assert fake.heartbeats >= 1  # discord.py heartbeats right after HELLO
        events = [e["t"] for e in fake.dispatched_events()]
        assert events[:2] == ["READY", "GUILD_CREATE"]
        assert [e["s"] for e in fake.dispatched_events()] == list(range(1, len(events) + 1))
    # discord.py's close() wakes its own reader, which closes the socket with 4000 first
    assert fake.connections[0].close_code == 4000
    assert not fake.is_connected and fake.session is None  # run_bot ended the session
    fake.assert_no_unknown_requests()


async def test_plain_json_frames_when_compression_is_off() -> None:
    async with FakeDiscord(gateway_compression=False) as fake, patch_discord(fake):
        async with run_bot(make_bot(fake), fake):
            handle = await fake.slash_command("sc count")
            await handle.wait_for_original_edit()
        assert not fake.connections[0].compressed


async def test_wrong_token_fails_login(fake_discord: FakeDiscord) -> None:
    runner = BotRunner(make_bot(fake_discord), fake_discord, token="not-the-token")
    with pytest.raises(RuntimeError) as info:
        await runner.start()
    assert isinstance(info.value.__cause__, discord.LoginFailure)
    assert fake_discord.requests[0].status == 401


# --------------------------------------------------------------------------- commands


async def test_commands_are_synced_with_localizations(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with run_bot(make_bot(fake), fake):
        pass
    (sc,) = fake.synced_commands()
    assert sc["name"] == "sc" and sc["description"] == "Santa Cruz commands"
    assert sc["description_localizations"] == {"de": "Santa-Cruz-Befehle"}
    game = next(o for o in sc["options"] if o["name"] == "game")
    assert game["type"] == 2 and game["name_localizations"] == {"de": "spiel"}
    new = next(o for o in game["options"] if o["name"] == "new")
    assert new["type"] == 1 and new["description_localizations"] == {"de": "Ein neues Spiel starten"}
    players, title, expert = new["options"]
    assert (players["name"], players["type"], players["required"]) == ("players", 4, True)
    assert (players["min_value"], players["max_value"]) == (2, 4)
    assert players["name_localizations"] == {"de": "spieler"}
    assert (title["type"], expert["type"], expert["required"]) == (3, 5, False)
    join = next(o for o in game["options"] if o["name"] == "join")
    assert join["options"][0]["autocomplete"] is True
    # guild scope
    assert [c["name"] for c in fake.synced_commands(fake.default_guild)] == ["admin"]
    assert fake.synced_command("admin", fake.default_guild)["guild_id"] == str(fake.default_guild.id)
    assert [scope for scope, _ in fake.command_syncs] == [None, fake.default_guild.id]


async def test_slash_command_with_subcommand_group_options_and_locales(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with run_bot(make_bot(fake), fake):
        handle = await fake.slash_command("sc game new", {"players": 3, "title": "Cozy"}, user="bob")
        callback = await handle.wait_for_callback()
        assert callback.kind is CallbackType.CHANNEL_MESSAGE_WITH_SOURCE
        assert not callback.ephemeral
        assert callback.content == "Cozy: 3 players, expert=False, locale=de, guild_locale=en-US"
        # the response is a stored channel message carrying the view
        message = handle.original_message
        assert message is not None and message in fake.messages(fake.default_channel)
        assert message.custom_ids == ["sc:join", "sc:colour"]
        assert message.interaction_metadata is not None
        assert message.interaction_metadata["user"]["id"] == str(fake.user("bob").id)

        # explicit locales and a boolean option
        handle = await fake.slash_command(
            "sc game new",
            {"players": 4, "title": "Fr", "expert": True},
            user="carol",
            channel="games",
            locale="fr",
            guild_locale="de",
        )
        msg = await handle.wait_for_message()
        assert msg.content == "Fr: 4 players, expert=True, locale=fr, guild_locale=de"
        assert msg.channel_id == fake.channel("games").id

        # the builder checks names and required options against the synced schema
        with pytest.raises(ValueError, match="no option"):
            fake.build_slash_command("sc game new", {"players": 2, "title": "x", "bogus": 1})
        with pytest.raises(ValueError, match="requires options"):
            fake.build_slash_command("sc game new", {"players": 2})
        with pytest.raises(LookupError):
            fake.build_slash_command("nope")
    fake.assert_no_unknown_requests()


async def test_guild_command(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with run_bot(make_bot(fake), fake):
        handle = await fake.slash_command("admin")
        assert handle.data["guild_id"] == str(fake.default_guild.id)
        msg = await handle.wait_for_message()
        assert msg.content == "admin in Fake Guild"


async def test_autocomplete(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with run_bot(make_bot(fake), fake):
        handle = await fake.autocomplete("sc game join", focused="game", current="alp", user="alice")
        callback = await handle.wait_for_callback()
        assert callback.kind is CallbackType.APPLICATION_COMMAND_AUTOCOMPLETE_RESULT
        assert callback.choices == [{"name": "Alpha", "value": "alpha"}, {"name": "Alphabet", "value": "alphabet"}]
        focused = handle.data["options"][0]["options"][0]["options"][0]
        assert focused == {"name": "game", "type": 3, "value": "alp", "focused": True}


async def test_ephemeral_reply(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with run_bot(make_bot(fake), fake):
        handle = await fake.slash_command("sc game join", {"game": "alpha"}, user="alice")
        callback = await handle.wait_for_callback()
        assert callback.ephemeral and callback.flags & EPHEMERAL
        msg = await handle.wait_for_message()
        assert msg.ephemeral and msg.content == "joined alpha"
        assert fake.messages(ephemeral=False) == []


async def test_edit_original_response(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with run_bot(make_bot(fake), fake):
        handle = await fake.slash_command("sc count")
        msg = await handle.wait_for_original_edit()
        assert msg.content == "2" and msg.edited
        assert msg.history[0]["content"] == "1"
        assert len(handle.original_edits) == 1 and handle.original_edits[0]["content"] == "2"
        assert fake.requests_to("PATCH", r"/webhooks/\d+/[^/]+/messages/@original")


async def test_deferred_response_followup_and_png_attachment(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with run_bot(make_bot(fake), fake):
        handle = await fake.slash_command("sc board", user="alice")
        callback = await handle.wait_for_callback()
        assert callback.kind is CallbackType.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE
        followup = await handle.wait_for_followup()
        assert followup.content == "Board posted"
        # after a type 5 deferral the first followup fills the "thinking" message
        assert followup.id == handle.original_message_id and not followup.loading

        board = await fake.wait_for_message(fake.default_channel, lambda m: m.attachments)
        assert board.content == "Board:"
        (attachment,) = board.attachments
        assert attachment.filename == "board.png" and attachment.content_type == "image/png"
        assert attachment.data == png_bytes() and attachment.size == len(png_bytes())
        with Image.open(io.BytesIO(attachment.data)) as image:
            assert image.size == (12, 8)
        upload = fake.requests_to("POST", rf"/channels/{fake.default_channel.id}/messages")[0]
        assert upload.json["content"] == "Board:"
        assert upload.files[0].filename == "board.png" and upload.files[0].data == attachment.data


async def test_dm_and_blocked_dm(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    fake.block_dms("carol")
    async with run_bot(make_bot(fake), fake) as runner:
        handle = await fake.slash_command("sc remind", {"player": fake.user("bob")}, user="alice")
        assert (await handle.wait_for_message()).content == "reminded bob"
        dm = await fake.wait_for_dm("bob")
        assert dm.content == "Your turn in Santa Cruz"
        assert fake.dm_messages("bob") == [dm] and dm.channel_id == fake.dm_channel("bob").id
        assert fake.requests_to("POST", "/users/@me/channels")[0].json == {"recipient_id": fake.user("bob").id}

        handle = await fake.slash_command("sc remind", {"player": "carol"}, user="alice")
        reply = await handle.wait_for_message()
        assert reply.content == "cannot DM carol" and reply.ephemeral
        (error,) = cog_of(runner).dm_errors
        assert isinstance(error, discord.Forbidden)
        assert (error.status, error.code, error.text) == (403, 50007, "Cannot send messages to this user")
        assert fake.dm_messages("carol") == []


async def test_view_button_and_select_in_a_guild_channel(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with run_bot(make_bot(fake), fake):
        handle = await fake.slash_command("sc game new", {"players": 2, "title": "V"}, user="alice")
        message = await handle.wait_for_message()

        click = await fake.click_button(message, label="Join", user="bob")
        reply = await click.wait_for_message()
        assert reply.content == "bob joined" and reply.ephemeral
        assert click.payload["message"]["id"] == str(message.id)

        choice = await fake.select(message, "sc:colour", ["blue"], user="carol")
        callback = await choice.wait_for_callback()
        assert callback.kind is CallbackType.UPDATE_MESSAGE
        assert message.content == "carol picked blue" and message.edited
        with pytest.raises(ValueError, match="not an option"):
            fake.build_select(message, "sc:colour", ["purple"])


async def test_view_in_a_dm(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with run_bot(make_bot(fake), fake):
        await fake.slash_command("sc remind", {"player": "bob"}, user="alice")
        dm = await fake.wait_for_dm("bob")
        click = await fake.click_button(dm, "sc:join", user="bob")
        assert "guild_id" not in click.payload and click.payload["user"]["id"] == str(fake.user("bob").id)
        reply = await click.wait_for_message()
        assert reply.content == "bob joined" and reply.channel_id == dm.channel_id
        # a slash command in the DM
        handle = await fake.slash_command("sc game join", {"game": "beta"}, user="bob", channel=fake.dm_channel("bob"))
        assert handle.payload["context"] == 1 and "guild_locale" not in handle.payload
        assert (await handle.wait_for_message()).content == "joined beta"
        with pytest.raises(ValueError, match="cannot act in the DM"):
            fake.build_slash_command("sc count", user="alice", channel=fake.dm_channel("bob"))


async def test_modal(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with run_bot(make_bot(fake), fake):
        handle = await fake.slash_command("sc rename", user="alice")
        callback = await handle.wait_for_callback()
        assert callback.kind is CallbackType.MODAL and callback.data is not None
        assert callback.data["title"] == "Name your game"
        submit = await fake.submit_modal(handle, {"sc:name": "Island"})
        assert (await submit.wait_for_message()).content == "named Island"


async def test_concurrent_interactions(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with run_bot(make_bot(fake), fake):
        first = fake.build_slash_command("sc pair", user="alice")
        second = fake.build_slash_command("sc pair", user="bob")
        await fake.dispatch_interactions(first, second)  # both in flight before either is answered
        answers = [await h.wait_for_message(lambda m: not m.loading) for h in (first, second)]
        assert [m.content for m in answers] == ["paired alice", "paired bob"]
        assert all(m.ephemeral for m in answers)


async def test_restart_keeps_persistent_views_working(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with run_bot(make_bot(fake), fake):
        handle = await fake.slash_command("sc game new", {"players": 2, "title": "Old"})
        message = await handle.wait_for_message()
    assert not fake.is_connected

    # a fresh bot object, same fake: the old message's button still works
    async with run_bot(make_bot(fake), fake):
        assert len(fake.sessions) == 2
        click = await fake.click_button(message, "sc:join", user="carol")
        assert (await click.wait_for_message()).content == "carol joined"
    assert len(fake.command_syncs) == 4  # each start synced global + guild


async def test_reconnect_resumes_the_session(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with run_bot(make_bot(fake), fake):
        session = fake.session
        await fake.disconnect()
        # dispatched while the bot may still be away: kept, and replayed on RESUME if needed
        handle = await fake.slash_command("sc count")
        await handle.wait_for_original_edit()
        assert fake.resumes == 1 and fake.session is session
        assert len(fake.connections) == 2 and fake.connections[1].query.get("v") == "10"
        # RECONNECT (op 7) also resumes
        await fake.request_reconnect()
        await fake.wait_until(lambda: fake.resumes == 2, description="a second RESUME")
        handle = await fake.slash_command("sc count")
        await handle.wait_for_original_edit()


# --------------------------------------------------------------------------- fake behaviour


async def test_unknown_routes_are_recorded_and_answer_404(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with run_bot(make_bot(fake), fake) as runner:
        with pytest.raises(discord.NotFound):
            await runner.bot.http.request(discord.http.Route("GET", "/nothing/here"))
    (unknown,) = fake.unknown_requests
    assert unknown.route == "GET /nothing/here" and unknown.status == 404
    assert unknown.response == {"message": "404: Not Found", "code": 0}
    with pytest.raises(AssertionError, match="unknown routes"):
        fake.assert_no_unknown_requests()


async def test_interaction_rules_enforced_by_the_fake(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with run_bot(make_bot(fake), fake):
        handle = await fake.slash_command("sc count")
        await handle.wait_for_original_edit()
        api = fake.api_base
        async with aiohttp.ClientSession() as http:
            # a second acknowledgement is refused
            url = f"{api}/interactions/{handle.id}/{handle.token}/callback"
            async with http.post(url, json={"type": 4, "data": {"content": "again"}}) as resp:
                assert resp.status == 400 and (await resp.json())["code"] == 40060
            # the webhook of an unacknowledged interaction does not exist yet
            pending = fake.build_slash_command("sc count")
            async with http.post(
                f"{api}/webhooks/{fake.application_id}/{pending.token}", json={"content": "x"}
            ) as resp:
                assert resp.status == 404 and (await resp.json())["code"] == 10015
            # Discord's limits are checked
            body = {"content": "x" * 2001}
            headers = {"Authorization": f"Bot {fake.token}"}
            async with http.post(
                f"{api}/channels/{fake.default_channel.id}/messages", json=body, headers=headers
            ) as resp:
                error = await resp.json()
                assert resp.status == 400 and error["code"] == 50035 and "content" in error["errors"]
            async with http.post(
                f"{api}/channels/{fake.default_channel.id}/messages", json={}, headers=headers
            ) as resp:
                assert (await resp.json())["code"] == 50006
            async with http.get(f"{api}/users/@me") as resp:
                assert resp.status == 401
    assert handle.rejected_callbacks and handle.rejected_callbacks[0][1].code == 40060


async def test_injected_errors_and_captured_bot_errors(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with run_bot(make_bot(fake), fake, fail_on_errors=False) as runner:
        fake.inject_error("POST", rf"/channels/{fake.default_channel.id}/messages")  # 403 Missing Permissions
        handle = await fake.slash_command("sc board")
        await handle.wait_for_callback()
        # the command's channel.send raised Forbidden, unhandled: discord.py logs it
        await fake.wait_until(lambda: runner.errors, description="the bot's error log")
        assert "Missing Permissions" in runner.errors[0] and fake.bot_errors == runner.errors
        assert not [m for m in fake.messages(fake.default_channel) if m.attachments]
        # the injection was for one request only
        handle = await fake.slash_command("sc board")
        assert (await handle.wait_for_followup()).content == "Board posted"
    with pytest.raises(AssertionError, match="Missing Permissions"):
        runner.assert_no_errors()


async def test_late_callbacks_fail_when_a_deadline_is_set(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with run_bot(make_bot(fake), fake, fail_on_errors=False) as runner:
        fake.callback_deadline = 0.0  # Discord's is 3 s; 0 makes every callback late
        handle = await fake.slash_command("sc count")
        await handle.wait_until(lambda h: h.rejected_callbacks, what="a rejected callback")
        assert handle.rejected_callbacks[0][1].code == 10062 and handle.callback is None
        await fake.wait_until(lambda: runner.errors, description="the bot's error log")
        assert "Unknown interaction" in runner.errors[0]


async def test_wait_timeouts_explain_what_happened(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with run_bot(make_bot(fake), fake):
        handle = await fake.slash_command("sc count")
        await handle.wait_for_original_edit()
        with pytest.raises(FakeDiscordTimeout, match="followup #1") as info:
            await handle.wait_for_followup(timeout=0.05)
        assert "last requests" in str(info.value)


def test_payload_shapes_are_json_serialisable() -> None:
    fake = FakeDiscord()
    guild = fake.default_guild
    payloads: list[Any] = [guild.to_payload(gateway=True), fake.dm_channel("bob").to_payload()]
    payloads += [u.to_payload() for u in fake.users.values()]
    for payload in payloads:
        json.dumps(payload)
    assert guild.to_payload(gateway=True)["preferred_locale"] == "en-US"
    assert {m.user.name for m in guild.members.values()} == {"FakeBot", "alice", "bob", "carol"}


# --------------------------------------------------------------------------- threads


async def test_threads_archive_when_idle_unarchive_on_a_post_and_refuse_edits_while_archived(
        fake_discord: FakeDiscord) -> None:
    """As Discord's threads topic says: a thread archives after its ``auto_archive_duration`` minutes without
    activity; sending a message to it unarchives it (THREAD_UPDATE first) unless a moderator locked it (160005);
    editing a message in an archived thread answers 50083, and no command can be used there; creating one needs
    Create Public Threads, posting in one Send Messages in Threads, both inherited from its channel (and missing from
    an interaction's ``app_permissions``); the bot may unarchive a locked thread it started."""
    fake = fake_discord
    async with run_bot(make_bot(fake), fake) as runner:
        bot = runner.bot
        channel = bot.get_channel(fake.channel("games").id)
        assert isinstance(channel, discord.TextChannel)
        lobby = await channel.send("a game opens")
        thread = await lobby.create_thread(name="Game 1 · alice", auto_archive_duration=10080)
        assert (thread.id, thread.parent_id, thread.auto_archive_duration) == (lobby.id, channel.id, 10080)
        with pytest.raises(discord.HTTPException) as bad:
            await bot.http.start_thread_without_message(channel.id, name="x", auto_archive_duration=30, type=11)
        assert (bad.value.status, bad.value.code) == (400, 50035)
        [refused] = fake.take_refused_bodies()  # sent on purpose: Discord's description refuses it as the fake does
        assert "auto_archive_duration" in refused
        post = await thread.send("move 1")
        fake_thread = fake.channel(thread.id)
        start = fake_thread.active_at
        assert await fake.archive_inactive_threads(start + 10080 * 60 - 1) == []
        assert await fake.archive_inactive_threads(start + 10080 * 60) == [fake_thread]
        assert channel.guild.get_thread(thread.id) is not None
        # discord.py keeps active threads only: THREAD_UPDATE archived drops it from the cache
        await fake.wait_until(lambda: channel.guild.get_thread(thread.id) is None, description="THREAD_UPDATE archived",
                              poll=0.01)
        with pytest.raises(discord.HTTPException) as archived:
            await post.edit(content="move 1, struck")
        assert (archived.value.status, archived.value.code) == (400, 50083)
        with pytest.raises(ValueError, match="archived thread"):  # nobody can use a command there
            fake.build_slash_command("sc count", user="alice", channel=fake_thread)
        events = len(fake.dispatched_events())
        await thread.send("move 2")  # a post unarchives it
        assert not fake_thread.archived
        assert [e["t"] for e in fake.dispatched_events()[events:]][:2] == ["THREAD_UPDATE", "MESSAGE_CREATE"]
        active = await fake.wait_until(lambda: channel.guild.get_thread(thread.id), description="THREAD_UPDATE active",
                                       poll=0.01)
        assert not active.archived and active.auto_archive_duration == 10080
        await post.edit(content="move 1, struck")
        await fake.archive_thread(fake_thread, locked=True)  # a moderator's lock: posting does not unarchive it
        with pytest.raises(discord.HTTPException) as locked:
            await thread.send("move 3")
        assert (locked.value.code, locked.value.text) == (160005, "Thread is locked")
        fake.deny_permission("games", "create_public_threads")
        fake.deny_permission("games", "send_messages_in_threads")
        with pytest.raises(discord.Forbidden) as denied:
            await (await channel.send("another game")).create_thread(name="Game 2 · alice")
        assert denied.value.code == 50013
        # a thread has its channel's permissions, and an interaction's app_permissions lack what is denied there
        await thread.edit(archived=False)  # the bot started it: it may unarchive it though it is locked
        with pytest.raises(discord.Forbidden):
            await thread.send("move 3")  # Send Messages in Threads is denied in its channel
        allowed = fake.build_slash_command("sc count", user="alice", channel="games").payload
        permissions = discord.Permissions(int(allowed["app_permissions"]))
        assert not permissions.create_public_threads and not permissions.send_messages_in_threads
        assert permissions.send_messages
        await fake.delete_channel(fake_thread)
        await fake.wait_until(lambda: channel.guild.get_thread(thread.id) is None, description="THREAD_DELETE",
                              poll=0.01)


async def test_a_message_sent_with_components_v2_keeps_the_flag_and_takes_no_content(
        fake_discord: FakeDiscord) -> None:
    """Discord: "Once a message has been sent with this flag, it can't be removed from that message", and the flag
    disables content and embeds; so an edit may neither drop the flag nor bring content, with or without the flag."""
    fake = fake_discord
    api, channel = fake.api_base, fake.default_channel.id
    headers = {"Authorization": f"Bot {fake.token}"}
    text = {"type": 17, "components": [{"type": 10, "content": "a turn"}]}
    async with aiohttp.ClientSession(headers=headers) as http:
        async with http.post(f"{api}/channels/{channel}/messages",
                             json={"flags": 1 << 15, "components": [text]}) as resp:
            assert resp.status == 200
            message = f"{api}/channels/{channel}/messages/{(await resp.json())['id']}"
        for refused, where in (({"content": "turn played"}, "content"), ({"flags": 0, "components": [text]}, "flags"),
                               ({"content": "turn played", "components": []}, "content")):
            async with http.patch(message, json=refused) as resp:
                error = await resp.json()
                assert resp.status == 400 and error["code"] == 50035 and where in error["errors"], (refused, error)
        async with http.patch(message, json={"components": [{**text, "components": [
                {"type": 10, "content": "turn played"}]}]}) as resp:
            edited = await resp.json()
            assert resp.status == 200 and edited["flags"] & (1 << 15) and edited["content"] == ""
