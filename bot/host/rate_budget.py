"""One budget of requests to Discord for every process of the bot, and the gateway's session starts, coordinated
through the PostgreSQL database the processes share.

Discord's global rate limit is the bot's, not a process's: 50 requests per second (``GLOBAL_RATE_LIMIT``) for all
its processes together. Each process runs its own discord.py, which knows only its own requests, so two processes
that each believe they have the whole budget draw 429s, and 10,000 of those (with 401s and 403s) in ten minutes
get the bot's address banned for a while. Here every request takes a token first (the adapter asks,
:mod:`bot.adapter.rate_limits`), and the tokens are counted in one table:

* **Slots.** Time is cut in slots of 1/:data:`SLOTS_PER_SECOND` s (by the database's clock, so the machines' clocks
  need not agree); the table counts the requests granted in each. A grant in the current slot is allowed while the
  last :data:`SPAN` slots (1.25 s) hold fewer than the limit. A request is sent within its slot, and reaches Discord
  within a slot's length after that (network and scheduling), so any second of arrivals meets at most :data:`SPAN`
  consecutive slots: never more than the limit in any second, however Discord counts its second. Sustained, that is
  4/5 of the limit (40 requests per second); a burst may take the whole limit at once.
* **Batches.** One call of :data:`TAKE_FUNCTION` (one round trip, atomic under an advisory lock, by the database's
  clock) reserves the tokens for every request waiting in the process, and a few more while the window is under 3/4
  of the limit (:data:`BATCH`); tokens not spent within their slot are given back with the next call, so reserving
  ahead costs the others little. ``bench/bench_rate_budget.py`` measures the cost per request.
* **Priority.** Turn DMs and posts (:attr:`Priority.POST`, every request unless the adapter says otherwise) go before
  the posts and DMs left owed from before this process started (:attr:`Priority.CATCH_UP`: late already, they should
  not make the moves being played now late too), and those before cosmetic edits (:attr:`Priority.COSMETIC`: buttons
  taken off old posts, "Turn played" DM edits, *Undo* marks): within a process the waiting requests get the tokens in
  that order, and across processes a catch-up request is granted only while the window is below
  :data:`CATCH_UP_SHARE` of the limit, a cosmetic one below :data:`COSMETIC_SHARE`, so the rest is left to posts when
  it is tight. A reservation is made for every request waiting, under the cap of the most urgent one: the edits
  waiting beside a post go with it (a channel's outbox sends its "Turn played" edits in order with its posts and DMs,
  so edits held under their share would hold the posts behind them).
* **A token is spent in its slot.** A waiting request is handed its token by the budget's task; when the busy event
  loop lets the request go on only more than a slot later, its slot is over (its grant may have left room for
  others since, and it would reach Discord with theirs), so it takes another (first among its priority), counted
  where it really goes. The same when the request has its connection only more than a slot after its token (one had
  to be made or waited for: :meth:`Budget.spend`, which the adapter calls once the connection is there).
* **Late requests widen the window.** A request whose headers left later than a slot after its first token (the
  adapter measures it, :meth:`Budget.left_late`) widens the window by as much for :data:`LATE_MEMORY` seconds (to
  :data:`MAX_SPAN` at most): a busy moment that held one request back may have held others, granted in turn and
  now sent together, which a second token for the one does not cover.
* **If the database does not answer** (within :data:`TAKE_TIMEOUT`), requests go out without a token until it
  answers again, metered by discord.py alone (logged once per outage).
* **One process** (SQLite) meters its requests the same way in memory (:class:`LocalBudget`): discord.py alone waits
  only after Discord answered 429, so the requests of a burst would each draw one first.

**Session starts.** Shards whose ``shard_id % max_concurrency`` are equal may IDENTIFY once per 5 seconds, across
all processes (Discord answers an IDENTIFY too soon with an Invalid Session). :class:`SharedIdentifyTurns` hands out
turns in a table, 5 s apart (and :data:`IDENTIFY_MARGIN` more), one round trip each; :class:`LocalIdentifyTurns`
does the same in memory for one process (SQLite).

The tables and the function are made by the first process that opens the budget (under an advisory lock), as
UNLOGGED tables: they hold the last second's counts, not the games' data, so they are outside the schema's
migrations (:mod:`bot.host.schema`), never copied by ``santacruz-bot migrate`` and worth no write-ahead log.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import math
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Final

from bot.host import metrics
from bot.host.errors import StoreError
from bot.host.priority import Priority

if TYPE_CHECKING:
    import asyncpg

log = logging.getLogger(__name__)

SLOTS_PER_SECOND: Final = 8
SLOT: Final = 1 / SLOTS_PER_SECOND
"""A slot's length in seconds: how long after its token a request may still go out within what its grant allowed."""
SPAN: Final = SLOTS_PER_SECOND + 2
"""The slots a grant looks back over: a second of arrivals, plus a slot for sending late and one for arriving late."""
LATE_MEMORY: Final = 10.0
"""Seconds a request that left late (:meth:`Budget.left_late`) widens the window for."""
MAX_SPAN: Final = 2 * SLOTS_PER_SECOND + 2
"""The widest window: at least half the limit a second goes out, however late requests leave."""
BATCH: Final = 4
"""Tokens reserved by one round trip when fewer requests wait and the window is under 3/4 full (a move's post, its
DMs and edits come together); those not spent within their slot are given back with the next round trip."""
CATCH_UP_SHARE: Final = 0.8
"""The part of the limit the deliveries left from before a start may fill; the rest is kept for posts and DMs."""
COSMETIC_SHARE: Final = 0.6
"""The part of the limit cosmetic edits may fill; the rest is kept for posts and DMs."""
TAKE_TIMEOUT: Final = 1.0
"""Seconds a reservation may take before the database counts as not answering."""
IDENTIFY_SPACING: Final = 5.0
"""Seconds between two IDENTIFYs of the same ``shard_id % max_concurrency`` key (Discord's)."""
IDENTIFY_MARGIN: Final = 0.5
"""Added to the spacing: a process may send its IDENTIFY a little after its turn, the next one exactly at its own."""
LOCK_KEY: Final = 0x5A17C3
"""The advisory lock under which tokens are granted and the tables made (any constant shared by every process)."""
TAKE_FUNCTION: Final = "santacruz_discord_tokens"

