"""PNG output: quantize to a fixed palette, then write with a fast zlib level.

A palette picture is a third of the data of an RGB one, so zlib has a third of the work; with a
palette fixed per base image the quantization is a cached nearest-colour lookup, and equal pictures
give equal bytes. The bench's floor uses exactly this function on the bare base image.

That lookup cache lives in the palette itself (Pillow fills it while it converts, without the interpreter
lock), and a base's palette is shared by every picture of that base: pictures drawn in threads at once
would fill one cache together, which crashed the process (a segfault in ``ImagingPaletteCacheUpdate``).
:func:`quantized` lets one thread at a time convert with a fixed palette.
"""

from __future__ import annotations

import io
import threading

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


def write_png(out: Image.Image, theme: Theme) -> bytes:
    """PNG bytes of a palette picture ``out`` at the theme's zlib level (at most :data:`MAX_BYTES`)."""
    buf = io.BytesIO()
    out.save(buf, "PNG", compress_level=theme.compress_level)
    data = buf.getvalue()
    if len(data) > MAX_BYTES:  # never expected; a stronger level always fits
        buf = io.BytesIO()
        out.save(buf, "PNG", optimize=True)
        data = buf.getvalue()
    return data
