"""The icons as Discord emojis (``render/emoji.py``): every one a 128 × 128 RGBA PNG far below Discord's 256 KiB, its
tile opaque and its corners see-through (it reads on Discord's dark and light themes alike), and the same picture each
time it is drawn; an icon that is no emoji is refused."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from render.emoji import EMOJI_ICONS, EMOJI_SIZE, emoji_png


def test_every_emoji_is_a_small_square_tile_with_see_through_corners() -> None:
    drawn = {name: emoji_png(name) for name in EMOJI_ICONS}
    assert len(set(drawn.values())) == len(EMOJI_ICONS)  # no two alike
    for name, png in drawn.items():
        assert len(png) < 256 * 1024 // 16, name
        with Image.open(io.BytesIO(png)) as image:
            assert image.format == "PNG" and image.mode == "RGBA" and image.size == (EMOJI_SIZE, EMOJI_SIZE)
            assert image.getpixel((0, 0))[3] == 0 and image.getpixel((EMOJI_SIZE // 2, EMOJI_SIZE // 2))[3] == 255
    with pytest.raises(KeyError):
        emoji_png("flag")
