"""pytest set-up shared by every test folder: the fake Discord's fixtures (used by ``tests/adapter``) and a
throwaway PostgreSQL cluster (``pg_url``: a fresh, empty database per test).

The tests follow the code's layout: ``engine/``, ``render/``, ``i18n/``, ``host/`` (the game host,
no Discord at all), ``adapter/`` (the real discord.py against the fake Discord) and ``play/``.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator

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


@pytest.fixture
def pg_url(pg_cluster: str) -> Iterator[str]:
    """The URL of a new, empty database on the test cluster, dropped afterwards (a plain fixture, so that an
    async fixture may ask for it with ``request.getfixturevalue``)."""
    name = f"t{os.getpid()}_{next(_databases)}"
    pgcluster.sql(pg_cluster, f"CREATE DATABASE {name}")
    yield pg_cluster.rsplit("/", 1)[0] + f"/{name}"
    pgcluster.sql(pg_cluster, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
