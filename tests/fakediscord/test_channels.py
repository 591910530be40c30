"""Channels, messages and the fake's own tools with the real discord.py: DMs and a user who blocks them, routes
the fake does not know, injected errors and the bot's error log, the report of a wait that timed out, and the JSON of
the world; and a message sent with Components V2 edited over the REST API as Discord allows it."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import discord
import pytest

from tests.fakediscord import FakeDiscord, FakeDiscordTimeout, run_bot
from tests.fakediscord.sample_bot import cog_of, make_bot


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
