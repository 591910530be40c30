"""Games survive the bot: stopped mid-game, killed between the database write and the reply, a channel
post that fails, and an interaction Discord sends again. A new bot object from ``create_bot`` on the same
database file carries on, with no move lost or applied twice, and old buttons still work; what a start owes from
before it goes out a few at a time, after the moves being played."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.adapter import ids
from bot.adapter.background import OWED_COMPUTERS_AT_ONCE
from bot.adapter.delivery import Backoff
from bot.adapter.publish import CATCH_UP_AT_ONCE
from bot.host.change import Change
from bot.host.host import Host
from bot.host.metrics import REGISTRY
from bot.host.settings import Settings
from bot.host.store import Store
from i18n import t
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage
from tests.fakediscord.audit import controls, pictures
from tests.fakediscord.faults import Stall
from tests.helpers.buttons import is_confirm
from tests.helpers.driver import TIMEOUT, Driver, Gate, board_posts, has_undo, post_of, running, turns_ended


async def owed_while_down(fake: FakeDiscord, tmp_path: Path, owe: Callable[[Host, FakeChannel], Awaitable[None]]
                          ) -> tuple[Settings, list[FakeChannel], list[Stall]]:
    """``CATCH_UP_AT_ONCE`` + 4 channels of a server in each of which ``owe`` stores something while no bot runs (a
    host on the database alone): the bot's settings, the channels, and a stall holding each post to them on its way to
    Discord."""
    guild = fake.add_guild("Owed", owner="alice", channels=[f"owed{i}" for i in range(CATCH_UP_AT_ONCE + 4)])
    owing = [channel for channel in fake.channels.values() if channel.guild_id == guild.id]
    settings = Settings(database_path=str(tmp_path / "games.db"))
    store = await Store.open(settings.database_path)
    try:
        host = Host(store, settings)
        await host.load()
        for channel in owing:
            await owe(host, channel)
    finally:
        await store.close()
    return settings, owing, [fake.stall("POST", rf"/channels/({'|'.join(str(c.id) for c in owing)})/messages")
                             for _ in owing]


def lobby_of(opener: int, name: str) -> Callable[[Host, FakeChannel], Awaitable[None]]:
    """What :func:`owed_while_down` stores in a channel: a lobby the user ``opener`` (``name``) opened, its message
    owed."""

    async def opened(host: Host, channel: FakeChannel) -> None:
        await host.lobby.open(channel.id, channel.guild_id, opener, name)

    return opened


def under_way(held: list[Stall]) -> int:
    """How many of the posts ``held`` have reached Discord's door (each is held there until released)."""
    return sum(stall.arrived.is_set() for stall in held)


async def begun_meanwhile_then_let_through(driver: Driver, held: list[Stall], bound: str) -> None:
    """A game begun while the owed posts are held gets its lobby message and start post without waiting for them,
    while only ``CATCH_UP_AT_ONCE`` of them are under way (``bound``: what it means if more are); then they are let
    through."""
    await driver.open_game(["alice", "bob"])
    assert len(board_posts(driver.fake, driver.channel)) == 1
    assert under_way(held) == CATCH_UP_AT_ONCE, bound
    for stall in held:
        stall.release()


async def stored_moves(driver: Driver) -> list[tuple[int, str, int | None]]:
    info = driver.info()
    assert driver.bot.store is not None
    return [(r.seq, r.move, r.interaction_id) for r in await driver.bot.store.moves(info.game_id)]


