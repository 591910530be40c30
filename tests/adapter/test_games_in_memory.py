"""Games loaded when touched, through the real discord.py and the fake Discord: a click on a turn DM of a game that
left memory (past ``GAMES_IN_MEMORY``) plays the move, and a move stored while the bot was down is posted and its turn
DM sent after the start, its game read by its delivery (start-up reads no game that owes no work)."""

from __future__ import annotations

from dataclasses import replace

from bot.adapter import ids
from bot.host.host import Host
from bot.host.settings import Settings
from bot.host.store import Store
from tests.fakediscord import FakeDiscord
from tests.helpers.driver import TIMEOUT, Driver, board_posts, turn_dms
from tests.helpers.host import user_to_move


async def test_a_click_on_the_turn_dm_of_a_game_let_go_plays_the_move(fake_discord: FakeDiscord,
                                                                      settings: Settings) -> None:
    games = Driver(fake_discord, replace(settings, games_in_memory=1), channel="games")
    await games.start()
    general = Driver(fake_discord, games.settings, channel="general")
    general.runner = games.runner
    try:
        await games.open_game(["alice", "bob"])
        await games.settle()
        user, info = games.to_move_user(), games.info()
        assert user is not None and info is not None
        move = games.pick(user)
        await general.open_game(["carol", "bob"])  # a second game: the first leaves memory
        await general.settle()
        assert games.channel.id not in games.host.games.tables
        posts = len(board_posts(fake_discord, games.channel))

        message = turn_dms(fake_discord, user, info.game_id, info.seq)[-1]  # (what the bot holds of the game is gone)
        select = next((s for s in message.selects if any(o["value"] == move for o in s["options"])), None)
        if select is not None:
            click = await fake_discord.select(message, select["custom_id"], [move], user=user)
        else:
            click = await fake_discord.click_button(message, ids.move(info.game_id, info.seq, move), user=user)
        await games.confirm(click, user)
        await games.wait_seq(info.seq + 1)
        assert len(await games.wait_posts(posts + 1)) == posts + 1
    finally:
        await games.stop()


async def test_a_move_stored_while_the_bot_was_down_goes_out_when_its_delivery_reads_the_game(
        fake_discord: FakeDiscord, driver: Driver) -> None:
    await driver.open_game(["alice", "bob"])
    await driver.settle()
    game_id = driver.info().game_id
    await driver.stop()
    store = await Store.open(driver.settings.database_path)  # another process's move, while this bot is down
    try:
        other = Host(store, driver.settings)
        await other.refresh.channel(driver.channel.id)
        seq = (await other.play.move(driver.channel.id, mover := user_to_move(other, driver.channel.id),
                                     other.play.legal_moves(driver.channel.id, mover)[0])).seq
        next_user = user_to_move(other, driver.channel.id)
    finally:
        await store.close()

    await driver.start(look=False)
    assert driver.bot.loaded_games == []  # nothing owed but posts and DMs: no game read at start-up
    await fake_discord.wait_until(lambda: _posts(fake_discord, driver, game_id, seq) == 1, timeout=TIMEOUT,
                                  description="the move's post")
    name = fake_discord.users[next_user].name
    assert (await driver.wait_turn_dm(name)).custom_ids  # the next player's turn DM, with its controls
    assert driver.host.restore.reads == 1


def _posts(fake: FakeDiscord, driver: Driver, game_id: int, seq: int) -> int:
    """How many posts of position ``seq`` the channel has (each carries *My cards* of its position)."""
    return sum(ids.game(game_id, "hand", seq) in m.custom_ids for m in fake.messages(driver.channel, ephemeral=False))
