"""The coach: the move the strongest computer player would make for a seat, and why, as structured reasons.

:func:`advise` reads one seat's view and nothing else (the same advice whatever the hidden tiles, cards and
chips are). It asks the strongest offered player's search (:data:`STRONGEST`, a :class:`Searcher`, the search of
:data:`engine.ai.STRONGEST`; pass ``searcher=`` to use another) for the best move and takes the runner-up from
the same search's statistics, then explains both from what the seat knows:

- the points a move scores now (a known tile's build points, or what a scoring card gives everyone); a
  face-down tile's expected build points and the chance that the seat has the building it needs;
- what it does for each scoring card in the seat's hand (its points now and after the move);
- the bird chip chance, the sites it opens for the seat's next cards, the face-down sites it turns up, a
  site it takes that another seat could have reached, a building beside another seat's (the share right);
- the volcano: whether the eruption card may still hurt (unseen, held by the seat, in another seat's pile,
  or played) and how many of the seat's buildings stand on volcano sites;
- the move that ends the game: the bird chips the seat holds, revealed and counted then (told apart from the card's
  points, as the result tells them; a chip the move itself draws is the bird chip reason's, its value unknown);
- why the runner-up is worse: the difference in the search's expected value and the reasons that differ.

Every number is one the seat can check: the points a move scores now are its build's points or its scoring card's
(the view's ``you["cards_now"]``, :meth:`engine.Game.card_now`, as the question before the move and the result say
them), never the score's change (which a last move swells with the bird chips, and with a guess at other seats'
hidden chips).

Every explanation is computed on games rebuilt from the view (:func:`engine.ai.determinize.determinize`):
the outcome of a build on a face-down site is averaged over every tile that could lie there. The chance that
another seat holds the eruption card is counted exactly from the view (:func:`engine.ai.determinize.eruption_risk`),
the same figure for the same position. Reasons are
frozen values with a code and parameters (ids, seats, counts, percentages), never words: ``i18n.coach``
words them. With ``iterations=N, budget=None`` the advice depends on the view and the seed only.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Protocol

from engine.ai import STRONGEST as STRONGEST_STRENGTH
from engine.ai.determinize import ERUPTION_STATUSES, determinize, eruption_risk
from engine.ai.expert import search
from engine.ai.greedy import move_values
from engine.ai.master import master_search
from engine.ai.players import mix_seed
from engine.game import STATE_FIELDS, Game
from engine.island import Island, default_island
from engine.log import built
from engine.moves import SITE_VERBS, parse_move
from engine.types import CardNow, View

__all__ = [
    "COMPARISON_CODES",
    "DEFAULT_BUDGET",
    "MERITS",
    "REASON_CODES",
    "RISKS",
    "SEARCHES",
    "STRONGEST",
    "Advice",
    "CoachError",
    "MoveAdvice",
    "Reason",
    "SearchOutcome",
    "Searcher",
    "VolcanoRisk",
    "advise",
]

ParamValue = int | str | tuple[int, ...] | tuple[str, ...]
"""A reason's parameter: a number, an id, or a tuple of either."""

REASON_CODES: Final[Mapping[str, tuple[str, ...]]] = {
    "build_points": ("points",),
    "build_expected": ("tenths", "chance"),
    "no_build": (),
    "card_score": ("card", "points", "other", "other_points"),
    "card_score_alone": ("card", "points"),
    "destroys": ("yours", "others"),
    "card_gain": ("card", "now", "after", "chance"),
    "card_loss": ("card", "now", "after", "chance"),
    "bird_chip": ("chance", "left"),
    "opens": ("count",),
    "reveals": ("count",),
    "takes_from": ("seats",),
    "shares": ("seat",),
    "on_volcano": ("status", "chance"),
    "double_plan": ("kind", "options", "sites"),
    "pass_rest": (),
    "set_choice": ("set",),
    "pile_cards": ("owner", "set", "cards"),
    "discard_card": ("card",),
    "ends_game": ("points", "chips"),
}
"""Every code of a move's :class:`Reason` with its parameters' names."""

