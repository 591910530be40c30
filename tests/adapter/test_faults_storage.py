"""Storage faults as players see them, through the fake Discord and the real discord.py: a Join refused
because the database is read-only tells the player (in their language) and seats nobody; a game damaged
in the database is quarantined at start-up and its channel is told once, while other games go on."""

from __future__ import annotations

import aiosqlite

from i18n import t
from tests.adapter.conftest import TIMEOUT, Driver


async def test_a_join_the_database_refuses_is_explained_and_seats_nobody(driver: Driver) -> None:
    fake = driver.fake
    lobby = await driver.answer(await driver.slash("new", user="alice"))
    game_id = driver.info().game_id
    store = driver.bot.store
    assert store is not None
    await store._conn.execute("PRAGMA query_only = ON")  # the bot's own connection refuses writes
    click = await fake.click_button(lobby, f"sc:{game_id}:join", user="carol")
    reply = await driver.answer(click)
    assert reply.ephemeral and reply.text == t("host.error.storage", "fr")
    assert driver.info().humans == (fake.user("alice").id,)
    await store._conn.execute("PRAGMA query_only = OFF")
    click = await fake.click_button(lobby, f"sc:{game_id}:join", user="carol")
    await click.wait_for_callback(timeout=TIMEOUT)
    await fake.wait_until(lambda: len(driver.info().humans) == 2, timeout=TIMEOUT, description="carol seated")
    assert (await store.get_game(game_id)).seats[1]["user_id"] == fake.user("carol").id


async def test_a_damaged_game_is_told_once_to_its_channel(driver: Driver) -> None:
    fake = driver.fake
    await driver.open_game(["alice", "bob"])
    await driver.settle()
    game_id = driver.info().game_id
    await driver.stop()
    async with aiosqlite.connect(driver.settings.database_path, isolation_level=None) as conn:
        await conn.execute("UPDATE games SET seats = substr(seats, 1, 15) WHERE id = ?", (game_id,))
    notice = t("host.damaged.notice", "en", game=game_id, reason=t("host.damaged.seats", "en"))

    def notices() -> list[str]:
        return [m.text for m in fake.messages(driver.channel, ephemeral=False) if m.text == notice]

    await driver.start()
    await fake.wait_until(lambda: notices(), timeout=TIMEOUT, description="the damage notice")
    assert driver.info() is None
    runner = driver.runner
    assert runner is not None
    assert len([e for e in runner.errors if f"game {game_id} " in e and "damaged" in e]) == 1
    await driver.stop(check_errors=False)
    await driver.start()  # told already: not again
    handle = await driver.slash("new", user="bob")  # the channel is free for a new game
    await driver.answer(handle)
    assert driver.info().game_id != game_id and len(notices()) == 1
