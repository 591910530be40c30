"""The island as every picture places it, in board units, before any page is laid out.

A view's board never changes its static part during a game (:func:`static_board`, the key of every picture's
cache). The project's island has several islands: :func:`arrange_islands` moves them where the board is drawn
largest on a page of a phone's proportions, and :func:`placed_board` is the board with its islands there, the same
for every picture of it. Sites are drawn as tiles :data:`TILE_ASPECT` times as wide as tall, their height a share
of the distance between neighbouring sites (:func:`unit_tile_height`). :mod:`render.layout` turns this into pixels.
"""

from __future__ import annotations

import copy
import json
import math
import threading
from typing import Any

from PIL import Image, ImageChops, ImageDraw, ImageFilter

from engine.types import BoardView, IslandShape

TILE_ASPECT = 1.45
"""Width / height of a building site's box."""
TILE_FILL = 0.62
"""Tile height as a share of the median distance between neighbouring sites."""


def static_board(board: BoardView) -> str:
    """The part of a view's board that never changes during a game, as canonical text (a cache key)."""
    sites = [(s["id"], s["kind"], s.get("island", ""), s["pos"]) for s in board["sites"]]
    rivers = [(r["id"], r["edges"], r.get("source"), r.get("mouth")) for r in board.get("rivers", [])]
    return json.dumps([board.get("name", ""), board.get("size"), board.get("islands", []), board.get("roads", []),
                       rivers, sites], separators=(",", ":"))


ARRANGE_RES = 4.0
"""Board units per pixel of the masks with which islands are kept apart while they are arranged."""
ISLAND_GAP = 0.6
"""The sea kept between two islands, in tile heights (room for the shallow water and the beaches)."""
BOARD_ASPECT = 1.15
"""The board's area may be this many times as tall as it is wide: the height that islands arranged for a larger
scale may take (a phone shows the picture 400 pixels wide, so the scale is what makes the island readable)."""

Shift = tuple[float, float]


def _island_points(board: BoardView, island: IslandShape, hu: float) -> list[tuple[float, float]]:
    """An island's outline, the corners of its sites' tiles and its rivers' ends: what its area holds."""
    pts = [(float(x), float(y)) for x, y in island.get("outline") or []]
    wu = hu * TILE_ASPECT
    ids = set()
    for s in board["sites"]:
        if s.get("island") == island["id"]:
            ids.add(s["id"])
            x, y = float(s["pos"][0]), float(s["pos"][1])
            pts += [(x - 0.8 * wu, y - hu), (x + 0.8 * wu, y - hu), (x + 0.8 * wu, y + 0.8 * hu),
                    (x - 0.8 * wu, y + 0.8 * hu)]
    for river in board.get("rivers", []):
        if any(a in ids for edge in river["edges"] for a in edge):
            for end in (river.get("source"), river.get("mouth")):
                if isinstance(end, list | tuple) and len(end) == 2:
                    pts.append((float(end[0]), float(end[1])))
    return pts


def _island_mask(board: BoardView, island: IslandShape, hu: float, grow: float) -> tuple[Image.Image, float, float]:
    """The island's area (outline and tiles) as a mask of :data:`ARRANGE_RES` units a pixel, grown by ``grow``
    units on every side, with the board point of its top-left pixel."""
    pts = _island_points(board, island, hu)
    g = math.ceil(grow / ARRANGE_RES)
    x0, y0 = min(p[0] for p in pts) - g * ARRANGE_RES, min(p[1] for p in pts) - g * ARRANGE_RES
    w = math.ceil((max(p[0] for p in pts) - x0) / ARRANGE_RES) + g + 2
    h = math.ceil((max(p[1] for p in pts) - y0) / ARRANGE_RES) + g + 2
    mask = Image.new("L", (w, h), 0)
    d = ImageDraw.Draw(mask)

    def P(x: float, y: float) -> tuple[float, float]:
        return ((x - x0) / ARRANGE_RES, (y - y0) / ARRANGE_RES)

    if island.get("outline"):
        d.polygon([P(float(x), float(y)) for x, y in island["outline"]], fill=255)
    wu = hu * TILE_ASPECT
    for s in board["sites"]:
        if s.get("island") == island["id"]:
            x, y = float(s["pos"][0]), float(s["pos"][1])
            d.rectangle([P(x - 0.8 * wu, y - hu), P(x + 0.8 * wu, y + 0.8 * hu)], fill=255)
    for _ in range(g):
        mask = mask.filter(ImageFilter.MaxFilter(3))
    return mask, x0, y0


def _extent(boxes: list[tuple[float, float, float, float]]) -> tuple[float, float]:
    return (max(b[2] for b in boxes) - min(b[0] for b in boxes), max(b[3] for b in boxes) - min(b[1] for b in boxes))


