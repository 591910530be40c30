"""The greedy player: the move with the best immediate value, from public information and its own cards.

A build is worth its tile's points, the expected bird chip, what it adds to the scoring cards the seat
holds (and, weighted by the chance they are played this round, to the cards others may hold) and a little
for the sites it opens up. A face-down tile counts as the average of the tiles of its kind not seen yet.
A scoring card is played when waiting would not make it pay more relative to the others: its value is
how much the others would gain on it by waiting minus how much the seat itself would.

:func:`greedy_move` works on a :class:`~engine.Game` but reads only what ``game.view(seat)`` shows
(public state, the seat's own scoring cards and bird chips), so it can run on the real game (fast) or on
a determinized one; the test suite checks that both give the same move. The expert uses it, with noise,
as its playout policy.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache

from engine.cards import BUILDING_SETS, BUILDINGS, SCORING_CARD_IDS, SCORING_CARDS, SINGLE_BUILDS, ScoringCard
from engine.game import Game
from engine.island import Island, Tile
from engine.moves import Move

__all__ = ["Weights", "card_keep_value", "greedy_move", "move_values"]

_HOUSE, _CHURCH, _LIGHTHOUSE = range(3)
_B = {b: i for i, b in enumerate(BUILDINGS)}
_RESOURCE_CARDS = tuple(c for c in SCORING_CARD_IDS if SCORING_CARDS[c].rule in ("resource", "pair"))


@dataclass(frozen=True)
class Weights:
    """Tunable constants of the evaluation."""

    mobility: float = 0.35
    """Per newly reachable free site (road or river), for seats that still hold such cards."""
    landing_mobility: float = 0.6
    double_keep: float = 2.0
    """What keeping the double move for later is worth (its flexibility)."""
    build_urgency: float = 0.45
    """Share of a build's value lost by waiting (others may take the site)."""
    score_now: float = 0.08
    """Weight of a scoring card's present relative value (tie-break among cards to play)."""
    growth_per_build: float = 0.22
    """Chance that one future build lands on a given kind of site (coast, river) or resource."""


DEFAULT_WEIGHTS = Weights()


@dataclass(frozen=True)
class _IslandInfo:
    tiles_of_kind: dict[str, tuple[Tile, ...]]
    chip_mean: float


@cache
def _island_info(island: Island) -> _IslandInfo:
    kinds = {k: tuple(t for t in island.tiles if t.kind == k) for k in island.sites_of_kind}
    chips = island.bird_chips
    return _IslandInfo(kinds, sum(chips) / len(chips) if chips else 0.0)


def _remaining_builds(game: Game, p: int) -> int:
    """Builds ``p`` may still make this round (building cards, the double counting twice, the landing)."""
    hand = game.hand_building[p]
    builds = hand["ship"] + hand["river"] + hand["road"] + 2 * hand["double"]
    if game.phase == "land" and game.turn_order.index(p) >= game._turn:
        builds += 1
    if game.pending is not None and game.to_move == p:
        builds += game.pending["builds_left"]
    return builds


def _card_probabilities(game: Game, seat: int) -> dict[str, float]:
    """For each scoring card: the chance it is played this round (1 for the seat's own cards)."""
    probs: dict[str, float] = {}
    own = game.hand_scoring[seat]
    for c in own:
        probs[c] = 1.0
    played = {c for hand in game.played_scoring for c in hand}
    n = game.n
    if game.round == 1:
        unseen = [c for c in SCORING_CARD_IDS if c not in played and c not in probs]
        held = sum(len(game.hand_scoring[q]) for q in range(n) if q != seat)
        if unseen and held:
            pr = min(1.0, held / len(unseen))
            for c in unseen:
                probs[c] = pr
        return probs
    seen = set(probs) | played
    own_discard = game.discarded[seat]
    if own_discard:
        seen.add(own_discard)
    pile_of: dict[int, list[str]] = {}
    for pile in game.piles:
        seen.update(pile["scoring_cards"])
        if pile["taken_by"] is not None:
            pile_of[pile["taken_by"]] = pile["scoring_cards"]
    unseen = [c for c in SCORING_CARD_IDS if c not in seen]
    unknown_pr = 0.0
    for q in range(n):
        if q == seat:
            continue
        size = len(game.hand_scoring[q])
        if not size:
            continue
        keep = size / (size + 1) if game.discarded[q] is not None else 1.0
        taken = pile_of.get(q, [])
        drawn_known = any(c not in taken for c in game.played_scoring[q])
        for c in taken:
            if c not in played:
                probs[c] = max(probs.get(c, 0.0), keep)
        if not drawn_known and unseen:
            unknown_pr += keep / len(unseen)
    for c in unseen:
        probs[c] = min(1.0, unknown_pr)
    return probs


