"""The coach (engine/ai/coach.py): legal advice, from the seat's view only, with reasons the engine agrees with."""

from __future__ import annotations

import copy
import fcntl
import json
import pickle
import random
import time
from fractions import Fraction
from typing import Any

import pytest

import engine.ai
from engine import Game, new_game
from engine.ai.coach import (
    CLOSE_GAP,
    COMPARISON_CODES,
    MERITS,
    REASON_CODES,
    RISKS,
    SEARCHES,
    STRONGEST,
    Advice,
    CoachError,
    MoveAdvice,
    Reason,
    VolcanoRisk,
    advise,
)
from engine.ai.determinize import determinize, eruption_risk
from engine.ai.master import master_search
from engine.log import points_won

QUICK: dict[str, Any] = {"iterations": 24, "budget": None}
"""A small, deterministic search: every test's advice depends on the view and the seed only."""


def _positions(n: int, seed: int, every: int) -> list[Game]:
    """Copies of a random game's positions, every ``every``-th move (all of the choosing phases)."""
    game = new_game([f"P{i}" for i in range(n)], seed, draft=True)
    rng = random.Random(seed)
    out: list[Game] = []
    k = 0
    while not game.is_over():
        if game.phase != "play" or k % every == 0:
            out.append(game.clone())
        k += 1
        moves = game.legal_moves()
        doubles = [m for m in moves if m.verb == "double"]
        game.apply(rng.choice(doubles) if doubles and rng.random() < 0.3 else rng.choice(moves))
    return out


Advised = tuple[tuple[Game, Advice], ...]


def _advise_all() -> Advised:
    """Positions of 2-, 3- and 4-player games with the coach's advice for the seat to move."""
    out = []
    for n in (2, 3, 4):
        for game in _positions(n, 40 + n, every=7):
            seat = game.to_move
            assert seat is not None
            view = game.view(seat)
            snapshot = copy.deepcopy(view)
            out.append((game, advise(view, seed=n, **QUICK)))
            assert view == snapshot, "the coach changed the view it read"
    return tuple(out)


