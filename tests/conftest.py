"""pytest set-up shared by every test folder: the fake Discord's fixtures (``fake_discord``, used by
``tests/adapter``), the stores, the host's clock and a host, and a throwaway PostgreSQL cluster.

The stores, each declared once here: ``sqlite`` (a SQLite file, ``sqlite_path``; a test marked
``pytest.mark.busy_timeout(seconds)`` gets one that waits that long for a lock), ``postgres`` (this worker's database
on the cluster, emptied), and ``store``: each of them in turn, for what both must do alike
(``@pytest.mark.parametrize("store", ["sqlite"], indirect=True)`` keeps a test to SQLite); ``stores``: two
connections to one PostgreSQL database, as two processes have. ``clock`` is a :class:`~tests.helpers.clock.Clock`
the test moves (``pytest.mark.clock_at(wall_time)`` says where it starts), ``host`` a loaded
:func:`~tests.helpers.host.make_host` reading ``clock``, on ``sqlite`` unless a module overrides ``host_store``.
PostgreSQL: ``pg_url`` is a database at the latest schema with no rows (the test worker's own, migrated once and
emptied before each test), ``pg_empty_url`` a new, empty one without a schema.

The tests follow the code's layout: ``engine/``, ``render/``, ``i18n/``, ``host/`` (the game host,
no Discord at all), ``adapter/`` (the real discord.py against the fake Discord), ``play/``, and ``fakediscord/``
(the fake itself, with its own tests); what several test modules share is in ``helpers/``, one module a topic.

The longest tests run first, dealt round the test workers (:data:`LONG_FIRST`): with a few workers
(``scripts/test``), one that started last would keep its worker busy long after the others ran out of tests.
"""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import pytest

# Asserts in the fake Discord and the shared helpers say what they compared, as in test modules: pytest rewrites them
# when told so before they are imported (by the plugin below and by the test modules).
pytest.register_assert_rewrite("tests.fakediscord", "tests.helpers")

from tests import pgcluster  # noqa: E402
from tests.helpers.clock import Clock, at  # noqa: E402

if TYPE_CHECKING:  # imported where used: a run of the engine's tests alone does not load the host
    from bot.host.host import Host
    from bot.host.postgres_store import PostgresStore
    from bot.host.store import Store

pytest_plugins = ["tests.fakediscord.fixtures"]

_databases = itertools.count(1)

