"""Where everything goes: the page's areas and the board's geometry (scale, site centres, tile size).

Text that must stay readable on a phone (the header, names, site numbers, the last move, a DM's own strip, the
panel's counts, ranks and tags, the score track) gets its size from :meth:`Theme.phone_size`, so it is as tall as
the theme asks when the picture is shown 400 pixels wide; where a panel card is too narrow for a line at that size,
the line is split (measured in every language, so that the layout is the same in all of them). The header has two
lines for the same reason: whose turn and what is left of the deck and the chips, then the round and the phase.
The legend is a picture of its own (:func:`render.legend.render_legend`), so the board keeps its room.

A :class:`Layout` depends only on the static board (the view's ``board`` without its tiles and
buildings), the theme, the number of players and whether the picture is personal, so it is computed
once and cached with the base image. Coordinates are picture pixels.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass

from engine.types import BoardView
from i18n import LOCALES, t
from render.draw import text_width
from render.theme import Theme

Rect = tuple[int, int, int, int]
"""(left, top, right, bottom) in pixels."""

TILE_ASPECT = 1.38
"""Width / height of a building site's box."""
LINE_SPACING = 1.3
"""Distance between lines of text, in font sizes."""
TILE_FILL = 0.62
"""Tile height as a share of the median distance between neighbouring sites."""
PLAYED_LINES = 3
"""Lines of the scoring cards played this round, at the last move's size."""
YOU_LINES = 4
"""Lines of the personal strip (a DM's own cards, bird chips and what its flags mean), at the last move's size."""
YOU_PAD = 12
"""The personal strip's margin above and below its lines, in units of the 1600-pixel page."""


def static_board(board: BoardView) -> str:
    """The part of a view's board that never changes during a game, as canonical text (a cache key)."""
    sites = [(s["id"], s["kind"], s.get("island", ""), s["pos"]) for s in board["sites"]]
    rivers = [(r["id"], r["edges"], r.get("source"), r.get("mouth")) for r in board.get("rivers", [])]
    return json.dumps([board.get("name", ""), board.get("size"), board.get("islands", []), board.get("roads", []),
                       rivers, sites], separators=(",", ":"))


