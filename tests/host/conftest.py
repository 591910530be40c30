"""Fixtures of the host tests: ``store`` is each store in turn (SQLite in a temp file, PostgreSQL on the
throwaway cluster), for what both must do alike; ``@pytest.mark.parametrize("store", ["sqlite"],
indirect=True)`` keeps a test to the SQLite file (faults made with SQLite's own pragmas)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.host.postgres_store import PostgresStore
from bot.host.store import Store


@pytest.fixture(params=["sqlite", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    """Each store, opened on a new empty database."""
    if request.param == "postgres":
        opened: Any = await PostgresStore.open(request.getfixturevalue("pg_url"))
    else:
        opened = await Store.open(tmp_path / "store.db")
    yield opened
    await opened.close()


@pytest.fixture
async def stores(pg_url: str) -> AsyncIterator[tuple[PostgresStore, PostgresStore]]:
    """Two connections to one PostgreSQL database, as two processes sharing it have."""
    first, second = await PostgresStore.open(pg_url), await PostgresStore.open(pg_url)
    yield first, second
    await first.close()
    await second.close()
