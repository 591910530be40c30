"""Fit the master's judgement of the end of round 1 (:mod:`engine.ai.round_end`) on expert-played round 2s.

Two steps; the games are kept in a JSON-lines file so that the fit can be repeated and a run can be resumed::

    python -m play.fit_round_end play --games 400 --iterations 100 --data DIR/round_end.jsonl
    python -m play.fit_round_end fit --data DIR/round_end.jsonl [--out engine/ai/data/round_end.json]

``play``: 2-player games on deals of their own (``mix_seed(number, 2, 4444)``, none of the arena's). Round 1 is
noisy greedy play (noise 1.0 or 0.5, alternately: the expert's playout policy, whose round-1 ends are what the
judgement is asked about in a search); the position where round 2 begins is kept, with what 16 noisy greedy
playouts of round 2 from it say (how often each seat wins: the expert's own judgement, had it played on); then
round 2 is played by the expert against itself at ``--iterations`` playouts a move, and its moves (``round2``: each
position of it can be replayed from the kept start), the final scores and the winner are kept.

``fit``: all games fit the shipped model (least squares of the final margin on the features, then the temperature
of the chance to win by maximum likelihood). Held out: in five folds, each game is predicted by a fit on the
others, three ways: the model's chance to win, the greedy playouts' win share, and the expert's judgement today (a
logistic function of the margin now, its scale fitted). Log loss and the share of winners called right are
printed, and the model's log loss against the margin now's, game by game (the mean gap and its standard error).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from pathlib import Path

from engine import Game, new_game
from engine.ai.evaluation import chance_to_win
from engine.ai.expert import ExpertPlayer
from engine.ai.greedy import greedy_move
from engine.ai.players import mix_seed
from engine.ai.round_end import DATA, FEATURES, margin_features
from play.fit_evaluation import least_squares

GREEDY_PLAYOUTS = 16
FOLDS = 5


def play_one(number: int, iterations: int) -> dict[str, object]:
    """One game: noisy greedy round 1, the kept round-2 start, the expert's round 2."""
    game = new_game(["P0", "P1"], mix_seed(number, 2, 4444))
    rng = random.Random(mix_seed(number, 2, 45))
    noise = 1.0 if number % 2 == 0 else 0.5
    while game.round == 1:
        game.apply(greedy_move(game, rng, noise=noise))
    start = game.to_json()
    wins = [0, 0]
    for k in range(GREEDY_PLAYOUTS):
        g = game.clone()
        prng = random.Random(mix_seed(number, k, 46))
        while not g.is_over():
            g.apply(greedy_move(g, prng, noise=1.0))
        wins[g.ranking()[0]] += 1
    players = [ExpertPlayer(mix_seed(number, seat, 47), budget=None, iterations=iterations) for seat in range(2)]
    moves = []
    while not game.is_over():
        seat = game.to_move
        assert seat is not None
        move = players[seat].choose(game.view(seat))
        moves.append(move)
        game.apply(move)
    return {"number": number, "noise": noise, "start": start, "greedy_wins": wins, "scores": list(game.score),
            "winner": game.ranking()[0], "iterations": iterations, "round2": moves}


def play(args: argparse.Namespace) -> None:
    done = set()
    if args.data.exists():
        done = {json.loads(line)["number"] for line in args.data.read_text().splitlines() if line.strip()}
    args.data.parent.mkdir(parents=True, exist_ok=True)
    for number in range(args.first, args.first + args.games):
        if number in done:
            continue
        began = time.perf_counter()
        row = play_one(number, args.iterations)
        with args.data.open("a") as f:
            f.write(json.dumps(row) + "\n")
        print(f"[{time.strftime('%H:%M:%S')}] game {number}: {row['scores']} in {time.perf_counter() - began:.1f}s",
              flush=True)


# ---------------------------------------------------------------------------------------------------- the fit

Sample = tuple[list[float], float, int, float]
"""(features for seat 0, final margin of seat 0, 1 when seat 0 won, greedy playouts' win share of seat 0)."""


def samples(path: Path) -> list[Sample]:
    out = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        game = Game.from_json(row["start"])
        wins = row["greedy_wins"]
        out.append((list(margin_features(game, 0)), float(row["scores"][0] - row["scores"][1]),
                    int(row["winner"] == 0), wins[0] / sum(wins)))
    return out


def margin_weights(rows: list[Sample], ridge: float = 1.0) -> list[float]:
    """Weights of the final margin on the features (a small ridge keeps rare features' weights sane)."""
    return least_squares(((f, y) for f, y, _won, _greedy in rows), len(FEATURES), ridge)


def loss(p: float, won: int) -> float:
    """The log loss of one prediction ``p`` (the chance that seat 0 wins) of one game."""
    eps = 1e-3
    return -math.log(min(1 - eps, max(eps, p if won else 1 - p)))


def log_loss(pairs: list[tuple[float, int]]) -> float:
    return sum(loss(p, won) for p, won in pairs) / len(pairs)


