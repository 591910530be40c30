"""Whether a move is asked first (bot/host/takeback.py's ``asks_first``), and what a move would do that cannot be
taken back (``move_risk``), which the question before such a move names: the sites it turns face up, the scoring card
it plays and what that gives the mover and the best other player, the end of the round or the game."""

from __future__ import annotations

import random

from bot.host.takeback import asks_first, move_risk
from engine import SINGLE_BUILDS, Game, builds_nothing, new_game


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


def test_a_move_is_asked_first_when_it_builds_nothing_or_cannot_be_taken_back() -> None:
    """The host's one answer to "ask first?" (``asks_first``): a card played without effect, giving up a double move,
    a double move of a kind with no site now (where its seat's view says each kind could build), or a move that
    cannot be taken back; any other move is played at once, and so is a move that is not legal (it is refused)."""
    seen = {"bare card": 0, "double without a site": 0, "double with a site": 0, "final": 0, "played at once": 0}
    for seed in range(4):
        for game in _positions(seed):
            seat = game.to_move
            assert seat is not None
            legal = game.legal_moves()
            sites = game.view(seat)["you"].get("build_sites")
            for move in legal:
                nothing = builds_nothing(move, legal, sites)
                final = move_risk(game, [str(move)]).final
                asked = asks_first(game, [str(move)])
                assert (asked is not None) == (nothing or final), (seed, str(move))
                if asked is not None:
                    assert asked[0] == nothing and asked[1].final == final
                seen["bare card"] += move.verb in SINGLE_BUILDS and move.site is None
                seen["double without a site"] += move.verb == "double" and nothing
                seen["double with a site"] += move.verb == "double" and not nothing
                seen["final"] += final
                seen["played at once"] += asked is None
    assert all(count >= 1 for count in seen.values()), seen
    game = new_game(["Ada", "Bo"], 1)
    illegal = next(f"land {s}" for s in range(1, 60) if f"land {s}" not in {str(m) for m in game.legal_moves()})
    assert asks_first(game, [illegal]) is None and asks_first(game, ["nonsense"]) is None
