"""Fit the master's judgement of a round-2 position (:mod:`engine.ai.round_two`) on expert-played round 2s, and
judge it held out against the playouts the search uses today.

Run with ``python -m play.fit_round_two --data FILE [FILE ...] [--every 3] [--playouts 16] [--cuts 4 8 12] [--procs 2]
[--out engine/ai/data/round_two.json]``.

The data is ``play.fit_round_end``'s (its ``play`` step keeps each game's round 2, which the expert played against
itself). Every position of those round 2s in the landing or play phase where the seat to move has two or more legal
moves is a sample: :data:`engine.ai.round_two.FEATURES` of seat 0, what is left to play, seat 0's final margin and
whether it won. All samples fit the shipped model (least squares of the final margin on the features, then the
temperature and spread of the chance to win by maximum likelihood on a grid).

Held out (five folds by game, each game's positions predicted by a fit on the other games): every ``--every``-th
position is probed by ``--playouts`` noisy greedy playouts (noise 1.0, the search's playout policy, the same seeds
for every predictor), and the expert's result is predicted from it by

* the playouts' win share (what the search judges a round-2 move by today), calibrated (a logistic function of its
  log-odds, fitted on the other folds);
* the margin now (score and bird chips), its scale fitted like the model's;
* the model at the position (``cut 0``) and after N moves of each playout (``cut N``: the mean chance to win over
  the playouts, a playout that ends first counting its win; calibrated like the playouts).

Log loss and the share of winners called right are printed for each, and each model's log loss minus the
playouts', position by position (the mean gap and its standard error, positions of a game counted together).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
from array import array
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from engine import Game
from engine.ai.evaluation import chance_to_win
from engine.ai.greedy import greedy_move
from engine.ai.players import mix_seed
from engine.ai.round_two import DATA, FEATURES, PHASES, RoundTwo, builds_left, margin_features
from play.fit_evaluation import least_squares

CUTS = (4, 8, 12)
"""Moves of a playout after which ``cut N`` judges it by the model (the default grid)."""
Job = tuple[str, int, int, tuple[int, ...]]
"""One game's line of the data, ``--every``, ``--playouts`` and the cuts: what a fit's ``game_samples`` is given."""
FOLDS = 5
WIDTH = len(FEATURES) + 2
"""Doubles kept per playout and cut: ended (1.0) or not, then the features and what is left, or the final margin
and the win."""


class Sample:
    """One position of an expert's round 2, from seat 0's side."""

    __slots__ = ("baseline", "features", "game", "left", "margin", "probe", "won")

    def __init__(self, game: int, features: tuple[float, ...], left: int, margin: float, won: int) -> None:
        self.game = game
        """The game (or deal) it comes from: the folds keep a game's positions together."""
        self.features = features
        self.left = left
        self.margin = margin
        self.won = won
        self.baseline = 0.5
        """The chance to win that the search's judgement today gives it (probed positions only): here the share of
        full playouts won, one win and one loss added in halves."""
        self.probe: array[float] | None = None
        """Per cut and playout, :data:`WIDTH` doubles (probed positions only)."""


def positions(row: dict[str, object]) -> Iterator[Game]:
    """The round-2 decisions of a kept game (landing or play phase, two or more legal moves), in order."""
    game = Game.from_json(str(row["start"]))
    moves = row.get("round2")
    if not isinstance(moves, list):
        raise ValueError(f"game {row['number']}: no round-2 moves kept (play it again with play.fit_round_end play)")
    for move in moves:
        if game.phase in PHASES and len(game.legal_moves()) > 1:
            yield game.clone()
        game.apply(move)


def _cut_record(game: Game) -> list[float]:
    if game.phase == "over":
        margin = float(game.score[0] - game.score[1])
        return [1.0, margin, float(game.ranking()[0] == 0)] + [0.0] * (WIDTH - 3)
    return [0.0, *margin_features(game, 0), float(builds_left(game))]


