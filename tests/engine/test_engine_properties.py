"""Property tests over many random legal games (2–4 players, dealt or drafted sets).

Invariants checked along the way: buildings and cards are conserved, scores equal the start values plus
the score events, legal moves are unique, sorted and round-trip through the notation, views are
JSON-ready and do not change when hidden information changes, the JSON round trip and a replay give the
same game, and an illegal move changes nothing.
"""

from __future__ import annotations

import json
import operator
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import BUILDING_SETS, SCORING_CARD_IDS, Game, IllegalMove, new_game, parse_move, replay
from engine.cards import START_SCORES, SUPPLY

SUPPLY_LIST = [SUPPLY["house"], SUPPLY["church"], SUPPLY["lighthouse"]]
ALL_SCORING_CARDS = sorted(SCORING_CARD_IDS)
SORT_KEY = operator.attrgetter("sort_key")
TO_JSON = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode
"""For the views' round trip: compact, and without the check for cycles (one would still fail, by recursion)."""


def check_conservation(game: Game) -> None:
    """Checked after every move of every game (the hottest helper here): one pass over the board for all seats."""
    on_board = [[0, 0, 0] for _ in range(game.n)]
    for occ in game.occupants:
        for p, b in occ:
            assert 0 <= p < game.n, (p, occ)
            on_board[p][b] += 1
    for seat in range(game.n):
        total = [game.supply[seat][i] + on_board[seat][i] + game.destroyed[seat][i] for i in range(3)]
        assert total == SUPPLY_LIST, (seat, total)
        letter = game.set_of[seat]
        if letter is not None:
            played = {k: game.played_building[seat].count(k) for k in BUILDING_SETS[letter]}
            assert {k: game.hand_building[seat][k] + played[k] for k in played} == BUILDING_SETS[letter]
    untaken = [c for p in game.piles if p["taken_by"] is None for c in p["scoring_cards"]]
    cards = (game.deck + untaken + [c for h in game.hand_scoring for c in h]
             + [c for h in game.played_scoring for c in h] + [c for c in game.discarded if c])
    assert sorted(cards) == ALL_SCORING_CARDS  # every scoring card is somewhere, in either round
    if game.round == 1:  # the piles and the discard only come with round 2
        assert not game.piles and not any(game.discarded), (game.piles, game.discarded)
    assert len(game.chips) + sum(len(b) for b in game.birds) == len(game.island.bird_chips)
    assert sorted(game.ranking()) == list(range(game.n))


def check_legal_moves(game: Game) -> None:
    moves = game.legal_moves()
    assert len(set(moves)) == len(moves)
    assert moves == sorted(moves, key=SORT_KEY)
    if game.to_move is None:
        assert moves == []
    else:
        assert moves
    for move in moves:
        assert parse_move(str(move)) is move


def hide_differently(game: Game, seat: int | None, rng: random.Random) -> Game:
    """A copy whose hidden information (for ``seat``) is different: deck order, face-down tiles, others' hands
    and chip values."""
    other = game.clone()
    rng.shuffle(other.deck)
    others = [p for p in range(game.n) if p != seat]
    # swap other players' scoring cards with deck cards
    for p in others:
        hand = other.hand_scoring[p]
        for i in range(len(hand)):
            if other.deck:
                j = rng.randrange(len(other.deck))
                hand[i], other.deck[j] = other.deck[j], hand[i]
    # change others' chip values (same counts) using the pool; they are public once the game is over
    for p in others if game.phase != "over" else []:
        chips = other.birds[p]
        for i in range(len(chips)):
            if other.chips:
                j = rng.randrange(len(other.chips))
                chips[i], other.chips[j] = other.chips[j], chips[i]
    rng.shuffle(other.chips)
    # re-lay face-down tiles among face-down sites and the box, kind by kind
    isl = other.island
    for kind in ("land", "volcano", "coast"):
        hidden = [s for s in isl.sites_of_kind[kind] if not other.revealed[s]]
        used = {other.tile_at[s] for s in isl.sites_of_kind[kind]}
        pool = [other.tile_at[s] for s in hidden] + [t.id for t in isl.tiles if t.kind == kind and t.id not in used]
        rng.shuffle(pool)
        for s, t in zip(hidden, pool, strict=False):
            other.tile_at[s] = t
    other._derive()
    other._legal = None
    return other


def visible(view: dict) -> dict:
    """A view without what its seat legitimately sees differently in a re-hidden copy (nothing)."""
    return view


