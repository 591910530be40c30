"""Benchmark: full random games per second and moves per second for 2, 3 and 4 players (one core).

Run: ``python bench/bench_engine.py [--games N] [--repeats R]``. Legal-move generation is included: every
move is drawn at random from ``Game.legal_moves()`` and applied with ``Game.apply()``. Each player count
is timed ``R`` times; the best run and the median are shown (on a busy machine the best is the engine's
speed, the median how much the others got in the way; ``--clock cpu`` counts only this process's own CPU
time, which waiting for a busy core does not inflate). ``calls/move`` counts the function calls (Python and
built-in) per move, by cProfile over the first games: a figure that does not depend on the machine's load.
Goal: at least 1,000 full 4-player random games per second.
"""

from __future__ import annotations

import argparse
import cProfile
import random
import statistics
import time

from engine import new_game


def play_random(n: int, seed: int) -> int:
    game = new_game([f"P{i}" for i in range(n)], seed)
    rng = random.Random(seed)
    moves = 0
    while game.to_move is not None:
        game.apply(rng.choice(game.legal_moves()))
        moves += 1
    return moves


def calls_per_move(n: int, games: int) -> float:
    """Function calls per move over ``games`` random games (deterministic for a given engine)."""
    profile = cProfile.Profile()
    profile.enable()
    moves = sum(play_random(n, seed) for seed in range(games))
    profile.disable()
    return sum(entry.callcount for entry in profile.getstats()) / moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per player count and run (default 1000)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per player count (default 5)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="time.perf_counter (default) or this process's CPU time, time.process_time")
    parser.add_argument("--players", type=int, nargs="*", default=[2, 3, 4], help="player counts (default 2 3 4)")
    parser.add_argument("--call-games", type=int, default=100, help="games counted for calls/move (0: skip)")
    args = parser.parse_args()
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    print(f"{'players':>7} {'games':>6} {'games/s best':>12} {'median':>7} {'moves/s best':>12} {'median':>7} "
          f"{'moves/game':>10} {'calls/move':>10}")
    for n in args.players:
        play_random(n, -1)  # warm-up
        rates: list[float] = []
        moves = 0
        for _ in range(args.repeats):
            start = clock()
            moves = sum(play_random(n, seed) for seed in range(args.games))
            rates.append(args.games / (clock() - start))
        length = moves / args.games
        best, median = max(rates), statistics.median(rates)
        calls = f"{calls_per_move(n, args.call_games):>10.1f}" if args.call_games else f"{'-':>10}"
        print(f"{n:>7} {args.games:>6} {best:>12.0f} {median:>7.0f} {best * length:>12.0f} {median * length:>7.0f} "
              f"{length:>10.1f} {calls}")


if __name__ == "__main__":
    main()