COMPARISON_CODES: Final[Mapping[str, tuple[str, ...]]] = {
    "value_gap": ("gap", "playouts"),
    "close_call": ("gap", "playouts"),
    "fewer_points": ("count",),
    "misses": ("codes",),
    "risks": ("codes",),
}
"""Every code of the reasons why the runner-up is worse (:attr:`Advice.why_not`).

``value_gap``: the search's expected value of the runner-up is ``gap`` hundredths lower (its rewards lie in
[0, 1]: a win and the score margin), over ``playouts`` simulated games of both; ``close_call``: the same when the
gap is at most :data:`CLOSE_GAP`, within what the search can tell apart (the words say the two are almost as
good, not that one is worse); ``fewer_points``: it scores
``count`` points less now; ``misses``: the :data:`MERITS` only the best move has; ``risks``: the :data:`RISKS`
only the runner-up has."""

CLOSE_GAP: Final = 3
"""A gap of the search's values (hundredths) up to which the runner-up is called almost as good: a few hundred
simulated games cannot tell such moves apart."""
MERITS: Final = ("card_score", "card_score_alone", "card_gain", "bird_chip", "opens", "takes_from")
"""The reason codes that speak for a move, compared between the best move and the runner-up."""
RISKS: Final = ("card_loss", "on_volcano")
"""The reason codes that speak against a move, compared likewise."""

VOLCANO_STATUSES: Final = ERUPTION_STATUSES
"""Where the eruption card is for the seat (:func:`engine.ai.determinize.eruption_risk`)."""

DEFAULT_BUDGET: Final = 2.5
"""Seconds of thinking by default: the search's and the explanations' together (Discord's limit is ~3 s)."""
_EXPLAIN_RESERVE: Final = 0.2
"""Seconds of the budget kept for the explanations after the search."""


class CoachError(ValueError):
    """No advice can be given: ``code`` is ``public_view`` (not a seat's view), ``game_over`` or
    ``not_your_turn``; ``i18n.coach.refusal_text`` words it."""

    CODES: Final = ("public_view", "game_over", "not_your_turn")

    def __init__(self, code: str) -> None:
        if code not in self.CODES:
            raise ValueError(f"unknown coach refusal {code!r}")
        self.code = code
        super().__init__(code.replace("_", " "))


@dataclass(frozen=True, slots=True)
class Reason:
    """One reason, as a code of :data:`REASON_CODES` (or :data:`COMPARISON_CODES`) and its parameters."""

    code: str
    params: tuple[tuple[str, ParamValue], ...] = ()

    @classmethod
    def of(cls, code: str, **params: ParamValue) -> Reason:
        wanted = REASON_CODES.get(code, COMPARISON_CODES.get(code))
        if wanted is None or set(params) != set(wanted):
            raise ValueError(f"reason {code!r} takes {wanted}, not {sorted(params)}")
        return cls(code, tuple((name, params[name]) for name in wanted))

    def __getitem__(self, name: str) -> ParamValue:
        for key, value in self.params:
            if key == name:
                return value
        raise KeyError(name)

    def number(self, name: str) -> int:
        """The parameter ``name``, which must be a number."""
        value = self[name]
        if not isinstance(value, int):
            raise TypeError(f"{self.code}.{name} is not a number")
        return value


@dataclass(frozen=True, slots=True)
class MoveAdvice:
    """A move (its notation) with its reasons and what the search saw of it."""

    move: str
    reasons: tuple[Reason, ...]
    playouts: int
    """Simulated games the search played with this move."""
    value: float | None
    """The search's mean reward in [0, 1] (``None``: the search did not play it)."""
    points_now: int | None
    """Points the seat scores by this move now, when the view tells them (a known tile, a scoring card)."""

    def codes(self) -> tuple[str, ...]:
        return tuple(r.code for r in self.reasons)


@dataclass(frozen=True, slots=True)
class VolcanoRisk:
    """The eruption card's threat: its :data:`VOLCANO_STATUSES` status, the chance (percent) that another
    seat holds it this round, and the seat's buildings on volcano sites now."""

    status: str
    chance: int
    buildings: int