async def test_stopped_mid_game_and_finished_by_a_new_bot(driver: Driver) -> None:
    fake = driver.fake
    await driver.open_game(["alice", "bob"], replay=False)  # the moves and posts are checked, not the replay
    await driver.settle()
    played = []
    for i in range(6):
        played.append(await driver.play_turn("dm" if i % 2 else "slash"))
        await driver.settle()
    game_id = driver.info().game_id
    user = driver.to_move_user()
    assert user is not None
    old_dm = driver.turn_dm(user)  # its controls must still work after the restart

    posts = len(board_posts(fake, driver.channel))
    await driver.restart()
    info = driver.info()
    assert info is not None and info.game_id == game_id and info.seq == 6 and info.status == "running"
    await driver.settle()
    assert len(board_posts(fake, driver.channel)) == posts, "the last position was posted: nothing again"
    assert [m for _, m, _ in await stored_moves(driver)] == played

    move = driver.pick(user)
    for select in old_dm.selects:
        if any(o["value"] == move for o in select["options"]):
            click = await driver.confirm(await fake.select(old_dm, select["custom_id"], [move], user=user), user)
            break
    else:
        click = await driver.play_dm(user, move)
    await click.wait_for_callback(timeout=TIMEOUT)
    await driver.wait_seq(7)
    played.append(move)
    await driver.settle()
    while driver.info().status == "running":
        played.append(await driver.play_turn("slash" if len(played) % 3 else "dm"))
        await driver.settle()
    assert [m for _, m, _ in await stored_moves(driver)] == played
    assert len(board_posts(fake, driver.channel)) == 1 + turns_ended(driver.host.play.public_view(driver.channel.id))


async def test_a_turn_dm_sent_before_a_restart_is_told_after_it_that_its_turn_passed(driver: Driver) -> None:
    fake = driver.fake
    await driver.two_player_game()
    await driver.play_turn()
    await driver.settle()
    user = driver.to_move_user()
    assert user is not None
    dm = driver.turn_dm(user)
    your_turn = t("bot.dm.your_turn", "en", channel="\0", phase="").split("\0")[0]
    assert your_turn in dm.text and controls(dm)

    await driver.restart()  # the new bot knows the DM only from the database
    await driver.settle()
    seq = driver.info().seq
    move = driver.pick(user, lambda legal: next(m for m in legal if m.startswith("land ")))
    await driver.play_slash(user, move)  # by command: the DM's own controls were not used
    await driver.wait_seq(seq + 1)
    await driver.settle()
    told = fake.message(dm.id)
    assert told.id == dm.id and your_turn not in told.text and controls(told) == []
    assert told.text.startswith(t("bot.dm.turn_over.moved", "en", channel="\0", moves="").split("\0")[0])
    assert f"site {move.split()[1]}" in told.text
    assert pictures(told)  # the picture of that turn stays


async def test_killed_between_the_database_write_and_the_reply(driver: Driver) -> None:
    fake = driver.fake
    await driver.open_game(["alice", "bob", "carol"])
    await driver.settle()
    await driver.play_turn()
    await driver.settle()
    user = driver.to_move_user()
    assert user is not None
    move = driver.pick(user, lambda legal: next(m for m in legal if m.startswith("land ")))
    posts_before = len(board_posts(fake, driver.channel))

    # the process dies right after the move and the game's state were committed
    store = driver.bot.store
    assert store is not None
    real_apply = store.apply
    committed = asyncio.Event()

    async def append_then_die(game_id: int, change: Change, **kwargs: Any) -> int | None:
        version = await real_apply(game_id, change, **kwargs)
        if change.move is None:  # not the move (a snapshot, a timer): carry on
            return version
        committed.set()
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        await asyncio.sleep(0)

    command, options = driver.slash_for_move(move)
    question = await driver.answer(await driver.slash(command, options, user=user))
    ok = next(b["custom_id"] for b in question.buttons if is_confirm(b["custom_id"]))  # a landing is asked
    store.apply = append_then_die  # type: ignore[method-assign]
    handle = await fake.click_button(question, ok, user=user)
    await asyncio.wait_for(committed.wait(), TIMEOUT)
    await driver.stop()
    assert len(board_posts(fake, driver.channel)) == posts_before, "nothing was posted: the bot died first"
    assert not [m for m in handle.messages if not m.loading], "and nothing was answered"

    # the database has the move exactly once
    check = await Store.open(driver.settings.database_path)
    try:
        rows = await check.moves((await check.open_games())[0].id)
    finally:
        await check.close()
    assert [r.move for r in rows].count(move) == 1 and rows[-1].interaction_id == handle.id

    # a new bot carries on from there: it delivers the move's own post (its events, the next player's
    # mention), which the database still owed, and DMs the next player
    await driver.start()
    info = driver.info()
    assert info.seq == 2 and info.status == "running"
    assert driver.to_move_user() != user
    next_user = driver.to_move_user()
    assert next_user is not None
    recovered = (await driver.wait_posts(posts_before + 1))[-1]
    assert recovered.text.startswith("• ") and f"<@{fake.user(next_user).id}>" in recovered.text
    await driver.wait_turn_dm(next_user)
    # Discord sends the same interaction again: answered, not applied twice
    again = fake.build_button_click(question, ok, user=user)
    again.payload["id"] = str(handle.id)
    again.id = handle.id
    fake.interactions[handle.id] = again
    await fake.dispatch_interactions(again)
    reply = await driver.answer(again)
    assert reply.ephemeral and reply.text == t("host.error.already_done", fake.user(user).locale)
    assert driver.info().seq == 2
    # and the game goes on
    await driver.play_turn("dm")
    await driver.settle()
    assert driver.info().seq == 3
    assert [r[1] for r in await stored_moves(driver)].count(move) == 1


