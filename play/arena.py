"""Matches between computer players, and the strength report ``engine/AI.md``.

Regenerate the report (all match-ups; expensive with the expert at 1 s a move)::

    python -m play.arena --games 200 --games-multi 120 --budget 1.0 --procs 2 --out engine/AI.md

Each match-up puts one *challenger* against ``n - 1`` copies of an *opponent*; the challenger takes every seat in
turn on the same deal (for two players: each seed is played twice, seats swapped), so seating and luck of the deal
are balanced. ``--budget`` is wall-clock seconds a move, or with ``--cpu`` CPU seconds of the game's process (a
match on a busy machine then thinks as long as on an idle one, only slower). ``--results DIR`` keeps one JSON line
per finished game, so an interrupted run can be resumed and reported (``--report-only``). A match-up whose
challenger makes the opponent's moves by construction (``master`` against ``expert`` where the master plays the
expert's search) is not played. Writing ``--out`` over an earlier report keeps its sections
(``## ...``: what a measurement says, earlier match-ups): only the part above them is generated.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import new_game
from engine.ai.greedy import greedy_move
from engine.ai.players import mix_seed

__all__ = ["GameResult", "MatchUp", "kept_sections", "play_game", "same_player"]


@dataclass(frozen=True)
class MatchUp:
    """One challenger against ``players - 1`` copies of an opponent."""

    challenger: str
    opponent: str
    players: int
    games: int
    first_deal: int = 0
    """The first deal's number (deals are ``mix_seed(deal, players, 2012)``): later deals are new to a tuning
    that used the earlier ones."""

    @property
    def key(self) -> str:
        return f"{self.challenger}-vs-{self.opponent}-{self.players}p"


def same_player(match: MatchUp) -> bool:
    """Whether the challenger makes the opponent's moves by construction (not worth playing): the master plays the
    expert's own search, seeded alike, outside :data:`engine.ai.master.HALVING_PLAYERS`."""
    from engine.ai.master import HALVING_PLAYERS

    return (match.challenger, match.opponent) == ("master", "expert") and match.players not in HALVING_PLAYERS


@dataclass
class GameResult:
    key: str
    seed: int
    challenger_seat: int
    scores: list[int]
    winner: int
    seconds: float
    expert_moves: int

    @property
    def won(self) -> bool:
        return self.winner == self.challenger_seat


def _choose(strength: str, game: Any, seat: int, seed: int, budget: float | None,
            iterations: int | None, cpu: bool = False) -> tuple[str, bool]:
    """A move for ``seat``; the second value tells whether a search was run."""
    if strength == "greedy":
        # Same move as GreedyPlayer on the view (the evaluation reads only public and own
        # information; tests/test_ai.py checks this), without building the view.
        return str(greedy_move(game)), False
    from engine.ai import SEARCHING, make_player

    view = game.view(seat)
    clock = time.process_time if cpu else time.perf_counter
    player = make_player(strength, seed=seed, budget=budget, iterations=iterations, clock=clock)
    searched = strength in SEARCHING and len(view["you"]["legal_moves"]) > 1
    return player.choose(view), searched


def play_game(strengths: list[str], seed: int, *, budget: float | None = 1.0, iterations: int | None = None,
              draft: bool = False, cpu: bool = False) -> tuple[list[int], list[int], int]:
    """Play one game with ``strengths[seat]`` at each seat; returns (scores, ranking, searched moves). With ``cpu``
    a budget is the process's CPU seconds (each game runs in one process), which a busy machine does not shorten."""
    game = new_game([f"P{i}" for i in range(len(strengths))], seed, draft=draft)
    searched = 0
    while not game.is_over():
        seat = game.to_move
        assert seat is not None  # someone is to move while the game is not over
        move, did = _choose(strengths[seat], game, seat, mix_seed(seed, seat, 77), budget, iterations, cpu)
        searched += did
        game.apply(move)
    return list(game.score), game.ranking(), searched


def _jobs(match: MatchUp) -> Iterator[tuple[MatchUp, int, int]]:
    """(match-up, seed, challenger seat) for every game of a match-up, seats rotating on each seed."""
    n = match.players
    count = 0
    deal = match.first_deal
    while count < match.games:
        seed = mix_seed(deal, n, 2012)
        for seat in range(n):
            if count >= match.games:
                break
            yield match, seed, seat
            count += 1
        deal += 1


def _run_job(args: tuple[MatchUp, int, int, float | None, int | None, bool]) -> GameResult:
    match, seed, seat, budget, iterations, cpu = args
    strengths = [match.opponent] * match.players
    strengths[seat] = match.challenger
    start = time.perf_counter()
    scores, ranking, searched = play_game(strengths, seed, budget=budget, iterations=iterations, cpu=cpu)
    return GameResult(match.key, seed, seat, scores, ranking[0], time.perf_counter() - start, searched)


