"""Small drawing helpers shared by the layers: cached text (through the font chain of :mod:`render.script`),
supersampled sprites, tile shapes.

Pillow draws polygons without anti-aliasing, so every shape that must look smooth is drawn ``SS`` times
larger on a transparent sprite and reduced with a box filter (premultiplied, so edges do not darken).
Sprites and text masks are cached: a render pastes them instead of drawing again.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from functools import lru_cache

from PIL import Image, ImageDraw

from render import script

SS = 3
"""Supersampling factor of sprites."""

Point = tuple[float, float]
RGB = tuple[int, int, int]


def sprite(w: int, h: int, paint: Callable[[ImageDraw.ImageDraw, int], None], k: int = SS) -> Image.Image:
    """A ``w`` × ``h`` RGBA sprite painted by ``paint(draw, k)`` at ``k`` times the size, then reduced."""
    big = Image.new("RGBA", (w * k, h * k), (0, 0, 0, 0))
    paint(ImageDraw.Draw(big), k)
    return big.convert("RGBa").reduce(k).convert("RGBA")


def paste(dest: Image.Image, spr: Image.Image, x: float, y: float) -> None:
    """Blend ``spr`` (RGBA) onto ``dest`` with its top-left corner at (x, y), rounded to pixels: only within the box
    its ink covers (a pixel of alpha 0 leaves ``dest`` as it was, and a tile's sprite, say, is mostly clear: its
    square has room for the rings around it), the same picture for a fraction of the blending."""
    box = spr.getbbox()  # of the alpha channel
    if box is None:
        return
    x, y = round(x), round(y)
    if box != (0, 0, *spr.size):
        spr, x, y = spr.crop(box), x + box[0], y + box[1]
    dest.paste(spr, (x, y), spr)


@lru_cache(maxsize=4096)
def _text_mask(text: str, size: int, weight: str, anchor: str) -> tuple[Image.Image, int, int]:
    left, top, right, bottom = (math.floor(v) for v in script.bbox(text, size, weight, anchor))
    mask = Image.new("L", (max(1, right - left + 1), max(1, bottom - top + 1)), 0)
    script.draw(ImageDraw.Draw(mask), (-left, -top), text, size, 255, weight=weight, anchor=anchor)
    return mask, left, top


def text(dest: Image.Image, x: float, y: float, s: str, size: int, fill: RGB, *,
         weight: str = "regular", anchor: str = "la") -> tuple[int, int, int, int]:
    """Draw ``s`` at (x, y) with a Pillow ``anchor`` (``la``, ``mm``, ``rs``…); the glyphs are cached. Returns the
    box its ink covers (left, top, right, bottom)."""
    if not s:
        return (round(x), round(y), round(x), round(y))
    mask, left, top = _text_mask(s, size, weight, anchor)
    x0, y0 = round(x) + left, round(y) + top
    dest.paste(fill, (x0, y0, x0 + mask.width, y0 + mask.height), mask)
    return (x0, y0, x0 + mask.width, y0 + mask.height)


@lru_cache(maxsize=8192)
def text_width(s: str, size: int, weight: str = "regular") -> float:
    return float(script.length(s, size, weight))


def fit(s: str, size: int, max_w: float, weight: str = "regular", min_size: int = 0) -> tuple[str, int]:
    """Shrink ``size`` (not below ``min_size``, default 70 %), then cut ``s`` with an ellipsis to fit."""
    floor = min_size or max(8, int(size * 0.7))
    while size > floor and text_width(s, size, weight) > max_w:
        size -= 1
    if text_width(s, size, weight) <= max_w:
        return s, size
    while text_width(s + "…", size, weight) > max_w:
        shorter = script.without_last_letter(s)
        if not shorter:
            break  # the first letter stays, whole
        s = shorter
    return s.rstrip() + "…", size


def wrap(s: str, size: int, max_w: float, weight: str = "regular") -> list[str]:
    """Break ``s`` into lines no wider than ``max_w`` at spaces (words are measured one by one)."""
    space = text_width(" ", size, weight)
    lines: list[str] = []
    line: list[str] = []
    width = 0.0
    for word in s.split(" "):
        ww = text_width(word, size, weight)
        if line and width + space + ww > max_w:
            lines.append(" ".join(line))
            line, width = [word], ww
        else:
            width += (space if line else 0.0) + ww
            line.append(word)
    if line:
        lines.append(" ".join(line))
    return lines


def words(dest: Image.Image, x: float, y: float, s: str, size: int, fill: RGB, *, weight: str = "regular") -> None:
    """Draw ``s`` word by word from (x, y), the left end of its baseline, so that each word's glyphs are cached."""
    space = text_width(" ", size, weight)
    for word in s.split(" "):
        if word:
            text(dest, x, y, word, size, fill, weight=weight, anchor="ls")
        x += text_width(word, size, weight) + space