async def test_a_failed_channel_post_does_not_stop_the_game(driver: Driver) -> None:
    fake = driver.fake
    await driver.two_player_game()
    cog: Any = driver.bot.get_cog("SantaCruz")
    cog.publisher.backoff = Backoff(first=0.05, limit=0.2)
    before = len(board_posts(fake, driver.channel))
    fake.fail_route("POST", rf"/channels/{driver.channel.id}/messages")  # the next post fails once
    await driver.play_turn()
    await driver.settle()
    assert len(board_posts(fake, driver.channel)) == before + 1, "that move's post was tried again"
    # the next player got their turn DM, and the game goes on after a restart too
    await driver.play_turn("dm")
    await driver.settle()
    await driver.restart()
    await driver.play_turn("slash")
    await driver.settle()
    assert driver.info().seq == 3
    assert len(board_posts(fake, driver.channel)) == before + 3
    assert [r[0] for r in await stored_moves(driver)] == [1, 2, 3]


async def test_lobby_buttons_work_after_a_restart(driver: Driver) -> None:
    fake = driver.fake
    lobby = await driver.open_lobby("alice")
    await fake.wait_for_dm("alice")  # the welcome DM: the bot is done with the command
    await driver.restart()
    game_id = driver.info().game_id
    click = await fake.click_button(lobby, ids.game(game_id, "join"), user="carol")
    await click.wait_for_callback(timeout=TIMEOUT)
    await driver.settle()  # the outbox redraws the lobby message: the new process found it in the database
    assert "Carol" in lobby.text and len(driver.info().seats) == 2
    click = await fake.click_button(lobby, ids.game(game_id, "start"), user="alice")
    await click.wait_for_callback(timeout=TIMEOUT)
    await driver.wait_posts(1)
    assert driver.info().status == "running" and not lobby.buttons


