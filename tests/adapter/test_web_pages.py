"""The games' web pages with the real bot through the fake Discord: the posts carry *Open board* (the start, each move,
also once *Undo* is taken off), a turn DM *Open your view* (its own seat's signed link), ``/santacruz new web:false``
and ``/santacruz settings server_web:false`` (Manage Server only) keep games off the web; and a move made through the
fake Discord appears on a page open in a real browser, without a reload (one Chromium for the module; how soon is
``bench/bench_web.py``'s to say: no timed test)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from bot.host.settings import Settings
from bot.web.server import WebServer
from i18n import t
from tests.fakediscord import FakeDiscord, FakeMessage
from tests.helpers.driver import TIMEOUT, Driver, board_posts, has_undo, undoable_move
from tests.helpers.http import fetch, free_port
from tests.helpers.web import SECRET
from tests.web.browser import Chromium, board_shown, chromium_fixture, open_page


@pytest.fixture(scope="module")
def chromium() -> Iterator[Chromium]:
    yield from chromium_fixture()


@pytest_asyncio.fixture
async def web_driver(fake_discord: FakeDiscord, settings: Settings) -> AsyncIterator[tuple[Driver, WebServer]]:
    """The bot with web pages (``WEB_PORT``, ``WEB_SECRET``) and its pages' server, as ``santacruz-bot`` runs them."""
    chosen = dataclasses.replace(settings, web_port=free_port(), web_secret=SECRET)
    driver = Driver(fake_discord, chosen)
    await driver.start()
    server = WebServer(lambda: driver.bot.host.web if driver.bot.host is not None else None, chosen,
                       picture_width=800)
    await server.start()
    try:
        yield driver, server
    finally:
        await server.stop()
        await driver.stop()


def links(message: FakeMessage) -> list[str]:
    """The addresses of a message's link buttons (style 5)."""
    return [str(b["url"]) for b in message.buttons if b.get("style") == 5]


async def test_posts_and_turn_dms_link_to_the_pages_and_a_server_can_keep_its_games_off(
        web_driver: tuple[Driver, WebServer]) -> None:
    driver, server = web_driver
    fake = driver.fake
    _, game_id, _, post = await undoable_move(driver)
    page = await driver.host.web.link(game_id)
    assert page is not None and page.startswith(f"http://127.0.0.1:{server.port}/g/")
    posts = board_posts(fake, driver.channel)
    assert [links(p) for p in posts] == [[page]] * len(posts)  # the start and the move
    assert next(b for b in post.buttons if b.get("style") == 5)["label"] == t("bot.button.open_board", "en")
    await driver.play_turn()
    await driver.settle()
    assert links(post) == [page] and not has_undo(post, game_id)  # Undo off, the link kept
    user = driver.to_move_user()
    assert user is not None
    dm = await driver.wait_turn_dm(user)
    own = links(dm)
    assert len(own) == 1 and own[0].startswith(page + "/s/")
    async with aiohttp.ClientSession() as http:
        status, _, body = await fetch(http, own[0] + "/state.json")
        assert status == 200 and json.loads(body)["you"]["seat"] == driver.info().to_move
        refused = await driver.answer(await driver.slash("settings", {"server_web": False}, user="bob", locale="en-US"))
        assert refused.text == t("bot.settings.server_web_manage", "en")
        assert (await fetch(http, page))[0] == 200
        off = await driver.slash("settings", {"server_web": False}, user="alice", locale="en-US")
        answer = await driver.answer(off)
        assert t("bot.settings.server_web_off", "en") in answer.text
        assert (await fetch(http, page))[0] == 404 and (await fetch(http, own[0]))[0] == 403
        before = len(board_posts(fake, driver.channel))
        await driver.play_turn()
        await driver.settle()
        assert links(board_posts(fake, driver.channel)[before]) == []  # no link while the server keeps them off
        answer = await driver.answer(await driver.slash("settings", {"server_web": True}, user="alice", locale="en-US"))
        assert t("bot.settings.server_web_on", "en") in answer.text
        assert (await fetch(http, page))[0] == 200
    shown = await driver.answer(await driver.slash("settings", user="bob", locale="en-US"))
    assert t("bot.settings.server_web_on", "en") in shown.text


async def test_a_game_opened_with_web_false_has_no_page(web_driver: tuple[Driver, WebServer]) -> None:
    driver, _ = web_driver
    await driver.open_game(["alice", "bob"], web=False)
    await driver.settle()
    assert driver.bot.store is not None
    row = await driver.bot.store.get_game(driver.info().game_id)
    assert row is not None and row.options["web"] is False
    assert await driver.host.web.link(driver.info().game_id) is None
    posts = board_posts(driver.fake, driver.channel)
    assert posts and all(links(p) == [] for p in posts)
    user = driver.to_move_user()
    assert user is not None and links(await driver.wait_turn_dm(user)) == []


async def test_a_move_made_in_discord_shows_on_an_open_page(chromium: Chromium,
                                                           web_driver: tuple[Driver, WebServer]) -> None:
    driver, _ = web_driver
    await driver.open_game(["alice", "bob"])
    await driver.settle()
    page = await driver.host.web.link(driver.info().game_id)
    assert page is not None
    errors: list[str] = []
    opened: dict[str, Any] = {}

    async def open_it(browser: Any) -> None:
        opened["page"] = await open_page(browser, page, 1440, 900, errors)
        await board_shown(opened["page"])
        await opened["page"].wait_for_function("() => document.getElementById('live').dataset.state === 'on'")

    async def wait_for(position: int) -> str:
        shown = opened["page"]
        await shown.wait_for_function(
            f"() => document.getElementById('slider').max === '{position}' &&"
            f" document.getElementById('board').src.includes('/board/{position}.png')", timeout=TIMEOUT * 1000)
        return str(await shown.inner_text("#turn"))

    await chromium.run(open_it)
    for position in (1, 2):
        await driver.play_turn("slash" if position == 1 else "dm")  # the move is stored: the open page shows it
        turn = await chromium.run(lambda _, at=position: wait_for(at))
        info = driver.info()
        name = info.seats[info.to_move].name
        assert info.seq == position and turn == t("web.status.turn", "en", player=f"\u2068{name}\u2069")
    await chromium.run(lambda _: opened["page"].close())
    assert errors == []
    await driver.settle()
    await driver.fake.wait_until(lambda: len(board_posts(driver.fake, driver.channel)) == 3, timeout=TIMEOUT,
                                 description="the posts")
