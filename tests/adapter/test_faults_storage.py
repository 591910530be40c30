"""Storage faults as players see them, through the fake Discord and the real discord.py: a Join refused
because the database is read-only tells the player (in their language) and seats nobody; a game damaged
in the database is quarantined at start-up and its channel is told once, while other games go on; posts owed
during a PostgreSQL outage go out as soon as the database answers again, not when the outbox's backoff ends."""

from __future__ import annotations

import asyncio
import logging

import aiosqlite
import asyncpg
import pytest

from bot.adapter import ids
from bot.host.settings import Settings
from i18n import t
from tests.fakediscord import FakeDiscord
from tests.helpers.driver import PARKED, TIMEOUT, Driver, board_posts, turn_dms


async def test_a_join_the_database_refuses_is_explained_and_seats_nobody(driver: Driver) -> None:
    fake = driver.fake
    lobby = await driver.open_lobby("alice")
    game_id = driver.info().game_id
    store = driver.bot.store
    assert store is not None
    await store._conn.execute("PRAGMA query_only = ON")  # the bot's own connection refuses writes
    click = await fake.click_button(lobby, ids.game(game_id, "join"), user="carol")
    reply = await driver.answer(click)
    assert reply.ephemeral and reply.text == t("host.error.storage", "fr")
    assert driver.info().humans == (fake.user("alice").id,)
    await store._conn.execute("PRAGMA query_only = OFF")
    click = await fake.click_button(lobby, ids.game(game_id, "join"), user="carol")
    await click.wait_for_callback(timeout=TIMEOUT)
    await fake.wait_until(lambda: len(driver.info().humans) == 2, timeout=TIMEOUT, description="carol seated")
    assert (await store.get_game(game_id)).seats[1]["user_id"] == fake.user("carol").id


async def test_a_damaged_game_is_told_once_to_its_channel(driver: Driver) -> None:
    fake = driver.fake
    await driver.two_player_game()
    game_id = driver.info().game_id
    await driver.stop()
    async with aiosqlite.connect(driver.settings.database_path, isolation_level=None) as conn:
        await conn.execute("UPDATE games SET seats = substr(seats, 1, 15) WHERE id = ?", (game_id,))
    notice = t("host.damaged.notice", "en", game=game_id, reason=t("host.damaged.seats", "en"))

    def notices() -> list[str]:
        return [m.text for m in fake.messages(driver.channel, ephemeral=False) if m.text == notice]

    await driver.start()  # nothing owed: the game is read when touched, here by a command in its channel
    await driver.answer(await driver.slash("status", user="alice"))
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


async def refuse_connections(cluster_url: str, database_url: str, refused: bool) -> None:
    """A database outage as its clients meet it (PostgreSQL restarting, say): the database takes no connection and
    the ones open are cut (``refused``), or it takes them again."""
    name = database_url.rsplit("/", 1)[1]
    admin = await asyncpg.connect(cluster_url)
    try:
        await admin.execute(f"ALTER DATABASE {name} WITH ALLOW_CONNECTIONS {'false' if refused else 'true'}")
        if refused:
            await admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", name)
    finally:
        await admin.close()


async def test_posts_owed_during_a_database_outage_go_out_once_it_answers_not_after_the_backoff(
        fake_discord: FakeDiscord, pg_cluster: str, pg_empty_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """The database goes away while a move's post is on its way: the post arrives, but the outbox cannot record it
    and waits out a backoff longer than the test. Once the database answers again the outbox tries again at once:
    the post is recorded (not sent twice) and the next player's turn DM follows."""
    caplog.set_level(logging.WARNING, logger="bot.adapter.publish")
    fake = fake_discord
    settings = Settings(database_url=pg_empty_url, busy_timeout=2.0, sweep_seconds=3600.0, picture_width=800)
    driver = Driver(fake, settings, channel="games")  # no sweep comes to the rescue in this test
    await driver.start()
    try:
        await driver.open_game(["alice", "bob"])
        await driver.settle()
        publisher = driver.bot.get_cog("SantaCruz").publisher  # type: ignore[union-attr]
        publisher.backoff = PARKED
        publisher.storage_probe = 0.05
        game_id, posts = driver.info().game_id, len(board_posts(fake, driver.channel))
        on_its_way = fake.stall("POST", rf"/channels/{driver.channel.id}/messages")
        await driver.play_turn()
        await asyncio.wait_for(on_its_way.arrived.wait(), TIMEOUT)
        next_player = driver.to_move_user()
        assert next_player is not None and turn_dms(fake, next_player, game_id, 1) == []

        await refuse_connections(pg_cluster, pg_empty_url, refused=True)
        on_its_way.release()  # Discord posts it; the outbox cannot record that
        await fake.wait_until(lambda: any("could not read or write the database" in r.getMessage()
                                          for r in caplog.records), timeout=TIMEOUT, poll=0.05,
                              description="the outbox failed by the database, waiting out its backoff")
        assert turn_dms(fake, next_player, game_id, 1) == []

        await refuse_connections(pg_cluster, pg_empty_url, refused=False)
        await fake.wait_until(lambda: turn_dms(fake, next_player, game_id, 1), timeout=TIMEOUT,
                              description="the next player's turn DM once the database answers again")
        await driver.settle()
        assert len(board_posts(fake, driver.channel)) == posts + 1  # the move's post, once
    finally:
        await driver.stop()
