"""The store's deliveries (:class:`DeliverySql`): the channel posts and DMs each change owes, written in the change's
own transaction (:func:`add_deliveries`) so that a crash never loses one, read in the order they were written, and
marked done (sent, or given up) with the message they went out as where a later change needs it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.host.model import OPEN_STATUSES, DeliveryRow, NewDelivery
from bot.host.sql.base import DELIVERIES, DELIVERY_COLUMNS, Db, SqlBase, dumps, placeholders
from bot.host.user_settings import HELD_PATTERN


class DeliverySql(SqlBase):
    """The posts and DMs each change owes, until sent (or given up)."""

    async def pending_deliveries(self, channel_id: int | None = None) -> list[DeliveryRow]:
        """The deliveries not done yet (of one channel, or of all), in the order they were written."""
        of_channel, params = ("", ()) if channel_id is None else ("AND channel_id = ?", (channel_id,))
        rows = await self._fetch(f"{DELIVERIES} WHERE done_at IS NULL {of_channel} ORDER BY id", *params)
        return [DeliveryRow.read(r) for r in rows]

    async def deliveries(self, game_id: int) -> list[DeliveryRow]:
        """Every delivery of a game, done or not, in order."""
        rows = await self._fetch(f"{DELIVERIES} WHERE game_id = ? ORDER BY id", game_id)
        return [DeliveryRow.read(r) for r in rows]

    async def dms_after(self, game_id: int, user_id: int, after_id: int, kinds: Sequence[str]) -> list[DeliveryRow]:
        """The person's deliveries of ``kinds`` in the game written after delivery ``after_id``, done or not, in
        order (what a waiting DM may be folded into: a few rows, not the game's every delivery)."""
        rows = await self._fetch(
            f"{DELIVERIES} WHERE game_id = ? AND user_id = ? AND id > ? AND kind IN ({placeholders(kinds)})"
            " ORDER BY id",
            game_id, user_id, after_id, *kinds)
        return [DeliveryRow.read(r) for r in rows]

    async def open_messages(self, game_id: int, user_id: int | None) -> list[tuple[int, int]]:
        """A person's turn DMs of a game not told yet that their turn passed, or (``user_id`` ``None``) its posts
        whose buttons are on (``bot.host.buttons``): (delivery id, message id), in order."""
        rows = await self._fetch(
            f"""
            SELECT id, message_id
            FROM deliveries
            WHERE game_id = ? AND user_id {self.IS} ? AND message_id IS NOT NULL AND closed_at IS NULL
            ORDER BY id
            """,
            game_id, user_id)
        return [(int(r["id"]), int(r["message_id"])) for r in rows]

    async def last_post(self, game_id: int) -> tuple[int, DeliveryRow] | None:
        """The game's latest post in its channel as whichever process sent it: its message and the delivery it was
        (a start's or a move's; an undo edits the post of the move it takes back, so that post stays the latest);
        ``None`` before the first post went out."""
        async with self._snapshot() as db:
            games = await db.fetch("SELECT last_message_id FROM games WHERE id = ?", game_id)
            rows = await db.fetch(
                f"""
                {DELIVERIES}
                WHERE game_id = ? AND kind IN ('move_post', 'start_post') AND done_at IS NOT NULL
                ORDER BY id DESC
                LIMIT 1
                """,
                game_id)
        if not games or games[0]["last_message_id"] is None or not rows:
            return None
        return int(games[0]["last_message_id"]), DeliveryRow.read(rows[0])

    async def sent_message(self, game_id: int, kind: str) -> tuple[int, DeliveryRow] | None:
        """The message the game's latest delivery of ``kind`` went out as (kept for later edits), and that delivery;
        ``None`` when none did."""
        rows = await self._fetch(
            f"""
            SELECT message_id, {', '.join(DELIVERY_COLUMNS)}
            FROM deliveries
            WHERE game_id = ? AND kind = ? AND message_id IS NOT NULL
            ORDER BY id DESC
            LIMIT 1
            """,
            game_id, kind)
        if not rows:
            return None
        row = dict(rows[0])
        return int(row.pop("message_id")), DeliveryRow.read(row)

    async def mark_delivered(self, delivery_id: int, *, now: float, error: str | None = None,
                             over_message_id: int | None = None, post_id: int | None = None,
                             edited_id: int | None = None, closed: Sequence[int] = ()) -> None:
        """The delivery is done: sent, or given up (``error`` says why).

        ``over_message_id``: it was the game-over post, sent as this message (recorded on its game in the same
        transaction); ``post_id``: a turn's or the start's post (the game's latest post); ``edited_id``: a DM with a
        turn's controls or a post with buttons, sent as this message (edited later); ``closed``: the deliveries it
        closed (turn DMs told that their turn passed, posts whose buttons it took off)."""
        async with self._write() as db:
            await db.execute(
                """
                UPDATE deliveries
                SET done_at = ?, attempts = attempts + 1, last_error = COALESCE(?, last_error),
                    message_id = COALESCE(?, message_id)
                WHERE id = ?
                """,
                now, error, edited_id, delivery_id)
            await db.executemany("UPDATE deliveries SET closed_at = ? WHERE id = ?", [(now, i) for i in closed])
            for column, value in (("over_message_id", over_message_id), ("last_message_id", post_id)):
                if value is not None:
                    await db.execute(
                        f"UPDATE games SET {column} = ? WHERE id = (SELECT game_id FROM deliveries WHERE id = ?)",
                        value, delivery_id)

    async def close_channel(self, channel_id: int, *, now: float, reason: str,
                            told: tuple[str, dict[str, Any]] | None = None, redrawn: str | None = None
                            ) -> dict[int, int]:
        """The channel is gone (deleted, or the bot left its server): its open games become ``abandoned`` (their
        timers cancelled) and its pending deliveries are given up with ``reason``, in one transaction; with ``told``
        (a delivery's kind and payload), each player whose DM still shows a turn of such a game is owed one; with
        ``redrawn`` (a delivery's kind), a lobby in a thread of its own (its message is in the parent channel) is
        owed one. Returns the games it abandoned: id -> new version."""
        async with self._write() as db:
            lobbies = [int(r["id"]) for r in await db.fetch(
                "SELECT id FROM games WHERE channel_id = ? AND status = 'lobby' AND parent_id IS NOT NULL",
                channel_id)] if redrawn is not None else []
            rows = await db.fetch(
                """
                UPDATE games
                SET status = 'abandoned', next_reminder_at = NULL, updated_at = ?, version = version + 1
                WHERE channel_id = ? AND status IN (?, ?)
                RETURNING id, version
                """,
                now, channel_id, *OPEN_STATUSES)
            await db.execute("UPDATE timers SET done_at = ? WHERE channel_id = ? AND done_at IS NULL", now, channel_id)
            await db.execute(
                "UPDATE deliveries SET done_at = ?, last_error = ? WHERE channel_id = ? AND done_at IS NULL",
                now, reason, channel_id)
            abandoned = {int(r["id"]): int(r["version"]) for r in rows}
            if told is not None and abandoned:
                await db.execute(
                    f"""
                    INSERT INTO deliveries (game_id, channel_id, seq, kind, user_id, payload, created_at, due_at)
                    SELECT game_id, channel_id, MAX(seq), ?, user_id, ?, ?, ?
                    FROM deliveries
                    WHERE game_id IN ({placeholders(abandoned)}) AND user_id IS NOT NULL AND message_id IS NOT NULL
                      AND closed_at IS NULL
                    GROUP BY game_id, channel_id, user_id
                    """,
                    told[0], dumps(told[1]), now, now, *abandoned)
            if lobbies:
                await add_deliveries_to(db, lobbies, now, [NewDelivery(str(redrawn), 0)])
        return abandoned

    async def deliveries_due(self, now: float) -> int:
        """Every pending delivery due at ``now`` (at start-up: no backoff carries over) but a held DM (due when its
        person's quiet hours end); how many."""
        return await self._execute(
            "UPDATE deliveries SET due_at = ? WHERE done_at IS NULL AND due_at > ? AND payload NOT LIKE ?",
            now, now, HELD_PATTERN)

    async def retry_delivery(self, delivery_id: int, *, due_at: float, error: str) -> None:
        """The delivery failed for a passing reason: due again at ``due_at`` (unless given up meanwhile)."""
        await self._execute(
            """
            UPDATE deliveries
            SET attempts = attempts + 1, due_at = ?, last_error = ?
            WHERE id = ? AND done_at IS NULL
            """,
            due_at, error, delivery_id)


async def add_deliveries(db: Db, game_id: int, now: float, deliveries: Sequence[NewDelivery]) -> None:
    """Inside a change's transaction: the posts and DMs it owes, due now."""
    await add_deliveries_to(db, [game_id], now, deliveries)


async def add_deliveries_to(db: Db, game_ids: Sequence[int], now: float, deliveries: Sequence[NewDelivery]) -> None:
    """Inside a transaction: the posts and DMs each of ``game_ids`` owes, due now."""
    if deliveries and game_ids:
        await db.executemany(
            """
            INSERT INTO deliveries (game_id, channel_id, seq, kind, user_id, payload, created_at, due_at)
            SELECT id, channel_id, ?, ?, ?, ?, ?, ?
            FROM games
            WHERE id = ?
            """,
            [(d.seq, d.kind, d.user_id, dumps(d.payload), now, now, game_id)
             for game_id in game_ids for d in deliveries])
