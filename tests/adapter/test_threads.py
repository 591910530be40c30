"""A thread per game, through the real discord.py against the fake Discord: ``/santacruz new`` in a text channel opens
the game in a public thread of its own started from its lobby message in the channel, whose buttons work from the
channel; commands typed in the channel act on the user's one game there (several: refused, naming the threads); a
thread Discord archived goes on (a post unarchives it, an edit unarchives it first, an undo's edit keeps its board);
a deleted thread ends its game quietly, a locked one ends it and says so; a permission threads need that the bot
lacks is said once, in words, and the game is played in the channel itself; ``thread:false`` keeps a game in its
channel; a rematch typed in the channel names the thread its game was played in."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from bot.host.settings import Settings
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage
from tests.fakediscord.audit import picture_size, pictures
from tests.fakediscord.remote import poll
from tests.helpers.buttons import game_of, is_confirm, is_take_seat
from tests.helpers.driver import TIMEOUT, Driver, board_posts, has_undo, lobby_messages, open_in_thread


def in_thread(driver: Driver, thread: FakeChannel) -> Driver:
    """A driver for the game in ``thread`` on the same running bot."""
    other = Driver(driver.fake, driver.settings, channel=thread)
    other.runner = driver.runner
    return other


async def click(driver: Driver, message: FakeMessage, action: str, user: str) -> None:
    """A click on a lobby message's button, once its redraw is out."""
    handle = await driver.fake.click_button(message, label=driver.button_label(message, action), user=user)
    await handle.wait_for_callback(timeout=TIMEOUT)
    await driver.delivered()


async def play_in(game: Driver, channel: Any = None) -> str:
    """The human to move in ``game`` plays a random legal move by command, typed in ``channel`` (default: the game's
    thread); returns the move once stored."""
    user = game.to_move_user()
    assert user is not None
    seq = game.info().seq
    move = game.pick(user)
    command, options = game.slash_for_move(move)
    reply = await game.answer(await game.slash(command, options, user=user, channel=channel))
    confirm = [b for b in reply.buttons if is_confirm(b["custom_id"])]
    if confirm:
        await (await game.fake.click_button(reply, confirm[0]["custom_id"], user=user)).wait_for_callback(
            timeout=TIMEOUT)
    await game.wait_seq(seq + 1)
    return move