@dataclass(frozen=True, slots=True)
class Advice:
    """The coach's answer for ``seat``: the best move, the runner-up, and why."""

    seat: int
    names: tuple[str, ...]
    round: int
    phase: str
    best: MoveAdvice
    runner_up: MoveAdvice | None
    """``None`` when there is only one move to make."""
    why_not: tuple[Reason, ...]
    """Why the runner-up is worse (codes of :data:`COMPARISON_CODES`)."""
    hand: tuple[CardNow, ...]
    """What the seat's scoring cards would score now (landing and play phases): its view's ``you["cards_now"]``."""
    volcano: VolcanoRisk | None
    """During the landing and play phases while the eruption can still matter to the seat."""
    playouts: int
    """Simulated games of the whole search."""


class SearchOutcome(Protocol):
    """What a search returns (:class:`engine.ai.expert.SearchResult` and the like)."""

    @property
    def move(self) -> str: ...

    @property
    def playouts(self) -> int: ...

    @property
    def stats(self) -> dict[str, tuple[int, float]]: ...


class Searcher(Protocol):
    """A search over a seat's view: :func:`engine.ai.expert.search`, :func:`engine.ai.master.master_search`."""

    def __call__(self, view: View, *, seed: int = ..., budget: float | None = ..., iterations: int | None = ...,
                 island: Island | None = ...) -> SearchOutcome: ...


SEARCHES: Final[Mapping[str, Searcher]] = {"expert": search, "master": master_search}
"""Each searching strength's search (:data:`engine.ai.SEARCHING`)."""
STRONGEST: Searcher = SEARCHES[STRONGEST_STRENGTH]
"""The search of the strongest offered player (:data:`engine.ai.STRONGEST`): the coach's default."""


# ---------------------------------------------------------------------- the advice


def advise(view: View, *, seed: int = 0, budget: float | None = DEFAULT_BUDGET, iterations: int | None = None,
           island: Island | None = None, searcher: Searcher = STRONGEST) -> Advice:
    """The best move for the seat whose view this is, the runner-up, and why (see the module's docstring).

    ``budget``: seconds of thinking in all (the search gets all but a little kept for the explanations);
    ``iterations``: the search's playouts; with ``budget=None`` the advice depends on ``view`` and ``seed``
    only. Raises :class:`CoachError` for a public view, a finished game, or when it is not the seat's turn.
    """
    you = view.get("you")
    if you is None or view["seat"] is None:
        raise CoachError("public_view")
    if view["phase"] == "over":
        raise CoachError("game_over")
    legal = you["legal_moves"]
    if view["to_move"] != you["seat"] or not legal:
        raise CoachError("not_your_turn")
    seat = you["seat"]
    search_seed = mix_seed(seed, len(view["log"]), seat)
    search_budget = None if budget is None else max(0.05, budget - _EXPLAIN_RESERVE)
    if iterations is None and budget is None:
        iterations = 200
    result = searcher(view, seed=search_seed, budget=search_budget, iterations=iterations, island=island)
    game = determinize(view, random.Random(mix_seed(seed, 1)), island=island, keep_log=False)
    best_move = str(parse_move(result.move))
    runner = _runner_up(result, best_move, game)
    explainer = _Explainer(view, game, island or default_island(), seed)
    stats = result.stats
    best = explainer.move_advice(best_move, stats)
    second = explainer.move_advice(runner, stats) if runner is not None else None
    why_not = _compare(best, second) if second is not None else ()
    return Advice(seat=seat, names=tuple(p["name"] for p in view["players"]), round=view["round"],
                  phase=view["phase"], best=best, runner_up=second, why_not=why_not, hand=tuple(you["cards_now"]),
                  volcano=explainer.volcano(), playouts=result.playouts)


