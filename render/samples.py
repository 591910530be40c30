"""Write sample pictures: ``python -m render.samples OUTDIR`` (``--docs``: the README's pictures).

Plays seeded random games on the project's island (2, 3 and 4 players) and writes, for each, the
channel's picture of a mid-game position and the personal picture of the seat to move, plus a
game-over picture; one file per picture, in three languages. Prints the paths it wrote. With
``--docs``, the three pictures the README shows instead (board, a DM picture, game over), 800 pixels
wide, with players named in four scripts.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import engine
from render.board import render_board
from render.gameover import render_game_over
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
        seat = game.to_move
        if seat is not None:
            save(f"personal-{n}p-{locale}.png", render_board(game.view(seat), locale=locale, personal=True))
    game = play(4, 14, None)
    save("board-over-4p-en.png", render_board(game.view(None)))
    for locale in ("en", "de"):
        save(f"gameover-4p-{locale}.png", render_game_over(game.view(None), locale=locale))
    game = play(3, 15, None)
    save("gameover-3p-fr.png", render_game_over(game.view(None), locale="fr"))
    return written


def write_docs(out: Path) -> list[Path]:
    """The README's pictures: a board, the DM picture of the seat to move and a game over, 800 pixels wide."""
    out.mkdir(parents=True, exist_ok=True)
    theme = Theme(width=800)
    game = play(4, 13, 30, names=WORLD_NAMES)
    seat = game.to_move if game.to_move is not None else 0
    pictures = {
        "board.png": render_board(game.view(None), theme=theme),
        "dm.png": render_board(game.view(seat), personal=True, theme=theme),
        "gameover.png": render_game_over(play(4, 13, None, names=WORLD_NAMES).view(None), theme=theme),
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
