"""A game's row locked by another session of the PostgreSQL database (``SELECT … FOR UPDATE``, as a long
transaction or an operator's query holds it), with the real bot driven through the fake Discord.

The move that has to write that row waits at most ``BUSY_TIMEOUT`` and is then refused in words (the storage
refusal, as on a locked SQLite file), writing nothing, while the lock is still held; ``/santacruz status`` in
the same channel meanwhile is answered at once, not after the waiting move. Once the lock is gone the same
move is played.
"""

from __future__ import annotations

import asyncio

import asyncpg

from bot.host.settings import Settings
from i18n import t
from tests.fakediscord import FakeDiscord
from tests.fakediscord.remote import poll
from tests.helpers.buttons import is_confirm
from tests.helpers.driver import TIMEOUT, Driver

BUSY = 3.0
"""``BUSY_TIMEOUT`` of the bot in this test: long enough for ``status`` to be answered while the move waits on a
slow, busy machine (it takes well under a second), short enough for a quick test (the move waits all of it)."""

LANGUAGES = {"alice": "en", "bob": "de"}
"""The players' Discord languages in the fake, in which the refusal reaches them."""


async def waits_for_a_lock(locker: asyncpg.Connection) -> bool:
    """Whether another session of the database waits for a lock (the bot's move, for the row the test holds)."""
    waiting = await locker.fetchval("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                                    " AND pid <> pg_backend_pid()")
    return bool(waiting)


async def test_a_move_on_a_locked_row_is_refused_within_busy_timeout_and_status_answers_meanwhile(
        fake_discord: FakeDiscord, pg_url: str) -> None:
    settings = Settings(database_url=pg_url, busy_timeout=BUSY, ai_strength="random", ai_seconds=0.05,
                        picture_width=800, sweep_seconds=3600.0)
    driver = Driver(fake_discord, settings, channel="games")
    await driver.start()
    try:
        await driver.two_player_game()
        info = driver.info()
        mover = driver.to_move_user()
        assert mover is not None
        move = driver.pick(mover, lambda legal: next(m for m in legal if m.startswith("land ")))
        command, options = driver.slash_for_move(move)
        question = await driver.answer(await driver.slash(command, options, user=mover))  # a landing is asked first
        ok = next(b["custom_id"] for b in question.buttons if is_confirm(b["custom_id"]))
        loop = asyncio.get_running_loop()
        locker = await asyncpg.connect(pg_url)
        try:
            holding = locker.transaction()
            await holding.start()
            assert await locker.fetchval("SELECT id FROM games WHERE id = $1 FOR UPDATE", info.game_id)
            started = loop.time()
            playing = await driver.fake.click_button(question, ok, user=mover)
            await poll(lambda: waits_for_a_lock(locker), timeout=TIMEOUT,
                       description="the move to wait for the game's row")

            status = await driver.slash("status", user="carol")
            answer = await driver.answer(status)
            assert answer.ephemeral and t("bot.status.title", "fr").split("{")[0] in answer.text
            assert playing.messages == [], "status was answered only after the waiting move"
            assert await waits_for_a_lock(locker)  # the move still waits

            refusal = await driver.answer(playing)
            waited = loop.time() - started
            assert refusal.ephemeral and refusal.text == t("host.error.storage", LANGUAGES[mover])
            assert waited >= BUSY  # it gave up by itself: the test still holds the row
            assert not await waits_for_a_lock(locker)
            await holding.rollback()
        finally:
            await locker.close()
        assert driver.info().seq == info.seq  # nothing stored, nothing changed
        assert await driver.bot.store.moves(info.game_id) == []  # type: ignore[union-attr]

        await driver.play_slash(mover, move)  # the lock is gone: the same move is played
        await driver.wait_seq(info.seq + 1)
    finally:
        await driver.stop()
