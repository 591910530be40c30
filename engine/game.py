"""The Santa Cruz state machine: setup, legal moves, applying moves, scoring, rounds, JSON round trip.

A :class:`Game` is created by :func:`new_game` from the players' names and a seed. Every random
element (tile layout, scoring-card deal and deck, bird chips, building sets, start player) is drawn
from the seed at setup, so ``(names, seed, options, moves)`` replays a game exactly. What a person may
see leaves the engine only through :meth:`Game.view` (see ``engine/view.py``).

Every search runs on this module, so its hot path (``legal_moves``, ``apply``, ``clone``) is kept cheap
without changing what it computes (``tests/engine/test_engine_equivalence.py`` pins whole games):

- the legal moves are generated once per position and kept until the next move; a landing and a double
  move's build already know the next position's moves, and a clone shares the list (it is never changed,
  only replaced);
- moves come from tables of interned moves (``_site_moves``), never parsed or built in the hot path;
- the island's topology is precomputed once (``Island.road_nbrs``, ``river_reach``, site sets by kind);
- a clone copies the mutable state and shares what is never changed once written (the log's entries).

Plain lists indexed by site, filtered by list comprehensions, proved faster here than bit masks or sets
maintained move by move (measured with ``bench/bench_engine.py`` and callgrind).
"""

from __future__ import annotations

import copy
import json
import operator
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from engine.cards import (
    BUILDING_CARDS,
    BUILDING_SETS,
    BUILDINGS,
    CONNECTED_NEEDED,
    HOUSES_NEEDED,
    SCORING_CARD_IDS,
    SCORING_CARDS,
    SCORING_CARDS_DEALT,
    SINGLE_BUILDS,
    SITE_KINDS,
    START_SCORES,
    SUPPLY,
)
from engine.island import Island, default_island
from engine.log import public_event
from engine.moves import SITE_VERBS, IllegalMove, Move, parse_move
from engine.types import CardNow, Event, View
from engine.view import make_view

PHASES = ("choose_set", "land", "play", "choose_pile", "discard", "over")
_B = {b: i for i, b in enumerate(BUILDINGS)}
_SUPPLY = [SUPPLY[b] for b in BUILDINGS]
_HIDDEN_EVENTS = frozenset({"reveal", "bird", "draw", "birds"})
"""Events that show something hidden: a move causing one cannot be taken back."""
_PHASE_OF_VERB = {"set": "choose_set", "land": "land", "pile": "choose_pile", "discard": "discard"}
"""The phase of each verb that is not played in the ``play`` phase."""
_ONLY_IN_PHASE = {"choose_set": "sets_only_at_start", "land": "landing_only_at_start",
                  "choose_pile": "piles_only_in_round_two", "discard": "discard_only_in_round_two"}
"""The reason for a choosing verb used in the ``play`` phase."""

# The moves legal-move generation hands out, made once (moves are interned: these are the same objects
# that Move(...) and parse_move give).
_BARE_CARD = {kind: Move(kind) for kind in SINGLE_BUILDS}
"""A building card played without effect (``road``)."""
_DOUBLE = tuple(Move("double", kind) for kind in SINGLE_BUILDS)
_PASS = Move("pass")
_SCORE = {card: Move("score", card) for card in SCORING_CARD_IDS}
_DISCARD = {card: Move("discard", card) for card in SCORING_CARD_IDS}
_SET = {letter: Move("set", letter) for letter in BUILDING_SETS}


@cache
def _site_moves(n_sites: int) -> dict[str, dict[int, Move]]:
    """Per site verb (``land``, ``ship``, ``river``, ``road``, ``build``), its move on each site of an island."""
    return {verb: {site: Move(verb, site) for site in range(1, n_sites + 1)} for verb in SITE_VERBS}


def new_game(names: Sequence[str], seed: int, *, draft: bool = False, island: Island | None = None) -> Game:
    """Set up a game for 2–4 players seated clockwise in the order of ``names``.

    ``draft=False`` (default) deals the building-card sets at random; ``draft=True`` lets the players
    choose them: the player who will act last in turn order chooses first, then counter-clockwise,
    and the last to choose starts (official rules, setup steps 6 and 7).
    """
    names = [str(n) for n in names]
    if not 2 <= len(names) <= 4:
        raise ValueError("Santa Cruz is played by 2 to 4 players")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError("the seed must be an integer")
    g = Game.__new__(Game)
    g._setup(names, seed, draft, island or default_island(), island is None)
    return g


