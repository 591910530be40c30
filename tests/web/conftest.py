"""Fixtures of the web pages' tests: a :class:`Site`, a host on each store (SQLite in a temp file, PostgreSQL on the
throwaway cluster) with a game of three people whose names are hostile, and the web server in front of it on
127.0.0.1 (its boards drawn 800 pixels wide, in a thread: quicker than the full width, the same code).

Everything a person does goes through the host, as the bot's commands do; the tests read the pages over real HTTP.
"""

from __future__ import annotations

import asyncio
import random
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import aiohttp
import pytest

from bot.host.hints import Coach
from bot.host.host import Host
from bot.host.postgres_store import PostgresStore
from bot.host.settings import Settings
from bot.host.store import Store
from bot.web.server import WebServer
from tests.adapter.conftest import coach_by_playouts
from tests.adapter.test_hostile_input import HOSTILE_NAMES

CHANNEL: Final = 10
GUILD: Final = 5
PEOPLE: Final = (100, 101, 102)
NAMES: Final = {
    100: "<script>alert(1)</script> & \"Ada\" <img src=x onerror=alert(2)>",
    101: "@everyone <@123> \u202eevil Bo",
    102: "Z" + "".join(chr(0x336 + i) for i in range(12)) + "o\u2069\u202e " + HOSTILE_NAMES["mallory"],
}
"""The players' names, as hostile as the tests' others: HTML, mentions, a right-to-left override (and a stray end of
an isolate), a dozen combining marks on one letter, Discord markdown with a masked link."""
SEED: Final = 73_085_126_491
"""Distinctive digits: found in a response, the seed leaked."""
SECRET: Final = "a-web-secret-of-forty-characters-or-more-0123"
WIDTH: Final = 800


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Site:
    """A host with one game and its web server."""

    host: Host
    store: Any
    server: WebServer
    settings: Settings
    rng: random.Random = field(default_factory=lambda: random.Random(7))

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.port}"

    @property
    def game_id(self) -> int:
        info = self.host.games.info(CHANNEL)
        assert info is not None
        return int(info.game_id)

    async def start(self, *, hints: bool = False) -> None:
        """The lobby of the three people (``hints``: they may ask the coach), started."""
        await self.host.lobby.open(CHANNEL, GUILD, PEOPLE[0], NAMES[PEOPLE[0]], hints=hints)
        for user in PEOPLE[1:]:
            await self.host.lobby.join(CHANNEL, user, NAMES[user])
        await self.host.lobby.start(CHANNEL, PEOPLE[0])

    async def play(self, count: int) -> int:
        """``count`` moves of whoever is to move (fewer when the game ends); how many were made."""
        made = 0
        for _ in range(count):
            info = self.host.games.info(CHANNEL)
            if info is None or info.status != "running" or info.to_move is None:
                break
            user = info.seats[info.to_move].user_id
            assert user is not None
            await self.host.play.move(CHANNEL, user, self.rng.choice(self.host.play.legal_moves(CHANNEL, user)))
            made += 1
        return made

    async def link(self) -> str:
        found = await self.host.web.link(self.game_id)
        assert found is not None and found.startswith(self.origin + "/g/")
        return found

    async def seat_link(self, user_id: int) -> str:
        found = await self.host.web.seat_link(self.game_id, user_id)
        assert found is not None
        return found


async def open_site(store: Any, *, coach: Coach = coach_by_playouts) -> Site:
    """A host on ``store`` (a new seed: :data:`SEED`; the coach thinking a fixed number of playouts) and its web
    server, listening."""
    port = free_port()
    chosen = Settings(web_port=port, web_secret=SECRET)
    host = Host(store, chosen, new_seed=lambda: SEED, coach=coach)
    server = WebServer(lambda: host.web, chosen, picture_width=WIDTH)
    await server.start()
    return Site(host, store, server, chosen)


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


async def fetch(http: aiohttp.ClientSession, url: str, *, method: str = "GET",
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """One answer: status, headers, body."""
    async with http.request(method, url, headers=headers or {}, allow_redirects=False) as answer:
        return answer.status, dict(answer.headers), await answer.read()


async def next_event(reader: aiohttp.StreamReader, timeout: float = 10.0) -> tuple[str, str]:
    """The next event of a Server-Sent Events stream: (event, data); comments skipped."""
    event, data = "message", ""
    while True:
        line = (await asyncio.wait_for(reader.readline(), timeout)).decode().rstrip("\n")
        if line == "":
            if data:
                return event, data
            continue
        if line.startswith(":") or line.startswith("retry:"):
            continue
        key, _, value = line.partition(": ")
        if key == "event":
            event = value
        elif key == "data":
            data = value
