"""Running the bot as operators do: a clean stop on SIGTERM (one ``santacruz-bot`` process on SQLite; two over
PostgreSQL, where the other takes the stopped one's work over at once), the health and metrics server (``/healthz``,
``/readyz`` turning 503 while the database is down and 200 when it is back, ``/metrics`` read with
prometheus-client's own parser and counting a played game), JSON logs without secrets, and a backup taken in the
middle of a game that plays on once restored."""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import time
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.adapter.health import HealthServer
from bot.adapter.main import main as santacruz_bot
from bot.host.backup import BackupError, backup_sqlite
from bot.host.logs import JsonFormatter
from bot.host.postgres_store import PostgresStore
from bot.host.settings import Settings
from engine import SCORING_CARD_IDS
from tests import pgcluster
from tests.fakediscord import FakeDiscord
from tests.fakediscord.child_bot import ChildBot
from tests.fakediscord.remote import RemoteTable, poll
from tests.helpers.driver import Driver
from tests.helpers.http import free_port, get, samples, total
from tests.helpers.shards import TIMEOUT, bot_env, start_process


async def test_health_readiness_through_a_database_outage_and_metrics_of_a_played_game(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    server = pgcluster.Cluster()
    server.start()
    settings = Settings(database_url=server.url, ai_strength="random", ai_seconds=0.05, picture_width=800,
                        busy_timeout=2.0)
    driver = Driver(fake_discord, settings, channel="games")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    health: HealthServer | None = None
    try:
        await driver.start()
        health = HealthServer(driver.bot, "127.0.0.1", port)
        await health.start()
        assert await get(f"{base}/healthz") == (200, "ok\n")
        assert await get(f"{base}/readyz") == (200, "ready\n")
        before = samples((await get(f"{base}/metrics"))[1])  # the metrics are the process's: other tests count too
        await driver.open_game(["alice", "bob"])
        for _ in range(4):
            await driver.play_turn("slash")
        await driver.settle()
        status, text = await get(f"{base}/metrics")
        assert status == 200
        found = {key: value - before.get(key, 0.0) for key, value in samples(text).items()
                 if not key[0].endswith("_created")}
        assert total(found, "santacruz_interactions_total", kind="command", command="santacruz new") >= 1
        played = total(found, "santacruz_interactions_total", kind="command")
        assert played >= 5  # new and four moves (join and start are the lobby's buttons)
        # the metric's label of a button is its id without the numbers (a label, not an id: Start in the lobby)
        assert total(found, "santacruz_interactions_total", kind="component", command="sc:start") == 1
        every = total(found, "santacruz_interactions_total")
        assert total(found, "santacruz_interaction_ack_seconds_count") == every >= 7  # each counted once, timed
        labels = [value for key, change in found.items() if change for name, value in key[1]
                  if name not in ("le", "shard", "generation")]  # a bucket's bound, a gateway shard, a GC generation
        assert not [v for v in labels if any(c.isdigit() for c in v) or any(card in v for card in SCORING_CARD_IDS)]
        assert total(found, "santacruz_render_seconds_count", picture="board") >= 1
        assert "# HELP santacruz_computer_move_seconds " in text and "# HELP santacruz_hint_seconds " in text
        assert total(samples(text), "santacruz_games", status="running") == 1  # a figure of the database
        assert total(found, "santacruz_outbox_backlog") >= 0 and ("santacruz_storage_errors_total", ()) not in found
        # the database goes down: not ready, with the reason; the process itself still answers
        server.stop()
        status, reason = await get(f"{base}/readyz")
        assert status == 503 and "database" in reason, reason
        assert (await get(f"{base}/healthz"))[0] == 200
        assert (await get(f"{base}/metrics"))[0] == 200  # the counters answer without the database
        server.start()
        deadline = time.monotonic() + TIMEOUT
        while (answer := await get(f"{base}/readyz"))[0] != 200:
            assert time.monotonic() < deadline, answer
            await asyncio.sleep(0.2)
        assert answer == (200, "ready\n")
    finally:
        if health is not None:
            await health.stop()
        await driver.stop(check_errors=False)
        server.stop()
        server.remove()


async def test_sigterm_stops_a_bot_process_cleanly_mid_game_on_sqlite(fake_discord: FakeDiscord,
                                                                      tmp_path: Path) -> None:
    """santacruz-bot's own run in a child process: SIGTERM right after a game started (its posts and DMs on their
    way) ends it with exit code 0; its log (JSON lines) says so without an error or the token; the game is stored
    and every post and DM it owed was sent within SHUTDOWN_GRACE."""
    fake = fake_discord
    db = tmp_path / "santacruz.db"
    port = free_port()
    env = {"DISCORD_TOKEN": fake.token, "DATABASE_PATH": str(db), "AI_STRENGTH": "random", "AI_SECONDS": "0.05",
           "PICTURE_WIDTH": "800", "LOG_FORMAT": "json", "HTTP_PORT": str(port), "SHUTDOWN_GRACE": "20"}
    bot = ChildBot(fake.base_url, env, tmp_path / "bot.log")
    bot.start()
    try:
        await fake.wait_until(lambda: bool(fake.synced_commands()) and fake.is_connected, timeout=TIMEOUT, poll=0.5,
                              description="the bot process to connect")
        deadline = time.monotonic() + TIMEOUT
        while (ready := await get(f"http://127.0.0.1:{port}/readyz"))[0] != 200:  # READY follows the guilds
            assert time.monotonic() < deadline and ready[1].startswith("not ready: "), ready
            await asyncio.sleep(0.1)
        channel = fake.channel("games")
        for command, user in (("santacruz new", "alice"), ("santacruz join", "bob"), ("santacruz start", "alice")):
            handle = await fake.slash_command(command, {"thread": False} if command.endswith("new") else {},
                                              user=user, channel=channel)
            await handle.wait_for_message(timeout=TIMEOUT)
        code = await bot.stop()
    finally:
        await bot.stop()
    assert code == 0, bot.log()[-3000:]
    lines = [json.loads(line) for line in bot.log().splitlines() if line.startswith("{")]
    assert lines and all({"time", "level", "logger", "message"} <= line.keys() for line in lines)
    assert not [line for line in lines if line["level"] in ("ERROR", "CRITICAL")], lines
    messages = [line["message"] for line in lines]
    assert any(m.startswith("SIGTERM: stopping cleanly") for m in messages), messages
    assert "stopped cleanly" in messages
    assert fake.token not in bot.log()
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT status FROM games").fetchone()[0] == "running"
        assert conn.execute("SELECT COUNT(*) FROM deliveries WHERE done_at IS NULL").fetchone()[0] == 0


async def test_sigterm_gives_the_other_process_the_work_at_once(postgres: PostgresStore, pg_url: str,
                                                                tmp_path: Path) -> None:
    """Two processes over PostgreSQL (shards 0 and 1), the sweep only every minute and leases of 30 s: the shard-1
    process stops while its computer thinks (30 s); it gives up its work and tells the others (NOTIFY), and the
    shard-0 process takes the computer over within 2 seconds of the SIGTERM (it would wait for the lease to run out,
    and then for its next sweep, otherwise) and makes its move, once."""
    async with FakeDiscord(shard_count=2, populate=False, max_concurrency=2) as fake:
        for name in ("alice", "carol"):
            fake.add_user(name)
        fake.add_guild("Zero", owner="alice", shard=(0, 2), channels=("games",))
        one = fake.add_guild("One", owner="carol", shard=(1, 2), channels=("games",))
        quick = bot_env(pg_url, 0, fake.token, SWEEP_SECONDS="60", LEASE_SECONDS="30", AI_SECONDS="0.05")
        slow = bot_env(pg_url, 1, fake.token, SWEEP_SECONDS="60", LEASE_SECONDS="30", AI_SECONDS="30")
        bots = [ChildBot(fake.base_url, quick, tmp_path / "shard0.log"),
                ChildBot(fake.base_url, slow, tmp_path / "shard1.log")]
        conn = await asyncpg.connect(pg_url)
        try:
            await asyncio.gather(*(start_process(fake, bot, shard) for shard, bot in enumerate(bots)))
            channel = next(c for c in fake.channels.values() if c.guild_id == one.id)
            table = RemoteTable(fake, postgres, channel, ["carol"], seed=3, timeout=TIMEOUT)
            await table.open(computers=1, strength="expert")
            while (await table.position()).to_move_user() is not None:  # carol moves until the computer's turn
                await table.step("slash")
            seq = (await table.position()).seq

            async def computers_lease() -> Any:
                return await conn.fetchrow("SELECT owner FROM leases WHERE name = $1", f"computers:{channel.id}")

            async def taken_over(slow_owner: str) -> float:
                """When the shard-0 process has the computer: it holds its lease, or made its move already."""
                while True:
                    lease = await computers_lease()
                    if (lease is not None and lease["owner"] != slow_owner) or await conn.fetchval(
                            "SELECT 1 FROM moves WHERE game_id = $1 AND seq > $2", table.game_id, seq):
                        return time.monotonic()
                    await asyncio.sleep(0.02)

            held = await poll(computers_lease, timeout=TIMEOUT, description="the shard-1 process's computer thinking")
            watching = asyncio.create_task(taken_over(held["owner"]))
            stopped = time.monotonic()
            assert await bots[1].stop() == 0, bots[1].log()[-3000:]
            taken = await asyncio.wait_for(watching, TIMEOUT) - stopped
            assert taken < 2.0, f"the shard-0 process took the computer over {taken:.1f} s after the SIGTERM"
            await table.wait_seq(seq + 1)
            moves = await conn.fetch("SELECT seq FROM moves WHERE game_id = $1 AND seq > $2", table.game_id, seq)
            assert len({m["seq"] for m in moves}) == len(moves) >= 1
        finally:
            await conn.close()
            await asyncio.gather(*(bot.stop() for bot in bots))
        assert "stopping: work given up for the other processes" in bots[1].log()
        for bot in bots:
            errors = [line for line in bot.log().splitlines() if " ERROR " in line or "Traceback" in line]
            assert not errors, f"{bot.log_path.name} logged errors: {errors}"


def test_json_log_lines_name_the_game_and_blank_secrets() -> None:
    formatter = JsonFormatter(secrets=["s3cret.token"], shard="0,1")
    record = logging.LogRecord("bot.host.play", logging.WARNING, __file__, 1,
                               "game %d: the change could not be stored (token %s, url %s)",
                               (12, "s3cret.token", "/interactions/55/abc.def/callback"), None)
    line = json.loads(formatter.format(record))
    assert line["game"] == 12 and line["shard"] == "0,1" and line["level"] == "WARNING"
    assert "s3cret" not in line["message"] and "abc.def" not in line["message"]
    assert line["logger"] == "bot.host.play" and line["time"].endswith("+00:00")
    try:
        raise ValueError("s3cret.token in a traceback")
    except ValueError:
        import sys
        failed = logging.LogRecord("bot", logging.ERROR, __file__, 1, "plain", (), sys.exc_info())
    failure = json.loads(formatter.format(failed))
    assert "ValueError" in failure["exception"] and "s3cret" not in failure["exception"] and "game" not in failure


async def test_a_backup_taken_mid_game_restores_and_plays_on(fake_discord: FakeDiscord, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """``santacruz-bot backup FILE`` while the bot runs and writes: the copy passes SQLite's check, and a bot
    started on it has the game at the move it was copied at and plays on."""
    settings = Settings(database_path=str(tmp_path / "santacruz.db"), ai_strength="random", ai_seconds=0.05,
                        picture_width=800)
    driver = Driver(fake_discord, settings, channel="games")
    await driver.start()
    try:
        await driver.open_game(["alice", "bob"])
        for _ in range(3):
            await driver.play_turn("slash")
        seq = driver.info().seq
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("DATABASE_PATH", settings.database_path)
        monkeypatch.delenv("DATABASE_URL", raising=False)
        writing = asyncio.create_task(driver.play_turn("slash"))  # the bot writes while the copy is made
        code = await asyncio.to_thread(santacruz_bot, ["backup", str(tmp_path / "backup.db")])
        await writing
        assert code == 0 and "backed up to" in capsys.readouterr().out
        assert await asyncio.to_thread(santacruz_bot, ["backup", str(tmp_path / "backup.db")]) == 3  # never over
    finally:
        await driver.stop()
    with sqlite3.connect(tmp_path / "backup.db") as conn:
        copied = conn.execute("SELECT MAX(seq) FROM moves").fetchone()[0]
    assert copied in (seq, seq + 1)  # before or after the move made meanwhile, whole either way
    restored = Driver(fake_discord, Settings(database_path=str(tmp_path / "backup.db"), ai_strength="random",
                                             ai_seconds=0.05, picture_width=800), channel="games")
    await restored.start()
    try:
        assert restored.info().seq == copied
        await restored.play_turn("slash")
        assert restored.info().seq == copied + 1
    finally:
        await restored.stop()
    with pytest.raises(BackupError, match="there is no database"):
        backup_sqlite(tmp_path / "missing.db", tmp_path / "x.db")