def _runner_up(result: SearchOutcome, best: str, game: Game) -> str | None:
    """The search's second-best candidate: of those it kept longest (the most playouts), the best mean reward; the
    greedy order's when the search compared none. A candidate a search dropped early (the master's halving, the
    expert's racing) has a mean of few playouts, which may lie above the best's by luck."""
    tried = [(count, mean, move) for move, (count, mean) in result.stats.items() if count and move != best]
    if tried:
        return max(tried)[2]
    values = move_values(game)
    ranked = sorted(values, key=lambda m: (-values[m], m.sort_key))
    others = [str(m) for m in ranked if str(m) != best]
    return others[0] if others else None


def _compare(best: MoveAdvice, second: MoveAdvice) -> tuple[Reason, ...]:
    out: list[Reason] = []
    if best.value is not None and second.value is not None:
        gap = round(100 * (best.value - second.value))
        if gap > 0:
            code = "close_call" if gap <= CLOSE_GAP else "value_gap"
            out.append(Reason.of(code, gap=gap, playouts=best.playouts + second.playouts))
    if best.points_now is not None and second.points_now is not None and best.points_now > second.points_now:
        out.append(Reason.of("fewer_points", count=best.points_now - second.points_now))
    mine, theirs = set(best.codes()), set(second.codes())
    missed = tuple(c for c in MERITS if c in mine - theirs)
    if missed:
        out.append(Reason.of("misses", codes=missed))
    risked = tuple(c for c in RISKS if c in theirs - mine)
    if risked:
        out.append(Reason.of("risks", codes=risked))
    return tuple(out)


# ---------------------------------------------------------------------- explaining a move


@dataclass(frozen=True, slots=True)
class _Outcome:
    """One way a move may turn out (a face-down site: one per tile that may lie there), with its weight."""

    weight: float
    built: bool
    points: int
    bird: bool
    cards: dict[str, int]
    """The seat's scoring cards' points after the move."""


def _same_game_with_tile(game: Game, site: int, tile_id: int, island: Island | None) -> Game:
    """``game`` with tile ``tile_id`` on the face-down ``site`` (the tile's former site gets the other tile)."""
    g = game.clone()
    tile_at = list(g.tile_at)
    if tile_id in tile_at:
        tile_at[tile_at.index(tile_id)] = tile_at[site]
    tile_at[site] = tile_id
    table = {f.name: getattr(g, f.name) for f in STATE_FIELDS
             if f.saved and not f.per_seat and f.name not in ("_turn", "_stamps")}
    table["tile_at"] = tile_at
    return Game.restore([g.player(p) for p in range(g.n)], to_move=g.to_move, island=island, **table)


