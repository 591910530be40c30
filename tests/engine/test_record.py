"""Seed-free set-up records: the deal of a game without its seed replays the game exactly."""

from __future__ import annotations

import json

import pytest

from engine import IllegalMove, from_record, new_game
from engine.ai import choose_move


def played(n: int, seed: int, moves: int | None = None):
    """A game of ``n`` random computer players, to the end (or ``moves`` moves), and its set-up record."""
    game = new_game([f"P{i}" for i in range(n)], seed)
    setup = game.setup_record()
    number = 0
    while game.to_move is not None and (moves is None or number < moves):
        game.apply(choose_move(game.view(game.to_move), strength="random", seed=number, budget=0.1))
        number += 1
    return game, setup


@pytest.mark.parametrize("n", [2, 4])
def test_record_replays_every_view_without_the_seed(n: int) -> None:
    game, setup = played(n, seed=9100 + n)
    assert "seed" not in setup
    copy = from_record(json.loads(json.dumps(setup)), [m for _, m in game.moves])
    assert copy.is_over() and copy.ranking() == game.ranking()
    for seat in (None, *range(n)):
        assert copy.view(seat) == game.view(seat)


def test_record_is_taken_before_the_first_move_only() -> None:
    game, _ = played(2, seed=5, moves=1)
    with pytest.raises(ValueError, match="before the first move"):
        game.setup_record()


def test_a_later_state_is_not_a_setup_record() -> None:
    game, _ = played(2, seed=5, moves=1)
    later = json.loads(game.to_json())
    del later["seed"]
    with pytest.raises(ValueError, match="not the set-up record"):
        from_record(later, [])


def test_a_bad_move_in_a_record_is_refused() -> None:
    _, setup = played(2, seed=6, moves=0)
    with pytest.raises(IllegalMove):
        from_record(setup, ["build 999"])


def test_undo_of_a_game_from_a_record_needs_no_seed() -> None:
    game, setup = played(3, seed=21, moves=6)
    moves = [m for _, m in game.moves]
    copy = from_record(setup, moves)
    while not copy.can_undo() and moves:
        moves.pop()
        copy = from_record(setup, moves)
    assert copy.can_undo(), "some move of six is one that may be taken back"
    assert copy.undo().view(None) == from_record(setup, moves[:-1]).view(None)
