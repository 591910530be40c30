"""What the moves of a game did, replayed (``engine.history``): a seat's view of every move since its own last one
(``game.view(seat, since=True)``), grouped into turns, with only what that seat may know and what the moves changed
for it; and each seat's score broken down into its parts."""

from __future__ import annotations

import random

from engine import Game, new_game, parse_move
from engine.history import last_move_of, score_breakdown, since_last_move


def played(n: int, seed: int, *, draft: bool = True) -> list[Game]:
    """Every position of a random game, in order (a copy each)."""
    game = new_game([f"P{i}" for i in range(n)], seed, draft=draft)
    rng = random.Random(seed)
    positions = [game.clone()]
    while not game.is_over():
        game.apply(rng.choice(game.legal_moves()))
        positions.append(game.clone())
    return positions


def test_the_seat_to_move_is_told_every_move_since_its_own_last_one_a_double_move_as_one_turn() -> None:
    doubles = 0
    for game in played(4, 7)[1:-1]:
        seat = game.to_move
        assert seat is not None
        since = game.view(seat, since=True)["you"]["since"]
        start = last_move_of(game, seat)
        expected = [e["move"] if e["seat"] == seat or not e["move"].startswith("discard") else "discard"
                    for e in game.log[start:]]
        assert [m for turn in since["turns"] for m in turn["moves"]] == expected
        assert all(e["seat"] != seat for e in game.log[start:])
        for turn in since["turns"]:
            verbs = ["discard" if m == "discard" else parse_move(m).verb for m in turn["moves"]]
            if verbs[0] == "double":  # the card and its builds: one turn
                doubles += 1
                assert set(verbs[1:]) <= {"build", "pass"} and any(e["type"] == "card" for e in turn["events"])
            else:
                assert len(verbs) == 1
            acted = {e["seat"] for e in turn["events"]
                     if e["type"] in ("card", "build", "set", "pile") and not e.get("forced")}  # not a last set left
            assert acted <= {turn["seat"]}
    assert doubles > 0


def test_the_moves_since_show_only_what_the_seat_may_know() -> None:
    own_secrets = 0
    for game in played(3, 4)[1:-1]:
        seat = game.to_move
        assert seat is not None
        for turn in game.view(seat, since=True)["you"]["since"]["turns"]:
            for e in turn["events"]:
                assert "secret" not in e
                if e["type"] in ("bird", "draw", "discard") and e["seat"] != seat:
                    assert "value" not in e and "card" not in e
                elif e["type"] == "draw":
                    own_secrets += 1
                    assert "card" in e  # the card dealt to the seat itself at the new round
    assert own_secrets > 0
    assert "since" not in played(3, 4)[5].view(0)["you"]  # asked for only


def test_a_site_taken_that_a_card_of_the_seat_could_have_used_is_named() -> None:
    found = 0
    for game in played(4, 3)[1:-1]:
        seat = game.to_move
        assert seat is not None
        since = since_last_move(game, seat)
        past = game.at(last_move_of(game, seat))
        built = {e["site"]: e["seat"] for turn in since["turns"] for e in turn["events"] if e["type"] == "build"}
        for taken in since["taken"]:
            found += 1
            assert game.phase == "play" and built[taken["site"]] == taken["seat"] != seat
            for kind in taken["cards"]:
                held = game.hand_building[seat]
                assert held[kind] or held["double"]
                free, share = past.targets(seat, kind)
                assert taken["site"] in free + share
                free, share = game.targets(seat, kind)
                assert taken["site"] not in free + share
    assert found > 0


def test_a_scoring_card_of_the_seat_now_worth_other_points_is_named_with_both_figures() -> None:
    for game in played(3, 10, draft=False)[1:40]:
        seat = game.to_move
        assert seat is not None
        changes = since_last_move(game, seat)["cards"]
        if changes:
            past = game.at(last_move_of(game, seat))
            for change in changes:
                assert change["card"] in game.hand_scoring[seat]
                assert change["before"] == past.card_now(seat, change["card"])["points"]
                assert change["now"] == game.card_now(seat, change["card"])["points"] != change["before"]
            return
    raise AssertionError("no scoring card changed its points in the first 40 moves of this game")


def test_the_breakdown_adds_up_to_each_score_and_tells_the_bird_card_from_the_bird_chips() -> None:
    told = 0
    for n, seed in ((2, 1), (3, 2), (4, 7), (4, 11)):
        final = played(n, seed)[-1]
        for parts in score_breakdown(final):
            seat = parts["seat"]
            total = parts["start"] + parts["buildings"] + sum(parts["cards"].values()) + parts["birds"]
            assert total == final.score[seat]
            assert parts["birds"] == sum(final.birds[seat])  # the chips shown at the end, nothing else
            if "birds" in parts["cards"]:
                told += 1
    assert told > 0  # the scoring card "birds" came up, and was counted as a card
