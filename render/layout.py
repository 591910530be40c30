"""Where everything goes on the board picture: the page's areas and the board's geometry in pixels (scale, site
centres, tile size), from the island as :mod:`render.island` places it.

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
import math
from dataclasses import dataclass
from functools import lru_cache

from engine.types import BoardView
from i18n import DEFAULT_LOCALE, LOCALES, catalogue, t
from render.draw import text_width
from render.island import BOARD_ASPECT, TILE_ASPECT, placed_board, unit_tile_height
from render.theme import Theme

Rect = tuple[int, int, int, int]
"""(left, top, right, bottom) in pixels."""

LINE_SPACING = 1.3
"""Distance between lines of text, in font sizes."""
PLAYED_LINES = 4
"""Lines of the scoring cards played this round, at the last move's size."""
LAST_LINES = 3
"""Lines of the last move's words in the channel's picture."""
SINCE_LINES = 6
"""Lines of the words in a seat's own picture, which tell every move since its own last one (its DM's text
tells them whole)."""
YOU_LINES = 5
"""Lines of the personal strip (a DM's own cards, bird chips and what its flags mean), at the last move's size."""
YOU_PAD = 12
"""The personal strip's margin above and below its lines, in units of the 1600-pixel page."""


def relax(pos: dict[int, tuple[float, float]], w: float, h: float, rounds: int = 60) -> dict[int, tuple[float, float]]:
    """Nudge sites apart until no two ``w`` × ``h`` boxes around them overlap (or ``rounds`` pass).

    Only sites that are closer than a tile move, each by half the overlap along the easier axis; the
    drawn roads and rivers follow the nudged centres, so the picture stays consistent. The answer depends on the
    positions and the box only, and is the same for every language, player count and kind of picture at one width:
    it is remembered (:func:`_relaxed`).
    """
    return dict(_relaxed(tuple(pos.items()), w, h, rounds))


@lru_cache(maxsize=64)
def _relaxed(pos: tuple[tuple[int, tuple[float, float]], ...], w: float, h: float,
             rounds: int) -> tuple[tuple[int, tuple[float, float]], ...]:
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
    return tuple(out.items())


@dataclass(frozen=True, slots=True)
class CardGeometry:
    """Where a panel card's lines go (pixels from the card's top) and how large they are: the counts, the rank and
    the tags are :attr:`Theme.phone_read` tall on a phone, like the last move. The icon groups (``supply``: the
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
    fits: bool
    """Whether each icon group has room in a row of the card (else the panel puts fewer cards in a row)."""


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
    """Font size of the last move's words: :attr:`Theme.phone_read` tall on a phone."""
    number_size: int
    """Font size of site numbers (condensed bold): :attr:`Theme.phone_text` tall on a phone."""
    card: CardGeometry
    """The lines of every panel card (they are all as wide)."""

    def to_px(self, p: list[float] | tuple[float, float]) -> tuple[float, float]:
        """Board drawing units to picture pixels."""
        return (self.offset[0] + p[0] * self.scale, self.offset[1] + p[1] * self.scale)


def tile_size(theme: Theme, spacing: float) -> int:
    """A tile's height in pixels: ``spacing`` (what the sites' distances leave), but at least what two resource icons
    as large as :attr:`Theme.phone_icon` need in the tile's column, and at most a third more than that."""
    least = round(theme.phone_px(theme.phone_icon) * 2.25)
    return max(least, min(round(spacing), round(least * 1.33)))


def _extent_of(board: BoardView, pos: dict[int, tuple[float, float]], wu: float,
               hu: float) -> tuple[float, float, float, float]:
    """What the board's drawing spans (board units): outlines, tiles around the sites, rivers' ends, and a margin."""
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
    return min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad


