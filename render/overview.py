"""``render_overview``: the picture the chat shows without a tap, composed for Discord's inline box.

Discord scales every picture down to a box (:mod:`render.inline`): the tall board (:mod:`render.board`) shows
there as a stamp. The overview is a landscape picture (1.25 : 1) that the box shows large, and whose words are
as tall as :attr:`Theme.inline_text` in the smallest box (a phone's chat column): whose turn it is, each player's
score and place, the last move's sites, the island's buildings in the players' colours. The board stays the picture
a tap opens for everything else; a message carries both, each alone in its gallery, so that neither is cropped.

Layout (:class:`OverviewLayout`, once per board, theme and player count): a header across the top (whose turn it is,
or who won; the round and the phase), the island on the left (the board picture's own geometry scaled down: sea,
land, rivers and roads drawn once; each site a small tile with its buildings), the players on the right, in seat
order like the board's panel, one card each (name; score, place, the last move's points, "to move"), and below
them the last move's words. A seat's own overview (a DM) rings and numbers the sites it may build on and tells every
move since its own last one.

Every text drawn is listed with the box its ink covers and its height (:class:`Written`), so that tests measure
what the picture shows at Discord's scale from the renderer's own record.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Final, TypeVar

from PIL import Image, ImageDraw

from engine.types import BoardView, View
from i18n import LOCALES, normalize_locale, t
from render import inline, script
from render.base import Kept, make_palette, paint_board, theme_colours
from render.describe import LastMove, describe, legal_sites
from render.draw import fit, paste, shape_points, sprite, text, text_width
from render.encode import quantized, write_png
from render.fonts import ascent, cap_height, line_height, size_for
from render.header import turn_label, winner_label
from render.icons import icon, marker, paint_piece
from render.island import placed_board, static_board
from render.layer import Item, Layers
from render.layout import LINE_SPACING, Layout, Rect, make_layout
from render.theme import DEFAULT_THEME, RGB, Theme
from render.tiles import back_colour, badge, badge_centre, face_colour, ring

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
class Written:
    """One text the overview drew: what it says, the box its ink covers (picture pixels), the height of its
    capitals and digits, and what it is."""

    role: str
    """``name``, ``score``, ``place``, ``to_move`` (the words and the ▶ of whose turn it is), ``points`` (the last
    move's), ``winner``, ``round``, ``words`` (the last move's) or ``number`` (a DM's legal site)."""
    text: str
    box: Rect
    cap: int
    seat: int | None = None


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


# ---------------------------------------------------------------- sites


Occupants = tuple[tuple[str, RGB, RGB, str], ...]
"""(building, colour, ink, letter) of each building on a site."""


SITE_PAD: Final = 0.3
"""A site sprite's margin around the tile's box, as a share of the tile's height (room for the buildings)."""


def _pad(h: int) -> int:
    return max(3, round(h * SITE_PAD))


@lru_cache(maxsize=512)
def site(kind: str, building: str | None, occupants: Occupants, w: int, h: int, theme: Theme) -> Image.Image:
    """A site as the overview draws it (cached): the tile's shape, face down (its back's colour) or revealed (its
    face's colour), and the buildings on it in their players' colours, as large as the tile (two side by side on a
    shared tile)."""
    def paint(d: ImageDraw.ImageDraw, k: int) -> None:
        pad = _pad(h)
        cx, cy = (w / 2 + pad) * k, (h / 2 + pad) * k
        pts = shape_points(kind, cx, cy, w * k, h * k)
        fill = back_colour(kind, theme) if building is None else face_colour(kind, theme)
        d.polygon(pts, fill=fill, outline=theme.tile_edge, width=max(1, round(h * 0.06)) * k)
        if len(occupants) == 1:
            b, colour, ink, mark = occupants[0]
            s = 1.15 * h * k
            paint_piece(d, b, cx - s / 2, cy - s * 0.58, s, colour, ink, mark)
        elif occupants:
            s = 0.95 * h * k
            for (b, colour, ink, mark), dx in zip(occupants, (-0.24, 0.24), strict=False):
                paint_piece(d, b, cx + dx * w * k - s / 2, cy - s * 0.55, s, colour, ink, mark)

    pad = _pad(h)
    return sprite(w + 2 * pad, h + 2 * pad, paint)


def _site_at(lay: Layout, sid: int) -> tuple[float, float]:
    """The top-left corner of a site's sprite on the overview."""
    cx, cy = lay.centers[sid]
    pad = _pad(lay.tile_h)
    return (cx - lay.tile_w / 2 - pad, cy - lay.tile_h / 2 - pad)


# ---------------------------------------------------------------- the static picture


_BASES: Kept[tuple[str, Theme, int], tuple[Image.Image, OverviewLayout, Image.Image]] = Kept(8)
LAYERS = Layers()
"""The overviews' island layers (kept apart from the board's)."""


_ISLANDS: Kept[tuple[object, ...], tuple[Image.Image, Image.Image]] = Kept(3)
"""The overview's island and palette, kept for every player count (the island is as large for all of them)."""


def _island(board: BoardView, lay: OverviewLayout, theme: Theme) -> tuple[Image.Image, Image.Image]:
    """The sea, the land, the rivers and the roads of the map's rectangle, and the overview's palette (made from
    them and from a sample of what changes); alike for every player count and language."""
    x0, y0, x1, y1 = lay.map
    mini = lay.board

    def draw() -> tuple[Image.Image, Image.Image]:
        local = replace(mini, board=(0, 0, x1 - x0, y1 - y0), offset=(mini.offset[0] - x0, mini.offset[1] - y0),
                        centers={sid: (cx - x0, cy - y0) for sid, (cx, cy) in mini.centers.items()})
        img = Image.new("RGB", (x1 - x0, y1 - y0), theme.background)
        paint_board(img, local, placed_board(board), theme)
        sample = Image.new("RGB", (lay.width, img.height + 4 * mini.tile_h + 120), theme.background)
        sample.paste(img, (0, 0))
        _paint_sample(sample, lay, theme, img.height)
        return img, make_palette(theme_colours(theme), sample)

    return _ISLANDS.get((static_board(board), theme, x1 - x0, y1 - y0, mini.tile_w, mini.tile_h), draw)


def _build_base(board: BoardView, theme: Theme, n_players: int) -> tuple[Image.Image, OverviewLayout, Image.Image]:
    """The background, the header's band, the island with every site face down, the frames; the layout; the
    palette."""
    lay = overview_layout(board, theme, n_players)
    img = Image.new("RGB", (lay.width, lay.height), theme.background)
    d = ImageDraw.Draw(img)
    d.rectangle(lay.header, fill=theme.card)
    island, palette = _island(board, lay, theme)
    img.paste(island, lay.map[:2])
    mini = lay.board
    for s in board["sites"]:
        paste(img, site(s["kind"], None, (), mini.tile_w, mini.tile_h, theme), *_site_at(mini, s["id"]))
    for rect in lay.cards:  # as a card not lit looks (each card is drawn over it)
        _frame(d, rect, lay.unit, theme.card, theme.card_edge, 1.5)
    d.rounded_rectangle(lay.words, radius=round(10 * lay.unit), fill=theme.card)
    return img, lay, palette


def _paint_sample(img: Image.Image, lay: OverviewLayout, theme: Theme, y: int) -> None:
    """Typical changing content below ``y``, so that the palette has its colours and edges."""
    w, h = lay.board.tile_w, lay.board.tile_h
    x = 10
    for seat, colour in enumerate(theme.players):
        for kind, b in (("coast", "lighthouse"), ("land", "church"), ("volcano", "house")):
            for extra in (theme.last_move, theme.legal, None):
                if extra:
                    spr = ring(kind, w, h, extra, 0.2)
                    img.paste(spr, (x, y), spr)
                spr = site(kind, b, ((b, colour, theme.ink(seat), "W"),), w, h, theme)
                img.paste(spr, (x, y), spr)
                x += spr.width
                if x > img.width - 2 * spr.width:
                    x, y = 10, y + spr.height
    y += 2 * h
    d = ImageDraw.Draw(img)
    for i, bg in enumerate((theme.card, theme.card_active, theme.background)):
        d.rectangle((10 + i * 330, y, 330 + i * 330, y + 100), fill=bg)
        for j, c in enumerate((theme.text, theme.muted, theme.good, theme.bad, theme.last_move, theme.legal)):
            script.draw(d, (14 + i * 330 + (j % 3) * 100, y + 4 + (j // 3) * 44), "Äg 4+", lay.key_size, c,
                        weight="bold")


def _frame(d: ImageDraw.ImageDraw, rect: Rect, u: float, fill: RGB, edge: RGB, width: float) -> None:
    """A card's frame: its fill and its edge ``width`` units wide."""
    d.rounded_rectangle(rect, radius=round(10 * u), fill=fill, outline=edge, width=max(2, round(width * u)))


@lru_cache(maxsize=16)
def _card_ground(size: tuple[int, int], u: float, fill: RGB, edge: RGB, width: float, theme: Theme) -> Image.Image:
    """An empty card of ``size`` on the page's background (cached: a card is drawn on a copy)."""
    img = Image.new("RGB", size, theme.background)
    d = ImageDraw.Draw(img)
    if width:
        _frame(d, (0, 0, size[0] - 1, size[1] - 1), u, fill, edge, width)
    else:
        d.rounded_rectangle((0, 0, size[0] - 1, size[1] - 1), radius=round(10 * u), fill=fill)
    return img


def get_overview_base(board: BoardView, theme: Theme, n_players: int,
                      static_key: str | None = None) -> tuple[Image.Image, OverviewLayout, Image.Image]:
    """The cached static overview (alike in every language, in the channel and in a DM) with its layout and
    palette; ``static_key``: :func:`render.island.static_board` of ``board``, where the caller has it."""
    key = static_board(board) if static_key is None else static_key
    return _BASES.get((key, theme, n_players), lambda: _build_base(board, theme, n_players))


# ---------------------------------------------------------------- drawing

T = TypeVar("T")


class _Page:
    """The picture being drawn, and the record of every text drawn on it."""

    def __init__(self, img: Image.Image) -> None:
        self.img = img
        self.written: list[Written] = []

    def text(self, role: str, x: float, y: float, s: str, size: int, fill: RGB, *, weight: str = "bold",
             anchor: str = "lm", seat: int | None = None) -> float:
        """Draw ``s`` and record it with the box its ink covers; returns the right end of its advance."""
        if not s:
            return x
        box = text(self.img, x, y, s, size, fill, weight=weight, anchor=anchor)
        self.written.append(Written(role, s, box, cap_height(size, weight), seat))
        return x + (text_width(s, size, weight) if anchor[0] == "l" else 0)

    def line(self, role: str, x: float, y: float, s: str, size: int, fill: RGB, *, weight: str = "regular") -> float:
        """Draw ``s`` word by word from (x, y), the left end of its baseline (each word's glyphs are cached: a new
        sentence costs no new drawing of its words), and record it as one text; returns its right end."""
        space = text_width(" ", size, weight)
        boxes = []
        for word in s.split(" "):
            if word:
                boxes.append(text(self.img, x, y, word, size, fill, weight=weight, anchor="ls"))
            x += text_width(word, size, weight) + space
        if boxes:
            box = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
                   max(b[3] for b in boxes))
            self.written.append(Written(role, s, box, cap_height(size, weight)))
        return x - space

    def sign(self, role: str, spr: Image.Image, x: float, y: float, said: str, seat: int | None = None) -> None:
        """Paste a sign that says something (the ▶ of whose turn it is) and record it, as tall as its sprite."""
        paste(self.img, spr, x, y)
        self.written.append(Written(role, said, (round(x), round(y), round(x) + spr.width, round(y) + spr.height),
                                    spr.height, seat))


def site_items(lay: OverviewLayout, view: View, theme: Theme, marks: list[str], last: LastMove,
               legal: set[int]) -> list[Item]:
    """The island's sprites in drawing order, positioned on the overview: the last move's and the legal sites'
    bands, every site that differs from the base (revealed, built on, marked), then the marks over them."""
    mini = lay.board
    w, h = mini.tile_w, mini.tile_h
    sites = {s["id"]: s for s in view["board"]["sites"]}
    items: list[Item] = []

    def add(key: tuple[object, ...], spr: Image.Image, x: float, y: float) -> None:
        items.append((key, spr, round(x), round(y)))

    for colour, chosen in ((theme.legal, sorted(legal)), (theme.last_move, sorted(last.built))):
        for sid in chosen:
            if sid in sites:
                kind = sites[sid]["kind"]
                spr = ring(kind, w, h, colour, 0.24)
                cx, cy = mini.centers[sid]
                add(("ring", kind, colour), spr, cx - spr.width / 2, cy - spr.height / 2)
    for sid, s in sites.items():
        tile = s.get("tile")
        occupants = tuple((b["type"], theme.player(b["seat"]), theme.ink(b["seat"]), marks[b["seat"]])
                          for b in s.get("buildings") or [])
        if tile is None and not occupants and sid not in legal and sid not in last.built:
            continue
        building = tile["building"] if tile is not None else None
        add(("site", s["kind"], building, occupants), site(s["kind"], building, occupants, w, h, theme),
            *_site_at(mini, sid))
    star = icon("reveal", round(h * 0.7), theme)
    cross = icon("destroy", round(h * 1.1), theme)
    for sid in last.revealed:
        if sid in sites:
            cx, cy = mini.centers[sid]
            add(("star",), star, cx + w * 0.45 - star.width / 2, cy - h * 0.55 - star.height / 2)
    for sid in last.destroyed:
        if sid in sites:
            cx, cy = mini.centers[sid]
            add(("cross",), cross, cx - cross.width / 2, cy - cross.height / 2)
    for sid in sorted(legal):  # its number, as a phone shows the tapped picture's words
        if sid in sites:
            spr = badge(sid, lay.number_size, theme.legal, theme.badge_text)
            bx, by = badge_centre(*mini.centers[sid], w, h)
            add(("number", sid), spr, bx - spr.width / 2, by - spr.height / 2)
    return items


Records = tuple[Written, ...]
"""The texts on a cached part of the picture, in its own pixels."""


def _moved(records: Records, x0: int, y0: int) -> list[Written]:
    """``records`` of a part pasted with its top-left corner at (x0, y0)."""
    return [Written(w.role, w.text, (w.box[0] + x0, w.box[1] + y0, w.box[2] + x0, w.box[3] + y0), w.cap, w.seat)
            for w in records]


HeaderState = tuple[int | None, bool, str, int, str, int, str]
"""(the seat to move or who won, whether it is a turn, its name, its score, its mark, the round, the phase)."""


@lru_cache(maxsize=32)
def header_image(state: HeaderState, geometry: tuple[int, int, float, int, int], theme: Theme,
                 locale: str) -> tuple[Image.Image, Records]:
    """The header (cached): whose turn it is (or who won), large, and below it the round and the phase."""
    who, turn, name, score, mark, round_no, phase = state
    width, height, u, title, line = geometry
    page = _Page(Image.new("RGB", (width, height), theme.card))
    pad = 12 * u
    cy = pad + LINE_SPACING * title / 2
    x = 16 * u
    if who is not None:
        sign = icon("turn" if turn else "tick", round(cap_height(title, "bold") * 1.15), theme)
        page.sign("to_move" if turn else "winner", sign, x, cy - sign.height / 2, "▶", who)
        x += sign.width + 10 * u
        m = marker(round(title * 1.05), theme.player(who), theme.ink(who), mark, 0, theme.lap_ring)
        paste(page.img, m, x, cy - m.height / 2)
        x += m.width + 12 * u
        room = width - 16 * u - x
        if turn:
            label, size = turn_label(name, locale, title, room)
        else:
            label, size = winner_label(name, score, locale, title, room)
        page.text("to_move" if turn else "winner", x, cy, label, size, theme.text, seat=who)
    below = f"{t('render.round', locale, n=round_no)} · {t(f'render.phase.{phase}', locale)}"
    said, size = fit(below, line, width - 32 * u, min_size=line)
    page.text("round", 16 * u, pad + LINE_SPACING * (title + line / 2), said, size, theme.muted, weight="regular")
    return page.img, tuple(page.written)


def _header_item(lay: OverviewLayout, view: View, theme: Theme, locale: str, marks: list[str]) -> tuple[Item,
                                                                                                        Records]:
    seat = view.get("to_move")
    who = seat if seat is not None else view.get("winner")
    player = view["players"][who] if who is not None else None
    state = (who, seat is not None, player["name"] if player else "",  # the score only in who won's words
             player["score"] if player and seat is None else 0, marks[who] if who is not None else "",
             view.get("round", 1), view.get("phase", "play"))
    x0, y0, x1, y1 = lay.header
    geometry = (x1 - x0, y1 - y0, lay.unit, lay.title_size, lay.line_size)
    img, records = header_image(state, geometry, theme, locale)
    return (("header", state, locale), img, x0, y0), records


CardState = tuple[int, str, str, int, int, bool, bool, bool, int]
"""(seat, name, mark, score, place, lit, the seat's own, to move, the last move's points): what a card shows."""


def _card_items(lay: OverviewLayout, view: View, theme: Theme, locale: str, marks: list[str],
                deltas: dict[int, int], you: int | None) -> list[tuple[Item, Records]]:
    """A card per seat (cached by what it shows: between two moves most stay the same)."""
    to_move = view.get("to_move")
    over = view.get("phase") == "over"
    geometry = (lay.unit, lay.key_size, lay.score_size, lay.marker_size)
    out: list[tuple[Item, Records]] = []
    for p in view["players"]:
        seat = p["seat"]
        x0, y0, x1, y1 = lay.cards[seat]
        state = (seat, p["name"], marks[seat], p["score"], p.get("rank", 0),
                 seat == to_move or (over and p.get("rank") == 1), seat == you, seat == to_move, deltas.get(seat, 0))
        card, records = card_image(state, (x1 - x0, y1 - y0), geometry, theme, locale)
        out.append(((("card", state, locale), card, x0, y0), records))
    return out


@lru_cache(maxsize=128)
def card_image(state: CardState, size: tuple[int, int], geometry: tuple[float, int, int, int], theme: Theme,
               locale: str) -> tuple[Image.Image, Records]:
    """A player's card and the texts on it (card pixels): the marker and the name, the last move's points on the
    right; the score, the place and, for the seat to move, ▶ and "to move". Lit (the seat to move, or the winner)
    or edged in the colour of the seat's own flags (a DM)."""
    seat, pname, mark, score, rank, lit, own, moving, delta = state
    u, key, score_size, marker_size = geometry
    W, H = size
    edge = theme.last_move if lit else theme.legal if own else theme.card_edge
    page = _Page(_card_ground(size, u, theme.card_active if lit else theme.card, edge, 4 if lit or own else 1.5,
                              theme).copy())
    pad = 12 * u
    cy = pad + LINE_SPACING * key / 2
    m = marker(marker_size, theme.player(seat), theme.ink(seat), mark, 0, theme.lap_ring)
    paste(page.img, m, pad, cy - m.height / 2)
    nx = pad + m.width + 10 * u
    right = W - pad
    if delta:  # the last move's points on the name's line, right
        label = f"{delta:+d}"
        page.text("points", right, cy, label, key, theme.good if delta > 0 else theme.bad, anchor="rm", seat=seat)
        right -= text_width(label, key, "bold") + 12 * u
    name, fitted = fit(pname, key, right - nx, "bold", min_size=key)
    top = script.bbox(name, fitted, "bold", "lm")[1]  # a script taller than the line (Arabic) stays inside
    page.text("name", nx, max(cy, 2 - top), name, fitted, theme.text, seat=seat)
    cy = H - pad - 0.6 * score_size
    x = page.text("score", pad, cy, str(score), score_size, theme.text, seat=seat) + 14 * u
    x = page.text("place", x, cy, t("render.rank", locale, rank=rank), key,
                  theme.last_move if rank == 1 else theme.muted, seat=seat) + 18 * u
    if moving:
        sign = icon("turn", round(key * 0.8), theme)
        page.sign("to_move", sign, x, cy - sign.height / 2, "▶", seat)
        x += sign.width + 6 * u
        page.text("to_move", x, cy, t("render.to_move_short", locale), key, theme.last_move, seat=seat)
    return page.img, tuple(page.written)


Word = tuple[str, str]
"""A word and its weight: the label's are bold, in the colour of the last move's marks."""


def _lines(words: list[Word], size: int, width: float) -> list[list[Word]]:
    """``words`` broken into lines no wider than ``width`` at spaces; a word wider than a line alone on it."""
    lines: list[list[Word]] = []
    line: list[Word] = []
    used = 0.0
    for word, weight in words:
        w = text_width(word, size, weight)
        space = text_width(" ", size, weight)
        if line and used + space + w > width:
            lines.append(line)
            line, used = [], 0.0
        used += (space if line else 0.0) + w
        line.append((word, weight))
    if line:
        lines.append(line)
    return lines


@lru_cache(maxsize=16)
def words_image(label: str, sentences: tuple[str, ...], size: tuple[int, int], geometry: tuple[float, int],
                theme: Theme) -> tuple[Image.Image, Records]:
    """The last move's words after their ``label`` (in a DM: every move since the seat's own) in their box (cached),
    as many lines as it holds, the last ending in "…" where they do not all fit; an empty box where nothing happened
    (a DM after the seat's own move)."""
    u, line = geometry
    W, H = size
    page = _Page(_card_ground(size, u, theme.card, theme.card, 0, theme).copy())
    if not sentences:
        return page.img, ()
    step = LINE_SPACING * line
    pad = 12 * u
    first = pad + ascent(line)  # the first baseline; the last one leaves room for the descenders
    most = 1 + int((H - pad - (line_height(line) - ascent(line)) - first) // step)
    width = W - 2 * pad
    words = [(w, "bold") for w in label.split()] + [(w, "regular") for w in " ".join(sentences).split()]
    lines = _lines(words, line, width)
    if len(lines) > most:
        lines = lines[:most]
        lines[-1] = [*lines[-1], ("…", "regular")]
        while len(lines[-1]) > 2 and _lines(lines[-1], line, width) != [lines[-1]]:
            lines[-1] = [*lines[-1][:-2], ("…", "regular")]
    y = first
    for words_of_line in lines:
        x = pad
        for weight in ("bold", "regular"):  # the label's words first, then the others, each run recorded as one
            run = " ".join(word for word, w in words_of_line if w == weight)
            if not run:
                continue
            room = W - pad - x
            if text_width(run, line, weight) > room:  # one word longer than a line (a name without spaces)
                run, _ = fit(run, line, room, weight, min_size=line)
            colour = theme.last_move if weight == "bold" else theme.text
            x = page.line("words", x, y, run, line, colour, weight=weight) + text_width(" ", line)
        y += step
    return page.img, tuple(page.written)


def _words_item(lay: OverviewLayout, last: LastMove, theme: Theme, locale: str) -> tuple[Item, Records]:
    x0, y0, x1, y1 = lay.words
    label = t(last.label, locale)
    sentences = tuple(last.sentences)
    img, records = words_image(label, sentences, (x1 - x0, y1 - y0), (lay.unit, lay.line_size), theme)
    return (("words", label, sentences), img, x0, y0), records


def _composed(view: View, locale: str, personal: bool, theme: Theme,
              then: Callable[[Layers, tuple[str, str, Theme, int], Image.Image, list[Item], Image.Image], T],
              ) -> tuple[T, Image.Image, list[Written]]:
    """The overview's items, given with its layers' key, its base and its palette to ``then``; what ``then`` made
    of them, the palette and every text drawn."""
    if personal and view.get("you") is None:
        raise ValueError("a personal picture needs a seat's view (game.view(seat)), not the public view")
    locale = normalize_locale(locale)
    board = view["board"]
    players = view["players"]
    static_key = static_board(board)
    base, lay, palette = get_overview_base(board, theme, len(players), static_key)
    marks = theme.marks([p["name"] for p in players])
    last = describe(view, locale)
    legal = set(legal_sites(view)) if personal else set()
    you = view["you"]["seat"] if personal and view.get("you") is not None else None
    items = site_items(lay, view, theme, marks, last, legal)
    written = [Written("number", str(key[1]), (x, y, x + spr.width, y + spr.height),
                       cap_height(lay.number_size, "condensed"))
               for key, spr, x, y in items if isinstance(key, tuple) and key[0] == "number"]  # words too
    for item, records in [_header_item(lay, view, theme, locale, marks),
                          *_card_items(lay, view, theme, locale, marks, last.deltas, you),
                          _words_item(lay, last, theme, locale)]:
        items.append(item)
        written += _moved(records, item[2], item[3])
    return then(LAYERS, ("overview", static_key, theme, len(players)), base, items, palette), palette, written


def compose_overview(view: View, *, locale: str = "en", personal: bool = False,
                     theme: Theme = DEFAULT_THEME) -> tuple[Image.Image, Image.Image, list[Written]]:
    """The overview as an RGB image, the palette it is written with, and every text drawn on it."""
    return _composed(view, locale, personal, theme,
                     lambda layers, key, base, items, _palette: layers.compose(key, base, items))


def quantized_overview(view: View, *, locale: str = "en", personal: bool = False,
                       theme: Theme = DEFAULT_THEME) -> Image.Image:
    """The overview in its palette's colours: only what changed since a kept picture is quantized again."""
    return _composed(view, locale, personal, theme, lambda layers, key, base, items, palette: layers.paletted(
        key, base, items, palette, quantized))[0]


def render_overview(view: View, *, locale: str = "en", personal: bool = False,
                    theme: Theme = DEFAULT_THEME) -> bytes:
    """The overview of ``view`` as PNG bytes, ``theme.overview_share`` of ``theme.width`` wide.

    ``personal=True`` needs a seat's view: it flags the sites of the seat's legal moves and tells every move since
    its own last one. Like the board, it is drawn from the view alone.
    """
    return write_png(quantized_overview(view, locale=locale, personal=personal, theme=theme), theme)


__all__ = ["OverviewLayout", "Written", "compose_overview", "least_scale", "overview_layout", "quantized_overview",
           "render_overview"]
