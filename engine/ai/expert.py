"""The expert: determinized Monte Carlo search (perfect-information Monte Carlo with racing).

Its only input is the seat's view. Each round of the search samples one full game consistent with the
view (:func:`engine.ai.determinize.determinize`: face-down tiles, the others' scoring cards, the deck and
the bird chips) and plays every candidate move in it, followed by the same noisy greedy playout for all
seats (common random numbers, so candidates are compared on equal luck). A round-1 decision is played out
to the end of the round and judged by the score margin then (bird chips included); a round-2 decision is
played out to the end of the game and judged by winning, with the margin as a tie-break. Candidates are
the greedy player's best few moves plus every scoring card; a candidate is dropped once it is clearly
worse than the leader ("racing"), and the search stops after ``iterations`` playouts or ``budget``
seconds, whichever comes first.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.ai.determinize import determinize
from engine.ai.evaluation import Evaluation, end_reward, evaluate
from engine.ai.greedy import greedy_move, move_values
from engine.ai.players import mix_seed, own_part
from engine.ai.round_end import RoundEnd, judge
from engine.ai.round_two import PHASES, RoundTwo
from engine.ai.round_two import judge as judge_round_two
from engine.game import Game
from engine.island import Island
from engine.moves import Move
from engine.types import View

__all__ = ["ExpertPlayer", "SearchResult", "SearchStart", "candidate_moves", "search", "search_limits",
           "seat_to_search", "start_search"]


@dataclass
class SearchResult:
    """The chosen move and how the search got there."""

    move: str
    playouts: int
    determinizations: int
    stats: dict[str, tuple[int, float]]
    """Per candidate: (playouts, mean reward)."""


def candidate_moves(game: Game, count: int = 7) -> list[Move]:
    """The moves the search compares in ``game`` (one determinization of the seat's view): greedy's best ``count``
    and every scoring card, in greedy's order (greedy reads only public and own information, so any determinization
    gives the same list)."""
    values = move_values(game)
    ranked = sorted(values, key=lambda m: -values[m])
    return ranked[:count] + [m for m in ranked[count:] if m.verb == "score"]


def seat_to_search(view: View) -> tuple[int, str | None]:
    """The seat whose view this is, and its only legal move when it has one only (nothing to search); ``ValueError``
    when it has none."""
    you = own_part(view)
    legal = you["legal_moves"]
    if not legal:
        raise ValueError("the seat has no move to make in this view")
    return you["seat"], (str(legal[0]) if len(legal) == 1 else None)


def search_limits(budget: float | None, iterations: int | None,
                  clock: Callable[[], float]) -> tuple[float, float, int]:
    """(start, deadline, most playouts) of a search given ``budget`` seconds by ``clock`` and ``iterations``
    playouts, whichever ends first (neither: 200 playouts)."""
    start = clock()
    deadline = start + budget if budget is not None else math.inf
    return start, deadline, iterations if iterations is not None else (10**9 if budget is not None else 200)


@dataclass
class SearchStart:
    """What every search of a position begins with (:func:`start_search`)."""

    seat: int
    rng: random.Random
    """Seeded once: each determinization and playout draws its own seed from it, in order."""
    first: Game
    """The first determinization of the seat's view (the candidates are read from it; the first round plays it)."""
    chosen: list[Move]
    """The candidates (:func:`candidate_moves`), two or more."""


def start_search(view: View, seed: int, island: Island | None, candidates: int) -> SearchStart | SearchResult:
    """The seat, the seeded generator, the first determinization and the candidates of a search of ``view``; or its
    answer at once when there is nothing to compare (one legal move, or one candidate)."""
    seat, only = seat_to_search(view)
    if only is not None:
        return SearchResult(only, 0, 0, {})
    rng = random.Random(seed)
    first = determinize(view, random.Random(rng.random()), island=island, keep_log=False)
    chosen = candidate_moves(first, candidates)
    if len(chosen) == 1:
        return SearchResult(str(chosen[0]), 0, 0, {})
    return SearchStart(seat, rng, first, chosen)


def _evaluate(game: Game, seat: int, margin_scale: float) -> float:
    """Reward in [0, 1] for ``seat``: a win counts most, the margin to the best other breaks ties."""
    n = game.n
    if game.phase == "over":
        totals = game.score
        won = 1.0 if game.ranking()[0] == seat else 0.0
        best_other = max(totals[p] for p in range(n) if p != seat)
        margin = totals[seat] - best_other
        return end_reward(won, margin)
    totals = [game.score[p] + sum(game.birds[p]) for p in range(n)]
    best_other = max(totals[p] for p in range(n) if p != seat)
    margin = totals[seat] - best_other
    return 0.5 + 0.5 * math.tanh(margin / margin_scale)


