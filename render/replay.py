"""The animated replay of a finished game: a GIF of the board, position after position, that Discord plays inline.

Made from public views only (``Game.view(None)`` after each move), like every picture here. A long game is
shown in at most ``max_frames`` frames evenly spread over its moves (always the first and the final
position), drawn at a reduced width with the board's own fixed palette, so equal parts of consecutive
frames compress away and a 4-player game stays far below Discord's 8 MiB.
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
MAX_FRAMES: Final = 40
FRAME_MS: Final = 700
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
                   optimize=False, disposal=1)
    return buf.getvalue()