def probe(game: Game, number: int, index: int, playouts: int,
          cuts: Sequence[int] = CUTS) -> tuple[int, array[float]]:
    """``playouts`` noisy greedy playouts from ``game``: how many seat 0 won, and what each looked like after each
    of ``cuts`` moves (the first landing or play position from there on; the end if it came first)."""
    wins = 0
    out = array("d")
    for k in range(playouts):
        g = game.clone()
        rng = random.Random(mix_seed(number, index, k, 52))
        records: list[list[float]] = []
        moves = 0
        while not g.is_over():
            if len(records) < len(cuts) and moves >= cuts[len(records)] and g.phase in PHASES:
                records.append(_cut_record(g))
                continue
            g.apply(greedy_move(g, rng, noise=1.0))
            moves += 1
        while len(records) < len(cuts):
            records.append(_cut_record(g))
        wins += g.ranking()[0] == 0
        for r in records:
            out.extend(r)
    return wins, out


def game_samples(job: tuple[str, int, int] | Job) -> list[Sample]:
    """The samples of one kept game (a JSON line), every ``every``-th probed by ``playouts`` playouts."""
    line, every, playouts = job[:3]
    cuts = job[3] if len(job) > 3 else CUTS
    row = json.loads(line)
    number = int(row["number"])
    margin = float(row["scores"][0] - row["scores"][1])
    won = int(row["winner"] == 0)
    out = []
    for i, game in enumerate(positions(row)):
        s = Sample(number, margin_features(game, 0), builds_left(game), margin, won)
        if every and i % every == 0:
            wins, s.probe = probe(game, number, i, playouts, cuts)
            s.baseline = (wins + 0.5) / (playouts + 1)
        out.append(s)
    return out


# ---------------------------------------------------------------------------------------------------- the fit

def loss(p: float, won: int) -> float:
    eps = 1e-3
    return -math.log(min(1 - eps, max(eps, p if won else 1 - p)))


def log_loss(pairs: Sequence[tuple[float, int]]) -> float:
    return sum(loss(p, w) for p, w in pairs) / len(pairs)


def weights(train: Sequence[Sample], ridge: float = 1.0) -> list[float]:
    """Least squares of the final margin on the features."""
    return least_squares(((s.features, s.margin) for s in train), len(FEATURES), ridge)


TEMPERATURES = tuple(2.0 + 0.5 * i for i in range(37))
SPREADS = (0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0)


def scale(predicted: Sequence[float], left: Sequence[int], won: Sequence[int]) -> tuple[float, float]:
    """(temperature, spread) of the chance to win with the least log loss (a grid)."""
    def cost(t: float, s: float) -> float:
        return sum(loss(chance_to_win(m, math.sqrt(t * t + s * x)), w) for m, x, w in zip(predicted, left, won,
                                                                                          strict=True))
    return min(((t, s) for t in TEMPERATURES for s in SPREADS), key=lambda ts: cost(*ts))


def model(train: Sequence[Sample]) -> RoundTwo:
    """The judgement fitted on ``train`` (the temperature and spread on every fourth sample, for time)."""
    w = weights(train)
    some = train[::4]
    t, s = scale([_dot(w, x.features) for x in some], [x.left for x in some], [x.won for x in some])
    return RoundTwo(tuple(w), t, s)


def _dot(w: Sequence[float], f: Sequence[float]) -> float:
    return sum(a * b for a, b in zip(w, f, strict=True))


def chance(m: RoundTwo, features: Sequence[float], left: float) -> float:
    return chance_to_win(_dot(m.weights, features), math.sqrt(m.temperature**2 + m.spread * left))


