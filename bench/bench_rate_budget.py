"""Benchmark: the cost of the shared budget of requests to Discord (``bot.host.rate_budget``) on PostgreSQL.

Run: ``python bench/bench_rate_budget.py [--processes 2] [--rate 30] [--seconds 10] [--limit 50]``. On a throwaway
local cluster (``tests/pgcluster.py``), ``--processes`` budgets (each with its connection, as each bot process has
one) take tokens for requests arriving at ``--rate`` per second in all (Poisson arrivals, spread over the budgets),
then at three times the limit to saturate it. For each load it prints what a request pays and what Discord would see:

* ``take p50/p99``: time from a request's arrival to its token (the wait for the budget included);
* ``round trips``: reservations per request (a few tokens each) and the time of one;
* ``busiest second``: the most tokens granted within any one second (never above ``--limit``), and the rate granted.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.host.rate_budget import SharedBudget
from tests import pgcluster


def busiest_second(times: list[float]) -> int:
    times = sorted(times)
    most, first = 0, 0
    for last, at in enumerate(times):
        while times[first] <= at - 1.0:
            first += 1
        most = max(most, last - first + 1)
    return most


async def load(url: str, processes: int, rate: float, seconds: float, limit: int) -> str:
    """Requests arriving at ``rate`` per second for ``seconds`` over ``processes`` budgets; one line of figures."""
    budgets = [await SharedBudget.open(url, limit) for _ in range(processes)]
    loop = asyncio.get_running_loop()
    rng = random.Random(1)
    waits: list[float] = []
    granted: list[float] = []

    async def request(budget: SharedBudget) -> None:
        arrived = loop.time()
        await budget.take()
        granted.append(loop.time())
        waits.append(loop.time() - arrived)

    tasks = []
    start = loop.time()
    at = start
    while at < start + seconds:
        at += rng.expovariate(rate)
        await asyncio.sleep(max(0.0, at - loop.time()))
        tasks.append(loop.create_task(request(budgets[len(tasks) % processes])))
    await asyncio.gather(*tasks)
    elapsed = loop.time() - start
    trips = sum(b.reservations for b in budgets)
    trip_ms = 1000 * sum(b.reserving for b in budgets) / max(1, trips)
    for budget in budgets:
        await budget.close()
    ms = [1000 * w for w in waits]
    p99 = statistics.quantiles(ms, n=100)[98]
    return (f"budget x{processes} at {rate:g}/s: take p50 {statistics.median(ms):.2f} ms, p99 {p99:.1f} ms; "
            f"{trips / len(waits):.2f} round trips per request ({trip_ms:.2f} ms each); busiest second "
            f"{busiest_second(granted)} of {limit}, {len(granted) / elapsed:.1f} granted/s")


async def run(args: argparse.Namespace) -> None:
    with pgcluster.cluster() as url:
        for rate in (args.rate, 3.0 * args.limit):
            print(await load(url, args.processes, rate, args.seconds, args.limit), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--rate", type=float, default=30.0, help="requests per second in all (default 30)")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--limit", type=int, default=50, help="GLOBAL_RATE_LIMIT (default 50)")
    args = parser.parse_args()
    if pgcluster.missing_binaries():
        print(f"skipped: {pgcluster.INSTALL_HINT}")
        return
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
