"""Speed of the computer players: expert playouts per second and greedy moves per second.

Run with ``python bench/bench_ai.py [--seconds 1.0]``. Positions come from greedy self-play on the
project's island (2, 3 and 4 players, both rounds).
"""

from __future__ import annotations

import argparse
import time

from engine import Game, new_game
from engine.ai import GreedyPlayer, greedy_move, search


def positions(players: int, seed: int, every: int = 6) -> list[Game]:
    """Every ``every``-th position of a greedy self-play game."""
    game = new_game([f"P{i}" for i in range(players)], seed)
    out = []
    k = 0
    while not game.is_over():
        if k % every == 0 and len(game.legal_moves()) > 1:
            out.append(game.clone())
        game.apply(greedy_move(game))
        k += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=1.0, help="expert thinking time per position")
    ap.add_argument("--positions", type=int, default=4, help="expert positions per player count")
    args = ap.parse_args()
    for n in (2, 3, 4):
        pos = positions(n, 10 + n)
        # Greedy straight on the game (what playouts use) and through a view (what the bot uses).
        start = time.perf_counter()
        count = 0
        while time.perf_counter() - start < 1.0:
            for g in pos:
                greedy_move(g)
                count += 1
        direct = count / (time.perf_counter() - start)
        views = [g.view(g.to_move) for g in pos]
        player = GreedyPlayer()
        start = time.perf_counter()
        count = 0
        while time.perf_counter() - start < 1.0:
            for v in views:
                player.choose(v)
                count += 1
        via_view = count / (time.perf_counter() - start)
        picks = pos[:: max(1, len(pos) // args.positions)][: args.positions]
        playouts = 0
        spent = 0.0
        for g in picks:
            view = g.view(g.to_move)
            start = time.perf_counter()
            # Racing would stop early once one candidate is clearly best: z=inf keeps them all running.
            result = search(view, seed=1, budget=args.seconds, z=float("inf"))
            spent += time.perf_counter() - start
            playouts += result.playouts
        print(f"{n} players: greedy {direct:,.0f} moves/s on a game, {via_view:,.0f} moves/s from a view; "
              f"expert {playouts / spent:,.0f} playouts/s ({playouts} in {spent:.1f} s over {len(picks)} positions)")


if __name__ == "__main__":
    main()
