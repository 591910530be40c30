"""The master: in 2 players the expert's playouts allocated by sequential halving, with the end of round 1 judged by
a learned chance to win; the expert's search in 3 and 4.

Same candidates (:func:`engine.ai.expert.candidate_moves`), determinizations, noisy greedy playouts and common
random numbers as the expert (:mod:`engine.ai.expert`). Two things differ in 2 players: the allocation of the
playouts, and the judgement of a round-1 playout's end, which the expert scores by the margin then and the master by
the chance to win from there that a model learned from the expert's own round 2s gives (``judged``,
:mod:`engine.ai.round_end`).

Sequential halving (Karnin, Koren & Somekh 2013) splits the budget (seconds, playouts or both) into ceil(log2 K)
equal phases for K candidates. In each phase the remaining candidates are played in full rounds
(one determinization and one playout seed for all of them; a round cut short by the budget is not counted);
after each phase the worse half by mean reward is dropped, and the best mean of the last ones is played. It
thinks its whole budget on every searched move (the expert stops once one candidate is clearly best) and never
past it: the clock is read after every playout, as the expert does.

In 3 and 4 players the master plays the expert's own search, seeded alike, so it makes the expert's moves and is
never worse than the expert there: halving's 3-player share against experts on new deals lay at the fair share
(32.2 % of 115 games, 24.3-41.2 %) and its 4-player share below it (20.8 % of 120 games, fair share 25 %). In 2
players plain halving won about half against the expert at the same thinking time (50.4 % of 1,700 games on new
deals, 48.0-52.8 %); with the judgement it won 903 of 1,700 (53.1 %, 50.7-55.5 %; ``engine/AI.md``,
``engine/AI-RESEARCH.md``, twelfth attempt), so the master is offered (``engine.ai.OFFERED``).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from engine.ai.determinize import determinize
from engine.ai.evaluation import Evaluation, load_evaluation
from engine.ai.expert import (
    ExpertPlayer,
    SearchResult,
    _playout,
    search,
    search_limits,
    start_search,
)
from engine.ai.round_end import RoundEnd, load_round_end
from engine.ai.round_two import RoundTwo, load_round_two
from engine.game import Game
from engine.island import Island
from engine.moves import Move
from engine.types import View

__all__ = ["HALVING_PLAYERS", "MasterPlayer", "halving", "master_search", "play_round"]

HALVING_PLAYERS = (2,)
"""Player counts where the master allocates by sequential halving; in the others it plays the expert's search."""


def play_round(game: Game, seat: int, moves: Sequence[Move], playout_seed: float, to_round_end: bool, *,
               stop: Callable[[], bool] = lambda: False, cut: tuple[int, Evaluation] | None = None,
               round_end: RoundEnd | None = None, round_two: tuple[int, RoundTwo] | None = None) -> list[float]:
    """Every move of ``moves`` played in ``game`` (one determinization), each followed by the same noisy greedy
    playout (common random numbers): ``seat``'s rewards in [0, 1], in the order of ``moves``. ``stop()`` is asked
    after each playout; when it says so the list ends there (shorter than ``moves``). ``cut``: (moves, evaluation),
    playouts stopped after that many moves and judged by the learned evaluation (:mod:`engine.ai.evaluation`).
    ``round_end``: a playout that ends round 1 judged by the chance to win from there (:mod:`engine.ai.round_end`,
    2 players). ``round_two``: (moves, model), a round-2 playout stopped after that many moves and judged by the
    chance to win from there (:mod:`engine.ai.round_two`, 2 players)."""
    out: list[float] = []
    for move in moves:
        g = game.clone()
        g.apply(move)
        out.append(_playout(g, seat, random.Random(playout_seed), to_round_end, 1.0, 15.0, cut, round_end,
                            round_two))
        if stop():
            break
    return out


