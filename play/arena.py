"""Matches between computer players, and the strength report ``engine/AI.md``.

Regenerate the report (all match-ups; expensive with the expert at 1 s a move)::

    python -m play.arena --games 200 --games-multi 120 --budget 1.0 --procs 2 --out engine/AI.md

Each match-up puts one *challenger* against ``n - 1`` copies of an *opponent*; the challenger takes every seat in
turn on the same deal (for two players: each seed is played twice, seats swapped), so seating and luck of the deal
are balanced. ``--budget`` is wall-clock seconds a move, or with ``--cpu`` CPU seconds of the game's process (a
match on a busy machine then thinks as long as on an idle one, only slower). ``--results DIR`` keeps one JSON line
per finished game, its moves included, so an interrupted run can be resumed and reported (``--report-only``) and each
game replayed. A match-up whose
challenger makes the opponent's moves by construction (``master`` against ``expert`` where the master plays the
expert's search) is not played. Writing ``--out`` over an earlier report keeps its sections
(``## ...``: what a measurement says, earlier match-ups): only the part above them is generated.

A trial (``--trial NAME``, one of :data:`TRIALS`) plays a master with options of its own against the master and the
expert in 2 players, under keys of its own (``master-NAME-vs-...``), so that its results never mix with the master's.
``--sprt P0,P1,ALPHA,BETA`` stops a match once a sequential probability ratio test (Wald) decides between a win share
of P0 and one of P1 with those error rates: the challenger's games are counted in deal order, whole deals only, up
to the game where the log-likelihood ratio first leaves its bounds; games finished after it are kept but not
counted, and the report counts the games the test counted.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import new_game
from engine.ai.greedy import greedy_move
from engine.ai.players import mix_seed

__all__ = ["TRIALS", "GameResult", "MatchUp", "Sprt", "kept_sections", "play_game", "same_player"]

TRIALS: dict[str, dict[str, Any]] = {
    "round-two": {"round_two": 12},  # engine/AI-RESEARCH.md, thirteenth attempt
}
"""Masters on trial (``--trial NAME``): the options their search takes (:func:`engine.ai.master.master_search`)."""


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
    trial: str | None = None
    """The challenger is the master on trial of that name (:data:`TRIALS`)."""

    @property
    def name(self) -> str:
        """The challenger as the report names it."""
        return f"{self.challenger}-{self.trial}" if self.trial else self.challenger

    @property
    def key(self) -> str:
        return f"{self.name}-vs-{self.opponent}-{self.players}p"


def same_player(match: MatchUp) -> bool:
    """Whether the challenger makes the opponent's moves by construction (not worth playing): the master plays the
    expert's own search, seeded alike, outside :data:`engine.ai.master.HALVING_PLAYERS`."""
    from engine.ai.master import HALVING_PLAYERS

    return (match.trial is None and (match.challenger, match.opponent) == ("master", "expert")
            and match.players not in HALVING_PLAYERS)


@dataclass
class GameResult:
    key: str
    seed: int
    challenger_seat: int
    scores: list[int]
    winner: int
    seconds: float
    expert_moves: int
    moves: list[str] = field(default_factory=list)
    """The game's moves in order (``engine.replay(["P0", "P1", ...], seed, moves)`` plays it again; games kept
    before the arena kept them have none)."""

    @property
    def won(self) -> bool:
        return self.winner == self.challenger_seat


def _choose(strength: str, game: Any, seat: int, seed: int, budget: float | None,
            iterations: int | None, cpu: bool = False, trial: str | None = None) -> tuple[str, bool]:
    """A move for ``seat``; the second value tells whether a search was run. ``trial``: the seat is the master on
    trial of that name (:data:`TRIALS`)."""
    if strength == "greedy":
        # Same move as GreedyPlayer on the view (the evaluation reads only public and own
        # information; tests/test_ai.py checks this), without building the view.
        return str(greedy_move(game)), False
    from engine.ai import SEARCHING, MasterPlayer, Player, make_player

    view = game.view(seat)
    clock = time.process_time if cpu else time.perf_counter
    player: Player
    if trial is not None:
        player = MasterPlayer(seed, budget=budget, iterations=iterations, clock=clock, **TRIALS[trial])
    else:
        player = make_player(strength, seed=seed, budget=budget, iterations=iterations, clock=clock)
    searched = strength in SEARCHING and len(view["you"]["legal_moves"]) > 1
    return player.choose(view), searched


