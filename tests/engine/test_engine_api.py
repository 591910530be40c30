"""The engine's public API: construction, clone, JSON, views' shape, events, undo and replay."""

from __future__ import annotations

import json
import random

import pytest

from engine import PHASES, Game, IllegalMove, new_game, replay


def advanced(n: int = 3, seed: int = 2, steps: int = 30) -> Game:
    game = new_game([f"P{i}" for i in range(n)], seed)
    rng = random.Random(seed)
    for _ in range(steps):
        game.apply(rng.choice(game.legal_moves()))
    return game


def test_new_game_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="2 to 4"):
        new_game(["solo"], 1)
    with pytest.raises(ValueError, match="2 to 4"):
        new_game(list("abcde"), 1)
    with pytest.raises(ValueError, match="integer"):
        new_game(["a", "b"], "7")  # type: ignore[arg-type]


def test_phase_and_to_move() -> None:
    game = new_game(["a", "b"], 1, draft=True)
    assert game.phase == "choose_set" and game.phase in PHASES
    assert game.to_move in (0, 1)
    assert new_game(["a", "b"], 1).phase == "land"


def test_clone_is_independent() -> None:
    game = advanced()
    copy = game.clone()
    assert copy == game
    copy.apply(copy.legal_moves()[0])
    assert copy != game
    assert game.to_json() != copy.to_json()


def test_json_round_trip_mid_game_is_exact() -> None:
    game = advanced(4, 3, 57)
    text = game.to_json()
    again = Game.from_json(text)
    assert again.to_json() == text
    for seat in [None, 0, 1, 2, 3]:
        assert again.view(seat) == game.view(seat)  # the last move's events included
    assert again.legal_moves() == game.legal_moves()


def test_public_view_has_the_documented_shape() -> None:
    view = advanced().view(None)
    assert json.loads(json.dumps(view)) == view
    for key in ("round", "phase", "to_move", "turn_order", "pending", "board", "players", "events", "log"):
        assert key in view
    assert "you" not in view
    site = view["board"]["sites"][0]
    assert set(site) >= {"id", "kind", "roads", "rivers", "tile", "buildings", "pos"}
    river = view["board"]["rivers"][0]
    assert set(river) >= {"id", "edges"}
    player = view["players"][0]
    assert set(player) >= {"seat", "name", "score", "rank", "supply", "building_cards", "scoring_cards_in_hand",
                           "played_building_cards", "played_scoring_cards", "birds", "can_share"}
    assert len(view["board"]["sites"]) == 49


def test_seat_view_adds_own_secrets_and_legal_moves() -> None:
    game = advanced()
    seat = game.to_move
    view = game.view(seat)
    assert view["you"]["seat"] == seat
    assert view["you"]["scoring_cards"] == sorted(game.hand_scoring[seat])
    assert view["you"]["bird_chips"] == game.birds[seat]
    assert view["you"]["legal_moves"] == [str(m) for m in game.legal_moves()]
    other = (seat + 1) % game.n
    assert game.view(other)["you"]["legal_moves"] == []
    assert "build_sites" not in game.view(other)["you"]


def test_seat_view_says_what_each_scoring_card_scores_now_for_the_seat_and_the_best_other() -> None:
    """``you["cards_now"]`` is ``Game.card_now`` for each card of the hand during landing and play (any game the
    view could come from counts the same: ``test_ai.test_determinized_game_shows_the_same_view``)."""
    game, rng = new_game(["P0", "P1", "P2", "P3"], 5), random.Random(5)
    named = nobody = ties = 0
    while not game.is_over():
        for seat in range(game.n):
            you = game.view(seat)["you"]
            if game.phase not in ("land", "play"):
                assert you["cards_now"] == []
                continue
            assert [now["card"] for now in you["cards_now"]] == you["scoring_cards"]
            for now in you["cards_now"]:
                card = now["card"]
                assert now == game.card_now(seat, card)
                points = [game.card_points(p, card) for p in range(game.n)]
                others = [p for p in range(game.n) if p != seat]
                best = max(points[p] for p in others)
                assert (now["points"], now["other_points"]) == (points[seat], best)
                if best == 0:
                    nobody += 1
                    assert now["other"] is None, "nobody is named when every other seat would score nothing"
                else:
                    named += 1
                    assert now["other"] == next(p for p in others if points[p] == best), "the first of the best"
                    ties += sum(points[p] == best for p in others) > 1
        game.apply(rng.choice(game.legal_moves()))
    assert named and nobody and ties, "every case occurs in this game"
    assert "you" not in game.view(None)


def test_seat_view_tells_where_each_kind_of_build_could_go_for_a_double_move() -> None:
    game = new_game(["a", "b"], 4)
    while game.phase != "play":
        game.apply(game.legal_moves()[0])
    seat = game.to_move
    sites = game.view(seat)["you"]["build_sites"]
    assert set(sites) == {"ship", "river", "road"}
    for kind, listed in sites.items():
        free, share = game.targets(seat, kind)
        assert listed == sorted(free + share)
        if game.hand_building[seat][kind]:
            legal = {m.site for m in game.legal_moves() if m.verb == kind and m.site}
            assert legal == set(listed)
    with pytest.raises(ValueError, match="no seat"):
        game.view(7)


def test_events_report_what_happened_in_order_and_hide_secret_values() -> None:
    game = new_game(["a", "b"], 3)
    events = game.apply(game.legal_moves()[0])
    assert events[0]["type"] == "build"
    assert events == game.view(None)["events"]
    for e in events:
        assert e["type"] in {"build", "score", "bird", "reveal"}
        assert "value" not in e and "secret" not in e


def test_own_bird_chip_value_is_shown_only_to_its_owner() -> None:
    for seed in range(40):
        game = new_game(["a", "b"], seed)
        while game.phase == "land":
            seat = game.to_move
            game.apply(game.legal_moves()[0])
            birds = [e for e in game.view(seat)["events"] if e["type"] == "bird"]
            if birds:
                assert birds[0]["value"] == game.birds[seat][-1]
                assert "value" not in next(e for e in game.view(1 - seat)["events"] if e["type"] == "bird")
                return
    pytest.fail("no bird chip drawn in 40 games")


def test_undo_takes_back_a_move_that_revealed_nothing() -> None:
    game = advanced(2, 5, 10)
    for _ in range(200):
        moves = game.legal_moves()
        if game.to_move is None:
            break
        before = game.clone()
        game.apply(moves[0])
        if game.can_undo():
            back = game.undo()
            assert back == before
            return
    pytest.fail("no undoable move found")


def test_undo_is_refused_after_a_reveal_or_a_scoring_card() -> None:
    game = new_game(["a", "b"], 1)
    game.apply(game.legal_moves()[0])  # a landing reveals connected tiles (or draws a bird chip)
    if any(e["type"] in ("reveal", "bird") for e in game.events):
        assert not game.can_undo()
        with pytest.raises(IllegalMove, match="cannot be taken back"):
            game.undo()
    while game.phase != "over":
        move = game.legal_moves()[-1]
        game.apply(move)
        if move.verb == "score":
            assert not game.can_undo()
            return


def test_replay_reproduces_the_game_and_stops_at_a_bad_move() -> None:
    game = advanced(3, 8, 40)
    moves = [m for _, m in game.moves]
    assert replay(game.names, 8, moves) == game
    with pytest.raises(IllegalMove):
        replay(game.names, 8, [*moves, "land 999"])


def test_illegal_move_errors_are_value_errors_with_plain_words() -> None:
    game = new_game(["a", "b"], 1)
    with pytest.raises(ValueError, match="first lands"):
        game.apply("score birds")
