"""Fit a judgement of a round-1 position (2 players) on games the master played, and judge it held out against the
judgement the master uses in round 1 today.

Run with ``python -m play.fit_round_one --data FILE [FILE ...] [--every 3] [--playouts 16] [--cuts 4 8 12 16]
[--procs 2] [--out engine/ai/data/round_one.json]``.

The data is the arena's (``--results``: one JSON line per game, its moves included), 2-player games. Every position of
round 1 in the landing or play phase where the seat to move has two or more legal moves is a sample, seen from that
seat as its search sees it: the features (:data:`engine.ai.round_two.FEATURES`, the same margins as round 2's) are
read in a determinization of its view (:func:`engine.ai.determinize.determinize`: the other seat's scoring cards and
bird chips sampled), with the seat's final margin and whether it won. All samples fit the model as
``play.fit_round_two`` fits round 2's (least squares of the final margin, then the temperature and spread of the
chance to win).

Held out (five folds by deal, each deal's positions predicted by a fit on the other deals): every ``--every``-th
position is probed in its determinization by ``--playouts`` noisy greedy playouts (the same seeds for every
predictor), and the result is predicted by

* the master's round-1 judgement today: the playouts to the end of round 1, each judged by the learned chance to win
  from there (:mod:`engine.ai.round_end`), their mean calibrated on the other folds;
* the margin now (score and bird chips), and the model at the position (``cut 0``);
* the model after N moves of each playout (``cut N``: the mean chance over the playouts, a playout whose round 1
  ended first judged as today; calibrated).

The table is ``play.fit_round_two``'s: log loss, winners called right, each model's log loss minus today's judgement's
(positions of a deal counted together).
"""

from __future__ import annotations

import json
import random
from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from engine import Game, new_game
from engine.ai.determinize import determinize
from engine.ai.evaluation import chance_to_win
from engine.ai.greedy import greedy_move
from engine.ai.players import mix_seed
from engine.ai.round_end import load_round_end
from engine.ai.round_end import margin_features as round_end_features
from engine.ai.round_two import PHASES, builds_left, position_margins
from play.fit_round_two import WIDTH, Job, Sample, fit_command, held_out, write_weights

CUTS = (4, 8, 12, 16)
"""Moves of a playout after which ``cut N`` judges it by the model (the default grid)."""
DATA = Path(__file__).resolve().parent.parent / "engine" / "ai" / "data" / "round_one.json"


def positions(row: dict[str, Any]) -> Iterator[tuple[int, Game]]:
    """(seat to move, the game) at each round-1 decision of a kept arena game (landing or play phase, two or more
    legal moves), in order."""
    moves = row.get("moves")
    if not isinstance(moves, list) or not moves:
        raise ValueError(f"game of seed {row['seed']}: no moves kept (played before the arena kept them)")
    game = new_game([f"P{i}" for i in range(len(row["scores"]))], int(row["seed"]))
    for move in moves:
        if game.round != 1:
            return
        seat = game.to_move
        if seat is not None and game.phase in PHASES and len(game.legal_moves()) > 1:
            yield seat, game.clone()
        game.apply(move)


def round_end_chance(game: Game, seat: int) -> float:
    """The chance to win that the master's round-1 judgement gives ``seat`` where round 2 begins."""
    m = load_round_end()
    margin = sum(w * x for w, x in zip(m.weights, round_end_features(game, seat), strict=True))
    return chance_to_win(margin, m.temperature)


def _cut_record(game: Game, seat: int) -> list[float]:
    if game.round != 1:
        return [1.0, 0.0, round_end_chance(game, seat)] + [0.0] * (WIDTH - 3)
    return [0.0, *position_margins(game, seat), float(builds_left(game))]


def probe(game: Game, seat: int, key: tuple[int, ...], playouts: int,
          cuts: Sequence[int]) -> tuple[float, array[float]]:
    """``playouts`` noisy greedy playouts of the rest of round 1 from ``game`` (a determinization of ``seat``'s
    view): the mean chance to win they end with (the master's judgement today), and what each looked like after each
    of ``cuts`` moves (the first landing or play position from there on; the round's end if it came first)."""
    total = 0.0
    out = array("d")
    for k in range(playouts):
        g = game.clone()
        rng = random.Random(mix_seed(*key, k, 62))
        records: list[list[float]] = []
        moves = 0
        while g.round == 1:
            if len(records) < len(cuts) and moves >= cuts[len(records)] and g.phase in PHASES:
                records.append(_cut_record(g, seat))
                continue
            g.apply(greedy_move(g, rng, noise=1.0))
            moves += 1
        while len(records) < len(cuts):
            records.append(_cut_record(g, seat))
        total += round_end_chance(g, seat)
        for r in records:
            out.extend(r)
    return total / playouts, out


def game_samples(job: Job) -> list[Sample]:
    """The samples of one kept arena game (a JSON line), every ``every``-th probed by ``playouts`` playouts."""
    line, every, playouts, cuts = job
    row = json.loads(line)
    seed = int(row["seed"])
    scores = row["scores"]
    out = []
    for i, (seat, game) in enumerate(positions(row)):
        det = determinize(game.view(seat), random.Random(mix_seed(seed, int(row["challenger_seat"]), i, 61)),
                          keep_log=False)
        s = Sample(seed, position_margins(det, seat), builds_left(det), float(scores[seat] - scores[1 - seat]),
                   int(row["winner"] == seat))
        if every and i % every == 0:
            s.baseline, s.probe = probe(det, seat, (seed, int(row["challenger_seat"]), i), playouts, cuts)
        out.append(s)
    return out


def main() -> None:
    args, lines, samples, m = fit_command(__doc__ or "", game_samples, CUTS, DATA, chunk=4)
    if args.every:
        held_out(samples, args.playouts, args.cuts, "playouts to round 1's end, judged (calibrated)", unit="deal")
    if args.out is not None:
        write_weights(args.out, m, f"play/fit_round_one.py, {len(lines)} arena games ({len(samples)} positions)")


if __name__ == "__main__":
    main()
