"""Typed moves, verbs declared once, machine-readable reasons and what a build command means."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine import (
    BUILDING_CARDS,
    REASONS,
    SINGLE_BUILDS,
    SITE_VERBS,
    VERBS,
    BuildPlan,
    IllegalMove,
    Move,
    builds_nothing,
    parse_move,
    plan_build,
)
from tests.helpers.engine import arranged, play

ROOT = Path(__file__).resolve().parents[2]


def landed():
    game = arranged()
    play(game, "land 1", "land 2")
    return game


@pytest.mark.parametrize(("text", "verb", "site", "card", "kind", "letter", "pile"), [
    ("land 12", "land", 12, None, None, None, None),
    ("ship 7", "ship", 7, "ship", "ship", None, None),
    ("road", "road", None, "road", "road", None, None),
    ("double river", "double", None, "double", "river", None, None),
    ("build 9", "build", 9, None, None, None, None),
    ("pass", "pass", None, None, None, None, None),
    ("score river", "score", None, "river", None, None, None),
    ("discard gold10", "discard", None, "gold10", None, None, None),
    ("set B", "set", None, None, None, "B", None),
    ("pile 2", "pile", None, None, None, None, 2),
])
def test_a_move_says_what_it_is_through_typed_attributes(text: str, verb: str, site: int | None, card: str | None,
                                                          kind: str | None, letter: str | None,
                                                          pile: int | None) -> None:
    move = parse_move(text)
    assert (move.verb, move.site, move.card, move.kind, move.letter, move.pile) == (verb, site, card, kind, letter,
                                                                                     pile)
    assert move.plays_card == (verb in (*BUILDING_CARDS, "score"))
    with pytest.raises(AttributeError):
        move.site = 3  # type: ignore[misc]  # moves are immutable: this must fail


def test_verbs_and_building_kinds_are_declared_once_in_canonical_order() -> None:
    assert (*SINGLE_BUILDS, "double") == BUILDING_CARDS
    assert ("land", *SINGLE_BUILDS, "build") == SITE_VERBS
    moves = [Move(v, a) for v, a in (("discard", "birds"), ("set", "A"), ("pile", 0), ("score", "fish"),
                                     ("pass", None), ("build", 3), ("double", "ship"), ("road", None),
                                     ("road", 2), ("river", 1), ("ship", 1), ("land", 1))]
    assert [m.verb for m in sorted(moves, key=lambda m: m.sort_key)] == [
        "set", "land", "ship", "river", "road", "road", "double", "build", "pass", "score", "pile", "discard"]
    assert [m.verb for m in sorted(moves, key=lambda m: m.sort_key)] == sorted(
        (m.verb for m in moves), key=VERBS.index)


_SURGERY = re.compile(r"""partition\(" "\)|\.split\(\)\[|startswith\(f?"(?:""" + "|".join(VERBS) + r""")\b"""
                      r"""|\("ship", "river", "road"|(?:SITE|MOVE)_VERBS\s*(?::[^=]*)?=|_VERB_ORDER""")


def test_no_reader_outside_the_engine_takes_the_notation_apart_or_lists_verbs_again() -> None:
    readers = [*ROOT.glob("bot/**/*.py"), *ROOT.glob("render/*.py"), *ROOT.glob("i18n/*.py"),
               *ROOT.glob("engine/ai/*.py"), ROOT / "play" / "cli.py", ROOT / "engine" / "game.py"]
    assert len(readers) > 20
    found = [f"{path.relative_to(ROOT)}: {line.strip()}" for path in readers
             for line in path.read_text(encoding="utf-8").splitlines() if _SURGERY.search(line)]
    assert found == []


@pytest.mark.parametrize(("text", "code", "params"), [
    ("", "no_move", {}),
    ("fly 3", "unknown_verb", {"verb": "fly", "verbs": list(VERBS)}),
    ("land", "needs_site", {"verb": "land"}),
    ("land x", "not_a_number", {"verb": "land", "text": "x"}),
    ("ship 0", "no_such_site", {"verb": "ship", "site": 0}),
    ("pile 12", "no_such_pile", {"verb": "pile", "pile": 12}),
    ("set Z", "unknown_set", {"verb": "set", "sets": ["A", "B", "C", "D"]}),
    ("ship 3 4", "too_many_words", {"verb": "ship", "text": "ship 3 4"}),
    ("double church", "double_needs_kind", {"verb": "double"}),
])
def test_a_malformed_notation_has_a_reason_code_and_parameters(text: str, code: str, params: dict) -> None:
    with pytest.raises(IllegalMove) as caught:
        parse_move(text)
    assert (caught.value.code, caught.value.params) == (code, params)


@pytest.mark.parametrize(("text", "code", "params"), [
    ("ship 2", "share_last_only", {"site": 2}),
    ("road 6", "road_too_far", {"site": 6}),
    ("score gold10", "scoring_card_not_held", {"card": "gold10"}),
    ("land 3", "landing_only_at_start", {}),
    ("pile 1", "piles_only_in_round_two", {}),
    ("ship 77", "site_not_on_island", {"site": 77, "last": 10}),
    ("build 4", "build_only_in_double", {}),
    ("pass", "nothing_to_pass", {}),
    ("road", "must_choose_site", {"kind": "road", "site": 5, "sites": [5]}),
    ("ship 1", "own_site", {"site": 1}),
])
def test_the_engine_refuses_a_move_with_a_code_and_parameters(text: str, code: str, params: dict) -> None:
    game = landed()
    before = game.to_json()
    with pytest.raises(IllegalMove) as caught:
        game.apply(text)
    assert (caught.value.code, caught.value.params) == (code, params)
    refusal = game.refusal(text)
    assert refusal is not None and (refusal.code, refusal.params) == (code, params)
    assert str(caught.value) == REASONS[code].format(**{k: ", ".join(map(str, v)) if isinstance(v, list) else v
                                                        for k, v in params.items()})
    assert game.to_json() == before


def test_a_building_missing_from_the_supply_is_named_with_its_site() -> None:
    game = landed()
    game.supply[0][1] = 0  # no church left: coast 3 shows a church
    game._legal = None
    refusal = game.refusal("ship 3")
    assert refusal is not None
    assert (refusal.code, refusal.params) == ("no_building_in_supply", {"site": 3, "building": "church"})
    assert game.refusal("ship 4") is None
    with pytest.raises(ValueError, match="unknown reason code"):
        IllegalMove("no_such_code")


def test_a_build_command_is_planned_by_the_engine() -> None:
    game = landed()
    legal = game.legal_moves()
    sites = game.view(0)["you"]["build_sites"]
    assert plan_build(legal, sites, None, None, None) == BuildPlan(problem="need_card")
    assert plan_build(legal, sites, "double", None, None) == BuildPlan(problem="need_kind")
    assert plan_build(legal, sites, "ship", 3, "road") == BuildPlan(problem="kind_only_double")
    assert plan_build(legal, sites, "road", None, None) == BuildPlan(problem="need_site", sites=(5,))
    assert plan_build(legal, sites, "river", None, None) == BuildPlan((Move("river"),), confirm=True)
    assert plan_build(legal, sites, "ship", 3, None) == BuildPlan((Move("ship", 3),))
    assert plan_build(legal, sites, "double", 3, "ship") == BuildPlan((Move("double", "ship"), Move("build", 3)))
    assert sites["river"] == []
    assert plan_build(legal, sites, "double", None, "river") == BuildPlan((Move("double", "river"),), confirm=True)
    game.apply("double road")
    legal = game.legal_moves()
    assert [str(m) for m in legal] == ["build 5"]
    assert plan_build(legal, None, None, 5, None) == BuildPlan((Move("build", 5),))
    assert plan_build(legal, None, "double", None, None) == BuildPlan(problem="need_site", sites=(5,))


def test_only_moves_that_build_nothing_need_a_confirmation() -> None:
    legal = [parse_move(m) for m in ("ship 3", "river", "double ship", "double river", "score birds")]
    sites = {"ship": [3], "river": [], "road": [5]}
    assert [str(m) for m in legal if builds_nothing(m, legal, sites)] == ["river", "double river"]
    assert builds_nothing(Move("pass"), [Move("pass")], None)
    assert builds_nothing(Move("double", "river"), legal, None)  # without the view: the bare river card tells
    assert not builds_nothing(Move("double", "ship"), legal, None)
