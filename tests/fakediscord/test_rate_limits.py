"""The fake Discord enforces Discord's rate limits (:mod:`tests.fakediscord.rate_limits`): per-route buckets with their
headers, counted per channel; the global limit with its 429; interaction endpoints exempt from it; invalid requests
counted up to the ban; the gateway's session start limit and its IDENTIFY spacing. Driven with plain HTTP and a
websocket where the answers themselves are checked, and with discord.py where it must cope with them as it does with
Discord's (it waits out a route's bucket from the headers, and a global 429 from its ``retry_after``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import discord

from tests.fakediscord import FakeDiscord, patch_discord
from tests.fakediscord.rate_limits import DISCORD_ROUTES, RouteLimit
from tests.helpers.clock import Clock


@asynccontextmanager
async def api(fake: FakeDiscord, token: str | None = "default") -> AsyncIterator[Any]:
    """``call(method, path, json)``: one request to the fake's REST API, as (status, headers, body)."""
    headers = {} if token is None else {"Authorization": f"Bot {fake.token if token == 'default' else token}"}
    async with aiohttp.ClientSession() as session:
        async def call(method: str, path: str, body: Any = None) -> tuple[int, Any, Any]:
            async with session.request(method, fake.api_base + path, json=body, headers=headers) as response:
                text = await response.text()
                decoded = await response.json() if response.content_type == "application/json" else text
                return response.status, response.headers, decoded
        yield call


async def test_a_route_answers_its_bucket_and_its_429_per_channel() -> None:
    clock = Clock()
    async with FakeDiscord() as fake, api(fake) as call:
        fake.rate_limits.clock = clock
        games, general = fake.channel("games"), fake.channel("general")
        post = f"/channels/{games.id}/messages"
        remaining = []
        for _ in range(5):
            status, headers, body = await call("POST", post, {"content": "hi"})
            assert status == 200 and headers["Via"] == "1.1 google"
            assert headers["X-RateLimit-Limit"] == "5" and float(headers["X-RateLimit-Reset-After"]) == 5.0
            assert float(headers["X-RateLimit-Reset"]) == clock.now + 5
            remaining.append(int(headers["X-RateLimit-Remaining"]))
        assert remaining == [4, 3, 2, 1, 0]
        bucket = headers["X-RateLimit-Bucket"]
        message_id = body["id"]

        clock.now += 2
        status, headers, body = await call("POST", post, {"content": "one too many"})
        assert status == 429 and headers["X-RateLimit-Scope"] == "user" and headers["Via"] == "1.1 google"
        assert body == {"message": "You are being rate limited.", "retry_after": 3.0, "global": False}
        assert headers["Retry-After"] == "3" and headers["X-RateLimit-Remaining"] == "0"
        assert headers["X-RateLimit-Bucket"] == bucket
        assert len(fake.messages(games)) == 5  # the refused post was not made

        status, headers, _ = await call("POST", f"/channels/{general.id}/messages", {"content": "elsewhere"})
        assert status == 200 and headers["X-RateLimit-Remaining"] == "4"  # another channel, another count
        assert headers["X-RateLimit-Bucket"] == bucket  # of the same limit
        status, headers, _ = await call("PATCH", f"{post}/{message_id}", {"content": "edited"})
        assert status == 200 and headers["X-RateLimit-Remaining"] == "4"  # editing is counted apart
        assert headers["X-RateLimit-Bucket"] != bucket
        status, headers, _ = await call("GET", post)
        assert status == 200 and "X-RateLimit-Bucket" not in headers  # no per-route limit

        clock.now += 3
        status, headers, _ = await call("POST", post, {"content": "again"})
        assert status == 200 and headers["X-RateLimit-Remaining"] == "4"
        assert fake.rate_limits.refused == {"user": 1}


async def test_the_global_limit_answers_429_global_and_spares_interaction_endpoints() -> None:
    clock = Clock()
    async with FakeDiscord(global_limit=3) as fake, api(fake) as call, api(fake, token=None) as anonymous:
        fake.rate_limits.clock = clock
        for _ in range(3):
            assert (await call("GET", "/users/@me"))[0] == 200
        clock.now += 0.25
        status, headers, body = await call("GET", f"/channels/{fake.channel('games').id}")
        assert status == 429 and body == {"message": "You are being rate limited.", "retry_after": 0.75,
                                          "global": True}
        assert headers["X-RateLimit-Global"] == "true" and headers["X-RateLimit-Scope"] == "global"
        assert headers["Retry-After"] == "1" and headers["Via"] == "1.1 google"
        assert (await anonymous("GET", "/gateway"))[0] == 200  # without a token: the address's own limit
        for _ in range(5):  # the interaction endpoints answer as ever (these interactions are unknown)
            assert (await anonymous("POST", "/interactions/1/token/callback", {"type": 1}))[0] == 404
            assert (await anonymous("GET", f"/webhooks/{fake.application_id}/token/messages/@original"))[0] == 404
        clock.now += 0.75
        assert (await call("GET", "/users/@me"))[0] == 200
        assert fake.rate_limits.refused == {"global": 1}


