"""Whether this process can save a move now (the readiness an operator's health check asks for, ``/readyz``), and
waiting for the changes under way before it stops."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from bot.host.schema import SCHEMA_VERSION
from bot.host.stores import GameStore


async def readiness(store: GameStore, busy_timeout: float) -> str | None:
    """Why a move cannot be saved now (``None``: it can): the database does not answer within ``busy_timeout``
    seconds, cannot be read, or has another schema than this bot's (the migrations did not run)."""
    try:
        version = await asyncio.wait_for(store.schema_version(), busy_timeout)
    except TimeoutError:
        return f"the database did not answer within {busy_timeout:g} s"
    except Exception as exc:  # the driver says why: connection refused, file unreadable, ...
        return f"the database cannot be read: {type(exc).__name__}: {exc}"
    if version != SCHEMA_VERSION:
        return f"the database has schema version {version}, this bot needs {SCHEMA_VERSION}"
    return None


async def settle(busy: Sequence[asyncio.Lock], timeout: float) -> bool:
    """Whether the changes under way (each holds its channel's lock, ``busy``) were written within ``timeout``
    seconds: a stopping process lets them commit before it closes the database."""
    tasks = [asyncio.ensure_future(_written(lock)) for lock in busy]
    return not tasks or not (await asyncio.wait(tasks, timeout=timeout))[1]


async def _written(lock: asyncio.Lock) -> None:
    async with lock:  # the change that held it is written (or refused)
        pass
