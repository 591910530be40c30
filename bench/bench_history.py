"""Benchmark: players' history with many finished games — ``stats`` and ``leaderboard`` answer times.

Run: ``python bench/bench_history.py [--games 10000] [--turns 100000] [--people 300] [--samples 300]
[--stores sqlite,postgres]``.
For each store (SQLite in a temp file; PostgreSQL on a throwaway local cluster when its binaries are installed)
it stores ``--games`` finished games of 2–4 of ``--people`` people in one server through the real final-move
write (``append_move`` with the results, which updates standings and openskill ratings in the same
transaction), then prints p50/p99 in milliseconds of:

* ``final``: the final move's write with its results and ratings;
* ``stats``: ``host.archive.stats`` of a random person (their results, ratings and rating history, and the numbers);
* ``board``: ``host.archive.leaderboard`` of a random page by rating, wins or games, with the caller's own row;
* ``chart``: the stats picture (``render.stats``) of a person's history;
* ``speed``: ``host.archive.turn_speed`` of a random person (how many turns, their median and 90th percentile) with
  ``--turns`` timed turns in the server (written straight into ``turn_times``, as the moves' writes leave them).

Goal: ``stats``, ``board`` and ``speed`` well under 1 s at p99 with 10,000 games and 100,000 timed turns (the
queries use indexes).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.host.host import Host
from bot.host.model import MoveRow
from bot.host.ratings import BOARDS, SeatResult
from bot.host.settings import Settings
from render.stats import render_stats
from tests import pgcluster

GUILD = 1
CARDS = ("sheep", "fish", "gold6", "wood", "connected", "trio", "eruption")




def quantiles(samples: list[float]) -> str:
    cuts = statistics.quantiles(samples, n=100)
    return f"{cuts[49] * 1000:>8.2f} {cuts[98] * 1000:>8.2f}"


async def finish_game(store: Any, rng: random.Random, number: int, people: int) -> float:
    """One finished game stored as the host stores its final move; the seconds the final write took."""
    n = rng.randint(2, 4)
    users = rng.sample(range(1, people + 1), n)
    computers = {rng.randrange(n)} if rng.random() < 0.2 else set()
    user_ids = [None if i in computers else u for i, u in enumerate(users)]
    seats = [{"user_id": u, "name": f"P{users[i]}"} for i, u in enumerate(user_ids)]
    game_id = await store.insert_game(channel_id=number % 500, guild_id=GUILD, opener_id=users[0], seats=seats,
                                      options={}, seed=number, status="running", locale="en", now=float(number))
    results = [SeatResult(guild_id=GUILD, game_id=game_id, seat=i, user_id=user_ids[i], name=f"P{users[i]}",
                          score=rng.randint(20, 90), rank=i + 1, players=n, with_computers=bool(computers),
                          finished_at=float(number), scoring_cards={rng.choice(CARDS): rng.randint(-3, 12)},
                          bird_chips=rng.randint(0, 9))
               for i in range(n)]
    start = time.perf_counter()
    await store.append_move(MoveRow(game_id, 1, 0, users[0], "pass", None, float(number)), results=results,
                            status="over")
    return time.perf_counter() - start


async def time_turns(store: Any, rng: random.Random, turns: int, people: int) -> None:
    """``turns`` timed turns of the server's people, a few seconds to days each."""
    rows = [(1_000_000 + number // 50, number % 50 + 1, GUILD, rng.randint(1, people), rng.lognormvariate(7, 1.5),
             float(number)) for number in range(turns)]
    async with store._write() as db:  # a bulk load, not a move
        for at in range(0, turns, 10_000):
            await db.executemany("INSERT INTO turn_times (game_id, seq, guild_id, user_id, seconds, moved_at)"
                                 " VALUES (?, ?, ?, ?, ?, ?)", rows[at:at + 10_000])


async def bench(kind: str, games: int, turns: int, people: int, samples: int) -> None:
    rng = random.Random(12)
    async with pgcluster.throwaway_store(kind) as store:
        final = [await finish_game(store, rng, number, people) for number in range(games)]
        await time_turns(store, rng, turns, people)
        host = Host(store, Settings())
        stats_times: list[float] = []
        board_times: list[float] = []
        chart_times: list[float] = []
        speed_times: list[float] = []
        for _ in range(samples):
            user = rng.randint(1, people)
            start = time.perf_counter()
            stats = await host.archive.stats(GUILD, user)
            stats_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            await host.archive.leaderboard(GUILD, user, rng.choice(BOARDS), rng.randint(0, people // 10))
            board_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            speed = await host.archive.turn_speed(GUILD, user)
            speed_times.append(time.perf_counter() - start)
            assert speed.turns > 0
            if stats is not None and len(chart_times) < 50:
                start = time.perf_counter()
                render_stats(stats.rating_history, stats.scores, titles=("Rating", "Score"))
                chart_times.append(time.perf_counter() - start)
        print(f"{kind:>9} {games:>7} {quantiles(final)} {quantiles(stats_times)} {quantiles(board_times)} "
              f"{quantiles(chart_times)} {quantiles(speed_times)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="finished games in the store")
    parser.add_argument("--turns", type=int, default=100_000, help="timed turns in the store")
    parser.add_argument("--people", type=int, default=300, help="people of the server")
    parser.add_argument("--samples", type=int, default=300, help="stats and leaderboard requests timed")
    parser.add_argument("--stores", default="sqlite,postgres", help="comma-separated: sqlite, postgres")
    args = parser.parse_args()
    print(f"{'store':>9} {'games':>7} {'final ms p50/p99':>17} {'stats ms p50/p99':>17} {'board ms p50/p99':>17} "
          f"{'chart ms p50/p99':>17} {'speed ms p50/p99':>17}")
    for kind in args.stores.split(","):
        if kind == "postgres" and pgcluster.missing_binaries():
            print(f"{kind:>9} skipped: {pgcluster.INSTALL_HINT}")
            continue
        asyncio.run(bench(kind, args.games, args.turns, args.people, args.samples))


if __name__ == "__main__":
    main()