class _Context:
    """What the seat knows and values now; built once per decision."""

    def __init__(self, game: Game, seat: int, weights: Weights) -> None:
        self.game = game
        self.seat = seat
        self.w = weights
        isl = game.island
        self.isl = isl
        info = _island_info(isl)
        self.info = info
        site_tile = game.site_tile
        owned = game.owned[seat]
        self.owned = owned
        self.hand = game.hand_building[seat]
        self.supply = game.supply[seat]
        self.builds_left = _remaining_builds(game, seat)
        self.probs = _card_probabilities(game, seat)
        self.own_cards = set(game.hand_scoring[seat])
        self.chips_left = len(game.chips)
        # What the seat holds now.
        have: set[str] = set()
        houses = 0
        types: set[int] = set()
        for s in owned:
            have.update(site_tile[s].resources)
            for p, b in game.occupants[s]:
                if p == seat:
                    types.add(b)
                    if b == _HOUSE:
                        houses += 1
        self.have = frozenset(have)
        self.houses = houses
        self.types = types
        self.road_reach: set[int] = set()
        for s in owned:
            self.road_reach.update(isl.road_nbrs[s])
        self.my_rivers: set[int] = set()
        for s in owned:
            self.my_rivers.update(isl.rivers_of[s])
        # Weights: each scoring card's points times the chance it is played this round.
        probs = self.probs
        self.bird_value = (info.chip_mean + 2.0 * probs.get("birds", 0.0)) if self.chips_left else 0.0
        self._res_memo: dict[tuple[str, ...], float] = {}
        self._facedown_memo: dict[str, tuple[float, float]] = {}
        self.w_coast = 3.0 * probs.get("coast", 0.0)
        self.w_river = 3.0 * probs.get("river", 0.0)
        er = probs.get("eruption", 0.0)
        if "eruption" in self.own_cards:
            er = 0.25  # the seat decides when it erupts
        self.w_volcano = 3.0 * probs.get("volcano", 0.0) - 2.0 * er
        self.w_houses = 6.0 * probs.get("houses", 0.0)
        self.w_trio = 6.0 * probs.get("trio", 0.0)
        self.w_connected = 7.0 * probs.get("connected", 0.0)
        # Road groups of the seat's buildings: only what the connected card is worth needs them.
        self.comp: dict[int, int] = {}
        self.comp_sizes: list[int] = []
        self.largest = 0
        if self.w_connected:
            groups = isl.road_groups(owned)
            self.comp = {site: idx for idx, group in enumerate(groups) for site in group}
            self.comp_sizes = [len(group) for group in groups]
            self.largest = max(self.comp_sizes, default=0)
        self._unseen_tiles: dict[str, list[Tile]] | None = None

    @property
    def unseen_tiles(self) -> dict[str, list[Tile]]:
        """Tiles not seen yet, by kind (the face-down sites hold some of them); worked out when first needed."""
        if self._unseen_tiles is None:
            game, isl = self.game, self.isl
            revealed, tile_at = game.revealed, game.tile_at
            shown = {tile_at[s] for s in range(1, isl.n_sites + 1) if revealed[s]}
            self._unseen_tiles = {k: [t for t in tiles if t.id not in shown]
                                  for k, tiles in self.info.tiles_of_kind.items()}
        return self._unseen_tiles

    # ------------------------------------------------------------------ tile and site values

    def resource_gain(self, resources: tuple[str, ...]) -> float:
        """Expected points from the resource cards for adding ``resources`` (and a fish bonus of 1)."""
        memo = self._res_memo.get(resources)
        if memo is not None:
            return memo
        have = self.have
        new = have.union(resources)
        total = 0.0
        if new != have:
            for c in _RESOURCE_CARDS:
                pr = self.probs.get(c)
                if not pr:
                    continue
                card = SCORING_CARDS[c]
                total += pr * (_res_points(card, new) - _res_points(card, have))
        self._res_memo[resources] = total
        return total

    def tile_value(self, tile: Tile) -> float:
        """What a tile adds (not counting where it lies); 0 when the seat lacks its building."""
        b = _B[tile.building]
        if not self.supply[b]:
            return 0.0
        v = float(tile.points)
        if tile.bird:
            v += self.bird_value
        if tile.resources:
            v += self.resource_gain(tile.resources)
            if tile.fish_bonus and "fish" in tile.resources:
                v += tile.fish_bonus * (self.probs.get("fish", 0.0) + self.probs.get("fish-sheep", 0.0))
        if b == _HOUSE and self.houses < 4 and self.w_houses:
            need = 4 - self.houses
            feasible = 1.0 if self.builds_left >= need else 0.35
            v += self.w_houses * feasible / need
        if b not in self.types and self.w_trio:
            v += self.w_trio / (3 - len(self.types))
        # Scarce buildings: a lighthouse or church used here is not available for a better tile later.
        if b == _LIGHTHOUSE:
            v -= 0.6 if self.supply[b] == 2 else 1.0
        elif b == _CHURCH:
            v -= 0.3 * (4 - self.supply[b]) / 3
        return v

    def site_value(self, site: int, landing: bool = False) -> float:
        """What a site adds besides its tile: per-site scoring cards, road groups, newly reachable sites."""
        isl = self.isl
        kind = isl.kind[site]
        v = 0.0
        if kind == "coast":
            v += self.w_coast
        elif kind == "volcano":
            v += self.w_volcano
        if isl.on_river[site]:
            v += self.w_river
        if self.w_connected and self.largest < 4:
            comps = {self.comp[nb] for nb in isl.road_nbrs[site] if nb in self.comp}
            size = 1 + sum(self.comp_sizes[c] for c in comps)
            if size > self.largest:
                v += self.w_connected * (min(size, 4) - self.largest) / (4 - self.largest)
        # Mobility: newly reachable free sites for the cards still to play.
        game = self.game
        occ = game.occupants
        hand = self.hand
        wm = self.w.landing_mobility if landing else self.w.mobility
        if hand["road"] or hand["double"] or landing:
            new = sum(1 for nb in isl.road_nbrs[site] if not occ[nb] and nb not in self.road_reach)
            v += wm * min(new, 3)
        if hand["river"] or hand["double"] or landing:
            for r in isl.rivers_of[site]:
                if r not in self.my_rivers:
                    new = sum(1 for s in isl.river_sites[r] if not occ[s] and s != site)
                    v += wm * min(new, 3)
        return v

    def facedown(self, kind: str) -> tuple[float, float]:
        """(expected tile value, chance the build succeeds) for a face-down site of ``kind``."""
        memo = self._facedown_memo.get(kind)
        if memo is None:
            tiles = self.unseen_tiles[kind]
            if not tiles:
                memo = (0.0, 0.0)
            else:
                ok = [t for t in tiles if self.supply[_B[t.building]]]
                memo = (sum(self.tile_value(t) for t in ok) / len(tiles), len(ok) / len(tiles))
            self._facedown_memo[kind] = memo
        return memo

    def build_value(self, site: int, landing: bool = False) -> float:
        game = self.game
        if game.revealed[site]:
            tile = game.site_tile[site]
            tv = self.tile_value(tile)
            if not self.supply[_B[tile.building]]:
                return 0.0
            return tv + self.site_value(site, landing)
        tv, ok = self.facedown(self.isl.kind[site])
        return tv + ok * self.site_value(site, landing)

    # ------------------------------------------------------------------ scoring cards

    def score_value(self, card: str) -> float:
        """Value of playing ``card`` now rather than later (relative to the others)."""
        game = self.game
        n = game.n
        seat = self.seat
        now = [game.card_points(p, card) for p in range(n)]
        others = [p for p in range(n) if p != seat]
        rel_now = now[seat] - sum(now[p] for p in others) / len(others)
        g_me = _growth(game, seat, card, now[seat], self.w)
        g_oth = sum(_growth(game, p, card, now[p], self.w) for p in others) / len(others)
        return (g_oth - g_me) + self.w.score_now * rel_now


