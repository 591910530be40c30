"""PNG output: quantize to a fixed palette, then write with a fast zlib level.

A palette picture is a third of the data of an RGB one, so zlib has a third of the work; with a
palette fixed per base image the quantization is a cached nearest-colour lookup, and equal pictures
give equal bytes. The bench's floor uses exactly this function on the bare base image.
"""

from __future__ import annotations

import io

from PIL import Image

from render.theme import Theme

MAX_BYTES = 1 << 20
"""Discord-friendly upper bound of a picture (1 MiB)."""


def encode(img: Image.Image, palette: Image.Image | None, theme: Theme) -> bytes:
    """PNG bytes of ``img``: palette-quantized with ``palette`` (or adaptively when None)."""
    if palette is not None:
        out = img.quantize(palette=palette, dither=Image.Dither.NONE)
    else:
        out = img.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    buf = io.BytesIO()
    out.save(buf, "PNG", compress_level=theme.compress_level)
    data = buf.getvalue()
    if len(data) > MAX_BYTES:  # never expected; a stronger level always fits
        buf = io.BytesIO()
        out.save(buf, "PNG", optimize=True)
        data = buf.getvalue()
    return data