class _Explainer:
    """The reasons for moves of one position, computed on a game rebuilt from the seat's view."""

    def __init__(self, view: View, game: Game, island: Island, seed: int) -> None:
        self.view = view
        self.game = game
        self.island = island
        self.custom_island = None if island is default_island() else island
        self.seed = seed
        you = view["you"]
        self.seat = you["seat"]
        self.cards = tuple(sorted(set(you["scoring_cards"])))
        self.now = {entry["card"]: entry for entry in you["cards_now"]}  # the view's count (landing and play)
        self.occupied = {s["id"]: [int(b["seat"]) for b in s["buildings"]] for s in view["board"]["sites"]}
        self.owned: dict[int, set[int]] = {p["seat"]: set() for p in view["players"]}
        for site, seats in self.occupied.items():
            for q in seats:
                self.owned[q].add(site)
        shown = {game.tile_at[s] for s in range(1, island.n_sites + 1) if game.revealed[s]}
        self.unseen_tiles = {k: [t.id for t in island.tiles if t.kind == k and t.id not in shown]
                             for k in island.sites_of_kind}

    # ------------------------------------------------------------------ the position

    def eruption(self) -> tuple[str, int]:
        """(status, chance in percent that another seat holds the eruption card now): :func:`eruption_risk`."""
        status, chance = eruption_risk(self.view)
        return status, _percent(float(chance))

    def volcano(self) -> VolcanoRisk | None:
        if self.view["phase"] not in ("land", "play"):
            return None
        volcano_sites = set(self.island.sites_of_kind["volcano"])
        mine = len(self.owned[self.seat] & volcano_sites)
        status, chance = self.eruption()
        if status in ("played", "out") or (not mine and status != "yours" and chance == 0):
            return None
        return VolcanoRisk(status, chance, mine)

    # ------------------------------------------------------------------ one move

    def move_advice(self, move: str, stats: Mapping[str, tuple[int, float]]) -> MoveAdvice:
        count, mean = stats.get(move, (0, 0.0))
        reasons, points_now = self.reasons(move)
        if self._ends_game(move):
            chips = tuple(self.view["you"]["bird_chips"])
            reasons.append(Reason.of("ends_game", points=sum(chips), chips=chips))
        return MoveAdvice(move, tuple(reasons), count, mean if count else None, points_now)

    def _ends_game(self, move: str) -> bool:
        """Whether ``move`` ends the game (who still holds cards is public, so any game rebuilt from the view says
        the same; a double move's card ends nothing: its builds follow)."""
        if self.view["round"] != 2 or self.view["phase"] != "play":
            return False
        g = self.game.clone()
        g.apply(move)
        return g.phase == "over"

    def reasons(self, move: str) -> tuple[list[Reason], int | None]:
        m = parse_move(move)
        verb = m.verb
        if verb == "set":
            return [Reason.of("set_choice", set=str(m.letter))], None
        if verb == "pile":
            pile = next(p for p in self.view.get("piles", []) if p["id"] == m.pile)
            return [Reason.of("pile_cards", owner=int(pile["id"]), set=str(pile["set"]),
                              cards=tuple(pile["scoring_cards"]))], None
        if verb == "discard":
            return [Reason.of("discard_card", card=str(m.card))], None
        if verb == "pass":
            return [Reason.of("pass_rest")], 0
        if verb == "double":
            return self._double(move, str(m.kind)), 0
        if verb == "score":
            return self._score(move, str(m.card))
        if verb in SITE_VERBS and m.site is None:
            return [Reason.of("no_build")], 0
        assert m.site is not None
        return self._build(move, m.site)

    def _score(self, move: str, card: str) -> tuple[list[Reason], int]:
        now = self.now[card]  # the view's: the same points and player as the question before playing it
        other = now["other"]
        reasons = [Reason.of("card_score", card=card, points=now["points"], other=other,
                             other_points=now["other_points"])
                   if other is not None else Reason.of("card_score_alone", card=card, points=now["points"])]
        g = self.game.clone()
        events = g.apply(move)
        destroyed = [e["seat"] for e in events if e["type"] == "destroy"]
        if destroyed:
            yours = sum(1 for q in destroyed if q == self.seat)
            reasons.append(Reason.of("destroys", yours=yours, others=len(destroyed) - yours))
        return reasons, now["points"]

    def _double(self, move: str, kind: str) -> list[Reason]:
        g = self.game.clone()
        g.apply(move)
        if g.pending is None or g.to_move != self.seat:
            return [Reason.of("no_build")]
        values = move_values(g)
        builds = sorted((m for m in values if m.site is not None), key=lambda m: (-values[m], m.sort_key))
        sites = tuple(int(m.site) for m in builds[:2] if m.site is not None)
        return [Reason.of("double_plan", kind=kind, options=len(builds), sites=sites)]

    def _outcomes(self, move: str, site: int) -> list[_Outcome]:
        game = self.game
        if game.revealed[site]:
            games = [(1.0, game.clone())]
        else:
            tiles = self.unseen_tiles[self.island.kind[site]]
            if not tiles:
                return []
            games = [(1.0 / len(tiles), _same_game_with_tile(game, site, tile, self.custom_island))
                     for tile in tiles]
        out = []
        seat = self.seat
        for weight, g in games:
            events = g.apply(move)
            made = built(events, seat, site)  # its build points alone, as the result says them
            bird = any(e["type"] == "bird" and e["seat"] == seat for e in events)
            out.append(_Outcome(weight, made is not None, made.points if made is not None else 0, bird,
                                {c: g.card_points(seat, c) for c in self.cards}))
        return out

    def _build(self, move: str, site: int) -> tuple[list[Reason], int | None]:
        reasons: list[Reason] = []
        outcomes = self._outcomes(move, site)
        known = self.game.revealed[site]
        built_chance = sum(o.weight for o in outcomes if o.built)
        points_now: int | None = None
        if known and outcomes:
            points_now = outcomes[0].points
            reasons.append(Reason.of("build_points", points=points_now))
        elif outcomes:
            expected = sum(o.weight * o.points for o in outcomes)
            reasons.append(Reason.of("build_expected", tenths=round(10 * expected), chance=_percent(built_chance)))
        for card in self.cards:
            now = self.game.card_points(self.seat, card)
            better = [o for o in outcomes if o.cards[card] > now]
            worse = [o for o in outcomes if o.cards[card] < now]
            if better:
                after = max(o.cards[card] for o in better)
                chance = sum(o.weight for o in better)
            elif worse:
                after = min(o.cards[card] for o in worse)
                chance = sum(o.weight for o in worse)
            else:
                continue
            code = "card_gain" if after > now else "card_loss"
            reasons.append(Reason.of(code, card=card, now=now, after=after, chance=_percent(chance)))
        bird = sum(o.weight for o in outcomes if o.bird)
        if bird:
            reasons.append(Reason.of("bird_chip", chance=_percent(bird), left=self.view["bird_chips_left"]))
        if built_chance:
            reasons.extend(self._places(site))
        return reasons, points_now

    def _places(self, site: int) -> list[Reason]:
        """What a build on ``site`` does to the places: opens, reveals, takes, shares, the volcano."""
        isl = self.island
        view = self.view
        reasons: list[Reason] = []
        seat = self.seat
        occupied = self.occupied
        mine = self.owned[seat]
        pending = view["pending"]
        cards = dict(view["players"][seat]["building_cards"])
        road_reach = {nb for s in mine for nb in isl.road_nbrs[s]}
        my_rivers = {r for s in mine for r in isl.rivers_of[s]}
        new_sites: set[int] = set()
        if cards["road"] or cards["double"] or pending is not None:
            new_sites |= {nb for nb in isl.road_nbrs[site] if not occupied[nb] and nb not in road_reach}
        if cards["river"] or cards["double"] or pending is not None:
            for r in isl.rivers_of[site] - my_rivers:
                new_sites |= {s for s in isl.river_sites[r] if not occupied[s]}
        new_sites.discard(site)
        if new_sites:
            reasons.append(Reason.of("opens", count=len(new_sites)))
        face_down = {s["id"] for s in view["board"]["sites"] if s["tile"] is None}
        revealed = [nb for nb in isl.reveal_nbrs[site] if nb in face_down and nb != site]
        if revealed:
            reasons.append(Reason.of("reveals", count=len(revealed)))
        if occupied[site]:
            reasons.append(Reason.of("shares", seat=occupied[site][0]))
        else:
            takers = []
            for p in view["players"]:
                q = p["seat"]
                if q == seat or not self.owned[q]:
                    continue
                hand = p["building_cards"]
                by_road = (hand["road"] or hand["double"]) and any(site in isl.road_nbrs[s] for s in self.owned[q])
                by_river = (hand["river"] or hand["double"]) and any(
                    isl.rivers_of[site] & isl.rivers_of[s] for s in self.owned[q])
                if by_road or by_river:
                    takers.append(q)
            if takers:
                reasons.append(Reason.of("takes_from", seats=tuple(takers)))
        if isl.kind[site] == "volcano":
            status, chance = self.eruption()
            if status not in ("played", "out"):
                reasons.append(Reason.of("on_volcano", status=status, chance=chance))
        return reasons


def _percent(share: float) -> int:
    """A share in [0, 1] as whole percent, never rounded to 0 or 100 unless it is."""
    value = round(100 * share)
    if share > 0 and value == 0:
        return 1
    if share < 1 and value == 100:
        return 99
    return value