LONG_FIRST: Final = (
    "tests/adapter/test_multiprocess.py::test_two_processes_play_two_games_and_one_survives_a_kill",
    "tests/adapter/test_whole_game_budget.py::test_a_whole_game_read_in_every_language_keeps_the_budget",
    "tests/engine/test_engine_properties.py::test_random_games_keep_every_invariant",
    "tests/adapter/test_bot_game.py::test_three_players_play_a_whole_game_then_a_rematch",
    "tests/adapter/test_bot_archive.py::test_the_replay_and_the_game_over_link_survive_a_restart",
    "tests/adapter/test_bot_archive.py::test_one_person_against_two_computers_then_the_archive",
    "tests/adapter/test_multiprocess_stale.py::",
    "tests/adapter/test_mistaps.py::",
    "tests/adapter/test_bot_restart.py::test_stopped_mid_game_and_finished_by_a_new_bot",
    "tests/adapter/test_post_budget.py::test_one_post_per_turn_and_the_dm_budget",
    "tests/adapter/test_takeover.py::test_a_newcomer_takes_over_a_seat_once_confirmed",
    "tests/adapter/test_multiprocess_undo.py::",
    "tests/adapter/test_busy_postgres.py::",
    "tests/play/test_replay_cli.py::test_export_then_replay_gives_the_stored_final_view",
    "tests/adapter/test_operations.py::test_sigterm_gives_the_other_process_the_work_at_once",
    "tests/adapter/test_rate_budget.py::test_two_processes",
    "tests/render/test_render.py::test_pictures_of_random_positions_are_valid_pngs",
    "tests/adapter/test_faults_background.py::test_a_killed_render_worker_still_gives_the_next_move_its_picture",
    "tests/play/test_cli.py::test_demo_plays_a_whole_game",
)
"""The tests that take longest (whole games, bot processes, many pictures; node id prefixes, longest first): each
test worker starts with its share of them, so that no worker starts one when the others are nearly done. A renamed
test only loses its place."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "busy_timeout(seconds): the ``sqlite`` store waits that long for a lock")
    config.addinivalue_line("markers", "moved_clock: the ``driver``'s host reads a Clock the test moves")
    config.addinivalue_line("markers", "bot_settings(**changes): the adapter's ``settings`` with these changed")
    config.addinivalue_line("markers", "clock_at(wall_time): the ``clock`` starts at this wall time in Berlin")


POSTGRES_FIXTURES: Final = frozenset({"pg_cluster", "pg_session", "pg_database", "pg_url", "pg_empty_url", "stores"})
"""The fixtures that need the PostgreSQL cluster (a test parametrized with ``"postgres"`` needs it too)."""
LEFT_OUT_FAST: Final = (
    "tests/engine/test_ai.py::",
    "tests/engine/test_master.py::",
    "tests/engine/test_coach.py::",
    "tests/engine/test_evaluation.py::",
    "tests/engine/test_engine_properties.py::test_random_games_keep_every_invariant",
    "tests/engine/test_engine_properties.py::test_two_thousand_random_games_end_properly_with_conserved_pieces",
    "tests/render/test_render.py::test_pictures_of_random_positions_are_valid_pngs",
    "tests/render/test_replay.py::",
    "tests/host/test_workers.py::",
)
"""What ``--fast`` leaves out besides PostgreSQL (node id prefixes): the computer players' search (``engine/ai``, not
the rules), and the tests that play hundreds of random games, draw random positions and whole replays, or start
worker processes: about two thirds of the CPU time of the engine, render, i18n and host tests. The full suite (CI)
runs them all."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--sqlite-only", action="store_true",
                     help="leave out the tests that need PostgreSQL")
    parser.addoption("--fast", action="store_true",
                     help="the inner loop (scripts/test --fast): --sqlite-only, and without the long tests that "
                          "tests/conftest.py names (LEFT_OUT_FAST)")


def needs_postgres(item: pytest.Item) -> bool:
    """Whether ``item`` runs on PostgreSQL: it asks for the cluster, or is the ``"postgres"`` case of a store
    parameter."""
    callspec = getattr(item, "callspec", None)
    params = callspec.params.values() if callspec is not None else ()
    return bool(POSTGRES_FIXTURES & set(getattr(item, "fixturenames", ()))) or "postgres" in params


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave out the PostgreSQL tests with ``--sqlite-only``, and with ``--fast`` those of :data:`LEFT_OUT_FAST` too
    (deselected, and counted so). Give every test worker its share of the tests of :data:`LONG_FIRST`, at the front
    of its first batch.

    pytest-xdist's ``worksteal`` hands each worker a contiguous part of the collection (the first worker a
    ``1/n`` of it, the next half of the rest, ...) and later moves tests from the end of a busy worker's queue to an
    idle one. With every long test at the front of the collection, they all landed in the first worker's part and
    ran one after another there (93 s with three workers while the others were done). So the long tests are dealt
    round the parts, longest first, each part starting with its share; the others keep their order. Without
    workers the long tests simply come first."""
    fast = config.getoption("--fast")
    if fast or config.getoption("--sqlite-only"):
        left_out = [item for item in items
                    if needs_postgres(item) or (fast and item.nodeid.startswith(LEFT_OUT_FAST))]
        config.hook.pytest_deselected(items=left_out)
        dropped = set(left_out)
        items[:] = [item for item in items if item not in dropped]

    def rank(item: pytest.Item) -> int:
        return next((i for i, prefix in enumerate(LONG_FIRST) if item.nodeid.startswith(prefix)), len(LONG_FIRST))

    items.sort(key=rank)
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    long = [item for item in items if rank(item) < len(LONG_FIRST)]
    if workers < 2 or not long:
        return
    rest = items[len(long):]
    parts: list[list[pytest.Item]] = [long[k::workers] for k in range(workers)]
    left = len(items)
    for k in range(workers):  # the sizes worksteal's first distribution gives: left // (workers still to serve)
        size = left // (workers - k)
        take = max(0, size - len(parts[k]))
        parts[k] += rest[:take]
        rest = rest[take:]
        left -= len(parts[k])
    parts[-1] += rest
    items[:] = [item for part in parts for item in part]


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


@pytest.fixture(scope="session")
def pg_session(pg_database: str) -> Iterator[pgcluster.Session]:
    """A connection to this worker's database kept for the whole session: it empties the database before each test
    (quicker than a ``psql`` process for each statement)."""
    session = pgcluster.Session(pg_database)
    yield session
    session.close()


@pytest.fixture
def pg_url(pg_database: str, pg_session: pgcluster.Session) -> Iterator[str]:
    """The URL of a database at the latest schema without any row (this worker's, emptied before each test; a
    plain fixture, so that an async fixture may ask for it with ``request.getfixturevalue``)."""
    pg_session.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                   " WHERE datname = current_database() AND pid <> pg_backend_pid()")
    pg_session.sql(EMPTY_TABLES)
    yield pg_database


@pytest.fixture
def pg_empty_url(pg_cluster: str) -> Iterator[str]:
    """The URL of a new, empty database (no schema yet), dropped afterwards."""
    name = f"t{os.getpid()}_{next(_databases)}"
    pgcluster.sql(pg_cluster, f"CREATE DATABASE {name}")
    yield _url_of(pg_cluster, name)
    pgcluster.sql(pg_cluster, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


# ---------------------------------------------------------------------- the stores, the clock, a host


@pytest.fixture
def sqlite_path(tmp_path: Path) -> Path:
    """The test's SQLite file (not made yet)."""
    return tmp_path / "santacruz.db"


