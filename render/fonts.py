"""Fonts, loaded once: the files shipped in ``assets/fonts`` (installed as package data of
``render.assets``; licences beside them).

A weight (``regular``, ``bold``, ``condensed`` bold) is a *chain* of faces. The first is DejaVu Sans (Latin
with every accent, Greek, Cyrillic, Armenian, Georgian: the pictures' own look); the others fill in, character
by character, what it lacks: Noto for the scripts of :data:`SCRIPTS` (Arabic, Hebrew, the scripts of India and
Sri Lanka, Thai, Myanmar, Khmer, Ethiopic, Tibetan, Mongolian, Syriac, Thaana, Cherokee; each taken for its own
blocks before DejaVu, whose few Arabic glyphs have no bold), Droid Sans Fallback for Chinese and Japanese,
NanumSquare for Korean, Symbola for emoji (monochrome). Which face draws a character is read from the faces' own
character maps (``cmap`` tables, parsed here: no font library at run time), so a name never turns into boxes as
long as some face has it. :mod:`render.script` lays a string out across the chain.

Most faces are opened with Pillow's basic layout (no raqm/FriBiDi), so a picture is the same on every machine;
bidirectional order and Arabic joining are done by :mod:`render.script` instead. The scripts whose clusters need
the font's rules cannot be drawn right without a shaper (a Devanagari conjunct such as क्ष or the reph of र्ज is
a glyph of its own; a Thai tone mark sits on top of an upper vowel, as in ที่, instead of on it; a Bengali or
Tamil vowel sign stands before its consonant; Tibetan letters stack; Syriac and Mongolian letters join), so their
faces (``shaped`` in :data:`SCRIPTS`) are opened with Pillow's raqm layout where Pillow has it (:func:`shaping`;
the wheels bring it, with the system's FriBiDi); elsewhere :mod:`render.script` at least puts Devanagari's short
i in place.
"""

from __future__ import annotations

import bisect
import struct
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path

from PIL import ImageFont, features

FONT_DIR = Path(str(files("render.assets") / "fonts"))

Font = ImageFont.FreeTypeFont

Ranges = tuple[tuple[int, int], ...]
"""Inclusive code point ranges."""

ARABIC: Ranges = ((0x0600, 0x06FF), (0x0750, 0x077F), (0x08A0, 0x08FF), (0xFB50, 0xFDFF), (0xFE70, 0xFEFF))
HEBREW: Ranges = ((0x0590, 0x05FF), (0xFB1D, 0xFB4F))
DEVANAGARI: Ranges = ((0x0900, 0x097F), (0xA8E0, 0xA8FF), (0x1CD0, 0x1CFF))
THAI: Ranges = ((0x0E00, 0x0E7F),)


@dataclass(frozen=True, slots=True)
class Script:
    """A writing system drawn by a Noto family of its own (``Noto<style><family>-<weight>.ttf``) for its
    ``blocks``; ``shaped``: its clusters, marks or joining letters need the font's rules (a shaper)."""

    family: str
    blocks: Ranges
    shaped: bool = False
    style: str = "Sans"
    """``Sans``, or ``Serif`` where Noto has no sans face of the script (Tibetan)."""
    bold: str = "Bold"
    """The file's weight drawn as bold: the nearest Noto makes (``Black`` for Syriac, ``Regular`` where there is
    only that)."""

    def file(self, weight: str) -> str:
        """The face of ``weight`` (``Regular`` or ``Bold``)."""
        return f"Noto{self.style}{self.family}-{self.bold if weight == 'Bold' else weight}.ttf"


