"""The animated replay of a finished game: a GIF of the board, position after position, that Discord plays inline.

Made from public views only (``Game.view(None)`` after each move), like every picture here: one frame per move
(a 4-player game's hundred-odd positions; ``max_frames`` spreads fewer evenly, first and last kept), drawn at a
reduced width with the board's own fixed palette. Each frame after the first keeps only the pixels that changed
(the rest transparent over the frame before, Pillow's ``optimize``), so the longest 4-player game takes about
1.6 MB: every frame whole took 8.7 MB, over Discord's limit, which is why frames were skipped.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Final

from engine import View
from render.board import compose_board
from render.encode import quantized
from render.theme import Theme

REPLAY_WIDTH: Final = 640
"""Frame width in pixels (two fifths of the board picture's)."""
MAX_FRAMES: Final = 400
"""More positions than a game has: every move is a frame."""
FRAME_MS: Final = 500
"""How long each position shows (milliseconds); the final one shows four times as long."""


def frame_indices(count: int, max_frames: int = MAX_FRAMES) -> list[int]:
    """Which of ``count`` positions become frames: at most ``max_frames``, evenly spread, first and last kept."""
    if count <= 0:
        return []
    if count <= max_frames:
        return list(range(count))
    step = (count - 1) / (max_frames - 1)
    return sorted({round(i * step) for i in range(max_frames)})


def render_replay(views: Sequence[View], *, locale: str = "en", max_frames: int = MAX_FRAMES,
                  width: int = REPLAY_WIDTH) -> bytes:
    """A looping GIF of ``views`` (the public views from the set-up to the end, in order)."""
    if not views:
        raise ValueError("a replay needs at least one position")
    theme = Theme(width=width)
    frames = []
    for index in frame_indices(len(views), max_frames):
        img, palette = compose_board(views[index], locale=locale, theme=theme)
        frames.append(quantized(img, palette))
    durations = [FRAME_MS] * (len(frames) - 1) + [FRAME_MS * 4]
    buf = io.BytesIO()
    frames[0].save(buf, "GIF", save_all=True, append_images=frames[1:], duration=durations, loop=0,
                   optimize=True, disposal=1)  # disposal 1: a frame's transparent pixels show the one before
    return buf.getvalue()