@pytest.fixture(scope="session")
def advised(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Advised:
    """:func:`_advise_all`, worked out once for the whole run: the first test worker to need it writes it where
    every worker's temporary folders are, and the others read it there (pytest-xdist's way of running a
    session-scoped fixture once). It is about five seconds of searching, which the five tests that read it
    otherwise repeated in each worker they landed in."""
    if worker_id == "master":  # no test workers
        return _advise_all()
    shared = tmp_path_factory.getbasetemp().parent
    path = shared / "coach-advised.pickle"
    with (shared / "coach-advised.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if path.exists():
            loaded: Advised = pickle.loads(path.read_bytes())
            return loaded
        result = _advise_all()
        path.write_bytes(pickle.dumps(result))
        return result


def _reason(advice: MoveAdvice, code: str) -> Reason | None:
    return next((r for r in advice.reasons if r.code == code), None)


def test_the_advice_and_the_runner_up_are_legal_moves_in_every_phase(advised: Advised) -> None:
    phases = set()
    for game, advice in advised:
        legal = [str(m) for m in game.legal_moves()]
        assert advice.best.move in legal
        assert advice.seat == game.to_move
        if len(legal) > 1:
            assert advice.runner_up is not None
            assert advice.runner_up.move in legal and advice.runner_up.move != advice.best.move
        else:
            assert advice.runner_up is None and advice.why_not == ()
        phases.add(game.phase)
        game.clone().apply(advice.best.move)
    assert {"choose_set", "land", "play", "choose_pile", "discard"} <= phases


def test_every_reason_has_a_known_code_and_its_parameters(advised: Advised) -> None:
    seen = set()
    for _game, advice in advised:
        for move in (advice.best, advice.runner_up):
            if move is None:
                continue
            for r in move.reasons:
                assert r.code in REASON_CODES
                assert [name for name, _ in r.params] == list(REASON_CODES[r.code])
                seen.add(r.code)
        for r in advice.why_not:
            assert r.code in COMPARISON_CODES
            if r.code in ("misses", "risks"):
                codes = r["codes"]
                assert isinstance(codes, tuple) and codes
                assert set(codes) <= set(MERITS if r.code == "misses" else RISKS)
    assert {"build_points", "card_score", "bird_chip", "opens", "double_plan", "set_choice"} <= seen


def test_the_points_now_and_the_card_reasons_agree_with_the_engine(advised: Advised) -> None:
    checked = 0
    for game, advice in advised:
        seat = advice.seat
        for card in advice.hand:
            assert card["points"] == game.card_points(seat, card["card"])
            others = [game.card_points(q, card["card"]) for q in range(game.n) if q != seat]
            other = card["other"]
            if other is None:  # the best other would score nothing: nobody is named
                assert card["other_points"] == max(others) == 0
            else:
                assert card["other_points"] == game.card_points(other, card["card"]) == max(others) != 0
        for move in (advice.best, advice.runner_up):
            if move is None:
                continue
            after = game.clone()
            events = after.apply(move.move)
            checked += _points_agree(move, events, seat, game.n)
            for r in move.reasons:
                if r.code in ("card_gain", "card_loss") and r["chance"] == 100:
                    assert game.card_points(seat, str(r["card"])) == r["now"]
                    assert after.card_points(seat, str(r["card"])) == r["after"]
                if r.code == "bird_chip" and r["chance"] == 100:
                    assert any(e["type"] == "bird" and e["seat"] == seat for e in events)
                if r.code == "destroys":
                    destroyed = [e["seat"] for e in events if e["type"] == "destroy"]
                    assert r["yours"] == destroyed.count(seat)
                    assert r["others"] == len(destroyed) - destroyed.count(seat)
    assert checked >= 10


def _points_agree(move: MoveAdvice, events: list[Any], seat: int, n: int) -> int:
    """Check that the points ``move``'s reasons state are those its ``events`` give, by reason (the card's points
    apart from the bird chips a last move reveals); how many reasons stated points."""
    won = points_won(events)
    checked = 0
    built = _reason(move, "build_points")
    if built is not None:
        assert move.points_now == built["points"] == won.get(seat, {}).get("build", 0)
        checked += 1
    for code in ("card_score", "card_score_alone"):
        scored = _reason(move, code)
        if scored is not None:
            card = str(scored["card"])
            got = [won.get(q, {}).get(card, 0) for q in range(n)]
            assert move.points_now == scored["points"] == got[seat]
            best_other = max(got[q] for q in range(n) if q != seat)
            if code == "card_score":
                assert scored["other_points"] == got[scored.number("other")] == best_other != 0
            else:
                assert best_other == 0
            checked += 1
    ends = _reason(move, "ends_game")
    assert (ends is not None) == any(e["type"] == "game_over" for e in events)
    if ends is not None:  # the chips held before the move; one it draws (its value unknown before) comes on top
        held, drawn = list(ends["chips"]), sum(1 for e in events if e["type"] == "bird" and e["seat"] == seat)
        revealed = next(e["chips"] for e in events if e["type"] == "birds" and e["seat"] == seat)
        assert revealed[:len(held)] == held and len(revealed) == len(held) + drawn
        assert ends["points"] == sum(held) == won.get(seat, {}).get("bird_chips", 0) - sum(revealed[len(held):])
        checked += 1
    return checked


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_last_move_s_hint_tells_the_card_s_points_apart_from_the_bird_chips(n: int) -> None:
    """The last card of a game also reveals the bird chips: the hint names the card's points as the result does,
    and the asker's own chips apart ("+7 from your bird chips"), never a guess at another player's."""
    stated = 0
    for seed in range(3):
        game = new_game([f"P{i}" for i in range(n)], 70 + seed)
        rng = random.Random(seed)
        while True:
            last = game.clone()
            game.apply(rng.choice(game.legal_moves()))
            if game.is_over():
                break
        seat = last.to_move
        assert seat is not None
        advice = advise(last.view(seat), seed=seed, **QUICK)
        for move in (advice.best, advice.runner_up):
            if move is not None:
                stated += _points_agree(move, last.clone().apply(move.move), seat, n)
        assert _reason(advice.best, "ends_game") is not None
    assert stated >= 3


def test_the_volcano_risk_matches_the_seat_s_buildings_and_hand(advised: Advised) -> None:
    for game, advice in advised:
        if advice.volcano is None:
            continue
        seat = advice.seat
        volcano_sites = game.island.sites_of_kind["volcano"]
        on_volcano = sum(1 for s in volcano_sites if any(p == seat for p, _ in game.occupants[s]))
        assert advice.volcano.buildings == on_volcano
        assert (advice.volcano.status == "yours") == ("eruption" in game.hand_scoring[seat])
        assert 0 <= advice.volcano.chance <= 100


def _hidden_changed(game: Game, seat: int, rng: random.Random) -> Game:
    """The same game with what ``seat`` cannot see changed: another seat's scoring cards traded with the deck,
    the face-down tiles of each kind shuffled among their sites, the bird-chip pile and the others' chips."""
    data = json.loads(game.to_json())
    n = len(data["names"])
    for q in range(n):
        if q != seat and data["hand_scoring"][q] and data["deck"]:
            i = rng.randrange(len(data["hand_scoring"][q]))
            j = rng.randrange(len(data["deck"]))
            data["hand_scoring"][q][i], data["deck"][j] = data["deck"][j], data["hand_scoring"][q][i]
    island = game.island
    for sites in island.sites_of_kind.values():
        hidden = [s for s in sites if not data["revealed"][s]]
        tiles = [data["tile_at"][s] for s in hidden]
        rng.shuffle(tiles)
        if len(hidden) > 1:
            tiles = tiles[1:] + tiles[:1]  # never the same layout
        for s, tile in zip(hidden, tiles, strict=True):
            data["tile_at"][s] = tile
    pool = list(data["chips"])
    for q in range(n):
        if q != seat:
            pool += data["birds"][q]
    rng.shuffle(pool)
    for q in range(n):
        if q != seat:
            data["birds"][q] = [pool.pop() for _ in data["birds"][q]]
    data["chips"] = pool
    return Game.from_json(json.dumps(data))


def test_the_advice_is_deterministic_with_iterations_and_no_budget() -> None:
    game = _positions(4, 11, every=5)[6]
    seat = game.to_move
    assert seat is not None
    view = game.view(seat)
    assert advise(view, seed=3, **QUICK) == advise(view, seed=3, **QUICK)


def test_the_searcher_is_a_parameter_and_the_default_is_the_strongest() -> None:
    game = _positions(2, 12, every=5)[5]
    seat = game.to_move
    assert seat is not None
    view = game.view(seat)
    assert STRONGEST is SEARCHES[engine.ai.STRONGEST] and set(SEARCHES) == set(engine.ai.SEARCHING)
    assert advise(view, seed=2, searcher=STRONGEST, **QUICK) == advise(view, seed=2, **QUICK)
    master = advise(view, seed=2, searcher=master_search, **QUICK)
    assert master.best.move in view["you"]["legal_moves"]
    # Halving drops candidates after few playouts: the runner-up is the one kept to the end with the best.
    assert master.runner_up is not None and master.runner_up.playouts == master.best.playouts > 24 // 7


def test_the_runner_up_is_explained_by_the_search_s_values(advised: Advised) -> None:
    gaps = 0
    for _game, advice in advised:
        if advice.runner_up is None:
            continue
        gap = next((r for r in advice.why_not if r.code in ("value_gap", "close_call")), None)
        if gap is not None:
            assert advice.best.value is not None and advice.runner_up.value is not None
            assert gap["gap"] == round(100 * (advice.best.value - advice.runner_up.value)) > 0
            assert (gap.code == "close_call") == (gap["gap"] <= CLOSE_GAP)  # a gap the search cannot tell apart
            assert gap["playouts"] == advice.best.playouts + advice.runner_up.playouts
            gaps += 1
        if advice.best.points_now is not None and advice.runner_up.points_now is not None:
            fewer = [r for r in advice.why_not if r.code == "fewer_points"]
            diff = advice.best.points_now - advice.runner_up.points_now
            assert [r["count"] for r in fewer] == ([diff] if diff > 0 else [])
    assert gaps >= 5


def test_no_advice_for_the_public_view_off_turn_or_after_the_game() -> None:
    game = new_game(["Ada", "Bo", "Cy"], 4)
    seat = game.to_move
    assert seat is not None
    with pytest.raises(CoachError) as public:
        advise(game.view(None), **QUICK)
    assert public.value.code == "public_view"
    with pytest.raises(CoachError) as waiting:
        advise(game.view((seat + 1) % 3), **QUICK)
    assert waiting.value.code == "not_your_turn"
    rng = random.Random(1)
    while not game.is_over():
        game.apply(rng.choice(game.legal_moves()))
    with pytest.raises(CoachError) as over:
        advise(game.view(0), **QUICK)
    assert over.value.code == "game_over"


def test_the_default_budget_bounds_the_thinking() -> None:
    """A generous bound (the machine may be busy): the search stops at its budget, the explanations are quick."""
    game = _positions(4, 13, every=5)[4]
    seat = game.to_move
    assert seat is not None
    started = time.perf_counter()
    advice = advise(game.view(seat), seed=1, budget=0.5)
    assert time.perf_counter() - started < 10
    assert advice.best.move in [str(m) for m in game.legal_moves()]


def test_a_reason_checks_its_parameters() -> None:
    assert Reason.of("opens", count=2)["count"] == 2
    with pytest.raises(ValueError, match="opens"):
        Reason.of("opens", sites=2)
    with pytest.raises(ValueError, match="nonsense"):
        Reason.of("nonsense")


# ---------------------------------------------------------------------- the eruption card, counted exactly


def _landing(n: int, *, holds: bool) -> Game:
    """A new dealt game of ``n`` players at its first landing whose seat to move holds the eruption card or not."""
    for seed in range(200):
        game = new_game([f"P{i}" for i in range(n)], seed)
        seat = game.to_move
        assert seat is not None and game.phase == "land"
        if ("eruption" in game.hand_scoring[seat]) == holds:
            return game
    raise AssertionError("no such deal")


@pytest.mark.parametrize(("n", "others", "unseen"), [(4, 6, 14), (3, 6, 13), (2, 4, 12)])
def test_the_eruption_risk_at_a_round_one_landing_is_the_count_of_the_cards_the_seat_cannot_see(
        n: int, others: int, unseen: int) -> None:
    """At a round-1 landing of 4 players the others hold 6 of the 14 cards the seat has not seen (16 less its own
    2): 6/14 = 43 %, not a sample (which read 31–52 % by seed); 6/13 with 3 players, 4/12 with 2. The coach says
    that figure whatever its seed, and the seat that holds the card is told so."""
    game = _landing(n, holds=False)
    seat = game.to_move
    assert seat is not None
    view = game.view(seat)
    assert eruption_risk(view) == ("unseen", Fraction(others, unseen))
    expected = round(100 * others / unseen)
    for seed in (0, 1, 7):
        advice = advise(view, seed=seed, iterations=4, budget=None)
        assert advice.volcano == VolcanoRisk("unseen", expected, 0)
    holder = _landing(n, holds=True)
    assert eruption_risk(holder.view(holder.to_move)) == ("yours", 0)


def _sampled_share(view: dict[str, Any], seat: int, samples: int, seed: int) -> float:
    rng = random.Random(seed)
    held = 0
    for _ in range(samples):
        g = determinize(view, random.Random(rng.random()), keep_log=False)
        held += any("eruption" in g.hand_scoring[q] for q in range(g.n) if q != seat)
    return held / samples


def test_the_eruption_risk_is_what_the_determinized_deals_give_in_every_phase_of_both_rounds() -> None:
    """Across positions of both rounds (the round-2 piles, drawn cards and discards included) the exact figure is
    the share of determinized deals in which another seat holds the card, within the sampling's error; a played
    card, the seat's own and one out of play are never a risk; and the figure depends on the view alone."""
    statuses: set[str] = set()
    for n, seed in ((4, 5), (3, 8), (2, 3), (4, 21)):
        for game in _positions(n, seed, every=9):
            seat = game.to_move
            if seat is None or game.phase not in ("land", "play", "choose_pile", "discard"):
                continue
            view = game.view(seat)
            status, chance = eruption_risk(view)
            statuses.add(status)
            held = any("eruption" in game.hand_scoring[q] for q in range(n) if q != seat)
            if status in ("yours", "played", "out"):
                assert chance == 0 and not held, (status, game.round, game.phase)
                continue
            assert 0 <= chance <= 1 and (chance or not held), (status, chance)
            if game.round == 2:
                samples = 300
                share = _sampled_share(view, seat, samples, seed)
                error = 4 * (float(chance) * (1 - float(chance)) / samples) ** 0.5 + 0.01
                assert abs(share - float(chance)) <= error, (game.phase, share, chance)
            other = _hidden_changed(game, seat, random.Random(seed))
            assert eruption_risk(other.view(seat)) == (status, chance)
    assert {"unseen", "yours", "played"} <= statuses, statuses


def test_the_eruption_card_in_a_round_one_pile_is_held_by_its_taker_unless_put_back() -> None:
    """A round-1 pile with the eruption card: its taker holds it until it puts a card back in the box, then with a
    chance of its hand's cards over those it chose from; put back for sure when nothing else was left."""
    for seed in range(60):
        game = new_game(["A", "B", "C"], seed)
        rng = random.Random(seed)
        while game.round == 1:
            game.apply(rng.choice(game.legal_moves()))
        pile = next((p for p in game.piles if "eruption" in p["scoring_cards"]), None)
        if pile is None:
            continue
        while not game.is_over() and game.phase in ("choose_pile", "discard", "land", "play"):
            taker = pile["taken_by"]
            if taker is not None and game.to_move is not None and game.to_move != taker:
                seat = game.to_move
                status, chance = eruption_risk(game.view(seat))
                hand = len(game.hand_scoring[taker])
                if "eruption" in game.played_scoring[taker]:
                    assert status == "played"
                elif game.discarded[taker] is None:
                    assert (status, chance) == ("pile", 1)
                elif hand:
                    assert (status, chance) == ("pile", Fraction(hand, hand + 1)), (game.phase, hand)
                else:
                    assert status == "out"
                if game.phase == "play":
                    return
            game.apply(rng.choice(game.legal_moves()))
    raise AssertionError("no game put the eruption card in a round-1 pile")
