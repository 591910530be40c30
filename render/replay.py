"""The animated replay of a finished game: a GIF of the overview, position after position, that Discord plays inline.

Made from public views only (``Game.view(None)`` after each move), like every picture here: one frame per move
(a 4-player game's hundred-odd positions; ``max_frames`` spreads fewer evenly, first and last kept), each the
overview of its position (:mod:`render.overview`) drawn 640 pixels wide with the overview's fixed palette. The
overview is composed for the chat's box: the GIF plays there at 437 × 350 on desktop with every name and score
readable, where frames of the tall board played as a 168 × 350 stamp (:mod:`render.inline`). Each frame after the
first keeps only the pixels that changed (the rest transparent over the frame before, Pillow's ``optimize``, marked
with a palette index no picture uses: :func:`spare_index`), so the longest 4-player game stays far under Discord's
limit: frames of the board, every one whole, took 8.7 MB, which is why frames were once skipped.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Final

from PIL import Image

from engine import View
from render.encode import quantized
from render.overview import compose_overview
from render.theme import Theme

REPLAY_WIDTH: Final = 640
"""Frame width in pixels (at least what the desktop chat shows of it: 437 pixels)."""
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
    theme = frame_theme(width)
    frames = []
    palette = None
    for index in frame_indices(len(views), max_frames):
        img, palette, _written = compose_overview(views[index], locale=locale, theme=theme)
        frames.append(quantized(img, palette))
    assert palette is not None
    spare = spare_index(palette)
    unchanged = {} if spare is None else {"transparency": spare}
    durations = [FRAME_MS] * (len(frames) - 1) + [FRAME_MS * 4]
    buf = io.BytesIO()
    # disposal 1: a frame's transparent pixels show the one before
    frames[0].save(buf, "GIF", save_all=True, append_images=frames[1:], duration=durations, loop=0,
                   optimize=True, disposal=1, **unchanged)
    return buf.getvalue()


def frame_theme(width: int = REPLAY_WIDTH) -> Theme:
    """The theme whose overview is ``width`` pixels wide."""
    base = Theme()
    return Theme(width=round(width / base.overview_share))


def spare_index(palette: Image.Image) -> int | None:
    """An index of ``palette`` that no picture converted to it uses: the last of a colour the palette holds twice.

    The conversion to a fixed palette takes, of equally near entries, the first, so a colour's second entry is never
    drawn. The replay's frames mark their unchanged pixels with it; without it Pillow counts every frame's colours to
    find one unused in that frame (a fifth of the GIF's writing). ``None`` when every colour is held once.
    """
    flat = palette.getpalette() or []
    colours = [tuple(flat[i:i + 3]) for i in range(0, len(flat) - 2, 3)]
    first: dict[tuple[int, ...], int] = {}
    spare = None
    for index, colour in enumerate(colours):
        if colour in first:
            spare = index
        else:
            first[colour] = index
    return spare
