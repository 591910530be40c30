"""Benchmark of the game-over animation: ``.venv/bin/python bench/bench_replay.py [--games 3]``.

Plays seeded 4-player games of random computer players on the project's island, takes each game's
seed-free record (the deal and the moves, as ``/santacruz export`` writes it) and times turning it into
the animated replay the channel gets at game over (``bot.host.pictures.render_replay_record``: the views
replayed from the record, then the GIF). Prints, per game, its moves, the generation time and the GIF's
size, then the longest game's figures against Discord's 8 MiB limit.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import engine
from bot.host.pictures import render_replay_record
from engine.ai import choose_move

DISCORD_LIMIT = 8 * 1024 * 1024


def record_of(seed: int) -> dict[str, Any]:
    """The export record of a whole seeded 4-player game of random players."""
    game = engine.new_game(["Ada", "Björn", "Céline", "Đorđe"], seed)
    setup = game.setup_record()
    number = 0
    while game.to_move is not None:
        game.apply(choose_move(game.view(game.to_move), strength="random", seed=seed * 1000 + number, budget=0.1))
        number += 1
    return {"setup": setup, "moves": [{"seat": seat, "move": move} for seat, move in game.moves]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    args = parser.parse_args()
    render_replay_record(record_of(0), "en")  # warm the island's cached base picture
    results = []
    for seed in range(1, args.games + 1):
        record = record_of(seed)
        started = time.perf_counter()
        gif = render_replay_record(record, "en")
        seconds = time.perf_counter() - started
        moves = len(record["moves"])
        results.append((moves, seconds, len(gif)))
        print(f"game {seed}: {moves} moves, replay made in {seconds:.2f} s, {len(gif) / 2**20:.2f} MiB")
    moves, seconds, size = max(results)
    print(f"longest ({moves} moves): {seconds:.2f} s, {size / 2**20:.2f} MiB "
          f"({100 * size / DISCORD_LIMIT:.0f} % of Discord's 8 MiB)")


if __name__ == "__main__":
    main()