# ---------------------------------------------------------------- shapes


def shape_points(kind: str, cx: float, cy: float, w: float, h: float) -> list[Point]:
    """The outline of a building site of ``kind`` in a ``w`` × ``h`` box centred on (cx, cy).

    Coast sites are ovals (a superellipse, roomier than an ellipse), land sites rectangles with
    clipped corners, volcano sites hexagons, like the printed tiles.
    """
    rx, ry = w / 2, h / 2
    if kind == "coast":
        n, e = 64, 2 / 2.8
        pts = []
        for i in range(n):
            a = 2 * math.pi * i / n
            c, s = math.cos(a), math.sin(a)
            pts.append((cx + rx * math.copysign(abs(c) ** e, c), cy + ry * math.copysign(abs(s) ** e, s)))
        return pts
    if kind == "volcano":
        q = w * 0.24
        return [(cx - rx + q, cy - ry), (cx + rx - q, cy - ry), (cx + rx, cy), (cx + rx - q, cy + ry),
                (cx - rx + q, cy + ry), (cx - rx, cy)]
    c = min(w, h) * 0.12
    return [(cx - rx + c, cy - ry), (cx + rx - c, cy - ry), (cx + rx, cy - ry + c), (cx + rx, cy + ry - c),
            (cx + rx - c, cy + ry), (cx - rx + c, cy + ry), (cx - rx, cy + ry - c), (cx - rx, cy - ry + c)]


def grow(points: Sequence[Point], cx: float, cy: float, dx: float, dy: float) -> list[Point]:
    """Scale an outline about its centre so its box grows by ``dx`` × ``dy`` on each side."""
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    sx = (max(xs) - min(xs) + 2 * dx) / max(1e-6, max(xs) - min(xs))
    sy = (max(ys) - min(ys) + 2 * dy) / max(1e-6, max(ys) - min(ys))
    return [(cx + (x - cx) * sx, cy + (y - cy) * sy) for x, y in points]


def dashed(d: ImageDraw.ImageDraw, points: Sequence[Point], fill: RGB | tuple[int, ...], width: int,
           dash: float, gap: float) -> None:
    """A closed dashed outline through ``points``."""
    pts = [*points, points[0]]
    on, left = True, dash
    for (x0, y0), (x1, y1) in itertools.pairwise(pts):
        seg = math.dist((x0, y0), (x1, y1))
        pos = 0.0
        while pos < seg:
            step = min(left, seg - pos)
            if on:
                a, b = pos / seg, (pos + step) / seg
                d.line([(x0 + (x1 - x0) * a, y0 + (y1 - y0) * a), (x0 + (x1 - x0) * b, y0 + (y1 - y0) * b)],
                       fill=fill, width=width)
            pos += step
            left -= step
            if left <= 1e-9:
                on = not on
                left = dash if on else gap


def chaikin(points: Sequence[Point], rounds: int = 2) -> list[Point]:
    """Round a closed polygon's corners (Chaikin's corner cutting)."""
    pts = list(points)
    for _ in range(rounds):
        out: list[Point] = []
        for i, (x0, y0) in enumerate(pts):
            x1, y1 = pts[(i + 1) % len(pts)]
            out.append((0.75 * x0 + 0.25 * x1, 0.75 * y0 + 0.25 * y1))
            out.append((0.25 * x0 + 0.75 * x1, 0.25 * y0 + 0.75 * y1))
        pts = out
    return pts
