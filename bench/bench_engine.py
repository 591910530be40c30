"""Benchmark: full random games per second and moves per second for 2, 3 and 4 players (one core).

Run: ``python bench/bench_engine.py [--games N] [--repeats R]``. Legal-move generation is included: every
move is drawn at random from ``Game.legal_moves()`` and applied with ``Game.apply()``. Each player count
is timed ``R`` times; the best run and the median are shown (on a busy machine the best is the engine's
speed, the median how much the others got in the way; ``--clock cpu`` counts only this process's own CPU
time, which waiting for a busy core does not inflate). ``calls/move`` counts the function calls (Python and
built-in) per move, by cProfile over the first games: a figure that does not depend on the machine's load.
Goal: at least 1,000 full 4-player random games per second.

``--state`` times instead what the bot and the computer players do with a position (the bot's views, its
snapshots, the searches' copies): ``Game.view`` of the public and of a seat, ``to_json``, ``from_json`` and
``clone``, over positions every tenth move of ``--games`` seeded 4-player random games (the later ones have a
long log, whose entries carry their moves' events); microseconds per call, best and median run, and calls per
call (cProfile, load-independent).
"""

from __future__ import annotations

import argparse
import cProfile
import random
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

from engine import Game, new_game


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


def random_positions(games: int) -> Iterator[Game]:
    """Every position of ``games`` seeded 4-player random games, from the deal to the end: one game per seed, moved
    on after each yield (clone what is kept)."""
    for seed in range(games):
        game = new_game(["P0", "P1", "P2", "P3"], seed)
        rng = random.Random(seed)
        yield game
        while game.to_move is not None:
            game.apply(rng.choice(game.legal_moves()))
            yield game


def positions(games: int) -> list[Game]:
    """Positions every tenth move of seeded 4-player random games, the final one included."""
    return [game.clone() for game in random_positions(games)
            if game.log and (len(game.log) % 10 == 0 or game.to_move is None)]


STATE_OPS: dict[str, Callable[[Game, str], object]] = {
    "view(None)": lambda game, _text: game.view(None),
    "view(seat)": lambda game, _text: game.view(0),
    "to_json": lambda game, _text: game.to_json(),
    "to_json 2": lambda game, _text: game.to_json(),
    "from_json": lambda _game, text: Game.from_json(text),
    "clone": lambda game, _text: game.clone(),
}


def _time_op(name: str, op: Callable[[Game, str], object], texts: list[str], games: list[Game],
             clock: Callable[[], Any], stop: Callable[[], Any] | None = None) -> float:
    """The time ``op`` takes over every position (``to_json``: on games just loaded); ``stop`` ends the timing
    started by ``clock`` (a profiler's ``enable`` and ``disable``)."""
    if name == "to_json":
        games = [Game.from_json(text) for text in texts]
    start = clock()
    for game, text in zip(games, texts, strict=True):
        op(game, text)  # each result dropped at once, as the bot does
    end = (stop or clock)()
    return (end or 0.0) - (start or 0.0)


def bench_state(games: int, repeats: int, clock: Callable[[], float]) -> None:
    """Microseconds per call of each operation of :data:`STATE_OPS` over :func:`positions`. ``to_json`` runs on
    games just loaded (nothing of theirs serialized yet), ``to_json 2`` on games serialized before (as the bot saves
    a game after each of its moves)."""
    games_at = positions(games)
    texts = [game.to_json() for game in games_at]
    print(f"{'operation':>10} {'positions':>9} {'us best':>8} {'median':>7} {'calls/op':>9}")
    for name, op in STATE_OPS.items():
        times: list[float] = []
        for _ in range(repeats):
            times.append(_time_op(name, op, texts, games_at, clock) / len(texts) * 1e6)
        profile = cProfile.Profile()
        _time_op(name, op, texts, games_at, profile.enable, profile.disable)
        calls = sum(entry.callcount for entry in profile.getstats()) / len(texts)
        print(f"{name:>10} {len(texts):>9} {min(times):>8.1f} {statistics.median(times):>7.1f} {calls:>9.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per player count and run (default 1000)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per player count (default 5)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="time.perf_counter (default) or this process's CPU time, time.process_time")
    parser.add_argument("--players", type=int, nargs="*", default=[2, 3, 4], help="player counts (default 2 3 4)")
    parser.add_argument("--call-games", type=int, default=100, help="games counted for calls/move (0: skip)")
    parser.add_argument("--state", action="store_true",
                        help="time views, JSON and clones of positions instead of whole games (--games: 50 is plenty)")
    args = parser.parse_args()
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    if args.state:
        bench_state(args.games, args.repeats, clock)
        return
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
