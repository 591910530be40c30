"""The store behind the host, chosen by the settings: SQLite (the embedded default) or PostgreSQL.

Both implement :class:`GameStore` with the same semantics (the shared store tests run against each):
``bot.host.store.Store`` keeps everything in one SQLite file (``DATABASE_PATH``) for one bot process;
``bot.host.postgres_store.PostgresStore`` keeps it in PostgreSQL (``DATABASE_URL``), shared by several bot
processes on several machines.
"""

from __future__ import annotations

from bot.host.postgres_store import PostgresStore
from bot.host.settings import Settings
from bot.host.store import Store

GameStore = Store | PostgresStore
"""Either store: the host calls the same methods on both."""


async def open_store(settings: Settings) -> GameStore:
    """The store the settings name: PostgreSQL when ``DATABASE_URL`` is set, else the SQLite file."""
    if settings.database_url:
        return await PostgresStore.open(settings.database_url)
    return await Store.open(settings.database_path, busy_timeout=settings.busy_timeout)
