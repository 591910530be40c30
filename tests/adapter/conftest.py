"""Fixtures of the bot tests: the bot's settings on a temporary database, logging as the bot sets it up, and a started
:class:`~tests.helpers.driver.Driver` (the fake Discord itself is the ``fake_discord`` fixture of
``tests/fakediscord/fixtures.py``). A module marked ``pytest.mark.moved_clock`` gets a driver whose host reads a
:class:`~tests.helpers.clock.Clock` the tests move (``driver.clock``); one marked
``pytest.mark.bot_settings(name=value)`` gets the settings with those changed."""

from __future__ import annotations

import dataclasses
import io
import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from bot.host.logs import LIBRARY_LOGGERS, setup_logging
from bot.host.settings import Settings
from tests.fakediscord import FakeDiscord
from tests.fakediscord.fixtures import FIXTURE_GLOBAL_LIMIT
from tests.helpers.clock import Clock
from tests.helpers.driver import Driver, running


@pytest.fixture
def debug_log() -> Iterator[io.StringIO]:
    """Logging as ``santacruz-bot`` sets it up at ``LOG_LEVEL=DEBUG``, into a string; restored afterwards (a test
    names it before ``driver`` to have the bot's whole life in it)."""
    names = ("", *LIBRARY_LOGGERS)
    levels = {name: logging.getLogger(name).level for name in names}
    stream = io.StringIO()
    handler = setup_logging("DEBUG", stream=stream, secrets=["fake-bot-token"])
    try:
        yield stream
    finally:
        logging.getLogger().removeHandler(handler)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


@pytest.fixture
def settings(tmp_path: Path, request: pytest.FixtureRequest) -> Settings:
    """The bot's settings on a new SQLite file, with the changes of the ``bot_settings`` mark, if any."""
    # narrower boards than the default: quicker to draw in every test that plays (PICTURE_WIDTH works the same)
    chosen = Settings(database_path=str(tmp_path / "santacruz.db"), ai_strength="random", ai_seconds=0.05,
                      picture_width=800, global_rate_limit=FIXTURE_GLOBAL_LIMIT)
    mark = request.node.get_closest_marker("bot_settings")
    return chosen if mark is None else dataclasses.replace(chosen, **mark.kwargs)


@pytest_asyncio.fixture
async def driver(fake_discord: FakeDiscord, settings: Settings, request: pytest.FixtureRequest
                 ) -> AsyncIterator[Driver]:
    """A started bot on a fresh database in the fake's world as the test found it, stopped (and checked for logged
    errors) afterwards; its host reads a :class:`Clock` the test moves if the test is marked ``moved_clock``."""
    clock = Clock.real_time() if request.node.get_closest_marker("moved_clock") else None
    async with running(Driver(fake_discord, settings, channel="games", clock=clock)) as started:
        yield started
