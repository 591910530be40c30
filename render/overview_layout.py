"""The overview's page (:class:`OverviewLayout`): where its header, island, players' cards and words go, and how
large its texts are, so that they are as tall as :attr:`Theme.inline_text` in the smallest box Discord shows it in
(:mod:`render.inline`) and :attr:`Theme.phone_read` when a phone shows the tapped picture. Computed once per static
board, theme and player count from the board picture's own geometry (:func:`render.layout.make_layout`), scaled
down into the island's rectangle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Final

from engine.types import BoardView
from i18n import LOCALES, t
from render import inline
from render.draw import text_width
from render.fonts import line_height, size_for
from render.layout import LINE_SPACING, Layout, Rect, make_layout
from render.theme import Theme

ASPECT: Final = 1.25
"""Width / height the overview aims at: between square and 1.4 : 1 the desktop box shows it about three times as
large as the board, and a phone's column not smaller (:mod:`render.inline`)."""
COLUMN: Final = 0.37
"""The players' column, as a share of the width (at least what a card's second line needs in every language)."""
SCORE_SCALE: Final = 1.3
"""Scores are this much taller than names."""
TITLE_SCALE: Final = 1.15
"""Whose turn it is (or who won) is this much taller than names."""
WORD_LINES: Final = 3
"""The least lines of the last move's words under the players' cards (the picture grows taller for them)."""


@dataclass(frozen=True, slots=True)
class OverviewLayout:
    """Where the overview's parts go, for one static board, theme and player count (picture pixels)."""

    width: int
    height: int
    unit: float
    """``width / 1200``."""
    header: Rect
    map: Rect
    column: Rect
    cards: tuple[Rect, ...]
    """One card per seat, in seat order."""
    words: Rect
    """The last move's words (every move since the seat's own last one, in a DM)."""
    title_size: int
    """Whose turn it is, or who won (bold)."""
    key_size: int
    """Names, places, tags and points (bold): :attr:`Theme.inline_text` tall inline."""
    score_size: int
    line_size: int
    """The round and the phase, the last move's words: :attr:`Theme.phone_read` tall at a phone's width."""
    number_size: int
    """The numbers of a DM's legal sites (condensed): :attr:`Theme.phone_text` tall at a phone's width."""
    marker_size: int
    board: Layout
    """The board picture's geometry, scaled into :attr:`map` (site centres, tile size, the island's drawing)."""


def least_scale(size: tuple[float, float]) -> float:
    """The smallest scale at which Discord shows a picture of ``size`` inline (:data:`render.inline.BOXES`)."""
    return min(inline.scale(size, box) for box in inline.BOXES)


def _second_line(key: int, score: int, u: float) -> float:
    """The widest second line of a card in every language: a three-digit score, a place, a ▶ and "to move"."""
    tag = max(text_width(t("render.to_move_short", lang), key, "bold") for lang in LOCALES)
    place = max(text_width(t("render.rank", lang, rank=4), key, "bold") for lang in LOCALES)
    return text_width("188", score, "bold") + 14 * u + place + 18 * u + key * 0.8 + 6 * u + tag


def overview_layout(board: BoardView, theme: Theme, n_players: int) -> OverviewLayout:
    """Compute the overview's page for ``board`` (a view's board) and ``n_players``: the island as large as the
    height left under the header allows at :data:`ASPECT`, the players' column the rest of the width (at least what
    its cards need, the island smaller then); taller only where the column's cards and :data:`WORD_LINES` lines of
    words need it."""
    W = round(theme.width * theme.overview_share)
    u = W / 1200
    m = round(16 * u)
    pad = round(12 * u)
    gap = round(10 * u)
    detail = make_layout(board, theme, n_players, False)
    bx0, by0, bx1, by1 = detail.board
    H = round(W / ASPECT)
    for _ in range(4):  # the sizes hold at the scale of the picture's final size
        least = least_scale((W, H))
        key_cap = max(theme.inline_text / least, theme.phone_read * W / theme.phone_width)
        key = size_for(key_cap, "bold")
        score = size_for(key_cap * SCORE_SCALE, "bold")
        title = size_for(key_cap * TITLE_SCALE, "bold")
        line = size_for(theme.phone_read * W / theme.phone_width)
        header_h = round(2 * pad + LINE_SPACING * title + LINE_SPACING * line)
        map_h = round(W / ASPECT) - header_h - 2 * m
        map_w = round(map_h * (bx1 - bx0) / (by1 - by0))
        col_w = W - 3 * m - map_w
        need = round(max(COLUMN * W, _second_line(key, score, u) + 2 * pad))
        if col_w < need:
            col_w = need
            map_w = W - 3 * m - col_w
            map_h = round(map_w * (by1 - by0) / (bx1 - bx0))
        card_h = round(2 * pad + LINE_SPACING * key + 1.2 * score)
        cards_h = n_players * card_h + (n_players - 1) * gap
        words_h = 2 * pad + line_height(line) + (WORD_LINES - 1) * LINE_SPACING * line
        body_h = max(map_h, cards_h + gap + math.ceil(words_h), round(W / ASPECT) - header_h - 2 * m)
        height = header_h + body_h + 2 * m
        if height == H:
            break
        H = height
    f = map_w / (bx1 - bx0)
    top = header_h + m
    map_rect = (m, top + (body_h - map_h) // 2, m + map_w, top + (body_h - map_h) // 2 + map_h)
    cx0 = W - m - col_w
    cards = tuple((cx0, top + i * (card_h + gap), W - m, top + i * (card_h + gap) + card_h)
                  for i in range(n_players))
    words = (cx0, cards[-1][3] + gap, W - m, top + body_h)

    def to(x: float, y: float) -> tuple[float, float]:
        return (map_rect[0] + (x - bx0) * f, map_rect[1] + (y - by0) * f)

    mini = replace(detail, width=W, height=H, unit=detail.unit * f, board=map_rect, scale=detail.scale * f,
                   offset=to(*detail.offset), tile_w=max(8, round(detail.tile_w * f)),
                   tile_h=max(6, round(detail.tile_h * f)),
                   centers={sid: to(*c) for sid, c in detail.centers.items()})
    return OverviewLayout(width=W, height=H, unit=u, header=(0, 0, W, header_h), map=map_rect,
                          column=(cx0, top, W - m, top + body_h), cards=cards, words=words, title_size=title,
                          key_size=key, score_size=score, line_size=line,
                          number_size=size_for(theme.phone_text * W / theme.phone_width, "condensed"),
                          marker_size=round(key * 1.15), board=mini)
