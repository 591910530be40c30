"""``render_stats``: a player's history as a picture: their rating after each rated game and their score in each
game, two line charts side by side.

A pure function of the numbers (and the two titles, already in the reader's language): no view, no database.
Layers: background; per panel a card, its title, the grid with its values, the line (drawn at twice the size
and reduced, so it is smooth) with a dot on each game when there are few, and the last value at the line's end.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from PIL import Image, ImageDraw

from render.draw import fit, text
from render.encode import encode
from render.theme import DEFAULT_THEME, RGB, Theme

WIDTH_RATIO = 0.75
"""The picture is ``theme.width * WIDTH_RATIO`` pixels wide (1200 by default) and ``width / 3`` high."""


def _grid_step(span: float) -> int:
    for step in (1, 2, 5, 10, 20, 25, 50, 100):
        if span / step <= 6:
            return step
    return 200


def render_stats(ratings: Sequence[float], scores: Sequence[int], *, titles: tuple[str, str],
                 theme: Theme = DEFAULT_THEME) -> bytes:
    """PNG bytes: ``ratings`` (oldest first; may be empty) on the left, ``scores`` (oldest first) on the right."""
    width = round(theme.width * WIDTH_RATIO)
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
    cx0, cy0, cx1, cy1 = x0 + round(70 * u), y0 + round(60 * u), x1 - round(60 * u), y1 - round(20 * u)
    if not series:
        d.line([(cx0, cy1), (cx1, cy1)], fill=theme.chart_grid, width=max(1, round(2 * u)))
        return
    low, high = min(series), max(series)
    step = _grid_step(max(1.0, high - low))
    bottom = step * math.floor(low / step)
    top = max(bottom + step, step * math.ceil(high / step))

    def py(v: float) -> float:
        return cy1 - (v - bottom) / (top - bottom) * (cy1 - cy0)

    def px(i: int) -> float:
        return cx0 + (i / max(1, len(series) - 1)) * (cx1 - cx0)

    k = 2
    big = Image.new("RGB", ((cx1 - cx0 + 20) * k, (cy1 - cy0 + 20) * k), theme.card)
    bd = ImageDraw.Draw(big)
    for v in range(int(bottom), int(top) + 1, step):
        y = (py(v) - cy0 + 10) * k
        bd.line([(10 * k, y), ((cx1 - cx0 + 10) * k, y)], fill=theme.chart_grid, width=max(1, round(u * k)))
        text(img, cx0 - 14 * u, py(v), str(v), round(16 * u), theme.muted, anchor="rm")
    points = [((px(i) - cx0 + 10) * k, (py(v) - cy0 + 10) * k) for i, v in enumerate(series)]
    bd.line(points if len(points) > 1 else points * 2, fill=colour, width=round(4 * u * k), joint="curve")
    if len(points) <= 30:
        r = 5 * u * k
        for x, y in points:
            bd.ellipse((x - r, y - r, x + r, y + r), fill=colour)
    img.paste(big.reduce(k), (cx0 - 10, cy0 - 10))
    text(img, px(len(series) - 1) + 10 * u, py(series[-1]), f"{series[-1]:g}", round(18 * u), theme.text,
         weight="bold", anchor="lm")
