"""Text across the font chain: visual order, Arabic joining, and one run per face.

A line is laid out in three steps, all of them pure functions of the string (cached), independent of size:

1. **shaping** in logical order: Arabic letters take their joined forms (``arabic_reshaper``: initial,
   medial, final, lam-alef); Devanagari is left to its face's shaper (:func:`render.fonts.shaping`: conjuncts,
   reph, the short i before its cluster), or, where Pillow has none, its short i (ि) moves before its cluster;
2. **bidirectional order** for a left-to-right line (the pictures' languages are all left-to-right): the
   rules of the Unicode bidirectional algorithm that matter for one line of names and labels (strong
   types, numbers after Arabic, bracket pairs, neutrals between runs of one direction, mirrored brackets),
   so that "to move محمد" reads with the name in its right place and "محمد (3)" with its number in brackets;
3. **runs**: the visual string cut where the face changes (:func:`render.fonts.face_of`, character by
   character; combining marks stay with their base; invisible joiners and selectors are dropped).

:func:`length`, :func:`bbox` and :func:`draw` then measure and draw the runs at a size, baseline to
baseline on the primary face's metrics, with Pillow's anchors (``la``, ``lm``, ``mm``, ``rs``…).
:func:`without_last_letter` and :func:`letters_within` shorten a text between two written letters (never
between a letter and its sign, nor inside a conjunct), for a name or a message cut to fit.
"""

from __future__ import annotations

import math
import unicodedata
from functools import lru_cache
from typing import Final

import arabic_reshaper
from PIL import ImageDraw

from render.fonts import ARABIC, CHAINS, PRIMARY, chain_font, face_of, has_glyph, shaping

Ink = tuple[int, ...] | int
"""A colour as Pillow takes it (RGB, RGBA, or one value for a mask)."""

Run = tuple[str, int]
"""A piece of text in visual order and the index of the face that draws it."""

_RTL = frozenset(("R", "AL"))
_NEUTRAL = frozenset(("B", "S", "WS", "ON", "ES", "ET", "CS", "BN", "NSM", ""))
_MIRROR = dict(zip("()[]{}<>«»‹›", ")(][}{><»«›‹", strict=True))
_DROP = frozenset(("\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u2060", "\ufeff",
                   *(chr(c) for c in range(0xFE00, 0xFE10)), "\u061c"))
"""Invisible characters with no glyph of their own (joiners, marks, variation selectors)."""
_DEVANAGARI_I = "\u093f"
_VIRAMA, _NUKTA = "\u094d", "\u093c"
_VIRAMA_CLASS: Final = 9
"""The canonical combining class of a virama (Devanagari ्, Tamil ், Bengali ্ …)."""
_MODIFIERS: Final = frozenset(chr(c) for c in range(0x1F3FB, 0x1F400))
"""The emoji skin tones, which belong to the emoji before them."""
_JOINERS: Final = frozenset("\u200c\u200d\ufe0e\ufe0f")
"""Zero-width (non-)joiner and the text/emoji variation selectors."""


def _is_arabic(c: str) -> bool:
    return any(lo <= ord(c) <= hi for lo, hi in ARABIC)


def _is_devanagari_consonant(c: str) -> bool:
    return "\u0915" <= c <= "\u0939" or "\u0958" <= c <= "\u095f" or "\u0978" <= c <= "\u097f"


def _devanagari(s: str) -> str:
    """Move each short i (ि), which is typed after its consonant cluster, before it as it is written."""
    chars = list(s)
    for i, c in enumerate(chars):
        if c != _DEVANAGARI_I or i == 0:
            continue
        j = i - 1
        if chars[j] == _NUKTA:
            j -= 1
        if j < 0 or not _is_devanagari_consonant(chars[j]):
            continue
        while j >= 2 and chars[j - 1] == _VIRAMA and _is_devanagari_consonant(chars[j - 2]):
            j -= 2
        chars[j + 1:i + 1] = chars[j:i]
        chars[j] = c
    return "".join(chars)


def shape(s: str) -> str:
    """``s`` with Arabic letters in their joined forms and, unless its face shapes Devanagari itself, Devanagari's
    short i before its cluster."""
    if any(_is_arabic(c) for c in s):
        s = arabic_reshaper.reshape(s)
    if _DEVANAGARI_I in s and not shaping():
        s = _devanagari(s)
    return s


_OPENING: Final = {"(": ")", "[": "]", "{": "}"}


