"""A stored game damaged behind the stores' backs, as a bad disk, a bad hand-edit or an operator would: a
:class:`Database` of either kind changed and read with plain SQL, and every kind of damage (:data:`DAMAGES`) with
the reason the host quarantines such a game for."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiosqlite
import asyncpg

from bot.host.model import UNDO
from bot.host.postgres_store import PostgresStore
from bot.host.store import Store
from tests.helpers.host import ADA, BO


class Database:
    """One database of either kind, behind the stores' backs: opened as a store (again after a restart), and
    changed or read with plain SQL (``?`` placeholders) as a bad disk, a bad hand-edit or an operator would."""

    def __init__(self, kind: str, path: Path, url: str | None) -> None:
        self.kind, self.path, self.url = kind, path, url

    async def open(self) -> Any:
        if self.url is not None:
            return await PostgresStore.open(self.url)
        return await Store.open(self.path)

    async def execute(self, sql: str, *params: object) -> None:
        if self.url is not None:
            conn = await asyncpg.connect(self.url)
            try:
                await conn.execute(_numbered(sql), *params)
            finally:
                await conn.close()
            return
        async with aiosqlite.connect(self.path, isolation_level=None) as db:
            await db.execute(sql, params)

    async def fetchone(self, sql: str, *params: object) -> tuple[Any, ...] | None:
        if self.url is not None:
            conn = await asyncpg.connect(self.url)
            try:
                row = await conn.fetchrow(_numbered(sql), *params)
            finally:
                await conn.close()
            return None if row is None else tuple(row)
        async with aiosqlite.connect(self.path, isolation_level=None) as db, db.execute(sql, params) as cur:
            found = await cur.fetchone()
            return None if found is None else tuple(found)


def _numbered(sql: str) -> str:
    """``?`` placeholders as PostgreSQL's ``$1``, ``$2``, …"""
    parts = sql.split("?")
    return parts[0] + "".join(f"${i}{part}" for i, part in enumerate(parts[1:], start=1))


Damager = Callable[[Database, int], Awaitable[None]]


async def corrupt(database: Database, game_id: int, sql: str, *params: object) -> None:
    await database.execute(sql, *params, game_id)


async def cut_seats(database: Database, game_id: int) -> None:
    await corrupt(database, game_id, "UPDATE games SET seats = substr(seats, 1, 20) WHERE id = ?")


async def seats_not_a_list(database: Database, game_id: int) -> None:
    await corrupt(database, game_id, "UPDATE games SET seats = ? WHERE id = ?", json.dumps({"0": "Ada"}))


async def unknown_seat_key(database: Database, game_id: int) -> None:
    seats = [{"user_id": ADA, "name": "Ada", "hat": 1}, {"user_id": BO, "name": "Bo"}]
    await corrupt(database, game_id, "UPDATE games SET seats = ? WHERE id = ?", json.dumps(seats))


async def cut_options(database: Database, game_id: int) -> None:
    await corrupt(database, game_id, "UPDATE games SET options = substr(options, 1, 5) WHERE id = ?")


async def unknown_option_key(database: Database, game_id: int) -> None:
    await corrupt(database, game_id, "UPDATE games SET options = ? WHERE id = ?", json.dumps({"colour": "red"}))


async def illegal_move(database: Database, game_id: int) -> None:
    await corrupt(database, game_id, "UPDATE moves SET move = 'build 999' WHERE seq = 1 AND game_id = ?")


async def undo_first(database: Database, game_id: int) -> None:
    await corrupt(database, game_id, "UPDATE moves SET move = ? WHERE seq = 1 AND game_id = ?", UNDO)


DAMAGES: list[tuple[Damager, str]] = [
    (cut_seats, "seats"), (seats_not_a_list, "seats"), (unknown_seat_key, "seats"), (cut_options, "options"),
    (unknown_option_key, "options"), (illegal_move, "log"), (undo_first, "log")]
"""Every kind of damage a stored game can have, and the reason it is quarantined for."""
