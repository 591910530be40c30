"""The game host as the host tests drive it: who sits where (channels, a server, people by their Discord ids), a
host made for tests (the tiny island, computers that play their first legal move, one seed), and the steps many
tests take (the person to move, their first legal move, a game played to its end, a refusal and its key)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import aiosqlite
import pytest

from bot.host.errors import HostError
from bot.host.host import Chooser, GameFactory, Host
from bot.host.settings import Settings
from bot.host.store import SCHEMA_VERSION
from bot.host.table import TableInfo
from bot.host.workers import WorkerPool
from engine import Game, new_game
from tests.helpers.clock import Clock
from tests.helpers.engine import TINY

CH, CH2, GUILD = 100, 200, 7
"""Two channels of one server."""
ADA, BO, CY, DI, EVE = 11, 12, 13, 14, 15
"""People, by their Discord ids."""
PEOPLE = {ADA: "Ada", BO: "Bo", CY: "Cy", DI: "Di"}
"""Their names."""
SEED = 4242
"""The seed of every game a test host opens."""


def tiny_factory(names: Sequence[str], seed: int, draft: bool) -> Game:
    """Games on the tiny island (:data:`tests.helpers.engine.TINY`): short, and quick to play to the end."""
    return new_game(names, seed, draft=draft, island=TINY)


def first_legal(view: dict[str, Any], strength: str, seed: int, budget: float) -> str:
    """Stand-in computer player: the first legal move of its own seat view."""
    return view["you"]["legal_moves"][0]


def make_host(store: Any, clock: Clock, *, game_factory: GameFactory = tiny_factory, chooser: Chooser = first_legal,
              executor: WorkerPool | None = None, **settings: Any) -> Host:
    """A host on ``store`` reading ``clock``, whose games are made by ``game_factory`` (the tiny island) with the
    seed :data:`SEED` and whose computers play by ``chooser`` (their first legal move); ``settings`` are
    :class:`Settings`' own."""
    return Host(store, Settings(**settings), clock=clock, game_factory=game_factory, chooser=chooser,
                executor=executor, new_seed=lambda: SEED)


STORED_BEFORE: Final[dict[str, Any]] = {"waits_for": None}
"""A game's columns as a bot from before it kept ``waits_for`` stored them (with a change that also takes its timers
away: a game stored before the timers): start-up loads such a game, sets what it lacks and writes the column."""


async def loaded_host(store: Any, clock: Clock, **options: Any) -> Host:
    """:func:`make_host` with what ``store`` holds loaded, as the bot starts it."""
    host = make_host(store, clock, **options)
    await host.load()
    return host


def two_hosts(stores: tuple[Any, Any], clock: Clock) -> tuple[Host, Host]:
    """Two hosts on the two connections of ``stores`` (one database, as two processes share it), reminding each
    hour."""
    return make_host(stores[0], clock, reminder_hours=1.0), make_host(stores[1], clock, reminder_hours=1.0)


def info(host: Host, channel: int = CH) -> TableInfo:
    """The table of ``channel`` (there must be one)."""
    found = host.games.info(channel)
    assert found is not None
    return found


def user_to_move(host: Host, channel: int = CH) -> int:
    """The person to move in ``channel`` (a person, not a computer, must be)."""
    table = info(host, channel)
    assert table.to_move is not None
    user = table.seats[table.to_move].user_id
    assert user is not None
    return user


async def play_first(host: Host, channel: int = CH, **kwargs: Any) -> Any:
    """The person to move plays their first legal move; the result."""
    user = user_to_move(host, channel)
    return await host.play.move(channel, user, host.play.legal_moves(channel, user)[0], **kwargs)


async def play_to_the_end(host: Host, channel: int = CH) -> Any:
    """Play first legal moves (computers too) until the game is over; the last move's result."""
    last = None
    while info(host, channel).status == "running":
        async for result in host.computers.run_computers(channel):
            last = result
        if info(host, channel).status != "running":
            break
        last = await play_first(host, channel)
    assert last is not None and last.game_over
    return last