SCHEMA: Final = (
    "CREATE UNLOGGED TABLE IF NOT EXISTS discord_budget (slot BIGINT PRIMARY KEY, used INTEGER NOT NULL)",
    "CREATE UNLOGGED TABLE IF NOT EXISTS discord_identify (key INTEGER PRIMARY KEY, turn DOUBLE PRECISION NOT NULL)",
    f"""CREATE OR REPLACE FUNCTION {TAKE_FUNCTION}(wanted INTEGER, extra INTEGER, cap INTEGER, per_second INTEGER,
                                                   span INTEGER, returned_slot BIGINT, returned INTEGER)
    RETURNS TABLE (granted INTEGER, granted_slot BIGINT, server_time DOUBLE PRECISION, slot_end DOUBLE PRECISION,
                   retry_at DOUBLE PRECISION)
    LANGUAGE plpgsql AS $$
    DECLARE
        slot_now BIGINT;
        recent BIGINT;
        oldest BIGINT;
    BEGIN
        PERFORM pg_advisory_xact_lock({LOCK_KEY});  -- one grant at a time; released when the call's statement ends
        IF returned > 0 THEN  -- tokens of an ended slot that were never spent: no request went with them
            UPDATE discord_budget b SET used = greatest(0, b.used - returned) WHERE b.slot = returned_slot;
        END IF;
        server_time := extract(epoch FROM clock_timestamp());  -- after the lock: the slot the grant is really in
        slot_now := floor(server_time * per_second)::BIGINT;
        SELECT coalesce(sum(b.used), 0), min(b.slot) INTO recent, oldest FROM discord_budget b
            WHERE b.slot > slot_now - span AND b.slot <= slot_now AND b.used > 0;
        granted := greatest(0, least(wanted, cap - recent))::INTEGER;
        IF granted = wanted AND recent + granted + extra <= cap * 3 / 4 THEN
            granted := granted + extra;  -- room enough: a few more for the requests that follow (given back unspent)
        END IF;
        IF granted > 0 THEN
            INSERT INTO discord_budget AS b (slot, used) VALUES (slot_now, granted)
                ON CONFLICT (slot) DO UPDATE SET used = b.used + excluded.used;
        END IF;
        IF slot_now % 64 = 0 THEN  -- past any process's window, however wide (MAX_SPAN)
            DELETE FROM discord_budget b WHERE b.slot <= slot_now - 64;
        END IF;
        granted_slot := slot_now;
        slot_end := (slot_now + 1)::DOUBLE PRECISION / per_second;
        -- none granted: the window has room again once its oldest slot drops out of it
        retry_at := CASE WHEN granted = 0 THEN (oldest + span)::DOUBLE PRECISION / per_second ELSE slot_end END;
        RETURN NEXT;
    END $$""",
)
"""The budget's tables and its one function (PostgreSQL's words)."""

