"""The learned evaluation (engine/ai/evaluation.py) and the halving search whose playouts it cuts short."""

from __future__ import annotations

import random

from engine import new_game
from engine.ai.evaluation import FEATURES, evaluate, judged, load_evaluation, seat_features
from engine.ai.greedy import greedy_move
from engine.ai.master import halving


def test_the_shipped_weights_cover_every_player_count_and_round_and_judge_within_the_reward() -> None:
    evaluation = load_evaluation()
    for n in (2, 3, 4):
        assert set(evaluation.weights[n]) == {1, 2}
        assert all(len(w) == len(FEATURES) for w in evaluation.weights[n].values())
        game = new_game([f"P{i}" for i in range(n)], 40 + n)
        rng = random.Random(n)
        judged_positions = 0
        while not game.is_over():
            if game.phase in ("land", "play"):
                rewards = [evaluate(game, p, evaluation) for p in range(n)]
                assert all(0.0 <= r <= 1.0 for r in rewards)
                assert len(seat_features(game, 0)) == len(FEATURES)
                judged_positions += 1
            game.apply(greedy_move(game, rng, noise=1.0))
        assert judged_positions > 20


def test_the_judgement_favours_a_lead_and_is_less_sure_with_more_left_to_play() -> None:
    for round_ in (1, 2):
        assert judged(round_, 10.0, 4, 20.0, 8.0) > judged(round_, 0.0, 4, 20.0, 8.0) == 0.5
        assert judged(round_, 10.0, 4, 20.0, 8.0) > judged(round_, 10.0, 40, 20.0, 8.0) > 0.5


def test_halving_with_cut_playouts_is_legal_and_deterministic() -> None:
    game = new_game(["A", "B"], 77)
    rng = random.Random(7)
    searched = 0
    while not game.is_over() and searched < 6:
        view = game.view(game.to_move)
        if len(view["you"]["legal_moves"]) > 2 and game.phase in ("land", "play"):
            result = halving(view, seed=3, budget=None, iterations=30, cut=4)
            assert result == halving(view, seed=3, budget=None, iterations=30, cut=4)
            assert result.move in view["you"]["legal_moves"] and 0 < result.playouts <= 30
            searched += 1
        game.apply(greedy_move(game, rng, noise=1.0))
    assert searched == 6
