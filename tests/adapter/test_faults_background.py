"""Background work never dies silently, and nothing blocks the acknowledgement: through the real discord.py
against the fake Discord, on a real SQLite file.

* a computer's move that cannot be stored (another connection holds the write lock longer than the busy
  timeout) is tried again and posted once the lock is released;
* a killed render worker process does not end the pictures;
* commands in a channel are acknowledged and answered while its computer thinks;
* the sweep restarts a computer whose task stopped;
* turn reminders the database cannot record are not sent; they go, once each, when it writes again.

A computer player here is a :class:`Gate`: a thread that says when it thinks and answers when the test lets it,
so nothing depends on timing.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import signal
import sqlite3
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from bot.host.errors import HostError
from bot.host.settings import Settings
from bot.host.workers import WorkerPool, process_pool_factory
from tests.fakediscord import FakeDiscord
from tests.helpers.driver import TIMEOUT, Driver, Gate, running


class Records(logging.Handler):
    """The bot's log messages at WARNING and above."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())

    def count(self, text: str) -> int:
        return sum(text in m for m in self.messages)



@pytest.fixture
def records() -> Iterator[Records]:
    handler = Records()
    logger = logging.getLogger("bot")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


@pytest.fixture
def fault_settings(tmp_path: Path) -> Settings:
    # boards as narrow as the bot draws them (the tests' usual): these tests look at when a picture comes, not at it
    return Settings(database_path=str(tmp_path / "santacruz.db"), ai_strength="random", ai_seconds=0.05,
                    busy_timeout=0.2, retry_seconds=0.05, sweep_seconds=3600, picture_width=800)


@pytest_asyncio.fixture
async def gated(fake_discord: FakeDiscord, fault_settings: Settings) -> AsyncIterator[Driver]:
    """A started bot whose computer player is a :class:`Gate`."""
    async with running(Driver(fake_discord, fault_settings, channel="games", gate=Gate())) as driver:
        yield driver


class WriteLock:
    """Another connection to the bot's database holding the write lock (``BEGIN IMMEDIATE``) until released."""

    def __init__(self, path: str) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None, timeout=TIMEOUT)

    def __enter__(self) -> WriteLock:
        self.conn.execute("BEGIN IMMEDIATE")
        return self

    def release(self) -> None:
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

    def __exit__(self, *exc: object) -> None:
        self.release()
        self.conn.close()


async def person_to_move_against_a_computer(driver: Driver) -> None:
    """alice against one computer, alice to move."""
    await driver.open_game(["alice"], computers=1)
    await driver.settle()
    assert driver.to_move_user() == "alice"


# ---------------------------------------------------------------------- a locked database


async def test_a_computer_move_blocked_by_a_locked_database_is_made_after_the_lock_is_released(
        gated: Driver, records: Records) -> None:
    driver, gate, fake = gated, gated.gate, gated.fake
    await person_to_move_against_a_computer(driver)
    gate.close()
    await driver.play_turn()
    seq = driver.info().seq
    await gate.wait_thinking()
    with WriteLock(driver.settings.database_path) as lock:
        gate.open()
        # the write fails after the (short) busy timeout, and is tried again, more than once
        await fake.wait_until(lambda: records.count("a computer move failed") >= 2, timeout=TIMEOUT,
                              description="the computer's write to fail twice", poll=0.05)
        assert driver.info().seq == seq, "a failed write changes nothing"
        posts = len(await driver.wait_posts(1 + seq))
        lock.release()
        await driver.wait_seq(seq + 1)
        after = await driver.wait_posts(posts + 1)
    assert "Computer 1" in after[-1].text
    await driver.settle()
    assert driver.to_move_user() == "alice"


# ---------------------------------------------------------------------- a killed render worker


