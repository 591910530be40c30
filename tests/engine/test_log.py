"""The move log says what each move did: its events, told to each seat as the view tells the last move's."""

from __future__ import annotations

import json
import random

import pytest

from engine import Game, new_game, public_event
from engine.ai.determinize import determinize
from engine.log import Built, built, points_won


def played(n: int, seed: int) -> tuple[Game, list[list[dict]]]:
    """A whole random game and, move by move, the events ``apply`` returned."""
    game = new_game([f"P{i}" for i in range(n)], seed, draft=seed % 2 == 0)
    rng = random.Random(seed)
    returned: list[list[dict]] = []
    while game.to_move is not None:
        returned.append([dict(e) for e in game.apply(rng.choice(game.legal_moves()))])
    return game, returned


@pytest.mark.parametrize(("n", "seed"), [(2, 3), (3, 4), (4, 5)])
def test_every_log_entry_holds_the_events_its_move_caused_each_seat_seeing_its_own_secrets(n: int, seed: int) -> None:
    game, returned = played(n, seed)
    views = {seat: game.view(seat) for seat in (None, *range(n))}
    for index, made in enumerate(returned):
        entry = game.log[index]
        assert [public_event(e) for e in entry["events"]] == made
        for seat, view in views.items():
            told = view["log"][index]["events"]
            for inner, seen in zip(entry["events"], told, strict=True):
                secret = inner.get("secret", {})
                own = seat is not None and inner.get("seat") == seat
                expected = {**public_event(inner), **(secret if own or inner["type"] == "bird" else {})}
                assert seen == expected, (seat, index, inner)  # bird values public: the game is over
    assert json.loads(json.dumps(views[None])) == views[None]


def test_a_bird_chips_value_is_the_takers_alone_until_the_game_is_over() -> None:
    game = new_game(["a", "b", "c"], 8)
    rng = random.Random(8)
    while not any(e["type"] == "bird" for entry in game.log for e in entry["events"]):
        game.apply(rng.choice(game.legal_moves()))
    index, bird = next((i, e) for i, entry in enumerate(game.log) for e in entry["events"] if e["type"] == "bird")
    taker = bird["seat"]

    def told(seat: int | None) -> list[dict]:
        return [dict(e) for e in game.view(seat)["log"][index]["events"] if e["type"] == "bird"]

    assert told(taker) == [{"type": "bird", "seat": taker, "value": bird["secret"]["value"]}]
    for seat in (None, *(p for p in range(3) if p != taker)):
        assert told(seat) == [{"type": "bird", "seat": taker}]


def test_built_says_the_building_its_points_and_the_share_right_spent() -> None:
    checked = shares = 0
    for n, seed in ((2, 11), (3, 12), (4, 13), (4, 14)):
        game, _ = played(n, seed)
        for entry in game.view(None)["log"]:
            events, seat = entry["events"], entry["seat"]
            builds = [e for e in events if e["type"] == "build"]
            site = builds[0]["site"] if builds else None
            result = built(events, seat, site)
            if not builds:
                assert result is None
                continue
            tile = game.site_tile[builds[0]["site"]]
            assert result == Built(tile.building, tile.points, bool(builds[0].get("shared")))
            assert built(events, seat) == result  # a log entry's one build, wherever it was
            assert built(events, seat, site + 1) is None and built(events, (seat + 1) % game.n, site) is None
            assert points_won(events).get(seat, {}).get("build", 0) == tile.points
            shares += result.shared
            checked += 1
    assert checked > 100 and shares > 0


def test_points_won_sums_each_seats_points_by_reason() -> None:
    events = [{"type": "score", "seat": 0, "delta": 4, "reason": "coast"},
              {"type": "score", "seat": 1, "delta": 2, "reason": "coast"},
              {"type": "score", "seat": 1, "delta": 7, "reason": "bird_chips"},
              {"type": "score", "seat": 1, "delta": 1, "reason": "bird_chips"}]
    assert points_won(events) == {0: {"coast": 4}, 1: {"coast": 2, "bird_chips": 8}}  # type: ignore[arg-type]


def test_the_bird_chips_revealed_at_the_end_score_apart_from_the_scoring_card_birds() -> None:
    """The scoring card "birds" (points per chip) and the chips' own values at the end are two reasons."""
    seen = 0
    for seed in range(40):
        game, returned = played(2 + seed % 3, seed)
        if "birds" not in {c for cards in game.played_scoring for c in cards}:
            continue
        won = points_won([e for made in returned for e in made])
        for seat in range(game.n):
            assert won.get(seat, {}).get("bird_chips", 0) == sum(game.birds[seat])
        seen += 1
    assert seen >= 3


def test_a_snapshot_whose_log_lacks_the_events_is_replayed_to_tell_them() -> None:
    game, _ = played(3, 6)
    old = json.loads(game.to_json())
    for entry in old["log"]:
        del entry["events"]
    again = Game.from_json(json.dumps(old))
    assert again == game and again.view(1) == game.view(1)
    old["score"][0] += 1  # not the game its moves make
    with pytest.raises(ValueError, match="replay"):
        Game.from_json(json.dumps(old))


def test_a_determinized_game_keeps_the_log_as_its_seat_saw_it() -> None:
    game = new_game(["a", "b", "c"], 9)
    rng = random.Random(9)
    for _ in range(25):
        game.apply(rng.choice(game.legal_moves()))
    view = game.view(1)
    again = determinize(view, random.Random(1))
    assert again.view(1)["log"] == view["log"]