async def test_three_games_in_three_threads_of_one_channel_played_at_once(driver: Driver) -> None:
    fake = driver.fake
    games = fake.channel("games")
    lobby1, thread1, said = await open_in_thread(driver, "alice")
    assert f"<#{thread1.id}>" in said
    _, thread2, _ = await open_in_thread(driver, "bob", computers=1)
    # carol plays in no game yet: a command typed in the channel says where its games are
    refused = await driver.answer(await driver.slash("status", user="carol"))
    assert f"<#{thread1.id}>" in refused.text and f"<#{thread2.id}>" in refused.text, refused.text
    _, thread3, _ = await open_in_thread(driver, "carol", computers=1)
    one, two, three = (in_thread(driver, t) for t in (thread1, thread2, thread3))
    for thread, game, opener in ((thread1, one, "Alice"), (thread2, two, "Bob"), (thread3, three, "Carol")):
        info = game.info()
        assert (thread.parent_id, thread.auto_archive_duration, thread.name) == (
            games.id, 10080, f"Santa Cruz #{info.game_id} · {opener}")
        assert info.parent_id == games.id
    assert f"<#{thread1.id}>" in lobby1.text
    assert driver.info() is None  # the channel itself holds no game

    # the lobby buttons work from the channel: bob joins alice's game, alice starts it
    await click(driver, lobby1, "join", "bob")
    assert [s.name for s in one.info().seats] == ["Alice", "Bob"]
    assert "Bob" in lobby1.text
    await click(driver, lobby1, "start", "alice")
    # bob sits in two games of the channel: a command typed there names both threads
    refused = await driver.answer(await driver.slash("start", user="bob"))
    assert f"<#{thread1.id}>" in refused.text and f"<#{thread2.id}>" in refused.text, refused.text
    assert two.info().status == "lobby"
    await driver.answer(await two.slash("start", user="bob"))  # typed in its thread
    await driver.answer(await driver.slash("start", user="carol"))  # her one game: typed in the channel
    for game in (one, two, three):
        await game.wait_posts(1)
        await game.settle()
        assert game.info().status == "running"
    # each game's players are its thread's members (it shows in their list, they hear of its posts)
    added = {tuple(r.path.split("/")[2::2]) for r in fake.requests_to("PUT", r"/channels/\d+/thread-members/\d+")}
    assert added == {(str(t.id), str(fake.user(u).id))
                     for t, u in ((thread1, "alice"), (thread1, "bob"), (thread2, "bob"), (thread3, "carol"))}

    # autocomplete typed in the channel: bob's two games are offered by their threads' names; carol's one game's moves
    handle = await fake.autocomplete("santacruz land", "site", "", user="bob", channel=games)
    offered = (await handle.wait_for_callback(timeout=TIMEOUT)).choices
    assert sorted(c["name"].split(":")[0] for c in offered) == sorted((thread1.name, thread2.name)), offered
    assert {c["value"] for c in offered} == {0}  # never a site: picked, the command names the threads
    assert three.to_move_user() == "carol"  # the computer moved first, or she does (the seeds are fixed)
    handle = await fake.autocomplete("santacruz land", "site", "", user="carol", channel=games)
    sites = [c["value"] for c in (await handle.wait_for_callback(timeout=TIMEOUT)).choices]
    legal = three.host.play.legal_moves(thread3.id, fake.user("carol").id)
    assert sites and sites == [int(m.split()[1]) for m in legal if m.startswith("land")]

    # the three games move at once: in their threads, and carol's by a command typed in the channel
    await asyncio.gather(play_in(one), play_in(two), play_in(three, channel="games"))
    for game in (one, two, three):
        await game.settle()
        assert len(board_posts(fake, game.channel)) >= 2
    assert board_posts(fake, games) == []  # every board went to its game's thread

    # where bob's games are: /santacruz games and his DMs link to the threads
    listed = await driver.answer(await driver.slash("games", user="bob"))
    assert f"<#{thread1.id}>" in listed.text and f"<#{thread2.id}>" in listed.text, listed.text
    dms = "\n".join(m.text for m in fake.dm_messages("bob"))
    assert f"<#{thread1.id}>" in dms and f"<#{thread2.id}>" in dms
    assert f"<#{games.id}>" not in dms


async def test_a_thread_archived_mid_game_goes_on_and_a_locked_one_ends_its_game(driver: Driver) -> None:
    fake = driver.fake
    lobby, thread, _ = await open_in_thread(driver, "alice", draft=True)
    game = in_thread(driver, thread)
    await click(driver, lobby, "join", "bob")
    await click(driver, lobby, "start", "alice")
    await game.wait_posts(1)
    first = game.to_move_user()
    assert first is not None
    await game.play_slash(first, "set A")  # a set chosen reveals nothing: its post carries Undo
    await game.settle()
    chosen = board_posts(fake, thread)[-1]
    assert has_undo(chosen, game.info().game_id)

    await fake.archive_thread(thread)  # a week without a post: Discord archives the thread
    second = game.to_move_user()
    assert second is not None and second != first
    # the next move (typed in the channel: commands cannot be used in an archived thread) is posted first (a message
    # unarchives a thread that is not locked, as on Discord), and only then does the last post lose its Undo: that
    # edit never holds up the post
    await play_in(game, channel="games")
    await game.settle()
    assert not thread.archived
    assert not has_undo(fake.message(chosen.id), game.info().game_id)
    assert len(board_posts(fake, thread)) == 3
    newest = board_posts(fake, thread)[-1]
    posted = ("POST", f"/channels/{thread.id}/messages")
    edited = ("PATCH", f"/channels/{thread.id}/messages/{chosen.id}")
    order = [(r.method, r.path) for r in fake.requests if (r.method, r.path) in (posted, edited)]
    assert order[-2:] == [posted, edited], order
    assert has_undo(newest, game.info().game_id)
    assert game.info().status == "running"
    # the player to move goes away (Take this seat on the post), the thread is archived again, and they come back
    # by DM: the post loses its button, an edit Discord refuses in an archived thread until it is unarchived
    away = game.to_move_user()
    assert away is not None
    await game.answer(await game.slash("away", user=away))
    handed = await fake.wait_until(lambda: next((m for m in fake.messages(thread) if m.custom_ids and
                                                 is_take_seat(m.custom_ids[0])), None),
                                   timeout=TIMEOUT, description="the post that hands the seat to the computer")
    await game.settle()
    await fake.archive_thread(thread)
    await game.answer(await game.slash("back", user=away, channel=fake.dm_channel(away)))
    await fake.wait_until(lambda: not fake.message(handed.id).custom_ids, timeout=TIMEOUT,
                          description="Take this seat gone from the archived thread's post")
    assert game.info().status == "running"

    await fake.archive_thread(thread, locked=True)  # a moderator locks it: the game ends, and the channel is told
    await fake.wait_until(lambda: game.info().status == "abandoned", timeout=TIMEOUT, poll=0.05,
                          description="the game of the locked thread ended")
    told = await fake.wait_until(lambda: [m for m in fake.messages("games", ephemeral=False)
                                          if f"<#{thread.id}>" in m.text and m.id != lobby.id],
                                 timeout=TIMEOUT, description="the channel told of the locked thread")
    assert len(told) == 1 and f"#{game.info().game_id}" in told[0].text

    async def nothing_pending() -> bool:  # the edits of DMs still showing its turn (the words: test_bot_texts)
        return await driver.host.outbox.pending_deliveries(thread.id) == []
    await poll(nothing_pending, timeout=TIMEOUT, description="nothing left to deliver for the locked thread")


