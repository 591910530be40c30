"""The store's SQL, written once for SQLite and PostgreSQL, one class per topic as :mod:`bot.host.stores` names
them (as Synapse splits its stores): :class:`~bot.host.sql.games.GameSql` (games, the one write of a change,
quarantine), :class:`~bot.host.sql.moves.MoveSql` (the move log), :class:`~bot.host.sql.timers.TimerSql` (timers and
leases), :class:`~bot.host.sql.deliveries.DeliverySql` (the outbox's rows), :class:`~bot.host.sql.archive.ArchiveSql`
(finished games, players' history), :class:`~bot.host.sql.people.PeopleSql` (languages, settings, held DMs) and
:class:`~bot.host.sql.web.WebSql` (the games' web pages).
:class:`SqlStore` is all of them; a dialect (``bot.host.store`` for SQLite, ``bot.host.postgres_store`` for
PostgreSQL) says how to connect and run a transaction (:mod:`bot.host.sql.base`).

A delivery (a channel post or a DM) and a timer are written in the SAME transaction as the change that owes it, so a
crash never loses one; every write is one transaction, and a refused one (``StorageFailed``) wrote nothing. A
``games`` row is decoded by :func:`~bot.host.sql.base.decode_game_row` on both stores alike: seats or options that
cannot be read are a ``DamagedRow``, which the host quarantines. The tables are :mod:`bot.host.schema`'s.
"""

from __future__ import annotations

from bot.host.sql.archive import ArchiveSql
from bot.host.sql.base import BUSY_TIMEOUT, Db, KeyClash, decode_game_row, dumps
from bot.host.sql.deliveries import DeliverySql
from bot.host.sql.games import GameSql
from bot.host.sql.moves import MoveSql
from bot.host.sql.people import PeopleSql
from bot.host.sql.timers import TimerSql
from bot.host.sql.web import WebSql

__all__ = ["BUSY_TIMEOUT", "Db", "KeyClash", "SqlStore", "decode_game_row", "dumps"]


class SqlStore(GameSql, MoveSql, TimerSql, DeliverySql, ArchiveSql, PeopleSql, WebSql):
    """Every query of the store, once, by topic; a dialect subclass says how to connect and run a transaction."""