def run(matches: list[MatchUp], *, budget: float | None, iterations: int | None, procs: int,
        results_dir: Path | None, cpu: bool = False) -> dict[str, list[GameResult]]:
    """Play every game of ``matches`` (reusing finished games found in ``results_dir``)."""
    done: dict[str, list[GameResult]] = {m.key: [] for m in matches}
    seen: set[tuple[str, int, int]] = set()
    files: dict[str, Path] = {}
    if results_dir is not None:
        results_dir.mkdir(parents=True, exist_ok=True)
        for m in matches:
            files[m.key] = results_dir / f"{m.key}.jsonl"
            if files[m.key].exists():
                for line in files[m.key].read_text().splitlines():
                    if line.strip():
                        r = GameResult(**json.loads(line))
                        done[m.key].append(r)
                        seen.add((r.key, r.seed, r.challenger_seat))
    todo = [(m, seed, seat, budget, iterations, cpu) for m in matches if not same_player(m)
            for (m, seed, seat) in _jobs(m) if (m.key, seed, seat) not in seen]
    if not todo:
        return done
    with multiprocessing.Pool(procs) as pool:
        for r in pool.imap_unordered(_run_job, todo):
            done[r.key].append(r)
            if r.key in files:
                with files[r.key].open("a") as f:
                    f.write(json.dumps(r.__dict__) + "\n")
            total = sum(len(v) for v in done.values())
            print(f"[{time.strftime('%H:%M:%S')}] {total} games; {r.key} seed {r.seed} seat {r.challenger_seat}: "
                  f"{'won' if r.won else 'lost'} {r.scores} in {r.seconds:.0f}s", flush=True)
    return done


def _wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 0.0
    p = wins / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def report(matches: list[MatchUp], done: dict[str, list[GameResult]], *, budget: float | None,
           iterations: int | None, command: str, cpu: bool = False) -> str:
    """The markdown of ``engine/AI.md``."""
    unit = " of CPU time" if cpu else ""
    lines = [
        "# Computer players: strength",
        "",
        "Generated by `play/arena.py`; regenerate with:",
        "",
        "```",
        command,
        "```",
        "",
        "The players (`engine/ai/`): `random` plays a legal move at random; `greedy` plays the move with the",
        "best immediate value (build points, expected bird chip, what a build adds to the scoring cards it",
        "holds or that others may play, sites it opens up; a scoring card when waiting would not make it pay",
        "more relative to the others); `expert` runs a determinized Monte Carlo search (samples the hidden",
        "tiles, cards and chips from its own view only, plays each candidate move followed by noisy greedy",
        "playouts, drops candidates that are clearly worse); `master`, in 2 players, spends the same playouts",
        "by sequential halving (all candidates in early phases, the better half kept after each) and judges",
        "the end of round 1 by a chance to win learned from the expert's own games (`engine/ai/round_end.py`);",
        "in 3 and 4 players it plays the expert's own search (there it is the expert, move for move).",
        "",
        "Use: `engine.ai.choose_move(game.view(seat), strength=\"master\", seed=1, budget=1.0)` returns the",
        "notation of a legal move; `iterations=N, budget=None` makes a searching player independent of timing.",
        "",
        f"Thinking (expert and master): {f'{budget:g} s{unit} per move' if budget else ''}"
        f"{' / ' if budget and iterations else ''}{f'at most {iterations} playouts per move' if iterations else ''}.",
        "Each match-up: one challenger against the opponent at every other seat; the challenger takes every",
        "seat in turn on the same deal (two players: each deal is played twice, seats swapped). Island:",
        "the project's island (`engine/data/island.json`), building sets dealt at random. A time budget is",
        "wall-clock unless it is CPU time (`--cpu`): on a busy machine a wall-clock search makes fewer playouts",
        "per move; CPU time and a playout budget do not depend on the machine's load (the expert also stops",
        "early once one candidate is clearly best; the master thinks its whole budget).",
        "",
        "| match-up | players | games | challenger wins | win share | 95% interval | fair share |"
        " avg score (challenger / others) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for m in matches:
        rs = done.get(m.key, [])
        k = len(rs)
        wins = sum(r.won for r in rs)
        if same_player(m) and not k:
            lines.append(f"| {m.challenger} vs {m.opponent} | {m.players} | – | – | – | – | {100 / m.players:.0f}% | "
                         f"not played: in {m.players} players the master plays the expert's own search, seeded "
                         "alike, so it makes the expert's moves (`tests/engine/test_master.py::"
                         "test_in_three_and_four_players_the_master_is_the_expert`); never worse by construction |")
            continue
        if not k:
            lines.append(f"| {m.challenger} vs {m.opponent} | {m.players} | 0 | – | – | – | "
                         f"{100 / m.players:.0f}% | – |")
            continue
        lo, hi = _wilson(wins, k)
        mine = sum(r.scores[r.challenger_seat] for r in rs) / k
        others = sum(sum(r.scores) - r.scores[r.challenger_seat] for r in rs) / (k * (m.players - 1))
        note = "" if k >= m.games else f" (of {m.games} planned)"
        lines.append(f"| {m.challenger} vs {m.opponent} | {m.players} | {k}{note} | {wins} | {100 * wins / k:.1f}% | "
                     f"{100 * lo:.0f}–{100 * hi:.0f}% | {100 / m.players:.0f}% | {mine:.1f} / {others:.1f} |")
    timing = [r for m in matches for r in done.get(m.key, []) if r.expert_moves]
    if timing:
        secs = sum(r.seconds for r in timing) / len(timing)
        moves = sum(r.expert_moves for r in timing) / len(timing)
        lines += ["", f"Games with a searching player took {secs:.0f} s on average ({moves:.1f} searched moves "
                      "per game; moves with a single legal choice are not searched)."]
    total = sum(r.seconds for m in matches for r in done.get(m.key, []))
    if total:
        lines.append(f"All games together took {total / 3600:.1f} h of process time.")
    lines.append("")
    return "\n".join(lines)


DEFAULT_MATCHES = (("master", "expert", 2), ("master", "expert", 3), ("master", "expert", 4),
                   ("expert", "greedy", 2), ("greedy", "random", 2), ("expert", "greedy", 3),
                   ("greedy", "random", 3), ("expert", "greedy", 4), ("greedy", "random", 4))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=200, help="games per two-player match-up")
    ap.add_argument("--games-multi", type=int, default=None,
                    help="games per 3- and 4-player match-up (default: same as --games)")
    ap.add_argument("--greedy-games", type=int, default=None,
                    help="games per greedy-vs-random match-up (default: same as --games)")
    ap.add_argument("--budget", type=float, default=1.0, help="expert seconds per move (0: none)")
    ap.add_argument("--iterations", type=int, default=None, help="expert playouts per move")
    ap.add_argument("--cpu", action="store_true",
                    help="read --budget as CPU seconds of the game's process (a busy machine does not shorten it)")
    ap.add_argument("--first-deal", type=int, default=0,
                    help="number of the first deal (use deals that a tuning did not, e.g. 300)")
    ap.add_argument("--procs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--only", default=None, help="comma-separated match-up keys, e.g. expert-vs-greedy-2p")
    ap.add_argument("--results", type=Path, default=None, help="directory for per-game JSON lines")
    ap.add_argument("--report-only", action="store_true", help="write the report from --results, play nothing")
    ap.add_argument("--out", type=Path, default=None, help="markdown file to write (default: print)")
    args = ap.parse_args(argv)
    budget = args.budget or None
    multi = args.games_multi if args.games_multi is not None else args.games
    greedy_games = args.greedy_games if args.greedy_games is not None else args.games
    matches = []
    for challenger, opponent, n in DEFAULT_MATCHES:
        games = greedy_games if challenger == "greedy" else (args.games if n == 2 else multi)
        matches.append(MatchUp(challenger, opponent, n, games, args.first_deal))
    if args.only:
        keys = set(args.only.split(","))
        matches = [m for m in matches if m.key in keys]
    if args.report_only:
        done = _load(matches, args.results)
    else:
        done = run(matches, budget=budget, iterations=args.iterations, procs=args.procs, results_dir=args.results,
                   cpu=args.cpu)
    text = report(matches, done, budget=budget, iterations=args.iterations, command=_command(args), cpu=args.cpu)
    if args.out:
        text += kept_sections(args.out.read_text() if args.out.exists() else "")
        args.out.write_text(text)
    print(text)


