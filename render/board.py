"""``render_board``: the picture of a position, made from a view and nothing else.

Layers, in drawing order on a copy of the cached base (``render/base.py``):

1. marks under the tiles: the last move's builds (a band in the highlight colour; in a seat's picture asked
   with ``since``, the builds of every move since its own last one), the seat's legal sites in a personal
   picture (a band in the legal colour);
2. every site that differs from the base: its tile (face, or back under a mark) and the buildings on
   it in player colours with the players' letters (two on a shared tile), as one cached sprite;
3. marks over the tiles: tiles revealed by the last move (dashed outline and a star), destroyed
   buildings (a cross), legal sites (a flag);
4. every site's number on a badge, over everything else (bright on a legal site);
5. header, last-move bar, the scoring cards played this round, personal strip, player panel, score-track
   markers.

The picture is then quantized with the base's fixed palette and written as a PNG.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PIL import Image

from engine.types import View
from i18n import normalize_locale
from render import layer
from render.base import get_base, tile_origin
from render.chrome import paint_last_move, paint_played, paint_you
from render.describe import LastMove, describe, legal_sites, other_moves
from render.encode import encode
from render.header import paint_header
from render.icons import icon
from render.island import static_board
from render.layer import Item
from render.layout import Layout
from render.panel import paint_panel
from render.theme import DEFAULT_THEME, Theme
from render.tiles import badge_centre, dashed_outline, ring, site_badge, stack, tile_key
from render.track import paint_track, paint_track_title


def board_items(view: View, lay: Layout, theme: Theme, marks: list[str], last: LastMove,
                legal: set[int]) -> list[Item]:
    """The island's sprites in drawing order, positioned on the page."""
    items: list[Item] = []
    w, h = lay.tile_w, lay.tile_h
    sites = {s["id"]: s for s in view["board"]["sites"]}

    def add(key: tuple[Any, ...], spr: Image.Image, x: float, y: float) -> None:
        items.append((key, spr, round(x), round(y)))

    # 1. bands under the tiles
    for colour, chosen in ((theme.legal, sorted(legal)), (theme.last_move, sorted(last.built))):
        for sid in chosen:
            if sid in sites:
                kind = sites[sid]["kind"]
                add(("ring", kind, colour), ring(kind, w, h, colour, 0.16), *tile_origin(lay, sid))
    # 2. tiles and buildings (a face-down site without marks is in the base already)
    for sid, site in sites.items():
        tile = site.get("tile")
        occupants = site.get("buildings") or []
        is_legal = sid in legal
        if tile is None and not occupants and not is_legal and sid not in last.built:
            continue
        who = tuple((b["type"], theme.player(b["seat"]), theme.ink(b["seat"]), marks[b["seat"]])
                    for b in occupants)
        tk = tile_key(tile) if tile is not None else None
        add(("stack", site["kind"], tk, who), stack(site["kind"], tk, who, w, h, theme), *tile_origin(lay, sid))
    # 3. marks over the tiles
    star = icon("reveal", round(h * 0.42), theme)
    for sid in last.revealed:
        if sid in sites:
            kind = sites[sid]["kind"]
            add(("dash", kind), dashed_outline(kind, w, h, theme.reveal), *tile_origin(lay, sid))
            cx, cy = lay.centers[sid]
            add(("star",), star, cx + w * 0.42 - star.width / 2, cy - h * 0.5 - star.height / 2)
    cross = icon("destroy", round(h * 0.8), theme)
    for sid in last.destroyed:
        if sid in sites:
            cx, cy = lay.centers[sid]
            add(("cross",), cross, cx - cross.width / 2, cy - cross.height / 2)
    flag = icon("flag", round(h * 0.62), theme)
    for sid in sorted(legal):
        if sid in sites:
            cx, cy = lay.centers[sid]
            add(("flag",), flag, cx + w * 0.3, cy - h * 0.5 - flag.height * 0.75)
    # 4. every site's number, over everything (bright on legal sites)
    for sid in sites:
        spr = site_badge(sid, sid in legal, h, theme)
        bx, by = badge_centre(*lay.centers[sid], w, h)
        add(("badge", sid, sid in legal), spr, bx - spr.width / 2, by - spr.height / 2)
    return items


def compose_board(view: View, *, locale: str = "en", personal: bool = False,
                  theme: Theme = DEFAULT_THEME) -> tuple[Image.Image, Image.Image]:
    """The picture as an RGB image, with the palette it is written with."""
    if personal and view.get("you") is None:
        raise ValueError("a personal picture needs a seat's view (game.view(seat)), not the public view")
    locale = normalize_locale(locale)
    if personal:  # a DM picture: narrower (smaller to send), its text as tall on a phone
        theme = replace(theme, width=round(theme.width * theme.personal_share))
    board = view["board"]
    players = view["players"]
    base = get_base(board, static_board(board), theme, len(players), personal)
    lay = base.layout
    marks = theme.marks([p["name"] for p in players])
    last = describe(view, locale)
    legal = set(legal_sites(view)) if personal else set()
    img = layer.compose(base.key, base.image, board_items(view, lay, theme, marks, last, legal))
    paint_track_title(img, lay, theme, locale)
    paint_header(img, lay, view, theme, locale, marks)
    paint_last_move(img, lay, last.sentences, theme, locale, last.label)
    paint_played(img, lay, view, theme, locale, marks)
    if personal:
        paint_you(img, lay, view, theme, locale, len(legal), other_moves(view, locale))
    paint_panel(img, lay, view, theme, locale, marks, last.deltas)
    paint_track(img, lay, view, theme, marks)
    return img, base.palette


def render_board(view: View, *, locale: str = "en", personal: bool = False,
                 theme: Theme = DEFAULT_THEME) -> bytes:
    """The board picture of ``view`` as PNG bytes.

    ``personal=True`` needs a seat's view and flags and numbers the sites of its legal moves; it shows
    that seat's own secrets (its scoring cards and bird chips) and nobody else's. It is
    ``theme.personal_share`` of ``theme.width`` wide.
    """
    img, palette = compose_board(view, locale=locale, personal=personal, theme=theme)
    return encode(img, palette, theme)