def paired_gap(ours: list[tuple[float, int]], theirs: list[tuple[float, int]]) -> tuple[float, float]:
    """The mean of ``ours``' log loss minus ``theirs``' over the same games, and its standard error."""
    gaps = [loss(p, w) - loss(q, v) for (p, w), (q, v) in zip(ours, theirs, strict=True)]
    mean = sum(gaps) / len(gaps)
    return mean, math.sqrt(sum((g - mean) ** 2 for g in gaps) / (len(gaps) - 1) / len(gaps))


def best_temperature(margins: list[float], won: list[int]) -> float:
    """The temperature (points) of the logistic chance to win with the least log loss (a fine grid)."""
    grid = [2.0 + 0.5 * i for i in range(80)]
    return min(grid, key=lambda t: log_loss([(chance_to_win(m, t), w) for m, w in zip(margins, won, strict=True)]))


def _report(name: str, pairs: list[tuple[float, int]]) -> str:
    right = sum((p > 0.5) == bool(w) for p, w in pairs if p != 0.5) + 0.5 * sum(p == 0.5 for p, _w in pairs)
    return f"  {name:34} log loss {log_loss(pairs):.4f}, winner called right {100 * right / len(pairs):.1f} %"


def _fitted(train: list[Sample]) -> tuple[list[float], float, float, float]:
    """(weights, temperature, the margin now's temperature, residual in points) fitted on ``train``."""
    w = margin_weights(train)
    predict = [sum(a * b for a, b in zip(w, f, strict=True)) for f, *_ in train]
    temperature = best_temperature(predict, [r[2] for r in train])
    now_temperature = best_temperature([_margin_now(r[0]) for r in train], [r[2] for r in train])
    residual = math.sqrt(sum((p - r[1]) ** 2 for p, r in zip(predict, train, strict=True)) / len(train))
    return w, temperature, now_temperature, residual


def _margin_now(f: list[float]) -> float:
    """The margin the expert judges the end of round 1 by: score and bird chips' value."""
    return f[FEATURES.index("score_margin")] + f[FEATURES.index("chip_value_margin")]


def fit(args: argparse.Namespace) -> None:
    rows = samples(args.data)
    w, temperature, now_temperature, residual = _fitted(rows)
    print(f"{len(rows)} games; weights (points of final margin):")
    for name, x in zip(FEATURES, w, strict=True):
        print(f"  {name:20} {x:+.3f}")
    print(f"  residual {residual:.1f} points; temperature {temperature:g} (the margin now alone: {now_temperature:g})")
    # Held out: five folds, each scored by a fit on the other four (every game is held out once).
    model: list[tuple[float, int]] = []
    margin_now: list[tuple[float, int]] = []
    for fold in range(FOLDS):
        train = [r for i, r in enumerate(rows) if i % FOLDS != fold]
        test = [r for i, r in enumerate(rows) if i % FOLDS == fold]
        wf, tf, nf, _res = _fitted(train)
        model += [(chance_to_win(sum(a * b for a, b in zip(wf, f, strict=True)), tf), won) for f, _y, won, _g in test]
        margin_now += [(chance_to_win(_margin_now(f), nf), won) for f, _y, won, _g in test]
    # The playouts' share, with one win and one loss added (16 playouts can say 0 or 1, which log loss cannot take).
    greedy = [((g * GREEDY_PLAYOUTS + 1) / (GREEDY_PLAYOUTS + 2), won) for _f, _y, won, g in rows]
    print(f"held out ({FOLDS} folds, {len(rows)} games):")
    print(_report("the model", model))
    print(_report(f"{GREEDY_PLAYOUTS} greedy playouts of round 2", greedy))
    print(_report("the margin now (the expert today)", margin_now))
    print(_report("a coin", [(0.5, won) for *_x, won, _g in rows]))
    gap, error = paired_gap(model, margin_now)
    print(f"  the model's log loss minus the margin now's: {gap:+.4f} (standard error {error:.4f}, paired by game)")
    if args.out is not None:
        data = {"features": list(FEATURES), "weights": [round(x, 4) for x in w], "temperature": temperature,
                "fitted": f"play/fit_round_end.py fit, {len(rows)} games "
                          f"(expert round 2 at {json.loads(args.data.read_text().splitlines()[0])['iterations']}"
                          " playouts a move)"}
        args.out.write_text(json.dumps(data, indent=1) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="step", required=True)
    p = sub.add_parser("play", help="play games and append them to --data")
    p.add_argument("--games", type=int, default=400)
    p.add_argument("--first", type=int, default=0, help="the first game's number")
    p.add_argument("--iterations", type=int, default=100, help="the expert's playouts a move in round 2")
    p.add_argument("--data", type=Path, required=True)
    f = sub.add_parser("fit", help="fit the judgement on --data and write it to --out")
    f.add_argument("--data", type=Path, required=True)
    f.add_argument("--out", type=Path, default=None, help=f"where to write the weights (e.g. {DATA})")
    args = ap.parse_args()
    (play if args.step == "play" else fit)(args)


if __name__ == "__main__":
    main()
