"""Every post arrives, once: the outbox through the real discord.py and the fake Discord.

Discord answering 503, a channel without Attach Files or Send Messages, a slow channel beside a healthy
one, a bot down for hours with several moves unposted, a bot killed between a post and its turn DM,
and a lobby clicked many times while an edit of its message is held up on its way.
"""

from __future__ import annotations

import asyncio
from typing import Any

import aiosqlite

from bot.adapter import ids
from bot.adapter.delivery import Backoff
from bot.host.takeback import move_risk
from i18n import t
from tests.fakediscord import FakeDiscord, FakeMessage
from tests.helpers.buttons import is_confirm, move_control_seq
from tests.helpers.driver import PARKED, TIMEOUT, Driver, board_posts, turn_dms

QUICK = Backoff(first=0.05, limit=0.2)
"""Retries a test can wait for."""
HOURS_DOWN = 3


def set_backoff(driver: Driver, backoff: Backoff) -> None:
    cog: Any = driver.bot.get_cog("SantaCruz")
    cog.publisher.backoff = backoff


def posts_path(driver: Driver) -> str:
    return rf"/channels/{driver.channel.id}/messages"


def seq_of(post: FakeMessage) -> int:
    """The position a board post shows (its "my hand" button carries it)."""
    return next(int(cid.rsplit(":", 1)[1]) for cid in post.custom_ids if ":hand:" in cid)


async def deliveries(driver: Driver) -> list[Any]:
    assert driver.bot.store is not None
    return await driver.bot.store.deliveries(driver.info().game_id)


def bot_posts(fake: FakeDiscord, driver: Driver) -> list[FakeMessage]:
    return [m for m in fake.messages(driver.channel, ephemeral=False) if m.author_id == fake.bot_user.id]


async def test_a_post_that_discord_refuses_with_503_is_retried_until_it_arrives(driver: Driver) -> None:
    fake = driver.fake
    await driver.two_player_game()
    set_backoff(driver, QUICK)
    before = len(board_posts(fake, driver.channel))
    fake.fail_route("POST", posts_path(driver), status=503, times=3)
    await driver.play_turn()
    await driver.settle()
    posts = board_posts(fake, driver.channel)
    assert len(posts) == before + 1 and seq_of(posts[-1]) == 1
    user = driver.to_move_user()
    assert user is not None
    assert len(turn_dms(fake, user, driver.info().game_id, 1)) == 1, "the turn DM followed the post, once"
    post_row = next(d for d in await deliveries(driver) if d.kind == "move_post")
    assert post_row.attempts == 4 and post_row.done_at is not None and post_row.last_error.endswith("503 0")
    assert all(d.done_at is not None for d in await deliveries(driver))


async def test_a_failing_channel_does_not_hold_up_another(driver: Driver) -> None:
    fake = driver.fake
    await driver.open_game(["alice", "bob"])
    other = Driver(fake, driver.settings, channel="general")
    other.runner = driver.runner
    await other.open_game(["carol", "bob"])
    await driver.settle()
    await other.settle()
    set_backoff(driver, QUICK)
    fake.fail_route("POST", posts_path(driver), status=503, times=None)  # #games is down for now
    before, before_other = len(board_posts(fake, driver.channel)), len(board_posts(fake, other.channel))
    await driver.play_turn()
    await other.play_turn()
    await other.wait_posts(before_other + 1)
    assert len(board_posts(fake, driver.channel)) == before, "#games still cannot post"
    assert next(d.kind for d in await deliveries(driver) if d.done_at is None) == "move_post"
    fake.clear_errors()  # #games is back
    await driver.wait_posts(before + 1)
    await driver.settle()
    assert len(board_posts(fake, driver.channel)) == before + 1
    assert all(d.done_at is not None for d in await deliveries(driver))


async def test_without_attach_files_the_words_and_mention_go_out_and_the_opener_is_told_once(
        driver: Driver) -> None:
    fake = driver.fake
    await driver.two_player_game()
    fake.deny_permission(driver.channel, "attach_files")
    posts_before = len(bot_posts(fake, driver))
    for _ in range(2):
        await driver.play_turn("dm")
        await driver.settle()
    posts = bot_posts(fake, driver)[posts_before:]
    assert len(posts) == 2 and all(not p.attachments for p in posts)
    user = driver.to_move_user()
    assert user is not None and f"<@{fake.user(user).id}>" in posts[-1].text
    assert [seq_of(p) for p in posts] == [1, 2]
    where = f"<#{driver.channel.id}>"
    told = [m for m in fake.dm_messages("alice") if m.text == t("bot.dm.missing_attach_files", "en", channel=where)]
    assert len(told) == 1
    await driver.restart()  # once per game, not once per start of the bot: what it owes is stored with the game
    await driver.play_turn("dm")
    await driver.settle()
    assert not bot_posts(fake, driver)[-1].attachments
    told = [m for m in fake.dm_messages("alice") if m.text == t("bot.dm.missing_attach_files", "en", channel=where)]
    assert len(told) == 1
    fake.deny_permission(driver.channel, "attach_files", denied=False)
    await driver.play_turn("dm")
    await driver.settle()
    assert bot_posts(fake, driver)[-1].attachments, "pictures again once the permission is back"