async def test_an_undo_in_a_thread_archived_meanwhile_edits_its_post_with_the_board(driver: Driver) -> None:
    """The undo edits the post of the move it takes back, an edit Discord refuses in an archived thread: the bot
    unarchives it and edits again, with the overview and the board made into files again (a file already sent is read
    to its end, and sent again it would arrive empty: a broken picture)."""
    fake = driver.fake
    lobby, thread, _ = await open_in_thread(driver, "alice", draft=True)
    game = in_thread(driver, thread)
    await click(driver, lobby, "join", "bob")
    await click(driver, lobby, "start", "alice")
    await game.wait_posts(1)
    mover = game.to_move_user()
    assert mover is not None
    await game.play_slash(mover, "set A")  # a set chosen reveals nothing: it may be taken back
    await game.settle()
    chosen = board_posts(fake, thread)[-1]
    game_id = game.info().game_id
    assert has_undo(chosen, game_id)

    await fake.archive_thread(thread)
    edits = len(fake.requests_to("PATCH", rf"/channels/{thread.id}/messages/{chosen.id}"))
    # typed in the channel: commands cannot be used in an archived thread
    await driver.answer(await game.slash("undo", user=mover, channel="games"))
    await game.settle()
    tried = fake.requests_to("PATCH", rf"/channels/{thread.id}/messages/{chosen.id}")[edits:]
    assert [r.status for r in tried] == [400, 200]  # refused in the archived thread, then made once unarchived
    taken_back = fake.message(chosen.id)
    assert "~~" in taken_back.text and not has_undo(taken_back, game_id)
    assert [a.filename for a in pictures(taken_back)] == ["overview.png", "board.png"]
    assert all(a.size > 0 and picture_size(a) is not None for a in pictures(taken_back))
    assert len(board_posts(fake, thread)) == 2  # the start's and the taken-back move's: no new post


async def test_a_deleted_thread_ends_its_game_quietly(driver: Driver) -> None:
    fake = driver.fake
    _, in_general, _ = await open_in_thread(driver, "carol", "general")
    await fake.delete_channel("general")  # its threads go with it: their games end (Discord tells of the channel)
    await fake.wait_until(lambda: driver.host.games.info(in_general.id).status == "abandoned", timeout=TIMEOUT,
                          poll=0.05, description="the game in the deleted channel's thread ended")
    _, running, _ = await open_in_thread(driver, "alice", computers=1, strength="random")
    game = in_thread(driver, running)
    await driver.answer(await driver.slash("start", user="alice"))  # her one game, typed in the channel
    await game.wait_posts(1)
    await game.settle()
    waiting, lobby_thread, _ = await open_in_thread(driver, "bob")
    said = len(fake.messages("games", ephemeral=False))

    await fake.delete_channel(running)
    await fake.delete_channel(lobby_thread)
    await fake.wait_until(lambda: game.info().status == "abandoned" and driver.host.games.info(lobby_thread.id).status
                          == "abandoned", timeout=TIMEOUT, poll=0.05, description="both games ended")
    await fake.wait_until(lambda: not waiting.custom_ids, timeout=TIMEOUT,
                          description="the lobby of the deleted thread without its buttons")
    assert len(fake.messages("games", ephemeral=False)) == said  # nothing said: it is gone, as a deleted channel

    async def nothing_pending() -> bool:  # the edits of its players' turn DMs, owed when the thread went, made
        return await driver.host.outbox.pending_deliveries(running.id) == []
    await poll(nothing_pending, timeout=TIMEOUT, description="nothing left to deliver for the deleted thread")
    refused = await driver.answer(await driver.slash("status", user="alice"))  # nothing left to act on here
    assert "<#" not in refused.text


