"""A learned evaluation of a position: the points each seat will still make, fitted by self-play.

For a seat ``p`` of a game (a determinization, as the searches use), :func:`seat_features` reads what the
engine says of it now: the builds it may still make this round, the scoring cards it holds and what those pay it
now (``Game.card_points``), what every scoring card still held by any seat would pay it now (a played card scores
for every seat that meets it), whether it is to move. A linear model per player count and round, fitted offline
(``play/fit_evaluation.py``) on noisy greedy self-play (the expert's playout policy), predicts the points (score
and bird chips) ``p`` adds up to the end of the round (round 1) or of the game (round 2). :func:`evaluate` turns
the predicted totals into the expert's judgement of that end: the margin to the best other seat in round 1, and
in round 2 the chance to win (a logistic function of the predicted margin) with the margin as a tie-break. A
prediction is uncertain in proportion to what is left to play: the judgement's scales widen with the builds all
seats may still make (``scale² = base² + spread × builds left``), so that an early position is judged closer to
even than the same margin near the end.

The weights are data (``engine/ai/data/evaluation.json``, a few dozen numbers). A search may stop a playout after
a few moves and score it with :func:`evaluate` instead of playing it to the end (``engine/AI-RESEARCH.md``,
sixth attempt, says what that was worth).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from engine.ai.greedy import _remaining_builds
from engine.game import Game

__all__ = ["FEATURES", "Evaluation", "chance_to_win", "end_reward", "evaluate", "judged", "load_evaluation",
           "seat_features"]

FEATURES = ("constant", "builds_left", "cards_held", "own_cards_now", "all_cards_now", "to_move")
"""What :func:`seat_features` reads of a seat, in order."""

DATA = Path(__file__).with_name("data") / "evaluation.json"


@dataclass(frozen=True)
class Evaluation:
    """The fitted weights: per player count and round, one weight per feature and the spread (points² of margin
    per build left); per player count the base temperature (points of margin) of the chance to win."""

    weights: dict[int, dict[int, tuple[float, ...]]]
    spread: dict[int, dict[int, float]]
    temperature: dict[int, float]


def seat_features(game: Game, p: int) -> tuple[float, ...]:
    """The features :data:`FEATURES` of seat ``p`` in ``game``."""
    hand = game.hand_scoring[p]
    own = sum(game.card_points(p, c) for c in hand)
    held = sum(game.card_points(p, c) for q in range(game.n) for c in game.hand_scoring[q])
    return (1.0, float(_remaining_builds(game, p)), float(len(hand)), float(own), float(held), float(game.to_move == p))


def evaluate(game: Game, seat: int, evaluation: Evaluation) -> float:
    """``seat``'s reward in [0, 1] as the expert judges the end of a playout, from the predicted totals."""
    n = game.n
    w = evaluation.weights[n][game.round]
    features = [seat_features(game, p) for p in range(n)]
    totals = [game.score[p] + sum(game.birds[p]) + sum(a * b for a, b in zip(w, features[p], strict=True))
              for p in range(n)]
    margin = totals[seat] - max(totals[p] for p in range(n) if p != seat)
    left = sum(f[1] for f in features)
    return judged(game.round, margin, left, evaluation.spread[n][game.round], evaluation.temperature[n])


def end_reward(win: float, margin: float, scale: float = 25.0) -> float:
    """The expert's reward in [0, 1] for the end of a game: three quarters the win (1 or 0, or a chance to win), a
    quarter the margin to the best other seat (tanh, ``scale`` points)."""
    return 0.75 * win + 0.25 * (0.5 + 0.5 * math.tanh(margin / scale))


def chance_to_win(margin: float, temperature: float) -> float:
    """A logistic chance to win from a predicted final ``margin``, ``temperature`` points wide."""
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, margin / temperature))))


def judged(round_: int, margin: float, left: float, spread: float, temperature: float) -> float:
    """The expert's reward for a predicted ``margin`` with ``left`` builds still to make by all seats."""
    extra = spread * left
    if round_ == 1:
        return 0.5 + 0.5 * math.tanh(margin / math.sqrt(15.0**2 + extra))
    return end_reward(chance_to_win(margin, math.sqrt(temperature**2 + extra)), margin, math.sqrt(25.0**2 + extra))


@cache
def load_evaluation(path: Path = DATA) -> Evaluation:
    """The shipped weights (``engine/ai/data/evaluation.json``)."""
    data = json.loads(path.read_text())
    if tuple(data["features"]) != FEATURES:
        raise ValueError(f"{path}: fitted for features {data['features']}, not {FEATURES}")
    weights = {int(n): {int(r): tuple(float(x) for x in w) for r, w in rounds.items()}
               for n, rounds in data["weights"].items()}
    spread = {int(n): {int(r): float(x) for r, x in rounds.items()} for n, rounds in data["spread"].items()}
    return Evaluation(weights, spread, {int(n): float(t) for n, t in data["temperature"].items()})
