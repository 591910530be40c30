"""Benchmark: a game's web page — its size, how long it takes to load, and how soon a move shows on it.

Run: ``python bench/bench_web.py [--moves 60] [--stores sqlite,postgres] [--browser]``. A four-player game is played
``--moves`` moves through the host on each store (SQLite in a temp file; PostgreSQL on a throwaway local cluster when
its server binaries are installed, ``tests/pgcluster.py``), and the web server serves it as ``santacruz-bot`` does:
boards at full width (2400 pixels) drawn in a process pool. It prints:

* the bytes of each part of the page (the HTML with its document, the script, the style, the icon, the board's PNG)
  and of one position's document (``state.json``, what the replay slider fetches per step);
* the server's time for the page, a document, the board drawn the first time (``board cold``: by a render worker
  that drew the bot's posts already, as in a running bot, which draws the island at full width once as well), another
  position's board (``board``: the island cached) and a board kept (``board kept``);
* with ``--browser`` (Debian's Chromium through Playwright), the page loaded in a new browser tab: ``load`` (the
  browser's load event) and ``board shown`` (the board's picture decoded), each the median of 5 with every board
  already drawn once (a viewer's second look; the first viewer of a position waits for its drawing, ``board cold``);
* ``--screenshots DIR`` (with ``--browser``): the README's two pictures of the page, on a desktop and a phone;
* ``live``: from a move's commit (``host.play`` returning) to its event arriving on an open live stream, the median
  and the largest of ``--live`` moves (SQLite: the versions polled every 0.5 s; PostgreSQL: the database's notice).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiohttp
from PIL import Image

from bot.host.host import Host
from bot.host.pictures import render_picture
from bot.host.postgres_store import PostgresStore
from bot.host.settings import Settings
from bot.host.store import Store
from bot.host.workers import WorkerPool, process_pool_factory
from bot.web.server import WebServer
from tests import pgcluster
from tests.helpers.http import free_port
from tests.web.browser import ARGS, EXECUTABLE, missing

PEOPLE = (1, 2, 3, 4)
NAMES = ("Ada", "Björn", "Céline", "Đorđe")
CHANNEL = 10


@asynccontextmanager
async def opened(kind: str) -> AsyncIterator[Any]:
    if kind == "sqlite":
        with tempfile.TemporaryDirectory() as folder:
            store: Any = await Store.open(Path(folder) / "web.db")
            try:
                yield store
            finally:
                await store.close()
    else:
        with pgcluster.cluster() as url:
            store = await PostgresStore.open(url)
            try:
                yield store
            finally:
                await store.close()


async def play(host: Host, count: int, rng: random.Random) -> None:
    for _ in range(count):
        info = host.games.info(CHANNEL)
        if info is None or info.status != "running" or info.to_move is None:
            return
        user = info.seats[info.to_move].user_id
        assert user is not None
        await host.play.move(CHANNEL, user, rng.choice(host.play.legal_moves(CHANNEL, user)))


async def timed(http: aiohttp.ClientSession, url: str) -> tuple[float, bytes]:
    started = time.perf_counter()
    async with http.get(url) as answer:
        body = await answer.read()
        assert answer.status == 200, (url, answer.status)
    return time.perf_counter() - started, body


async def browser_load(url: str, times: int = 5, screenshots: Path | None = None) -> tuple[float, float]:
    """Median seconds to the load event and to the board decoded, in fresh tabs of one Chromium; with
    ``screenshots``, the page on a desktop (1440 × 900) and a phone (390 × 844) written there as ``web-desktop.png``
    and ``web-phone.png`` (the README's)."""
    from playwright.async_api import async_playwright

    loads, boards = [], []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=EXECUTABLE, args=list(ARGS))
        for _ in range(times):
            context = await browser.new_context(viewport={"width": 1440, "height": 900})
            page = await context.new_page()
            started = time.perf_counter()
            await page.goto(url, wait_until="load")
            loads.append(time.perf_counter() - started)
            await page.wait_for_function("() => { const b = document.getElementById('board');"
                                         " return b.complete && b.naturalWidth > 0; }")
            boards.append(time.perf_counter() - started)
            await context.close()
        for name, width, height, phone in (("desktop", 1440, 900, False), ("phone", 390, 844, True)):
            if screenshots is None:
                break
            context = await browser.new_context(viewport={"width": width, "height": height}, is_mobile=phone,
                                                has_touch=phone, locale="en-GB")
            page = await context.new_page()
            await page.goto(url)
            await page.wait_for_function("() => { const b = document.getElementById('board');"
                                         " return b.complete && b.naturalWidth > 0; }")
            await page.wait_for_timeout(300)
            shot = screenshots / f"web-{name}.png"
            await page.screenshot(path=str(shot))
            Image.open(shot).convert("RGB").quantize(256).save(shot, optimize=True)  # a palette: a third the bytes
            await context.close()
        await browser.close()
    return statistics.median(loads), statistics.median(boards)


