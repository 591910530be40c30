"""A learned judgement of the end of round 1 in 2 players: the chance to win the game from where round 2 begins.

The expert judges a round-1 playout by the margin (score and bird chips) when the round ends. What that position
is worth in the end also depends on what it does not count: a bird chip's worth beyond its value (the Birds card
pays per chip), and who chooses a round-2 pile first (the seat behind) when the piles differ. Fitted on games whose
round 2 the expert played against itself (``play/fit_round_end.py``), a linear model predicts the final margin of
a seat from :data:`FEATURES` (each a margin of that seat over the other, read from the engine), and a logistic
function of it the chance to win. :func:`judge` scores a playout's end as the expert scores the end of a game:
three quarters the chance to win, a quarter the predicted margin. The master's sequential halving judges the end of
round 1 with it (:func:`engine.ai.master.halving`, ``judged``; ``engine/AI-RESEARCH.md``, eleventh and twelfth
attempts).

The weights are data (``engine/ai/data/round_end.json``, a handful of numbers).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from engine.ai.evaluation import chance_to_win, end_reward
from engine.ai.greedy import move_values
from engine.game import Game

__all__ = ["DATA", "FEATURES", "RoundEnd", "judge", "load_round_end", "margin_features"]

FEATURES = ("score_margin", "chip_value_margin", "chip_count_margin", "chooses_first", "first_pile_edge")
"""What :func:`margin_features` reads of a seat at the start of round 2, in order."""

DATA = Path(__file__).with_name("data") / "round_end.json"


@dataclass(frozen=True)
class RoundEnd:
    """The fitted weights (points of final margin per feature) and the temperature (points) of the chance to win."""

    weights: tuple[float, ...]
    temperature: float


def margin_features(game: Game, seat: int) -> tuple[float, ...]:
    """:data:`FEATURES` of ``seat`` in a 2-player ``game`` whose round 2 has just begun (the piles not yet taken):
    score, bird chips' value and count over the other seat's; +1 when ``seat`` chooses a pile first, -1 when the
    other does; that sign times how much better the chooser's better pile is than the other by the greedy player's
    values of the two choices (:func:`engine.ai.greedy.move_values`, which read only public and own information)."""
    if game.n != 2 or game.round != 2 or game.phase != "choose_pile" or game.to_move is None:
        raise ValueError("the round-end judgement reads a 2-player game at the start of round 2")
    other = 1 - seat
    first = 1.0 if game.to_move == seat else -1.0
    piles = list(move_values(game).values())
    return (float(game.score[seat] - game.score[other]), float(sum(game.birds[seat]) - sum(game.birds[other])),
            float(len(game.birds[seat]) - len(game.birds[other])), first, first * (max(piles) - min(piles)))


def judge(game: Game, seat: int, model: RoundEnd) -> float:
    """``seat``'s reward in [0, 1] for a 2-player playout that ended with round 1, as the expert rewards the end of a
    game: 0.75 × the chance to win + 0.25 × the predicted final margin (tanh, 25 points)."""
    margin = sum(w * x for w, x in zip(model.weights, margin_features(game, seat), strict=True))
    return end_reward(chance_to_win(margin, model.temperature), margin)


@cache
def load_round_end(path: Path = DATA) -> RoundEnd:
    """The shipped weights (``engine/ai/data/round_end.json``)."""
    data = json.loads(path.read_text())
    if tuple(data["features"]) != FEATURES:
        raise ValueError(f"{path}: fitted for features {data['features']}, not {FEATURES}")
    return RoundEnd(tuple(float(x) for x in data["weights"]), float(data["temperature"]))
