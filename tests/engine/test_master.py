"""The master (engine/ai/master.py): legal moves, determinism, its budget kept by its clock, the halving, its
judgement of the end of round 1 (engine/ai/round_end.py)."""

from __future__ import annotations

import random
from functools import cache

import pytest

from engine import Game, new_game
from engine.ai import (
    OFFERED,
    SEARCHING,
    STRENGTHS,
    STRONGEST,
    ExpertPlayer,
    MasterPlayer,
    choose_move,
    greedy_move,
    master_search,
)
from engine.ai.expert import search
from engine.ai.master import HALVING_PLAYERS, halving
from engine.ai.round_end import FEATURES, RoundEnd, judge, load_round_end, margin_features


@cache
def _positions(n: int) -> tuple[Game, ...]:
    """Positions of two noisy greedy games with three or more legal moves (both rounds, every phase that has them)."""
    out = []
    for seed in range(2):
        game = new_game([f"P{i}" for i in range(n)], 7000 + 10 * n + seed)
        rng = random.Random(seed)
        k = 0
        while not game.is_over():
            if len(game.legal_moves()) > 2 and k % 4 == seed:
                out.append(game.clone())
            game.apply(greedy_move(game, rng, noise=0.5))
            k += 1
    return tuple(out)


class Ticks:
    """A clock that moves ``step`` seconds each time it is read: a search that reads it after every playout makes
    at most budget / step playouts before its deadline, however fast the machine is."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_master_plays_a_legal_move_from_many_positions(n: int) -> None:
    positions = _positions(n)
    assert len(positions) >= 12 and {g.round for g in positions} == {1, 2}
    for k, game in enumerate(positions[::2]):
        view = game.view(game.to_move)
        move = choose_move(view, strength="master", seed=k, budget=None, iterations=12)
        assert move in view["you"]["legal_moves"], (game.phase, move)


def test_the_master_is_deterministic_with_iterations_and_a_seed() -> None:
    for game in _positions(2)[::8] + _positions(3)[::8]:
        view = game.view(game.to_move)
        first = master_search(view, seed=11, budget=None, iterations=30)
        again = master_search(view, seed=11, budget=None, iterations=30)
        assert first == again and 0 < first.playouts <= 30


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_master_never_thinks_past_its_budget(n: int) -> None:
    """Each clock reading costs 10 ms: with 0.25 s the master has time for at most 25 playouts (a search that
    ignored its clock would play the 10**9 playouts a budget allows)."""
    for game in _positions(n)[:6]:
        view = game.view(game.to_move)
        clock = Ticks(0.01)
        result = master_search(view, seed=3, budget=0.25, clock=clock)
        assert 0 < result.playouts <= 25, result.playouts
        # No round starts after the deadline: the clock was read at most a round's worth of times past it.
        assert clock.now <= 0.25 + 0.01 * (len(result.stats) + 3)


def test_halving_spends_most_on_the_move_it_plays_and_keeps_to_its_iterations() -> None:
    halved = 0
    for game in _positions(2)[::4]:
        view = game.view(game.to_move)
        result = halving(view, seed=5, budget=None, iterations=60)
        assert result.playouts <= 60
        counts = {move: count for move, (count, _mean) in result.stats.items()}
        if len(counts) < 3:
            continue
        assert counts[result.move] == max(counts.values())
        halved += min(counts.values()) < counts[result.move]
    assert halved >= 3


@pytest.mark.parametrize("n", [3, 4])
def test_in_three_and_four_players_the_master_is_the_expert(n: int) -> None:
    """Never worse than the expert there by construction: the same search, seeded alike, the same moves."""
    assert HALVING_PLAYERS == (2,)
    for k, game in enumerate(_positions(n)[::8]):
        view = game.view(game.to_move)
        assert (MasterPlayer(k, budget=None, iterations=16).choose(view)
                == ExpertPlayer(k, budget=None, iterations=16).choose(view))
        assert master_search(view, seed=k, budget=None, iterations=16) == search(view, seed=k, budget=None,
                                                                                 iterations=16)


def test_the_offered_strengths_are_the_engine_s_weakest_first_and_the_strongest_is_the_last() -> None:
    assert STRENGTHS == ("random", "greedy", "expert", "master")
    assert tuple(s for s in STRENGTHS if s in OFFERED) == OFFERED and {"random", "greedy", "expert"} <= set(OFFERED)
    assert OFFERED[-1] == STRONGEST and STRONGEST in SEARCHING


def _round_two_start(seed: int) -> Game:
    """A 2-player noisy greedy game at the start of round 2 (the piles not yet taken)."""
    game = new_game(["A", "B"], seed)
    rng = random.Random(seed)
    while game.round == 1:
        game.apply(greedy_move(game, rng, noise=1.0))
    return game


def test_the_round_end_judgement_reads_each_seat_s_margins_and_shares_the_reward_between_the_seats() -> None:
    model = load_round_end()
    assert len(model.weights) == len(FEATURES) and model.temperature > 0
    # The shipped fit counts a point of score and a point of chips' value as worth points in the end.
    assert model.weights[FEATURES.index("score_margin")] > 0.5
    assert model.weights[FEATURES.index("chip_value_margin")] > 0.5
    firsts = 0
    for seed in range(8):
        game = _round_two_start(300 + seed)
        mine, theirs = margin_features(game, 0), margin_features(game, 1)
        assert mine == tuple(-x for x in theirs)
        assert mine[0] == game.score[0] - game.score[1] and mine[3] == (1.0 if game.to_move == 0 else -1.0)
        firsts += mine[3] > 0
        assert abs(judge(game, 0, model) + judge(game, 1, model) - 1.0) < 1e-12
        assert 0.0 < judge(game, 0, model) < 1.0
        # A seat ahead by the score alone is judged above even, and more so the further ahead.
        lead = RoundEnd((1.0, 0.0, 0.0, 0.0, 0.0), 6.0)
        ahead = 0 if mine[0] > 0 else 1
        if mine[0]:
            assert judge(game, ahead, lead) > 0.5 > judge(game, 1 - ahead, lead)
    assert 0 < firsts < 8
    with pytest.raises(ValueError):
        margin_features(new_game(["A", "B"], 1), 0)
    with pytest.raises(ValueError):
        margin_features(new_game(["A", "B", "C"], 1), 0)


def test_halving_judged_by_the_round_end_model_differs_in_round_one_only_and_the_master_judges() -> None:
    differed = 0
    rounds = set()
    for k, game in enumerate(_positions(2)[::3]):
        view = game.view(game.to_move)
        judged = halving(view, seed=k, budget=None, iterations=40, judged=True)
        assert judged.move in view["you"]["legal_moves"]
        plain = halving(view, seed=k, budget=None, iterations=40)
        assert master_search(view, seed=k, budget=None, iterations=40) == judged
        assert master_search(view, seed=k, budget=None, iterations=40, judged=False) == plain
        rounds.add(game.round)
        if game.round == 2:
            assert judged == plain
        else:
            assert judged.playouts == plain.playouts
            differed += judged.stats != plain.stats
    assert rounds == {1, 2} and differed >= 2


def test_halving_with_the_round_two_judgement_differs_in_round_two_only() -> None:
    """``halving(round_two=N)`` stops round-2 playouts after N moves and judges them by the learned chance to win
    (engine/ai/round_two.py): shorter playouts in round 2, so more of them in the same time; round 1 as before."""
    from engine.ai.round_two import FEATURES as ROUND_TWO
    from engine.ai.round_two import load_round_two

    model = load_round_two()
    assert len(model.weights) == len(ROUND_TWO) and model.temperature > 0
    assert model.weights[ROUND_TWO.index("score_margin")] > 0.5
    rounds = set()
    more = 0
    for k, game in enumerate(_positions(2)[::4]):
        view = game.view(game.to_move)
        cut = halving(view, seed=k, budget=None, iterations=30, judged=True, round_two=4)
        full = halving(view, seed=k, budget=None, iterations=30, judged=True)
        assert cut.move in view["you"]["legal_moves"]
        assert master_search(view, seed=k, budget=None, iterations=30, round_two=4) == cut
        rounds.add(game.round)
        if game.round == 1:
            assert cut == full
        else:
            assert cut.playouts == full.playouts
            more += cut.stats != full.stats
    assert rounds == {1, 2} and more >= 2
