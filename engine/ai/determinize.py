"""Determinization: a full :class:`engine.Game` consistent with what one seat may know.

A computer player sees only ``game.view(seat)``. To search it needs whole games, so
:func:`determinize` builds one from the view by sampling every unknown:

- the tiles of face-down sites, from the tiles of that kind not visible on the board;
- the other seats' scoring cards: in round 1 from the cards not seen (not in the seat's hand, not
  played); in round 2 a seat's hand is its public pile plus one drawn card, minus one discarded card,
  minus what it played, so only the drawn card (unless it has been played) and the discard are sampled;
- the scoring deck (its cards and order), from the cards left over;
- the other seats' bird-chip values and the order of the chip pile, from the chip multiset minus the
  seat's own chips.

Everything public or the seat's own is copied from the view, so ``determinize(view, ...).view(seat)``
equals ``view`` (the test suite checks this). Nothing here reads another seat's secrets: the input is the
view only.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping
from fractions import Fraction
from functools import cache
from typing import Any

from engine.cards import BUILDING_CARDS, BUILDINGS, SCORING_CARD_IDS
from engine.game import Game, PlayerRecord
from engine.island import Island, Tile, default_island
from engine.moves import parse_move

__all__ = ["ERUPTION_STATUSES", "determinize", "eruption_risk", "last_card_seat", "unseen_cards"]

_B = {b: i for i, b in enumerate(BUILDINGS)}
# Which keys of an event are the acting seat's secret (see engine/game.py).
_SECRET_KEYS = {"bird": ("value",), "draw": ("card",), "discard": ("card",)}


_TileLooks = tuple[str, int, tuple[str, ...], int, bool]
"""What a face-up tile shows (building, points, resources, fish bonus, bird): tiles that look alike are alike."""


@cache
def _tiles_by_looks(island: Island) -> dict[str, dict[_TileLooks, tuple[Tile, ...]]]:
    """Per site kind, the island's tiles by what they show, each group in the island's order."""
    out: dict[str, dict[_TileLooks, tuple[Tile, ...]]] = {}
    for kind in island.sites_of_kind:
        groups: dict[_TileLooks, list[Tile]] = {}
        for t in island.tiles:
            if t.kind == kind:
                groups.setdefault((t.building, t.points, tuple(t.resources), t.fish_bonus, t.bird), []).append(t)
        out[kind] = {looks: tuple(tiles) for looks, tiles in groups.items()}
    return out


def last_card_seat(view: Mapping[str, Any]) -> int | None:
    """The seat that played the most recent card (building or scoring), from the public log."""
    for entry in reversed(view["log"]):
        if entry["move"] != "discard" and parse_move(entry["move"]).plays_card:
            return int(entry["seat"])
    return None


def unseen_cards(view: Mapping[str, Any]) -> list[str]:
    """Scoring cards the viewing seat has not seen anywhere (hidden hands, the deck, others' discards)."""
    you = view["you"]
    seen: set[str] = set(you["scoring_cards"])
    if you.get("discarded"):
        seen.add(you["discarded"])
    for pile in view.get("piles", []):
        seen.update(pile["scoring_cards"])
    for p in view["players"]:
        seen.update(p["played_scoring_cards"])
    return [c for c in SCORING_CARD_IDS if c not in seen]


ERUPTION_STATUSES = ("unseen", "yours", "pile", "played", "out")
"""Where the eruption card is for a seat (:func:`eruption_risk`): not seen yet (another seat may hold it), in the
seat's own hand, in a round-1 pile another seat took (or may take) in round 2, already played this round, or out
of play (put back in the box, or a pile's card its taker must have discarded)."""


def _keeps(view: Mapping[str, Any], seat: int) -> Fraction:
    """The chance that ``seat`` still holds a given card of its round-2 hand that it has not played: it put one of
    its unplayed cards back in the box (any of them, as far as others can tell), once it has discarded."""
    held = view["players"][seat]["scoring_cards_in_hand"]
    if view["phase"] in ("choose_pile",) or (view["phase"] == "discard" and seat not in view.get("discarded", [])):
        return Fraction(1)
    return Fraction(held, held + 1)


def eruption_risk(view: Mapping[str, Any]) -> tuple[str, Fraction]:
    """Where the eruption card is for the seat whose view this is (one of :data:`ERUPTION_STATUSES`), and the exact
    chance that another seat holds it now, counted from that view alone.

    Every card the seat has not seen is equally likely to be any of the cards hidden from it (the scoring deck's,
    the others' hands), so in round 1 the chance is the others' hand cards over all unseen cards (a 4-player
    landing: 6 of 14). In round 2 another seat's hand is its public pile plus the one card it drew, less the card
    it put back (any of its unplayed cards, as far as the seat can tell): an unseen eruption card is one seat's
    drawn card with a chance of 1 in the unseen cards, and then still in its hand unless it was the card put back;
    a pile's eruption card is still in its taker's hand unless it was the card put back. The determinized games of
    :func:`determinize` sample exactly these chances.
    """
    you = view.get("you")
    seat = view.get("seat")
    if you is None or seat is None:
        raise ValueError("the eruption risk is counted from a seat's view, not the public one")
    players = view["players"]
    if "eruption" in you["scoring_cards"]:
        return "yours", Fraction(0)
    if any("eruption" in p["played_scoring_cards"] for p in players):
        return "played", Fraction(0)
    if you.get("discarded") == "eruption":
        return "out", Fraction(0)
    for pile in view.get("piles", []):
        taker = pile["taken_by"]
        if "eruption" in pile["scoring_cards"] and taker != seat:
            if taker is None:
                return "pile", Fraction(0)  # on the table, for whoever takes its pile
            chance = _keeps(view, taker)
            return ("pile", chance) if chance else ("out", chance)
    unseen = unseen_cards(view)
    if "eruption" not in unseen:
        return "out", Fraction(0)
    others = [q for q in range(len(players)) if q != seat]
    if view["round"] == 1:
        return "unseen", Fraction(sum(players[q]["scoring_cards_in_hand"] for q in others), len(unseen))
    chance = Fraction(0)
    for q in others:
        pile = next((list(p["scoring_cards"]) for p in view.get("piles", []) if p["taken_by"] == q), [])
        if any(c not in pile for c in players[q]["played_scoring_cards"]):
            continue  # its drawn card is known: it played it
        chance += Fraction(1, len(unseen)) * _keeps(view, q)
    return "unseen", chance


def determinize(view: Mapping[str, Any], rng: random.Random, *, island: Island | None = None,
                keep_log: bool = True) -> Game:
    """A game equal to the one ``view`` was made from in everything ``view`` shows, unknowns sampled.

    ``view`` must be a seat's view (``game.view(seat)``). ``island`` is the board the game is played on
    (default: the project's island). ``keep_log=False`` leaves the move log and last events empty, which
    makes the game cheaper to copy (for search); the view then differs in those two entries only.
    """
    seat = view["seat"]
    if seat is None or "you" not in view:
        raise ValueError("determinize needs a seat's view, not the public one")
    isl = island or default_island()
    players = view["players"]
    n = len(players)
    names = [p["name"] for p in players]
    seed = rng.randrange(1 << 30)  # drawn first, as always, so that a seed keeps choosing the same moves
    you = view["you"]
    phase, round_ = view["phase"], view["round"]

    # ---- tiles: visible ones matched by content, face-down ones sampled from the rest of their kind
    sites = view["board"]["sites"]
    tile_at = [0] * (isl.n_sites + 1)
    revealed = [False] * (isl.n_sites + 1)
    by_looks = _tiles_by_looks(isl)
    matched: set[int] = set()
    hidden_sites: list[int] = []
    for site in sites:
        s = site["id"]
        shown = site["tile"]
        if shown is None:
            hidden_sites.append(s)
            continue
        looks = (shown["building"], shown["points"], tuple(shown["resources"]), shown["fish_bonus"], shown["bird"])
        # the first tile that looks so and is not on another face-up site yet, in the island's order
        tile = next((t for t in by_looks[site["kind"]].get(looks, ()) if t.id not in matched), None)
        if tile is None:
            raise ValueError(f"site {s}: the view shows a tile that is not in the island's tile set")
        tile_at[s] = tile.id
        revealed[s] = True
        matched.add(tile.id)
    pool: dict[str, list[Tile]] = {k: [t for t in isl.tiles if t.kind == k and t.id not in matched]
                                   for k in isl.sites_of_kind}
    for kind in pool:
        rng.shuffle(pool[kind])
    for s in hidden_sites:
        tile_at[s] = pool[isl.kind[s]].pop().id
    occupants: list[list[tuple[int, int]]] = [[] for _ in range(isl.n_sites + 1)]
    for site in sites:
        occupants[site["id"]] = [(int(b["seat"]), _B[b["type"]]) for b in site["buildings"]]
    turn_order = list(view["turn_order"])
    share = [p["seat"] for p in players if p["can_share"]]
    if share:
        share_seat: int | None = share[0]
    elif phase in ("choose_pile", "discard"):
        share_seat = turn_order[-1]  # round 2's last player holds the right once play starts
    else:
        share_seat = None
    piles = [{"id": p["id"], "set": p["set"], "scoring_cards": list(p["scoring_cards"]),
              "taken_by": p["taken_by"]} for p in view.get("piles", [])]
    by_id = {p["id"]: p for p in piles} if round_ == 2 else {}
    # Stamps only break ties on the score track: reproduce the view's ranking.
    stamp = [0] * n
    for i, p in enumerate(view["ranking"]):
        stamp[p] = i + 1

    # ---- scoring cards: own hand known, others sampled
    unseen = unseen_cards(view)
    rng.shuffle(unseen)
    hands: list[list[str]] = [[] for _ in range(n)]
    discarded: list[str | None] = [None] * n
    hands[seat] = list(you["scoring_cards"])
    discarded[seat] = you.get("discarded")
    did_discard = set(view.get("discarded", []))
    if phase == "over":
        did_discard = set(range(n))
    for q in range(n):
        if q == seat:
            continue
        size = players[q]["scoring_cards_in_hand"]
        if round_ == 1:
            hands[q] = [unseen.pop() for _ in range(size)]
            continue
        pile_cards: list[str] = []
        for pile in piles:
            if pile["taken_by"] == q:
                pile_cards = list(pile["scoring_cards"])
        played = players[q]["played_scoring_cards"]
        # The drawn card is known once played from outside the pile.
        drawn_known = [c for c in played if c not in pile_cards]
        drawn = drawn_known[0] if drawn_known else unseen.pop()
        full = [drawn, *pile_cards]
        remaining = [c for c in full if c not in played]
        if q in did_discard or phase in ("land", "play", "over"):
            # It discarded one of the cards it has not played since: any of them, uniformly.
            if len(remaining) != size + 1:
                raise ValueError(f"seat {q}: its round-2 hand does not fit the view")
            discarded[q] = remaining.pop(rng.randrange(len(remaining)))
        hands[q] = remaining
        if len(hands[q]) != size:
            raise ValueError(f"seat {q}: cannot rebuild a hand of {size} scoring cards from the view")
    if len(unseen) < view["scoring_deck"]:
        raise ValueError("not enough unseen scoring cards for the deck")
    deck = [unseen.pop() for _ in range(view["scoring_deck"])]

    # ---- bird chips
    chips = Counter(isl.bird_chips)
    birds: list[list[int]] = [[] for _ in range(n)]
    if phase == "over":
        birds = [list(p["bird_chips"]) for p in players]
        chips.subtract(Counter(v for b in birds for v in b))
    else:
        birds[seat] = list(you["bird_chips"])
        chips.subtract(Counter(birds[seat]))
    rest = sorted(chips.elements())
    rng.shuffle(rest)
    if phase != "over":
        for q in range(n):
            if q != seat:
                birds[q] = [rest.pop() for _ in range(players[q]["birds"])]
    if len(rest) < view["bird_chips_left"]:
        raise ValueError("not enough bird chips left to match the view")

    # ---- log and last events (own secrets restored, others' left out)
    log: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []
    if keep_log:
        log = [{"seat": e["seat"], "move": e["move"], "round": e["round"], "scores": list(e["scores"]),
                "undoable": False, "events": _with_secrets(e["events"], seat)} for e in view["log"]]
        events = _with_secrets(view["events"], seat)

    records = [PlayerRecord(
        score=p["score"], stamp=stamp[q], supply=[p["supply"][b] for b in BUILDINGS],
        destroyed=[p["destroyed"][b] for b in BUILDINGS],
        hand_building={k: p["building_cards"][k] for k in BUILDING_CARDS}, hand_scoring=hands[q],
        set_of=p["building_set"], played_building=list(p["played_building_cards"]),
        played_scoring=list(p["played_scoring_cards"]),
        round1_set=by_id[q]["set"] if q in by_id else None,
        round1_scoring=list(by_id[q]["scoring_cards"]) if q in by_id else [],
        birds=birds[q], discarded=discarded[q]) for q, p in enumerate(players)]
    return Game.restore(
        records, to_move=view["to_move"], island=isl, names=names, seed=seed, draft=False,
        phase=phase, round=round_, tile_at=tile_at, revealed=revealed, occupants=occupants,
        chips=rest[:view["bird_chips_left"]], deck=deck, turn_order=turn_order,
        order=list(view.get("choosing_order", [])), share_seat=share_seat,
        pending=dict(view["pending"]) if view["pending"] else None, piles=piles,
        last_card_seat=last_card_seat(view), events=events, log=log)


def _with_secrets(events: Iterable[Mapping[str, Any]], seat: int) -> list[dict[str, Any]]:
    """Events of ``seat``'s view as the engine keeps them: the seat's own secrets under ``secret`` again (another
    seat's were never in the view; bird-chip values shown once the game is over stay shown)."""
    kept: list[dict[str, Any]] = []
    for e in events:
        out = dict(e)
        keys = _SECRET_KEYS.get(out.get("type", ""), ())
        if out.get("seat") == seat and keys:
            secret = {k: out.pop(k) for k in keys if k in out}
            if secret:
                out["secret"] = secret
        kept.append(out)
    return kept
