"""The store's timers and leases (:class:`TimerSql`): every kind of "later" is a row of ``timers``, claimed by one
process when due (a claim is a lease that runs out with a dead process); a lease (``leases``) is work one process
holds at a time (a channel's outbox, a channel's computer players). The timers a change sets or cancels are written
with it (:func:`set_timers`, inside its transaction)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.host.change import Change
from bot.host.errors import VersionConflict
from bot.host.model import NewDelivery, NewTimer, TimerRow
from bot.host.sql.base import CHUNK, TIMER_COLUMNS, TIMERS, Db, SqlBase, dumps, placeholders


class TimerSql(SqlBase):
    """Timers (each run once by one process) and leases."""

    async def pending_timer_kinds(self, game_ids: Sequence[int]) -> dict[int, set[str]]:
        """Game id -> the kinds of its pending timers, for the games of ``game_ids`` (those without one left out)."""
        kinds: dict[int, set[str]] = {}
        ids = sorted(set(game_ids))
        async with self._read() as db:
            for start in range(0, len(ids), CHUNK):
                chunk = ids[start:start + CHUNK]
                rows = await db.fetch(
                    f"""
                    SELECT DISTINCT game_id, kind
                    FROM timers
                    WHERE done_at IS NULL AND game_id IN ({placeholders(chunk)})
                    """,
                    *chunk)
                for row in rows:
                    kinds.setdefault(int(row["game_id"]), set()).add(str(row["kind"]))
        return kinds

    async def due_timers(self, now: float, kinds: Sequence[str]) -> list[TimerRow]:
        """The pending timers of ``kinds`` due at ``now``, soonest first, read without claiming them."""
        rows = await self._fetch(
            f"""
            {TIMERS}
            WHERE done_at IS NULL AND due_at <= ? AND kind IN ({placeholders(kinds)})
            ORDER BY due_at, id
            """,
            now, *kinds)
        return [TimerRow.read(r) for r in rows]

    async def timers(self, game_id: int) -> list[TimerRow]:
        """A game's pending timers, soonest first."""
        rows = await self._fetch(f"{TIMERS} WHERE game_id = ? AND done_at IS NULL ORDER BY due_at, id", game_id)
        return [TimerRow.read(r) for r in rows]

    async def claim_timers(self, now: float, *, owner: str, lease: float, limit: int = 100,
                           kinds: Sequence[str] | None = None) -> list[TimerRow]:
        """The timers due at ``now`` that no live lease holds (only of ``kinds`` if given), leased to ``owner``
        until ``now + lease``: with several processes each timer is claimed by one; a dead process's claim
        expires."""
        of_kinds = "" if kinds is None else f"AND kind IN ({placeholders(kinds)})"
        rows = await self._fetch(
            f"""
            UPDATE timers
            SET lease_owner = ?, lease_until = ?
            WHERE id IN (
                SELECT id
                FROM timers
                WHERE done_at IS NULL AND due_at <= ? AND (lease_until IS NULL OR lease_until < ?) {of_kinds}
                ORDER BY due_at, id
                LIMIT ?{self.SKIP_LOCKED}
            )
            RETURNING {', '.join(TIMER_COLUMNS)}
            """,
            owner, now + lease, now, now, *(kinds or ()), limit, write=True)
        return sorted((TimerRow.read(r) for r in rows), key=lambda t: (t.due_at, t.id))

    async def finish_timer(self, timer_id: int, *, now: float, deliveries: Sequence[NewDelivery] = (),
                           timers: Sequence[NewTimer] = (), cancel_timers: Sequence[str] = (),
                           expect_version: int | None = None, **columns: Any) -> int | None:
        """``apply`` of a timer's firing (for tools and tests, which know only the timer): the game's new version,
        ``None`` if no column changed."""
        rows = await self._fetch("SELECT game_id FROM timers WHERE id = ?", timer_id)
        if not rows:
            raise VersionConflict(f"there is no timer {timer_id}")
        change = Change(columns, None, deliveries, timers, cancel_timers, timer=timer_id)
        return await self.apply(int(rows[0]["game_id"]), change, now=now, expect_version=expect_version)

    async def take_lease(self, name: str, owner: str, *, now: float, seconds: float) -> bool:
        """Hold the lease ``name`` (e.g. a channel's outbox) until ``now + seconds``, if it is free, expired or
        already ``owner``'s; whether ``owner`` holds it now."""
        rows = await self._fetch(
            """
            INSERT INTO leases (name, owner, until)
            VALUES (?, ?, ?)
            ON CONFLICT (name) DO UPDATE
            SET owner = excluded.owner, until = excluded.until
            WHERE leases.owner = excluded.owner OR leases.until < ?
            RETURNING owner
            """,
            name, owner, now + seconds, now, write=True)
        return bool(rows)

    async def release_lease(self, name: str, owner: str) -> None:
        """Give the lease up (only if ``owner`` holds it)."""
        await self._execute("DELETE FROM leases WHERE name = ? AND owner = ?", name, owner)

    async def lease_holder(self, name: str) -> str | None:
        """Who last held the lease ``name``, run out or not (``None``: nobody, or it was given up)."""
        rows = await self._fetch("SELECT owner FROM leases WHERE name = ?", name)
        return str(rows[0]["owner"]) if rows else None

    async def release_all(self, owner: str, *, keep: str | None = None) -> int:
        """Give up ``owner``'s leases (but those named ``keep``…) and timer claims in one transaction (it stops), so
        that another process may take the work over at once; how many leases were given up."""
        async with self._write() as db:
            released = await db.execute("DELETE FROM leases WHERE owner = ? AND name NOT LIKE ?", owner,
                                        f"{keep}%" if keep else "")
            await db.execute(
                """
                UPDATE timers
                SET lease_owner = NULL, lease_until = NULL
                WHERE lease_owner = ? AND done_at IS NULL
                """,
                owner)
            if self.NOTIFY_RELEASED is not None:  # delivered to the listeners when this transaction commits
                await db.fetch(self.NOTIFY_RELEASED, owner)
        return released


async def set_timers(db: Db, game_id: int, now: float, timers: Sequence[NewTimer], cancel: Sequence[str]) -> None:
    """Inside a change's transaction: cancel the game's pending timers of the kinds ``cancel``, then add
    ``timers``."""
    if cancel:
        await db.execute(
            f"""
            UPDATE timers
            SET done_at = ?
            WHERE game_id = ? AND done_at IS NULL AND kind IN ({placeholders(cancel)})
            """,
            now, game_id, *cancel)
    if timers:
        await db.executemany(
            """
            INSERT INTO timers (game_id, channel_id, kind, seat, user_id, payload, created_at, due_at)
            SELECT id, channel_id, ?, ?, ?, ?, ?, ?
            FROM games
            WHERE id = ?
            """,
            [(t.kind, t.seat, t.user_id, dumps(t.payload), now, t.due_at, game_id) for t in timers])


async def cancel_all_timers(db: Db, game_id: int, now: float) -> None:
    """Inside a transaction that ends a game (or quarantines it): its pending timers are cancelled with it."""
    await db.execute("UPDATE timers SET done_at = ? WHERE game_id = ? AND done_at IS NULL", now, game_id)
