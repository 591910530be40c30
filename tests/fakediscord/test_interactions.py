"""Interactions through the fake with the real discord.py: the command sync with its localizations, slash commands
(subcommand groups, options, locales, a guild command), autocomplete, answers (ephemeral, edited, deferred with a
followup and a picture), buttons and select menus in a channel and in a DM, modals, two interactions at once, and
the rules Discord holds the bot to (one acknowledgement, no webhook before it, limits, the callback deadline)."""

from __future__ import annotations

import io

import aiohttp
import pytest
from PIL import Image

from tests.fakediscord import EPHEMERAL, CallbackType, FakeDiscord, run_bot
from tests.fakediscord.sample_bot import make_bot, png_bytes


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
        assert message.custom_ids == ["sample:join", "sample:colour"]
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


async def test_view_button_and_select_in_a_guild_channel(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with run_bot(make_bot(fake), fake):
        handle = await fake.slash_command("sc game new", {"players": 2, "title": "V"}, user="alice")
        message = await handle.wait_for_message()

        click = await fake.click_button(message, label="Join", user="bob")
        reply = await click.wait_for_message()
        assert reply.content == "bob joined" and reply.ephemeral
        assert click.payload["message"]["id"] == str(message.id)

        choice = await fake.select(message, "sample:colour", ["blue"], user="carol")
        callback = await choice.wait_for_callback()
        assert callback.kind is CallbackType.UPDATE_MESSAGE
        assert message.content == "carol picked blue" and message.edited
        with pytest.raises(ValueError, match="not an option"):
            fake.build_select(message, "sample:colour", ["purple"])


async def test_view_in_a_dm(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with run_bot(make_bot(fake), fake):
        await fake.slash_command("sc remind", {"player": "bob"}, user="alice")
        dm = await fake.wait_for_dm("bob")
        click = await fake.click_button(dm, "sample:join", user="bob")
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
        submit = await fake.submit_modal(handle, {"sample:name": "Island"})
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


async def test_late_callbacks_fail_when_a_deadline_is_set(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    async with run_bot(make_bot(fake), fake, fail_on_errors=False) as runner:
        fake.callback_deadline = 0.0  # Discord's is 3 s; 0 makes every callback late
        handle = await fake.slash_command("sc count")
        await handle.wait_until(lambda h: h.rejected_callbacks, what="a rejected callback")
        assert handle.rejected_callbacks[0][1].code == 10062 and handle.callback is None
        await fake.wait_until(lambda: runner.errors, description="the bot's error log")
        assert "Unknown interaction" in runner.errors[0]
