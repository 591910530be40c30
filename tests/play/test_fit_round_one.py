"""The round-1 judgement's fit (play/fit_round_one.py): the positions it reads from a kept arena game, each seen from
the seat to move as its search sees it, and the playouts that probe them."""

from __future__ import annotations

import json

import pytest

from engine.ai.round_two import FEATURES, PHASES
from play.arena import GameResult, play_game
from play.fit_round_one import game_samples, positions
from play.fit_round_two import WIDTH


def _kept_game(seed: int) -> str:
    moves: list[str] = []
    scores, ranking, _ = play_game(["greedy", "random"], seed, record=moves)
    return json.dumps(GameResult("greedy-vs-random-2p", seed, 0, scores, ranking[0], 1.0, 0, moves).__dict__)


def test_a_kept_arena_game_gives_its_round_one_decisions_seen_from_the_seat_to_move() -> None:
    line = _kept_game(31)
    row = json.loads(line)
    found = list(positions(row))
    assert len(found) >= 10 and {seat for seat, _g in found} == {0, 1}
    assert all(g.round == 1 and g.phase in PHASES and g.to_move == seat and len(g.legal_moves()) > 1
               for seat, g in found)
    samples = game_samples((line, 4, 3, (4, 8)))
    assert len(samples) == len(found)
    for i, ((seat, game), s) in enumerate(zip(found, samples, strict=True)):
        assert s.game == row["seed"] and s.won == (row["winner"] == seat)
        assert s.margin == row["scores"][seat] - row["scores"][1 - seat]
        # read in a determinization of the seat's view: what the seat knows is as it is
        assert len(s.features) == len(FEATURES) and s.features[0] == game.score[seat] - game.score[1 - seat]
        assert s.features[7] == 1.0
        if i % 4:
            assert s.probe is None
        else:
            assert s.probe is not None and len(s.probe) == 3 * 2 * WIDTH and 0 < s.baseline < 1
    with pytest.raises(ValueError):  # a game kept before the arena kept moves
        list(positions({**row, "moves": []}))