def cut_share(m: RoundTwo, s: Sample, cut: int, playouts: int, cuts: int = len(CUTS)) -> float:
    """The mean over ``s``'s playouts of the model's chance after the ``cut``-th of ``cuts`` cuts (a playout that
    ended first counts what it kept: its win, or a chance)."""
    assert s.probe is not None
    total = 0.0
    n = len(FEATURES)
    for k in range(playouts):
        at = (k * cuts + cut) * WIDTH
        r = s.probe[at:at + WIDTH]
        total += r[2] if r[0] else chance(m, r[1:1 + n], r[1 + n])
    return total / playouts


def logit(p: float) -> float:
    p = min(1 - 1e-4, max(1e-4, p))
    return math.log(p / (1 - p))


def platt(x: Sequence[float], won: Sequence[int]) -> tuple[float, float]:
    """(a, b) of the logistic chance sigma(a x + b) with the least log loss (Newton's method)."""
    a, b = 1.0, 0.0
    for _ in range(30):
        ga = gb = haa = hab = hbb = 0.0
        for xi, wi in zip(x, won, strict=True):
            p = 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, a * xi + b))))
            d = p - wi
            ga += d * xi
            gb += d
            v = p * (1 - p) + 1e-9
            haa += v * xi * xi
            hab += v * xi
            hbb += v
        det = haa * hbb - hab * hab
        if det <= 0:
            break
        a -= (hbb * ga - hab * gb) / det
        b -= (haa * gb - hab * ga) / det
    return a, b


def calibrated(a: float, b: float, x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, a * x + b))))


def paired_gap(ours: Sequence[tuple[float, int]], theirs: Sequence[tuple[float, int]],
               games: Sequence[int]) -> tuple[float, float]:
    """The mean of ``ours``' log loss minus ``theirs``' over the same positions, and its standard error with the
    positions of one game counted together (they are not independent)."""
    gaps = [loss(p, w) - loss(q, v) for (p, w), (q, v) in zip(ours, theirs, strict=True)]
    mean = sum(gaps) / len(gaps)
    by_game: dict[int, float] = {}
    for g, d in zip(games, gaps, strict=True):
        by_game[g] = by_game.get(g, 0.0) + d - mean
    clusters = len(by_game)
    var = sum(x * x for x in by_game.values()) * clusters / (clusters - 1) if clusters > 1 else 0.0
    return mean, math.sqrt(var) / len(gaps)


def _report(name: str, pairs: Sequence[tuple[float, int]]) -> str:
    right = sum((p > 0.5) == bool(w) for p, w in pairs if p != 0.5) + 0.5 * sum(p == 0.5 for p, _w in pairs)
    return f"  {name:38} log loss {log_loss(pairs):.4f}, winner called right {100 * right / len(pairs):.1f} %"


def held_out(samples: Sequence[Sample], playouts: int, cuts: Sequence[int] = CUTS,
             baseline: str = "greedy playouts (calibrated)", unit: str = "game") -> None:
    """The held-out table: ``baseline`` names what :attr:`Sample.baseline` is (calibrated on the other folds);
    ``unit`` what :attr:`Sample.game` counts (the folds and standard errors keep its positions together)."""
    probed = [s for s in samples if s.probe is not None]
    names = [baseline, "the margin now", "cut 0 (the model at the position)", *(f"cut {c}" for c in cuts)]
    preds: dict[str, list[tuple[float, int]]] = {n: [] for n in names}
    games: list[int] = []
    for fold in range(FOLDS):
        train = [s for s in samples if s.game % FOLDS != fold]
        train_probed = [s for s in probed if s.game % FOLDS != fold]
        test = [s for s in probed if s.game % FOLDS == fold]
        m = model(train)
        games += [s.game for s in test]
        # the playouts' own prediction, calibrated on the other folds
        def share(s: Sample) -> float:
            return logit(s.baseline)
        a, b = platt([share(s) for s in train_probed], [s.won for s in train_probed])
        preds[names[0]] += [(calibrated(a, b, share(s)), s.won) for s in test]
        now = [x.features[0] + x.features[1] for x in train[::4]]
        t, sp = scale(now, [x.left for x in train[::4]], [x.won for x in train[::4]])
        preds[names[1]] += [(chance_to_win(s.features[0] + s.features[1], math.sqrt(t * t + sp * s.left)), s.won)
                            for s in test]
        preds[names[2]] += [(chance(m, s.features, s.left), s.won) for s in test]
        for c in range(len(cuts)):
            a, b = platt([logit(cut_share(m, s, c, playouts, len(cuts))) for s in train_probed],
                         [s.won for s in train_probed])
            preds[names[3 + c]] += [(calibrated(a, b, logit(cut_share(m, s, c, playouts, len(cuts)))), s.won)
                                    for s in test]
    print(f"held out ({FOLDS} folds by {unit}; {len(probed)} positions of {len(set(games))} {unit}s, {playouts} "
          "playouts each):")
    for n in names:
        print(_report(n, preds[n]))
    print(_report("a coin", [(0.5, w) for _p, w in preds[names[0]]]))
    for n in names[1:]:
        gap, error = paired_gap(preds[n], preds[names[0]], games)
        print(f"  {n}: log loss minus the first's {gap:+.4f} (standard error {error:.4f}, by {unit})")