IDENTIFY_TURN: Final = """INSERT INTO discord_identify AS i (key, turn)
    VALUES ($1, extract(epoch FROM clock_timestamp()))
    ON CONFLICT (key) DO UPDATE SET turn = greatest(i.turn + $2, extract(epoch FROM clock_timestamp()))
    RETURNING turn, extract(epoch FROM clock_timestamp()) AS server_time"""
"""A key's next IDENTIFY turn: now if its last was long enough ago, else the spacing after it (atomic: the row is
locked while it is updated, so two processes asking together get turns a spacing apart)."""


def caps(limit: int) -> dict[Priority, int]:
    """How full the window may be for a request of each priority to be granted."""
    return {Priority.POST: limit, Priority.CATCH_UP: max(1, math.floor(limit * CATCH_UP_SHARE)),
            Priority.COSMETIC: max(1, math.floor(limit * COSMETIC_SHARE))}


def _asyncpg() -> Any:
    try:
        import asyncpg
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise StoreError('PostgreSQL needs asyncpg: pip install -e ".[postgres]"') from exc
    return asyncpg


APPLICATION_NAME: Final = "santacruz discord budget"
"""What the budget's connections are called in ``pg_stat_activity``."""


async def _connect(url: str) -> asyncpg.Connection:
    """A connection of the budget's own, with its tables and function made if they are not yet."""
    asyncpg = _asyncpg()
    conn = await asyncpg.connect(url, server_settings={"application_name": APPLICATION_NAME})
    try:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", LOCK_KEY)
            for statement in SCHEMA:
                await conn.execute(statement)
    except BaseException:
        await conn.close()
        raise
    return conn


