"""The overview's island: the map drawn once for every player count and language (sea, land, rivers, roads, as the
board picture draws them, scaled into the map's rectangle) with the overview's palette made from it, and its sites
as small tiles with their buildings in the players' colours; the last move's sites ringed and, in a DM, the legal
sites ringed and numbered (:func:`site_items`, the island's items of the overview's layer).
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Final

from PIL import Image, ImageDraw

from engine.types import BoardView, View
from render import script
from render.base import Kept, make_palette, paint_board, theme_colours
from render.describe import LastMove
from render.draw import shape_points, sprite
from render.icons import icon, paint_piece
from render.island import placed_board, static_board
from render.layer import Item
from render.layout import Layout
from render.overview_layout import OverviewLayout
from render.theme import RGB, Theme
from render.tiles import back_colour, badge, badge_centre, face_colour, ring

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


def site_at(lay: Layout, sid: int) -> tuple[float, float]:
    """The top-left corner of a site's sprite on the overview."""
    cx, cy = lay.centers[sid]
    pad = _pad(lay.tile_h)
    return (cx - lay.tile_w / 2 - pad, cy - lay.tile_h / 2 - pad)


_ISLANDS: Kept[tuple[object, ...], tuple[Image.Image, Image.Image]] = Kept(3)
"""The overview's island and palette, kept for every player count (the island is as large for all of them)."""


def island_and_palette(board: BoardView, lay: OverviewLayout, theme: Theme) -> tuple[Image.Image, Image.Image]:
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
            *site_at(mini, sid))
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
