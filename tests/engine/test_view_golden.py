"""The view's JSON must not change by accident: fixed games compared with a golden file.

A few games (2, 3 and 4 players, with and without the draft) are played with random legal moves drawn
from a seeded RNG; at fixed points (the start, the first step of every new phase, some move counts, the
end) ``game.view(seat)`` for every seat and for ``None`` is compared with ``data/view_golden.json``.

The golden file was made from the code before the views were typed. Regenerate it only for a deliberate
change of the view (and say so in the commit): ``python -m tests.engine.test_view_golden``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from engine import Game, new_game

GOLDEN = Path(__file__).parent / "data" / "view_golden.json"
GAMES = [  # (players, game seed, draft, move-choice seed)
    (2, 11, False, 101),
    (3, 12, True, 102),
    (4, 13, False, 103),
    (2, 14, True, 104),
]
MOVE_COUNTS = frozenset({5, 40, 75})


def game_key(players: int, seed: int, draft: bool, rng_seed: int) -> str:
    return f"{players}p-seed{seed}-{'draft' if draft else 'dealt'}-rng{rng_seed}"


def views_of(game: Game) -> dict[str, Any]:
    """Every seat's view and the public one, keyed by seat (``"None"`` for the public view)."""
    seats: list[int | None] = [*range(game.n), None]
    return {str(seat): game.view(seat) for seat in seats}


def play_snapshots(players: int, seed: int, draft: bool, rng_seed: int) -> dict[str, Any]:
    """Play one game with random legal moves; the views at the chosen points, keyed ``"<moves>:<phase>"``."""
    game = new_game([f"Player {i}" for i in range(players)], seed, draft=draft)
    rng = random.Random(rng_seed)
    snapshots: dict[str, Any] = {f"0:{game.phase}": views_of(game)}
    seen_phases = {game.phase}
    played = 0
    while game.phase != "over":
        moves = sorted(str(m) for m in game.legal_moves())
        game.apply(rng.choice(moves))
        played += 1
        if game.phase not in seen_phases or played in MOVE_COUNTS or game.phase == "over":
            seen_phases.add(game.phase)
            snapshots[f"{played}:{game.phase}"] = views_of(game)
    return snapshots


def all_snapshots() -> dict[str, Any]:
    return {game_key(*spec): play_snapshots(*spec) for spec in GAMES}


@pytest.fixture(scope="module")
def golden() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("spec", GAMES, ids=[game_key(*spec) for spec in GAMES])
def test_views_match_the_golden_file(golden: dict[str, Any], spec: tuple[int, int, bool, int]) -> None:
    expected = golden[game_key(*spec)]
    actual = json.loads(json.dumps(play_snapshots(*spec)))
    assert sorted(actual) == sorted(expected), "the games no longer pass through the same points"
    for point, views in expected.items():
        for seat, view in views.items():
            assert actual[point][seat] == view, f"view for seat {seat} at {point} differs"


def test_golden_games_cover_every_phase_and_seat_count(golden: dict[str, Any]) -> None:
    phases = {point.split(":")[1] for game in golden.values() for point in game}
    assert phases == {"choose_set", "land", "play", "choose_pile", "discard", "over"}
    assert {len(game[next(iter(game))]) - 1 for game in golden.values()} == {2, 3, 4}


if __name__ == "__main__":
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(json.dumps(all_snapshots(), sort_keys=True, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN}")