async def test_a_lobby_started_while_the_bot_was_down_has_its_message_closed_at_the_start(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    """A lobby opened, joined and started while no bot ran (a process killed before its outbox posted anything) owes
    its message, the game's first post and the lobby message closed: the next start sends them all (nothing to look
    for in Discord before an edit), without an error."""
    fake = fake_discord
    settings = Settings(database_path=str(tmp_path / "games.db"))
    store = await Store.open(settings.database_path)
    try:
        host = Host(store, settings)
        await host.load()
        channel = fake.channel("games")
        await host.lobby.open(channel.id, channel.guild_id, fake.user("alice").id, "alice")
        await host.lobby.join(channel.id, fake.user("carol").id, "Carol")
        await host.lobby.start(channel.id, fake.user("alice").id)
    finally:
        await store.close()
    async with running(Driver(fake, settings, channel="games")) as driver:
        await driver.wait_posts(1)
        await driver.settle()
        lobby = [m for m in fake.messages(channel, ephemeral=False) if "Carol" in m.text and not m.buttons]
        assert lobby, "the lobby message, Carol in it and its buttons gone for good"
        driver.assert_no_errors()


async def test_dms_keep_the_players_language_and_channel_after_a_restart(driver: Driver) -> None:
    fake = driver.fake
    assert fake.user("bob").locale == "de" and fake.user("alice").locale == "en-US"
    await driver.open_game(["alice", "bob"])  # an English game; Bob joins with a German Discord client
    await driver.settle()
    assert driver.info().locale == "en"
    if driver.to_move_user() == "bob":
        await driver.play_turn("dm")
        await driver.settle()
    assert driver.to_move_user() == "alice"
    opened = len(fake.requests_to("POST", "/users/@me/channels"))
    assert opened >= 2  # each player's DM channel, opened once

    await driver.restart()  # Bob does not interact again: only the database knows his language
    bob = fake.user("bob").id
    assert driver.host.people.locale_of(bob) == "de"
    while driver.to_move_user() == "alice":
        await driver.play_turn("slash")
        await driver.settle()
    assert driver.to_move_user() == "bob"
    where = f"<#{driver.channel.id}>"
    turn = await driver.wait_turn_dm("bob")
    assert turn.text.startswith(t("bot.dm.your_turn", "de", channel=where, phase="").split(" (")[0])
    assert "Du bist am Zug" in turn.text and "Your turn" not in turn.text
    # nor his DM channel: the database has it, so the DM went out in one request
    assert len(fake.requests_to("POST", "/users/@me/channels")) == opened
    assert not fake.requests_to("GET", r"/users/\d+"), "a user was fetched only to open a DM"

    # and a reminder hours later, after another restart, too
    await driver.restart()
    cog: Any = driver.bot.get_cog("SantaCruz")
    before = len(fake.dm_messages("bob"))
    assert await cog.send_reminders(now=driver.info().last_move_at + 13 * 3600) == 1
    assert len(fake.dm_messages("bob")) == before + 1
    reminder = fake.dm_messages("bob")[-1]
    assert reminder.text.startswith(t("bot.dm.reminder", "de", channel=where))
    assert "Erinnerung" in reminder.text
    # Alice's DMs stay in the language of her client (English here, like the game's)
    alice_dms = fake.dm_messages("alice")
    assert alice_dms and all("Du bist" not in m.text for m in alice_dms)


async def test_after_a_restart_the_post_before_loses_undo_and_an_undo_edits_its_move_post(driver: Driver) -> None:
    """The bot forgets which post it sent last when it restarts: the database remembers. The next post takes Undo
    off the one sent before the restart, and an undo edits the post of the move it takes back."""
    fake = driver.fake
    await driver.open_game(["alice", "bob"], draft=True)  # choosing a set reveals nothing: each post has Undo
    await driver.settle()

    def post(seq: int) -> FakeMessage:
        return post_of(fake, driver.channel, driver.info().game_id, seq)

    def undo_on(message: FakeMessage) -> bool:
        return has_undo(message, driver.info().game_id)

    async def choose() -> str:
        user = driver.to_move_user()
        assert user is not None
        legal = driver.host.play.legal_moves(driver.channel.id, fake.user(user).id)
        move = next(m for m in legal if m.startswith("set "))
        await driver.answer(await driver.slash("choose", {"option": move}, user=user))
        await driver.settle()
        return user

    await choose()
    first = post(1)
    assert undo_on(first)
    await driver.restart()
    mover = await choose()
    second = post(2)
    assert undo_on(second) and not undo_on(post(1)), "the post sent before the restart kept its Undo"
    words = post(1).text
    await driver.restart()
    await driver.answer(await driver.slash("undo", user=mover))
    await driver.settle()
    edited = next(m for m in fake.messages(driver.channel, ephemeral=False) if m.id == second.id)
    assert "taken back" in edited.text and not undo_on(edited)
    assert post(1).text == words and post(1).id == first.id
    assert sum("taken back" in m.text for m in fake.messages(driver.channel, ephemeral=False)) == 1, \
        "the undo edited its move's post, not posting anew"


async def test_a_move_stored_while_the_bot_shuts_down_starts_no_task_and_goes_out_at_the_next_start(
        driver: Driver) -> None:
    """Once the bot began to shut down, a change that wakes a channel (a server's removal arriving while the gateway
    closes, a late click) starts no delivery nor computer task, which would outlive the database; its post is
    stored, and the next start sends it."""
    fake = driver.fake
    await driver.two_player_game()
    cog: Any = driver.bot.get_cog("SantaCruz")
    await cog.shutdown(grace=1.0)
    posts = len(board_posts(fake, driver.channel))
    user = driver.to_move_user()
    assert user is not None
    move = driver.host.play.legal_moves(driver.channel.id, fake.user(user).id)[0]
    result = await driver.host.play.move(driver.channel.id, fake.user(user).id, move)
    cog.background.after_move(result)
    cog.background.start_computers(driver.channel.id)
    assert cog.publisher.pending() == [] and not any(not t.done() for t in cog.background.computers.values())
    assert len(board_posts(fake, driver.channel)) == posts
    owed_before = tokens_taken("catch_up")
    await driver.restart()
    await driver.settle()
    assert len(board_posts(fake, driver.channel)) == posts + 1, "the stored post went out at the next start"
    # owed from before the start, it gave way to the posts of moves made since (its requests: looked for, then sent)
    assert tokens_taken("catch_up") >= owed_before + 2


def tokens_taken(priority: str) -> float:
    """Tokens of the bot's request budget taken at ``priority`` in this process so far (the metric counts each)."""
    return REGISTRY.get_sample_value("santacruz_discord_budget_wait_seconds_count", {"priority": priority}) or 0.0


async def test_a_post_goes_out_when_the_latest_post_cannot_be_looked_up(driver: Driver) -> None:
    """Taking *Undo* off the post before is a nicety: when the database cannot say which post is the latest, the
    new post still goes out (the lookup is only logged)."""
    fake = driver.fake
    await driver.two_player_game()
    posts = len(board_posts(fake, driver.channel))

    async def broken(game_id: int) -> None:
        raise RuntimeError("the outbox table is unreadable")

    driver.host.outbox.last_post = broken  # type: ignore[method-assign]
    await driver.play_turn()
    await driver.settle()
    assert len(board_posts(fake, driver.channel)) == posts + 1


async def test_a_start_that_owes_many_posts_sends_a_few_at_a_time_and_a_game_begun_meanwhile_first(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    """Lobbies opened while the bot was down owe their lobby messages at its start. However many there are, only
    ``CATCH_UP_AT_ONCE`` are under way at once (their posts held here on their way to Discord), and a game begun
    meanwhile in another channel gets its posts without waiting for them; once they are let through, every lobby
    message goes out."""
    fake = fake_discord

    settings, owing, held = await owed_while_down(fake, tmp_path, lobby_of(fake.user("alice").id, "alice"))

    async with running(Driver(fake, settings, channel="games")) as driver:
        await fake.wait_until(lambda: under_way(held) >= CATCH_UP_AT_ONCE, timeout=TIMEOUT, poll=0.05,
                              description="the first owed lobby messages on their way")
        await begun_meanwhile_then_let_through(driver, held, "more owed posts under way at once than the bound")
        await fake.wait_until(lambda: all(fake.messages(channel) for channel in owing), timeout=TIMEOUT,
                              description="every owed lobby message")
        await driver.settle()
    assert under_way(held) == len(owing)


async def test_an_owed_post_that_a_move_waits_behind_goes_at_once_at_the_moves_priority(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    """A lobby message owed from before the start waits for its turn with the others; someone joins that lobby
    meanwhile, whose lobby edit waits behind it in the channel: the owed message goes at once, and its requests no
    longer give way as the catch-up's do (they hold up the join's)."""
    fake = fake_discord

    settings, owing, held = await owed_while_down(fake, tmp_path, lobby_of(fake.user("alice").id, "alice"))

    async with running(Driver(fake, settings, channel="games")):
        await fake.wait_until(lambda: under_way(held) >= CATCH_UP_AT_ONCE, timeout=TIMEOUT, poll=0.05,
                              description="the first owed lobby messages on their way")
        waiting = next(c for c in owing if not any(r.path.startswith(f"/channels/{c.id}/") for r in fake.requests))
        owed_tokens, tokens_now = tokens_taken("catch_up"), tokens_taken("post")
        await (await fake.slash_command("santacruz join", {}, user="bob", channel=waiting)).wait_for_message(
            timeout=TIMEOUT)
        await fake.wait_until(lambda: under_way(held) == CATCH_UP_AT_ONCE + 1, timeout=TIMEOUT, poll=0.05,
                              description="the owed lobby message the join waits behind on its way")
        assert tokens_taken("catch_up") == owed_tokens, "the owed message a join waits behind gave way as owed"
        assert tokens_taken("post") > tokens_now
        for stall in held:
            stall.release()
        await fake.wait_until(lambda: all(fake.messages(channel) for channel in owing), timeout=TIMEOUT,
                              description="every owed lobby message")


async def test_an_owed_post_already_on_its_way_when_a_move_comes_behind_it_goes_on_at_the_moves_priority(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    """A lobby message owed from before the start is on its way (its look for a copy sent before the start held at
    Discord's door) when someone joins that lobby, whose edit waits behind it: what it still sends goes at the moves'
    priority, no longer as the catch-up's."""
    fake = fake_discord
    settings, owing, held = await owed_while_down(fake, tmp_path, lobby_of(fake.user("alice").id, "alice"))
    for stall in held:
        stall.release()  # the posts go through; the looks before them are held
    looks = {channel.id: fake.stall("GET", rf"/channels/{channel.id}/messages") for channel in owing}

    async with running(Driver(fake, settings, channel="games")):
        try:
            await fake.wait_until(lambda: under_way(list(looks.values())) >= CATCH_UP_AT_ONCE, timeout=TIMEOUT,
                                  poll=0.05, description="the first owed lobby messages on their way")
            channel = next(c for c in owing if looks[c.id].arrived.is_set())
            owed_tokens, tokens_now = tokens_taken("catch_up"), tokens_taken("post")
            await (await fake.slash_command("santacruz join", {}, user="bob", channel=channel)).wait_for_message(
                timeout=TIMEOUT)
            answered = len(fake.messages(channel))  # the join's answer, maybe
            looks[channel.id].release()
            await fake.wait_until(lambda: len(fake.messages(channel)) > answered, timeout=TIMEOUT, poll=0.05,
                                  description="the owed lobby message the join waits behind")
            assert tokens_taken("catch_up") == owed_tokens, "the owed message a join waits behind went on as owed"
            assert tokens_taken("post") > tokens_now
        finally:
            for stall in looks.values():
                stall.release()
        await fake.wait_until(lambda: all(fake.messages(c) for c in owing), timeout=TIMEOUT,
                              description="every owed lobby message")


async def test_the_moves_of_computers_a_start_finds_owed_take_their_turns_with_what_it_owes(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    """Games whose computer was to move when the bot went down (their person's move stored, its post owed): at the
    start the computers move, ``OWED_COMPUTERS_AT_ONCE`` games at a time, and those moves are owed from before the
    start too. So the posts owed before them do not hurry past the bound as they would for a move being played now:
    only ``CATCH_UP_AT_ONCE`` games are under way at once, a game begun meanwhile gets its posts without waiting, and
    once let through every computer's move is posted."""
    fake = fake_discord
    gate = Counted()
    gate.close()
    alice = fake.user("alice").id

    async def computer_to_move(host: Host, channel: FakeChannel) -> None:
        await host.lobby.open(channel.id, channel.guild_id, alice, "alice")
        await host.lobby.add_computer(channel.id, alice, "random")
        await host.lobby.start(channel.id, alice)
        table, game = host.games.started(channel.id)
        while game.to_move == table.seat_of(alice):
            await host.play.move(channel.id, alice, host.play.legal_moves(channel.id, alice)[0])
            table, game = host.games.started(channel.id)
        assert table.seats[game.to_move].computer_plays

    settings, owing, held = await owed_while_down(fake, tmp_path, computer_to_move)

    async with running(Driver(fake, settings, channel="games", gate=gate)) as driver:
        await fake.wait_until(lambda: gate.now >= OWED_COMPUTERS_AT_ONCE, timeout=TIMEOUT, poll=0.05,
                              description="the first computers thinking")
        await asyncio.sleep(0.2)  # the others, were they let think, would be thinking by now
        assert gate.most == OWED_COMPUTERS_AT_ONCE < len(owing), "the computers a start found all thought at once"
        gate.open()
        await fake.wait_until(lambda: under_way(held) >= CATCH_UP_AT_ONCE, timeout=TIMEOUT, poll=0.05,
                              description="the first owed posts on their way")
        host = driver.bot.host
        assert host is not None

        def person_to_move(channel: Any) -> bool:
            info = host.games.info(channel.id)
            return info is not None and info.to_move is not None and not info.seats[info.to_move].is_computer

        await fake.wait_until(lambda: all(map(person_to_move, owing)), timeout=TIMEOUT, poll=0.05,
                              description="every computer moved")
        await begun_meanwhile_then_let_through(driver, held,
                                               "the owed posts hurried past the bound for the computers' moves")
        for channel in owing:
            info = host.games.info(channel.id)
            assert info is not None

            def posted(c: Any = channel, game_id: int = info.game_id, seq: int = info.seq) -> bool:
                return any(ids.game(game_id, "hand", seq) in m.custom_ids for m in fake.messages(c, ephemeral=False))

            await fake.wait_until(posted, timeout=TIMEOUT, description="the computer's move posted")
        await driver.settle()


class Counted(Gate):
    """A computer player (the first legal move) that counts how many of it think at once."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()
        self.now = 0
        """Thinking now."""
        self.most = 0
        """The most that thought at once."""

    def __call__(self, view: dict[str, Any], strength: str, seed: int, budget: float) -> str:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        try:
            return super().__call__(view, strength, seed, budget)
        finally:
            with self.lock:
                self.now -= 1


@pytest.mark.bot_settings(games_in_memory=1)
async def test_a_game_whose_latest_post_was_forgotten_still_loses_undo_on_its_next_post(driver: Driver) -> None:
    """A process remembers the latest post of as many games as it holds in memory (here one): a game posted in since
    pushes the first game's out, and the first game's next post still takes Undo off its previous one (found in the
    database and on Discord, as after a restart)."""
    fake = driver.fake

    async def choose() -> int:
        """The player to move in ``driver.channel`` chooses a set (it may be taken back: its post has Undo)."""
        user = driver.to_move_user()
        assert user is not None
        legal = driver.host.play.legal_moves(driver.channel.id, fake.user(user).id)
        await driver.answer(await driver.slash("choose", {"option": next(m for m in legal if m.startswith("set "))},
                                               user=user))
        await driver.settle()
        return int(driver.info().game_id)

    games = fake.channel("games")
    await driver.open_game(["alice", "bob"], draft=True)
    await driver.settle()
    first = await choose()
    assert has_undo(post_of(fake, games, first, 1), first)
    driver.channel = fake.channel("general")
    await driver.open_game(["carol", "alice"], draft=True)
    await driver.settle()
    await choose()
    remembered = driver.cog.publisher.deliveries.undo_marks.latest
    assert list(remembered) == [driver.info().game_id], "one game's latest post remembered"
    driver.channel = games
    await driver.look()  # the first game left memory too (one game): read again, as a command in its channel does
    await choose()
    assert has_undo(post_of(fake, games, first, 2), first)
    assert not has_undo(post_of(fake, games, first, 1), first), "the post before kept its Undo"
