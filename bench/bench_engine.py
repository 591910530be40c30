"""Benchmark: full random games per second and moves per second for 2, 3 and 4 players (one core).

Run: ``python bench/bench_engine.py [--games N] [--seconds S]``. Legal-move generation is included: every
move is drawn at random from ``Game.legal_moves()`` and applied with ``Game.apply()``.
Goal (issue 2): at least 200 full 4-player random games per second.
"""

from __future__ import annotations

import argparse
import random
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per player count (default 1000)")
    args = parser.parse_args()
    print(f"{'players':>7} {'games':>6} {'games/s':>9} {'moves/s':>9} {'moves/game':>10}")
    for n in (2, 3, 4):
        play_random(n, -1)  # warm-up
        start = time.perf_counter()
        moves = sum(play_random(n, seed) for seed in range(args.games))
        elapsed = time.perf_counter() - start
        rate, speed, length = args.games / elapsed, moves / elapsed, moves / args.games
        print(f"{n:>7} {args.games:>6} {rate:>9.0f} {speed:>9.0f} {length:>10.1f}")


if __name__ == "__main__":
    main()
