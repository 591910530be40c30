"""PNG output: quantize to a fixed palette, then write the PNG with ISA-L's deflate.

A palette picture is a third of the data of an RGB one, so deflate has a third of the work; with a
palette fixed per base image the quantization is a cached nearest-colour lookup, and equal pictures
give equal bytes. The bench's floor uses exactly this function on the bare base image.

The PNG is written here rather than by Pillow: its own writer deflates with the system's zlib, which takes
14 ms for a 1600-pixel board's 5.3 million pixels at its fastest level; ISA-L (``isal``) takes 2.8 ms for a
stream as small (``bench/bench_render.py --levels``). A palette PNG is four chunks, and every row is written
unfiltered (filter type 0: palette indices do not predict from their neighbours).

That lookup cache lives in the palette itself (Pillow fills it while it converts, without the interpreter
lock), and a base's palette is shared by every picture of that base: pictures drawn in threads at once
would fill one cache together, which crashed the process (a segfault in ``ImagingPaletteCacheUpdate``).
:func:`quantized` lets one thread at a time convert with a fixed palette.
"""

from __future__ import annotations

import io
import struct
import threading
import zlib
from typing import Final

from isal import isal_zlib
from PIL import Image

from render.theme import Theme

MAX_BYTES = 1 << 20
"""Discord-friendly upper bound of a picture (1 MiB)."""
_QUANTIZING = threading.Lock()
"""Held while a picture is converted with a fixed (shared) palette, whose lookup cache the conversion fills."""


def quantized(img: Image.Image, palette: Image.Image) -> Image.Image:
    """``img`` in the colours of ``palette`` (nearest colour, no dithering); safe from several threads at once."""
    with _QUANTIZING:
        return img.quantize(palette=palette, dither=Image.Dither.NONE)


def encode(img: Image.Image, palette: Image.Image | None, theme: Theme) -> bytes:
    """PNG bytes of ``img``: palette-quantized with ``palette`` (or adaptively when None)."""
    if palette is not None:
        out = quantized(img, palette)
    else:
        out = img.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    return write_png(out, theme)


SIGNATURE: Final = b"\x89PNG\r\n\x1a\n"


def write_png(out: Image.Image, theme: Theme) -> bytes:
    """PNG bytes of a palette picture ``out`` (mode ``P``, an RGB palette, no transparency), deflated at the theme's
    level (at most :data:`MAX_BYTES`)."""
    if out.mode != "P" or "transparency" in out.info:
        raise ValueError(f"write_png writes opaque palette pictures, not mode {out.mode} {out.info}")
    data = palette_png(out, theme.deflate_level)
    if len(data) > MAX_BYTES:  # never expected; Pillow's strongest always fits
        buf = io.BytesIO()
        out.save(buf, "PNG", optimize=True)
        data = buf.getvalue()
    return data


def palette_png(out: Image.Image, level: int) -> bytes:
    """The PNG of ``out`` at ISA-L's ``level``: 8 bits an index, rows unfiltered."""
    w, h = out.size
    rows = Image.new("P", (w + 1, h), 0)  # a row is its filter type (0) and its indices: one more column
    rows.paste(out, (1, 0))
    palette = bytes(out.getpalette("RGB") or [0, 0, 0])
    header = struct.pack(">IIBBBBB", w, h, 8, 3, 0, 0, 0)  # 8 bits, palette colours, deflate, no interlace
    return b"".join((SIGNATURE, _chunk(b"IHDR", header), _chunk(b"PLTE", palette),
                     _chunk(b"IDAT", isal_zlib.compress(rows.tobytes(), level)), _chunk(b"IEND", b"")))


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)))
