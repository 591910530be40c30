"""Benchmark of the channel post's pictures: ``.venv/bin/python bench/bench_render.py``.

Prints, in one run, for the board and for the overview (the picture the chat shows without a tap,
``render.overview``) the median time to render a mid-game position and beside it the floor: the time to
make an RGB copy of the cached base picture (kept in its palette's colours) and write it as PNG with the same
settings (palette quantization and deflate level) at the same size, and their ratio; then the same for the post,
both pictures together. "Full" renders sequences of consecutive mid-game positions of 4-player games on the
project's island, one render per move as the bot does (so each render pays for the tiles and cards that changed);
each is followed by one floor measurement, so that both medians see the same load. Goals: full ≤ 1.5 × floor
(each picture and the post) and the board ≤ 60 ms. ``--clock cpu`` counts only this process's own CPU time
(``time.process_time``), which waiting for a busy core does not inflate.

``--spread`` then draws, in turn, a move's pictures in each of many games (2-4 players, three languages, positions
all through a game), as a bot with many open games does: a kept layer is then hardly ever of the same game, so each
picture pays for most of its island. It prints the median of each picture of a move (the post's overview and board,
the next player's DM overview and board, as the bot draws them) and of their sum.

``--levels`` then writes the same positions' pictures at ISA-L's deflate levels 0 to 3 and, beside them, with
Pillow's own PNG writer (the system's zlib) at levels 1 to 3 (interleaved, the same palette pictures) and prints
each one's median time and the pictures' mean and largest size: what ``Theme.deflate_level`` trades, and what
writing the PNG in ``render.encode`` saves.
"""

from __future__ import annotations

import argparse
import functools
import io
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from PIL import Image

import engine
from bot.host.pictures import picture_width, render_picture
from render.base import get_base
from render.board import compose_board, render_board
from render.encode import encode, palette_png, quantized
from render.island import static_board
from render.overview import get_overview_base, render_overview
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
    """The median time of writing each picture at ISA-L's levels 0-3 and Pillow's zlib levels 1-3, and the sizes."""
    pictures = [quantized(*compose_board(view)) for view in views]

    def pillow(picture: Image.Image, level: int) -> bytes:
        buf = io.BytesIO()
        picture.save(buf, "PNG", compress_level=level)
        return buf.getvalue()

    writers: dict[str, Callable[[Image.Image], bytes]] = {
        **{f"ISA-L level {level}": functools.partial(palette_png, level=level) for level in (0, 1, 2, 3)},
        **{f"Pillow zlib level {level}": functools.partial(pillow, level=level) for level in (1, 2, 3)}}
    times: dict[str, list[float]] = {name: [] for name in writers}
    sizes: dict[str, list[int]] = {name: [] for name in writers}
    for picture in pictures:
        for name, write in writers.items():
            t0 = time.perf_counter()
            sizes[name].append(len(write(picture)))
            times[name].append(time.perf_counter() - t0)
    for name in writers:
        print(f"{name:19}: {median_ms(times[name]):5.1f} ms, {statistics.mean(sizes[name]) / 1024:4.0f} KiB mean, "
              f"{max(sizes[name]) / 1024:4.0f} KiB largest")


