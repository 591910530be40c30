"""The icons of the pictures as Discord emojis: building cards, scoring cards, resources, buildings and bird chips,
drawn by :func:`render.icons.paint_icon` (the same art as the board), each on a light tile so that it reads on Discord's
dark and light themes alike.

``emoji_png(name)`` is a 128 × 128 PNG (Discord's advised size for an emoji, far below its 256 KiB limit); the bot
uploads these as its application's emojis (``bot/adapter/emojis.py``)::

    from render.emoji import EMOJI_ICONS, emoji_png
    png = emoji_png("ship")
"""

from __future__ import annotations

import io
from functools import lru_cache
from typing import Final

from PIL import Image, ImageDraw

from engine import BUILDING_CARDS, BUILDINGS, RESOURCES
from render.draw import SS
from render.icons import paint_icon
from render.theme import DEFAULT_THEME, Theme

EMOJI_ICONS: Final = (*BUILDING_CARDS, "scoring", *BUILDINGS, *RESOURCES, "chip")
"""The icons drawn as emojis: the building cards, a scoring card, the buildings, the resources, a bird chip."""
EMOJI_SIZE: Final = 128
"""Pixels of an emoji's side (Discord advises 128 × 128)."""
INSET: Final = 0.14
"""The icon's margin inside its tile, as a share of the side."""


@lru_cache(maxsize=len(EMOJI_ICONS))
def emoji_png(name: str, theme: Theme = DEFAULT_THEME) -> bytes:
    """Icon ``name`` (one of :data:`EMOJI_ICONS`) on a rounded light tile with a dark edge, as a 128 × 128 RGBA PNG
    with a transparent corner (drawn at :data:`render.draw.SS` times the size, then reduced)."""
    if name not in EMOJI_ICONS:
        raise KeyError(name)
    side = EMOJI_SIZE * SS
    big = Image.new("RGBA", (side, side), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    edge = round(side * 0.04)
    draw.rounded_rectangle([edge // 2, edge // 2, side - 1 - edge // 2, side - 1 - edge // 2], radius=side * 0.2,
                           fill=theme.tile_coast, outline=theme.tile_edge, width=edge)
    inset = side * INSET
    paint_icon(draw, name, inset, inset, side - 2 * inset, theme)
    small = big.convert("RGBa").reduce(SS).convert("RGBA")
    out = io.BytesIO()
    small.save(out, format="PNG", optimize=True)
    return out.getvalue()
