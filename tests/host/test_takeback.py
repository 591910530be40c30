"""What a move would do that cannot be taken back (bot/host/takeback.py's ``move_risk``), which the question before
such a move names: the sites it turns face up, the scoring card it plays and what that gives the mover and the
best other player, the end of the round or the game."""

from __future__ import annotations

import random

from bot.host.takeback import move_risk
from engine import Game, new_game


def _positions(seed: int, n: int = 3) -> list[Game]:
    """Copies of every position of a random game."""
    game = new_game([f"P{i}" for i in range(n)], seed)
    rng = random.Random(seed)
    out = []
    while not game.is_over():
        out.append(game.clone())
        game.apply(rng.choice(game.legal_moves()))
    return out


def test_a_scoring_card_names_what_it_gives_the_mover_and_the_best_other_player() -> None:
    checked = nobody_else = 0
    for seed in range(6):
        for game in _positions(seed):
            seat = game.to_move
            assert seat is not None
            for move in (m for m in game.legal_moves() if m.verb == "score"):
                card = str(move.card)
                risk = move_risk(game, [str(move)])
                assert risk.final and risk.first_final == 0 and risk.scores == card
                assert risk.points == game.card_points(seat, card)
                others = {q: game.card_points(q, card) for q in range(game.n) if q != seat}
                best = max(others.values())
                if best == 0:
                    assert risk.other is None and risk.other_points == 0
                    nobody_else += 1
                else:  # the first of the best in seat order (with the eruption card: who loses least)
                    assert risk.other == min(q for q, p in others.items() if p == best)
                    assert risk.other_points == best
                    checked += 1
                game_after = game.clone()
                before = list(game_after.score)
                game_after.apply(move)
                if not (risk.ends_round or risk.ends_game):  # (then more is counted at once)
                    assert game_after.score[seat] - before[seat] == risk.points  # what the engine then gives
    assert checked >= 10 and nobody_else >= 1


def test_sites_turned_face_up_and_a_move_that_can_be_taken_back() -> None:
    revealing = undoable = 0
    for game in _positions(3):
        for move in game.legal_moves():
            trial = game.clone()
            events = trial.apply(move)
            risk = move_risk(game, [str(move)])
            assert list(risk.revealed) == [e["site"] for e in events if e["type"] == "reveal"]
            assert risk.final == (not trial.can_undo())
            revealing += bool(risk.revealed)
            undoable += not risk.final
    assert revealing >= 5 and undoable >= 5


def test_an_illegal_move_ends_the_trial_without_being_final() -> None:
    game = new_game(["Ada", "Bo"], 1)
    legal = {str(m) for m in game.legal_moves()}
    illegal = next(f"land {s}" for s in range(1, 60) if f"land {s}" not in legal)
    risk = move_risk(game, [illegal])
    assert not risk.final and risk.first_final is None and risk.revealed == ()
