"""Benchmark: the stores under the host — per-move store latency and start-up with many running games.

Run: ``python bench/bench_store.py [--games 1000] [--moves 400] [--stores sqlite,postgres]``. For each store
(SQLite in a temp file; PostgreSQL on a throwaway local cluster, see ``tests/pgcluster.py``, when its server
binaries are installed) it prints:

* ``append p50/p99``: one move and the game's new state written in one transaction (``Store.append_move``),
  the write every move waits for;
* ``start-up``: ``Host.load()`` with ``--games`` running games of 30 moves each in the database — the time
  before the bot can answer its first interaction (goal: well under 3 s). ``first start`` is the first one
  after the games were stored without their stale timers and without whose move each waits for (as an upgrade
  from an older bot finds them): it reads every game, sets them, once; ``start-up s`` is every start after that,
  which reads only the games that owe work (``games``: how many it read; none here). ``bench_scale.py`` measures
  the bot on 10,000 open games.
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
from bot.host.settings import Settings
from engine import new_game
from tests import pgcluster

NAMES = ["Ada", "Bo", "Cy"]
MOVES_PER_GAME = 30


def seats() -> list[dict[str, Any]]:
    return [{"user_id": 1000 + i, "name": n, "strength": None, "away": False, "reminded_at": None}
            for i, n in enumerate(NAMES)]


def played(seed: int, count: int) -> tuple[list[str], list[str]]:
    """``count`` random moves of a seeded 3-player game and the state after each."""
    game, rng = new_game(NAMES, seed), random.Random(seed)
    moves, states = [], []
    for _ in range(count):
        if game.to_move is None:
            break
        move = str(rng.choice(game.legal_moves()))
        game.apply(move)
        moves.append(move)
        states.append(game.to_json())
    return moves, states




async def add_game(store: Any, channel: int, seed: int, moves: list[str], states: list[str]) -> int:
    options = {"draft": False, "locale": "en", "reminder_hours": 12.0, "away_hours": 48.0}
    game_id: int = await store.insert_game(channel_id=channel, guild_id=1, opener_id=1000, seats=seats(),
                                           options=options, seed=seed, status="lobby", locale="en", now=0.0)
    await store.update_game(game_id, now=0.0, status="running", state=new_game(NAMES, seed).to_json())
    for seq, (move, state) in enumerate(zip(moves, states, strict=True), start=1):
        await store.append_move(MoveRow(game_id, seq, 0, 1000, move, None, float(seq)), state=state,
                                last_move_at=float(seq))
    return game_id


async def append_latencies(store: Any, appends: int) -> list[float]:
    """Seconds each of ``appends`` moves took to store (``append_move``), whole games one after another in one
    channel of an empty store."""
    latencies: list[float] = []
    seed = 0
    while len(latencies) < appends:
        seed += 1
        moves, states = played(seed, appends - len(latencies))
        game_id = await store.insert_game(channel_id=1, guild_id=1, opener_id=1000, seats=seats(),
                                          options={"draft": False, "locale": "en"}, seed=seed,
                                          status="running", locale="en", now=0.0)
        for seq, (move, state) in enumerate(zip(moves, states, strict=True), start=1):
            start = time.perf_counter()
            await store.append_move(MoveRow(game_id, seq, 0, 1000, move, None, float(seq)), state=state,
                                    last_move_at=float(seq))
            latencies.append(time.perf_counter() - start)
        await store.update_game(game_id, now=1.0, status="over")
    return latencies


async def bench(kind: str, games: int, appends: int) -> None:
    async with pgcluster.throwaway_store(kind) as store:
        latencies = await append_latencies(store, appends)
        cuts = statistics.quantiles(latencies, n=100)
        template = [played(seed, MOVES_PER_GAME) for seed in range(20)]
        for number in range(games):
            await add_game(store, 10 + number, number % 20, *template[number % 20])
        times = []
        for _ in range(2):  # the first start also sets the stale timers of games stored without them, once
            host = Host(store, Settings())
            start = time.perf_counter()
            loaded = await host.load()
            times.append(time.perf_counter() - start)
        print(f"{kind:>9} {len(latencies):>8} {cuts[49] * 1000:>9.2f} {cuts[98] * 1000:>9.2f} "
              f"{len(loaded):>7} {times[0]:>12.2f} {times[1]:>10.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="running games in the database at start-up")
    parser.add_argument("--moves", type=int, default=400, help="moves appended for the latency figures")
    parser.add_argument("--stores", default="sqlite,postgres", help="comma-separated: sqlite, postgres")
    args = parser.parse_args()
    print(f"{'store':>9} {'appends':>8} {'p50 ms':>9} {'p99 ms':>9} {'games':>7} {'first start':>12} "
          f"{'start-up s':>10}")
    for kind in args.stores.split(","):
        if kind == "postgres" and pgcluster.missing_binaries():
            print(f"{kind:>9} skipped: {pgcluster.INSTALL_HINT}")
            continue
        asyncio.run(bench(kind, args.games, args.moves))


if __name__ == "__main__":
    main()