def halving(view: View, *, seed: int = 0, budget: float | None = 1.0, iterations: int | None = None,
            island: Island | None = None, candidates: int = 7, cut: int | None = None, judged: bool = False,
            round_two: int | None = None, clock: Callable[[], float] = time.perf_counter) -> SearchResult:
    """Sequential halving over the expert's candidates in ``view`` (a seat's view), whatever the player count.

    It stops at ``budget`` seconds by ``clock`` or at ``iterations`` playouts, whichever comes first (neither:
    200 playouts); deterministic for a given ``seed`` when ``budget`` is ``None``. ``cut``: playouts stop after
    that many moves and are judged by the learned evaluation (:func:`engine.ai.evaluation.load_evaluation`).
    ``judged`` (2 players): a round-1 playout's end is judged by the chance to win from there
    (:func:`engine.ai.round_end.load_round_end`), not by the margin then. ``round_two`` (2 players): a round-2
    playout stops after that many moves and is judged by the chance to win from there
    (:func:`engine.ai.round_two.load_round_two`), not played to the end of the game.
    """
    cutting = (cut, load_evaluation()) if cut is not None else None
    two_players = len(view["players"]) == 2
    round_end = load_round_end() if judged and two_players and view["round"] == 1 else None
    judging_two = (round_two, load_round_two()) if round_two is not None and two_players else None
    start, deadline, limit = search_limits(budget, iterations, clock)
    begun = start_search(view, seed, island, candidates)
    if isinstance(begun, SearchResult):
        return begun
    seat, rng, game, chosen = begun.seat, begun.rng, begun.first, begun.chosen
    to_round_end = view["round"] == 1
    sums = [0.0] * len(chosen)
    counts = [0] * len(chosen)
    active = list(range(len(chosen)))
    phases = math.ceil(math.log2(len(chosen)))
    playouts = rounds = 0
    last = 0.0  # how long the last round took: the last phase starts no round that would end past the budget
    stopped = False

    def out_of_time() -> bool:
        return clock() >= deadline

    for phase in range(phases):
        final = phase == phases - 1
        phase_end = start + (deadline - start) * (phase + 1) / phases if budget is not None else math.inf
        phase_playouts = limit * (phase + 1) / phases
        while True:
            now = clock()
            if now + (last if final else 0.0) >= phase_end or (not final and playouts >= phase_playouts):
                break
            if playouts + len(active) > limit or now >= deadline:
                stopped = True
                break
            if rounds:
                game = determinize(view, random.Random(rng.random()), island=island, keep_log=False)
            rounds += 1
            got = play_round(game, seat, [chosen[i] for i in active], rng.random(), to_round_end, stop=out_of_time,
                             cut=cutting, round_end=round_end, round_two=judging_two)
            playouts += len(got)
            if len(got) < len(active):  # cut by the deadline: keep the means comparable
                stopped = True
                break
            for i, r in zip(active, got, strict=True):
                sums[i] += r
                counts[i] += 1
            last = clock() - now
        if all(counts[i] for i in active):
            active = sorted(active, key=lambda i: (-sums[i] / counts[i], i))[: max(1, math.ceil(len(active) / 2))]
        if stopped:
            break
    best = max(active, key=lambda i: (sums[i] / counts[i] if counts[i] else 0.0, -i))
    stats = {str(chosen[i]): (counts[i], sums[i] / counts[i] if counts[i] else 0.0) for i in range(len(chosen))}
    return SearchResult(str(chosen[best]), playouts, rounds, stats)


def master_search(view: View, *, seed: int = 0, budget: float | None = 1.0, iterations: int | None = None,
                  island: Island | None = None, candidates: int = 7, judged: bool = True,
                  round_two: int | None = None, clock: Callable[[], float] = time.perf_counter) -> SearchResult:
    """The master's search of ``view``: :func:`halving` in 2 players (:data:`HALVING_PLAYERS`), judging the end of
    round 1 by the learned chance to win (``judged=False``: by the margin, as the expert and plain halving do), the
    expert's :func:`engine.ai.expert.search` in 3 and 4 (same keywords, same budget rules). ``round_two``: halving's
    round-2 playouts stop after that many moves, judged by the learned chance to win (a trial the arena plays with
    ``--trial``)."""
    if len(view["players"]) in HALVING_PLAYERS:
        return halving(view, seed=seed, budget=budget, iterations=iterations, island=island, candidates=candidates,
                       judged=judged, round_two=round_two, clock=clock)
    return search(view, seed=seed, budget=budget, iterations=iterations, island=island, candidates=candidates,
                  clock=clock)


class MasterPlayer(ExpertPlayer):
    """A seat played by :func:`master_search`: ``budget`` seconds per move, or at most ``iterations`` playouts
    (seeded like the expert, so that in 4 players it makes the expert's moves)."""

    def search(self, view: View, **options: Any) -> SearchResult:
        return master_search(view, **options)
