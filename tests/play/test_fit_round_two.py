"""The round-2 judgement's fit (play/fit_round_two.py): the positions it reads from a kept game, the playouts that
probe them, the calibration of a prediction and the paired gap counted by game."""

from __future__ import annotations

import json
import math
import random

import pytest

from engine import new_game
from engine.ai.greedy import greedy_move
from engine.ai.round_two import FEATURES, PHASES
from play.fit_round_two import CUTS, WIDTH, calibrated, game_samples, paired_gap, platt, positions


def _kept_game(seed: int) -> str:
    """A kept game as ``play.fit_round_end play`` writes it, both rounds noisy greedy (cheap)."""
    game = new_game(["A", "B"], seed)
    rng = random.Random(seed)
    while game.round == 1:
        game.apply(greedy_move(game, rng, noise=1.0))
    start = game.to_json()
    moves = []
    while not game.is_over():
        move = greedy_move(game, rng, noise=1.0)
        moves.append(str(move))
        game.apply(move)
    return json.dumps({"number": seed, "start": start, "round2": moves, "scores": list(game.score),
                       "winner": game.ranking()[0], "iterations": 0})


def test_a_kept_game_gives_its_round_two_decisions_and_every_third_is_probed_by_playouts() -> None:
    line = _kept_game(21)
    found = list(positions(json.loads(line)))
    assert len(found) >= 10
    assert all(g.round == 2 and g.phase in PHASES and len(g.legal_moves()) > 1 for g in found)
    samples = game_samples((line, 3, 4))
    row = json.loads(line)
    assert len(samples) == len(found)
    for i, s in enumerate(samples):
        assert len(s.features) == len(FEATURES) and s.margin == row["scores"][0] - row["scores"][1]
        assert s.won == (row["winner"] == 0)
        if i % 3:
            assert s.probe is None
        else:
            assert s.probe is not None and len(s.probe) == 4 * len(CUTS) * WIDTH and 0 < s.baseline < 1
    with pytest.raises(ValueError):  # a game kept before the round-2 moves were
        list(positions({k: v for k, v in row.items() if k != "round2"}))


def test_the_calibration_finds_the_logistic_that_made_the_results() -> None:
    rng = random.Random(4)
    x = [rng.uniform(-3, 3) for _ in range(4000)]
    won = [int(rng.random() < 1 / (1 + math.exp(-(0.5 * v - 0.3)))) for v in x]
    a, b = platt(x, won)
    assert abs(a - 0.5) < 0.1 and abs(b + 0.3) < 0.1
    assert calibrated(a, b, 0.0) == pytest.approx(1 / (1 + math.exp(-b)))


def test_the_paired_gap_counts_the_positions_of_a_game_together() -> None:
    ours = [(0.7, 1), (0.7, 1), (0.4, 1), (0.4, 1)]
    theirs = [(0.5, 1)] * 4
    gaps = [math.log(0.5 / 0.7)] * 2 + [math.log(0.5 / 0.4)] * 2
    mean = sum(gaps) / 4
    # two games of two positions each: the standard error of two game sums, not of four positions
    sums = [gaps[0] + gaps[1] - 2 * mean, gaps[2] + gaps[3] - 2 * mean]
    error = math.sqrt(sum(s * s for s in sums) * 2 / 1) / 4
    assert paired_gap(ours, theirs, [1, 1, 2, 2]) == pytest.approx((mean, error))
    assert paired_gap(ours, theirs, [1, 2, 3, 4])[1] < error  # counted apart, the positions look surer
