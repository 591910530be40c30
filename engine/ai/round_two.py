"""A learned judgement of a position in round 2 (2 players): the chance to win the game from there.

The expert judges a round-2 decision by noisy greedy playouts to the end of the game. Greedy's round 2 predicts how
the expert's own round 2 ends worse than the margin when it begins does (``engine/AI-RESEARCH.md``, eighth and
eleventh attempts), so a playout may mislead more the further it runs. This model is fitted, as the round-end
judgement is (:mod:`engine.ai.round_end`), on round 2s that the expert played against itself
(``play/fit_round_two.py``): a linear model predicts the final margin of a seat from :data:`FEATURES` of a position
in the landing or play phase of round 2 (each a margin of that seat over the other, read from the engine), and a
logistic function of it the chance to win, whose width grows with what is left to play
(``width² = temperature² + spread × builds left``). :func:`judge` scores a position as the expert scores the end of
a game: three quarters the chance to win, a quarter the predicted margin. A search may stop a round-2 playout after a
few moves and judge it so (:func:`engine.ai.master.halving`, ``round_two``).

Every scoring card still held is played before the game ends, and pays every seat that meets it then: what the held
cards would pay each seat now is the first guess of what they will pay. The holder chooses when to play its cards,
so what a seat's own cards pay it is counted apart from what they pay the other seat.

The weights are data (``engine/ai/data/round_two.json``, a handful of numbers).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from engine.ai.evaluation import chance_to_win, end_reward
from engine.ai.greedy import _remaining_builds
from engine.game import Game

__all__ = ["DATA", "FEATURES", "RoundTwo", "builds_left", "judge", "load_round_two", "margin_features",
           "position_margins", "predicted_margin"]

FEATURES = ("score_margin", "chip_value_margin", "chip_count_margin", "own_cards_margin", "cross_cards_margin",
            "builds_margin", "scoring_cards_margin", "to_move", "share_margin")
"""What :func:`margin_features` reads of a seat in round 2, in order."""

PHASES = ("land", "play")
"""The phases of round 2 the judgement reads (the piles chosen and the cards discarded)."""

DATA = Path(__file__).with_name("data") / "round_two.json"


@dataclass(frozen=True)
class RoundTwo:
    """The fitted weights (points of final margin per feature), the temperature (points) of the chance to win and
    its spread (points² per build left)."""

    weights: tuple[float, ...]
    temperature: float
    spread: float


def margin_features(game: Game, seat: int) -> tuple[float, ...]:
    """:data:`FEATURES` of ``seat`` in a 2-player ``game`` in the landing or play phase of round 2: score, bird
    chips' value and count over the other seat's; what the seat's own held scoring cards pay it now less what the
    other's pay the other; what the seat's cards pay the other less what the other's pay the seat (with the one
    before, what every held card pays each seat); builds left (:func:`engine.ai.greedy._remaining_builds`) and
    scoring cards held over the other's; +1 when the seat is to move, -1 when the other is; +1 when the seat may
    still share a site, -1 when the other may."""
    if game.round != 2:
        raise ValueError("the round-2 judgement reads a 2-player game in the landing or play phase of round 2")
    return position_margins(game, seat)


def position_margins(game: Game, seat: int) -> tuple[float, ...]:
    """:data:`FEATURES` of ``seat`` in a 2-player ``game`` in a landing or play phase, whichever the round (see
    :func:`margin_features`)."""
    if game.n != 2 or game.phase not in PHASES:
        raise ValueError("the judgement reads a 2-player game in a landing or play phase")
    other = 1 - seat
    mine, theirs = game.hand_scoring[seat], game.hand_scoring[other]
    points = game.card_points
    own = sum(points(seat, c) for c in mine) - sum(points(other, c) for c in theirs)
    cross = sum(points(other, c) for c in mine) - sum(points(seat, c) for c in theirs)
    share = game.share_seat
    return (float(game.score[seat] - game.score[other]), float(sum(game.birds[seat]) - sum(game.birds[other])),
            float(len(game.birds[seat]) - len(game.birds[other])), float(own), float(cross),
            float(_remaining_builds(game, seat) - _remaining_builds(game, other)), float(len(mine) - len(theirs)),
            1.0 if game.to_move == seat else -1.0,
            0.0 if share is None else (1.0 if share == seat else -1.0))


def builds_left(game: Game) -> int:
    """Builds both seats may still make, and scoring cards both still hold: how much is left to play."""
    return sum(_remaining_builds(game, p) + len(game.hand_scoring[p]) for p in range(game.n))


def predicted_margin(game: Game, seat: int, model: RoundTwo) -> float:
    """``seat``'s predicted final margin (points) over the other seat."""
    return sum(w * x for w, x in zip(model.weights, margin_features(game, seat), strict=True))


def judge(game: Game, seat: int, model: RoundTwo) -> float:
    """``seat``'s reward in [0, 1] for a round-2 position, as the expert rewards the end of a game: 0.75 × the
    chance to win + 0.25 × the predicted final margin (tanh, 25 points)."""
    margin = predicted_margin(game, seat, model)
    width = math.sqrt(model.temperature**2 + model.spread * builds_left(game))
    return end_reward(chance_to_win(margin, width), margin)


@cache
def load_round_two(path: Path = DATA) -> RoundTwo:
    """The shipped weights (``engine/ai/data/round_two.json``)."""
    data = json.loads(path.read_text())
    if tuple(data["features"]) != FEATURES:
        raise ValueError(f"{path}: fitted for features {data['features']}, not {FEATURES}")
    return RoundTwo(tuple(float(x) for x in data["weights"]), float(data["temperature"]), float(data["spread"]))
