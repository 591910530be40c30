"""The PNG writer (``render.encode``): what it writes is a PNG that Pillow reads back, pixel for pixel and colour for
colour, whatever the picture's size and palette."""

from __future__ import annotations

import io
import random
import struct
import zlib

import pytest
from PIL import Image

from render.encode import SIGNATURE, palette_png, write_png
from render.theme import Theme


def picture(width: int, height: int, colours: int, seed: int) -> Image.Image:
    """A palette picture of random indices below ``colours``, with a palette of ``colours`` random colours."""
    rng = random.Random(seed)
    img = Image.new("P", (width, height))
    img.putdata([rng.randrange(colours) for _ in range(width * height)])
    img.putpalette([rng.randrange(256) for _ in range(3 * colours)])
    return img


def chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    """The (kind, data) of each chunk of a PNG, each one's CRC checked."""
    assert data.startswith(SIGNATURE)
    out = []
    at = len(SIGNATURE)
    while at < len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length:at + 12 + length])
        assert crc == zlib.crc32(kind + body)
        out.append((kind, body))
        at += 12 + length
    return out


@pytest.mark.parametrize(("width", "height", "colours"), [(1, 1, 1), (1, 7, 2), (13, 1, 5), (97, 61, 256)])
@pytest.mark.parametrize("level", [0, 1, 3])
def test_what_is_written_reads_back_as_the_same_picture(width: int, height: int, colours: int, level: int) -> None:
    img = picture(width, height, colours, seed=width * height + level)
    data = palette_png(img, level)
    back = Image.open(io.BytesIO(data))
    back.load()
    assert (back.format, back.mode, back.size) == ("PNG", "P", img.size)
    assert back.tobytes() == img.tobytes()
    assert back.getpalette("RGB")[:3 * colours] == img.getpalette("RGB")[:3 * colours]
    kinds = [kind for kind, _ in chunks(data)]
    assert kinds == [b"IHDR", b"PLTE", b"IDAT", b"IEND"]
    # every row unfiltered: its first byte is filter type 0
    rows = zlib.decompress(dict(chunks(data))[b"IDAT"])
    assert len(rows) == (width + 1) * height
    assert all(rows[y * (width + 1)] == 0 for y in range(height))


def test_a_board_sized_picture_is_written_smaller_than_a_megabyte_at_the_theme_s_level() -> None:
    """Flat areas with a few colours, like a board: the theme's level keeps it small."""
    img = Image.new("P", (1600, 3333), 0)
    img.putpalette([0, 0, 0, 200, 180, 120, 40, 90, 160, 255, 255, 255])
    for i in range(0, 3333, 40):
        img.paste(1 + i % 3, (i % 1600 // 2, i, i % 1600 // 2 + 300, i + 25))
    data = write_png(img, Theme())
    assert len(data) < 64 * 1024
    assert Image.open(io.BytesIO(data)).tobytes() == img.tobytes()


@pytest.mark.parametrize("mode", ["RGB", "L", "RGBA"])
def test_only_palette_pictures_are_written(mode: str) -> None:
    with pytest.raises(ValueError, match="palette pictures"):
        write_png(Image.new(mode, (4, 4)), Theme())


def test_a_palette_picture_with_a_transparent_colour_is_refused() -> None:
    img = picture(4, 4, 3, seed=1)
    img.info["transparency"] = 0
    with pytest.raises(ValueError, match="palette pictures"):
        write_png(img, Theme())
