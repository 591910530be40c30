"""Fit the learned evaluation (:mod:`engine.ai.evaluation`) by self-play, and write its weights.

Run with ``python -m play.fit_evaluation [--games 3000] [--procs 2] [--out engine/ai/data/evaluation.json]``.

Games are noisy greedy self-play (noise 1.0: the expert's playout policy) on deals of their own
(``mix_seed(game, players, 4343)``, none of the arena's). Every third position is kept with each seat's features
and its total then (score and bird chips); the target is what the seat's total became at the end of that round
(round 1) or of the game (round 2). One least-squares fit per player count and round; then, by grid search, the
scales of the judgement (how much a prediction's uncertainty grows with the builds left; round 2: the chance to win)
by least squared error of the judged reward. The held-out fifth of the games is scored against the judgement a
playout cut at that position gets without the model (the expert's: the margin now).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
from collections.abc import Iterable, Sequence
from pathlib import Path

from engine import Game, new_game
from engine.ai.evaluation import DATA, FEATURES, judged, seat_features
from engine.ai.greedy import greedy_move
from engine.ai.players import mix_seed

Row = tuple[int, int, list[tuple[float, ...]], list[float], list[float], int]
"""(round, seat to move, each seat's features, each seat's total then, each seat's total at the end, winner)."""


def _total(game: Game, p: int) -> float:
    return float(game.score[p] + sum(game.birds[p]))


def self_play(job: tuple[int, int]) -> list[Row]:
    """The kept positions of one noisy greedy game."""
    players, number = job
    game = new_game([f"P{i}" for i in range(players)], mix_seed(number, players, 4343))
    rng = random.Random(mix_seed(number, players, 99))
    pending: list[tuple[int, int, list[tuple[float, ...]], list[float]]] = []
    rows: list[Row] = []
    k = 0
    round1_end: list[float] | None = None
    while not game.is_over():
        seat = game.to_move
        assert seat is not None
        if k % 3 == 0 and game.phase in ("land", "play"):
            pending.append((game.round, seat, [seat_features(game, p) for p in range(players)],
                            [_total(game, p) for p in range(players)]))
        before = game.round
        game.apply(greedy_move(game, rng, noise=1.0))
        k += 1
        if before == 1 and game.round == 2:
            round1_end = [_total(game, p) for p in range(players)]
    final = [float(s) for s in game.score]
    winner = game.ranking()[0]
    assert round1_end is not None
    for rnd, seat, feats, now in pending:
        rows.append((rnd, seat, feats, now, round1_end if rnd == 1 else final, winner))
    return rows


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Solve ``a x = b`` (a small symmetric positive system) by Gaussian elimination with pivoting."""
    k = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for c in range(k):
        piv = max(range(c, k), key=lambda r: abs(m[r][c]))
        m[c], m[piv] = m[piv], m[c]
        for r in range(k):
            if r != c and m[c][c]:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c], strict=True)]
    return [m[i][k] / m[i][i] if m[i][i] else 0.0 for i in range(k)]


def least_squares(samples: Iterable[tuple[Sequence[float], float]], k: int, ridge: float) -> list[float]:
    """The ``k`` weights whose sum with each sample's features best predicts its target (least squares, ``ridge``
    added to the normal equations' diagonal)."""
    a = [[0.0] * k for _ in range(k)]
    b = [0.0] * k
    for f, y in samples:
        for i in range(k):
            b[i] += f[i] * y
            for j in range(k):
                a[i][j] += f[i] * f[j]
    for i in range(k):
        a[i][i] += ridge
    return solve(a, b)


def fit(rows: list[Row], ridge: float = 1e-3) -> list[float]:
    """Least squares of each seat's gain on its features."""
    gains = ((f, x1 - x0) for _rnd, _seat, feats, now, end, _w in rows
             for f, x0, x1 in zip(feats, now, end, strict=True))
    return least_squares(gains, len(FEATURES), ridge * len(rows))


def _margins(row: Row, w: list[float] | None) -> list[float]:
    """Each seat's predicted margin to the best other seat (``w`` None: the totals now, no model)."""
    _rnd, _seat, feats, now, _end, _winner = row
    pred = [x + (sum(a * b for a, b in zip(w, f, strict=True)) if w else 0.0) for f, x in zip(feats, now, strict=True)]
    return [pred[p] - max(pred[q] for q in range(len(pred)) if q != p) for p in range(len(pred))]


def _true_reward(row: Row, p: int) -> float:
    """The expert's reward for ``p`` at the real end of the playout (round end or game end)."""
    rnd, _seat, _feats, _now, end, winner = row
    margin = end[p] - max(end[q] for q in range(len(end)) if q != p)
    if rnd == 1:
        return 0.5 + 0.5 * math.tanh(margin / 15.0)
    return 0.75 * (winner == p) + 0.25 * (0.5 + 0.5 * math.tanh(margin / 25.0))


def squared_error(rows: list[Row], w: list[float] | None, spread: float, temp: float) -> float:
    """Mean squared error of the judged reward against the reward the playout really ended with. Without a model
    (``w`` None) the judgement is the expert's at a cut playout: the margin now, scale 15."""
    total, count = 0.0, 0
    for row in rows:
        left = sum(f[1] for f in row[2])
        for p, m in enumerate(_margins(row, w)):
            guess = judged(row[0], m, left, spread, temp) if w else 0.5 + 0.5 * math.tanh(m / 15.0)
            total += (guess - _true_reward(row, p)) ** 2
            count += 1
    return total / count


SPREADS = (0.0, 5.0, 10.0, 20.0, 40.0, 80.0, 160.0, 320.0, 640.0)
TEMPERATURES = (2.0, 4.0, 6.0, 8.0, 10.0, 14.0, 20.0)


def scales(rows: list[Row], w: list[float], rnd: int) -> tuple[float, float]:
    """(spread, temperature) with the least squared error on ``rows`` (grid search)."""
    temps = TEMPERATURES if rnd == 2 else (10.0,)
    return min(((s, t) for s in SPREADS for t in temps), key=lambda st: squared_error(rows, w, *st))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=3000, help="self-play games per player count")
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=DATA)
    args = ap.parse_args()
    weights: dict[str, dict[str, list[float]]] = {}
    temps: dict[str, float] = {}
    spreads: dict[str, dict[str, float]] = {}
    report: list[str] = []
    for n in (2, 3, 4):
        with multiprocessing.Pool(args.procs) as pool:
            games = pool.map(self_play, [(n, i) for i in range(args.games)])
        cut = args.games * 4 // 5
        train = [r for g in games[:cut] for r in g]
        test = [r for g in games[cut:] for r in g]
        weights[str(n)] = {}
        spreads[str(n)] = {}
        for rnd in (1, 2):
            w = [round(x, 4) for x in fit([r for r in train if r[0] == rnd])]
            spread, temp = scales([r for r in train if r[0] == rnd][::5], w, rnd)
            weights[str(n)][str(rnd)] = w
            spreads[str(n)][str(rnd)] = spread
            if rnd == 2:
                temps[str(n)] = temp
            held = [r for r in test if r[0] == rnd]
            report.append(f"{n} players, round {rnd}: {len(held)} held-out positions; weights {w}, spread {spread:g}"
                          f"{f', temperature {temp:g}' if rnd == 2 else ''}; squared error of the judged reward "
                          f"{squared_error(held, w, spread, temp):.4f} with the model, "
                          f"{squared_error(held, w, 0.0, temp):.4f} with it and no spread, "
                          f"{squared_error(held, None, 0.0, temp):.4f} with the totals now (a cut playout today)")
    data = {"features": list(FEATURES), "weights": weights, "spread": spreads, "temperature": temps,
            "fitted": f"play/fit_evaluation.py --games {args.games}"}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1) + "\n")
    print("\n".join(report))


if __name__ == "__main__":
    main()
