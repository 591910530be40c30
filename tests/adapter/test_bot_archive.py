"""The archive through the real discord.py and the fake Discord: the game-over replay, ``/santacruz history``,
``game``, ``export`` (refused for a running game) and the log as a file, before and after a restart, of a whole game
one person played against two computers (its posts, the computers' moves and its Rematch checked too). The bot has
web pages (``PUBLIC_URL``): the game-over post and ``history id`` carry *Open board*."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
from typing import Any

import pytest
from PIL import Image

from bot.adapter import ids
from bot.adapter.delivery import Backoff
from bot.host.deliveries import GAME_OVER_DM, MOVE_POST, REPLAY_POST
from engine import from_record
from i18n import t
from tests.fakediscord import FakeMessage
from tests.helpers.driver import TIMEOUT, Driver, board_posts, turns_ended

DISCORD_LIMIT = 8 * 1024 * 1024
PUBLIC_URL = "https://santacruz.example"

pytestmark = pytest.mark.bot_settings(public_url=PUBLIC_URL)
"""The usual test settings, with web pages at :data:`PUBLIC_URL` (no server is needed for the links)."""


def page_links(message: FakeMessage) -> list[str]:
    return [str(b["url"]) for b in message.buttons if b.get("style") == 5]


def with_attachment(driver: Driver, filename: str) -> list[FakeMessage]:
    return [m for m in driver.fake.messages(driver.channel, ephemeral=False)
            if any(a.filename == filename for a in m.attachments)]


async def test_one_person_against_two_computers_then_the_archive_before_and_after_a_restart(driver: Driver) -> None:
    """One whole game (a person by her turn DMs against two computers) for what a game against computers shows and
    for the archive of a finished game: both look at the same finished game, so it is played once."""
    fake = driver.fake
    lobby = await driver.open_lobby("carol", {"computers": 2, "strength": "random"})
    assert "Ordinateur 1" not in lobby.text  # the game's language is the server's (English), not carol's
    assert "Computer 1" in lobby.text and "Computer 2" in lobby.text
    click = await fake.click_button(lobby, ids.game(driver.info().game_id, "start"), user="carol")
    await click.wait_for_callback(timeout=TIMEOUT)
    await driver.settle()
    while driver.info().status == "running":
        await driver.play_turn("dm")
        await driver.settle()
    info = driver.info()
    game_id = int(info.game_id)
    final_view = driver.host.play.public_view(driver.channel.id)
    posts = board_posts(fake, driver.channel)
    assert len(posts) == 1 + turns_ended(final_view)
    assert driver.bot.store is not None  # a finished game is unloaded from memory: count its stored moves
    computer_moves = sum(1 for row in await driver.bot.store.moves(game_id) if row.user_id is None)
    assert computer_moves > info.seq // 2
    assert "Computer 1" in "\n".join(p.text for p in posts)
    assert "game-over.png" in [a.filename for a in posts[-1].attachments]
    # the game-over post carries the animated replay, in one gallery with the board and the chart
    replays = await fake.wait_until(lambda: with_attachment(driver, "replay.gif"), timeout=TIMEOUT,
                                    description="the replay post", poll=0.2)
    over = with_attachment(driver, "game-over.png")
    assert len(replays) == 1 and len(over) == 1 and over[0].id == replays[0].id
    page = await driver.host.web.link(game_id)
    assert page is not None and page.startswith(PUBLIC_URL + "/g/") and page_links(over[0]) == [page]
    gif = next(a for a in replays[0].attachments if a.filename == "replay.gif").data
    assert len(gif) < DISCORD_LIMIT and Image.open(io.BytesIO(gif)).is_animated
    # the history links to the game-over post (marked delivered before the replay was sent)

    async def check_history() -> None:
        answer = await driver.answer(await driver.slash("history", user="bob"))
        assert answer.ephemeral and f"#{game_id}" in answer.text and str(over[0].id) in answer.text
        winner = final_view["players"][final_view["winner"]]["name"]
        assert f"**{winner}**" in answer.text

    await check_history()
    # the export replays to the same final view
    answer = await driver.answer(await driver.slash("history", {"export": True}, user="bob"))
    file = next(a for a in answer.attachments if a.filename == f"santacruz-game-{game_id}.json")
    record = json.loads(file.data)
    assert "seed" not in json.dumps(record)
    assert from_record(record["setup"], [m["move"] for m in record["moves"]]).view(None) == final_view
    # the whole log does not fit one message: it comes as a file with every move
    answer = await driver.answer(await driver.slash("log", user="bob", locale="en-US"))
    assert answer.text == t("bot.log.attached", "en")
    log = next(a for a in answer.attachments if a.filename == "santacruz-log.txt").data.decode()
    assert sum(line.startswith("• ") for line in log.splitlines()) == len(final_view["log"])
    # with each scoring card's points and, at the end, the result: the ranking with the scores, and the winner
    winner = final_view["players"][final_view["winner"]]["name"]
    assert log.splitlines()[-1] == t("bot.log.winner", "en", name=winner)
    for place, seat in enumerate(final_view["ranking"], start=1):
        player = final_view["players"][seat]
        assert f"\n{place}. {player['name']}: {player['score']} points" in log
    assert any(line.startswith("• ") and line.endswith(")") and " +" in line.rsplit("(", 1)[-1]
               and "“" in line for line in log.splitlines())  # a scoring card and the points it gave
    # status after the game: the result, for a player and anyone else, never the empty hands
    for user in ("carol", "bob"):
        status = await driver.answer(await driver.slash("status", user=user, locale="en-US"))
        assert t("bot.log.winner", "en", name=winner) in status.text, status.text
        assert "building card" not in status.text and "scoring card" not in status.text, status.text
    await driver.restart()
    await check_history()
    answer = await driver.answer(await driver.slash("history", {"id": game_id}, user="bob", locale="de"))
    # as the game-over post showed it: the overview, the chart and the board (posts.layout: each alone in its gallery)
    assert [a.filename for a in answer.attachments] == ["overview.png", "game-over.png", "board.png"]
    assert f"**Spiel #{game_id}**" in answer.text and "1. " in answer.text
    assert page_links(answer) == [page]  # Open board: the game's page, with the replay
    again = await driver.answer(await driver.slash("history", {"id": game_id, "export": True}, user="bob"))
    assert json.loads(again.attachments[0].data)["moves"] == record["moves"]
    missing = await driver.answer(await driver.slash("history", {"id": game_id + 50}, user="bob", locale="en-US"))
    assert missing.text == t("bot.history.no_such_game", "en", id=game_id + 50)
    # the game-over message's Rematch button works after a restart too
    await driver.answer(await fake.click_button(posts[-1], ids.game(game_id, "rematch"), user="carol"))
    lobby = await driver.lobby()
    assert driver.info().status == "lobby" and driver.info().game_id != game_id
    assert [s.name for s in driver.info().seats] == [s.name for s in info.seats]
    assert ids.game(driver.info().game_id, "start") in lobby.custom_ids
    fake.assert_no_unknown_requests()



async def test_a_running_game_cannot_be_exported_and_a_short_log_is_a_message(driver: Driver) -> None:
    options = {"computers": 1, "strength": "random", "replay": False}
    lobby = await driver.open_lobby("alice", options)
    game_id = driver.info().game_id
    assert driver.bot.store is not None
    row = await driver.bot.store.get_game(game_id)
    assert row is not None and row.options["replay"] is False  # new replay:false is kept with the game
    refusal = await driver.answer(await driver.slash("history", {"export": True}, user="alice", locale="en-US"))
    assert refusal.text == t("bot.export.not_finished", "en", id=game_id) and not refusal.attachments
    click = await driver.fake.click_button(lobby, ids.game(game_id, "start"), user="alice")
    await click.wait_for_callback(timeout=TIMEOUT)
    await driver.settle()
    for user in ("alice", "bob"):
        refusal = await driver.answer(await driver.slash("history", {"id": game_id, "export": True}, user=user,
                                                           locale="en-US"))
        assert refusal.text == t("bot.export.not_finished", "en", id=game_id) and not refusal.attachments
    history = await driver.answer(await driver.slash("history", user="bob", locale="en-US"))
    assert history.text == t("bot.history.empty", "en")
    log = await driver.answer(await driver.slash("log", user="alice", locale="en-US"))
    assert log.text.startswith(t("bot.log.title", "en", count=driver.info().seq)) and not log.attachments


async def test_the_replay_and_the_game_over_link_survive_a_restart_while_the_channel_was_down(
        driver: Driver) -> None:
    fake = driver.fake
    lobby = await driver.open_lobby("carol", {"computers": 1, "strength": "random"})
    click = await fake.click_button(lobby, ids.game(driver.info().game_id, "start"), user="carol")
    await click.wait_for_callback(timeout=TIMEOUT)
    await driver.settle()
    cog: Any = driver.bot.get_cog("SantaCruz")
    cog.publisher.backoff = Backoff(first=1000.0, limit=1000.0)  # a failed post waits until the restart
    fake.fail_route("POST", rf"/channels/{driver.channel.id}/messages", status=503, times=None)
    await driver.answer(await driver.slash("away", user="carol"))
    await fake.wait_until(lambda: driver.info().status == "over", timeout=TIMEOUT, description="game over", poll=0.2)
    game_id = driver.info().game_id
    assert driver.bot.store is not None
    pending = [d for d in await driver.bot.store.deliveries(game_id) if d.done_at is None]
    posts = [d for d in pending if d.user_id is None]
    assert posts[-1].kind == MOVE_POST and posts[-1].payload["replay"] and posts[-1].payload["game_over"]
    assert REPLAY_POST not in [d.kind for d in pending] and pending[-1].kind == GAME_OVER_DM  # waits for the post
    assert not with_attachment(driver, "replay.gif")
    fake.clear_errors()
    # the stop leaves the failed posts to the next start at once: their backoff (1000 s) ends after its grace
    driver.bot.settings = dataclasses.replace(driver.bot.settings, shutdown_grace=600.0)
    await asyncio.wait_for(driver.stop(), TIMEOUT)
    await driver.start()
    replays = await fake.wait_until(lambda: with_attachment(driver, "replay.gif"), timeout=TIMEOUT,
                                    description="the replay post", poll=0.2)
    over = with_attachment(driver, "game-over.png")
    assert len(replays) == 1 and len(over) == 1
    answer = await driver.answer(await driver.slash("history", user="carol"))
    assert f"#{game_id}" in answer.text and str(over[0].id) in answer.text
    await fake.wait_until(lambda: str(over[0].id) in fake.dm_messages("carol")[-1].content, timeout=TIMEOUT,
                          description="her result, linking to the game-over post", poll=0.2)