class Budget(ABC):
    """The requests of one process waiting for tokens, highest priority first, and the tokens it holds, whoever
    grants them (:meth:`_reserve`: the database for :class:`SharedBudget`, this process for :class:`LocalBudget`).
    ``await budget.take(priority)`` before each request; ``close()``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._caps = caps(limit)
        self._tokens = 0
        self._until = 0.0
        """Loop time until which the tokens held may be spent (the end of their slot)."""
        self._slot = 0
        """The slot the tokens held were granted in."""
        self._waiting: list[tuple[int, int, asyncio.Future[float]]] = []
        """(priority, order, future) of the requests waiting: the future's result is the loop time its token was
        handed out (``math.inf`` when it goes without one: unmetered, or the budget closed)."""
        self._order = itertools.count()
        self._filling: asyncio.Task[None] | None = None
        self._unmetered_until = 0.0
        self._late: list[tuple[float, float]] = []
        """(when, seconds) of the requests that left more than a slot after their token, the last
        :data:`LATE_MEMORY` seconds."""
        self.granted = 0
        """Tokens granted so far."""

    def left_late(self, seconds: float) -> None:
        """A request went out ``seconds`` after its token was granted (the adapter measures it): later than a slot,
        the window widens by as much for a while, so that the requests of a second granted in turn, and sent
        together after a busy moment, still keep under the limit."""
        if seconds > SLOT:
            self._late.append((asyncio.get_running_loop().time(), seconds))

    def span(self) -> int:
        """The slots a grant looks back over now: :data:`SPAN`, plus the longest recent lateness
        (at most :data:`MAX_SPAN`)."""
        if not self._late:
            return SPAN
        now = asyncio.get_running_loop().time()
        self._late = [(at, late) for at, late in self._late if at > now - LATE_MEMORY]
        late = max((late for _, late in self._late), default=0.0)
        return min(MAX_SPAN, SPAN + math.ceil(late * SLOTS_PER_SECOND))

    async def close(self) -> None:
        if self._filling is not None:
            self._filling.cancel()
        for _, _, future in self._waiting:
            if not future.done():
                future.set_result(math.inf)  # let go: nothing meters them any more
        self._waiting.clear()

    async def take(self, priority: Priority = Priority.POST) -> None:
        """Wait for a token of the budget (in the order of :class:`Priority`), then return: the request may go now.
        A request the event loop lets go on more than a slot after its token was handed out takes another."""
        loop = asyncio.get_running_loop()
        asked = loop.time()
        order = next(self._order)
        try:
            while True:
                now = loop.time()
                if not self._waiting and (now < self._unmetered_until or (self._tokens > 0 and now < self._until)):
                    if now >= self._unmetered_until:
                        self._tokens -= 1
                    return
                future: asyncio.Future[float] = loop.create_future()
                heapq.heappush(self._waiting, (int(priority), order, future))
                if self._filling is None or self._filling.done():
                    self._filling = loop.create_task(self._fill(), name="discord-budget")
                handed = await future
                if loop.time() - handed <= SLOT:
                    return
                metrics.BUDGET_RETAKEN.labels("resumed_late").inc()  # counted in a slot over, it would go in another
        finally:
            metrics.BUDGET_WAIT.labels(priority.name.lower()).observe(loop.time() - asked)

    async def spend(self, granted_at: float, priority: Priority) -> float:
        """A request that went on with its token at ``granted_at`` (the loop's time) is about to go out: when that
        was more than a slot ago (a connection had to be made or waited for first), its slot is over, and it takes
        another token first. The loop time its token now dates from."""
        loop = asyncio.get_running_loop()
        if loop.time() - granted_at <= SLOT:
            return granted_at
        metrics.BUDGET_RETAKEN.labels("connected_late").inc()
        await self.take(priority)
        return loop.time()

    async def _fill(self) -> None:
        """Hand tokens to the waiting requests, highest priority first, reserving more as needed, until none wait
        (should it fail, the requests waiting go unmetered rather than never)."""
        try:
            await self._hand_out()
        except Exception:
            log.exception("the Discord request budget failed: the requests waiting go out unmetered")
            self._release(len(self._waiting), metered=False)

    async def _hand_out(self) -> None:
        loop = asyncio.get_running_loop()
        while self._waiting:
            now = loop.time()
            if now < self._unmetered_until:
                self._release(len(self._waiting), metered=False)
                continue
            if self._tokens > 0 and now < self._until:
                self._release(min(self._tokens, len(self._waiting)))
                continue
            priority = Priority(self._waiting[0][0])
            try:
                granted, wait = await self._reserve(len(self._waiting), priority)
            except Exception as exc:  # the database is away: discord.py meters alone until it answers
                if self._unmetered_until < now:
                    log.warning("the Discord request budget cannot reach PostgreSQL (%s): requests go out unmetered "
                                "for a while", exc)
                self._unmetered_until = loop.time() + 1.0
                continue
            if granted == 0:
                await asyncio.sleep(wait)  # the window is full until its oldest slot drops out

    @abstractmethod
    async def _reserve(self, wanted: int, priority: Priority) -> tuple[int, float]:
        """Tokens granted for the current slot (held until it ends; the unspent ones of an ended slot given back), and
        how long until the window has room again when none were."""

    def _release(self, count: int, *, metered: bool = True) -> None:
        """Let ``count`` waiting requests go, highest priority first (spending a token each when ``metered``); a
        request no longer waiting (cancelled) is passed over and spends none."""
        while count > 0 and self._waiting:
            _, _, future = heapq.heappop(self._waiting)
            if future.done():
                continue
            if metered:
                self._tokens -= 1
            future.set_result(asyncio.get_running_loop().time() if metered else math.inf)  # unmetered: never late
            count -= 1


class LocalBudget(Budget):
    """The bot's requests to Discord metered in one process (SQLite: the only process), with the slots, window and
    priorities of the shared budget counted in memory by the event loop's clock. discord.py alone waits only once
    Discord has answered 429, so the requests of a burst (a start that looks for many messages, a wave of
    deliveries) would all draw one."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self._used: dict[int, int] = {}
        """Slot -> tokens granted in it, for the slots of the window."""

    async def _reserve(self, wanted: int, priority: Priority) -> tuple[int, float]:
        now = asyncio.get_running_loop().time()
        slot_now = math.floor(now * SLOTS_PER_SECOND)
        if self._tokens > 0 and self._slot in self._used:  # not spent within their slot: no request went with them
            self._used[self._slot] = max(0, self._used[self._slot] - self._tokens)
        self._tokens = 0
        span = self.span()
        for slot in [slot for slot in self._used if slot <= slot_now - MAX_SPAN]:
            del self._used[slot]
        recent = sum(used for slot, used in self._used.items() if slot > slot_now - span)
        granted = max(0, min(wanted, self._caps[priority] - recent))
        if granted:
            self.granted += granted
            self._used[slot_now] = self._used.get(slot_now, 0) + granted
            self._tokens, self._slot = granted, slot_now
            self._until = (slot_now + 1) / SLOTS_PER_SECOND
            return granted, 0.0
        oldest = min((slot for slot, used in self._used.items() if used > 0 and slot > slot_now - span),
                     default=slot_now)
        return 0, max(SLOT / 4, (oldest + span) / SLOTS_PER_SECOND - now)


class SharedBudget(Budget):
    """The bot's requests to Discord, metered for all its processes through PostgreSQL (see the module docstring).
    ``await SharedBudget.open(url, limit)``; ``await budget.take(priority)`` before each request; ``close()``."""

    def __init__(self, url: str, limit: int, conn: asyncpg.Connection) -> None:
        super().__init__(limit)
        self.url = url
        self._conn: asyncpg.Connection | None = conn
        self.reservations = 0
        """Round trips to the database so far."""
        self.reserving = 0.0
        """Seconds those round trips took, together."""

    @classmethod
    async def open(cls, url: str, limit: int) -> SharedBudget:
        """The budget of ``limit`` requests per second on the database at ``url`` (a connection of its own)."""
        asyncpg = _asyncpg()
        try:
            conn = await _connect(url)
        except (OSError, asyncpg.PostgresError) as exc:
            raise StoreError(f"the Discord request budget cannot use PostgreSQL: {exc}") from exc
        return cls(url, limit, conn)

    async def close(self) -> None:
        await super().close()
        if self._conn is not None:
            conn, self._conn = self._conn, None
            await conn.close()

    async def _reserve(self, wanted: int, priority: Priority) -> tuple[int, float]:
        """One round trip: tokens granted for the current slot (held until it ends; the unspent ones of an ended slot
        given back), and how long until the window has room again when none were."""
        loop = asyncio.get_running_loop()
        asked = loop.time()
        row = await (await self._connection()).fetchrow(
            f"SELECT * FROM {TAKE_FUNCTION}($1, $2, $3, $4, $5, $6, $7)", wanted, max(0, BATCH - wanted),
            self._caps[priority], SLOTS_PER_SECOND, self.span(), self._slot, self._tokens, timeout=TAKE_TIMEOUT)
        self._tokens = 0
        answered = loop.time()
        self.reservations += 1
        self.reserving += answered - asked
        metrics.BUDGET_RESERVATIONS.inc()
        server_time = float(row["server_time"])
        granted = int(row["granted"])
        if granted:
            self.granted += granted
            self._tokens, self._slot = granted, int(row["granted_slot"])
            self._until = answered + max(0.0, float(row["slot_end"]) - server_time)
        return granted, max(0.0, float(row["retry_at"]) - server_time)

    async def _connection(self) -> asyncpg.Connection:
        """The budget's connection, made again if it was lost."""
        if self._conn is None or self._conn.is_closed():
            self._conn = await asyncio.wait_for(_connect(self.url), TAKE_TIMEOUT)
        return self._conn


class LocalIdentifyTurns:
    """IDENTIFY turns for the shards of one process (SQLite): each ``shard_id % max_concurrency`` key's IDENTIFYs
    :data:`IDENTIFY_SPACING` seconds apart, those of different keys at once."""

    def __init__(self) -> None:
        self._turns: dict[int, float] = {}

    async def wait(self, key: int) -> float:
        """Wait for the key's turn; the seconds waited."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        turn = max(now, self._turns.get(key, -math.inf) + IDENTIFY_SPACING + IDENTIFY_MARGIN)
        self._turns[key] = turn
        await asyncio.sleep(turn - now)
        return turn - now


class SharedIdentifyTurns:
    """IDENTIFY turns for the shards of every process, handed out by the database (see the module docstring)."""

    def __init__(self, url: str) -> None:
        self.url = url

    async def wait(self, key: int) -> float:
        """Wait for the key's turn, whichever process asks; the seconds waited. If the database does not answer, at
        once (Discord answers an IDENTIFY too soon with an Invalid Session, and discord.py identifies again)."""
        asyncpg = _asyncpg()
        try:
            conn = await _connect(self.url)
            try:
                row = await conn.fetchrow(IDENTIFY_TURN, key, IDENTIFY_SPACING + IDENTIFY_MARGIN)
            finally:
                await conn.close()
        except (OSError, asyncpg.PostgresError) as exc:
            log.warning("IDENTIFY turns cannot reach PostgreSQL (%s): identifying without waiting", exc)
            return 0.0
        wait = max(0.0, float(row["turn"]) - float(row["server_time"]))
        await asyncio.sleep(wait)
        return wait
