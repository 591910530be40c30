"""The held-out comparison of ``play.fit_round_end``: a game's log loss, and the paired gap between two predictions
of the same games with its standard error (what decides whether a judgement is worth a match)."""

from __future__ import annotations

import math

import pytest

from play.fit_round_end import log_loss, loss, paired_gap


def test_a_games_log_loss_is_that_of_the_chance_given_to_its_winner() -> None:
    assert loss(0.8, 1) == pytest.approx(-math.log(0.8))
    assert loss(0.8, 0) == pytest.approx(-math.log(0.2))
    assert loss(1.0, 0) == pytest.approx(-math.log(1e-3))  # a certain miss is bounded, not infinite
    assert log_loss([(0.8, 1), (0.8, 0)]) == pytest.approx((-math.log(0.8) - math.log(0.2)) / 2)


def test_the_paired_gap_is_the_mean_difference_game_by_game_with_its_standard_error() -> None:
    ours = [(0.7, 1), (0.6, 0), (0.9, 1)]
    theirs = [(0.5, 1), (0.5, 0), (0.5, 1)]
    gaps = [-math.log(0.7) + math.log(0.5), -math.log(0.4) + math.log(0.5), -math.log(0.9) + math.log(0.5)]
    mean = sum(gaps) / 3
    error = math.sqrt(sum((g - mean) ** 2 for g in gaps) / 2 / 3)
    assert paired_gap(ours, theirs) == pytest.approx((mean, error))
    assert paired_gap(theirs, theirs) == (0.0, 0.0)
    with pytest.raises(ValueError):  # the predictions must be of the same games
        paired_gap(ours, theirs[:2])
