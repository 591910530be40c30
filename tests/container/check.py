"""The image, run as an operator runs it, against the fake Discord: ``scripts/container-check`` builds the image
and runs this module (``python -m tests.container.check IMAGE``).

Steps, each failing loudly with the container's log: the fake Discord on 127.0.0.1; a volume for ``/data``; the
image's own entry point (``santacruz-bot``) in a container with host networking, pointed at the fake by
``tests/container/hook`` (mounted, on ``PYTHONPATH``); the gateway session and the synced commands; the image's
``HEALTHCHECK`` turning healthy (the engine's own status; without systemd podman runs no health timers, so the
check is run with ``podman healthcheck run``, the same command); ``/readyz`` and ``/metrics`` answered; a game
opened, joined, started and one move played with slash commands; a stop with SIGTERM (``stop -t 30``) ending in
exit code 0; the move in the SQLite file of the volume afterwards, read with the standard library. With
``--store postgres`` the bot uses a throwaway PostgreSQL cluster on 127.0.0.1 (``tests/pgcluster.py``) instead:
the same image serves both stores.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import asyncpg

from bot.host.postgres_store import PostgresStore
from bot.host.store import Store
from tests import pgcluster
from tests.fakediscord import FakeDiscord
from tests.fakediscord.remote import RemoteTable

HOOK = Path(__file__).resolve().parent / "hook"
TIMEOUT = 120.0
"""Seconds for each wait: a slow, shared machine starts a container, Python and discord.py in it."""


def say(text: str) -> None:
    print(f"container-check: {text}", flush=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Container:
    """One container of the image, driven through the engine's command line (podman or docker)."""

    def __init__(self, engine: str, image: str, name: str) -> None:
        self.engine, self.image, self.name = engine, image, name
        self.volume = f"{name}-data"

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run([self.engine, *args], check=check, capture_output=True, text=True)

    def start(self, env: dict[str, str]) -> None:
        self.run("volume", "create", self.volume)
        flags = [f"--env={key}={value}" for key, value in env.items()]
        extra = os.environ.get("CONTAINER_RUN_ARGS", "").split()
        self.run("run", "--detach", f"--name={self.name}", "--network=host", f"--volume={self.volume}:/data",
                 f"--volume={HOOK}:/fake-hook:ro", *extra, *flags, self.image)

    def state(self) -> dict[str, Any]:
        return dict(json.loads(self.run("inspect", self.name).stdout)[0]["State"])

    def health(self) -> str:
        """The engine's health status of the container (``starting``, ``healthy``, ``unhealthy``)."""
        state = self.state()
        health = state.get("Health") or state.get("Healthcheck") or {}
        return str(health.get("Status", ""))

    def logs(self) -> str:
        done = self.run("logs", self.name, check=False)
        return done.stdout + done.stderr

    def database(self) -> Path:
        """The SQLite file in the volume, as the host sees it (podman's and docker's local volumes)."""
        mountpoint = self.run("volume", "inspect", "--format", "{{.Mountpoint}}", self.volume).stdout.strip()
        return Path(mountpoint) / "santacruz.db"

    def remove(self) -> None:
        self.run("rm", "--force", self.name, check=False)
        self.run("volume", "rm", "--force", self.volume, check=False)


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


async def check(engine: str, image: str, keep: bool, database_url: str | None) -> None:
    name = f"santacruz-check-{os.getpid()}"
    box = Container(engine, image, name)
    http_port = free_port()
    async with FakeDiscord() as fake:
        store = "PostgreSQL" if database_url else "SQLite"
        say(f"fake Discord at {fake.base_url}; starting {image} as {name} on {store}")
        started = time.monotonic()
        box.start({"FAKE_DISCORD_URL": fake.base_url, "PYTHONPATH": "/fake-hook", "DISCORD_TOKEN": fake.token,
                   "HTTP_PORT": str(http_port), "AI_STRENGTH": "random", "AI_SECONDS": "0.05",
                   "PICTURE_WIDTH": "800", "LOG_LEVEL": "INFO",
                   **({"DATABASE_URL": database_url} if database_url else {})})
        try:
            await play(fake, box, http_port, started, database_url)
        except BaseException:
            print(f"--- the container's log\n{box.logs()[-20000:]}", flush=True)
            if not keep:
                box.remove()
            raise
    if not keep:
        box.remove()