def _unit_tile_height(pos: dict[int, tuple[float, float]]) -> float:
    """A tile height (drawing units) from the median distance between each site and its nearest one."""
    nearest = sorted(min((math.dist(p, q) for b, q in pos.items() if b != a), default=60.0)
                     for a, p in pos.items())
    return TILE_FILL * nearest[len(nearest) // 2] if nearest else 40.0


def relax(pos: dict[int, tuple[float, float]], w: float, h: float, rounds: int = 60) -> dict[int, tuple[float, float]]:
    """Nudge sites apart until no two ``w`` × ``h`` boxes around them overlap (or ``rounds`` pass).

    Only sites that are closer than a tile move, each by half the overlap along the easier axis; the
    drawn roads and rivers follow the nudged centres, so the picture stays consistent.
    """
    out = dict(pos)
    ids = sorted(out)
    for _ in range(rounds):
        moved = False
        for a, b in itertools.combinations(ids, 2):
            (xa, ya), (xb, yb) = out[a], out[b]
            dx, dy = xb - xa, yb - ya
            ox, oy = w - abs(dx), h - abs(dy)
            if ox <= 0 or oy <= 0:
                continue
            moved = True
            if ox / w < oy / h:
                step = (ox / 2 + 0.01) * (1 if dx >= 0 else -1)
                out[a], out[b] = (xa - step, ya), (xb + step, yb)
            else:
                step = (oy / 2 + 0.01) * (1 if dy >= 0 else -1)
                out[a], out[b] = (xa, ya - step), (xb, yb + step)
        if not moved:
            break
    return out


@dataclass(frozen=True, slots=True)
class CardGeometry:
    """Where a panel card's lines go (pixels from the card's top) and how large they are: the counts, the rank and
    the tags are :attr:`Theme.phone_line` tall on a phone, like the last move. The icon groups (``supply``: the
    buildings left; ``hand``: scoring cards in hand and bird chips; ``cards``: the building cards; ``resources``)
    share rows where the card is wide enough."""

    rows: tuple[tuple[str, ...], ...]
    """The icon groups of each row, top to bottom."""
    rank_y: int
    """The centre of the rank line (the rank and the last move's points; the tags too where they fit)."""
    tags_y: int
    """The centre of the tags' line (laps, to move, the share right): the rank line's where they fit there in every
    language, else a line of their own below it."""
    row_ys: tuple[int, ...]
    """The centre of each icon row."""
    row_h: int
    count_size: int
    """Font size of the counts, the rank, the tags and the points (bold)."""
    score_size: int
    """Font size of the score (bold), first on the rank line: the name has the first line to itself."""
    icon_size: int
    height: int
    """The card's height."""


@dataclass(frozen=True, slots=True)
class Layout:
    """The page's areas and the board's geometry for one static board, theme and player count."""

    width: int
    height: int
    unit: float
    """Size unit for fonts and spacing: ``width / 1600``."""
    header: Rect
    board: Rect
    last_move: Rect
    played: Rect
    """The scoring cards played this round, by whom (three lines at the last move's size: a whole round's nine)."""
    panel: Rect
    track: Rect
    you: Rect | None
    scale: float
    offset: tuple[float, float]
    tile_w: int
    tile_h: int
    centers: dict[int, tuple[float, float]]
    cards: tuple[Rect, ...]
    """One panel card per seat."""
    name_size: int
    """Font size of players' names (bold): :attr:`Theme.phone_text` tall on a phone, or larger."""
    line_size: int
    """Font size of the last move's words: :attr:`Theme.phone_line` tall on a phone."""
    number_size: int
    """Font size of site numbers (condensed bold): :attr:`Theme.phone_text` tall on a phone."""
    card: CardGeometry
    """The lines of every panel card (they are all as wide)."""

    def to_px(self, p: list[float] | tuple[float, float]) -> tuple[float, float]:
        """Board drawing units to picture pixels."""
        return (self.offset[0] + p[0] * self.scale, self.offset[1] + p[1] * self.scale)


def make_layout(board: BoardView, theme: Theme, n_players: int, personal: bool) -> Layout:
    """Compute the page for ``board`` (a view's board dict)."""
    W = theme.width
    u = W / 1600
    m = round(12 * u)
    pos = {s["id"]: (float(s["pos"][0]), float(s["pos"][1])) for s in board["sites"]}
    hu = _unit_tile_height(pos)
    wu = hu * TILE_ASPECT
    pos = relax(pos, wu * 1.04, hu * 1.08)
    xs: list[float] = []
    ys: list[float] = []
    for isl in board.get("islands", []):
        for px, py in isl.get("outline") or []:
            xs.append(float(px))
            ys.append(float(py))
    for x, y in pos.values():
        xs += [x - 0.8 * wu, x + 0.8 * wu]
        ys += [y - 1.0 * hu, y + 0.8 * hu]
    for river in board.get("rivers", []):
        for end in (river.get("source"), river.get("mouth")):
            if isinstance(end, list | tuple) and len(end) == 2:
                xs.append(float(end[0]))
                ys.append(float(end[1]))
    pad = 0.3 * hu
    x0, x1 = min(xs) - pad, max(xs) + pad
    y0, y1 = min(ys) - pad, max(ys) + pad
    avail_w = W - 2 * m
    scale = min(avail_w / (x1 - x0), 1.05 * W / (y1 - y0))
    tile_h = max(24, min(round(96 * u), round(hu * scale)))
    tile_w = round(tile_h * TILE_ASPECT)
    board_h = max(round(320 * u), round((y1 - y0) * scale))
    name_size = max(round(30 * u), theme.phone_size(theme.phone_text, "bold"))
    line_size = max(round(16 * u), theme.phone_size(theme.phone_line))
    number_size = theme.phone_size(theme.phone_text, "condensed")
    header_h = sum(header_bands(u, name_size, line_size))
    top = header_h
    board_rect = (m, top, W - m, top + board_h)
    ox = m + (avail_w - (x1 - x0) * scale) / 2 - x0 * scale
    oy = top + (board_h - (y1 - y0) * scale) / 2 - y0 * scale
    y = board_rect[3] + round(6 * u)
    last_move = (m, y, W - m, y + round(20 * u + 2 * LINE_SPACING * line_size))
    y = last_move[3] + round(8 * u)
    played = (m, y, W - m, y + round(20 * u + PLAYED_LINES * LINE_SPACING * line_size))
    y = played[3] + round(8 * u)
    you: Rect | None = None
    if personal:
        you = (m, y, W - m, y + round(2 * YOU_PAD * u + YOU_LINES * LINE_SPACING * line_size))
        y = you[3] + round(8 * u)
    gap = round(10 * u)
    card_w = (W - 2 * m - gap * (n_players - 1)) / n_players
    card = card_geometry(theme, u, round(card_w))
    panel = (m, y, W - m, y + card.height)
    cards = tuple((round(panel[0] + i * (card_w + gap)), panel[1], round(panel[0] + i * (card_w + gap) + card_w),
                   panel[3]) for i in range(n_players))
    y = panel[3] + round(8 * u)
    title_h, number_h = track_bands(u, line_size)
    track = (m, y, W - m, y + title_h + TRACK_ROWS * (number_h + round(TRACK_MARKER_BAND * u)))
    height = track[3] + m
    centers = {sid: (ox + p[0] * scale, oy + p[1] * scale) for sid, p in pos.items()}
    return Layout(width=W, height=height, unit=u, header=(0, 0, W, header_h), board=board_rect,
                  last_move=last_move, played=played, panel=panel, track=track, you=you, scale=scale, offset=(ox, oy),
                  tile_w=tile_w, tile_h=tile_h, centers=centers, cards=cards, name_size=name_size,
                  line_size=line_size, number_size=number_size, card=card)


def header_bands(u: float, name_size: int, line_size: int) -> tuple[int, int]:
    """The header's two lines, in pixels: whose turn it is (with the deck and the chips left), then the round and
    the phase at the last move's size."""
    return max(round(64 * u), round(1.5 * name_size)), round(LINE_SPACING * line_size)


TRACK_ROWS = 2
"""The score track's 50 cells stand in this many rows."""
TRACK_MARKER_BAND = 40
"""The height of a track cell's markers below its number, in units of the 1600-pixel page."""


def track_bands(u: float, line_size: int) -> tuple[int, int]:
    """The score track's title row and its cells' number band, in pixels: both hold words at the last move's size."""
    return round(LINE_SPACING * line_size + 4 * u), round(1.1 * line_size + 4 * u)


CARD_PAD = 12
"""A panel card's inner margin, in units of the 1600-pixel page."""
GROUP_COUNTS = {"supply": (1, 1, 1), "hand": (1, 2), "cards": (1, 1, 1, 1)}
"""The counts of each icon group and the digits the widest of them takes (bird chips may reach ten)."""
RESOURCE_COUNT = 5


def card_geometry(theme: Theme, u: float, width: int) -> CardGeometry:
    """The lines of a panel card ``width`` pixels wide: the name (the whole line after the marker, so that a name is
    cut only where the card has no room for it), the score and the rank, then the icon rows (three where the buildings
    and the hand share a row, else four)."""
    count = max(round(26 * u), theme.phone_size(theme.phone_line, "bold"))
    score = max(round(42 * u), count)
    isz = round(count * 1.2)
    row_w = width - 2 * CARD_PAD * u

    def group_width(group: str) -> float:
        if group == "resources":
            return RESOURCE_COUNT * (isz + 8 * u)
        return sum(isz + 4 * u + text_width("8" * digits, count, "bold") + 12 * u for digits in GROUP_COUNTS[group])

    together = group_width("supply") + 6 * u + group_width("hand") <= row_w
    rows: tuple[tuple[str, ...], ...] = (("supply", "hand"),) if together else (("supply",), ("hand",))
    rows += (("cards",), ("resources",))
    pad = CARD_PAD * u
    rank_y = round(pad + 44 * u + 6 * u + max(count, score) * 0.6)
    beside = (row_w - text_width("888", score, "bold") - text_width("#4", count, "bold")
              - text_width("+88", count, "bold") - 46 * u)
    tags = max(text_width(t("render.to_move_short", lang), count, "bold") + 10 * u
               + text_width(t("render.can_share", lang), count, "bold") for lang in LOCALES)
    tags_y = rank_y if tags <= beside else rank_y + round(count * 1.25)
    row_h = round(isz * 1.25)
    first = tags_y + round(count * 0.6 + 4 * u)
    row_ys = tuple(first + row_h * i + row_h // 2 for i in range(len(rows)))
    height = first + row_h * len(rows) + round(pad)
    return CardGeometry(rows=rows, rank_y=rank_y, tags_y=tags_y, row_ys=row_ys, row_h=row_h, count_size=count,
                        score_size=score, icon_size=isz, height=height)