def run_checks(n: int, seed: int, draft: bool, picks: list[int], deep: bool, final: bool = True) -> Game:
    """A random (or ``picks``-driven) game with conservation, scores and legal moves checked after every move;
    ``deep``: views, secrecy, JSON and replay every ninth move too; ``final``: those deep checks at the end. The
    replay check plays the game again once, comparing the JSON at every position the deep checks looked at."""
    game = new_game([f"P{i}" for i in range(n)], seed, draft=draft)
    rng = random.Random(seed)
    start = {p: START_SCORES[i] for i, p in enumerate(game.turn_order)}
    totals = dict(start)
    step = 0
    looked: dict[int, str] = {}
    """Move count -> the game's JSON where the deep checks looked."""
    logged = 0
    """Log entries whose views went through JSON at an earlier deep check."""
    while game.to_move is not None:
        moves = game.legal_moves()
        pick = picks[step % len(picks)] if picks else rng.randrange(len(moves))
        events = game.apply(moves[pick % len(moves)])
        for e in events:
            if e["type"] == "score":
                totals[e["seat"]] += e["delta"]
            assert "secret" not in e
        assert [totals[p] for p in range(n)] == game.score
        step += 1
        check_conservation(game)
        check_legal_moves(game)
        if deep and step % 9 == 0:
            looked[len(game.moves)] = check_deep(game, rng, logged)
            logged = len(game.log)
    if final or deep:
        looked[len(game.moves)] = check_deep(game, rng, logged)
    if looked:
        check_replay(game, looked)
    assert game.phase == "over"
    return game


def check_replay(game: Game, looked: dict[int, str]) -> None:
    """Replaying the game's moves from its seed gives the same JSON at every position in ``looked`` (the final one
    among them: :func:`run_checks` always looks there)."""
    again = new_game(game.names, game.seed, draft=game.draft)
    moves = [m for _, m in game.moves]
    for count, move in enumerate(moves, start=1):
        again.apply(move)
        if count in looked:
            assert again.to_json() == looked[count], f"the replay differs after {count} moves"


def check_deep(game: Game, rng: random.Random, logged: int = 0) -> str:
    """Views, secrecy, the JSON round trip and refused illegal moves at this position; the game's JSON.

    ``logged``: the first log entries, whose views went through JSON at an earlier look at this game. A log entry
    is shown in a view from that entry alone (never changed once written), the seat and whether the game is over:
    until the game is over, those entries' views are the ones already checked, and only the newer entries go
    through JSON again (the views of a game of 100 moves looked at every ninth move otherwise serialize its
    early entries eleven times for each seat); once it is over, every entry does."""
    # views are JSON-ready, unchanged by hidden information, and the JSON round trip is exact
    views = {}
    for seat in [None, *range(game.n)]:
        view = views[seat] = game.view(seat)
        fresh = view if game.is_over() else {**view, "log": view["log"][logged:]}
        assert json.loads(TO_JSON(fresh)) == fresh
        assert visible(hide_differently(game, seat, rng).view(seat)) == visible(view), seat
        if seat is not None:
            others = [p for p in view["players"] if p["seat"] != seat]
            assert all("scoring_cards" not in p for p in others)
    text = game.to_json()
    again = Game.from_json(text)
    assert again.to_json() == text
    assert again.view(0) == views[0]
    # an illegal move changes nothing
    if game.to_move is not None:
        legal = set(map(str, game.legal_moves()))
        for text_move in ("land 1", "ship 1", "road 30", "river 12", "score birds", "build 3", "pile 0",
                          "discard fish", "set A", "pass", "double road", "ship"):
            if text_move not in legal:
                try:
                    game.apply(text_move)
                except IllegalMove:
                    pass
                else:
                    raise AssertionError(f"{text_move} was applied though not legal")
        assert game.to_json() == text, "a refused move changed the game"
    return text


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 4), seed=st.integers(0, 2**32), draft=st.booleans(),
       picks=st.lists(st.integers(0, 1000), max_size=40))
def test_random_games_keep_every_invariant(n: int, seed: int, draft: bool, picks: list[int]) -> None:
    run_checks(n, seed, draft, picks, deep=True)


@pytest.mark.parametrize("first", range(0, 2000, 250))  # 2,000 games in 8 parts, spread over the test workers
def test_two_thousand_random_games_end_properly_with_conserved_pieces(first: int) -> None:
    for seed in range(first, first + 250):
        n = 2 + seed % 3
        # every game is checked move by move; the deep checks of the final position (views, secrecy, JSON, replay:
        # the costly part) in one game of four, which still covers 2, 3 and 4 players, drafted or not
        game = run_checks(n, seed, seed % 5 == 0, [], deep=False, final=seed % 4 == 0)
        assert game.events[-1]["type"] == "game_over"
        assert game.round == 2


def test_replay_is_deterministic() -> None:
    game = run_checks(4, 99, True, [], deep=False)
    again = replay(game.names, 99, [m for _, m in game.moves], draft=True)
    assert again == game
    assert again.view(None) == game.view(None)


def test_the_secrecy_check_changes_hidden_state_and_would_see_a_leak() -> None:
    game = new_game(["a", "b", "c"], 5)
    rng = random.Random(1)
    for _ in range(20):
        game.apply(rng.choice(game.legal_moves()))
    other = hide_differently(game, 0, rng)
    assert other.to_json() != game.to_json()
    assert other.view(0) == game.view(0)
    # seat 0's own cards are not hidden from seat 0: other cards in its hand show in its view
    hand = game.hand_scoring[0]
    others = [card for card in other.deck if card not in hand][:len(hand)]
    assert hand and len(others) == len(hand), "seat 0 holds cards, and the deck others to put in their place"
    other.hand_scoring[0] = others
    assert other.view(0)["you"] != game.view(0)["you"]