SCRIPTS: tuple[Script, ...] = (
    Script("Arabic", ARABIC),
    Script("Hebrew", HEBREW),
    Script("Devanagari", DEVANAGARI, shaped=True),
    Script("Thai", THAI, shaped=True),
    Script("Bengali", ((0x0980, 0x09FF),), shaped=True),
    Script("Gurmukhi", ((0x0A00, 0x0A7F),), shaped=True),
    Script("Gujarati", ((0x0A80, 0x0AFF),), shaped=True),
    Script("Tamil", ((0x0B80, 0x0BFF), (0x11FC0, 0x11FFF)), shaped=True),
    Script("Telugu", ((0x0C00, 0x0C7F),), shaped=True),
    Script("Kannada", ((0x0C80, 0x0CFF),), shaped=True),
    Script("Malayalam", ((0x0D00, 0x0D7F),), shaped=True),
    Script("Sinhala", ((0x0D80, 0x0DFF), (0x111E0, 0x111FF)), shaped=True),
    Script("Myanmar", ((0x1000, 0x109F), (0xA9E0, 0xA9FF), (0xAA60, 0xAA7F)), shaped=True),
    Script("Khmer", ((0x1780, 0x17FF), (0x19E0, 0x19FF)), shaped=True),
    Script("Ethiopic", ((0x1200, 0x139F), (0x2D80, 0x2DDF), (0xAB00, 0xAB2F))),
    Script("Tibetan", ((0x0F00, 0x0FFF),), shaped=True, style="Serif"),
    Script("Mongolian", ((0x1800, 0x18AF), (0x11660, 0x1167F)), shaped=True, bold="Regular"),
    Script("Syriac", ((0x0700, 0x074F), (0x0860, 0x086F)), shaped=True, bold="Black"),
    Script("Thaana", ((0x0780, 0x07BF),), shaped=True),
    Script("Cherokee", ((0x13A0, 0x13FF), (0xAB70, 0xABBF))),
)
"""The scripts with a face of their own, taken for their blocks before any other face."""


@dataclass(frozen=True, slots=True)
class Face:
    """One font file of a chain; ``only``: the blocks it is used for (None: whatever it has); ``shaped``: drawn
    through a shaper where Pillow has one (:func:`shaping`), as its script needs (:attr:`Script.shaped`)."""

    file: str
    only: Ranges | None = None
    shaped: bool = False


_FALLBACK_REGULAR = (Face("DroidSansFallbackFull.ttf"), Face("NanumSquareR.ttf"), Face("Symbola.ttf"))
_FALLBACK_BOLD = (Face("DroidSansFallbackFull.ttf"), Face("NanumSquareB.ttf"), Face("Symbola.ttf"))


def _scripts(weight: str) -> tuple[Face, ...]:
    return tuple(Face(s.file(weight), s.blocks, s.shaped) for s in SCRIPTS)


CHAINS: dict[str, tuple[Face, ...]] = {
    "regular": (Face("DejaVuSans.ttf"), *_scripts("Regular"), *_FALLBACK_REGULAR),
    "bold": (Face("DejaVuSans-Bold.ttf"), *_scripts("Bold"), *_FALLBACK_BOLD),
    "condensed": (Face("DejaVuSansCondensed-Bold.ttf"), *_scripts("Bold"), *_FALLBACK_BOLD),
}
"""Per weight, its faces: the first is the primary (metrics, the look of Latin text)."""

PRIMARY = 0
"""Index of the primary face in every chain."""


def _ranges_format4(data: bytes, at: int) -> list[tuple[int, int]]:
    seg_x2 = struct.unpack_from(">H", data, at + 6)[0]
    n = seg_x2 // 2
    ends = struct.unpack_from(f">{n}H", data, at + 14)
    starts = struct.unpack_from(f">{n}H", data, at + 16 + seg_x2)
    deltas = struct.unpack_from(f">{n}h", data, at + 16 + 2 * seg_x2)
    offsets_at = at + 16 + 3 * seg_x2
    offsets = struct.unpack_from(f">{n}H", data, offsets_at)
    out: list[tuple[int, int]] = []
    for i, (start, end, delta, offset) in enumerate(zip(starts, ends, deltas, offsets, strict=True)):
        if start == 0xFFFF:
            continue
        if offset == 0:  # glyph = code + delta: glyph 0 (none) for at most one code
            zero = -delta & 0xFFFF
            out.extend(r for r in ((start, min(end, zero - 1)), (max(start, zero + 1), end)) if r[0] <= r[1])
            continue
        for c in range(start, end + 1):
            where = offsets_at + 2 * i + offset + 2 * (c - start)
            glyph = struct.unpack_from(">H", data, where)[0] if where + 2 <= len(data) else 0
            if glyph:
                out.append((c, c))
    return out


def _ranges_format12(data: bytes, at: int) -> list[tuple[int, int]]:
    groups = struct.unpack_from(">I", data, at + 12)[0]
    out = []
    for g in range(groups):
        start, end, glyph = struct.unpack_from(">III", data, at + 16 + 12 * g)
        if glyph == 0:
            start += 1
        if start <= end:
            out.append((start, end))
    return out


