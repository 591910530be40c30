"""The board picture's score track: its 50 cells in two rows (drawn once into the static picture, the same in every
language), their title and what a ring means (in the picture's language), and the players' markers on it. How tall
its bands are is :func:`render.layout.track_bands`'s."""

from __future__ import annotations

from PIL import Image, ImageDraw

from engine.types import PlayerView, View
from i18n import t
from render.draw import paste, text, text_width
from render.icons import icon, marker, marker_width
from render.layout import LINE_SPACING, TRACK_ROWS, Layout, Rect, track_bands, track_title_lines
from render.theme import Theme

TRACK_CELLS = 50


def track_cells(lay: Layout) -> list[Rect]:
    """The 50 cells of the score track, 0 to 49, in two rows."""
    x0, y0, x1, y1 = lay.track
    title_h, _number_h = track_bands(lay.unit, lay.line_size, x1 - x0)
    per_row = TRACK_CELLS // TRACK_ROWS
    cw = (x1 - x0) / per_row
    ch = (y1 - y0 - title_h) / TRACK_ROWS
    cells = []
    for v in range(TRACK_CELLS):
        row, col = divmod(v, per_row)
        cells.append((round(x0 + col * cw), round(y0 + title_h + row * ch), round(x0 + (col + 1) * cw) - 2,
                      round(y0 + title_h + (row + 1) * ch) - 2))
    return cells


def paint_track_title(img: Image.Image, lay: Layout, theme: Theme, locale: str) -> None:
    """The score track's title and what a ring means, at the last move's size (readable on a phone), in the band
    above the cells, which the static picture leaves empty."""
    u = lay.unit
    size = lay.line_size
    x0, y0, x1, _y1 = lay.track
    lines = track_title_lines(u, size, x1 - x0)
    step = LINE_SPACING * size
    cy = y0 + 2 * u + step / 2
    title = t("render.track.title", locale)
    text(img, x0 + 4 * u, cy, title, size, theme.text, weight="bold", anchor="lm")
    lap = icon("lap", round(size * 1.1), theme)
    hx = x0 + 4 * u + text_width(title, size, "bold") + 20 * u
    if lines > 1:  # what a ring means on a line of its own
        hx, cy = x0 + 4 * u, cy + step
    paste(img, lap, hx, cy - lap.height / 2)
    text(img, hx + lap.width + 8 * u, cy, t("render.track.hint", locale), size, theme.muted, anchor="lm")


def paint_track_static(img: Image.Image, lay: Layout, theme: Theme) -> None:
    """The score track's numbered cells, the numbers at the last move's size; the fives in bold."""
    u = lay.unit
    size = lay.line_size
    d = ImageDraw.Draw(img)
    for v, (cx0, cy0, cx1, cy1) in enumerate(track_cells(lay)):
        fill = theme.track_cell if (v // 5) % 2 == 0 else theme.track_cell_alt
        d.rounded_rectangle((cx0, cy0, cx1, cy1), radius=round(5 * u), fill=fill)
        if v % 5 == 0:  # the fives only, at a size a phone shows: the cells' shades group the others by five
            text(img, cx0 + 4 * u, cy0 + 2 * u, str(v), size, theme.text, weight="bold")


def paint_track(img: Image.Image, lay: Layout, view: View, theme: Theme, marks: list[str]) -> None:
    """The players' markers on the 0–49 track, in track order (a later arrival stands behind), below each cell's
    number (three or four on one cell fill it, number included)."""
    _title_h, number_h = track_bands(lay.unit, lay.line_size, lay.track[2] - lay.track[0])
    cells = track_cells(lay)
    by_cell: dict[int, list[PlayerView]] = {}
    players = view["players"]
    for seat in view.get("ranking", [p["seat"] for p in players]):
        p = players[seat]
        by_cell.setdefault(int(p["track"]) % TRACK_CELLS, []).append(p)
    for value, group in by_cell.items():
        cx0, cy0, cx1, cy1 = cells[value]
        w = cx1 - cx0
        n = len(group)
        if n <= 2:  # in the band below the number
            top, h = cy0 + number_h, cy1 - cy0 - number_h
            room = min(w / n, h) * 0.92
            spots = [(0.5, 0.5)] if n == 1 else [(0.25, 0.5), (0.75, 0.5)]
        else:
            top, h = cy0, cy1 - cy0
            room = min(w, h) * 0.48
            spots = [(0.25, 0.26), (0.75, 0.26), (0.25, 0.75), (0.75, 0.75)]
        for p, (fx, fy) in reversed(list(zip(group, spots, strict=False))):
            seat = p["seat"]
            laps = int(p.get("laps", 0))
            size = max(4, int(room))
            while size > 4 and marker_width(size, laps) > room:  # the rings inside the cell too
                size -= 1
            m = marker(size, theme.player(seat), theme.ink(seat), marks[seat], laps, theme.lap_ring)
            x = min(max(cx0, cx0 + fx * w - m.width / 2), cx1 - m.width)
            y = min(max(top, top + fy * h - m.height / 2), cy1 - m.height)
            paste(img, m, x, y)