def arrange_islands(board: BoardView) -> dict[str, Shift]:
    """How far each island moves (board units) so that the board is drawn at the largest scale.

    The island with the most sites stays; each other island goes where the board's area, as wide as the page and
    at most :data:`BOARD_ASPECT` times as tall, shows the whole board largest, keeping :data:`ISLAND_GAP` of sea
    from the others, and of such places the one nearest to where the island's data puts it (so a board whose
    islands already sit well keeps its shape). Islands are only moved, never turned or scaled.
    """
    islands = [i for i in board.get("islands", []) if i.get("outline")]
    if len(islands) < 2:
        return {}
    pos = {s["id"]: (float(s["pos"][0]), float(s["pos"][1])) for s in board["sites"]}
    hu = unit_tile_height(pos)
    count = {i["id"]: sum(1 for s in board["sites"] if s.get("island") == i["id"]) for i in islands}
    islands.sort(key=lambda i: -count[i["id"]])
    boxes = {}
    for isl in islands:
        pts = _island_points(board, isl, hu)
        boxes[isl["id"]] = (min(p[0] for p in pts), min(p[1] for p in pts), max(p[0] for p in pts),
                            max(p[1] for p in pts))
    shifts: dict[str, Shift] = {i["id"]: (0.0, 0.0) for i in islands}
    plain = {i["id"]: _island_mask(board, i, hu, 0.0) for i in islands}
    grown = {i["id"]: _island_mask(board, i, hu, ISLAND_GAP * hu) for i in islands}

    def scale(extent: tuple[float, float]) -> float:
        return min(1 / extent[0], BOARD_ASPECT / extent[1])

    def placed(iid: str) -> tuple[float, float, float, float]:
        (dx, dy), b = shifts[iid], boxes[iid]
        return (b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy)

    step = 2 * ARRANGE_RES
    for _ in range(2):
        for isl in islands[1:]:
            iid = isl["id"]
            others = [o["id"] for o in islands if o["id"] != iid]
            ob = [placed(o) for o in others]
            b = boxes[iid]
            iw, ih = b[2] - b[0], b[3] - b[1]
            left, top = min(o[0] for o in ob) - iw, min(o[1] for o in ob) - ih
            right, bottom = max(o[2] for o in ob) + iw, max(o[3] for o in ob) + ih
            sea = Image.new("L", (math.ceil((right - left) / ARRANGE_RES) + 1,
                                  math.ceil((bottom - top) / ARRANGE_RES) + 1), 0)
            for o in others:
                m, mx, my = plain[o]
                sea.paste(m, (round((mx + shifts[o][0] - left) / ARRANGE_RES),
                              round((my + shifts[o][1] - top) / ARRANGE_RES)), m)
            mine, mx, my = grown[iid]
            ox, oy = shifts[iid]
            candidates = []
            # the others' extent once: with the island's box, the same as _extent([*ob, box])
            lo_x, lo_y = min(o[0] for o in ob), min(o[1] for o in ob)
            hi_x, hi_y = max(o[2] for o in ob), max(o[3] for o in ob)
            for i in range(round((right - left - iw) / step) + 1):
                dx = left + i * step - b[0]
                x0, x1 = b[0] + dx, b[2] + dx
                width = max(hi_x, x1) - min(lo_x, x0)
                for j in range(round((bottom - top - ih) / step) + 1):
                    dy = top + j * step - b[1]
                    s = scale((width, max(hi_y, b[3] + dy) - min(lo_y, b[1] + dy)))
                    candidates.append((-round(s * 1e6), math.dist((dx, dy), (ox, oy)), dx, dy))
            candidates.append((-round(scale(_extent([*ob, placed(iid)])) * 1e6), 0.0, ox, oy))
            candidates.sort()
            for _s, _d, dx, dy in candidates:
                at = (round((mx + dx - left) / ARRANGE_RES), round((my + dy - top) / ARRANGE_RES))
                under = sea.crop((at[0], at[1], at[0] + mine.width, at[1] + mine.height))
                if ImageChops.darker(under, mine).getbbox() is None:
                    shifts[iid] = (dx, dy)
                    break
    return {iid: s for iid, s in shifts.items() if s != (0.0, 0.0)}


_PLACED: dict[str, BoardView] = {}
_PLACED_LOCK = threading.Lock()


def placed_board(board: BoardView) -> BoardView:
    """``board`` with its islands where :func:`arrange_islands` puts them (sites, outlines, volcanoes and rivers'
    ends moved with their island); the same board (cached by its static part) for every picture of it."""
    key = static_board(board)
    with _PLACED_LOCK:
        done = _PLACED.get(key)
    if done is not None:
        return done
    shifts = arrange_islands(board)
    out = copy.deepcopy(board)
    if shifts:
        site_island = {s["id"]: s.get("island", "") for s in out["sites"]}

        def moved(p: Any, iid: str) -> Any:
            dx, dy = shifts.get(iid, (0.0, 0.0))
            return [p[0] + dx, p[1] + dy]

        for s in out["sites"]:
            s["pos"] = moved(s["pos"], s.get("island", ""))
        for isl in out.get("islands", []):
            isl["outline"] = [moved(p, isl["id"]) for p in isl.get("outline") or []]
            volcano = isl.get("volcano")
            if volcano:
                volcano["center"] = moved(volcano["center"], isl["id"])
        for river in out.get("rivers", []):
            members = [s for e in river["edges"] for s in e if s in site_island]
            iid = site_island[members[0]] if members else ""
            for end in ("source", "mouth"):
                p = river.get(end)
                if isinstance(p, list | tuple) and len(p) == 2:
                    river[end] = moved(list(p), iid)
    with _PLACED_LOCK:
        _PLACED[key] = out
    return out


def unit_tile_height(pos: dict[int, tuple[float, float]]) -> float:
    """A tile height (drawing units) from the median distance between each site and its nearest one."""
    nearest = sorted(min((math.dist(p, q) for b, q in pos.items() if b != a), default=60.0)
                     for a, p in pos.items())
    return TILE_FILL * nearest[len(nearest) // 2] if nearest else 40.0