async def play(fake: FakeDiscord, box: Container, http_port: int, started: float, database_url: str | None) -> None:
    def connected() -> bool:
        assert box.state().get("Running"), f"the container ended: {box.state()}"
        session = fake.session
        return session is not None and session.connection is not None and bool(fake.synced_commands())

    await fake.wait_until(connected, timeout=TIMEOUT, poll=0.5, description="the bot in the container to connect")
    say(f"connected and {len(fake.synced_commands())} command(s) synced after {time.monotonic() - started:.1f} s")

    deadline = time.monotonic() + TIMEOUT
    while box.health() != "healthy":
        assert time.monotonic() < deadline, f"not healthy after {TIMEOUT:.0f} s: {box.state()}"
        assert box.state().get("Running"), f"the container ended: {box.state()}"
        if box.engine.endswith("podman"):  # without systemd podman runs no health timers: run the check as one would
            box.run("healthcheck", "run", box.name, check=False)
        await asyncio.sleep(1)
    say(f"healthy {time.monotonic() - started:.1f} s after the start")
    while (answer := get(f"http://127.0.0.1:{http_port}/readyz"))[0] != 200:  # discord.py's READY comes last
        assert time.monotonic() < deadline, f"/readyz answered {answer}"
        await asyncio.sleep(0.5)
    status, body = answer
    say(f"ready {time.monotonic() - started:.1f} s after the start")
    status, metrics = get(f"http://127.0.0.1:{http_port}/metrics")
    assert status == 200 and "# TYPE" in metrics, f"/metrics answered {status}: {metrics[:500]}"
    say(f"/readyz 200 ({body.strip()[:80]}); /metrics {len(metrics.splitlines())} lines")

    database = box.database()
    store = await PostgresStore.open(database_url) if database_url else await Store.open(database)
    try:
        table = RemoteTable(fake, store, fake.channel("games"), ["alice", "bob"], timeout=TIMEOUT)
        await table.open(computers=0)
        position = await table.step("slash")
        assert position.seq >= 1, f"no move stored: {table.acts}"
        game_id = table.game_id
        say(f"game {game_id} opened, joined, started; move 1 played: {table.acts[-1]}")

        def pictures() -> list[bytes]:  # the board posted after the move: drawn by the image's worker processes
            return [a.data for m in fake.messages(table.channel, ephemeral=False) for a in m.attachments
                    if a.data.startswith(b"\x89PNG")]
        posted = await fake.wait_until(lambda: len(pictures()) >= 2 and pictures(), timeout=TIMEOUT,
                                       description="the board pictures of the start and of move 1")
        say(f"{len(posted)} board pictures posted ({min(map(len, posted)) // 1000}-{max(map(len, posted)) // 1000} kB)")
    finally:
        await store.close()

    stop_started = time.monotonic()
    box.run("stop", "--time=30", box.name)
    state = box.state()
    say(f"stopped with SIGTERM in {time.monotonic() - stop_started:.1f} s, exit code {state.get('ExitCode')}")
    log = box.logs()
    assert state.get("ExitCode") == 0, f"exit code {state.get('ExitCode')} after SIGTERM (expected 0)"
    errors = [line for line in log.splitlines() if " ERROR " in line or "Traceback" in line
              or '"level": "ERROR"' in line]
    assert not errors, f"the bot logged errors: {errors}"

    if database_url:
        conn = await asyncpg.connect(database_url)
        try:
            rows = await conn.fetch("SELECT seq, move FROM moves WHERE game_id = $1 ORDER BY seq", game_id)
        finally:
            await conn.close()
        moves = [(row["seq"], row["move"]) for row in rows]
    else:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
            moves = db.execute("SELECT seq, move FROM moves WHERE game_id = ? ORDER BY seq", (game_id,)).fetchall()
    assert moves and moves[0][0] == 1, f"the move is not in the database after the stop: {moves}"
    say(f"after the stop the database holds game {game_id}'s moves {moves}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("image")
    parser.add_argument("--engine", default=os.environ.get("CONTAINER_ENGINE", "podman"))
    parser.add_argument("--keep", action="store_true", help="keep the container and its volume afterwards")
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    args = parser.parse_args()
    engine = shutil.which(args.engine) or args.engine
    with pgcluster.cluster() if args.store == "postgres" else contextlib.nullcontext() as database_url:
        asyncio.run(check(engine, args.image, args.keep, database_url))
    say("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
