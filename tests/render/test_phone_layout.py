"""The board picture read on a phone: what a player must read on the island is as large as the theme asks when the
picture is shown 400 pixels wide, and the larger tiles this takes still stand apart, inside the board."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import pytest

import engine
from render.fonts import cap_height
from render.icons import SILHOUETTES
from render.island import arrange_islands, placed_board
from render.layout import make_layout
from render.theme import Theme
from render.tiles import GLYPH_SPOT, PIECE_X, PIECE_Y, badge_centre, face_parts, site_badge


def _board() -> engine.BoardView:
    return engine.new_game(["Ada", "Björn", "Céline", "Đorđe"], 13).view(None)["board"]


@pytest.mark.parametrize(("width", "personal", "players"), [(1600, False, 4), (1600, True, 3), (800, False, 2),
                                                            (640, False, 4)])
def test_a_tile_s_points_icons_and_number_are_readable_at_400_pixels(width: int, personal: bool,
                                                                     players: int) -> None:
    """Build points and the fish bonus at least :attr:`Theme.phone_text` tall, resource and bird icons at least
    :attr:`Theme.phone_icon` wide, site numbers at least the phone's text size; and each tile has room for them: two
    icons in its column, the figures inside the building's silhouette, the silhouette beside the column."""
    theme = Theme(width=width)
    if personal:
        theme = replace(theme, width=round(width * theme.personal_share))
    lay = make_layout(_board(), theme, players, personal)
    shown = theme.phone_width / lay.width
    glyph, icon_px, digits = face_parts(lay.tile_h, theme)
    assert cap_height(digits, "bold") * shown >= theme.phone_text == 9
    assert icon_px * shown >= theme.phone_icon == 12
    assert cap_height(lay.number_size, "condensed") * shown >= theme.phone_text
    badge = site_badge(46, False, lay.tile_h, theme)
    assert badge.height * shown >= theme.phone_text
    assert 2 * icon_px <= lay.tile_h  # the column holds two resources
    assert 0.08 * lay.tile_w + icon_px <= lay.tile_w - (PIECE_X * lay.tile_w + glyph / 2) + 0.02 * lay.tile_w
    assert PIECE_Y * lay.tile_h + glyph / 2 <= lay.tile_h * 1.02  # the silhouette stays on the tile
    for building, (fx, fy) in GLYPH_SPOT.items():  # the figure sits inside the silhouette's body
        xs = [p[0] for p in SILHOUETTES[building]]
        ys = [p[1] for p in SILHOUETTES[building]]
        assert min(xs) < fx < max(xs) and min(ys) < fy < max(ys)
        assert cap_height(digits, "bold") <= 0.5 * glyph  # the body's half of the silhouette holds it


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_larger_tiles_stand_apart_inside_the_board(players: int) -> None:
    """No two tiles overlap (the sites are nudged apart for their size), no site number covers another site's, and
    every tile lies inside the board's area."""
    lay = make_layout(_board(), Theme(), players, False)
    w, h = lay.tile_w, lay.tile_h
    bx0, by0, bx1, by1 = lay.board
    for (a, (xa, ya)), (b, (xb, yb)) in itertools.combinations(lay.centers.items(), 2):
        assert abs(xa - xb) >= w or abs(ya - yb) >= h, (a, b)
        pa, pb = badge_centre(xa, ya, w, h), badge_centre(xb, yb, w, h)
        assert abs(pa[0] - pb[0]) >= 0.6 * w or abs(pa[1] - pb[1]) >= 0.6 * h, (a, b)
    for x, y in lay.centers.values():
        assert bx0 <= x - w / 2 and x + w / 2 <= bx1 and by0 <= y - h / 2 and y + h / 2 <= by1


def test_islands_move_to_draw_the_board_larger_and_never_onto_each_other() -> None:
    """The island with the most sites stays; the others move only to where the board is drawn larger; each island
    keeps its shape and sites (every point of it moved by the same amount) and no two islands come closer than the
    sea between them."""
    board = _board()
    shifts = arrange_islands(board)
    placed = placed_board(board)
    assert "main" not in shifts and shifts  # the northwest island leaves the main island's west side
    by_id = {s["id"]: s for s in board["sites"]}
    for site in placed["sites"]:
        dx, dy = shifts.get(site["island"], (0.0, 0.0))
        assert site["pos"] == [by_id[site["id"]]["pos"][0] + dx, by_id[site["id"]]["pos"][1] + dy]

    def box(isl: engine.types.IslandShape) -> tuple[float, float, float, float]:
        xs = [p[0] for p in isl["outline"]]
        ys = [p[1] for p in isl["outline"]]
        return min(xs), min(ys), max(xs), max(ys)

    def span(islands: list[engine.types.IslandShape]) -> tuple[float, float]:
        boxes = [box(i) for i in islands]
        return (max(b[2] for b in boxes) - min(b[0] for b in boxes),
                max(b[3] for b in boxes) - min(b[1] for b in boxes))

    before, after = span(board["islands"]), span(placed["islands"])
    assert after[0] < 0.85 * before[0]  # narrower: a phone's width holds it at a larger scale
    for a, b in itertools.combinations(placed["islands"], 2):  # apart by their boxes or by the sea between them
        ba, bb = box(a), box(b)
        apart = ba[2] <= bb[0] or bb[2] <= ba[0] or ba[3] <= bb[1] or bb[3] <= ba[1]
        near = min(math.dist(p, q) for p in a["outline"] for q in b["outline"])
        assert apart or near > 20, (a["id"], b["id"], near)
