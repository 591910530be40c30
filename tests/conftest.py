"""pytest set-up shared by every test folder: the fake Discord's fixtures (used by ``tests/adapter``) and a
throwaway PostgreSQL cluster (``pg_url``: a database at the latest schema with no rows, for each test: the test
worker's own, migrated once and emptied before each test; ``pg_empty_url``: a new, empty one without a schema).

The tests follow the code's layout: ``engine/``, ``render/``, ``i18n/``, ``host/`` (the game host,
no Discord at all), ``adapter/`` (the real discord.py against the fake Discord) and ``play/``.
"""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Final

import pytest

from tests import pgcluster

pytest_plugins = ["tests.fakediscord.fixtures"]

_databases = itertools.count(1)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[str]:
    """One PostgreSQL cluster for the whole run (its ``postgres`` database's URL); skipped without the server
    binaries, except under CI, where the PostgreSQL tests must run."""
    missing = pgcluster.missing_binaries()
    if missing:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true but {', '.join(missing)} missing: {pgcluster.INSTALL_HINT}")
        pytest.skip(pgcluster.INSTALL_HINT)
    with pgcluster.cluster() as url:
        yield url


@pytest.fixture(scope="session")
def pg_database(pg_cluster: str) -> str:
    """The URL of this test worker's database, migrated to the latest schema once per session: every ``pg_url``
    is this database emptied (much quicker than creating and migrating a database for each test)."""
    from bot.host.postgres_store import PostgresStore

    url = _url_of(pg_cluster, f"w{os.getpid()}")
    pgcluster.sql(pg_cluster, f"CREATE DATABASE w{os.getpid()}")

    async def migrate() -> None:
        store = await PostgresStore.open(url)
        await store.close()

    # in a thread of its own: the first test asking for it may be running in an event loop already
    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, migrate()).result()
    return url


EMPTY_TABLES: Final = """DO $$ BEGIN
    EXECUTE (SELECT 'TRUNCATE ' || string_agg(quote_ident(tablename), ', ') || ' RESTART IDENTITY CASCADE'
             FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_version');
END $$"""
"""Every table of the schema emptied, the id sequences started again; the schema itself stays."""


def _url_of(cluster_url: str, database: str) -> str:
    return cluster_url.rsplit("/", 1)[0] + f"/{database}"


@pytest.fixture
def pg_url(pg_database: str) -> Iterator[str]:
    """The URL of a database at the latest schema without any row (this worker's, emptied before each test; a
    plain fixture, so that an async fixture may ask for it with ``request.getfixturevalue``)."""
    pgcluster.sql(pg_database, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                               " WHERE datname = current_database() AND pid <> pg_backend_pid()")
    pgcluster.sql(pg_database, EMPTY_TABLES)
    yield pg_database


@pytest.fixture
def pg_empty_url(pg_cluster: str) -> Iterator[str]:
    """The URL of a new, empty database (no schema yet), dropped afterwards."""
    name = f"t{os.getpid()}_{next(_databases)}"
    pgcluster.sql(pg_cluster, f"CREATE DATABASE {name}")
    yield _url_of(pg_cluster, name)
    pgcluster.sql(pg_cluster, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
