"""Fonts, loaded once: the DejaVu Sans files shipped in ``assets/fonts`` (licence beside them).

DejaVu covers Latin with all accents and umlauts, Greek and Cyrillic, so players' names draw as typed.
If the shipped files are missing (an install without the repository's assets), the system's DejaVu or
Pillow's built-in scalable font is used instead.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from PIL import ImageFont

FONT_DIR = Path(__file__).resolve().parent.parent / "assets" / "fonts"
_SYSTEM_DIR = Path("/usr/share/fonts/truetype/dejavu")
_FILES = {
    "regular": "DejaVuSans.ttf",
    "bold": "DejaVuSans-Bold.ttf",
    "condensed": "DejaVuSansCondensed-Bold.ttf",
}

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@cache
def font(size: int, weight: str = "regular") -> Font:
    """The font of ``weight`` (``regular``, ``bold`` or ``condensed`` bold) at ``size`` pixels."""
    name = _FILES[weight]
    for folder in (FONT_DIR, _SYSTEM_DIR):
        path = folder / name
        if path.is_file():
            return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size)
