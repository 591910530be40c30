"""The budget of requests to Discord (``bot.host.rate_budget``): one process's own (SQLite) never grants more than
the limit in any second and gives posts the tokens before the posts owed from before a start, and those before
cosmetic edits; the shared one on a real PostgreSQL: two budgets stand for two processes of one bot. Together they
never grant more than the limit in any second, they reserve tokens a few at a time, posts go before cosmetic edits
when the budget is tight (in one process and across processes), requests go unmetered while the database does not
answer, and the IDENTIFY turns of different ``shard_id % max_concurrency`` keys do not wait for each other."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator

import asyncpg
import pytest
import pytest_asyncio

from bot.host import metrics
from bot.host.priority import Priority
from bot.host.rate_budget import (
    APPLICATION_NAME,
    MAX_SPAN,
    SLOTS_PER_SECOND,
    SPAN,
    LocalBudget,
    SharedBudget,
    SharedIdentifyTurns,
    caps,
)

LIMIT = 20


@pytest_asyncio.fixture
async def budgets(pg_url: str) -> AsyncIterator[tuple[SharedBudget, SharedBudget]]:
    first, second = await SharedBudget.open(pg_url, LIMIT), await SharedBudget.open(pg_url, LIMIT)
    yield first, second
    await first.close()
    await second.close()


def most_in_a_second(times: list[float]) -> int:
    """The most of ``times`` that fall within any one second."""
    times = sorted(times)
    return max(sum(1 for t in times[i:] if t < start + 1.0) for i, start in enumerate(times))


async def test_one_process_s_own_budget_never_grants_more_than_the_limit_in_any_second() -> None:
    budget = LocalBudget(LIMIT)
    loop = asyncio.get_running_loop()
    granted: list[tuple[float, str]] = []

    async def request(priority: Priority, name: str) -> None:
        await budget.take(priority)
        granted.append((loop.time(), name))  # the request goes out now

    started = loop.time()
    tidy = [asyncio.create_task(request(Priority.COSMETIC, f"edit {i}")) for i in range(LIMIT)]
    late = [asyncio.create_task(request(Priority.CATCH_UP, f"owed {i}")) for i in range(LIMIT // 2)]
    posts = [asyncio.create_task(request(Priority.POST, f"post {i}")) for i in range(LIMIT)]
    await asyncio.gather(*tidy, *late, *posts)
    await budget.close()
    times = [when for when, _ in granted]
    assert LIMIT * 3 // 4 <= most_in_a_second(times) <= LIMIT
    assert loop.time() - started > 2.0  # 50 requests at 20 per second cannot all go at once
    names = [name.split()[0] for _, name in granted]
    # the edits waited first and went last; the posts owed from before a start gave way to the posts of now
    assert names == ["post"] * LIMIT + ["owed"] * (LIMIT // 2) + ["edit"] * LIMIT, names


async def test_requests_that_left_late_widen_the_window_for_a_while() -> None:
    """Sent half a second after their tokens (a busy event loop), the requests of a second granted in turn could reach
    Discord together: the window widens by as much, so that no 1.5 seconds of grants hold more than the limit."""
    budget = LocalBudget(LIMIT)
    loop = asyncio.get_running_loop()
    assert budget.span() == SPAN
    budget.left_late(0.05)  # within a slot: nothing to widen
    assert budget.span() == SPAN
    budget.left_late(0.5)
    assert budget.span() == SPAN + 4
    budget.left_late(9.0)
    assert budget.span() == MAX_SPAN  # never narrower than half the limit a second
    budget._late = [(loop.time(), 0.5)]
    granted: list[float] = []

    async def request() -> None:
        await budget.take()
        granted.append(loop.time())

    await asyncio.gather(*(request() for _ in range(2 * LIMIT)))
    await budget.close()
    granted.sort()
    assert max(sum(1 for t in granted[i:] if t < start + 1.5) for i, start in enumerate(granted)) <= LIMIT
    assert granted[-1] - granted[0] > 1.5


async def test_a_request_the_busy_loop_lets_go_on_after_its_slot_takes_another_token() -> None:
    """The budget's task hands a waiting request its token; when the event loop gets back to that request only after
    the token's slot is over (here: blocked for 0.3 s right after handing it out), the request takes another token,
    counted in the slot it really goes out in, instead of going with a token counted seconds before."""

    class Busy(LocalBudget):
        blocked = False

        def _release(self, count: int, *, metered: bool = True) -> None:
            super()._release(count, metered=metered)
            if not self.blocked:  # the loop is busy elsewhere before the request goes on
                self.blocked = True
                time.sleep(0.3)

    budget = Busy(LIMIT)
    late = metrics.BUDGET_RETAKEN.labels("resumed_late")._value.get()
    loop = asyncio.get_running_loop()
    await budget.take()
    went = loop.time()
    assert budget.granted == 2, "the token of a slot long over was not spent; another was taken"
    assert metrics.BUDGET_RETAKEN.labels("resumed_late")._value.get() == late + 1
    assert budget._slot == math.floor(went * SLOTS_PER_SECOND), "its token is counted in the slot it went in"
    await budget.take()  # handed out and let go on at once: no other token taken
    assert metrics.BUDGET_RETAKEN.labels("resumed_late")._value.get() == late + 1
    await budget.close()


async def test_two_processes_never_get_more_than_the_limit_in_any_second(
        budgets: tuple[SharedBudget, SharedBudget]) -> None:
    loop = asyncio.get_running_loop()
    granted: list[float] = []

    async def request(budget: SharedBudget) -> None:
        await budget.take()
        granted.append(loop.time())  # the request goes out now

    started = loop.time()
    await asyncio.gather(*(request(budgets[i % 2]) for i in range(LIMIT * 3 // 2)))
    assert most_in_a_second(granted) <= LIMIT
    assert most_in_a_second(granted) >= LIMIT * 3 // 4, "the budget was never pressed: the test shows nothing"
    assert loop.time() - started > 1.0  # 30 requests at 20 per second cannot all go at once
    reservations = budgets[0].reservations + budgets[1].reservations
    assert reservations < len(granted) / 2, f"{reservations} round trips for {len(granted)} requests"  # a few each


async def test_posts_go_before_cosmetic_edits_in_one_process(budgets: tuple[SharedBudget, SharedBudget]) -> None:
    budget = budgets[0]
    await asyncio.gather(*(budget.take() for _ in range(LIMIT)))  # the window is full
    done: list[str] = []

    async def request(priority: Priority, name: str) -> None:
        await budget.take(priority)
        done.append(name)

    tidy = [asyncio.create_task(request(Priority.COSMETIC, f"edit {i}")) for i in range(4)]
    await asyncio.sleep(0)  # the edits wait first
    posts = [asyncio.create_task(request(Priority.POST, f"post {i}")) for i in range(4)]
    await asyncio.gather(*tidy, *posts)
    assert done[:4] == [f"post {i}" for i in range(4)], done


async def test_a_cosmetic_edit_leaves_the_rest_of_a_tight_window_to_another_process_s_posts(
        budgets: tuple[SharedBudget, SharedBudget]) -> None:
    posting, tidying = budgets
    loop = asyncio.get_running_loop()
    await asyncio.gather(*(posting.take() for _ in range(caps(LIMIT)[Priority.COSMETIC] + 1)))  # 13 of 20 used
    started = loop.time()
    edit = asyncio.create_task(tidying.take(Priority.COSMETIC))
    await posting.take(Priority.POST)
    post_waited = loop.time() - started
    assert not edit.done(), "the edit took a token past the share of cosmetic edits"
    await edit
    assert post_waited < 0.5 < loop.time() - started  # the edit waited for the window to empty


async def test_shards_of_different_concurrency_keys_identify_at_once(pg_url: str) -> None:
    turns = SharedIdentifyTurns(pg_url)
    waited = await asyncio.gather(turns.wait(0), turns.wait(1), SharedIdentifyTurns(pg_url).wait(2))
    assert waited == [0.0, 0.0, 0.0]


async def test_requests_go_unmetered_while_the_database_does_not_answer(pg_url: str,
                                                                       caplog: pytest.LogCaptureFixture) -> None:
    budget = await SharedBudget.open(pg_url, 1)
    try:
        await budget.take()  # the window is full for 1.25 s
        killer = await asyncpg.connect(pg_url)
        await killer.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                             " WHERE datname = current_database() AND application_name = $1", APPLICATION_NAME)
        await killer.close()
        budget.url = "postgresql://santacruz@127.0.0.1:1/gone"  # and it cannot connect again
        loop = asyncio.get_running_loop()
        started = loop.time()
        await asyncio.wait_for(asyncio.gather(*(budget.take() for _ in range(5))), 5)
        assert loop.time() - started < 1.0
        assert [r.message for r in caplog.records if "unmetered" in r.message][:1], caplog.text
    finally:
        await budget.close()
