"""How large Discord shows a picture in the chat, before anyone taps it (``DISCORD-MEDIA.md`` in the project's notes).

Discord never shows a picture at its own size in the chat: it scales it down, keeping its shape, to fit a box, and
never enlarges it. The boxes:

- :data:`DESKTOP_ATTACHMENT`: a plain attachment on desktop and web, at most 550 × 350 CSS pixels;
- :data:`DESKTOP_GALLERY`: a Components V2 media gallery there, at most 600 × 350;
- :data:`ANDROID`: the chat column (330 dp, the roomier end of 300-330) and at most 400 dp high.

Several items of one gallery (or of one plain message) form a grid whose cells are cropped to fill (:func:`cells`,
:func:`cropped`): two side by side, three as one large cell left and two stacked right, four as a 2 × 2 grid, five to
ten in rows of three squares; Android's two cells are portraits (W/2 × 2W/3). The cells' sizes for three items and for
Android's grids beyond two are the note's shapes scaled to the box, not measured numbers.

Pure arithmetic on sizes (no Pillow), so that tests and the bot can ask it cheaply.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

Size = tuple[float, float]
"""(width, height) in pixels, CSS pixels or dp."""


@dataclass(frozen=True, slots=True)
class Box:
    """Where a client shows pictures in the chat: at most ``width`` × ``height``."""

    name: str
    width: float
    height: float
    portrait_pairs: bool = False
    """Whether two items of a gallery stand in portrait cells (W/2 × 2W/3: Android) instead of squares."""


DESKTOP_ATTACHMENT: Final = Box("desktop attachment", 550, 350)
DESKTOP_GALLERY: Final = Box("desktop gallery", 600, 350)
ANDROID: Final = Box("Android", 330, 400, portrait_pairs=True)
BOXES: Final = (DESKTOP_ATTACHMENT, DESKTOP_GALLERY, ANDROID)
"""Every box a picture of the game is checked in."""
MIN_SIDE: Final = 40
"""The least a side is shown at (the web client's ``MINIMUM_MEDIA_MOSAIC_DIM``)."""
GAP: Final = 4
"""Between two cells of a grid."""
GALLERY_MAX: Final = 10
"""Items of one gallery."""


def scale(size: Size, box: Box) -> float:
    """How much ``size`` is scaled to show alone in ``box``: fitted, never enlarged."""
    w, h = size
    if w <= 0 or h <= 0:
        raise ValueError(f"a picture has a size: {size}")
    return min(1.0, box.width / w, box.height / h)


def shown(size: Size, box: Box) -> Size:
    """The size at which a picture of ``size`` shows alone in ``box`` (each side at least :data:`MIN_SIDE`, or its
    own size where that is less)."""
    f = scale(size, box)
    w, h = size
    return (max(min(w, MIN_SIDE), w * f), max(min(h, MIN_SIDE), h * f))


def area(size: Size, box: Box) -> float:
    """The area a picture of ``size`` covers alone in ``box``."""
    w, h = shown(size, box)
    return w * h


def cells(count: int, box: Box) -> list[Size]:
    """The cells of a grid of ``count`` items (2 to :data:`GALLERY_MAX`) in ``box``, item by item."""
    if not 2 <= count <= GALLERY_MAX:
        raise ValueError(f"a grid holds 2 to {GALLERY_MAX} items, not {count}")
    w = box.width
    h = box.height if not box.portrait_pairs else w * DESKTOP_GALLERY.height / DESKTOP_GALLERY.width
    half = (w - GAP) / 2
    if count == 2:
        return [(half, 2 * w / 3)] * 2 if box.portrait_pairs else [(min(half, h), min(half, h))] * 2
    if count == 3:
        return [(half, h), (half, (h - GAP) / 2), (half, (h - GAP) / 2)]
    if count == 4:
        return [(half, (h - GAP) / 2)] * 4
    third = (w - 2 * GAP) / 3
    return [(third, third)] * count


def crop(size: Size, cell: Size) -> float:
    """The share of a picture of ``size`` cut away when it is cropped to fill ``cell`` (0: nothing)."""
    picture, room = size[0] / size[1], cell[0] / cell[1]
    return 1 - min(picture, room) / max(picture, room)


def cropped(sizes: Sequence[Size], box: Box) -> list[float]:
    """The share of each picture cut away when ``sizes`` are shown together (one gallery, or one plain message's
    attachments) in ``box``: nothing for a picture alone."""
    if len(sizes) <= 1:
        return [0.0] * len(sizes)
    return [crop(size, cell) for size, cell in zip(sizes, cells(len(sizes), box), strict=True)]