def report(name: str, full: list[float], floor: list[float]) -> None:
    """One line: the median render, the median floor and their ratio."""
    f, fl = median_ms(full), median_ms(floor)
    print(f"{name:9} full {f:6.1f} ms, floor (an RGB copy of the cached base, encoded) {fl:6.1f} ms, "
          f"ratio {f / fl:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2, help="4-player games to take positions from")
    parser.add_argument("--moves", type=int, default=40, help="consecutive positions per game")
    parser.add_argument("--levels", action="store_true", help="compare the PNG's zlib levels 1-4 too")
    parser.add_argument("--spread", action="store_true",
                        help="a move's pictures drawn in turn in each of many games, as a bot with many games does")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="time.perf_counter (default) or this process's CPU time, time.process_time")
    args = parser.parse_args()
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    every: list[dict[str, Any]] = []
    full: list[float] = []
    floor: list[float] = []
    over_full: list[float] = []
    over_floor: list[float] = []
    size = over_size = 0
    base = None
    for seed in range(5, 5 + args.games):
        views = positions(seed, 16, args.moves + 1)
        every += views[1:]
        render_board(views[0])  # builds the base pictures once, as the bot's first pictures do
        render_overview(views[0])
        board = views[0]["board"]
        base = get_base(board, static_board(board), DEFAULT_THEME, len(views[0]["players"]), False)
        over_base, _lay, over_palette = get_overview_base(board, DEFAULT_THEME, len(views[0]["players"]))
        for view in views[1:]:
            # Interleaved, so that the medians see the same load on a shared machine.
            t0 = clock()
            png = render_board(view)
            t1 = clock()
            encode(base.image.convert("RGB"), base.palette, DEFAULT_THEME)
            t2 = clock()
            glance = render_overview(view)
            t3 = clock()
            encode(over_base.convert("RGB"), over_palette, DEFAULT_THEME)
            t4 = clock()
            full.append(t1 - t0)
            floor.append(t2 - t1)
            over_full.append(t3 - t2)
            over_floor.append(t4 - t3)
            size = max(size, len(png))
            over_size = max(over_size, len(glance))
    assert base is not None
    repeat = []
    for _ in range(20):
        t0 = clock()
        render_board(views[-1])
        repeat.append(clock() - t0)
    w, h = base.image.size
    ow, oh = over_base.size
    print(f"board {w}x{h} and overview {ow}x{oh}, palette PNG, deflate level {DEFAULT_THEME.deflate_level}, largest "
          f"{size / 1024:.0f} and {over_size / 1024:.0f} KiB; medians of {len(full)} consecutive mid-game positions")
    report("board", full, floor)
    report("overview", over_full, over_floor)
    report("post", [a + b for a, b in zip(full, over_full, strict=True)],
           [a + b for a, b in zip(floor, over_floor, strict=True)])
    print(f"(goals: each ratio <= 1.5, the board <= 60 ms; clock: {args.clock})")
    print(f"(one position rendered again: {median_ms(repeat):.1f} ms)")
    if args.spread:
        spread(clock)
    if args.levels:
        compare_levels(every)


def spread(clock: Callable[[], float], games: int = 120) -> None:
    """The median time of each picture of a move, drawn in turn in each of ``games`` games (see the docstring)."""
    rng = random.Random(1)
    played = []
    for seed in range(games):
        game = engine.new_game(["Ada", "Björn", "Céline", "Đorđe"][:rng.choice((2, 3, 4))], seed)
        for _ in range(rng.randint(3, 60)):
            if game.to_move is None:
                break
            game.apply(rng.choice(game.legal_moves()))
        if game.to_move is not None:
            played.append((game, rng.choice(("en", "de", "fr"))))
    for game, locale in played[:30]:  # every base drawn once, as a bot's first pictures do
        render_picture(game.view(None), locale, False, False, overview=True)
        render_picture(game.view(None), locale, False, False)
    times: dict[str, list[float]] = {name: [] for name in ("overview", "board", "dm overview", "dm board", "move")}
    for _ in range(2):
        for game, locale in played:
            game.apply(rng.choice(game.legal_moves()))
            if game.to_move is None:
                continue
            public, own = game.view(None), game.view(game.to_move, since=True)
            move = 0.0
            for name, view, personal, overview in (("overview", public, False, True), ("board", public, False, False),
                                                   ("dm overview", own, True, True), ("dm board", own, True, False)):
                width = picture_width(DEFAULT_THEME.width, personal=personal, overview=overview)
                t0 = clock()
                render_picture(view, locale, personal, False, width, overview)
                times[name].append(clock() - t0)
                move += times[name][-1]
            times["move"].append(move)
    print(f"spread over {len(played)} games, {len(times['move'])} moves: " + ", ".join(
        f"{name} {median_ms(samples):.1f} ms" for name, samples in times.items()))


if __name__ == "__main__":
    main()
