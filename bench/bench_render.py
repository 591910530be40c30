"""Benchmark of the board picture: ``.venv/bin/python bench/bench_render.py``.

Prints, in one run, the median time to render a mid-game board and beside it the floor: the time to
copy the cached base picture and write it as PNG with the same settings (palette quantization and
zlib level) at the same size, and their ratio. "Full" renders sequences of consecutive mid-game
positions of 4-player games on the project's island, one render per move as the bot does (so each
render pays for the tiles and cards that changed); each is followed by one floor measurement, so
that both medians see the same load. Goals: full ≤ 1.5 × floor and ≤ 60 ms.

``--levels`` then writes the same positions' pictures at zlib levels 1 to 4 (interleaved, the same palette
pictures) and prints each level's median time and the pictures' mean and largest size: what
``Theme.compress_level`` trades.
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import time
from typing import Any

import engine
from render.base import get_base
from render.board import compose_board, render_board
from render.encode import encode, quantized
from render.layout import static_board
from render.theme import DEFAULT_THEME


def positions(seed: int, start: int, count: int) -> list[dict[str, Any]]:
    """Public views after moves ``start`` … ``start + count - 1`` of a seeded random 4-player game."""
    game = engine.new_game(["Ada", "Björn", "Céline", "Đorđe"], seed)
    rng = random.Random(seed)
    views = []
    for i in range(start + count):
        if game.is_over():
            break
        game.apply(rng.choice(game.legal_moves()))
        if i + 1 >= start:
            views.append(game.view(None))
    return views


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def compare_levels(views: list[dict[str, Any]]) -> None:
    """The median time of writing each picture at zlib levels 1-4, and the sizes."""
    pictures = [quantized(*compose_board(view)) for view in views]
    times: dict[int, list[float]] = {level: [] for level in (1, 2, 3, 4)}
    sizes: dict[int, list[int]] = {level: [] for level in times}
    for picture in pictures:
        for level in times:
            t0 = time.perf_counter()
            buf = io.BytesIO()
            picture.save(buf, "PNG", compress_level=level)
            times[level].append(time.perf_counter() - t0)
            sizes[level].append(len(buf.getvalue()))
    for level in times:
        print(f"zlib level {level}: {median_ms(times[level]):5.1f} ms, {statistics.mean(sizes[level]) / 1024:4.0f} KiB"
              f" mean, {max(sizes[level]) / 1024:4.0f} KiB largest")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2, help="4-player games to take positions from")
    parser.add_argument("--moves", type=int, default=40, help="consecutive positions per game")
    parser.add_argument("--levels", action="store_true", help="compare the PNG's zlib levels 1-4 too")
    args = parser.parse_args()
    every: list[dict[str, Any]] = []
    full: list[float] = []
    floor: list[float] = []
    size = 0
    base = None
    for seed in range(5, 5 + args.games):
        views = positions(seed, 16, args.moves + 1)
        every += views[1:]
        render_board(views[0])  # builds the base picture once, as the bot's first picture does
        board = views[0]["board"]
        base = get_base(board, static_board(board), DEFAULT_THEME, "en", len(views[0]["players"]), False)
        for view in views[1:]:
            # Interleaved, so that both medians see the same load on a shared machine.
            t0 = time.perf_counter()
            png = render_board(view)
            t1 = time.perf_counter()
            encode(base.image.copy(), base.palette, DEFAULT_THEME)
            t2 = time.perf_counter()
            full.append(t1 - t0)
            floor.append(t2 - t1)
            size = max(size, len(png))
    assert base is not None
    repeat = []
    for _ in range(20):
        t0 = time.perf_counter()
        render_board(views[-1])
        repeat.append(time.perf_counter() - t0)
    f, r, fl = median_ms(full), median_ms(repeat), median_ms(floor)
    w, h = base.image.size
    print(f"picture {w}x{h}, palette PNG, zlib level {DEFAULT_THEME.compress_level}, largest {size / 1024:.0f} KiB")
    print(f"full render, median of {len(full)} consecutive mid-game positions: {f:6.1f} ms")
    print(f"floor, copy + encode the cached base (same size and settings):  {fl:6.1f} ms")
    print(f"ratio full / floor: {f / fl:.2f}   (goals: ratio <= 1.5, full <= 60 ms)")
    print(f"(one position rendered again: {r:.1f} ms)")
    if args.levels:
        compare_levels(every)


if __name__ == "__main__":
    main()