async def test_missing_thread_permissions_are_said_once_and_the_game_is_played_in_the_channel(
        fake_discord: FakeDiscord, settings: Settings) -> None:
    fake = fake_discord
    games, general = fake.channel("games"), fake.channel("general")
    driver = Driver(fake, settings, channel=games)
    await driver.start()
    try:
        # thread:false keeps the game in the channel, and says nothing of threads
        lobby = await driver.open_lobby("alice", {"thread": False}, channel=general)
        assert driver.host.games.info(general.id).game_id == game_of(lobby.custom_ids[0])
        assert fake.requests_to("POST", r"/channels/\d+/(messages/\d+/)?threads") == []

        # Discord refuses the thread after all: the game is opened in the channel instead, nothing left of the try
        fake.inject_error("POST", r"/channels/\d+/messages/\d+/threads")
        await driver.answer(await fake.slash_command("santacruz new", {}, user="alice", channel=games))
        await driver.delivered()  # the message that was to start the thread is made the lobby message
        assert (driver.info().opener_id, driver.info().parent_id) == (fake.user("alice").id, None)
        assert [m.id for m in fake.messages(games, ephemeral=False)] == [m.id for m in lobby_messages(fake)]
        fake.deny_permission(games, "create_public_threads")

        for user in ("alice", "bob", "carol"):  # no thread can be made here: the game is played in the channel
            if user != "alice":
                await driver.answer(await fake.slash_command("santacruz new", {}, user=user, channel=games))
            assert driver.info().opener_id == fake.user(user).id and driver.info().parent_id is None
            if user != "carol":  # the game is given up: the channel is free for the next
                await click(driver, await driver.answer(await driver.slash("abandon", user=user)), "abandon", user)
        notices = [m for m in fake.messages(games, ephemeral=False) if "Create Public Threads" in m.text]
        assert len(notices) == 1, [m.text for m in fake.messages(games)]  # once, however many games open here

        # a thread whose posts the bot may not send any more: the channel is told, once, and DMs go on
        fake.deny_permission(games, "create_public_threads", denied=False)
        lobby, thread, _ = await open_in_thread(driver, "alice", computers=1, strength="random")
        fake.deny_permission(games, "send_messages_in_threads")
        await click(driver, lobby, "start", "alice")
        game = in_thread(driver, thread)
        told = await fake.wait_until(
            lambda: [m for m in fake.messages(games, ephemeral=False) if "Send Messages in Threads" in m.text],
            timeout=TIMEOUT, description="the channel told of the missing permission")
        await game.settle()
        assert board_posts(fake, thread) == [] and len(told) == 1 and f"<#{thread.id}>" in told[0].text
        assert fake.dm_messages("alice")
    finally:
        await driver.stop()


async def test_a_rematch_typed_in_the_channel_names_the_thread_its_game_was_played_in(driver: Driver) -> None:
    _, thread, _ = await open_in_thread(driver, "alice", computers=1, strength="random")
    game = in_thread(driver, thread)
    # the game over as the store keeps it (a whole game played to its end: tests/host/test_thread_games.py)
    assert driver.bot.store is not None
    await driver.bot.store.update_game(game.info().game_id, now=time.time(), status="over")
    refused = await driver.answer(await driver.slash("rematch", user="alice"))
    assert refused.ephemeral and f"<#{thread.id}>" in refused.text and "/santacruz rematch" in refused.text, refused
    assert driver.info() is None  # nothing opened in the channel
    nobody = await driver.answer(await driver.slash("rematch", user="carol", locale="de"))
    assert "<#" not in nobody.text and "Revanche" in nobody.text, nobody.text