async def start_two(host: Host, channel: int, people: tuple[tuple[int, str], tuple[int, str]]) -> int:
    """A running game of two people in ``channel``; the user to move."""
    (first, first_name), (second, second_name) = people
    await host.lobby.open(channel, GUILD, first, first_name)
    await host.lobby.join(channel, second, second_name)
    await host.lobby.start(channel, first)
    return user_to_move(host, channel)


async def finish(host: Host, channel: int = CH, guild: int = GUILD, *, opener: int = ADA, name: str = "Ada",
                 computers: int = 1, **options: Any) -> int:
    """A game of the opener against ``computers`` computers, played to the end by the computer (opener away)."""
    await host.lobby.open(channel, guild, opener, name, computers=computers, **options)
    await host.lobby.start(channel, opener)
    await host.play.away(channel, opener)
    results = [r async for r in host.computers.run_computers(channel)]
    assert results[-1].game_over
    return results[-1].game_id


async def refused(key: str, coro: Any) -> HostError:
    """The host's refusal of ``coro``, which must have the catalogue key ``key``."""
    with pytest.raises(HostError) as raised:
        await coro
    assert raised.value.key == key, raised.value
    return raised.value


async def rows(path: Path, sql: str, *params: Any) -> list[dict[str, Any]]:
    """What ``sql`` reads from the SQLite file at ``path``, a dict a row."""
    async with aiosqlite.connect(path) as conn:
        conn.row_factory = aiosqlite.Row
        async with conn.execute(sql, params) as cur:
            return [dict(r) for r in await cur.fetchall()]


UNDONE: Final = {
    16: ("DROP INDEX deliveries_of_game",),  # a game's deliveries found by game
    15: ("DROP TABLE dm_channels", "DROP TABLE seat_people"),  # people's DM channels, who sits in each open game
    14: ("DROP INDEX games_waiting", "ALTER TABLE games DROP COLUMN waits_for"),  # whose move each game waits for
    13: ("DROP TABLE web_pages", "DROP TABLE web_servers", "DROP TABLE web_revocations"),  # the web pages
    12: ("DROP INDEX deliveries_open_turn_dms", "ALTER TABLE deliveries DROP COLUMN closed_at",
         "ALTER TABLE deliveries DROP COLUMN message_id"),  # the turn DMs' messages
    11: ("DROP TABLE turn_times", "DROP INDEX games_open_in_parent", "ALTER TABLE games DROP COLUMN parent_id"),
    10: ("ALTER TABLE games DROP COLUMN last_message_id",),  # the latest post
    9: ("DROP TABLE user_settings", "DROP INDEX deliveries_of_user"),  # people's own settings, their held DMs
    8: ("DROP TABLE timers", "DROP TABLE leases", "ALTER TABLE games DROP COLUMN version"),  # several processes
    7: ("DROP TABLE results", "DROP TABLE ratings", "DROP TABLE rating_history", "DROP TABLE standings"),
    6: ("DROP INDEX games_finished_by_guild", "ALTER TABLE games DROP COLUMN over_message_id"),  # the archive
    4: ("DROP TABLE deliveries",),
    3: ("DROP TABLE users",),
}
"""What each schema version added, taken away again (version 5 rebuilt the games table: that stays)."""


async def as_left_by_version(path: Path, version: int) -> None:
    """The SQLite file at ``path`` (at the latest schema) as a bot of schema ``version`` left it: what the later
    versions added taken away, newest first, and its ``user_version`` set back."""
    assert max(UNDONE) == SCHEMA_VERSION, "a new schema version: say here what it adds"
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        for later in sorted((v for v in UNDONE if v > version), reverse=True):
            for sql in UNDONE[later]:
                await conn.execute(sql)
        await conn.execute(f"PRAGMA user_version = {version}")