def make_layout(board: BoardView, theme: Theme, n_players: int, personal: bool) -> Layout:
    """Compute the page for ``board`` (a view's board dict)."""
    W = theme.width
    u = W / 1600
    m = round(12 * u)
    board = placed_board(board)
    start = {s["id"]: (float(s["pos"][0]), float(s["pos"][1])) for s in board["sites"]}
    hu = unit_tile_height(start)
    pos = start
    avail_w = W - 2 * m

    def fitted(hu: float) -> tuple[float, tuple[float, float, float, float]]:
        extent = _extent_of(board, pos, hu * TILE_ASPECT, hu)
        return min(avail_w / (extent[2] - extent[0]), BOARD_ASPECT * avail_w / (extent[3] - extent[1])), extent

    scale, _ = fitted(hu)
    tile_h = tile_size(theme, hu * scale)
    for _ in range(3):  # nudge the sites apart for tiles of that many pixels, at the scale of what they then span
        hu = tile_h / scale
        pos = relax(start, hu * TILE_ASPECT * 1.06, hu * 1.1)
        scale, _ = fitted(hu)
    hu = tile_h / scale
    scale, (x0, y0, x1, y1) = fitted(hu)
    tile_w = round(tile_h * TILE_ASPECT)
    board_h = max(round(320 * u), round((y1 - y0) * scale))
    name_size = max(round(30 * u), theme.phone_size(theme.phone_text, "bold"))
    line_size = max(round(16 * u), theme.phone_size(theme.phone_read))
    number_size = theme.phone_size(theme.phone_text, "condensed")
    header_h = sum(header_bands(u, name_size, line_size, W))
    top = header_h
    board_rect = (m, top, W - m, top + board_h)
    ox = m + (avail_w - (x1 - x0) * scale) / 2 - x0 * scale
    oy = top + (board_h - (y1 - y0) * scale) / 2 - y0 * scale
    y = board_rect[3] + round(6 * u)
    last_lines = SINCE_LINES if personal else LAST_LINES
    last_move = (m, y, W - m, y + round(20 * u + last_lines * LINE_SPACING * line_size))
    y = last_move[3] + round(8 * u)
    played = (m, y, W - m, y + round(20 * u + PLAYED_LINES * LINE_SPACING * line_size))
    y = played[3] + round(8 * u)
    you: Rect | None = None
    if personal:
        you = (m, y, W - m, y + round(2 * YOU_PAD * u + YOU_LINES * LINE_SPACING * line_size))
        y = you[3] + round(8 * u)
    gap = round(10 * u)
    cols = n_players
    while True:  # as many cards in a row as have room for each of their icon groups (two rows of two for four)
        card_w = (W - 2 * m - gap * (cols - 1)) / cols
        card = card_geometry(theme, u, round(card_w))
        if card.fits or cols <= 1:
            break
        cols = math.ceil(n_players / math.ceil(n_players / (cols - 1)))
    rows = math.ceil(n_players / cols)
    panel = (m, y, W - m, y + rows * card.height + (rows - 1) * gap)
    cards = tuple((round(m + (i % cols) * (card_w + gap)), y + (i // cols) * (card.height + gap),
                   round(m + (i % cols) * (card_w + gap) + card_w), y + (i // cols) * (card.height + gap) + card.height)
                  for i in range(n_players))
    y = panel[3] + round(8 * u)
    title_h, number_h = track_bands(u, line_size, W - 2 * m)
    track = (m, y, W - m, y + title_h + TRACK_ROWS * (number_h + round(TRACK_MARKER_BAND * u)))
    height = track[3] + m
    centers = {sid: (ox + p[0] * scale, oy + p[1] * scale) for sid, p in pos.items()}
    return Layout(width=W, height=height, unit=u, header=(0, 0, W, header_h), board=board_rect,
                  last_move=last_move, played=played, panel=panel, track=track, you=you, scale=scale, offset=(ox, oy),
                  tile_w=tile_w, tile_h=tile_h, centers=centers, cards=cards, name_size=name_size,
                  line_size=line_size, number_size=number_size, card=card)


@lru_cache(maxsize=64)
def header_lines(u: float, line_size: int, width: int) -> int:
    """The lines of the header's round and phase: one where the longest phase fits after the last round in every
    language (so that the layout is the same in all of them), else two."""
    phases = [key for key in catalogue(DEFAULT_LOCALE) if key.startswith("render.phase.")]
    need = max(text_width(f"{t('render.round', lang, n=2)} · {t(phase, lang)}", line_size, "bold")
               for lang in LOCALES for phase in phases)
    return 1 if need <= width - 32 * u else 2


def header_bands(u: float, name_size: int, line_size: int, width: int) -> tuple[int, int]:
    """The header's two bands, in pixels: whose turn it is (with the deck and the chips left), then the round and
    the phase at the last move's size (on two lines where :func:`header_lines` says so)."""
    return (max(round(64 * u), round(1.5 * name_size)),
            round(header_lines(u, line_size, width) * LINE_SPACING * line_size))


TRACK_ROWS = 2
"""The score track's 50 cells stand in this many rows."""
TRACK_MARKER_BAND = 52
"""The height of a track cell's markers below its number, in units of the 1600-pixel page."""


@lru_cache(maxsize=64)
def track_title_lines(u: float, line_size: int, width: int) -> int:
    """The lines of the score track's title: one where the title and what a ring means fit side by side in every
    language (so that the layout is the same in all of them), else two."""
    lap = round(line_size * 1.1)
    need = max(text_width(t("render.track.title", lang), line_size, "bold") + 28 * u + lap
               + text_width(t("render.track.hint", lang), line_size) for lang in LOCALES)
    return 1 if need <= width - 8 * u else 2


def track_bands(u: float, line_size: int, width: int) -> tuple[int, int]:
    """The score track's title band and its cells' number band, in pixels: both hold words at the last move's size
    (the numbers of the fives only: the others would not have room at that size)."""
    lines = track_title_lines(u, line_size, width)
    return round(lines * LINE_SPACING * line_size + 4 * u), round(1.1 * line_size + 4 * u)


CARD_PAD = 12
"""A panel card's inner margin, in units of the 1600-pixel page."""
GROUP_COUNTS = {"supply": (1, 1, 1), "hand": (1, 2), "cards": (1, 1, 1, 1)}
"""The counts of each icon group and the digits the widest of them takes (bird chips may reach ten)."""
RESOURCE_COUNT = 5


def card_geometry(theme: Theme, u: float, width: int) -> CardGeometry:
    """The lines of a panel card ``width`` pixels wide: the name (the whole line after the marker, so that a name is
    cut only where the card has no room for it), the score and the rank, then the icon rows (three where the buildings
    and the hand share a row, else four)."""
    count = max(round(26 * u), theme.phone_size(theme.phone_read, "bold"))
    score = max(round(42 * u), round(count * 1.25))
    isz = round(count * 1.2)
    row_w = width - 2 * CARD_PAD * u

    def group_width(group: str) -> float:
        if group == "resources":
            return RESOURCE_COUNT * (isz + 8 * u)
        return sum(isz + 4 * u + text_width("8" * digits, count, "bold") + 12 * u for digits in GROUP_COUNTS[group])

    rows: list[tuple[str, ...]] = []
    used = 0.0
    for group in ("supply", "hand", "cards", "resources"):  # in this order, as many to a row as fit
        need = group_width(group)
        if rows and used + 6 * u + need <= row_w:
            rows[-1] += (group,)
            used += 6 * u + need
        else:
            rows.append((group,))
            used = need
    fits = all(group_width(g) <= row_w for g in GROUP_COUNTS) and group_width("resources") <= row_w
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
    return CardGeometry(rows=tuple(rows), rank_y=rank_y, tags_y=tags_y, row_ys=row_ys, row_h=row_h,
                        count_size=count, score_size=score, icon_size=isz, height=height, fits=fits)