class Game:
    """One game of Santa Cruz: all of its state, public and secret.

    Seats are ``0..n-1`` in clockwise order. Use :meth:`legal_moves`, :meth:`apply`, :meth:`view`;
    the attributes are the engine's own and not an API for presentation.
    """

    _record_setup: dict[str, Any] | None = None
    """The set-up record a game was built from (:func:`from_record`), to undo without a seed."""

    # ------------------------------------------------------------------ setup

    def _setup(self, names: list[str], seed: int, draft: bool, island: Island, default: bool) -> None:
        rng = random.Random(seed)
        n = len(names)
        self.island = island
        self._default_island = default
        self.names = names
        self.n = n
        self.seed = seed
        self.draft = draft
        n_sites = island.n_sites
        tile_at = [0] * (n_sites + 1)
        for kind in SITE_KINDS:
            pool = list(island.tile_ids_of_kind[kind])
            rng.shuffle(pool)
            for site, tile in zip(island.sites_of_kind[kind], pool, strict=False):
                tile_at[site] = tile
        self.tile_at = tile_at
        self.revealed = [False] + [island.kind[s] == "coast" for s in range(1, n_sites + 1)]
        self.occupants: list[list[tuple[int, int]]] = [[] for _ in range(n_sites + 1)]
        chips = list(island.bird_chips)
        rng.shuffle(chips)
        self.chips = chips
        deck = list(SCORING_CARD_IDS)
        rng.shuffle(deck)
        k = SCORING_CARDS_DEALT[n]
        self.hand_scoring = [[deck.pop() for _ in range(k)] for _ in range(n)]
        self.deck = deck
        start = rng.randrange(n)
        self.turn_order = [(start + i) % n for i in range(n)]
        self.score = [0] * n
        self.stamp = [0] * n
        self._stamps = 0
        for pos, seat in enumerate(self.turn_order):
            self.score[seat] = START_SCORES[pos]
            self._stamps += 1
            self.stamp[seat] = self._stamps
        self.round = 1
        self.owned: list[set[int]] = [set() for _ in range(n)]
        self.supply = [list(_SUPPLY) for _ in range(n)]
        self.destroyed = [[0, 0, 0] for _ in range(n)]
        self.hand_building: list[dict[str, int]] = [dict.fromkeys(BUILDING_CARDS, 0)
                                                    for _ in range(n)]
        self.set_of: list[str | None] = [None] * n
        self.played_building: list[list[str]] = [[] for _ in range(n)]
        self.played_scoring: list[list[str]] = [[] for _ in range(n)]
        self.round1_sets: list[str | None] = [None] * n
        self.round1_scoring: list[list[str]] = [[] for _ in range(n)]
        self.birds: list[list[int]] = [[] for _ in range(n)]
        self.share_seat: int | None = self.turn_order[-1]
        self.pending: dict[str, Any] | None = None
        self.piles: list[dict[str, Any]] = []
        self.discarded: list[str | None] = [None] * n
        self.last_card_seat: int | None = None
        self.events: list[dict[str, Any]] = []
        self.log: list[dict[str, Any]] = []
        self._turn = 0
        if draft:
            self.phase = "choose_set"
            self.order = [(start - 1 - i) % n for i in range(n)]
        else:
            self.phase = "land"
            self.order = []
            for seat, letter in zip(range(n), rng.sample(sorted(BUILDING_SETS), n), strict=True):
                self._take_set(seat, letter)
        self._legal: list[Move] | None = None
        self._log_text: tuple[tuple[dict[str, Any], ...], str] = ((), "")
        self._derive()
        if self.phase == "land":
            self._skip_unlandable()

    def _derive(self) -> None:
        """Caches that follow from the tile layout."""
        isl = self.island
        tile_by_id = isl.tile_by_id
        tiles = [tile_by_id[tile] for tile in self.tile_at[1:isl.n_sites + 1]]
        self.site_b = [0] + [_B[tile.building] for tile in tiles]
        # Index 0 repeats site 1's tile so that the list holds tiles only; site ids start at 1.
        self.site_tile = [tiles[0], *tiles]
        self._site_move = _site_moves(isl.n_sites)

    def _take_set(self, seat: int, letter: str) -> None:
        self.set_of[seat] = letter
        self.hand_building[seat] = dict(BUILDING_SETS[letter])

    # ------------------------------------------------------------------ public API

    @property
    def to_move(self) -> int | None:
        """The seat to move, or ``None`` when the game is over."""
        phase = self.phase
        if phase == "play" or phase == "land":
            return self.turn_order[self._turn]
        if phase == "over":
            return None
        return self.order[self._turn]

    def is_over(self) -> bool:
        return self.phase == "over"

    def legal_moves(self) -> list[Move]:
        """The moves the seat to move may make now, in canonical order (empty when over)."""
        if self._legal is None:
            self._legal = self._generate()
        return list(self._legal)

    def is_legal(self, move: Move | str) -> bool:
        if isinstance(move, str):
            try:
                move = parse_move(move)
            except IllegalMove:
                return False
        if self._legal is None:
            self._legal = self._generate()
        return move in self._legal

    def apply(self, move: Move | str) -> list[Event]:
        """Play ``move`` for the seat to move and return the public events it caused, in order.

        Raises :class:`IllegalMove` (and changes nothing) when the move is malformed or not allowed.
        """
        if isinstance(move, str):
            move = parse_move(move)
        if self._legal is None:
            self._legal = self._generate()
        if move not in self._legal:  # a short list of interned moves: found by identity
            raise self._move_refusal(move)
        seat = self.to_move
        assert seat is not None  # a legal move exists only while the game runs
        events: list[dict[str, Any]] = []
        self.events = events
        self._legal = None
        _DO[move.verb](self, seat, move)
        hidden = not _HIDDEN_EVENTS.isdisjoint([e["type"] for e in events])
        self.log.append({
            "seat": seat,
            "move": move.text,
            "round": self.round,
            "scores": list(self.score),
            "undoable": not hidden and move.verb != "score",
            "events": events,  # never changed once the move is made (the next move starts a new list)
        })
        public: list[Any] = [public_event(e) if "secret" in e else dict(e) for e in events]  # Event dicts
        return public

    def ranking(self) -> list[int]:
        """Seats from first to last by the score track (a later arrival on a value stands behind)."""
        score, stamp = self.score, self.stamp
        return sorted(range(self.n), key=lambda p: (-score[p], stamp[p]))

    def view(self, seat: int | None = None, *, since: bool = False) -> View:
        """What ``seat`` may know, as a JSON-ready dict; ``None`` is the public view. ``since``: a seat's view also
        holds what happened since its own last move (``view["you"]["since"]``; replays the game)."""
        return make_view(self, seat, since=since)

    @property
    def moves(self) -> list[tuple[int, str]]:
        """The moves played so far as ``(seat, notation)``."""
        return [(e["seat"], e["move"]) for e in self.log]

    def can_undo(self) -> bool:
        """Whether the last move revealed nothing hidden (tile, bird chip, card) and may be taken back."""
        return bool(self.log) and self.log[-1]["undoable"]

    def undo(self) -> Game:
        """A new game equal to this one before its last move; raises :class:`IllegalMove` if not allowed."""
        if not self.can_undo():
            raise IllegalMove("cannot_undo")
        return self.at(len(self.log) - 1)

    def at(self, moves: int) -> Game:
        """A new game equal to this one after its first ``moves`` moves, replayed from its deal."""
        played = [m for _, m in self.moves[:moves]]
        if self._record_setup is not None:
            return from_record(self._record_setup, played)
        return replay(self.names, self.seed, played, draft=self.draft,
                      island=None if self._default_island else self.island)

    # ------------------------------------------------------------------ legal moves

    def targets(self, seat: int, kind: str) -> tuple[list[int], list[int]]:
        """Sites where ``seat`` may build with a ``kind`` card: (free sites, sites it may share)."""
        isl = self.island
        occ = self.occupants
        owned = self.owned[seat]
        if kind == "ship":
            cands: Iterable[int] = isl.coast_sites
        else:
            reach = isl.road_nbrs if kind == "road" else isl.river_reach
            near: set[int] = set()
            for s in owned:
                near |= reach[s]
            cands = near
        supply = self.supply[seat]
        site_b = self.site_b
        revealed = self.revealed
        free = [s for s in cands if not occ[s] and (not revealed[s] or supply[site_b[s]])]
        free.sort()
        if self.share_seat != seat:
            return free, []
        share = [s for s in cands if len(occ[s]) == 1 and occ[s][0][0] != seat and supply[site_b[s]]]
        share.sort()
        return free, share

    def _generate(self) -> list[Move]:
        phase = self.phase
        seat = self.to_move
        if seat is None:
            return []
        if phase == "play":
            if self.pending is not None:
                return self._double_builds(*self.targets(seat, self.pending["card"]))
            moves = []
            hand = self.hand_building[seat]
            for kind in SINGLE_BUILDS:
                if hand[kind]:
                    free, share = self.targets(seat, kind)
                    if not free:
                        moves.append(_BARE_CARD[kind])
                    sites = sorted(free + share) if share else free
                    moves.extend(map(self._site_move[kind].__getitem__, sites))
            if hand["double"]:
                moves += _DOUBLE
            moves.extend(map(_SCORE.__getitem__, sorted(set(self.hand_scoring[seat]))))
            return moves
        if phase == "land":
            occ, supply, site_b, land = self.occupants, self.supply[seat], self.site_b, self._site_move["land"]
            return [land[s] for s in self.island.coast_sites if not occ[s] and supply[site_b[s]]]
        if phase == "choose_set":
            taken = {x for x in self.set_of if x}
            return [_SET[x] for x in sorted(BUILDING_SETS) if x not in taken]
        if phase == "choose_pile":
            return [Move("pile", p["id"]) for p in self.piles if p["taken_by"] is None]
        if phase == "discard":
            return [_DISCARD[c] for c in sorted(set(self.hand_scoring[seat]))]
        return []

    # ------------------------------------------------------------------ moves

    def _double_builds(self, free: list[int], share: list[int]) -> list[Move]:
        """The moves of a double move's next build, from its :meth:`targets`."""
        build = self._site_move["build"]
        moves = [build[s] for s in (sorted(free + share) if share else free)]
        if not free:
            moves.append(_PASS)
        return moves

    def _do_set(self, seat: int, move: Move) -> None:
        self._take_set(seat, str(move.letter))
        self.events.append({"type": "set", "seat": seat, "set": move.letter})
        self._next_chooser()

    def _next_chooser(self) -> None:
        """Advance through ``self.order`` in the choosing phases; a forced last pick is made at once."""
        self._turn += 1
        if self._turn == len(self.order) - 1:
            options = self._generate()
            if len(options) == 1:
                seat = self.order[self._turn]
                only = options[0]
                if only.verb == "set":
                    self._take_set(seat, str(only.letter))
                    self.events.append({"type": "set", "seat": seat, "set": only.letter, "forced": True})
                else:
                    self._take_pile(seat, int(only.pile or 0))
                    self.events.append({"type": "pile", "seat": seat, "pile": only.pile, "forced": True})
                self._turn += 1
        if self._turn >= len(self.order):
            if self.phase == "choose_set":
                self._start_landing()
            else:
                self.phase = "discard"
                self.order = list(self.turn_order)
                self._turn = 0

    def _start_landing(self) -> None:
        self.phase = "land"
        self._turn = 0
        self.order = []
        self._skip_unlandable()

    def _do_land(self, seat: int, move: Move) -> None:
        self._build(seat, int(move.site or 0))
        self._turn += 1
        self._skip_unlandable()

    def _skip_unlandable(self) -> None:
        """A player who cannot land (no free coast tile with a building from the supply) is skipped."""
        while self._turn < self.n:
            moves = self._generate()
            if moves:
                self._legal = moves  # the state does not change before the next move
                return
            self.events.append({"type": "no_build", "seat": self.turn_order[self._turn], "reason": "no_site"})
            self._turn += 1
        self.phase = "play"
        self._turn = 0

    def _play_card(self, seat: int, card: str, kind: str | None = None) -> None:
        self.hand_building[seat][card] -= 1
        self.played_building[seat].append(card)
        self.last_card_seat = seat
        event: dict[str, Any] = {"type": "card", "seat": seat, "card": card}
        if kind is not None:  # a double move's kind of build
            event["kind"] = kind
        self.events.append(event)

    def _do_single(self, seat: int, move: Move) -> None:
        """A ship, river or road card: one build (or none, when it cannot build)."""
        self._play_card(seat, move.verb)
        if move.site is None:
            self.events.append({"type": "no_build", "seat": seat, "reason": "no_site"})
        else:
            self._build(seat, move.site)
        self._end_turn()

    def _do_double(self, seat: int, move: Move) -> None:
        self._play_card(seat, "double", kind=move.kind)
        self.pending = {"kind": "double", "card": move.kind, "builds_left": 2}
        self._continue_double(seat)

    def _continue_double(self, seat: int) -> None:
        pending = self.pending
        assert pending is not None
        if pending["builds_left"] > 0:
            free, share = self.targets(seat, pending["card"])
            if free or share:
                self._legal = self._double_builds(free, share)  # the state does not change before the next move
                return
            self.events.append({"type": "no_build", "seat": seat, "reason": "no_site"})
        self.pending = None
        self._end_turn()

    def _do_build(self, seat: int, move: Move) -> None:
        assert self.pending is not None
        self._build(seat, int(move.site or 0))
        self.pending["builds_left"] -= 1
        self._continue_double(seat)

    def _do_pass(self, seat: int, move: Move) -> None:
        self.pending = None
        self.events.append({"type": "pass", "seat": seat})
        self._end_turn()

    def _do_score(self, seat: int, move: Move) -> None:
        card = str(move.card)
        self.hand_scoring[seat].remove(card)
        self.played_scoring[seat].append(card)
        self.last_card_seat = seat
        self.events.append({"type": "card", "seat": seat, "card": card, "scoring": True})
        n = self.n
        for i in range(n):
            p = (seat + i) % n
            self._move_marker(p, self.card_points(p, card), card)
        if card == "eruption":
            self._erupt()
        self._end_turn()

    def _do_pile(self, seat: int, move: Move) -> None:
        self._take_pile(seat, int(move.pile or 0))
        self.events.append({"type": "pile", "seat": seat, "pile": move.pile})
        self._next_chooser()

    def _take_pile(self, seat: int, pile_id: int) -> None:
        pile = self.piles[pile_id]
        pile["taken_by"] = seat
        self._take_set(seat, pile["set"])
        self.hand_scoring[seat].extend(pile["scoring_cards"])

    def _do_discard(self, seat: int, move: Move) -> None:
        card = str(move.card)
        self.hand_scoring[seat].remove(card)
        self.discarded[seat] = card
        self.events.append({"type": "discard", "seat": seat, "secret": {"card": card}})
        self._turn += 1
        if self._turn == self.n:
            self._start_landing()

    # ------------------------------------------------------------------ building

    def _build(self, seat: int, site: int) -> bool:
        """Place ``seat``'s building on ``site`` (revealing it first if face down); False if it cannot."""
        tile = self.site_tile[site]
        b = self.site_b[site]
        events = self.events
        if not self.revealed[site]:
            self.revealed[site] = True
            events.append({"type": "reveal", "site": site})
            if not self.supply[seat][b]:
                events.append({"type": "no_build", "seat": seat, "site": site, "reason": "supply",
                               "building": tile.building})
                return False
        occ = self.occupants[site]
        shared = bool(occ)
        self.supply[seat][b] -= 1
        occ.append((seat, b))
        self.owned[seat].add(site)
        event: dict[str, Any] = {"type": "build", "seat": seat, "site": site, "building": tile.building}
        if shared:
            event["shared"] = True
            self.share_seat = None
        events.append(event)
        self._move_marker(seat, tile.points, "build")
        if tile.bird and self.chips:
            value = self.chips.pop()
            self.birds[seat].append(value)
            events.append({"type": "bird", "seat": seat, "secret": {"value": value}})
        revealed = self.revealed
        for nb in self.island.reveal_nbrs[site]:
            if not revealed[nb]:
                revealed[nb] = True
                events.append({"type": "reveal", "site": nb})
        return True

    def _erupt(self) -> None:
        for site in self.island.sites_of_kind["volcano"]:
            occ = self.occupants[site]
            for p, b in occ:
                self.destroyed[p][b] += 1
                self.owned[p].discard(site)
                self.events.append({"type": "destroy", "seat": p, "site": site, "building": BUILDINGS[b]})
            occ.clear()

    # ------------------------------------------------------------------ scoring

    def _move_marker(self, seat: int, delta: int, reason: str) -> None:
        if delta:
            self.score[seat] += delta
            self._stamps += 1
            self.stamp[seat] = self._stamps
            self.events.append({"type": "score", "seat": seat, "delta": delta, "reason": reason})

    def card_points(self, seat: int, card_id: str) -> int:
        """Points ``seat`` gets if scoring card ``card_id`` is played now."""
        card = SCORING_CARDS[card_id]
        owned = self.owned[seat]
        tiles = self.site_tile
        isl = self.island
        rule = card.rule
        pts = 0
        if rule in ("resource", "pair"):
            held: set[str] = set()
            for s in owned:
                held.update(tiles[s].resources)
            have = [r in held for r in card.resources]
            if all(have):
                pts = card.points
            elif any(have):
                pts = card.partial
            if card.fish_bonus:
                pts += sum(tiles[s].fish_bonus for s in owned if "fish" in tiles[s].resources)
        elif rule == "houses":
            houses = sum(1 for s in owned for p, b in self.occupants[s] if p == seat and b == 0)
            pts = card.points if houses >= HOUSES_NEEDED else 0
        elif rule == "trio":
            kinds = {b for s in owned for p, b in self.occupants[s] if p == seat}
            pts = card.points if len(kinds) == 3 else 0
        elif rule == "connected":
            pts = card.points if self.largest_road_group(seat) >= CONNECTED_NEEDED else 0
        elif rule == "per_bird":
            pts = card.points * len(self.birds[seat])
        else:
            if rule == "per_coast":
                count = len(owned & isl.site_set_of_kind["coast"])
            elif rule == "per_river":
                count = len(owned & isl.river_site_set)
            else:  # per_volcano and eruption
                count = len(owned & isl.site_set_of_kind["volcano"])
            pts = card.points * count
        return pts

    def card_now(self, seat: int, card_id: str) -> CardNow:
        """What scoring card ``card_id`` would give ``seat`` and the best other seat if it were played now: the
        other seat it gives the most (the first such in seat order; with the eruption card, the one that loses the
        least), ``None`` when that is nothing. The one answer for a seat's view (``you["cards_now"]``), the question
        before the card is played and the coach."""
        now = [self.card_points(p, card_id) for p in range(self.n)]
        best = -1
        for p in range(self.n):  # the first of the best, in seat order
            if p != seat and (best < 0 or now[p] > now[best]):
                best = p
        return {"card": card_id, "points": now[seat], "other": best if now[best] else None, "other_points": now[best]}

    def largest_road_group(self, seat: int) -> int:
        """Size of the largest group of ``seat``'s buildings connected by roads (branching allowed)."""
        return max(map(len, self.island.road_groups(self.owned[seat])), default=0)

    # ------------------------------------------------------------------ turns and rounds

    def _end_turn(self) -> None:
        """The next seat in turn order that still holds a card moves; when nobody does, the round ends."""
        n = self.n
        for step in range(1, n + 1):
            idx = (self._turn + step) % n
            seat = self.turn_order[idx]
            if self.hand_scoring[seat] or any(self.hand_building[seat].values()):
                self._turn = idx
                return
        self._end_round()

    def _hand_size(self, seat: int) -> int:
        return sum(self.hand_building[seat].values()) + len(self.hand_scoring[seat])

    def _end_round(self) -> None:
        self.events.append({"type": "round_end", "round": self.round})
        if self.round == 1:
            self._start_round_two()
        else:
            self._finish()

    def _start_round_two(self) -> None:
        n = self.n
        self.round = 2
        for occ in self.occupants:
            occ.clear()
        self.owned = [set() for _ in range(n)]
        self.supply = [list(_SUPPLY) for _ in range(n)]
        self.destroyed = [[0, 0, 0] for _ in range(n)]
        self.round1_sets = list(self.set_of)
        self.round1_scoring = [list(x) for x in self.played_scoring]
        self.played_building = [[] for _ in range(n)]
        self.played_scoring = [[] for _ in range(n)]
        self.set_of = [None] * n
        for seat in range(n):
            card = self.deck.pop()
            self.hand_scoring[seat] = [card]
            self.events.append({"type": "draw", "seat": seat, "secret": {"card": card}})
        ranking = self.ranking()
        last = ranking[-1]
        self.turn_order = [(last + i) % n for i in range(n)]
        self.share_seat = self.turn_order[-1]
        self.piles = [{"id": p, "set": self.round1_sets[p], "scoring_cards": list(self.round1_scoring[p]),
                       "taken_by": None} for p in range(n)]
        self.phase = "choose_pile"
        self.order = list(reversed(ranking))
        self._turn = -1
        self._next_chooser()

    def _finish(self) -> None:
        n = self.n
        first = self.last_card_seat if self.last_card_seat is not None else self.turn_order[0]
        for i in range(n):
            seat = (first + i) % n
            chips = self.birds[seat]
            self.events.append({"type": "birds", "seat": seat, "chips": list(chips)})
            self._move_marker(seat, sum(chips), "bird_chips")
        self.phase = "over"
        self.events.append({"type": "game_over", "ranking": self.ranking()})

    # ------------------------------------------------------------------ reasons

    def refusal(self, move: Move | str) -> IllegalMove | None:
        """Why ``move`` is not legal now, as the :class:`IllegalMove` that :meth:`apply` raises (``None``: legal).

        A malformed notation gives the parser's reason.
        """
        if isinstance(move, str):
            try:
                move = parse_move(move)
            except IllegalMove as exc:
                return exc
        return None if self.is_legal(move) else self._move_refusal(move)

    def _phase_refusal(self, move: Move) -> IllegalMove | None:
        phase = self.phase
        wanted = _PHASE_OF_VERB.get(move.verb, "play")
        if wanted == phase:
            return None
        if phase != "play":
            return IllegalMove(f"phase_{phase}")
        return IllegalMove(_ONLY_IN_PHASE[wanted])

    def _move_refusal(self, move: Move) -> IllegalMove:
        seat = self.to_move
        if seat is None:
            return IllegalMove("game_over")
        return self._phase_refusal(move) or self._refusal_now(seat, move)

    def _refusal_now(self, seat: int, move: Move) -> IllegalMove:
        phase, verb = self.phase, move.verb
        if phase == "choose_set":
            return IllegalMove("set_taken", letter=move.letter)
        if phase == "choose_pile":
            if not any(p["id"] == move.pile for p in self.piles):
                return IllegalMove("pile_not_in_game", pile=move.pile, last=self.n - 1)
            return IllegalMove("pile_taken", pile=move.pile)
        if phase == "discard" or verb == "score":
            return IllegalMove("scoring_card_not_held", card=move.card)
        if phase == "land":
            return self._site_refusal(seat, int(move.site or 0), "land")
        pending = self.pending
        if pending is not None:
            if verb == "build":
                return self._site_refusal(seat, int(move.site or 0), pending["card"])
            if verb == "pass":
                return IllegalMove("must_build")
            return IllegalMove("finish_double", builds_left=pending["builds_left"], kind=pending["card"])
        if verb == "build":
            return IllegalMove("build_only_in_double")
        if verb == "pass":
            return IllegalMove("nothing_to_pass")
        if verb == "double":
            return IllegalMove("no_double_card")
        if not self.hand_building[seat][verb]:
            return IllegalMove("no_building_card", kind=verb)
        if move.site is None:
            free, _share = self.targets(seat, verb)
            return IllegalMove("must_choose_site", kind=verb, site=free[0], sites=free)
        return self._site_refusal(seat, move.site, verb)

    def _site_refusal(self, seat: int, site: int, kind: str) -> IllegalMove:
        """Why ``seat`` may not build on ``site`` with a ``kind`` card (``land``: the landing)."""
        isl = self.island
        if not 1 <= site <= isl.n_sites:
            return IllegalMove("site_not_on_island", site=site, last=isl.n_sites)
        if kind in ("land", "ship") and isl.kind[site] != "coast":
            return IllegalMove("landing_not_coast" if kind == "land" else "ship_not_coast", site=site)
        occ = self.occupants[site]
        if occ:
            taken = self._taken_refusal(seat, site, kind, occ)
            if taken is not None:
                return taken
        if kind == "road" and not any(site in isl.road_nbrs[s] for s in self.owned[seat]):
            return IllegalMove("road_too_far", site=site)
        if kind == "river":
            if not isl.rivers_of[site]:
                return IllegalMove("not_on_river", site=site)
            if not any(isl.rivers_of[s] & isl.rivers_of[site] for s in self.owned[seat]):
                return IllegalMove("river_not_yours", site=site)
        if self.revealed[site] and not self.supply[seat][self.site_b[site]]:
            return IllegalMove("no_building_in_supply", site=site, building=BUILDINGS[self.site_b[site]])
        return IllegalMove("cannot_build_there", site=site)

    def _taken_refusal(self, seat: int, site: int, kind: str, occ: list[tuple[int, int]]) -> IllegalMove | None:
        if any(p == seat for p, _ in occ):
            return IllegalMove("own_site", site=site)
        if kind == "land":
            return IllegalMove("landing_site_taken", site=site)
        if self.share_seat != seat:
            return IllegalMove("share_used" if self.turn_order[-1] == seat else "share_last_only", site=site)
        if len(occ) > 1:
            return IllegalMove("site_full", site=site)
        return None

    # ------------------------------------------------------------------ copying and JSON

    def clone(self) -> Game:
        """An independent copy (cheap: no JSON); every field of :data:`STATE_FIELDS` copied its way.

        What never changes is shared: the island and its tables, the entries of the event list and the log,
        the list of legal moves already generated (a new list replaces it after a move) and the JSON text of the
        log written so far (:meth:`to_json` replaces it as the log grows)."""
        g = Game.__new__(Game)
        d = self.__dict__.copy()
        g.__dict__ = d
        for name, copier in _COPIED:
            d[name] = copier(d[name])
        return g

    def to_json(self) -> str:
        """The whole state, secrets included, as JSON text (for the server's database only).

        The text is ``json.dumps(state, separators=(",", ":"), sort_keys=True)``; the log, whose entries never
        change once written, is serialized entry by entry as it grows (:meth:`_log_json`) and put in its place."""
        head: dict[str, Any] = {"format": 1, "island": None if self._default_island else self.island.data}
        tail: dict[str, Any] = {}
        for f in _SAVED:
            if f.name != "log":
                (head if f.name < "log" else tail)[f.name] = getattr(self, f.name)  # sort_keys' order
        return f'{_dumps(head)[:-1]},"log":[{self._log_json()}],{_dumps(tail)[1:]}'

    def _log_json(self) -> str:
        """The JSON text of the log's entries, comma-separated: the text kept with the entries it was made of
        (shared by clones; a new pair replaces it) as long as they still begin this log, and the newer entries'."""
        entries, text = self._log_text
        log = self.log
        if len(entries) > len(log) or not all(map(operator.is_, entries, log)):
            entries, text = (), ""
        if len(entries) < len(log):
            more = _dumps(log[len(entries):])[1:-1]
            text = f"{text},{more}" if text else more
            self._log_text = entries, text = tuple(log), text
        return text

    @classmethod
    def from_json(cls, text: str | dict[str, Any]) -> Game:
        """Rebuild a game from :meth:`to_json` (any version of it); the result is equal in every respect."""
        data = json.loads(text) if isinstance(text, str) else text
        if data.get("format") != 1:
            raise ValueError("unknown game format")
        island = data.get("island")
        g = cls.__new__(cls)
        for f in _SAVED:
            setattr(g, f.name, f.load(data[f.name]) if f.load else data[f.name])
        g._board(Island(island) if island else None)
        if any("events" not in entry for entry in g.log):
            return g._with_logged_events()
        return g

    def _with_logged_events(self) -> Game:
        """This game (read from a snapshot whose log entries do not yet hold their moves' events) replayed from its
        seed, so that every log entry says what its move did; :class:`ValueError` if the replay is another game."""
        again = replay(self.names, self.seed, [m for _, m in self.moves], draft=self.draft,
                       island=None if self._default_island else self.island)
        state, stored = json.loads(again.to_json()), json.loads(self.to_json())
        for entry in state["log"]:
            del entry["events"]
        del state["events"], stored["events"]  # the last move's again (their words may have changed since)
        if state != stored:
            raise ValueError("a snapshot whose log does not say what each move did, and whose moves do not "
                             "replay from its seed")
        return again

    @classmethod
    def restore(cls, players: Sequence[PlayerRecord], *, to_move: int | None, island: Island | None = None,
                **table: Any) -> Game:
        """A game from its state given field by field: one :class:`PlayerRecord` per seat and the other
        fields of :data:`STATE_FIELDS` (public names: ``stamps`` and the turn, given as ``to_move``, are
        derived). For the computer players, which rebuild a game from a view and sampled hidden facts."""
        wanted = {f.name for f in STATE_FIELDS if f.saved and not f.per_seat} - {"_turn", "_stamps"}
        if set(table) != wanted:
            raise TypeError(f"restore() needs exactly the fields {sorted(wanted)}; "
                            f"missing {sorted(wanted - set(table))}, unknown {sorted(set(table) - wanted)}")
        g = cls.__new__(cls)
        for name, value in table.items():
            setattr(g, name, value)
        for f in STATE_FIELDS:
            if f.per_seat and f.saved:
                setattr(g, f.name, [getattr(p, f.player_field) for p in players])
        g._stamps = max(g.stamp, default=0)
        g._turn = _turn_of(g.phase, to_move, g.turn_order, g.order)
        g._board(island)
        return g

    def player(self, seat: int) -> PlayerRecord:
        """Everything ``seat`` has (a copy): its part of every per-seat field of :data:`STATE_FIELDS`."""
        return PlayerRecord(**{f.player_field: copy.copy(getattr(self, f.name)[seat])
                               for f in STATE_FIELDS if f.per_seat and f.saved})

    def _board(self, island: Island | None) -> None:
        """Set the island and everything derived from the saved fields (after :meth:`from_json`, :meth:`restore`)."""
        self.island = island or default_island()
        self._default_island = island is None
        self.n = len(self.names)
        self.owned = [set() for _ in range(self.n)]
        for site, occ in enumerate(self.occupants):
            for p, _b in occ:
                self.owned[p].add(site)
        self._legal = None
        self._log_text = ((), "")
        self._derive()

    def setup_record(self) -> dict[str, Any]:
        """The dealt set-up of a game no one has moved in yet, without its seed: tile layout, bird chips,
        scoring-card deal and deck, building sets, start player (and the island if not the default).

        With the moves it replays the game exactly (:func:`from_record`). It holds every hidden fact of the
        game: give it out only once the game is over."""
        if self.log:
            raise ValueError("a set-up record is taken before the first move")
        data: dict[str, Any] = json.loads(self.to_json())
        del data["seed"]
        return data

    def state_key(self) -> str:
        """The game's state as canonical text, for equality checks (secrets included)."""
        return self.to_json()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]  # a game changes: unhashable, as a list is


