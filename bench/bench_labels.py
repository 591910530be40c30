"""Benchmark: the scoring cards' menu labels of a seat ("Gold (10) · now: you +6, Bo +10"), and its view.

Run: ``python bench/bench_labels.py [--games 30] [--repeats 5] [--clock cpu]``.

Over every position of ``--games`` seeded 4-player random games where the seat to move holds scoring cards in the
landing or play phase, it times in microseconds per position (best and median run, and function calls per
position by cProfile, a figure that does not depend on the machine's load):

* ``labels``: what the adapter does for the scoring menu and autocomplete once it has the seat's view
  (``bot.adapter.words.moves.scores_now`` and a ``score_label`` per card of the hand);
* ``view(seat)``: ``Game.view`` of the seat to move, which the adapter's labels read;
* ``view+labels``: both, as a DM's controls are built.
"""

from __future__ import annotations

import argparse
import cProfile
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_engine import random_positions
from bot.adapter.words.moves import score_label, scores_now
from engine import Game, View


def positions(games: int) -> list[Game]:
    """The positions of seeded 4-player random games where the seat to move holds scoring cards (land, play)."""
    return [game.clone() for game in random_positions(games) if _holds_scoring_cards(game)]


def _holds_scoring_cards(game: Game) -> bool:
    seat = game.to_move
    return game.phase in ("land", "play") and seat is not None and bool(game.hand_scoring[seat])


def labels(view: View) -> list[str]:
    """The labels of the seat's scoring cards, as the adapter's menus and autocomplete make them."""
    now = scores_now(view)
    return [score_label(view, card, "en", now) for card in view["you"]["scoring_cards"]]


def _seat_view(game: Game) -> View:
    seat = game.to_move
    assert seat is not None
    return game.view(seat)


OPS: dict[str, Callable[[Game, View], object]] = {
    "labels": lambda _game, view: labels(view),
    "view(seat)": lambda game, _view: _seat_view(game),
    "view+labels": lambda game, _view: labels(_seat_view(game)),
}


def _run(op: Callable[[Game, View], object], games: list[Game], views: list[View]) -> None:
    for game, view in zip(games, views, strict=True):
        op(game, view)  # each result dropped at once, as the adapter does


def _timed(op: Callable[[Game, View], object], games: list[Game], views: list[View],
           clock: Callable[[], float]) -> float:
    """Microseconds per position of ``op``."""
    start = clock()
    _run(op, games, views)
    return (clock() - start) / len(games) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30, help="seeded 4-player random games (default 30)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs (default 5)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="time.perf_counter (default) or this process's CPU time, time.process_time")
    args = parser.parse_args()
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    games = positions(args.games)
    views = [_seat_view(game) for game in games]
    print(f"{'operation':>11} {'positions':>9} {'us best':>8} {'median':>7} {'calls/op':>9}")
    for name, op in OPS.items():
        times = [_timed(op, games, views, clock) for _ in range(args.repeats)]
        profile = cProfile.Profile()
        profile.enable()
        _run(op, games, views)
        profile.disable()
        calls = sum(entry.callcount for entry in profile.getstats()) / len(games)
        print(f"{name:>11} {len(games):>9} {min(times):>8.1f} {statistics.median(times):>7.1f} {calls:>9.1f}")


if __name__ == "__main__":
    main()
