"""A game's state fields are declared once (STATE_FIELDS, PlayerRecord); clone, JSON and restore follow them."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest

from engine import Game, new_game, replay
from engine.game import STATE_FIELDS, PlayerRecord

SNAPSHOTS = Path(__file__).parent / "data" / "snapshots_before_issue_10.json"
"""Games saved by ``to_json`` of an earlier version of the engine (commit e91ac1a), as running bots store them."""
BOARD_AND_CACHES = {"island", "_default_island", "n", "site_b", "site_tile", "_site_move", "_legal", "_log_text"}


def random_game(n: int, seed: int, moves: int | None = None) -> Game:
    game = new_game([f"P{i}" for i in range(n)], seed, draft=seed % 2 == 0)
    rng = random.Random(seed)
    while game.to_move is not None and (moves is None or len(game.log) < moves):
        game.apply(rng.choice(game.legal_moves()))
    return game


def table_fields(game: Game) -> dict[str, object]:
    return {f.name: getattr(game, f.name) for f in STATE_FIELDS
            if f.saved and not f.per_seat and f.name not in ("_turn", "_stamps")}


@pytest.mark.parametrize(("n", "seed", "moves"), [(2, 1, 0), (3, 2, 30), (4, 3, None), (3, 4, 70)])
def test_the_declared_fields_are_all_of_a_games_state(n: int, seed: int, moves: int | None) -> None:
    game = random_game(n, seed, moves)
    assert set(vars(game)) == {f.name for f in STATE_FIELDS} | BOARD_AND_CACHES
    assert set(vars(game.clone())) == set(vars(game))
    assert set(vars(Game.from_json(game.to_json()))) == set(vars(game))


def test_a_player_record_holds_each_per_seat_field() -> None:
    per_seat = {f.player_field for f in STATE_FIELDS if f.per_seat and f.saved}
    assert per_seat == {f.name for f in dataclasses.fields(PlayerRecord)}
    game = random_game(3, 5, 40)
    record = game.player(1)
    assert record.score == game.score[1] and record.round1_set == game.round1_sets[1]
    record.supply[0] = 99
    assert game.supply[1][0] != 99  # a copy


@pytest.mark.parametrize("name", ["round2_double_move", "over"])
def test_snapshots_stored_by_the_old_code_load_unchanged(name: str) -> None:
    """Unchanged but for what the old log did not hold: each move's events (told again by replaying the moves)."""
    stored = json.loads(SNAPSHOTS.read_text(encoding="utf-8"))[name]
    game = Game.from_json(stored["snapshot"])
    state = json.loads(game.to_json())
    assert all(entry.pop("events") == made["events"] for entry, made in zip(state["log"], game.log, strict=True))
    for event in state["events"]:  # the bird chips revealed at the end were scored under the reason "birds"
        if event["type"] == "score" and event["reason"] == "bird_chips":
            event["reason"] = "birds"
    assert json.dumps(state, separators=(",", ":"), sort_keys=True) == stored["snapshot"]
    again = replay(stored["names"], stored["seed"], stored["moves"], draft=stored["draft"])
    assert game == again
    assert game.legal_moves() == again.legal_moves()
    for seat in (None, *range(game.n)):
        assert game.view(seat) == again.view(seat)
    if game.to_move is not None:
        move = game.legal_moves()[0]
        assert game.clone().apply(move) == again.apply(move)


@pytest.mark.parametrize(("n", "seed", "moves"), [(2, 6, 10), (3, 7, 60), (4, 8, 95)])
def test_restore_from_player_records_and_fields_gives_the_same_game(n: int, seed: int, moves: int) -> None:
    game = random_game(n, seed, moves)
    assert game.to_move is not None
    players = [game.player(s) for s in range(n)]
    restored = Game.restore(players, to_move=game.to_move, **table_fields(game))
    assert restored == game
    assert restored.legal_moves() == game.legal_moves()


def test_restore_a_finished_game_shows_the_same_to_everyone() -> None:
    game = random_game(4, 8)
    restored = Game.restore([game.player(s) for s in range(4)], to_move=None, **table_fields(game))
    assert restored.is_over() and restored.legal_moves() == []
    for seat in (None, 0, 1, 2, 3):
        assert restored.view(seat) == game.view(seat)


def test_restore_names_missing_and_unknown_fields() -> None:
    game = random_game(2, 9, 5)
    fields = table_fields(game)
    del fields["deck"]
    with pytest.raises(TypeError, match="missing \\['deck'\\], unknown \\['cards'\\]"):
        Game.restore([game.player(0), game.player(1)], to_move=game.to_move, cards=[], **fields)


def test_a_clone_shares_no_mutable_state_with_its_game() -> None:
    game = random_game(3, 10, 45)
    copy = game.clone()
    for field in STATE_FIELDS:
        if field.copy is not None:
            assert getattr(copy, field.name) == getattr(game, field.name), field.name
            assert getattr(game, field.name) is None or getattr(copy, field.name) is not getattr(game, field.name)
    before = game.to_json()
    while copy.to_move is not None:
        copy.apply(copy.legal_moves()[-1])
    assert game.to_json() == before


def test_the_json_is_the_whole_state_dumped_whatever_was_serialized_before() -> None:
    """``to_json`` keeps the text of the log's entries it wrote (they never change) and reuses it while they still
    begin the log: the text stays the plain dump of the state after more moves, in clones that went their own ways
    (sharing what was kept), in a game taken back, and in a game just loaded."""
    def dumped(game: Game) -> str:
        state = {f.name: getattr(game, f.name) for f in STATE_FIELDS if f.saved}
        return json.dumps({"format": 1, "island": None, **state}, separators=(",", ":"), sort_keys=True)

    game = random_game(3, 8, 20)
    rng = random.Random(8)
    assert game.to_json() == dumped(game)
    clones = [game.clone(), game.clone()]
    for _ in range(6):
        for g in (game, *clones):
            g.apply(rng.choice(g.legal_moves()))
            assert g.to_json() == dumped(g)
    assert len({g.to_json() for g in (game, *clones)}) == 3, "the clones' games went their own ways"
    loaded = Game.from_json(game.to_json())
    assert loaded.to_json() == dumped(loaded) == dumped(game)
    earlier = game.at(10)
    assert earlier.to_json() == dumped(earlier)