def play_game(strengths: list[str], seed: int, *, budget: float | None = 1.0, iterations: int | None = None,
              draft: bool = False, cpu: bool = False,
              trial: tuple[int, str] | None = None,
              record: list[str] | None = None) -> tuple[list[int], list[int], int]:
    """Play one game with ``strengths[seat]`` at each seat; returns (scores, ranking, searched moves). With ``cpu``
    a budget is the process's CPU seconds (each game runs in one process), which a busy machine does not shorten.
    ``trial``: (seat, name), that seat is the master on trial of that name (:data:`TRIALS`). ``record``: each move
    is appended to it."""
    game = new_game([f"P{i}" for i in range(len(strengths))], seed, draft=draft)
    searched = 0
    while not game.is_over():
        seat = game.to_move
        assert seat is not None  # someone is to move while the game is not over
        on_trial = trial[1] if trial is not None and trial[0] == seat else None
        move, did = _choose(strengths[seat], game, seat, mix_seed(seed, seat, 77), budget, iterations, cpu,
                            on_trial)
        searched += did
        game.apply(move)
        if record is not None:
            record.append(move)
    return list(game.score), game.ranking(), searched


@dataclass(frozen=True)
class Sprt:
    """Wald's sequential probability ratio test of the challenger's win share: P0 against P1, with error rates
    ``alpha`` (deciding for P1 when P0 holds) and ``beta`` (deciding for P0 when P1 holds)."""

    p0: float
    p1: float
    alpha: float
    beta: float

    @classmethod
    def parse(cls, text: str) -> Sprt:
        """``P0,P1,ALPHA,BETA``, e.g. ``0.5,0.55,0.05,0.05``."""
        p0, p1, alpha, beta = (float(x) for x in text.split(","))
        if not (0 < p0 < p1 < 1 and 0 < alpha < 0.5 and 0 < beta < 0.5):
            raise ValueError(f"--sprt {text}: give P0 < P1 between 0 and 1, and error rates below one half")
        return cls(p0, p1, alpha, beta)

    @property
    def bounds(self) -> tuple[float, float]:
        """The log-likelihood ratio's lower and upper bounds (deciding for P0 and for P1)."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def counted(self, match: MatchUp, results: list[GameResult]) -> tuple[list[GameResult], float, str | None]:
        """The games the test counts (in deal order, whole deals only, up to the deal where the ratio first leaves
        its bounds), their log-likelihood ratio, and the decision (``"P1"``, ``"P0"``, or ``None``: not yet, or the
        planned games ran out first)."""
        played = {(r.seed, r.challenger_seat): r for r in results}
        win, loss = math.log(self.p1 / self.p0), math.log((1 - self.p1) / (1 - self.p0))
        low, high = self.bounds
        out: list[GameResult] = []
        llr = 0.0
        deals: dict[int, list[int]] = {}
        for _m, seed, seat in _jobs(match):
            deals.setdefault(seed, []).append(seat)
        for seed, seats in deals.items():
            games = [played.get((seed, seat)) for seat in seats]
            if any(g is None for g in games):
                return out, llr, None
            for g in games:
                assert g is not None
                out.append(g)
                llr += win if g.won else loss
            if llr >= high:
                return out, llr, "P1"
            if llr <= low:
                return out, llr, "P0"
        return out, llr, None

    def describe(self, match: MatchUp, results: list[GameResult]) -> str:
        """What the test says of ``match`` so far, in words."""
        counted, llr, decision = self.counted(match, results)
        low, high = self.bounds
        head = (f"Sequential test (Wald's SPRT, win share {self.p0:g} against {self.p1:g}, error rates "
                f"{self.alpha:g} and {self.beta:g}; bounds {low:.3f} and {high:.3f}), {match.name} vs "
                f"{match.opponent}: ")
        wins = sum(r.won for r in counted)
        tail = f"{len(counted)} games counted, {wins} won, log-likelihood ratio {llr:+.3f}"
        later = len(results) - len(counted)
        after = f"; {later} more games finished after it, not counted" if decision and later else ""
        if decision:
            return head + f"decided for {decision} ({getattr(self, decision.lower()):g}): {tail}{after}."
        ran_out = len(counted) >= match.games
        return head + ("the planned games ran out before a decision: " if ran_out else "not decided yet: ") + tail + "."


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
    trial = (seat, match.trial) if match.trial is not None else None
    moves: list[str] = []
    scores, ranking, searched = play_game(strengths, seed, budget=budget, iterations=iterations, cpu=cpu,
                                          trial=trial, record=moves)
    return GameResult(match.key, seed, seat, scores, ranking[0], time.perf_counter() - start, searched, moves)


def run(matches: list[MatchUp], *, budget: float | None, iterations: int | None, procs: int,
        results_dir: Path | None, cpu: bool = False, sprt: Sprt | None = None) -> dict[str, list[GameResult]]:
    """Play every game of ``matches`` (reusing finished games found in ``results_dir``); with ``sprt``, a match
    stops once the test decides it."""
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
    by_key = {m.key: m for m in matches}

    def decided(m: MatchUp) -> bool:
        return sprt is not None and sprt.counted(m, done[m.key])[2] is not None

    todo = [(m, seed, seat, budget, iterations, cpu) for m in matches if not same_player(m) and not decided(m)
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
            test = ""
            if sprt is not None:
                counted, llr, decision = sprt.counted(by_key[r.key], done[r.key])
                test = f"; SPRT {len(counted)} games counted, {llr:+.3f}{f', decided: {decision}' if decision else ''}"
            print(f"[{time.strftime('%H:%M:%S')}] {total} games; {r.key} seed {r.seed} seat {r.challenger_seat}: "
                  f"{'won' if r.won else 'lost'} {r.scores} in {r.seconds:.0f}s{test}", flush=True)
            if sprt is not None and all(decided(m) for m in matches if not same_player(m)):
                break  # leaving the pool stops the games still being played
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
           iterations: int | None, command: str, cpu: bool = False, sprt: Sprt | None = None) -> str:
    """The markdown of ``engine/AI.md``; with ``sprt``, a match's row counts the games its test counted."""
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
        if sprt is not None:
            rs = sprt.counted(m, rs)[0]
        k = len(rs)
        wins = sum(r.won for r in rs)
        if same_player(m) and not k:
            lines.append(f"| {m.challenger} vs {m.opponent} | {m.players} | – | – | – | – | {100 / m.players:.0f}% | "
                         f"not played: in {m.players} players the master plays the expert's own search, seeded "
                         "alike, so it makes the expert's moves (`tests/engine/test_master.py::"
                         "test_in_three_and_four_players_the_master_is_the_expert`); never worse by construction |")
            continue
        if not k:
            lines.append(f"| {m.name} vs {m.opponent} | {m.players} | 0 | – | – | – | "
                         f"{100 / m.players:.0f}% | – |")
            continue
        lo, hi = _wilson(wins, k)
        mine = sum(r.scores[r.challenger_seat] for r in rs) / k
        others = sum(sum(r.scores) - r.scores[r.challenger_seat] for r in rs) / (k * (m.players - 1))
        note = "" if k >= m.games else f" (of {m.games} planned)"
        lines.append(f"| {m.name} vs {m.opponent} | {m.players} | {k}{note} | {wins} | {100 * wins / k:.1f}% | "
                     f"{100 * lo:.0f}–{100 * hi:.0f}% | {100 / m.players:.0f}% | {mine:.1f} / {others:.1f} |")
    if sprt is not None:
        lines += ["", *(sprt.describe(m, done.get(m.key, [])) for m in matches if not same_player(m))]
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
    ap.add_argument("--trial", choices=sorted(TRIALS), default=None,
                    help="play the master on trial of that name against the master and the expert (2 players)")
    ap.add_argument("--sprt", type=Sprt.parse, default=None, metavar="P0,P1,ALPHA,BETA",
                    help="stop a match once a sequential test decides between win shares P0 and P1")
    args = ap.parse_args(argv)
    budget = args.budget or None
    multi = args.games_multi if args.games_multi is not None else args.games
    greedy_games = args.greedy_games if args.greedy_games is not None else args.games
    matches = []
    for challenger, opponent, n in DEFAULT_MATCHES:
        games = greedy_games if challenger == "greedy" else (args.games if n == 2 else multi)
        matches.append(MatchUp(challenger, opponent, n, games, args.first_deal))
    if args.trial:
        matches = [MatchUp("master", opponent, 2, args.games, args.first_deal, args.trial)
                   for opponent in ("master", "expert")]
    if args.only:
        keys = set(args.only.split(","))
        matches = [m for m in matches if m.key in keys]
    if args.report_only:
        done = _load(matches, args.results)
    else:
        done = run(matches, budget=budget, iterations=args.iterations, procs=args.procs, results_dir=args.results,
                   cpu=args.cpu, sprt=args.sprt)
    text = report(matches, done, budget=budget, iterations=args.iterations, command=_command(args), cpu=args.cpu,
                  sprt=args.sprt)
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
    if args.trial:
        parts.append(f"--trial {args.trial}")
    if args.sprt:
        t = args.sprt
        parts.append(f"--sprt {t.p0:g},{t.p1:g},{t.alpha:g},{t.beta:g}")
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
