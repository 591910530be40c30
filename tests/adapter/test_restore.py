"""A restored backup, on SQLite (``santacruz-bot backup``'s copy) and on PostgreSQL (``pg_dump`` / ``pg_restore``):
the posts and DMs the backup still owed are looked for in Discord before they go out, so what went out after the
backup is not sent again, what never went out is sent once, and the games play on with posts that Discord does not
mistake for the ones sent before the restore under the same delivery ids."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bot.host.backup import backup_sqlite
from bot.host.settings import Settings
from tests.fakediscord import FakeDiscord
from tests.fakediscord.faults import Stall
from tests.fakediscord.remote import poll
from tests.helpers.driver import TIMEOUT, Driver, board_posts, post_of


def settings_for(kind: str, path: Path, request: pytest.FixtureRequest) -> Settings:
    """The bot's settings on SQLite (the file ``path``) or on a new PostgreSQL database; a stop does not wait for a
    post that Discord holds up. On PostgreSQL the restored outboxes' leases (the backup holds those of the process
    that made it) run out soon."""
    if kind == "postgres":
        return Settings(database_url=request.getfixturevalue("pg_empty_url"), ai_strength="random",
                        picture_width=800, shutdown_grace=1.0, lease_seconds=2.0)
    return Settings(database_path=str(path), ai_strength="random", picture_width=800, shutdown_grace=1.0)


def beside(driver: Driver, channel: str) -> Driver:
    """A driver for another channel of the same running bot."""
    other = Driver(driver.fake, driver.settings, channel=channel)
    other.runner = driver.runner
    return other


async def delivered(driver: Driver, *, channel_only: bool = False) -> None:
    """Wait until the bot owes nothing (the deliveries it resumed at its start went out too), or with
    ``channel_only`` nothing in the driver's channel (another channel's post may be held up)."""
    async def nothing_owed() -> bool:
        return not await driver.host.outbox.pending_deliveries(driver.channel.id if channel_only else None)

    await poll(nothing_owed, timeout=TIMEOUT, description="every delivery sent", fake=driver.fake)
    if not channel_only:
        await driver.settle()


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
async def test_a_restored_backup_sends_no_post_or_dm_twice_and_loses_none(
        fake_discord: FakeDiscord, tmp_path: Path, request: pytest.FixtureRequest, kind: str) -> None:
    """Three games when the backup is taken. In #games a move's post is on its way (Discord has not answered yet):
    the backup owes it, its turn DM and the edit of the mover's DM; all go out after the backup, longer before the
    restore than Discord remembers their nonces. In #general a move's post is held up until the bot stops: it never
    goes out before the restore. In #tables a move is made after the backup, shortly before the restore. Restored,
    the bot sends #games's post and turn DM no second time (they are in Discord: recorded by their messages), sends
    #general's post once, and a move in #tables after the restore gets a post of its own, although its delivery has
    the id of the post that #tables got for the move the restore undid (whose nonce Discord still remembers)."""
    fake = fake_discord
    guild = fake.default_guild
    for name in ("dave", "erin", "frank"):
        fake.add_member(guild, fake.add_user(name))
    fake.add_text_channel(guild, "tables")
    settings = settings_for(kind, tmp_path / "santacruz.db", request)
    games = Driver(fake, settings, channel="games")
    await games.start()
    general, tables = beside(games, "general"), beside(games, "tables")
    held: list[Stall] = []
    try:
        for driver, players in ((games, ["alice", "bob"]), (general, ["carol", "dave"]), (tables, ["erin", "frank"])):
            await driver.open_game(players)
            await driver.settle()
        game_id = games.info().game_id
        held.append(fake.stall("POST", rf"/channels/{games.channel.id}/messages"))
        held.append(fake.stall("POST", rf"/channels/{general.channel.id}/messages"))
        await games.play_turn("slash")
        await general.play_turn("slash")
        for stall in held:
            await stall.arrived.wait()
        owed_seq, next_player = games.info().seq, games.to_move_user()
        assert next_player is not None
        backup = tmp_path / ("backup.db" if kind == "sqlite" else "backup.dump")
        if kind == "sqlite":
            backup_sqlite(settings.database_path, backup)
        else:
            subprocess.run(["pg_dump", "--format=custom", f"--file={backup}", settings.database_url], check=True)
        held[0].release()  # #games's post, its DMs after it, go out after the backup
        await games.wait_turn_dm(next_player)
        await delivered(games, channel_only=True)
        fake.expire_nonces()  # the restore comes later than the few minutes Discord remembers a nonce for
        tables_seq = tables.info().seq
        await tables.play_turn("slash")  # a move the restore undoes
        await delivered(tables, channel_only=True)
        tables_posts = len(board_posts(fake, tables.channel))
        general_posts = len(board_posts(fake, general.channel))
        dms = {user: len(fake.dm_messages(user)) for user in ("alice", "bob")}
    finally:
        await games.stop()
    if kind == "sqlite":
        settings = settings_for(kind, backup, request)
    else:
        subprocess.run(["pg_restore", "--clean", "--if-exists", "--no-owner", f"--dbname={settings.database_url}",
                        str(backup)], check=True)
    restored = Driver(fake, settings, channel="games")
    await restored.start()
    try:
        await delivered(restored)
        assert restored.info().seq == owed_seq
        post_of(fake, games.channel, game_id, owed_seq)  # its one post: not posted again
        assert {user: len(fake.dm_messages(user)) for user in ("alice", "bob")} == dms  # no DM again
        assert len(board_posts(fake, general.channel)) == general_posts + 1  # never sent: sent once
        again = beside(restored, "tables")
        await again.look()
        assert again.info().seq == tables_seq
        await again.play_turn("slash")
        await delivered(again)
        assert len(board_posts(fake, tables.channel)) == tables_posts + 1
    finally:
        await restored.stop()
        held[1].release()  # the fake's own stop waits for every request it holds