def _bracket_pairs(s: str, strong: list[str]) -> None:
    """N0 on a left-to-right line: a pair of brackets takes the direction of what it encloses, so that "محمد (3)"
    keeps its number in its brackets. A pair enclosing left-to-right text is left-to-right; one enclosing only
    right-to-left text (numbers after Arabic count as such) is right-to-left when right-to-left text comes before it
    too, else left-to-right; an empty pair is left to N1. ``strong`` ("L", "R" or "" per character) is set."""
    pairs: list[tuple[int, int]] = []
    stack: list[tuple[str, int]] = []
    for i, c in enumerate(s):
        if c in _OPENING:
            stack.append((_OPENING[c], i))
        elif stack and c == stack[-1][0]:
            pairs.append((stack.pop()[1], i))
    for opening, closing in sorted(pairs):
        inside = set(strong[opening + 1:closing]) - {""}
        if not inside:
            continue
        before = next((strong[k] for k in range(opening - 1, -1, -1) if strong[k]), "L")
        direction = "L" if "L" in inside or before == "L" else "R"
        strong[opening] = strong[closing] = direction


def _levels(s: str) -> list[int]:
    """Embedding levels of ``s`` on a left-to-right line (0 left-to-right, 1 right-to-left, 2 numbers in it)."""
    types = [unicodedata.bidirectional(c) for c in s]
    last_strong = "L"
    for i, t in enumerate(types):  # W1 non-spacing marks, W2 numbers after Arabic, W3
        if t == "NSM":
            t = types[i] = types[i - 1] if i else "L"
        if t == "EN" and last_strong == "AL":
            types[i] = "AN"
        elif t in ("L", "R", "AL"):
            last_strong = t
    types = ["R" if t == "AL" else t for t in types]
    for i, t in enumerate(types):  # W4 a separator between two numbers of one kind; W5 terminators of numbers
        if t in ("ES", "CS") and 0 < i < len(s) - 1 and types[i - 1] == types[i + 1] and types[i - 1] in ("EN", "AN"):
            if t == "CS" or types[i - 1] == "EN":
                types[i] = types[i - 1]
        elif t == "ET" and ((i and types[i - 1] == "EN") or (i + 1 < len(s) and types[i + 1] == "EN")):
            types[i] = "EN"
    last_strong = "L"
    for i, t in enumerate(types):  # W7 European numbers after left-to-right text are left-to-right
        if t in ("L", "R"):
            last_strong = t
        elif t == "EN" and last_strong == "L":
            types[i] = "L"
    strong = ["R" if t in ("R", "EN", "AN") else "L" if t == "L" else "" for t in types]
    _bracket_pairs(s, strong)
    i = 0
    while i < len(s):  # N1, N2: neutrals between two of one direction take it, others the line's (L)
        if strong[i]:
            i += 1
            continue
        j = i
        while j < len(s) and not strong[j]:
            j += 1
        before = strong[i - 1] if i else "L"
        after = strong[j] if j < len(s) else "L"
        fill = before if before == after else "L"
        for k in range(i, j):
            strong[k] = fill
        i = j
    levels = [2 if t in ("EN", "AN") and strong[k] == "R" else 1 if strong[k] == "R" else 0
              for k, t in enumerate(types)]
    k = len(s) - 1
    while k >= 0 and types[k] in ("WS", "S", "B", "BN"):  # L1 trailing white space at the line's level
        levels[k] = 0
        k -= 1
    return levels


def visual(s: str) -> str:
    """``s`` (logical order) in the order it is drawn from left to right, brackets mirrored in right-to-left."""
    if not any(unicodedata.bidirectional(c) in _RTL for c in s):
        return s
    levels = _levels(s)
    chars = [(_MIRROR.get(c, c) if lvl % 2 else c) for c, lvl in zip(s, levels, strict=True)]
    for level in range(max(levels), 0, -1):  # L2 reverse every run at this level or higher
        i = 0
        while i < len(chars):
            if levels[i] < level:
                i += 1
                continue
            j = i
            while j < len(chars) and levels[j] >= level:
                j += 1
            chars[i:j] = chars[i:j][::-1]
            levels[i:j] = levels[i:j][::-1]
            i = j
    return "".join(chars)


@lru_cache(maxsize=8192)
def runs(s: str, weight: str = "regular") -> tuple[Run, ...]:
    """``s`` in visual order, cut into runs of one face each (see the module's docstring)."""
    chain = CHAINS[weight]
    texts: list[str] = []
    faces: list[int] = []
    for c in visual(shape(s)):
        if c in _DROP:
            continue
        if texts and unicodedata.category(c).startswith("M") and has_glyph(chain[faces[-1]], ord(c)):
            texts[-1] += c  # a combining mark stays with its base when that face has it
            continue
        face = face_of(c, weight)
        index = PRIMARY if face is None else face
        if texts and faces[-1] == index:
            texts[-1] += c
        else:
            texts.append(c)
            faces.append(index)
    return tuple(zip(texts, faces, strict=True))


