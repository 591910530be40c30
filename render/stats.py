"""``render_stats``: a player's history as a picture: their rating after each rated game and their score in each
game, two line charts side by side.

A pure function of the numbers (and the two titles, already in the reader's language): no view, no database.
Layers: background; per panel a card, its title, the grid with its values, the game numbers under the chart (every
game while there are few, else the first and the last), the line (drawn at twice the size and reduced, so it is
smooth) with a dot on each game when there are few, and the last value at the line's end. A single game is a dot in
the middle of its panel, with its value above it and the grid around it, so the picture reads after one game too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from PIL import Image, ImageDraw

from render.draw import fit, text
from render.encode import encode
from render.theme import DEFAULT_THEME, RGB, Theme

WIDTH = 1200
"""The picture's width in pixels, whatever the board's; it is ``WIDTH / 3`` high."""


def _grid_step(span: float) -> int:
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500):
        if span / step <= 6:
            return step
    return 1000


def _range(series: Sequence[float]) -> tuple[int, int, int]:
    """The grid's ``bottom``, ``top`` and ``step`` for the values; a single value sits in the middle of its range."""
    low, high = min(series), max(series)
    if len(series) == 1:
        step = _grid_step(max(2.0, abs(high) / 4))
        return step * math.floor((low - step) / step), step * math.ceil((high + step) / step), step
    step = _grid_step(max(1.0, high - low))
    bottom = step * math.floor(low / step)
    return bottom, max(bottom + step, step * math.ceil(high / step)), step


def _ticks(count: int) -> list[int]:
    """The games (0-based) numbered under the chart: all of up to 12, else the first and the last."""
    return list(range(count)) if count <= 12 else [0, count - 1]


def render_stats(ratings: Sequence[float], scores: Sequence[int], *, titles: tuple[str, str],
                 theme: Theme = DEFAULT_THEME) -> bytes:
    """PNG bytes: ``ratings`` (oldest first; may be empty) on the left, ``scores`` (oldest first) on the right."""
    width = WIDTH
    height = width // 3
    img = Image.new("RGB", (width, height), theme.background)
    pad = round(width / 60)
    half = (width - 3 * pad) // 2
    for i, (series, title, colour) in enumerate(((ratings, titles[0], theme.players[1]),
                                                 (scores, titles[1], theme.players[2]))):
        x0 = pad + i * (half + pad)
        _panel(img, (x0, pad, x0 + half, height - pad), list(series), title, colour, theme)
    return encode(img, None, theme)


def _panel(img: Image.Image, rect: tuple[int, int, int, int], series: list[float], title: str, colour: RGB,
           theme: Theme) -> None:
    d = ImageDraw.Draw(img)
    x0, y0, x1, y1 = rect  # the card; the chart inside it leaves room for the values on the left
    u = img.width / 1200
    d.rounded_rectangle(rect, radius=round(10 * u), fill=theme.card, outline=theme.card_edge,
                        width=max(1, round(2 * u)))
    line, size = fit(title, round(24 * u), x1 - x0 - 30 * u, "bold")
    text(img, x0 + 16 * u, y0 + 14 * u, line, size, theme.text, weight="bold")
    cx0, cy0, cx1, cy1 = x0 + round(70 * u), y0 + round(60 * u), x1 - round(60 * u), y1 - round(44 * u)
    if not series:
        d.line([(cx0, cy1), (cx1, cy1)], fill=theme.chart_grid, width=max(1, round(2 * u)))
        return
    bottom, top, step = _range(series)

    def py(v: float) -> float:
        return cy1 - (v - bottom) / (top - bottom) * (cy1 - cy0)

    def px(i: int) -> float:
        if len(series) == 1:
            return (cx0 + cx1) / 2
        return cx0 + (i / (len(series) - 1)) * (cx1 - cx0)

    k = 2
    big = Image.new("RGB", ((cx1 - cx0 + 20) * k, (cy1 - cy0 + 20) * k), theme.card)
    bd = ImageDraw.Draw(big)
    for v in range(int(bottom), int(top) + 1, step):
        y = (py(v) - cy0 + 10) * k
        bd.line([(10 * k, y), ((cx1 - cx0 + 10) * k, y)], fill=theme.chart_grid, width=max(1, round(u * k)))
        text(img, cx0 - 14 * u, py(v), str(v), round(16 * u), theme.muted, anchor="rm")
    for i in _ticks(len(series)):
        text(img, px(i), cy1 + 14 * u, str(i + 1), round(16 * u), theme.muted, anchor="mt")
    points = [((px(i) - cx0 + 10) * k, (py(v) - cy0 + 10) * k) for i, v in enumerate(series)]
    if len(points) > 1:
        bd.line(points, fill=colour, width=round(4 * u * k), joint="curve")
    if len(points) <= 30:
        r = (9 if len(points) == 1 else 5) * u * k
        for x, y in points:
            bd.ellipse((x - r, y - r, x + r, y + r), fill=colour)
    img.paste(big.reduce(k), (cx0 - 10, cy0 - 10))
    last = f"{series[-1]:g}"
    if len(series) == 1:
        text(img, px(0), py(series[0]) - 16 * u, last, round(26 * u), theme.text, weight="bold", anchor="mb")
    else:
        text(img, px(len(series) - 1) + 10 * u, py(series[-1]), last, round(18 * u), theme.text, weight="bold",
             anchor="lm")
