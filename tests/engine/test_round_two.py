"""The learned judgement of a round-2 position (engine/ai/round_two.py): what it reads of each seat, and how it
shares the reward between the seats."""

from __future__ import annotations

import random

import pytest

from engine import Game, new_game
from engine.ai.greedy import _remaining_builds, greedy_move
from engine.ai.round_two import FEATURES, PHASES, RoundTwo, builds_left, judge, margin_features


def _round_two_positions(seed: int) -> list[Game]:
    """The landing and play positions of a 2-player noisy greedy game's round 2."""
    game = new_game(["A", "B"], seed)
    rng = random.Random(seed)
    out = []
    while not game.is_over():
        if game.round == 2 and game.phase in PHASES:
            out.append(game.clone())
        game.apply(greedy_move(game, rng, noise=1.0))
    return out


def test_each_seat_s_margins_are_the_other_s_negated_and_read_the_engine() -> None:
    held = 0
    for seed in (3, 4):
        for game in _round_two_positions(500 + seed):
            mine, theirs = margin_features(game, 0), margin_features(game, 1)
            assert len(mine) == len(FEATURES) and mine == tuple(-x for x in theirs)
            assert mine[0] == game.score[0] - game.score[1]
            assert mine[5] == _remaining_builds(game, 0) - _remaining_builds(game, 1)
            assert mine[7] == (1.0 if game.to_move == 0 else -1.0)
            # own and cross together: what every held card pays seat 0 less what it pays seat 1
            every = sum(game.card_points(0, c) - game.card_points(1, c) for p in (0, 1) for c in game.hand_scoring[p])
            assert mine[3] - mine[4] == every
            held += bool(game.hand_scoring[0] or game.hand_scoring[1])
            assert builds_left(game) >= 0
    assert held >= 10


def test_the_judgement_shares_the_reward_between_the_seats_and_favours_the_seat_ahead() -> None:
    lead = RoundTwo((1.0,) + (0.0,) * (len(FEATURES) - 1), 6.0, 1.0)
    judged = 0
    for game in _round_two_positions(510)[::3]:
        assert abs(judge(game, 0, lead) + judge(game, 1, lead) - 1.0) < 1e-12
        if game.score[0] != game.score[1]:
            ahead = 0 if game.score[0] > game.score[1] else 1
            assert judge(game, ahead, lead) > 0.5 > judge(game, 1 - ahead, lead)
            judged += 1
    assert judged >= 3
    # The spread widens the chance with what is left to play: the same lead counts for less.
    wide = RoundTwo(lead.weights, 6.0, 50.0)
    late = [g for g in _round_two_positions(510) if g.score[0] > g.score[1]]
    assert judge(late[-1], 0, wide) < judge(late[-1], 0, lead)


def test_the_judgement_reads_the_landing_and_play_phases_of_a_two_player_round_two_only() -> None:
    with pytest.raises(ValueError):
        margin_features(new_game(["A", "B"], 1), 0)  # round 1
    with pytest.raises(ValueError):
        margin_features(new_game(["A", "B", "C"], 1), 0)
    game = new_game(["A", "B"], 2)
    rng = random.Random(2)
    while game.round == 1:
        game.apply(greedy_move(game, rng, noise=1.0))
    assert game.phase == "choose_pile"
    with pytest.raises(ValueError):
        margin_features(game, 0)