def kept_sections(earlier: str) -> str:
    """The sections (from the first ``## `` heading on) of an earlier report, which a regeneration keeps: what a
    measurement says, earlier match-ups not played again."""
    at = earlier.find("\n## ")
    return "" if at < 0 else "\n" + earlier[at + 1:]


def _command(args: argparse.Namespace) -> str:
    """The command that plays all of this report's games again (without the resume options)."""
    parts = ["python -m play.arena", f"--games {args.games}"]
    if args.games_multi is not None:
        parts.append(f"--games-multi {args.games_multi}")
    if args.greedy_games is not None:
        parts.append(f"--greedy-games {args.greedy_games}")
    parts.append(f"--budget {args.budget:g}")
    if args.cpu:
        parts.append("--cpu")
    if args.iterations is not None:
        parts.append(f"--iterations {args.iterations}")
    if args.first_deal:
        parts.append(f"--first-deal {args.first_deal}")
    if args.only:
        parts.append(f"--only {args.only}")
    parts.append(f"--procs {args.procs}")
    if args.out:
        parts.append(f"--out {args.out}")
    return " ".join(parts)


def _load(matches: list[MatchUp], results_dir: Path | None) -> dict[str, list[GameResult]]:
    done: dict[str, list[GameResult]] = {m.key: [] for m in matches}
    if results_dir is None:
        return done
    for m in matches:
        path = results_dir / f"{m.key}.jsonl"
        if path.exists():
            done[m.key] = [GameResult(**json.loads(x)) for x in path.read_text().splitlines() if x.strip()]
    return done


if __name__ == "__main__":
    main()