async def test_without_send_messages_the_game_goes_on_by_dm_and_the_opener_is_told_once(driver: Driver) -> None:
    fake = driver.fake
    await driver.two_player_game()
    fake.deny_permission(driver.channel, "send_messages")
    posts_before = len(bot_posts(fake, driver))
    for _ in range(3):
        await driver.play_turn("dm")  # each player finds their turn in their DMs
        await driver.settle()
    assert driver.info().seq == 3 and len(bot_posts(fake, driver)) == posts_before
    where = f"<#{driver.channel.id}>"
    told = [m for m in fake.dm_messages("alice") if m.text == t("bot.dm.missing_send_messages", "en", channel=where)]
    assert len(told) == 1
    posts = [d for d in await deliveries(driver) if d.kind == "move_post"]
    assert len(posts) == 3 and all(d.done_at is not None and d.last_error == "missing permission: send_messages"
                                   for d in posts)


async def shift_back(path: str, hours: float) -> None:
    """Make the stored times as old as if the bot had been down ``hours`` hours."""
    seconds = hours * 3600
    async with aiosqlite.connect(path) as conn:
        await conn.execute("UPDATE games SET last_move_at = last_move_at - ?, updated_at = updated_at - ?,"
                           " created_at = created_at - ?", (seconds, seconds, seconds))
        await conn.execute("UPDATE moves SET created_at = created_at - ?", (seconds,))
        await conn.execute("UPDATE deliveries SET created_at = created_at - ?, due_at = due_at - ?",
                           (seconds, seconds))
        await conn.commit()


async def test_after_hours_down_every_unposted_move_gets_its_own_post_in_order(driver: Driver) -> None:
    fake = driver.fake
    await driver.open_game(["alice"], computers=2)  # each of Alice's moves is followed by two computer moves
    await driver.settle()
    game_id, first = driver.info().game_id, driver.info().seq + 1  # computers may have moved before Alice
    before = len(board_posts(fake, driver.channel))
    set_backoff(driver, PARKED)
    fake.fail_route("POST", posts_path(driver), status=503, times=None)
    await driver.play_turn()
    await fake.wait_until(lambda: driver.info().seq >= first + 2 and driver.to_move_user() == "alice", timeout=TIMEOUT,
                          description="the computers' moves", poll=0.1)  # their posts wait: no settle
    seq = driver.info().seq
    assert len(board_posts(fake, driver.channel)) == before, "nothing could be posted"
    await driver.stop()
    fake.clear_errors()
    await shift_back(driver.settings.database_path, HOURS_DOWN)

    await driver.start()
    unposted = seq - first + 1
    posts = (await driver.wait_posts(before + unposted))[before:]
    await driver.settle()
    assert [seq_of(p) for p in posts] == list(range(first, seq + 1)), "one post per move, in order"
    assert len({p.text for p in posts}) == unposted, "each describes its own move"
    assert all(p.attachments for p in posts)
    assert f"<@{fake.user('alice').id}>" in posts[-1].text
    assert len(turn_dms(fake, "alice", game_id, seq)) == 1
    assert all(not turn_dms(fake, "alice", game_id, s) for s in range(first, seq)), "no DM for a passed turn"
    # a further restart posts nothing again
    await driver.restart()
    await driver.settle()
    assert len(board_posts(fake, driver.channel)) == before + unposted
    assert len(turn_dms(fake, "alice", game_id, seq)) == 1


async def test_a_turn_dm_owed_after_its_post_is_sent_after_a_restart(driver: Driver) -> None:
    fake = driver.fake
    await driver.two_player_game()
    game_id = driver.info().game_id
    set_backoff(driver, PARKED)
    mover = driver.to_move_user()
    waiting = "bob" if mover == "alice" else "alice"
    fake.fail_route("POST", rf"/channels/{fake.dm_channel(waiting).id}/messages", status=503, times=None)
    before = len(board_posts(fake, driver.channel))
    await driver.play_turn()
    await driver.wait_posts(before + 1)  # the post went out, the DM after it did not
    await fake.wait_until(lambda: any(r.status == 503 for r in fake.requests_to("POST")),
                          timeout=TIMEOUT, description="the failed DM")
    assert not turn_dms(fake, waiting, game_id, 1)
    await driver.stop()
    fake.clear_errors()

    await driver.start()
    await driver.wait_turn_dm(waiting)
    await driver.settle()
    assert len(turn_dms(fake, waiting, game_id, 1)) == 1
    assert len(board_posts(fake, driver.channel)) == before + 1, "the post is not made twice"