@pytest.fixture
async def sqlite(sqlite_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    """A SQLite store on a new file, :func:`sqlite_path`; its busy timeout is the ``busy_timeout`` mark's, if any."""
    from bot.host.store import Store

    mark = request.node.get_closest_marker("busy_timeout")
    opened = await (Store.open(sqlite_path) if mark is None else Store.open(sqlite_path, busy_timeout=mark.args[0]))
    yield opened
    await opened.close()


@pytest.fixture
async def postgres(pg_url: str) -> AsyncIterator[PostgresStore]:
    """A PostgreSQL store on this worker's database, empty at the latest schema."""
    from bot.host.postgres_store import PostgresStore

    opened = await PostgresStore.open(pg_url)
    yield opened
    await opened.close()


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest) -> Any:
    """Each store in turn (:func:`sqlite`, :func:`postgres`), on a new empty database."""
    return request.getfixturevalue(request.param)


@pytest.fixture
async def stores(pg_url: str) -> AsyncIterator[tuple[PostgresStore, PostgresStore]]:
    """Two connections to one PostgreSQL database, as two processes sharing it have."""
    from bot.host.postgres_store import PostgresStore

    first, second = await PostgresStore.open(pg_url), await PostgresStore.open(pg_url)
    yield first, second
    await first.close()
    await second.close()


@pytest.fixture
def clock(request: pytest.FixtureRequest) -> Clock:
    """The host's clock, at :data:`tests.helpers.clock.START` (or the ``clock_at`` mark's wall time in Berlin,
    ``"2026-11-24 12:00"``) until the test moves it."""
    mark = request.node.get_closest_marker("clock_at")
    return Clock() if mark is None else Clock(at(mark.args[0]))


@pytest.fixture
def host_store(sqlite: Store) -> Any:
    """The store :func:`host` is on: :func:`sqlite`. A module whose host tests must run on both stores overrides it
    with ``def host_store(store): return store``."""
    return sqlite


@pytest.fixture
async def host(host_store: Any, clock: Clock) -> Host:
    """A loaded host (:func:`tests.helpers.host.make_host`) on :func:`host_store` reading :func:`clock`."""
    from tests.helpers.host import loaded_host

    return await loaded_host(host_store, clock)