def fit_command(description: str, samples_of: Callable[[Job], list[Sample]], cuts: Sequence[int], data: Path, *,
                chunk: int) -> tuple[argparse.Namespace, list[str], list[Sample], RoundTwo]:
    """What the commands of both fits (this one's and ``play.fit_round_one``'s) share: the command line (the
    defaults ``cuts``, the weights' usual place ``data``), the data's games read, their samples made by
    ``samples_of`` in ``--procs`` processes (``chunk`` games at a time), and the model fitted on them, its weights and
    residual printed. The arguments, the games' lines, the samples and the model."""
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, nargs="+", required=True)
    ap.add_argument("--every", type=int, default=3, help="probe every N-th position by playouts (0: none)")
    ap.add_argument("--playouts", type=int, default=16)
    ap.add_argument("--cuts", type=int, nargs="+", default=list(cuts))
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=None, help=f"where to write the weights (e.g. {data})")
    args = ap.parse_args()
    args.cuts = tuple(args.cuts)
    lines = [x for path in args.data for x in path.read_text().splitlines() if x.strip()]
    with multiprocessing.Pool(args.procs) as pool:
        jobs = [(x, args.every, args.playouts, args.cuts) for x in lines]
        samples = [s for got in pool.imap(samples_of, jobs, chunk) for s in got]
    m = model(samples)
    print(f"{len(lines)} games, {len(samples)} positions; weights (points of final margin):")
    for name, x in zip(FEATURES, m.weights, strict=True):
        print(f"  {name:20} {x:+.3f}")
    residual = math.sqrt(sum((_dot(m.weights, s.features) - s.margin) ** 2 for s in samples) / len(samples))
    print(f"  residual {residual:.1f} points; temperature {m.temperature:g}, spread {m.spread:g}")
    return args, lines, samples, m


def write_weights(path: Path, m: RoundTwo, fitted: str) -> None:
    """The model's weights as the engine loads them, with what they were ``fitted`` on."""
    data = {"features": list(FEATURES), "weights": [round(x, 4) for x in m.weights],
            "temperature": m.temperature, "spread": m.spread, "fitted": fitted}
    path.write_text(json.dumps(data, indent=1) + "\n")


def main() -> None:
    args, lines, samples, m = fit_command(__doc__ or "", game_samples, CUTS, DATA, chunk=8)
    if args.every:
        held_out(samples, args.playouts, args.cuts)
    if args.out is not None:
        iterations = json.loads(lines[0])["iterations"]
        write_weights(args.out, m, f"play/fit_round_two.py, {len(lines)} games ({len(samples)} positions; expert "
                                   f"round 2 at {iterations} playouts a move)")


if __name__ == "__main__":
    main()