def _res_points(card: ScoringCard, have: frozenset[str]) -> int:
    """What a resource card pays a seat holding the resources ``have`` (fish bonus not included); kept per card and
    set of resources (a few hundred of them), as every playout asks it again."""
    key = (card.id, have)
    points = _RES_POINTS.get(key)
    if points is None:
        points = _RES_POINTS[key] = _res_points_of(card, have)
    return points


_RES_POINTS: dict[tuple[str, frozenset[str]], int] = {}


def _res_points_of(card: ScoringCard, have: frozenset[str]) -> int:
    got = [r in have for r in card.resources]
    if all(got):
        return card.points
    if any(got):
        return card.partial
    return 0


def _growth(game: Game, p: int, card: str, now: int, w: Weights) -> float:
    """Expected rise of ``p``'s points on ``card`` if it were played at the end of the round instead."""
    b = _remaining_builds(game, p)
    if b <= 0:
        return 0.0
    c = SCORING_CARDS[card]
    rule = c.rule
    q = w.growth_per_build
    if rule in ("resource", "pair"):
        full = c.points
        if now >= full:
            return 0.5 if c.fish_bonus else 0.0
        chance = 1.0 - (1.0 - q) ** b
        return chance * (full - now) * (0.6 if rule == "pair" else 1.0)
    if rule in ("houses", "trio", "connected"):
        if now:
            return 0.0
        return c.points * min(1.0, b / 6.0)
    if rule == "per_coast" or rule == "per_river":
        return 3.0 * b * q * 1.4
    if rule == "per_volcano":
        return 3.0 * b * q * 0.6
    if rule == "eruption":
        return -2.0 * b * q * 0.6
    if rule == "per_bird":
        return 2.0 * b * 0.25 if game.chips else 0.0
    return 0.0