def _as_drawn(text: str, index: int, weight: str) -> tuple[str, str | None]:
    """A run as its face takes it, and the direction to give Pillow: a right-to-left run of a face drawn through a
    shaper (Syriac, Thaana) goes back to logical order with ``rtl``, so that the shaper joins its letters and places
    its marks; any other run is drawn as it is, in visual order (``None``)."""
    if CHAINS[weight][index].shaped and shaping() and any(unicodedata.bidirectional(c) in _RTL for c in text):
        return text[::-1], "rtl"
    return text, None


def _baseline(size: int, weight: str, anchor: str) -> float:
    """Where the baseline lies below the anchor point for the vertical part of ``anchor`` (primary face)."""
    f = chain_font(PRIMARY, size, weight)
    ascent, descent = f.getmetrics()
    return {"a": ascent, "t": ascent, "m": (ascent - descent) / 2, "s": 0.0, "b": -descent, "d": -descent}[anchor[1]]


def length(s: str, size: int, weight: str = "regular") -> float:
    """The width of ``s`` drawn at ``size`` (advance, like Pillow's ``getlength``)."""
    return sum(_advance(text, i, size, weight) for text, i in runs(s, weight))


def _advance(text: str, index: int, size: int, weight: str) -> float:
    drawn, direction = _as_drawn(text, index, weight)
    return chain_font(index, size, weight).getlength(drawn, direction=direction)


def bbox(s: str, size: int, weight: str = "regular", anchor: str = "la") -> tuple[float, float, float, float]:
    """The ink box of ``s`` relative to the anchor point (left, top, right, bottom)."""
    parts = runs(s, weight)
    if len(parts) == 1 and parts[0][1] == PRIMARY:
        return chain_font(PRIMARY, size, weight).getbbox(parts[0][0], anchor=anchor)
    x, y = _origin(s, size, weight, anchor)
    left = top = math.inf
    right = bottom = -math.inf
    for text, i in parts:
        drawn, direction = _as_drawn(text, i, weight)
        f = chain_font(i, size, weight)
        l_, t_, r_, b_ = f.getbbox(drawn, anchor="ls", direction=direction)
        left, top = min(left, x + l_), min(top, y + t_)
        right, bottom = max(right, x + r_), max(bottom, y + b_)
        x += f.getlength(drawn, direction=direction)
    if left == math.inf:
        return (0.0, 0.0, 0.0, 0.0)
    return (left, top, right, bottom)


def _origin(s: str, size: int, weight: str, anchor: str) -> tuple[float, float]:
    """Start of the baseline relative to the anchor point."""
    w = length(s, size, weight)
    x = {"l": 0.0, "m": -w / 2, "r": -w}[anchor[0]]
    return x, _baseline(size, weight, anchor)


def draw(d: ImageDraw.ImageDraw, xy: tuple[float, float], s: str, size: int, fill: Ink, *,
         weight: str = "regular", anchor: str = "la", stroke_width: int = 0, stroke_fill: Ink | None = None) -> None:
    """Draw ``s`` at ``xy`` with its ``anchor`` through the font chain (the primary face alone when it has all)."""
    parts = runs(s, weight)
    if len(parts) == 1 and parts[0][1] == PRIMARY:
        d.text(xy, parts[0][0], font=chain_font(PRIMARY, size, weight), fill=fill, anchor=anchor,
               stroke_width=stroke_width, stroke_fill=stroke_fill)
        return
    dx, dy = _origin(s, size, weight, anchor)
    x, y = xy[0] + dx, xy[1] + dy
    for text, i in parts:
        drawn, direction = _as_drawn(text, i, weight)
        f = chain_font(i, size, weight)
        d.text((x, y), drawn, font=f, fill=fill, anchor="ls", stroke_width=stroke_width, stroke_fill=stroke_fill,
               direction=direction)
        x += f.getlength(drawn, direction=direction)


def without_last_letter(s: str) -> str:
    """``s`` without its last written letter: a base character with the marks after it (an accent, a vowel
    sign), and, where a virama joined it to the letter before (a conjunct such as क्ष), that letter too; an
    invisible joiner or selector left at the end goes with it. Cutting a name there never leaves half a letter."""
    end = len(s)
    while True:
        while end and (unicodedata.category(s[end - 1]).startswith("M") or s[end - 1] in _MODIFIERS):
            end -= 1  # the marks of the last letter (an emoji's skin tone too)
        end = max(0, end - 1)  # its base
        while end and s[end - 1] in _JOINERS:
            end -= 1
        if not (end and unicodedata.combining(s[end - 1]) == _VIRAMA_CLASS):
            return s[:end]
        end -= 1  # a virama joined the letter before to the one just cut: the conjunct goes whole


def letters_within(s: str, limit: int) -> str:
    """The longest start of ``s`` of at most ``limit`` characters that ends between two letters: one character
    more, less the letter that character belongs to (itself, when it begins one)."""
    return s if len(s) <= limit else without_last_letter(s[:limit + 1])