def read_cmap(path: Path) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The code points a TrueType file maps to a real glyph, as sorted merged ranges (starts, ends).

    Reads the ``cmap`` table's best Unicode subtable: format 12 (full Unicode) if there is one, else 4.
    """
    data = path.read_bytes()
    tables = struct.unpack_from(">H", data, 4)[0]
    cmap_at = next(struct.unpack_from(">I", data, 12 + 16 * i + 8)[0] for i in range(tables)
                   if data[12 + 16 * i:16 + 16 * i] == b"cmap")
    best: tuple[int, int] | None = None  # (format, offset)
    for i in range(struct.unpack_from(">H", data, cmap_at + 2)[0]):
        platform, encoding, offset = struct.unpack_from(">HHI", data, cmap_at + 4 + 8 * i)
        if (platform, encoding) not in ((3, 1), (3, 10), (0, 3), (0, 4), (0, 6)):
            continue
        fmt = struct.unpack_from(">H", data, cmap_at + offset)[0]
        if fmt in (4, 12) and (best is None or fmt > best[0]):
            best = (fmt, cmap_at + offset)
    if best is None:
        return (), ()
    ranges = sorted(_ranges_format12(data, best[1]) if best[0] == 12 else _ranges_format4(data, best[1]))
    merged: list[list[int]] = []
    for start, end in ranges:
        if merged and start <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return tuple(r[0] for r in merged), tuple(r[1] for r in merged)


@cache
def _coverage(file: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    path = FONT_DIR / file
    return read_cmap(path) if path.is_file() else ((), ())


def has_glyph(face: Face, code: int) -> bool:
    """Whether ``face`` is used for, and has a glyph of, code point ``code``."""
    if face.only is not None and not any(lo <= code <= hi for lo, hi in face.only):
        return False
    starts, ends = _coverage(face.file)
    i = bisect.bisect_right(starts, code) - 1
    return i >= 0 and code <= ends[i]


@cache
def face_of(char: str, weight: str) -> int | None:
    """Index in ``CHAINS[weight]`` of the face that draws ``char`` (None: no face has it).

    The faces kept for their own blocks (``only``) are asked first, then the others in the chain's order.
    """
    code = ord(char)
    chain = CHAINS[weight]
    for i in sorted(range(len(chain)), key=lambda i: chain[i].only is None):  # a script's own face first
        if has_glyph(chain[i], code):
            return i
    return None


@cache
def shaping() -> bool:
    """Whether the ``shaped`` faces are drawn through a shaper: where this Pillow has raqm."""
    return bool(features.check("raqm"))


@cache
def chain_font(index: int, size: int, weight: str) -> Font:
    """Face ``index`` of the ``weight`` chain at ``size`` pixels: basic layout (the same on every machine), or
    raqm for a ``shaped`` face where it can (:func:`shaping`)."""
    face = CHAINS[weight][index]
    path = FONT_DIR / face.file
    if not path.is_file():
        path = FONT_DIR / CHAINS[weight][PRIMARY].file
    layout = ImageFont.Layout.RAQM if face.shaped and shaping() else ImageFont.Layout.BASIC
    return ImageFont.truetype(str(path), size, layout_engine=layout)


def font(size: int, weight: str = "regular") -> Font:
    """The primary face of ``weight`` (``regular``, ``bold`` or ``condensed`` bold) at ``size`` pixels."""
    return chain_font(PRIMARY, size, weight)


CAP_SAMPLE = "H0123456789"
"""What a text's height is measured on: a capital and the digits (the ink from baseline to their tops)."""


@cache
def cap_height(size: int, weight: str = "regular") -> int:
    """How tall capitals and digits of the primary face are at ``size`` (pixels, from the face's outlines)."""
    _left, top, _right, bottom = font(size, weight).getbbox(CAP_SAMPLE, anchor="ls")
    return round(bottom - top)


@cache
def ascent(size: int, weight: str = "regular") -> int:
    """How far the primary face's ascender stands above the baseline at ``size`` (pixels): where the first baseline
    of a block of lines goes below its top."""
    return int(font(size, weight).getmetrics()[0])


@cache
def line_height(size: int, weight: str = "regular") -> int:
    """How tall a line of the primary face is at ``size``, from its ascender to its descender (pixels)."""
    ascent, descent = font(size, weight).getmetrics()
    return ascent + descent


@cache
def size_for(cap: float, weight: str = "regular") -> int:
    """The smallest font size whose :func:`cap_height` is at least ``cap`` pixels."""
    size = max(1, int(cap))
    while cap_height(size, weight) < cap:
        size += 1
    return size
