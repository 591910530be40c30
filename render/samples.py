"""Write sample pictures: ``python -m render.samples OUTDIR`` (``--docs``: the README's pictures).

Plays seeded random games on the project's island (2, 3 and 4 players) and writes, for each, the
channel's board and overview of a mid-game position and the personal ones of the seat to move, plus the
game over's; one file per picture, in three languages. Prints the paths it wrote. With
``--docs``, the pictures the README shows instead, with players named in four scripts: a turn's post, a DM and the
game over as the chat shows them without a tap (the overview scaled to its inline size, :mod:`render.inline`) and as
a tap opens them (the board and the chart, 800 pixels wide).
"""

from __future__ import annotations

import io
import random
import sys
from pathlib import Path

from PIL import Image

import engine
from render import inline
from render.board import render_board
from render.gameover import render_game_over
from render.overview import render_overview
from render.theme import Theme

NAMES = ["Ada", "Björn", "Céline", "Đorđe"]
WORLD_NAMES = ["王小明", "たろう", "🦊 Fuchs", "محمد"]


def play(n: int, seed: int, moves: int | None, *, draft: bool = False, island: engine.Island | None = None,
         names: list[str] = NAMES) -> engine.Game:
    """A game of ``n`` players after ``moves`` random legal moves (to the end when None)."""
    game = engine.new_game(names[:n], seed, draft=draft, island=island)
    rng = random.Random(seed)
    count = 0
    while not game.is_over() and (moves is None or count < moves):
        game.apply(rng.choice(game.legal_moves()))
        count += 1
    return game


def write_samples(out: Path) -> list[Path]:
    """Write the sample pictures into ``out`` and return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def save(name: str, data: bytes) -> None:
        path = out / name
        path.write_bytes(data)
        written.append(path)

    for n, seed, moves, locale in ((2, 11, 26, "en"), (3, 12, 40, "de"), (4, 13, 22, "fr")):
        game = play(n, seed, moves)
        save(f"board-{n}p-{locale}.png", render_board(game.view(None), locale=locale))
        save(f"overview-{n}p-{locale}.png", render_overview(game.view(None), locale=locale))
        seat = game.to_move
        if seat is not None:
            save(f"personal-{n}p-{locale}.png", render_board(game.view(seat), locale=locale, personal=True))
            save(f"overview-personal-{n}p-{locale}.png",
                 render_overview(game.view(seat), locale=locale, personal=True))
    game = play(4, 14, None)
    save("board-over-4p-en.png", render_board(game.view(None)))
    save("overview-over-4p-en.png", render_overview(game.view(None)))
    for locale in ("en", "de"):
        save(f"gameover-4p-{locale}.png", render_game_over(game.view(None), locale=locale))
    game = play(3, 15, None)
    save("gameover-3p-fr.png", render_game_over(game.view(None), locale="fr"))
    return written


def inline_view(png: bytes, box: inline.Box) -> bytes:
    """``png`` scaled down to the size at which Discord shows it in ``box`` without a tap (:mod:`render.inline`)."""
    with Image.open(io.BytesIO(png)) as img:
        w, h = inline.shown(img.size, box)
        small = img.convert("RGB").resize((round(w), round(h)), Image.Resampling.LANCZOS)
    buf = io.BytesIO()
    small.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(buf, "PNG", optimize=True)
    return buf.getvalue()


def write_docs(out: Path) -> list[Path]:
    """The README's pictures: a turn's post, a DM and the game over, each as the chat shows it without a tap (the
    overview scaled to its size on desktop and, for the post, on a phone) and as a tap opens it (the board, 800
    pixels wide; the game over's chart)."""
    out.mkdir(parents=True, exist_ok=True)
    theme = Theme(width=800)
    game = play(4, 13, 31, names=WORLD_NAMES)  # the seat to move may build: its DM numbers where
    seat = game.to_move if game.to_move is not None else 0
    public, own = game.view(None), game.view(seat, since=True)
    over = play(4, 13, None, names=WORLD_NAMES).view(None)
    post = render_overview(public, theme=Theme())
    pictures = {
        "post-inline.png": inline_view(post, inline.DESKTOP_GALLERY),
        "post-phone.png": inline_view(post, inline.ANDROID),
        "board.png": render_board(public, theme=theme),
        "dm-inline.png": inline_view(render_overview(own, personal=True, theme=Theme()), inline.DESKTOP_GALLERY),
        "dm.png": render_board(own, personal=True, theme=theme),
        "over-inline.png": inline_view(render_overview(over, theme=Theme()), inline.DESKTOP_GALLERY),
        "gameover.png": render_game_over(over, theme=theme),
    }
    for name, data in pictures.items():
        (out / name).write_bytes(data)
    return [out / name for name in pictures]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    docs = "--docs" in args
    args = [a for a in args if a != "--docs"]
    if len(args) != 1:
        print("usage: python -m render.samples [--docs] OUTDIR", file=sys.stderr)
        return 2
    for path in (write_docs if docs else write_samples)(Path(args[0])):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