def _playout(game: Game, seat: int, rng: random.Random, to_round_end: bool, noise: float,
             margin_scale: float, cut: tuple[int, Evaluation] | None = None,
             round_end: RoundEnd | None = None, round_two: tuple[int, RoundTwo] | None = None) -> float:
    """Noisy greedy play to the end of the round (``to_round_end``) or game, judged for ``seat``; with ``cut``
    (moves, evaluation) stopped after that many moves (in the landing or play phase) and judged by the learned
    evaluation (:mod:`engine.ai.evaluation`); with ``round_end`` (2 players) the end of round 1 judged by the chance
    to win from there (:mod:`engine.ai.round_end`) instead of the margin then; with ``round_two`` (moves, model; 2
    players) a round-2 playout stopped after that many moves (in the landing or play phase) and judged by the
    chance to win from there (:mod:`engine.ai.round_two`)."""
    start_round = game.round
    moves = 0
    while game.phase != "over":
        if to_round_end and game.round != start_round:
            if round_end is not None:
                return judge(game, seat, round_end)
            break
        if cut is not None and moves >= cut[0] and game.phase in PHASES:
            return evaluate(game, seat, cut[1])
        if round_two is not None and moves >= round_two[0] and game.round == 2 and game.phase in PHASES:
            return judge_round_two(game, seat, round_two[1])
        game.apply(greedy_move(game, rng, noise=noise))
        moves += 1
    return _evaluate(game, seat, margin_scale)


def search(view: View, *, seed: int = 0, budget: float | None = 1.0, iterations: int | None = None,
           island: Island | None = None, candidates: int = 7, noise: float = 1.0,
           margin_scale: float = 15.0, z: float = 2.0, min_rounds: int = 6,
           clock: Callable[[], float] = time.perf_counter) -> SearchResult:
    """Search the position ``view`` (a seat's view) and return the best move found.

    Deterministic for a given ``seed`` when ``iterations`` is given and ``budget`` is ``None``. ``clock`` tells the
    seconds that ``budget`` is counted in (tests give a clock of their own).
    """
    _start, deadline, limit = search_limits(budget, iterations, clock)
    begun = start_search(view, seed, island, candidates)
    if isinstance(begun, SearchResult):
        return begun
    seat, rng, first, chosen = begun.seat, begun.rng, begun.first, begun.chosen
    to_round_end = view["round"] == 1
    active = list(range(len(chosen)))
    sums = [0.0] * len(chosen)
    counts = [0] * len(chosen)
    rewards: list[list[float]] = [[] for _ in chosen]  # per determinization round, for paired tests
    playouts = 0
    rounds = 0
    game = first
    while playouts < limit and clock() < deadline and len(active) > 1:
        if rounds:
            game = determinize(view, random.Random(rng.random()), island=island, keep_log=False)
        rounds += 1
        playout_seed = rng.random()
        round_rewards: dict[int, float] = {}
        for i in active:
            g = game.clone()
            g.apply(chosen[i])
            r = _playout(g, seat, random.Random(playout_seed), to_round_end, noise, margin_scale)
            round_rewards[i] = r
            sums[i] += r
            counts[i] += 1
            playouts += 1
            if playouts >= limit or clock() >= deadline:
                break
        if len(round_rewards) != len(active):  # an incomplete round: keep the means comparable
            for i, r in round_rewards.items():
                sums[i] -= r
                counts[i] -= 1
            break
        for i in active:
            rewards[i].append(round_rewards[i])
        if rounds >= min_rounds:
            best = max(active, key=lambda i: sums[i] / counts[i])
            keep = []
            for i in active:
                if i == best:
                    keep.append(i)
                    continue
                diffs = [a - b for a, b in zip(rewards[i], rewards[best], strict=True)]
                k = len(diffs)
                mean = sum(diffs) / k
                var = sum((d - mean) ** 2 for d in diffs) / (k - 1)
                se = math.sqrt(var / k) if var > 0 else 0.0
                if mean + z * se >= 0 and not (se == 0 and mean < 0):
                    keep.append(i)
            active = keep
    scored = [i for i in range(len(chosen)) if counts[i]]
    if not scored:
        best_i = 0
    else:
        pool = [i for i in active if counts[i]] or scored
        best_i = max(pool, key=lambda i: (sums[i] / counts[i], -i))
    stats = {str(chosen[i]): (counts[i], sums[i] / counts[i] if counts[i] else 0.0) for i in range(len(chosen))}
    return SearchResult(str(chosen[best_i]), playouts, rounds, stats)


class ExpertPlayer:
    """A seat played by :func:`search`: ``budget`` seconds per move, or exactly ``iterations`` playouts."""

    def __init__(self, seed: int = 0, *, budget: float | None = 1.0, iterations: int | None = None,
                 island: Island | None = None, **options: Any) -> None:
        self.seed = seed
        self.budget = budget
        self.iterations = iterations
        self.island = island
        self.options = options

    def choose(self, view: View) -> str:
        move_seed = mix_seed(self.seed, len(view["log"]), own_part(view)["seat"])
        return self.search(view, seed=move_seed, budget=self.budget, iterations=self.iterations,
                           island=self.island, **self.options).move

    def search(self, view: View, **options: Any) -> SearchResult:
        """The search that chooses this player's moves."""
        return search(view, **options)