_DO: Final[dict[str, Callable[[Game, int, Move], None]]] = {
    "set": Game._do_set,
    "land": Game._do_land,
    "ship": Game._do_single,
    "river": Game._do_single,
    "road": Game._do_single,
    "double": Game._do_double,
    "build": Game._do_build,
    "pass": Game._do_pass,
    "score": Game._do_score,
    "pile": Game._do_pile,
    "discard": Game._do_discard,
}
"""What :meth:`Game.apply` does for each verb."""

# ---------------------------------------------------------------------- the state, field by field


_dumps: Final = json.JSONEncoder(separators=(",", ":"), sort_keys=True).encode
"""JSON text as :meth:`Game.to_json` writes it: compact, keys sorted (one encoder: ``json.dumps`` with options
makes a new one at each call)."""


def _lists(value: list[Any]) -> list[Any]:
    return [list(x) for x in value]


def _dicts(value: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [dict(x) for x in value]


def _sets(value: list[set[int]]) -> list[set[int]]:
    return [set(x) for x in value]


def _pending(value: dict[str, Any] | None) -> dict[str, Any] | None:
    return dict(value) if value else None


def _piles(value: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [dict(p, scoring_cards=list(p["scoring_cards"])) for p in value]


def _occupants(value: list[list[Any]]) -> list[list[tuple[int, int]]]:
    return [[(int(p), int(b)) for p, b in occ] for occ in value]


@dataclass(frozen=True, slots=True)
class StateField:
    """One field of a :class:`Game`'s state and how it is copied, saved and loaded."""

    name: str
    copy: Callable[[Any], Any] | None = None
    """How :meth:`Game.clone` copies it (``None``: immutable, shared). The entries of ``events`` and ``log``
    are written once and never changed afterwards, so a clone copies the lists and shares the entries."""
    per_seat: bool = False
    """A list with one entry per seat; each entry is a field of :class:`PlayerRecord`."""
    saved: bool = True
    """``False``: derived from the saved fields, rebuilt when a game is loaded."""
    load: Callable[[Any], Any] | None = None
    """How :meth:`Game.from_json` reads the stored value (``None``: as it is)."""
    record_name: str = ""
    """The :class:`PlayerRecord` field of a per-seat field, when it is not ``name``."""

    @property
    def player_field(self) -> str:
        return self.record_name or self.name


STATE_FIELDS: Final = (
    StateField("names"),
    StateField("seed"),
    StateField("draft"),
    StateField("phase"),
    StateField("round"),
    StateField("tile_at", list),
    StateField("revealed", list),
    StateField("occupants", _lists, load=_occupants),
    StateField("chips", list),
    StateField("deck", list),
    StateField("turn_order", list),
    StateField("order", list),
    StateField("_turn"),
    StateField("_stamps"),
    StateField("share_seat"),
    StateField("pending", _pending),
    StateField("piles", _piles),
    StateField("last_card_seat"),
    StateField("events", list),
    StateField("log", list),
    StateField("score", list, per_seat=True),
    StateField("stamp", list, per_seat=True),
    StateField("supply", _lists, per_seat=True),
    StateField("destroyed", _lists, per_seat=True),
    StateField("hand_building", _dicts, per_seat=True),
    StateField("hand_scoring", _lists, per_seat=True),
    StateField("set_of", list, per_seat=True),
    StateField("played_building", _lists, per_seat=True),
    StateField("played_scoring", _lists, per_seat=True),
    StateField("round1_sets", list, per_seat=True, record_name="round1_set"),
    StateField("round1_scoring", _lists, per_seat=True),
    StateField("birds", _lists, per_seat=True),
    StateField("discarded", list, per_seat=True),
    StateField("owned", _sets, per_seat=True, saved=False),
)
"""Every field of a game's state, once: clone, JSON and :meth:`Game.restore` are derived from this list.
(The island, the seat count and the caches of :meth:`Game._derive` and :meth:`Game.legal_moves` follow.)"""
_SAVED: Final = tuple(f for f in STATE_FIELDS if f.saved)
_COPIED: Final = tuple((f.name, f.copy) for f in STATE_FIELDS if f.copy is not None)


@dataclass(slots=True)
class PlayerRecord:
    """Everything one seat has: its entry of each per-seat field of :data:`STATE_FIELDS`."""

    score: int
    stamp: int
    """When the seat's marker last moved (a later arrival on a score stands behind)."""
    supply: list[int]
    """Buildings left, in the order of :data:`engine.cards.BUILDINGS`."""
    destroyed: list[int]
    hand_building: dict[str, int]
    hand_scoring: list[str]
    set_of: str | None
    played_building: list[str]
    played_scoring: list[str]
    round1_set: str | None
    round1_scoring: list[str]
    birds: list[int]
    discarded: str | None


def _turn_of(phase: str, to_move: int | None, turn_order: list[int], order: list[int]) -> int:
    """The index of the seat to move in the order the phase goes by."""
    if phase == "over" or to_move is None:
        return 0
    return (turn_order if phase in ("land", "play") else order).index(to_move)



def replay(names: Sequence[str], seed: int, moves: Iterable[str | Move], *, draft: bool = False,
           island: Island | None = None) -> Game:
    """Play ``moves`` from the start of a new game; raises :class:`IllegalMove` at the first bad one."""
    game = new_game(names, seed, draft=draft, island=island)
    for move in moves:
        game.apply(move)
    return game


def from_record(setup: dict[str, Any], moves: Iterable[str | Move]) -> Game:
    """The game that :meth:`Game.setup_record` dealt, after ``moves``; no seed needed.

    Raises :class:`ValueError` for a record that is not a set-up, :class:`IllegalMove` at the first bad move."""
    if setup.get("log") or setup.get("format") != 1:
        raise ValueError("not the set-up record of a game")
    game = Game.from_json(json.dumps({**setup, "seed": 0}))  # text: the game must not share the record's lists
    game._record_setup = setup
    for move in moves:
        game.apply(move)
    return game
