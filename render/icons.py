"""The project's own icons, drawn with Pillow primitives: buildings, resources, bird, cards, marks.

``paint_icon(draw, name, x, y, s, theme)`` draws icon ``name`` into the square (x, y, s) of a drawing
(used inside supersampled sprites such as tiles); :func:`icon` returns one icon as a cached,
anti-aliased RGBA sprite. :func:`piece` is a player's building: the building's silhouette in the
player's colour with the player's letter on it (the second cue besides colour).
"""

from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageDraw

from render import script
from render.draw import SS, sprite
from render.fonts import font
from render.theme import RGB, Theme

ICONS = ("house", "church", "lighthouse", "fish", "sheep", "wood", "sugar", "gold", "bird", "ship", "river",
         "road", "double", "scoring", "chip", "tick", "flag", "reveal", "destroy", "points", "lap", "turn")
"""Every icon name :func:`icon` knows."""

DARK: RGB = (40, 34, 30)
WHITE: RGB = (255, 255, 255)

HOUSE = [(0.5, 0.05), (0.97, 0.47), (0.85, 0.47), (0.85, 0.96), (0.15, 0.96), (0.15, 0.47), (0.03, 0.47)]
CHURCH = [(0.04, 0.96), (0.04, 0.40), (0.21, 0.03), (0.38, 0.40), (0.38, 0.50), (0.67, 0.28), (0.97, 0.50),
          (0.97, 0.96)]
LIGHTHOUSE = [(0.16, 0.96), (0.28, 0.38), (0.22, 0.38), (0.22, 0.28), (0.35, 0.28), (0.35, 0.13), (0.5, 0.02),
              (0.65, 0.13), (0.65, 0.28), (0.78, 0.28), (0.78, 0.38), (0.72, 0.38), (0.84, 0.96)]
SILHOUETTES = {"house": HOUSE, "church": CHURCH, "lighthouse": LIGHTHOUSE}
LETTER_SPOT = {"house": (0.5, 0.71), "church": (0.52, 0.74), "lighthouse": (0.5, 0.72)}
"""Where a piece's letter sits, in the unit square of its silhouette."""


def _pts(poly: list[tuple[float, float]], x: float, y: float, s: float) -> list[tuple[float, float]]:
    return [(x + px * s, y + py * s) for px, py in poly]


def _box(x: float, y: float, s: float, x0: float, y0: float, x1: float, y1: float) -> list[float]:
    return [x + x0 * s, y + y0 * s, x + x1 * s, y + y1 * s]


def _darker(c: RGB, f: float = 0.62) -> RGB:
    return (int(c[0] * f), int(c[1] * f), int(c[2] * f))


