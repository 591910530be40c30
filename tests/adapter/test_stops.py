"""Stopping the bot while Discord is unreachable, as operators do: the real ``santacruz-bot`` run in a child process
against the fake Discord, which goes away under it. SIGTERM ends the process with exit code 0 within
``SHUTDOWN_GRACE`` and a second, whatever discord.py's gateway is doing (here a connection attempt that goes
unanswered); a second SIGTERM during a stop that waits for Discord ends the process at once with 143, cleanly: its
worker processes and their semaphores are gone (multiprocessing's resource tracker reports no "leaked semaphore
objects")."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from tests.fakediscord import FakeDiscord
from tests.fakediscord.child_bot import ChildBot
from tests.fakediscord.faults import Stall
from tests.helpers.http import free_port, get
from tests.helpers.shards import TIMEOUT

GRACE = 2.0
"""The stopping bot's SHUTDOWN_GRACE in the first test: short, so that a stop past it is plain."""


def bot_settings(fake: FakeDiscord, tmp_path: Path, grace: float) -> dict[str, str]:
    return {"DISCORD_TOKEN": fake.token, "DATABASE_PATH": str(tmp_path / "santacruz.db"), "AI_STRENGTH": "random",
            "AI_SECONDS": "0.05", "PICTURE_WIDTH": "800", "SHUTDOWN_GRACE": str(grace)}


async def connected(fake: FakeDiscord, bot: ChildBot) -> None:
    def ready() -> bool:
        assert bot.running(), bot.log()[-3000:]
        return bool(fake.synced_commands()) and fake.is_connected

    await fake.wait_until(ready, timeout=TIMEOUT, poll=0.2, description="the bot process to connect")


async def exit_code(bot: ChildBot, timeout: float) -> int | None:
    """The process's exit code once it ended within ``timeout`` seconds, else ``None`` (it still runs)."""
    assert bot.process is not None
    deadline = time.monotonic() + timeout
    while (code := bot.process.poll()) is None and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    return code


async def test_a_stop_while_discord_is_unreachable_ends_within_the_grace(fake_discord: FakeDiscord,
                                                                         tmp_path: Path) -> None:
    """Discord goes away while the bot runs (the connection breaks, then its packets are lost): ``/healthz`` stays 200
    and ``/readyz`` says 503 why. A SIGTERM a moment into the outage: the process ends with 0 within SHUTDOWN_GRACE
    and a second, although discord.py's connection attempt goes unanswered (aiohttp gives up after 30 s).
    Connections refused end the same way: discord.py then waits out a random back-off of up to 2, 4, 8, … s between
    attempts, which the stop cuts short as it cuts this attempt short (not tested: a stop would take long only when it
    came at the start of a long wait)."""
    fake = fake_discord
    port = free_port()
    bot = ChildBot(fake.base_url, {**bot_settings(fake, tmp_path, GRACE), "HTTP_PORT": str(port)},
                   tmp_path / "bot.log")
    bot.start()
    try:
        await connected(fake, bot)
        await fake.go_away()
        await asyncio.sleep(1.0)
        # alive, not ready: a container is not restarted for Discord's outage, an alert says why it cannot play
        assert await get(f"http://127.0.0.1:{port}/healthz") == (200, "ok\n")
        assert await get(f"http://127.0.0.1:{port}/readyz") == (503, "not ready: gateway shard 0 not connected\n")
        assert bot.process is not None
        asked = time.monotonic()
        bot.process.terminate()
        code = await exit_code(bot, GRACE + 1.0)
        took = time.monotonic() - asked
    finally:
        await bot.stop()
    assert code == 0, f"exit code {code} after {took:.1f} s (SHUTDOWN_GRACE {GRACE:g} s):\n{bot.log()[-3000:]}"
    assert "stopped cleanly" in bot.log()


async def test_a_second_sigterm_ends_a_waiting_stop_at_once_and_cleanly(fake_discord: FakeDiscord,
                                                                        tmp_path: Path) -> None:
    """A game's start post is on its way when Discord goes away (its packets lost): the stop waits for it, up to a
    SHUTDOWN_GRACE of 30 s. A second SIGTERM ends the process within a second with 143 (128 + SIGTERM); its picture
    workers end with it and multiprocessing finds no semaphore left behind."""
    fake = fake_discord
    bot = ChildBot(fake.base_url, bot_settings(fake, tmp_path, 30.0), tmp_path / "bot.log", piped=True)
    channel = fake.channel("games")
    held: Stall | None = None
    bot.start()
    try:
        await connected(fake, bot)
        for command, user in (("santacruz new", "alice"), ("santacruz join", "bob")):
            handle = await fake.slash_command(command, {"thread": False} if command.endswith("new") else {},
                                              user=user, channel=channel)
            await handle.wait_for_message(timeout=TIMEOUT)
        held = fake.stall("POST", rf"/channels/{channel.id}/messages")
        await fake.slash_command("santacruz start", {}, user="alice", channel=channel)
        await asyncio.wait_for(held.arrived.wait(), TIMEOUT)  # its board was drawn by a picture worker
        await fake.go_away()
        assert bot.process is not None
        bot.process.terminate()
        assert await exit_code(bot, 1.5) is None, "the stop did not wait for the post owed"
        asked = time.monotonic()
        bot.process.terminate()
        code = await exit_code(bot, 1.0)
        took = time.monotonic() - asked
        assert bot.output_closed(TIMEOUT), "a process the bot started outlived it"
    finally:
        if held is not None:
            held.release()  # the fake's own stop waits for every request it holds
        await bot.stop()
    log = bot.log()
    assert code == 143, f"exit code {code} {took:.1f} s after the second SIGTERM:\n{log[-3000:]}"
    assert "SIGTERM again: stopping at once" in log
    assert "leaked semaphore" not in log and "resource_tracker" not in log, log[-3000:]