async def bench(kind: str, moves: int, live: int, browser: bool, screenshots: Path | None) -> dict[str, Any]:
    async with opened(kind) as store:
        settings = Settings(web_port=free_port(), web_secret="b" * 40)
        host = Host(store, settings)
        await host.lobby.open(CHANNEL, 5, PEOPLE[0], NAMES[0])
        for user, name in zip(PEOPLE[1:], NAMES[1:], strict=True):
            await host.lobby.join(CHANNEL, user, name)
        await host.lobby.start(CHANNEL, PEOPLE[0])
        rng = random.Random(1)
        await play(host, moves, rng)
        pool = WorkerPool(process_pool_factory(os.cpu_count() or 2), name="render")
        warm = host.play.public_view(CHANNEL)  # as a running bot's render workers are: started, each drawn a post
        await asyncio.gather(*(pool.run(render_picture, warm, "en", False, False, 800) for _ in range(4)))
        server = WebServer(lambda: host.web, settings, pool)
        await server.start()
        found: dict[str, Any] = {"store": kind}
        try:
            game = host.games.info(CHANNEL).game_id  # type: ignore[union-attr]
            link = await host.web.link(game)
            assert link is not None
            origin = f"http://127.0.0.1:{server.port}"
            async with aiohttp.ClientSession() as http:
                found["page s"], page = await timed(http, link)
                found["state s"], state = await timed(http, link + "/state.json?at=10")
                doc = json.loads((await timed(http, link + "/state.json"))[1])
                found["board cold s"], board = await timed(http, origin + doc["board"]["src"])
                other = json.loads(state)["board"]["src"]
                found["board s"], _ = await timed(http, origin + other)
                found["board kept s"], _ = await timed(http, origin + other)
                files = {name: len((await timed(http, f"{origin}/static/{name}"))[1])
                         for name in ("page.js", "page.css", "icon.svg")}
                found["bytes"] = {"html": len(page), **files, "board.png": len(board), "state.json": len(state)}
                if browser:
                    loaded = await browser_load(link, screenshots=screenshots)
                    found["browser load s"], found["browser board s"] = loaded
                delays = []
                async with http.get(link + "/events") as stream:
                    await stream.content.readuntil(b"\n\n")  # retry
                    await stream.content.readuntil(b"\n\n")  # the first version
                    for _ in range(live):
                        await asyncio.sleep(0.25 + rng.random() * 0.5)
                        before = host.games.info(CHANNEL).seq  # type: ignore[union-attr]
                        await play(host, 1, rng)
                        moved = time.perf_counter()
                        if host.games.info(CHANNEL).seq == before:  # type: ignore[union-attr]
                            break  # the game is over
                        while b"event: version" not in await stream.content.readuntil(b"\n\n"):
                            pass
                        delays.append(time.perf_counter() - moved)
                found["live"] = delays
        finally:
            await server.stop()
            pool.shutdown(stop_workers=True)
        return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--live", type=int, default=12, help="moves whose live delay is measured")
    parser.add_argument("--stores", default="sqlite,postgres")
    parser.add_argument("--browser", action="store_true", help="also load the page in Chromium (Playwright)")
    parser.add_argument("--screenshots", type=Path, help="with --browser: write the README's screenshots there")
    args = parser.parse_args()
    kinds = [k for k in args.stores.split(",") if k != "postgres" or not pgcluster.missing_binaries()]
    if args.browser and missing() is not None:
        sys.exit(f"--browser needs Playwright and Chromium ({missing()} is missing)")
    for kind in kinds:
        found = asyncio.run(bench(kind, args.moves, args.live, args.browser, args.screenshots))
        args.screenshots = None  # once is enough
        sizes = found.pop("bytes")
        delays = found.pop("live")
        print(f"== {kind}: a 4-player game at move {args.moves}")
        total = sum(v for k, v in sizes.items() if k != "state.json")
        print("  bytes: " + ", ".join(f"{k} {v / 1024:.1f} KiB" for k, v in sizes.items())
              + f"; the whole page {total / 1024:.0f} KiB")
        print("  " + ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in found.items() if k != "store"))
        if delays:
            print(f"  live: median {statistics.median(delays) * 1000:.0f} ms, largest {max(delays) * 1000:.0f} ms "
                  f"({len(delays)} moves)")


if __name__ == "__main__":
    main()