async def test_invalid_requests_are_counted_and_too_many_get_the_address_banned() -> None:
    clock = Clock()
    async with FakeDiscord() as fake, api(fake) as call, api(fake, token="wrong") as intruder:
        fake.rate_limits.clock = clock
        fake.rate_limits.invalid_limit = 6
        assert (await intruder("GET", "/users/@me"))[0] == 401
        assert (await call("GET", "/applications/1/commands"))[0] == 403  # not the bot's application
        games = fake.channel("games").id
        for _ in range(3):  # a bucket of one reaction per quarter second, and the clock stands still: two 429s
            message = fake.add_bot_message("games", "hi").id
            await call("PUT", f"/channels/{games}/messages/{message}/reactions/%F0%9F%8E%B2/@me")
        assert fake.rate_limits.refused == {"user": 2}
        general = f"/channels/{fake.channel('general').id}/messages"
        fake.rate_limits.limit_resource("*", general, 10)
        status, headers, body = await call("POST", general, {"content": "x"})
        assert status == 429 and headers["X-RateLimit-Scope"] == "shared"
        assert body["message"] == "The resource is being rate limited." and body["global"] is False
        assert fake.rate_limits.invalid_count() == 4  # the 401, the 403, the two 429s: the shared one is not counted
        assert not fake.rate_limits.crossed
        for _ in range(2):
            assert (await intruder("GET", "/users/@me"))[0] == 401
        assert fake.rate_limits.crossed == [clock.now]  # the sixth: banned from then on
        status, headers, body = await call("GET", "/users/@me")
        assert status == 429 and "Via" not in headers and body == "error code: 1015"
        clock.now += fake.rate_limits.ban_seconds
        assert (await call("GET", "/users/@me"))[0] == 200


async def test_discord_py_waits_out_a_bucket_and_retries_a_global_429() -> None:
    small = RouteLimit("POST", "/channels/{channel_id}/messages", 2, 0.4, "message create")
    async with FakeDiscord(route_limits=(small,)) as fake, patch_discord(fake):
        client = discord.Client(intents=discord.Intents.none())
        await client.login(fake.token)
        try:
            loop = asyncio.get_running_loop()
            started = loop.time()
            games = client.get_partial_messageable(fake.channel("games").id)
            await asyncio.gather(*(games.send(f"post {i}") for i in range(6)))
            assert loop.time() - started >= 0.8  # three windows of two posts
            assert fake.rate_limits.refused["user"] == 0  # read from the headers: never over the bucket
            fake.rate_limits.global_limit = 4
            await asyncio.sleep(1.0)  # a second without requests: the global window is empty
            channels = [fake.add_text_channel(fake.default_guild, f"c{i}") for i in range(6)]
            await asyncio.gather(*(client.get_partial_messageable(c.id).send("hi") for c in channels))
            assert fake.rate_limits.refused["global"] > 0  # six at once: over the global limit, and sent again
            assert all(len(fake.messages(c)) == 1 for c in channels)
        finally:
            await client.close()


async def gateway_session(fake: FakeDiscord, shard: tuple[int, int]) -> dict[str, Any]:
    """Connect, IDENTIFY as ``shard`` and return the first answer after HELLO (READY, or an Invalid Session)."""
    async with aiohttp.ClientSession() as session, session.ws_connect(fake.gateway_url + "?v=10&encoding=json") as ws:
        hello = await ws.receive_json()
        assert hello["op"] == 10
        await ws.send_json({"op": 2, "d": {"token": fake.token, "intents": 1, "shard": list(shard),
                                           "properties": {"os": "linux", "browser": "test", "device": "test"}}})
        answer: dict[str, Any] = await ws.receive_json()
        return answer


async def test_the_gateway_reports_the_session_start_limit_and_refuses_an_identify_too_soon() -> None:
    clock = Clock()
    async with FakeDiscord(shard_count=4, max_concurrency=2) as fake, api(fake) as call:
        fake.rate_limits.clock = clock
        _, _, body = await call("GET", "/gateway/bot")
        assert body["session_start_limit"] == {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 2}
        assert (await gateway_session(fake, (0, 4)))["t"] == "READY"
        assert (await gateway_session(fake, (1, 4)))["t"] == "READY"  # another key (1 % 2): at once
        clock.now += 4.9
        assert await gateway_session(fake, (2, 4)) == {"op": 9, "d": False}  # 2 % 2 == 0 % 2, 4.9 s later
        clock.now += 0.1
        assert (await gateway_session(fake, (2, 4)))["t"] == "READY"
        _, _, body = await call("GET", "/gateway/bot")
        assert body["session_start_limit"]["remaining"] == 997
        assert body["session_start_limit"]["reset_after"] == 86_400_000 - 5_000
        assert [shard for _, shard in fake.rate_limits.refused_identifies] == [2]


def test_the_route_table_names_each_bucket_once_per_limit() -> None:
    """Routes that share a bucket name share its numbers (Discord's bucket is one limit)."""
    by_bucket: dict[str, set[tuple[int, float]]] = {}
    for route in DISCORD_ROUTES:
        by_bucket.setdefault(route.bucket, set()).add((route.limit, route.period))
    assert all(len(numbers) == 1 for numbers in by_bucket.values()), by_bucket
