"""What ``/metrics`` shows an operator beyond the interactions (``test_operations``), read with prometheus-client's own
parser: the build, the process and garbage-collector collectors, the gateway (latency per shard, new sessions, losses,
resumes), the servers, the event loop's lag, the garbage collections' pauses, database transactions, the 429s
discord.py waits out (by scope), and a turn DM skipped because its turn was played before it went out, counted apart
from the failures."""

from __future__ import annotations

import asyncio
import gc
import time
import tomllib
from pathlib import Path

from bot.adapter.health import HealthServer
from bot.host.settings import Settings
from tests.fakediscord import FakeDiscord
from tests.helpers.driver import Driver
from tests.helpers.http import free_port, get, samples, total

ROOT = Path(__file__).resolve().parents[2]


async def test_metrics_of_the_build_the_process_the_gateway_the_database_and_rate_limits(
        fake_discord: FakeDiscord, settings: Settings) -> None:
    fake = fake_discord
    fake.heartbeat_interval_ms = 200  # discord.py's first heartbeat comes within one interval: its latency is known
    driver = Driver(fake, settings, channel="games")
    port = free_port()
    health: HealthServer | None = None
    try:
        await driver.start()
        health = HealthServer(driver.bot, "127.0.0.1", port)
        await health.start()
        before = samples((await get(f"http://127.0.0.1:{port}/metrics"))[1])  # other tests of this process count too
        started = time.monotonic()
        await driver.open_game(["alice", "bob"])
        await driver.settle()
        channel = driver.channel.id
        fake.rate_limit("POST", rf"/channels/{channel}/messages", scope="shared")  # the next post: 429 once
        await driver.play_turn("slash")
        await driver.settle()
        held = fake.stall("POST", rf"/channels/{channel}/messages")  # the next post waits, and the DMs after it
        await driver.play_turn("slash")
        await held.arrived.wait()
        await driver.play_turn("slash")  # the turn of the turn DM still waiting behind the post is played
        held.release()
        await driver.settle()
        resumed = fake.resumes
        await fake.disconnect()  # a resumable close: discord.py connects again and resumes
        await fake.wait_until(lambda: fake.resumes > resumed, timeout=30, description="a resume")
        await asyncio.sleep(max(0.0, 1.2 - (time.monotonic() - started)))  # the event loop's lag was measured
        gc.collect()  # a full collection, timed like every other
        found: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
        for _ in range(50):  # the resume's event reaches the bot just after the fake sent it
            status, text = await get(f"http://127.0.0.1:{port}/metrics")
            assert status == 200
            now = samples(text)
            found = {key: value - before.get(key, 0.0) for key, value in now.items()}
            if total(found, "santacruz_gateway_events_total", shard="0", event="resume") >= 1:
                break
            await asyncio.sleep(0.1)
    finally:
        if health is not None:
            await health.stop()
        await driver.stop()
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert total(now, "santacruz_build_info", version=version) == 1
    assert total(now, "process_cpu_seconds_total") > 0 and total(now, "process_resident_memory_bytes") > 0
    assert total(now, "python_gc_collections_total") > 0 and total(now, "python_info") == 1
    assert total(now, "santacruz_guilds") == 1
    assert 0 <= total(now, "santacruz_gateway_latency_seconds", shard="0") < 5
    assert total(now, "santacruz_gateway_events_total", shard="0", event="session") >= 1  # at the start
    for event in ("disconnect", "resume"):
        assert total(found, "santacruz_gateway_events_total", shard="0", event=event) >= 1, event
    assert total(found, "santacruz_event_loop_lag_seconds_count") >= 1
    assert total(found, "santacruz_gc_pause_seconds_count", generation="0") >= 1
    assert total(found, "santacruz_gc_pause_seconds_count", generation="2") >= 1
    assert total(found, "santacruz_gc_pause_seconds_sum", generation="2") > 0
    assert total(found, "santacruz_database_seconds_count", kind="write") >= 4  # the moves and their deliveries
    assert total(found, "santacruz_database_seconds_count", kind="read") >= 1
    assert total(found, "santacruz_discord_rate_limits_total", scope="shared", request="message") == 1
    assert total(found, "santacruz_deliveries_skipped_total", kind="turn_dm", reason="turn_passed") >= 1
    assert total(found, "santacruz_deliveries_failed_total") == 0  # a skip is not a failure

