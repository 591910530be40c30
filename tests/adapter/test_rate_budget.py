"""One bot process on SQLite keeps under Discord's global limit (lowered here, in the fake and in ``GLOBAL_RATE_LIMIT``,
to 10 requests per second) even when a start owes many posts at once. Two bot processes (shards 0 and 1) over one
PostgreSQL share Discord's limits: together they keep under the
global limit, and they start
their shards one ``shard_id % max_concurrency`` key at a time (the fake refuses an IDENTIFY too soon, as Discord
does). Each process running its own discord.py alone draws global 429s and Invalid Sessions for both. And in one
bot on PostgreSQL every request that counts against the global limit took a token, from login's first one (the
application's emojis uploaded at start too), tidying edits marked as such, and under per-route limits (lowered) it
waited each emptied bucket out from the headers without ever drawing a 429."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from types import SimpleNamespace

import aiohttp
import discord
import pytest

from bot.adapter.rate_limits import SWEEP_EVERY, meter, sweep_seldom
from bot.host import metrics
from bot.host.host import Host
from bot.host.metrics import REGISTRY
from bot.host.postgres_store import PostgresStore
from bot.host.rate_budget import IDENTIFY_SPACING, SPAN, LocalBudget
from bot.host.settings import Settings
from bot.host.store import Store
from bot.host.table import DAY
from i18n import t
from tests.fakediscord import FakeDiscord
from tests.fakediscord.rate_limits import RouteLimit
from tests.helpers.driver import Driver, running
from tests.helpers.shards import TIMEOUT, two_shard_bots

LIMIT = 10
ONE_AT_A_TIME = (RouteLimit("POST", "/channels/{channel_id}/messages", 1, 0.25, "message create"),
                 RouteLimit("PATCH", "/channels/{channel_id}/messages/{message_id}", 1, 0.25, "message edit"))
"""Discord's per-route limits of posts and edits in a channel (or a DM), lowered to one per quarter second: every post
and edit empties its bucket, and the next one in the same channel must wait for it, as the headers say."""
CHANNELS = 6
"""Lobbies per server: every one closes at start-up, each with a post and its lobby message redrawn."""


@pytest.mark.discord_limits(global_limit=LIMIT)
async def test_one_process_closing_many_lobbies_at_its_start_sends_no_global_429(fake_discord: FakeDiscord,
                                                                                tmp_path: Path) -> None:
    fake = fake_discord
    guild = fake.add_guild("Lobbies", owner="alice", channels=[f"c{i}" for i in range(2 * CHANNELS)])
    channels = [channel for channel in fake.channels.values() if channel.guild_id == guild.id]
    settings = Settings(database_path=str(tmp_path / "games.db"), global_rate_limit=LIMIT)
    store = await Store.open(settings.database_path)
    try:
        host = Host(store, settings, clock=lambda: time.time() - 8 * DAY)  # LOBBY_DAYS (7) ran out a day ago
        await host.load()
        for channel in channels:
            await host.lobby.open(channel.id, guild.id, fake.user("alice").id, "alice")
    finally:
        await store.close()
    closed = t("bot.stale.lobby_closed", "en", days="7 days")
    async with running(Driver(fake, settings, channel=channels[0].id)):
        await fake.wait_until(lambda: all(any(closed in m.content for m in fake.messages(c)) for c in channels),
                              timeout=TIMEOUT, poll=0.1, description="every lobby's closing post")
    limits = fake.rate_limits
    assert limits.refused["global"] == 0, f"{limits.refused['global']} global 429s"
    assert limits.busiest_second() >= LIMIT * 3 // 4, "the limit was never pressed: the test shows nothing"
    assert len(limits.counted) > 2 * LIMIT


async def test_two_processes_closing_many_lobbies_at_once_send_no_global_429(postgres: PostgresStore, pg_url: str,
                                                                             tmp_path: Path) -> None:
    async with FakeDiscord(shard_count=2, populate=False, max_concurrency=2, global_limit=LIMIT) as fake:
        alice = fake.add_user("alice")
        channels = [channel for shard in (0, 1) for guild in [fake.add_guild(
            f"Server {shard}", owner="alice", shard=(shard, 2), channels=[f"c{i}" for i in range(CHANNELS)])]
            for channel in fake.channels.values() if channel.guild_id == guild.id]
        week_ago = time.time() - 8 * DAY  # the lobbies opened eight days ago: LOBBY_DAYS (7) ran out a day ago
        host = Host(postgres, Settings(database_url=pg_url), clock=lambda: week_ago)
        await host.load()
        for channel in channels:
            await host.lobby.open(channel.id, channel.guild_id, alice.id, "alice")
        closed = t("bot.stale.lobby_closed", "en", days="7 days")

        async with two_shard_bots(fake, pg_url, tmp_path, GLOBAL_RATE_LIMIT=str(LIMIT)):
            def all_told() -> bool:
                return all(any(closed in m.content for m in fake.messages(c)) for c in channels)
            await fake.wait_until(all_told, timeout=TIMEOUT, poll=0.1, description="every lobby's closing post")

        limits = fake.rate_limits
        assert limits.refused["global"] == 0, f"{limits.refused['global']} global 429s"
        assert limits.busiest_second() >= LIMIT * 3 // 4, "the limit was never pressed: the test shows nothing"
        assert len(limits.counted) > 2 * LIMIT


async def test_two_processes_start_their_shards_one_concurrency_key_at_a_time(pg_url: str, tmp_path: Path) -> None:
    async with FakeDiscord(shard_count=2, populate=False) as fake:  # max_concurrency 1, as Discord gives most bots
        fake.add_user("alice")
        for shard in (0, 1):
            fake.add_guild(f"Server {shard}", owner="alice", shard=(shard, 2))
        async with two_shard_bots(fake, pg_url, tmp_path):
            pass
        limits = fake.rate_limits
        assert not limits.refused_identifies, f"IDENTIFYs too soon: {limits.refused_identifies}"
        (first, _), (second, _) = limits.identifies
        assert sorted(shard for _, shard in limits.identifies) == [0, 1]
        assert second - first >= IDENTIFY_SPACING


def tokens_taken() -> dict[str, float]:
    """Tokens taken from the shared budget in this process so far, by priority (the metric counts each take)."""
    return {priority: REGISTRY.get_sample_value("santacruz_discord_budget_wait_seconds_count",
                                                {"priority": priority}) or 0.0 for priority in ("post", "cosmetic")}


@pytest.mark.discord_limits(route_limits=ONE_AT_A_TIME)
async def test_each_request_a_bot_sends_takes_a_token_and_tidying_edits_are_marked(fake_discord: FakeDiscord,
                                                                                  pg_url: str) -> None:
    fake = fake_discord
    settings = Settings(database_url=pg_url, ai_strength="random", ai_seconds=0.05, picture_width=800)
    driver = Driver(fake, settings, channel="games", emojis_before=False)  # the start uploads the emojis
    counted, taken = len(fake.rate_limits.counted), tokens_taken()
    await driver.start()  # login's own requests, the emoji uploads, the commands synced, the gateway's address
    try:
        uploads = [r for r in fake.requests if r.method == "POST" and r.path.endswith("/emojis")]
        assert uploads and all(r.status == 201 for r in uploads)
        await driver.open_game(["alice", "bob"])
        await driver.settle()
        for _ in range(2):  # each post takes Undo off the one before; each turn DM is told that its turn passed
            await driver.play_turn("dm")
            await driver.settle()
        now = tokens_taken()
        took = {priority: now[priority] - taken[priority] for priority in now}
        assert sum(took.values()) == len(fake.rate_limits.counted) - counted  # interaction answers took none
        assert took["cosmetic"] >= 2 and took["post"] >= 3 + len(uploads), took
        assert any(r.response_headers.get("X-RateLimit-Remaining") == "0" for r in fake.requests)
        assert not fake.rate_limits.refused, fake.rate_limits.refused  # each emptied bucket waited out: never a 429
    finally:
        await driver.stop()


async def test_a_request_that_has_its_connection_only_after_its_token_s_slot_takes_another(
        fake_discord: FakeDiscord) -> None:
    """A request takes its token before aiohttp finds it a connection; one that had to be made (here it takes 0.3 s)
    leaves after the token's slot is over, so the request takes another then, counted where it goes (and, having left
    late, widens the window for a while); a request whose connection is there at once takes one token."""
    budget = LocalBudget(50)
    metered = aiohttp.TraceConfig()
    meter(metered, lambda: budget, lambda: fake_discord.application_id)
    slow = aiohttp.TraceConfig()

    async def slow_connection(session: aiohttp.ClientSession, context: SimpleNamespace, params: object) -> None:
        await asyncio.sleep(0.3)

    slow.on_connection_create_start.append(slow_connection)
    retaken = metrics.BUDGET_RETAKEN.labels("connected_late")
    before = retaken._value.get()
    async with aiohttp.ClientSession(trace_configs=[metered, slow]) as session:
        async with session.get(f"{discord.http.Route.BASE}/gateway") as response:
            assert response.status == 200
        assert (budget.granted, retaken._value.get()) == (2, before + 1)
        assert budget.span() > SPAN, "it left 0.3 s after its first token: the window widens for a while too"
        async with session.get(f"{discord.http.Route.BASE}/gateway") as response:  # the connection is reused
            assert response.status == 200
        assert (budget.granted, retaken._value.get()) == (3, before + 1)
    await budget.close()


async def test_discord_py_looks_for_idle_rate_limit_buckets_at_most_once_a_second() -> None:
    """discord.py forgets the buckets idle for five minutes when it makes a new one; every interaction makes its own,
    so it looked through thousands at each: the bot's client lets it look at most once a second, and it still forgets
    the idle ones."""
    loop = asyncio.get_running_loop()
    http = discord.http.HTTPClient(loop)
    sweep_seldom(http)

    def idle(count: int, name: str) -> None:
        for i in range(count):
            bucket = http.get_ratelimit(f"{name} {i}")
            bucket._last_request = loop.time() - 301  # its last request over five minutes ago

    idle(300, "old")  # discord.py alone would have looked through them at each new one past 256
    assert sum(key.startswith("old") for key in http._buckets) == 300, "looked more than once within a second"
    await asyncio.sleep(SWEEP_EVERY)
    http.get_ratelimit("new")
    assert set(http._buckets) == {"new"}, "a second later, every idle bucket was forgotten"
    idle(300, "older")
    assert sum(key.startswith("older") for key in http._buckets) == 300
    await http.close()
