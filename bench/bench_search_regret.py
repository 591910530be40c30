"""How much the expert's search leaves on the table against its own judgement: the simple regret of a move choice.

Run with ``python bench/bench_search_regret.py [--players 2 4] [--deals 8] [--rounds 600] [--budget 0.3] [--cut 6]
[--judged]``.

Positions come from noisy greedy self-play (every eleventh move with three or more legal moves, both rounds).
For each, every candidate the expert considers (greedy's best seven and every scoring card) is played in the same
``--rounds`` determinizations with the same playout seeds (the expert's own playouts and judgement), which gives
each candidate's value as the expert's search could know it with unlimited time. The regret of a choice is the
best candidate's value minus the chosen one's (0: the best; rewards lie in [0, 1]). Printed per player count:

* ``greedy``: greedy's first choice (no search);
* ``expert``: :func:`engine.ai.search` at ``--budget`` seconds (its racing), four seeds a position;
* ``halving``: the same playouts allocated by sequential halving (:func:`engine.ai.master.halving`, plain: the
  master's search in 2 players without its round-end judgement), four seeds a position;
* ``cut N``: halving whose playouts stop after N moves and are judged by the learned evaluation
  (:mod:`engine.ai.evaluation`): more, shorter playouts in the same time, judged by a model of their end;
* ``judged``: halving whose round-1 playouts are judged by the chance to win from the end of round 1
  (:mod:`engine.ai.round_end`, 2 players: the master's search), with ``--judged``.

With ``--judged`` each candidate's value is also measured under that judgement (round-1 positions of 2 players; in
the others the two judgements are the same), and every search's regret is printed against both: a search is meant
to be measured against the judgement it uses, and the distance between the two says how often they disagree.

A match between two players costs hours; this measure takes minutes, but it only tells how well a search finds the
move its own judgement prefers, not whether that judgement wins games (see ``engine/AI-RESEARCH.md``).
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import time

from engine import Game, new_game
from engine.ai import search
from engine.ai.determinize import determinize
from engine.ai.expert import candidate_moves
from engine.ai.greedy import greedy_move
from engine.ai.master import halving, play_round
from engine.ai.players import own_part
from engine.ai.round_end import RoundEnd, load_round_end
from engine.moves import Move
from engine.types import View

SEEDS = 4
"""Searches a position per searching player (different seeds)."""


def positions(players: int, deals: int) -> list[Game]:
    """Every eleventh position with three or more legal moves of noisy greedy self-play, ``deals`` games."""
    out = []
    for deal in range(deals):
        game = new_game([f"P{i}" for i in range(players)], 900 + deal)
        rng = random.Random(deal)
        k = 0
        while not game.is_over():
            if k % 11 == 3 and len(game.legal_moves()) > 2:
                out.append(game.clone())
            game.apply(greedy_move(game, rng, noise=0.5))
            k += 1
    return out


def candidates(view: View) -> list[Move]:
    """The expert's candidates (:func:`engine.ai.expert.candidate_moves`), greedy's order first."""
    return candidate_moves(determinize(view, random.Random(1), keep_log=False))


def rewards_of_round(view: View, chosen: list[Move], rng: random.Random,
                     round_end: RoundEnd | None = None) -> list[float]:
    """Every candidate played in one determinization with one playout seed (common random numbers)."""
    game = determinize(view, random.Random(rng.random()), keep_log=False)
    return play_round(game, own_part(view)["seat"], chosen, rng.random(), view["round"] == 1, round_end=round_end)


def values(view: View, chosen: list[Move], rounds: int, round_end: RoundEnd | None) -> dict[str, float]:
    """Each candidate's mean reward over ``rounds`` rounds (the same determinizations and seeds for every call)."""
    rng = random.Random(12345)
    sums = [0.0] * len(chosen)
    for _ in range(rounds):
        for i, r in enumerate(rewards_of_round(view, chosen, rng, round_end)):
            sums[i] += r
    return {str(m): s / rounds for m, s in zip(chosen, sums, strict=True)}


def measure(job: tuple[Game, int, float, tuple[int, ...], bool]) -> list[list[list[float]]] | None:
    """Regrets in one position, per reference judgement (the playouts' own; with ``judged`` also the learned
    round-end one): greedy's, the expert's, halving's, halving's with each cut, then (``judged``) halving's with the
    learned round-end judgement; ``None`` below two candidates."""
    game, rounds, budget, cuts, judged = job
    view = game.view(game.to_move)
    chosen = candidates(view)
    if len(chosen) < 2:
        return None
    plain = values(view, chosen, rounds, None)
    references = [plain]
    if judged:
        learned = game.n == 2 and game.round == 1
        references.append(values(view, chosen, rounds, load_round_end()) if learned else plain)
    # Seconds of this process's CPU: a busy machine gives the searches the same playouts as an idle one.
    moves = [[str(chosen[0])], [search(view, seed=100 + s, budget=budget, clock=time.process_time).move
                                for s in range(SEEDS)]]
    moves += [[halving(view, seed=100 + s, budget=budget, cut=cut, clock=time.process_time).move
               for s in range(SEEDS)] for cut in (None, *cuts)]
    if judged:
        moves.append([halving(view, seed=100 + s, budget=budget, judged=True, clock=time.process_time).move
                      for s in range(SEEDS)])
    out = []
    for value in references:
        best, worst = max(value.values()), min(value.values())
        out.append([[best - value.get(m, worst) for m in chosen_moves] for chosen_moves in moves])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--deals", type=int, default=8, help="self-play games to take positions from, per player count")
    ap.add_argument("--rounds", type=int, default=600, help="rounds measuring each candidate's value")
    ap.add_argument("--budget", type=float, default=0.3, help="seconds a search (CPU seconds of its process)")
    ap.add_argument("--cut", type=int, nargs="*", default=[], help="also halving with playouts cut after N moves")
    ap.add_argument("--judged", action="store_true",
                    help="also halving with the learned round-end judgement, and regrets against that judgement")
    ap.add_argument("--procs", type=int, default=2)
    args = ap.parse_args()
    names = ["greedy", "expert", "halving", *(f"cut {c}" for c in args.cut), *(["judged"] if args.judged else [])]
    references = ["the playouts' judgement", *(["the learned round-end judgement"] if args.judged else [])]
    for n in args.players:
        jobs = [(g, args.rounds, args.budget, tuple(args.cut), args.judged) for g in positions(n, args.deals)]
        with multiprocessing.Pool(args.procs) as pool:
            results = [r for r in pool.map(measure, jobs) if r is not None]
        print(f"{n} players, {len(results)} positions, {args.rounds} rounds a candidate, {args.budget:g} s a search:")
        for j, reference in enumerate(references):
            print(f" against {reference}:")
            for k, name in enumerate(names):
                regrets = [x for r in results for x in r[j][k]]
                best = sum(x < 1e-9 for x in regrets) / len(regrets)
                print(f"  {name:8} mean regret {statistics.mean(regrets):.4f}, "
                      f"the best candidate in {100 * best:.0f} %")


if __name__ == "__main__":
    main()
