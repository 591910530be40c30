"""A real browser for the tests: Debian's headless Chromium (``/usr/bin/chromium``, ``apt-get install chromium``)
driven by Playwright for Python, which is told where it is (it cannot download browsers of its own here).

One browser per test module (:func:`chromium`), on an event loop of its own in a thread, so that the test's own loop
stays free to serve the pages it opens: a test hands the browser a coroutine function with :meth:`Chromium.run`.
Without Chromium (or Playwright) the browser tests are skipped with one line saying how to install it, except under
CI (``CI=true``), where they must run and a missing browser fails them instead (as ``tests/pgcluster.py`` does for
PostgreSQL).
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import shutil
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, Final, TypeVar

import pytest

T = TypeVar("T")

EXECUTABLE: Final = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS: Final = ("--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
               "--no-first-run", "--disable-sync", "--disable-dev-shm-usage")
"""Headless Chromium as root in a container: no sandbox, no GPU, no calls home."""
INSTALL_HINT: Final = ("Chromium and Playwright are needed for the browser tests: apt-get install chromium and "
                       "pip install playwright (scripts/test installs both)")
SCREENSHOTS: Final = os.environ.get("SCREENSHOTS", "")
"""A folder to keep the tests' screenshots in (to look at them); empty: the test's temporary folder."""


def missing() -> str | None:
    """What is missing for the browser tests, or ``None``."""
    if importlib.util.find_spec("playwright") is None:
        return "playwright"
    if not (Path(EXECUTABLE).is_file() or shutil.which(EXECUTABLE)):
        return EXECUTABLE
    return None


class Chromium:
    """One headless Chromium on an event loop of its own (a thread); :meth:`close` last."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="chromium", daemon=True)
        self._thread.start()
        self.browser: Any = self._call(self._launch())

    async def _launch(self) -> Any:
        from playwright.async_api import async_playwright

        self._playwright = await async_playwright().start()
        return await self._playwright.chromium.launch(executable_path=EXECUTABLE, args=list(ARGS))

    def _call(self, coroutine: Awaitable[T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=120)  # type: ignore[arg-type]

    async def run(self, work: Callable[[Any], Awaitable[T]]) -> T:
        """``work(browser)`` on the browser's loop, awaited from the test's own."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work(self.browser), self._loop))

    def close(self) -> None:
        async def stop() -> None:
            await self.browser.close()
            await self._playwright.stop()

        try:
            self._call(stop())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=30)
            self._loop.close()


def chromium_fixture() -> Iterator[Chromium]:
    """The body of a module's ``chromium`` fixture: skipped (failed under CI) without the browser."""
    lacking = missing()
    if lacking is not None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true but {lacking} is missing: {INSTALL_HINT}")
        pytest.skip(INSTALL_HINT)
    browser = Chromium()
    try:
        yield browser
    finally:
        browser.close()


async def open_page(browser: Any, url: str, width: int, height: int, errors: list[str]) -> Any:
    """A new page of ``width`` × ``height`` CSS pixels at ``url``, its board shown; the page's script errors and
    dialogs (an ``alert`` a name must never open) are added to ``errors``."""
    page = await browser.new_page(viewport={"width": width, "height": height}, device_scale_factor=1,
                                  locale="en-GB")
    page.on("pageerror", lambda error: errors.append(f"script: {error}"))
    page.on("console", lambda message: errors.append(f"console: {message.text}")
            if message.type == "error" else None)
    page.on("dialog", lambda dialog: errors.append(f"dialog: {dialog.message}"))
    await page.goto(url)
    await page.wait_for_function("() => document.body.classList.contains('ready')")
    return page


async def board_shown(page: Any) -> None:
    """Wait until the board's picture is loaded and drawn."""
    await page.wait_for_function("() => { const b = document.getElementById('board');"
                                 " return b && b.complete && b.naturalWidth > 0; }")


def screenshot_path(tmp_path: Path, name: str) -> Path:
    folder = Path(SCREENSHOTS) if SCREENSHOTS else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name
