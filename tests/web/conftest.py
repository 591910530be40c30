"""Fixtures of the web pages' tests: a :class:`~tests.helpers.web.Site` on each store (SQLite in a temp file,
PostgreSQL on the throwaway cluster) or on SQLite alone, its game started, and an HTTP session."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.host.postgres_store import PostgresStore
from bot.host.store import Store
from tests.helpers.web import Site, open_site


@pytest.fixture(params=["sqlite", "postgres"])
async def site(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Site]:
    """A site on each store, its game started and not moved yet."""
    if request.param == "postgres":
        store: Any = await PostgresStore.open(request.getfixturevalue("pg_url"))
    else:
        store = await Store.open(tmp_path / "web.db")
    opened = await open_site(store)
    await opened.start()
    yield opened
    await opened.server.stop()
    await store.close()


@pytest.fixture
async def sqlite_site(tmp_path: Path) -> AsyncIterator[Site]:
    """A site on SQLite only."""
    store = await Store.open(tmp_path / "web.db")
    opened = await open_site(store)
    await opened.start()
    yield opened
    await opened.server.stop()
    await store.close()


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session
