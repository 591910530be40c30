"""Forget me means forgotten, on both stores: after it, the person's display name is nowhere in the database
(every text column of every table is read) but in the games they still sit in; a finished game's saved state and
the posts it still owes call them "former player", posts and DMs already sent keep no payload that names
them, and their DM channel with the bot is no longer stored."""

from __future__ import annotations

import json
from typing import Any

import aiosqlite
import asyncpg
import pytest

from bot.host.host import Host
from bot.host.store import Store
from engine import Game
from tests.helpers.clock import Clock
from tests.helpers.host import ADA, BO, CH, CH2, CY, GUILD, make_host, play_first, play_to_the_end

NAME = "Zoë Quill"
"""A name with a letter that JSON writes escaped (``\\u00eb``): both spellings are looked for."""
SPELLINGS = (NAME, json.dumps(NAME)[1:-1])
FORMER = "former player"


async def text_cells(store: Any, request: pytest.FixtureRequest) -> list[tuple[str, str, str]]:
    """``(table, column, value)`` of every non-empty text cell of every table of the store's database."""
    cells: list[tuple[str, str, str]] = []
    if isinstance(store, Store):
        async with aiosqlite.connect(store.path) as conn:
            tables = [r[0] for r in await conn.execute_fetchall(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
            for table in tables:
                columns = [r[1] for r in await conn.execute_fetchall(f"PRAGMA table_info({table})")
                           if str(r[2]).upper() == "TEXT"]
                for column in columns:
                    for (value,) in await conn.execute_fetchall(f"SELECT {column} FROM {table}"):
                        if value:
                            cells.append((table, column, str(value)))
        return cells
    conn = await asyncpg.connect(request.getfixturevalue("pg_url"))
    try:
        columns = await conn.fetch("SELECT table_name, column_name FROM information_schema.columns"
                                   " WHERE table_schema = 'public' AND data_type IN ('text', 'character varying')")
        for row in columns:
            table, column = row["table_name"], row["column_name"]
            for value in await conn.fetch(f"SELECT {column} AS v FROM {table}"):
                if value["v"]:
                    cells.append((table, column, str(value["v"])))
    finally:
        await conn.close()
    return cells


def naming(cells: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    return [c for c in cells if any(s in c[2] for s in SPELLINGS)]


async def deliver_all(store: Any, host: Host, *, but: int | None = None) -> None:
    """Mark every pending delivery sent, as the dispatcher does (except the one with id ``but``)."""
    for row in await store.pending_deliveries():
        if row.id != but:
            await store.mark_delivered(row.id, now=host.clock())


async def test_forget_me_leaves_the_name_only_in_the_game_still_running(
        store: Any, request: pytest.FixtureRequest) -> None:
    host = make_host(store, Clock())
    await host.load()
    # a finished game with Bo, its final post not sent yet
    await host.lobby.open(CH, GUILD, ADA, NAME)
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.start(CH, ADA)
    last = await play_to_the_end(host)
    over = host.games.info(CH)
    assert over is not None and over.status == "over"
    final = max(r.id for r in await store.pending_deliveries(CH) if NAME in json.dumps(r.payload, ensure_ascii=False))
    await deliver_all(store, host, but=final)
    # a game she still plays in (another channel), with posts and DMs sent
    await host.lobby.open(CH2, GUILD, CY, "Cy")
    await host.lobby.join(CH2, ADA, NAME)
    await host.lobby.start(CH2, CY)
    await play_first(host, CH2)
    await deliver_all(store, host, but=final)
    before = naming(await text_cells(store, request))
    assert {c[0] for c in before} >= {"games", "deliveries", "results", "standings"}
    await host.people.remember_dm_channel(ADA, 7001)
    await host.people.remember_dm_channel(BO, 7002)

    forgotten = await host.people.forget_me(ADA)

    assert await host.people.dm_channel(ADA) is None  # her DM channel with the bot is forgotten too
    assert await host.people.dm_channel(BO) == 7002

    assert forgotten.results == 1 and forgotten.games_renamed == 1 and forgotten.deliveries_scrubbed > 0
    running = host.games.info(CH2)
    assert running is not None and running.status == "running"
    left = naming(await text_cells(store, request))
    # what is kept: the seats and the state of the game she still sits in, and its posts not sent yet
    assert {(table, column) for table, column, _ in left} <= {("games", "seats"), ("games", "state"),
                                                             ("deliveries", "payload")}
    pending = [r.payload for r in await store.pending_deliveries(CH2)]
    running_row = await store.get_game(running.game_id)
    assert running_row is not None
    for _, column, value in left:
        if column == "payload":
            assert json.loads(value) in pending
        elif column == "seats":
            assert json.loads(value) == running_row.seats
        else:
            assert value == running_row.state
    # the finished game: seats, saved state and the post it still owes say "former player"
    row = await store.get_game(last.game_id)
    assert row is not None and row.state is not None
    assert {s["user_id"]: s["name"] for s in row.seats} == {ADA: FORMER, BO: "Bo"}
    assert Game.from_json(row.state).names == [s["name"] for s in row.seats]
    owed = [r for r in await store.pending_deliveries(CH) if r.id == final]
    assert owed and FORMER in json.dumps(owed[0].payload) and not naming([("", "", json.dumps(owed[0].payload))])
    # this process's copy of the finished table says so too
    shown = host.games.info(CH)
    assert shown is not None and {s.name for s in shown.seats} == {FORMER, "Bo"}