async def test_lobby_edits_are_coalesced_to_the_newest_state(driver: Driver) -> None:
    fake = driver.fake
    lobby = await driver.open_lobby("alice")
    await fake.wait_for_dm("alice")
    edit_path = rf"/channels/{driver.channel.id}/messages/{lobby.id}"
    held = fake.stall("PATCH", edit_path)  # a slow Discord: the edit of bob's join is not done until released
    first = await driver.slash("join", user="bob")
    await driver.answer(first)
    await asyncio.wait_for(held.arrived.wait(), TIMEOUT)
    clicks = 0
    for _ in range(10):
        for command in ("leave", "join"):
            await driver.answer(await driver.slash(command, user="carol"))
            clicks += 1
    await driver.answer(await driver.slash("leave", user="bob"))
    clicks += 2  # with the first join
    held.release()
    await fake.wait_until(lambda: "Carol" in lobby.text and "Bob" not in lobby.text, timeout=TIMEOUT,
                          description="the newest lobby state")
    await driver.settle()
    edits = [r for r in fake.requests_to("PATCH") if r.path == edit_path]
    assert len(edits) < clicks // 2, f"{len(edits)} edits for {clicks} clicks"
    assert "Carol" in lobby.text and "Bob" not in lobby.text


async def test_a_turn_dm_sent_while_its_player_moves_leaves_the_next_controls_alone(driver: Driver) -> None:
    """A newer DM of a turn (a reminder) takes the controls off the older ones, but not when the player moved with
    an older one while it was on its way: that move's answer put the next controls on the clicked DM (a double move's
    builds), and they stay; the reminder's own controls, outdated, come off."""
    fake = driver.fake
    await driver.two_player_game()
    user, double = await driver.play_until(
        lambda _, view: next((m for m in view["you"]["legal_moves"] if m.startswith("double ")), None), "double move")
    info = driver.info()
    older = driver.turn_dm(user)
    held = fake.stall("POST", f"/channels/{fake.dm_channel(user).id}/messages")
    cog: Any = driver.bot.get_cog("SantaCruz")
    reminding = asyncio.create_task(cog.send_reminders(now=info.last_move_at + 13 * 3600))
    await asyncio.wait_for(held.arrived.wait(), TIMEOUT)  # the reminder is on its way
    click = await fake.click_button(older, ids.move(info.game_id, info.seq, double), user=user)
    await driver.confirm(click, user)
    await driver.wait_seq(info.seq + 1)
    await click.wait_for_message(lambda m: any(move_control_seq(c, info.game_id) == info.seq + 1 for c in m.custom_ids),
                                 timeout=TIMEOUT)
    held.release()
    assert await asyncio.wait_for(reminding, TIMEOUT) == 1
    await driver.settle()
    reminder = fake.dm_messages(user)[-1]
    assert reminder.id != older.id and not reminder.custom_ids, "the reminder's controls, outdated, came off"
    assert driver.turn_dm(user).id == older.id, "the controls of the double move's build stay on the clicked DM"


async def test_a_question_asked_on_a_turn_dm_keeps_its_play_it_when_a_reminder_comes(driver: Driver) -> None:
    """A reminder (a newer DM of the turn) takes the controls off the older DMs, but not off the one showing a
    question asked in place: the player is answering it, and its *Play it* plays the move; the reminder's controls
    are then told the turn has passed, as every DM of a passed turn is."""
    fake = driver.fake
    await driver.two_player_game()

    def asked_first(user: str, view: Any) -> str | None:
        return next((m for m in view["you"]["legal_moves"] if " " in m
                     and move_risk(driver.host.games.tables[driver.channel.id].playing, [m]).final), None)
    user, move = await driver.play_until(asked_first, "a move that cannot be taken back")
    info = driver.info()
    older = await driver.wait_turn_dm(user)
    select = next((s for s in older.selects if any(o["value"] == move for o in s["options"])), None)
    if select is not None:
        click = await fake.select(older, select["custom_id"], [move], user=user)
    else:
        click = await fake.click_button(older, ids.move(info.game_id, info.seq, move), user=user)
    question = await driver.answer(click)
    assert any(is_confirm(b["custom_id"]) for b in question.buttons), f"{move} was not asked first"
    assert question.id == older.id, "the question is asked in place of the DM's controls"

    cog: Any = driver.bot.get_cog("SantaCruz")
    assert await cog.send_reminders(now=info.last_move_at + 13 * 3600) == 1
    await driver.settle()
    reminder = fake.dm_messages(user)[-1]
    assert reminder.id != older.id and reminder.custom_ids, "the reminder came with the turn's controls"
    play_it = [b["custom_id"] for b in question.buttons if is_confirm(b["custom_id"])]
    assert play_it, "the reminder took the question's Play it away"

    await fake.click_button(question, play_it[0], user=user)
    await driver.wait_seq(info.seq + 1)
    await driver.settle()
    assert not fake.message(reminder.id).custom_ids, "the reminder still offers the passed turn's controls"
