"""A throwaway PostgreSQL cluster for the tests: ``initdb`` + ``pg_ctl`` on a free 127.0.0.1 port in a temp dir.

``initdb`` and ``pg_ctl`` refuse to run as root; as root the cluster is made and run by the unprivileged user
``nobody``, which owns its directory. Without PostgreSQL's server binaries the tests that need it are skipped
with one line saying how to install them, except under CI (``CI=true``), where they must run and a missing
binary fails them instead.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

BINARIES = ("initdb", "pg_ctl", "postgres", "psql")
INSTALL_HINT = ("PostgreSQL server binaries (initdb, pg_ctl, postgres) are not on PATH: "
                "install them (Debian: apt-get install postgresql) to run the PostgreSQL tests")


def missing_binaries() -> list[str]:
    """The server programs that are not on PATH."""
    return [name for name in BINARIES if shutil.which(name) is None]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run(argv: list[str], *, as_user: str | None) -> None:
    if as_user is not None:
        argv = ["su", as_user, "-s", "/bin/sh", "-c", shlex.join(argv)]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({result.returncode}): {result.stdout}{result.stderr}")


class Cluster:
    """A throwaway cluster that can be stopped and started again on the same port (a database outage)."""

    def __init__(self) -> None:
        self.as_user = "nobody" if os.geteuid() == 0 else None
        self.folder = Path(tempfile.mkdtemp(prefix="santacruz-pg-"))
        if self.as_user is not None:
            shutil.chown(self.folder, user=self.as_user)
        self.data, self.port = self.folder / "data", _free_port()
        _run(["initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"],
             as_user=self.as_user)
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        options = f"-h 127.0.0.1 -p {self.port} -k {self.folder} -F -c fsync=off -c max_connections=200"
        _run(["pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.folder / "server.log"), "-w", "-t", "60",
              "start"], as_user=self.as_user)

    def stop(self) -> None:
        _run(["pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop"], as_user=self.as_user)

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


@contextmanager
def cluster() -> Iterator[str]:
    """Start a new cluster and yield its URL (``postgresql://postgres@127.0.0.1:PORT/postgres``); stop and
    delete it afterwards."""
    server = Cluster()
    server.start()
    try:
        yield server.url
    finally:
        try:
            server.stop()
        finally:
            server.remove()


def sql(url: str, statement: str) -> None:
    """Run one SQL statement with ``psql`` (outside any event loop: fixtures create and drop databases)."""
    _run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", statement], as_user=None)


class Session:
    """One connection to a database kept open for many statements, for fixtures that run one before each test
    (``psql`` starts a process each time). It lives on an event loop in a thread of its own, so it is used the
    same from plain code and from code already running in an event loop."""

    def __init__(self, url: str) -> None:
        import asyncpg

        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="pgcluster-session", daemon=True)
        self._thread.start()
        self._connection: Any = self._run(asyncpg.connect(url))

    def _run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=120)

    def sql(self, statement: str) -> None:
        """Run ``statement`` (one or several, separated by ``;``)."""
        self._run(self._connection.execute(statement))

    def close(self) -> None:
        try:
            self._run(self._connection.close())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=30)
            self._loop.close()


@asynccontextmanager
async def throwaway_store(kind: str) -> AsyncIterator[Any]:
    """A new, empty store of ``kind`` (``sqlite``: in a temp file; ``postgres``: on its own cluster), for the
    benchmarks; closed and deleted afterwards."""
    from bot.host.postgres_store import PostgresStore
    from bot.host.store import Store

    if kind == "sqlite":
        with tempfile.TemporaryDirectory() as folder:
            store: Any = await Store.open(Path(folder) / "bench.db")
            try:
                yield store
            finally:
                await store.close()
    else:
        with cluster() as url:
            store = await PostgresStore.open(url)
            try:
                yield store
            finally:
                await store.close()
