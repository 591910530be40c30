"""The engine's behaviour pinned: fingerprints of whole random games recorded from the engine before it
was made faster (at d32b760), which the engine of today must reproduce bit for bit.

A fingerprint hashes, move by move, everything a caller can observe: the legal moves in their order, the
public events of each move, the build targets and scoring-card values the computer players read, the
refusal of a few illegal moves, a clone's next move, views at regular steps, and at the end the whole
state as JSON, the ranking and every seat's view. Regenerate ``data/equivalence_main.json`` only from a
commit whose behaviour is known to be right: ``python tests/engine/test_engine_equivalence.py --record``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from engine import SCORING_CARD_IDS, SINGLE_BUILDS, new_game

RECORDED = Path(__file__).parent / "data" / "equivalence_main.json"
GAMES = [(n, seed, seed % 3 == 0) for n in (2, 3, 4) for seed in range(100, 108)]
"""(players, seed, draft) of the pinned games."""
PROBES = ("ship 1", "road 20", "river 9", "build 5", "land 3", "score birds", "pass", "double road", "pile 1")
"""Moves whose refusal (or acceptance) is pinned at every step."""


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _as_before(value: Any) -> Any:
    """Events, a view or a game's JSON as the engine of d32b760 made them, so that its pinned fingerprints still
    hold: log entries without their moves' events (checked in test_log), the bird chips revealed at the end
    scored under the reason ``birds`` again (now ``bird_chips``, apart from the scoring card ``birds``), and a seat's
    ``you`` without what its scoring cards score now (``cards_now``, checked in test_engine_api)."""
    if isinstance(value, str):  # a game's JSON
        return json.dumps(_old_shapes(json.loads(value)), separators=(",", ":"), sort_keys=True)
    return _old_shapes(value)


def _old_shapes(value: Any) -> Any:
    if isinstance(value, list):
        return [_old_shapes(item) for item in value]
    if not isinstance(value, dict):
        return value
    if value.get("type") == "score" and value.get("reason") == "bird_chips":
        return {**value, "reason": "birds"}
    out = {k: _old_shapes(v) for k, v in value.items()}
    if isinstance(value.get("log"), list):
        out["log"] = [{k: v for k, v in entry.items() if k != "events"} for entry in value["log"]]
    if isinstance(value.get("you"), dict):
        out["you"] = {k: v for k, v in out["you"].items() if k != "cards_now"}
    return out


def fingerprint(n: int, seed: int, draft: bool) -> dict[str, Any]:
    """Play a random game to its end and hash everything observable on the way."""
    game = new_game([f"P{i}" for i in range(n)], seed, draft=draft)
    rng = random.Random(seed * 7 + n)
    digest = hashlib.sha256()
    step = 0
    while game.to_move is not None:
        seat = game.to_move
        moves = game.legal_moves()
        digest.update(_text([game.phase, seat, [str(m) for m in moves]]).encode())
        for probe in PROBES:
            refusal = game.refusal(probe)
            digest.update(_text(None if refusal is None else [refusal.code, refusal.params]).encode())
        if step % 3 == 0:
            targets = [game.targets(p, kind) for p in range(n) for kind in SINGLE_BUILDS]
            points = [game.card_points(p, card) for p in range(n) for card in SCORING_CARD_IDS]
            digest.update(_text([targets, points, [game.largest_road_group(p) for p in range(n)]]).encode())
        if step % 7 == 0:
            views = [_as_before(game.view(seat)), _as_before(game.view(None))]
            digest.update(_text(views).encode())
            other = game.clone()
            digest.update(_text(_as_before(other.apply(moves[-1]))).encode())
            digest.update(_as_before(other.to_json()).encode())
        digest.update(_text(_as_before(game.apply(rng.choice(moves)))).encode())
        step += 1
    digest.update(_as_before(game.to_json()).encode())
    digest.update(_text([game.ranking(), [_as_before(game.view(p)) for p in (None, *range(n))]]).encode())
    return {"players": n, "seed": seed, "draft": draft, "moves": step, "score": list(game.score),
            "sha256": digest.hexdigest()}


@pytest.mark.parametrize(("n", "seed", "draft"), GAMES)
def test_a_random_game_is_the_same_as_before_the_engine_was_made_faster(n: int, seed: int, draft: bool) -> None:
    recorded = {(g["players"], g["seed"], g["draft"]): g for g in json.loads(RECORDED.read_text(encoding="utf-8"))}
    assert fingerprint(n, seed, draft) == recorded[(n, seed, draft)]


def main() -> None:
    parser = argparse.ArgumentParser(description="record the fingerprints of the pinned games")
    parser.add_argument("--record", action="store_true", help=f"write {RECORDED.name}")
    args = parser.parse_args()
    prints = [fingerprint(*game) for game in GAMES]
    if args.record:
        RECORDED.write_text(json.dumps(prints, indent=1) + "\n", encoding="utf-8")
    for p in prints:
        print(p)


if __name__ == "__main__":
    main()