def card_keep_value(game: Game, seat: int, card: str) -> float:
    """A rough value of holding ``card`` for a round (choosing piles and discarding in round 2)."""
    n = game.n
    others = [p for p in range(n) if p != seat]
    if card == "birds":
        mine = len(game.birds[seat])
        theirs = sum(len(game.birds[p]) for p in others) / len(others)
        return 2.0 + 2.0 * (mine - theirs)
    base = {"gold10": 5.0, "sugar": 4.0, "sheep": 4.0, "coast": 4.5, "river": 3.5, "wood": 3.5,
            "gold6": 3.0, "fish": 3.5, "fish-sheep": 3.5, "wood-sugar": 3.5, "houses": 3.5, "trio": 3.0,
            "connected": 3.0, "volcano": 2.5, "eruption": 3.0}
    return base.get(card, 3.0)


def _set_value(letter: str, cards: list[str]) -> float:
    cards_set = set(cards)
    v = {"A": 0.0, "B": 0.0, "C": 0.2, "D": 0.6}[letter]
    mix = BUILDING_SETS[letter]
    if "coast" in cards_set:
        v += 0.8 * mix["ship"]
    if "river" in cards_set:
        v += 0.8 * mix["river"]
    if "connected" in cards_set or "houses" in cards_set:
        v += 0.4 * mix["road"]
    return v


def _number(move: Move) -> int:
    """The site or pile number a move names (every legal move of the landing and pile phases names one)."""
    if not isinstance(move.arg, int):
        raise ValueError(f"{move} names no site or pile")
    return move.arg


def move_values(game: Game, weights: Weights = DEFAULT_WEIGHTS) -> dict[Move, float]:
    """The greedy value of each legal move of the seat to move."""
    seat = game.to_move
    if seat is None:
        return {}
    legal = game.legal_moves()
    phase = game.phase
    out: dict[Move, float] = {}
    if phase == "choose_set":
        hand = game.hand_scoring[seat]
        return {m: _set_value(str(m.arg), hand) for m in legal}
    if phase == "choose_pile":
        hand = list(game.hand_scoring[seat])
        for m in legal:
            pile = game.piles[_number(m)]
            cards = pile["scoring_cards"]
            out[m] = sum(card_keep_value(game, seat, c) for c in cards) + _set_value(pile["set"], hand + cards)
        return out
    if phase == "discard":
        return {m: -card_keep_value(game, seat, str(m.arg)) for m in legal}
    ctx = _Context(game, seat, weights)
    if phase == "land":
        return {m: ctx.build_value(_number(m), landing=True) for m in legal}
    urgency = weights.build_urgency
    site_values: dict[int, float] = {}

    def sv(site: int) -> float:
        v = site_values.get(site)
        if v is None:
            v = ctx.build_value(site)
            site_values[site] = v
        return v

    for m in legal:
        verb = m.verb
        if verb == "score":
            out[m] = ctx.score_value(str(m.arg))
        elif verb in SINGLE_BUILDS or verb == "build":
            site = m.site
            out[m] = urgency * sv(site) if site is not None else _dead_card_value(verb)
        elif verb == "pass":
            out[m] = 0.0
        elif verb == "double":
            free, share = game.targets(seat, str(m.arg))
            vals = sorted((sv(s) for s in free + share), reverse=True)
            if len(vals) >= 2:
                out[m] = urgency * (vals[0] + vals[1]) - weights.double_keep
            elif vals:
                out[m] = urgency * vals[0] - weights.double_keep - 2.0
            else:
                out[m] = -10.0
    return out


def _dead_card_value(kind: str) -> float:
    """Playing a card that cannot build now (a ship card is the least likely to build later)."""
    return 0.3 if kind == "ship" else 0.1


def greedy_move(game: Game, rng: random.Random | None = None, *, noise: float = 0.0,
                weights: Weights = DEFAULT_WEIGHTS) -> Move:
    """The best move by :func:`move_values` for the seat to move (ties: first in canonical order).

    ``noise`` > 0 adds uniform noise of that size to each value (playouts); it needs ``rng``.
    """
    values = move_values(game, weights)
    best: Move | None = None
    best_v = float("-inf")
    for m, v in values.items():
        if noise and rng is not None:
            v += rng.random() * noise
        if v > best_v:
            best, best_v = m, v
    assert best is not None
    return best
