"""The game's page in a real browser (headless Chromium, ``tests/web/browser.py``; one browser for the module): the
page shows the board; zoom and pan work by keyboard, mouse wheel, dragging and a two-finger pinch; the slider steps
through every move; a seat's link shows that seat's hand and another seat's does not; a forged link is refused; the
hostile names are shown as text and open nothing; the page fits a phone (390 × 844) and a desktop (1440 × 900), with
screenshots to look at (``SCREENSHOTS=folder`` keeps them); the offline demo's page steps through its positions."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.web.document import shown_name
from bot.web.static_site import PICTURE, write_page
from engine import new_game
from i18n import t
from render.board import render_board
from render.theme import Theme
from tests.helpers.web import NAMES, PEOPLE, Site, hidden_cards
from tests.web.browser import Chromium, board_shown, chromium_fixture, open_page, screenshot_path

MOVES = 5


@pytest.fixture(scope="module")
def chromium() -> Iterator[Chromium]:
    yield from chromium_fixture()


async def zoom(page: Any) -> float:
    return float(await page.get_attribute("#viewport", "data-zoom"))


async def test_the_board_zooms_pans_and_steps_through_every_move(chromium: Chromium, sqlite_site: Site) -> None:
    assert await sqlite_site.play(MOVES) == MOVES
    link = await sqlite_site.link()
    errors: list[str] = []

    async def work(browser: Any) -> None:
        page = await open_page(browser, link, 1440, 900, errors)
        await board_shown(page)
        assert await page.get_attribute("#board", "src") == f"/g/{link.rsplit('/', 1)[1]}/board/{MOVES}.png" \
            f"?m={MOVES}&lang=en"
        first = await zoom(page)
        await page.focus("#viewport")
        await page.keyboard.press("+")
        assert await zoom(page) > first
        box = await page.locator("#viewport").bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        await page.mouse.move(x, y)
        before = await zoom(page)
        await page.mouse.wheel(0, -500)
        await page.wait_for_function(f"() => Number(document.getElementById('viewport').dataset.zoom) > {before}")
        moved = await page.eval_on_selector("#board", "b => b.style.transform")
        await page.mouse.down()
        await page.mouse.move(x + 120, y + 90, steps=4)
        await page.mouse.up()
        assert await page.eval_on_selector("#board", "b => b.style.transform") != moved
        await page.click("#zoom-fit")
        assert await zoom(page) == 1.0
        await page.keyboard.press("ArrowLeft")  # the slider has not the focus: the board's keys are the board's
        await page.focus("#slider")
        await page.keyboard.press("Home")
        await page.wait_for_function("() => document.getElementById('board').src.includes('/board/0.png')")
        assert await page.inner_text("#position") == t("web.replay.setup", "en")
        for at in range(1, MOVES + 1):
            await page.click("#next")
            await page.wait_for_function(
                f"() => document.getElementById('board').src.includes('/board/{at}.png') &&"
                f" document.querySelector('#log li.current')?.dataset.n === '{at}'")
            assert await page.inner_text("#position") == t("web.replay.position", "en", at=at, count=MOVES)
        assert await page.is_disabled("#next")
        await page.click("#log li.move[data-n='3']")  # a move of the log shows its position
        await page.wait_for_function("() => document.getElementById('slider').value === '3'")
        await page.close()

    await chromium.run(work)
    assert errors == []


async def test_a_pinch_zooms_on_a_phone(chromium: Chromium, sqlite_site: Site) -> None:
    await sqlite_site.play(2)
    link = await sqlite_site.link()
    errors: list[str] = []

    async def work(browser: Any) -> float:
        context = await browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
        page = await context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        await page.goto(link)
        await board_shown(page)
        before = await zoom(page)
        box = await page.locator("#viewport").bounding_box()
        cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        cdp = await context.new_cdp_session(page)

        def points(spread: float) -> list[dict[str, float]]:
            return [{"x": cx - spread, "y": cy, "id": 0}, {"x": cx + spread, "y": cy, "id": 1}]

        await cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": points(30)})
        for spread in range(40, 130, 10):
            await cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": points(spread)})
        await cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        after = await zoom(page)
        await context.close()
        return after / before

    grown = await chromium.run(work)
    assert grown > 2.0 and errors == []


async def test_a_seat_link_shows_its_hand_another_does_not_and_a_forged_one_is_refused(
        chromium: Chromium, sqlite_site: Site) -> None:
    await sqlite_site.play(7)
    hidden = hidden_cards(sqlite_site)
    assert all(hidden.values()), "each hand holds a card nobody else knows"
    links = [await sqlite_site.seat_link(user) for user in PEOPLE]
    errors: list[str] = []

    async def work(browser: Any) -> list[tuple[str, str]]:
        shown = []
        for link in links:
            page = await open_page(browser, link, 1440, 900, errors)
            await board_shown(page)
            shown.append((await page.inner_text("#you"), await page.inner_text("body")))
            await page.close()
        page = await browser.new_page()
        answer = await page.goto(links[0][:-4] + "AAAA")
        shown.append((str(answer.status), await page.inner_text("body")))
        await page.close()
        return shown

    pages = await chromium.run(work)
    for seat, (you, body) in enumerate(pages[:3]):
        for card in hidden[seat]:
            assert t(f"game.scoring.{card}.name", "en") in you
        for other, cards in hidden.items():
            if other != seat:
                assert not [c for c in cards if t(f"game.scoring.{c}.name", "en") in body], (seat, other)
    status, body = pages[3]
    assert status == "403" and t("web.error.forbidden.text", "en") in body
    assert errors == []


async def test_the_page_fits_a_phone_and_a_desktop(chromium: Chromium, sqlite_site: Site, tmp_path: Path) -> None:
    await sqlite_site.play(12)
    public, seat = await sqlite_site.link(), await sqlite_site.seat_link(PEOPLE[0])
    errors: list[str] = []

    async def work(browser: Any) -> dict[str, Any]:
        found = {}
        for name, link in (("public", public), ("seat", seat)):
            for width, height in ((390, 844), (1440, 900)):
                page = await open_page(browser, link, width, height, errors)
                await board_shown(page)
                found[f"{name}-{width}"] = await page.evaluate("""() => ({
                    overflow: document.documentElement.scrollWidth - window.innerWidth,
                    board: document.getElementById('viewport').getBoundingClientRect().toJSON(),
                    slider: document.getElementById('slider').getBoundingClientRect().toJSON(),
                    names: [...document.querySelectorAll('#players .name')].map(n => n.textContent),
                })""")
                await page.screenshot(path=str(screenshot_path(tmp_path, f"web-{name}-{width}x{height}.png")))
                await page.close()
        return found

    found = await chromium.run(work)
    assert errors == []
    for key, seen in found.items():
        width, height = (390, 844) if key.endswith("390") else (1440, 900)
        assert seen["overflow"] <= 0, f"{key}: wider than the screen"
        assert seen["board"]["width"] >= width * (0.9 if width == 390 else 0.55), key
        assert seen["slider"]["bottom"] <= height, f"{key}: the replay is below the first screen"
        assert seen["names"] == [shown_name(NAMES[user]) for user in PEOPLE], key


async def test_the_offline_demo_page_steps_through_its_positions(chromium: Chromium, tmp_path: Path) -> None:
    game = new_game(["Ada", "Bo"], 4)
    rng = random.Random(4)
    views = [game.view(None)]
    for _ in range(3):
        game.apply(rng.choice(game.legal_moves()))
        views.append(game.view(None))
    for at, view in enumerate(views):
        (tmp_path / PICTURE.format(at=at)).write_bytes(render_board(view, theme=Theme(width=800)))
    index = write_page(tmp_path, views, "de")
    errors: list[str] = []

    async def work(browser: Any) -> list[str]:
        page = await open_page(browser, index.as_uri(), 1440, 900, errors)
        await board_shown(page)
        seen = [await page.inner_text("#position")]
        await page.focus("#slider")
        await page.keyboard.press("Home")
        for _ in range(3):
            await page.click("#next")
            seen.append(await page.inner_text("#position"))
        # the page keeps the picture shown until the next one has loaded, then swaps it in
        await page.wait_for_function("src => document.getElementById('board').getAttribute('src') === src",
                                     arg=PICTURE.format(at=3), timeout=10_000)
        seen.append(await page.get_attribute("#board", "src") or "")
        await page.close()
        return seen

    seen = await chromium.run(work)
    assert errors == []
    assert seen[0] == t("web.replay.position", "de", at=3, count=3)
    assert seen[1:4] == [t("web.replay.position", "de", at=at, count=3) for at in range(1, 4)]
    assert seen[4] == PICTURE.format(at=3)