def paint_icon(d: ImageDraw.ImageDraw, name: str, x: float, y: float, s: float, theme: Theme,
               color: RGB | None = None) -> None:
    """Draw icon ``name`` into the square at (x, y) of side ``s`` (drawing pixels)."""
    lw = max(1, round(s * 0.06))
    if name in SILHOUETTES:
        fill = color or theme.tile_ink
        d.polygon(_pts(SILHOUETTES[name], x, y, s), fill=fill, outline=_darker(fill, 0.5), width=lw)
        if name == "house":
            d.rectangle(_box(x, y, s, 0.42, 0.66, 0.58, 0.96), fill=WHITE)
        elif name == "church":
            d.rectangle(_box(x, y, s, 0.17, 0.52, 0.25, 0.68), fill=WHITE)
            d.rectangle(_box(x, y, s, 0.60, 0.62, 0.74, 0.96), fill=WHITE)
        else:
            d.rectangle(_box(x, y, s, 0.40, 0.16, 0.60, 0.25), fill=theme.gold)
            d.polygon(_pts([(0.31, 0.50), (0.69, 0.50), (0.72, 0.62), (0.28, 0.62)], x, y, s), fill=WHITE)
            d.polygon(_pts([(0.26, 0.76), (0.74, 0.76), (0.77, 0.88), (0.23, 0.88)], x, y, s), fill=WHITE)
    elif name == "fish":
        c = color or theme.fish
        d.polygon(_pts([(0.62, 0.5), (0.96, 0.2), (0.9, 0.5), (0.96, 0.8)], x, y, s), fill=c,
                  outline=_darker(c), width=lw)
        d.ellipse(_box(x, y, s, 0.04, 0.24, 0.74, 0.76), fill=c, outline=_darker(c), width=lw)
        d.ellipse(_box(x, y, s, 0.16, 0.38, 0.28, 0.5), fill=WHITE)
        d.ellipse(_box(x, y, s, 0.19, 0.41, 0.25, 0.47), fill=DARK)
    elif name == "sheep":
        for lx in (0.34, 0.66):
            d.line([(x + lx * s, y + 0.6 * s), (x + lx * s, y + 0.94 * s)], fill=DARK, width=max(1, round(s * 0.1)))
        blobs = [(0.42, 0.38), (0.62, 0.36), (0.78, 0.5), (0.6, 0.6), (0.4, 0.6), (0.3, 0.48)]
        r = 0.2
        for bx, by in blobs:
            d.ellipse(_box(x, y, s, bx - r - 0.05, by - r - 0.05, bx + r + 0.05, by + r + 0.05), fill=DARK)
        for bx, by in blobs:
            d.ellipse(_box(x, y, s, bx - r, by - r, bx + r, by + r), fill=color or theme.sheep)
        d.ellipse(_box(x, y, s, 0.02, 0.3, 0.28, 0.6), fill=DARK)
    elif name == "wood":
        c = color or theme.wood
        for cx, cy in ((0.28, 0.7), (0.72, 0.7), (0.5, 0.32)):
            d.ellipse(_box(x, y, s, cx - 0.24, cy - 0.24, cx + 0.24, cy + 0.24), fill=c, outline=_darker(c, 0.5),
                      width=lw)
            d.ellipse(_box(x, y, s, cx - 0.12, cy - 0.12, cx + 0.12, cy + 0.12), outline=(214, 170, 110),
                      width=lw)
    elif name == "sugar":
        c = color or theme.sugar
        for sx, tilt in ((0.24, -0.06), (0.5, 0.0), (0.76, 0.06)):
            top, bot = (x + (sx + tilt) * s, y + 0.06 * s), (x + sx * s, y + 0.96 * s)
            d.line([bot, top], fill=_darker(c, 0.55), width=max(2, round(s * 0.2)))
            d.line([bot, top], fill=c, width=max(1, round(s * 0.13)))
            for f in (0.33, 0.62):
                nx = bot[0] + (top[0] - bot[0]) * f
                ny = bot[1] + (top[1] - bot[1]) * f
                d.line([(nx - 0.09 * s, ny), (nx + 0.09 * s, ny)], fill=_darker(c, 0.55), width=lw)
        d.polygon(_pts([(0.5, 0.3), (0.92, 0.02), (0.62, 0.36)], x, y, s), fill=_darker(c, 0.8))
    elif name == "gold":
        c = color or theme.gold
        for bx, by in ((0.04, 0.56), (0.5, 0.56), (0.27, 0.18)):
            poly = [(bx, by + 0.34), (bx + 0.08, by), (bx + 0.38, by), (bx + 0.46, by + 0.34)]
            d.polygon(_pts(poly, x, y, s), fill=c, outline=_darker(c, 0.55), width=lw)
            d.line([(x + (bx + 0.12) * s, y + (by + 0.09) * s), (x + (bx + 0.3) * s, y + (by + 0.09) * s)],
                   fill=(255, 244, 190), width=lw)
    elif name == "bird":
        d.ellipse(_box(x, y, s, 0.02, 0.02, 0.98, 0.98), fill=color or theme.bird_disc, outline=WHITE, width=lw)
        wing = [(0.16, 0.46), (0.34, 0.32), (0.5, 0.5), (0.66, 0.32), (0.84, 0.46), (0.66, 0.42), (0.5, 0.66),
                (0.34, 0.42)]
        d.polygon(_pts(wing, x, y, s), fill=WHITE)
    elif name == "ship":
        d.polygon(_pts([(0.04, 0.64), (0.96, 0.64), (0.8, 0.9), (0.2, 0.9)], x, y, s), fill=(150, 96, 52),
                  outline=DARK, width=lw)
        d.line([(x + 0.5 * s, y + 0.06 * s), (x + 0.5 * s, y + 0.66 * s)], fill=DARK, width=lw)
        d.polygon(_pts([(0.54, 0.1), (0.54, 0.58), (0.9, 0.58)], x, y, s), fill=WHITE, outline=DARK, width=lw)
        d.polygon(_pts([(0.46, 0.2), (0.46, 0.58), (0.16, 0.58)], x, y, s), fill=WHITE, outline=DARK, width=lw)
    elif name == "river":
        c = color or theme.river
        for row in (0.28, 0.52, 0.76):
            pts = [(x + s * (0.04 + 0.92 * i / 16), y + s * (row + 0.08 * _wave(i / 16))) for i in range(17)]
            d.line(pts, fill=c, width=max(1, round(s * 0.12)), joint="curve")
    elif name == "road":
        c = color or theme.road
        d.polygon(_pts([(0.3, 0.04), (0.7, 0.04), (0.96, 0.96), (0.04, 0.96)], x, y, s), fill=c,
                  outline=theme.road_edge, width=lw)
        for a, b in ((0.1, 0.28), (0.4, 0.58), (0.72, 0.92)):
            d.line([(x + 0.5 * s, y + a * s), (x + 0.5 * s, y + b * s)], fill=theme.road_edge,
                   width=max(1, round(s * 0.09)))
    elif name == "double":
        d.rounded_rectangle(_box(x, y, s, 0.04, 0.12, 0.96, 0.88), radius=s * 0.16, fill=(236, 228, 208),
                            outline=DARK, width=lw)
        d.text((x + 0.5 * s, y + 0.52 * s), "2×", font=font(max(1, round(s * 0.5)), "bold"), fill=DARK,
               anchor="mm")
    elif name == "scoring":
        d.rounded_rectangle(_box(x, y, s, 0.16, 0.02, 0.84, 0.98), radius=s * 0.1, fill=(244, 232, 196),
                            outline=DARK, width=lw)
        star = [(0.5, 0.22), (0.57, 0.42), (0.76, 0.42), (0.61, 0.54), (0.67, 0.74), (0.5, 0.62),
                (0.33, 0.74), (0.39, 0.54), (0.24, 0.42), (0.43, 0.42)]
        d.polygon(_pts(star, x, y, s), fill=(214, 60, 40))
    elif name == "chip":
        d.ellipse(_box(x, y, s, 0.02, 0.02, 0.98, 0.98), fill=(90, 70, 50), outline=(236, 220, 180), width=lw)
        d.ellipse(_box(x, y, s, 0.16, 0.16, 0.84, 0.84), fill=theme.bird_disc)
        wing = [(0.26, 0.48), (0.38, 0.38), (0.5, 0.52), (0.62, 0.38), (0.74, 0.48), (0.62, 0.45), (0.5, 0.64),
                (0.38, 0.45)]
        d.polygon(_pts(wing, x, y, s), fill=WHITE)
    elif name == "tick":
        d.line(_pts([(0.1, 0.52), (0.4, 0.82), (0.92, 0.16)], x, y, s), fill=color or theme.good,
               width=max(2, round(s * 0.18)), joint="curve")
    elif name == "flag":
        c = color or theme.legal
        d.line([(x + 0.22 * s, y + 0.04 * s), (x + 0.22 * s, y + 0.98 * s)], fill=DARK, width=max(2, round(s * 0.12)))
        d.polygon(_pts([(0.26, 0.04), (0.96, 0.26), (0.26, 0.5)], x, y, s), fill=c, outline=WHITE, width=lw)
    elif name == "reveal":
        c = color or theme.reveal
        star = [(0.5, 0.0), (0.61, 0.39), (1.0, 0.5), (0.61, 0.61), (0.5, 1.0), (0.39, 0.61), (0.0, 0.5),
                (0.39, 0.39)]
        d.polygon(_pts(star, x, y, s), fill=c, outline=DARK, width=max(1, lw // 2))
    elif name == "destroy":
        c = color or theme.destroy
        for start, end in (((0.12, 0.12), (0.88, 0.88)), ((0.88, 0.12), (0.12, 0.88))):
            d.line(_pts([start, end], x, y, s), fill=WHITE, width=max(3, round(s * 0.3)))
        for start, end in (((0.14, 0.14), (0.86, 0.86)), ((0.86, 0.14), (0.14, 0.86))):
            d.line(_pts([start, end], x, y, s), fill=c, width=max(2, round(s * 0.18)))
    elif name == "points":
        d.ellipse(_box(x, y, s, 0.04, 0.04, 0.96, 0.96), fill=theme.points_disc, outline=DARK, width=lw)
        d.text((x + 0.5 * s, y + 0.53 * s), "3", font=font(max(1, round(s * 0.62)), "bold"), fill=DARK,
               anchor="mm")
    elif name == "lap":
        d.ellipse(_box(x, y, s, 0.04, 0.04, 0.96, 0.96), outline=theme.lap_ring, width=max(2, round(s * 0.14)))
        d.text((x + 0.5 * s, y + 0.53 * s), "50", font=font(max(1, round(s * 0.4)), "bold"), fill=theme.lap_ring,
               anchor="mm")
    elif name == "turn":
        d.polygon(_pts([(0.15, 0.08), (0.92, 0.5), (0.15, 0.92)], x, y, s), fill=color or theme.last_move,
                  outline=DARK, width=lw)
    else:
        raise KeyError(name)


def _wave(t: float) -> float:
    return math.sin(t * 2 * math.pi * 1.5)


@lru_cache(maxsize=512)
def icon(name: str, size: int, theme: Theme, color: RGB | None = None) -> Image.Image:
    """Icon ``name`` as an anti-aliased ``size`` × ``size`` RGBA sprite."""
    return sprite(size, size, lambda d, k: paint_icon(d, name, 0, 0, size * k, theme, color))


@lru_cache(maxsize=256)
def faded(name: str, size: int, theme: Theme) -> Image.Image:
    """An icon at a third of its opacity (a resource not held)."""
    im = icon(name, size, theme).copy()
    im.putalpha(im.getchannel("A").point(lambda a: a * 30 // 100))
    return im


def paint_piece(d: ImageDraw.ImageDraw, building: str, x: float, y: float, s: float, color: RGB, ink: RGB,
                mark: str) -> None:
    """A player's building at (x, y) of size ``s``: silhouette in ``color``, outline and letter in ``ink``."""
    lw = max(2, round(s * 0.07))
    poly = _pts(SILHOUETTES[building], x, y, s)
    shadow = [(px + lw * 0.8, py + lw * 0.8) for px, py in poly]
    d.polygon(shadow, fill=(0, 0, 0, 110))
    d.polygon(poly, fill=color, outline=DARK, width=lw)
    lx, ly = LETTER_SPOT[building]
    size = round(s * (0.36 if building == "lighthouse" else 0.44))
    script.draw(d, (x + lx * s, y + ly * s), mark, max(1, size), ink, weight="bold", anchor="mm",
                stroke_width=max(1, round(s * 0.02)), stroke_fill=ink)


@lru_cache(maxsize=256)
def piece(building: str, size: int, color: RGB, ink: RGB, mark: str) -> Image.Image:
    """A player's building as a cached RGBA sprite (a little larger than ``size`` for its shadow)."""
    pad = max(2, size // 12)
    return sprite(size + pad, size + pad,
                  lambda d, k: paint_piece(d, building, 0, 0, size * k, color, ink, mark))


@lru_cache(maxsize=64)
def lap_ring(size: int) -> int:
    """The width of one 50-point ring around a marker of ``size`` pixels."""
    return max(1, round(size * 0.07))


def marker_width(size: int, laps: int) -> int:
    """The width (and height) of :func:`marker`'s sprite: the disc and its rings (three at most)."""
    return size + 2 * lap_ring(size) * max(0, min(laps, 3))


@lru_cache(maxsize=256)
def marker(size: int, color: RGB, ink: RGB, mark: str, laps: int, lap_color: RGB) -> Image.Image:
    """A score-track marker: a disc in the player's colour with the letter; a ring per 50-point lap (three at most),
    as wide as :func:`lap_ring` says, so that the sprite is :func:`marker_width` wide. Cached: a picture pastes a
    player's marker on its card, the track, the header and the played cards."""
    ring = lap_ring(size)
    pad = ring * max(0, min(laps, 3))

    def paint(d: ImageDraw.ImageDraw, k: int) -> None:
        full = (size + 2 * pad) * k
        for i in range(min(laps, 3)):
            inset = i * ring * k
            d.ellipse([inset, inset, full - inset - 1, full - inset - 1], fill=lap_color, outline=DARK, width=k)
        o = pad * k
        edge = WHITE if sum(color) < 240 else DARK  # a dark disc keeps its edge on dark panels
        d.ellipse([o, o, o + size * k - 1, o + size * k - 1], fill=color, outline=edge, width=2 * k)
        script.draw(d, (o + size * k / 2, o + size * k * 0.53), mark, round(size * k * 0.58), ink, weight="bold",
                    anchor="mm")

    return sprite(size + 2 * pad, size + 2 * pad, paint)


__all__ = ["ICONS", "SS", "icon", "lap_ring", "marker", "marker_width", "paint_icon", "paint_piece", "piece"]
