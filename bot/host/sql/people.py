"""The store's people (:class:`PeopleSql`): each person's language, DM channel and own settings (whose queries are
:mod:`bot.host.user_settings`'s), the DMs held for their quiet hours, and the open games they sit in."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.host import user_settings
from bot.host.model import DeliveryRow, GameRow
from bot.host.sql.base import DELIVERIES, GAMES, OPEN, SqlBase
from bot.host.user_settings import HELD_PATTERN, UserSettings


class PeopleSql(SqlBase):
    """Each person's language, DM channel and settings, their held DMs and their open games."""

    async def set_user_locale(self, user_id: int, locale: str, *, now: float) -> None:
        """Store (insert or replace) the language of the user's last interaction."""
        await self._execute(
            """
            INSERT INTO users (user_id, locale, updated_at)
            VALUES (?, ?, ?)
            ON CONFLICT (user_id) DO UPDATE
            SET locale = excluded.locale, updated_at = excluded.updated_at
            """,
            user_id, locale, now)

    async def user_locales(self) -> dict[int, str]:
        """Every stored user's language: user id -> locale."""
        return {int(r["user_id"]): str(r["locale"]) for r in await self._fetch("SELECT user_id, locale FROM users")}

    async def dm_channel(self, user_id: int) -> int | None:
        """The id of the user's DM channel with the bot, if stored."""
        rows = await self._fetch("SELECT channel_id FROM dm_channels WHERE user_id = ?", user_id)
        return int(rows[0]["channel_id"]) if rows else None

    async def set_dm_channel(self, user_id: int, channel_id: int) -> None:
        """Store (insert or replace) the id of the user's DM channel with the bot."""
        await self._execute(
            """
            INSERT INTO dm_channels (user_id, channel_id) VALUES (?, ?)
            ON CONFLICT (user_id) DO UPDATE SET channel_id = excluded.channel_id
            """,
            user_id, channel_id)

    async def user_settings(self) -> dict[int, UserSettings]:
        """Every stored person's settings: user id -> settings."""
        async with self._read() as db:
            return await user_settings.read_all(db)

    async def set_user_settings(self, user_id: int, settings: UserSettings, *, now: float,
                                held_due_at: float) -> int:
        """Store a person's settings, their held DMs made due at ``held_due_at`` (one transaction); how many
        moved."""
        async with self._write() as db:
            return await user_settings.write(db, user_id, settings, now=now, held_due_at=held_due_at)

    async def hold_deliveries(self, holds: Sequence[tuple[int, dict[str, Any]]], *, due_at: float) -> None:
        """Hold DM deliveries ``(id, payload)`` until ``due_at`` (marked held), in one transaction."""
        async with self._write() as db:
            await user_settings.hold(db, list(holds), due_at)

    async def held_deliveries(self, user_id: int) -> list[DeliveryRow]:
        """A person's pending held DMs, of every game, in the order they were written."""
        rows = await self._fetch(f"{DELIVERIES} WHERE user_id = ? AND done_at IS NULL AND payload LIKE ? ORDER BY id",
                                 user_id, HELD_PATTERN)
        return [DeliveryRow.read(r) for r in rows]

    async def open_games_of(self, user_id: int) -> list[GameRow]:
        """The open games ``user_id`` sits in (as ``seat_people`` has them), oldest first."""
        return await self._games(
            f"{GAMES} WHERE id IN (SELECT game_id FROM seat_people WHERE user_id = ?) AND {OPEN} ORDER BY id", user_id)