async def test_a_killed_render_worker_still_gives_the_next_move_its_picture(
        fake_discord: FakeDiscord, fault_settings: Settings) -> None:
    render = WorkerPool(process_pool_factory(1), name="render")
    try:
        async with running(Driver(fake_discord, fault_settings, channel="games", gate=Gate(),
                                  render=render)) as driver:
            await driver.two_player_game()
            pid = await render.run(os.getpid)
            assert pid != os.getpid()
            os.kill(pid, signal.SIGKILL)
            await driver.play_turn()
            posts = await driver.wait_posts(2)  # a board post carries board.png: the picture was drawn
            assert len(posts) == 2 and render.replaced == 1
            await driver.play_turn()
            await driver.wait_posts(3)
    finally:
        render.shutdown()


# ---------------------------------------------------------------------- acknowledgements


async def test_commands_are_answered_while_the_channels_computer_thinks(gated: Driver) -> None:
    driver, gate = gated, gated.gate
    mover = await driver.two_player_game()
    other = "bob" if mover == "alice" else "alice"
    gate.close()
    reply = await driver.answer(await driver.slash("away", user=mover, locale="en-US"))
    assert reply.ephemeral
    await gate.wait_thinking()
    for command in ("away", "back"):  # the other player, in the same channel, while the computer thinks
        handle = await driver.slash(command, user=other, locale="en-US")
        reply = await driver.answer(handle)
        assert reply.ephemeral and handle.acknowledged
    assert not gate.go.is_set()
    task = driver.cog.background.computers.get(driver.channel.id)
    assert task is not None and not task.done(), "the computer was still thinking"
    gate.open()
    await driver.settle()
    assert driver.to_move_user() == other


# ---------------------------------------------------------------------- the sweep


async def test_the_sweep_restarts_a_computer_whose_task_stopped(
        fake_discord: FakeDiscord, fault_settings: Settings, records: Records) -> None:
    settings = dataclasses.replace(fault_settings, sweep_seconds=0.2)
    async with running(Driver(fake_discord, settings, channel="games", gate=Gate())) as driver:
        await person_to_move_against_a_computer(driver)
        driver.gate.close()
        await driver.play_turn()
        seq = driver.info().seq
        await driver.gate.wait_thinking()
        task = driver.cog.background.computers.get(driver.channel.id)
        assert task is not None
        restarted = records.count("no task was playing")
        task.cancel()  # the computer's task ends while its move is due
        await fake_discord.wait_until(lambda: records.count("no task was playing") > restarted, timeout=TIMEOUT,
                                      description="the sweep to restart the computer", poll=0.05)
        driver.gate.open()
        await driver.wait_seq(seq + 1)
        await driver.wait_posts(1 + seq + 1)
        await driver.settle()
        assert driver.to_move_user() == "alice"


# ---------------------------------------------------------------------- reminders


async def test_reminders_the_database_cannot_record_wait_and_then_go_once_each(gated: Driver) -> None:
    driver, fake = gated, gated.fake
    first = await driver.two_player_game()
    driver.channel = fake.channel("general")
    await driver.open_game(["carol"], computers=1)
    await driver.settle()
    assert driver.to_move_user() == "carol"
    later = max(driver.host.games.info(c.id).last_move_at or 0.0 for c in (driver.channel, fake.channel("games")))
    later += 13 * 3600
    before = {user: len(fake.dm_messages(user)) for user in (first, "carol")}
    # the sweep logs the refusal and tries again at the next one
    with WriteLock(driver.settings.database_path), pytest.raises(HostError) as refused:
        await driver.cog.send_reminders(now=later)
    assert refused.value.key == "host.error.storage"
    assert {user: len(fake.dm_messages(user)) for user in (first, "carol")} == before, "nothing sent unrecorded"
    assert await driver.cog.send_reminders(now=later) == 2
    assert {user: len(fake.dm_messages(user)) for user in (first, "carol")} == {
        user: count + 1 for user, count in before.items()}, "both players were reminded"
    assert await driver.cog.send_reminders(now=later + 60) == 0, "once each"
