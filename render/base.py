"""The static picture, drawn once per board, theme, player count and kind of picture (the same in every language).

Layers, bottom to top: page background; sea with waves; shallow water, beaches and land of each island
(from its outline, or blobs around the sites when the board has no outlines); volcano cones; rivers
(blue, wavy, from source through their edges to the mouth); roads (straight, sandy, drawn over rivers
like bridges); every site as a face-down tile with its number; then the empty frames of the last-move bar, the
scoring cards played, a seat's own strip and the score track's cells (its title is in the picture's language, drawn
with each picture: :func:`render.track.paint_track_title`; the legend is a picture of its own). Each
render copies this image and draws only what changes on top (see ``render/board.py``), and quantizes with the palette
made here (from the English four-player picture and a sample of what changes on it, :func:`paint_sample`: one palette
for every language and player count, :func:`base_palette`). The island with its face-down sites is the same in every
language and for every player count at one width: it is drawn once for them all (:func:`island`).
"""

from __future__ import annotations

import math
import random
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

from PIL import Image, ImageDraw

from engine import BUILDINGS
from engine.types import BoardView
from render import chrome
from render.draw import chaikin, paste, text
from render.encode import quantized
from render.icons import faded, marker, piece
from render.island import placed_board
from render.layout import Layout, make_layout
from render.theme import RGB, Theme
from render.tiles import badge, badge_centre, face, mix, pad_of, ring, site_badge, stack
from render.track import paint_track_title

BOARD_SS = 2
"""Supersampling of the board layer."""


@dataclass(frozen=True, slots=True)
class Base:
    """A cached static picture with its layout and output palette."""

    key: tuple[str, Theme, int, bool]
    image: Image.Image
    """The page in its palette's colours (mode ``P``): a quarter of an RGB page's memory, and what its pixels are
    written as anyway; a picture is drawn on an RGB copy of it (``Image.convert``, as fast as ``Image.copy``)."""
    layout: Layout
    palette: Image.Image


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Kept(Generic[K, V]):
    """The values last made, by key, for every thread: a value is made once (under the lock, so that two threads
    never draw the same picture) and the least recently used goes first once ``size`` are kept."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K, make: Callable[[], V]) -> V:
        """The value kept for ``key``, else the one ``make`` gives, kept."""
        with self._lock:
            value = self._items.get(key)
            if value is None:
                value = self._items[key] = make()
                while len(self._items) > self.size:
                    self._items.popitem(last=False)
            else:
                self._items.move_to_end(key)
            return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


class _Outline:
    """A closed polygon that answers "is this point inside?" (even-odd rule) from the few edges at the point's height.

    Its edges are filed in horizontal bands; a point is tested against the edges of its band only, with the very
    test that a walk round the whole outline makes (an edge that does not span the point's height never counts), so
    the answer is the same, without a walk of hundreds of edges for each of the land's bushes.
    """

    __slots__ = ("band_h", "bands", "top")

    def __init__(self, poly: list[tuple[float, float]], bands: int = 64) -> None:
        edges = [(*poly[i], *poly[(i + 1) % len(poly)]) for i in range(len(poly))]
        ys = [p[1] for p in poly]
        self.top = min(ys)
        self.band_h = max(1e-9, (max(ys) - self.top) / bands)
        self.bands: list[list[tuple[float, float, float, float]]] = [[] for _ in range(bands + 1)]
        for e in edges:
            lo, hi = sorted((e[1], e[3]))
            for b in range(self._band(lo), self._band(hi) + 1):
                self.bands[b].append(e)

    def _band(self, y: float) -> int:
        return min(len(self.bands) - 1, max(0, int((y - self.top) / self.band_h)))

    def __contains__(self, point: tuple[float, float]) -> bool:
        x, y = point
        hit = False
        for x0, y0, x1, y1 in self.bands[self._band(y)]:
            if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
                hit = not hit
        return hit


def _wavy(a: tuple[float, float], b: tuple[float, float], amp: float, wavelength: float) -> list[tuple[float, float]]:
    """Points of a wavy line from ``a`` to ``b`` whose waves fade out at both ends (so joins are smooth)."""
    length = math.dist(a, b)
    if length < 1:
        return [a, b]
    nx, ny = -(b[1] - a[1]) / length, (b[0] - a[0]) / length
    waves = max(1, round(length / wavelength))
    n = max(12, int(length / 3))
    pts = []
    for i in range(n + 1):
        f = i / n
        off = amp * math.sin(f * waves * 2 * math.pi) * math.sin(f * math.pi)
        pts.append((a[0] + (b[0] - a[0]) * f + nx * off, a[1] + (b[1] - a[1]) * f + ny * off))
    return pts


def paint_board(img: Image.Image, lay: Layout, board: BoardView, theme: Theme) -> None:
    """Sea, islands, volcanoes, rivers and roads into the board rectangle of ``img``."""
    k = BOARD_SS
    bx0, by0, bx1, by1 = lay.board
    big = Image.new("RGB", ((bx1 - bx0) * k, (by1 - by0) * k), theme.sea)
    d = ImageDraw.Draw(big)
    th = lay.tile_h

    def P(p: Any) -> tuple[float, float]:
        x, y = lay.to_px(p)
        return ((x - bx0) * k, (y - by0) * k)

    centers = {sid: ((x - bx0) * k, (y - by0) * k) for sid, (x, y) in lay.centers.items()}
    rng = random.Random(board.get("name", "board"))
    # --- sea: a few wave marks
    for _ in range(int(big.width * big.height / (k * k * 9000))):
        x, y = rng.uniform(0, big.width), rng.uniform(0, big.height)
        r = rng.uniform(5, 9) * k * lay.unit
        d.arc([x - r, y - r / 2, x + r, y + r / 2], 200, 340, fill=theme.sea_wave,
              width=max(1, round(2 * k * lay.unit)))
    # --- islands
    outlines = [chaikin([P(p) for p in isl["outline"]], 2) for isl in board.get("islands", []) if isl.get("outline")]
    shallow_w = round(0.55 * th * k)
    beach_w = round(0.22 * th * k)
    for pts in outlines:
        d.line([*pts, pts[0], pts[1]], fill=theme.shallow, width=shallow_w, joint="curve")
    for pts in outlines:
        d.polygon(pts, fill=theme.land)
        d.line([*pts, pts[0], pts[1]], fill=theme.beach, width=beach_w, joint="curve")
    if not outlines:  # a board without outlines: land around its sites and along its roads
        r_land = 0.85 * lay.tile_w * k
        for layer, extra in ((theme.shallow, 0.5 * th * k), (theme.beach, 0.16 * th * k), (theme.land, 0)):
            for a, b in board.get("roads", []):
                if a in centers and b in centers:
                    d.line([centers[a], centers[b]], fill=layer, width=round(1.2 * r_land + 2 * extra))
            for x, y in centers.values():
                rr = r_land + extra
                d.ellipse([x - rr, y - rr * 0.8, x + rr, y + rr * 0.8], fill=layer)
    # --- land texture: small shaded bushes away from the sites
    for pts in outlines:
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        x_lo, x_hi, y_lo, y_hi = min(xs), max(xs), min(ys), max(ys)
        outline = _Outline(pts)
        for _ in range(int((x_hi - x_lo) * (y_hi - y_lo) / (k * k * 700))):
            x, y = rng.uniform(x_lo, x_hi), rng.uniform(y_lo, y_hi)
            if (x, y) not in outline:
                continue
            if any(math.dist((x, y), c) < 0.75 * lay.tile_w * k for c in centers.values()):
                continue
            if any(math.dist((x, y), (x2, y2)) < beach_w for x2, y2 in pts[::3]):
                continue
            r = rng.uniform(3, 6) * k * lay.unit
            d.ellipse([x - r, y - r * 0.8, x + r, y + r * 0.8], fill=theme.land_shade)
    # --- volcanoes
    for isl in board.get("islands", []):
        v = isl.get("volcano")
        if not v:
            continue
        cx, cy = P(v["center"])
        R = float(v["radius"]) * lay.scale * k
        steps = 8
        for i in range(steps):
            f = 1 - i / steps
            c = mix(theme.land, theme.volcano_slope, min(1.0, 0.45 + i / steps))
            d.ellipse([cx - R * f, cy - R * f, cx + R * f, cy + R * f], fill=c)
        for a in range(0, 360, 30):
            rad = math.radians(a + 10)
            d.line([(cx + math.cos(rad) * R * 0.4, cy + math.sin(rad) * R * 0.4),
                    (cx + math.cos(rad) * R * 0.95, cy + math.sin(rad) * R * 0.95)],
                   fill=mix(theme.volcano_slope, theme.volcano_rim, 0.5), width=max(1, round(R * 0.02)))
        rim = R * 0.36
        d.ellipse([cx - rim, cy - rim, cx + rim, cy + rim], fill=theme.volcano_rim)
        cr = R * 0.27
        d.ellipse([cx - cr, cy - cr, cx + cr, cy + cr], fill=theme.crater)
        lv = R * 0.15
        d.ellipse([cx - lv, cy - lv, cx + lv, cy + lv], fill=theme.lava)
        for a in (35, 150, 260):
            rad = math.radians(a)
            d.line([(cx + math.cos(rad) * R * 0.2, cy + math.sin(rad) * R * 0.2),
                    (cx + math.cos(rad) * R * 0.5, cy + math.sin(rad) * R * 0.5)], fill=theme.lava,
                   width=max(2, round(R * 0.05)))
    # --- rivers: wavy blue bands from source through their edges to the mouth
    rw = max(4, round(0.3 * th * k))
    amp, wl = 0.1 * th * k, 0.9 * th * k
    courses: list[tuple[list[tuple[float, float]], float]] = []
    ends: list[tuple[float, float, float]] = []
    for river in board.get("rivers", []):
        members = sorted({s for e in river["edges"] for s in e if s in centers})
        for a, b in river["edges"]:
            if a in centers and b in centers:
                courses.append((_wavy(centers[a], centers[b], amp, wl), 1.0))
        for end, widen in ((river.get("source"), 0.7), (river.get("mouth"), 1.5)):
            if isinstance(end, list | tuple) and len(end) == 2 and members:
                p = P(end)
                near = min(members, key=lambda s: math.dist(centers[s], p))
                courses.append((_wavy(centers[near], p, amp, wl), widen))
                ends.append((p[0], p[1], widen))
    for pts, f in courses:
        d.line(pts, fill=mix(theme.river, (0, 0, 0), 0.35), width=round(rw * f) + 2 * k, joint="curve")
    for x, y, f in ends:
        r = rw * f * 0.75 + k
        d.ellipse([x - r, y - r, x + r, y + r], fill=mix(theme.river, (0, 0, 0), 0.35))
    for pts, f in courses:
        d.line(pts, fill=theme.river, width=round(rw * f), joint="curve")
    for x, y, f in ends:
        r = rw * f * 0.75
        d.ellipse([x - r, y - r, x + r, y + r], fill=theme.river)
    for pts, _f in courses:
        d.line(pts, fill=theme.river_light, width=max(1, round(rw * 0.25)), joint="curve")
    # --- roads: straight sandy bands with dark edges
    road_w = max(4, round(0.14 * th * k))
    for a, b in board.get("roads", []):
        if a in centers and b in centers:
            d.line([centers[a], centers[b]], fill=theme.road_edge, width=road_w + 3 * k)
    for a, b in board.get("roads", []):
        if a in centers and b in centers:
            d.line([centers[a], centers[b]], fill=theme.road, width=road_w)
            (x0, y0), (x1, y1) = centers[a], centers[b]
            length = math.dist((x0, y0), (x1, y1))
            n = int(length / (0.45 * th * k))
            for i in range(1, n):
                f = i / n
                x, y = x0 + (x1 - x0) * f, y0 + (y1 - y0) * f
                r = max(1.0, road_w * 0.16)
                d.ellipse([x - r, y - r, x + r, y + r], fill=theme.road_edge)
    img.paste(big.reduce(k), (bx0, by0))


def tile_origin(lay: Layout, sid: int) -> tuple[float, float]:
    """Top-left corner at which a site's sprites are pasted."""
    cx, cy = lay.centers[sid]
    pad = pad_of(lay.tile_h)
    return (cx - lay.tile_w / 2 - pad, cy - lay.tile_h / 2 - pad)


def paint_sites(img: Image.Image, lay: Layout, board: BoardView, theme: Theme) -> None:
    """Every site face down, then every site's number."""
    for site in board["sites"]:
        x, y = tile_origin(lay, site["id"])
        paste(img, stack(site["kind"], None, (), lay.tile_w, lay.tile_h, theme), x, y)
    for site in board["sites"]:
        spr = site_badge(site["id"], False, lay.tile_h, theme)
        bx, by = badge_centre(*lay.centers[site["id"]], lay.tile_w, lay.tile_h)
        paste(img, spr, bx - spr.width / 2, by - spr.height / 2)


def make_palette(colours: tuple[RGB, ...], sample: Image.Image) -> Image.Image:
    """A 256-colour palette: the theme's named colours exactly, the rest from the sample picture."""
    fixed: list[RGB] = []
    for c in colours:
        if c not in fixed:
            fixed.append(c)
    fixed = fixed[:96]
    rest = sample.quantize(256 - len(fixed), method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    pal = rest.getpalette() or []
    extra: list[tuple[int, ...]] = [tuple(pal[i:i + 3]) for i in range(0, (256 - len(fixed)) * 3, 3)]
    flat: list[int] = []
    for colour in [*fixed, *extra]:
        flat.extend(colour)
    flat += [0] * (768 - len(flat))
    out = Image.new("P", (1, 1))
    out.putpalette(flat[:768])
    return out


def theme_colours(theme: Theme) -> tuple[RGB, ...]:
    """Every colour field of ``theme`` (players included)."""
    colours: list[RGB] = []
    for name in theme.__dataclass_fields__:
        value = getattr(theme, name)
        if isinstance(value, tuple) and value and isinstance(value[0], int) and len(value) == 3:
            colours.append(value)
        elif isinstance(value, tuple) and value and isinstance(value[0], tuple):
            colours.extend(value)
    colours += [(255, 255, 255), (0, 0, 0), (40, 34, 30)]
    return tuple(colours)


def paint_sample(img: Image.Image, lay: Layout, theme: Theme, y: int) -> None:
    """Typical changing content below ``y`` so the output palette has its colours and edges."""
    w, h = lay.tile_w, lay.tile_h
    x = 10
    tiles = [("coast", ("lighthouse", 2, ("fish",), 2, True)),
             ("land", ("church", 3, ("sheep", "wood"), 0, False)),
             ("volcano", ("house", 4, ("gold", "sugar"), 0, True)),
             ("coast", ("house", 1, ("fish", "sugar"), 1, False))]
    for kind, key in tiles:
        for extra in (None, theme.last_move, theme.legal):
            if extra:
                spr = ring(kind, w, h, extra, 0.14)
                img.paste(spr, (x, y), spr)
            spr = face(kind, key, w, h, theme)
            img.paste(spr, (x, y), spr)
            x += spr.width + 4
            if x > img.width - 3 * spr.width:
                x, y = 10, y + spr.height + 4
    x, y = 10, y + 2 * h
    for seat in range(len(theme.players)):
        if x > img.width - 4 * h:
            x, y = 10, y + 2 * h
        for b in BUILDINGS:
            spr = piece(b, round(h * 0.9), theme.player(seat), theme.ink(seat), "W")
            img.paste(spr, (x, y), spr)
            x += spr.width + 4
        m = marker(round(30 * lay.unit), theme.player(seat), theme.ink(seat), "M", 1, theme.lap_ring)
        img.paste(m, (x, y), m)
        x += m.width + 4
    x, y = 10, y + 2 * h
    for bg in (theme.card, theme.card_active, theme.background):
        ImageDraw.Draw(img).rectangle((x, y, x + 300, y + 80), fill=bg)
        for i, c in enumerate((theme.text, theme.muted, theme.good, theme.bad, theme.last_move, theme.legal)):
            text(img, x + 4 + (i % 3) * 100, y + 4 + (i // 3) * 26, "Äg 47+", 22, c, weight="bold")
        for i, name in enumerate(("fish", "sheep", "wood", "sugar", "gold", "ship", "river", "road")):
            spr = faded(name, 24, theme)
            img.paste(spr, (x + i * 30, y + 54), spr)
        x += 310
    spr = badge(42, round(h * 0.5), theme.legal, theme.badge_text)
    img.paste(spr, (x, y), spr)


def _island_bottom(lay: Layout, board: BoardView, theme: Theme) -> int:
    """The lowest row the island and its face-down sites reach: the board's rectangle, or a tile or a number below."""
    bottom = lay.board[3]
    for site in board["sites"]:
        _x, y = tile_origin(lay, site["id"])
        bottom = max(bottom, round(y) + stack(site["kind"], None, (), lay.tile_w, lay.tile_h, theme).height)
        spr = site_badge(site["id"], False, lay.tile_h, theme)
        _bx, by = badge_centre(*lay.centers[site["id"]], lay.tile_w, lay.tile_h)
        bottom = max(bottom, round(by - spr.height / 2) + spr.height)
    return bottom


_ISLANDS: Kept[tuple[Any, ...], Image.Image] = Kept(3)
"""Islands kept: a board's channel, DM and replay widths (at 1600 pixels: about 9, 5 and 1.4 MB)."""


def island(board: BoardView, static_key: str, lay: Layout, theme: Theme) -> Image.Image:
    """The top of the page down to the island's lowest row: the background, the island (:func:`paint_board`) and
    every site face down with its number (:func:`paint_sites`), nothing else.

    The island is drawn alike for every language and player count (and a personal picture at the same width): its
    place, scale and tiles are the layout's board geometry, which is the key, so it is drawn once for them all.
    """
    def draw() -> Image.Image:
        img = Image.new("RGB", (lay.width, _island_bottom(lay, board, theme)), theme.background)
        paint_board(img, lay, placed_board(board), theme)
        paint_sites(img, lay, board, theme)
        return img

    return _ISLANDS.get((static_key, theme, lay.width, lay.board, lay.scale, lay.offset, lay.tile_w, lay.tile_h,
                         tuple(lay.centers.items())), draw)


def page(board: BoardView, static_key: str, lay: Layout, theme: Theme) -> Image.Image:
    """The static picture itself: the island (:func:`island`) and the empty frames around it."""
    img = Image.new("RGB", (lay.width, lay.height), theme.background)
    img.paste(island(board, static_key, lay, theme), (0, 0))
    chrome.paint_static(img, lay, theme)
    return img


PALETTE_PAGE: Final = ("en", 4)
"""The language (of the score track's title) and player count of the page every palette of a board is made from."""


def base_palette(board: BoardView, static_key: str, theme: Theme, personal: bool) -> Image.Image:
    """The output palette of every base of this board, theme and kind of picture, whatever the language and the
    player count: made once (it is most of a base's cost) from the page of :data:`PALETTE_PAGE` with a sample of
    what changes on it, so that it is the same whichever base is drawn first. The frames of other languages and
    player counts are drawn in the same colours, so the palette fits them as well."""
    def make() -> Image.Image:
        locale, n_players = PALETTE_PAGE
        lay = make_layout(board, theme, n_players, personal)
        img = page(board, static_key, lay, theme)
        paint_track_title(img, lay, theme, locale)
        sample = Image.new("RGB", (img.width, img.height + lay.tile_h * 10 + 200), theme.background)
        sample.paste(img, (0, 0))
        paint_sample(sample, lay, theme, img.height)
        return make_palette(theme_colours(theme), sample)

    return _PALETTES.get((static_key, theme, personal), make)


_PALETTES: Kept[tuple[str, Theme, bool], Image.Image] = Kept(6)
"""Palettes kept: a board's channel and DM pictures, for a few themes."""


def build_base(board: BoardView, static_key: str, theme: Theme, n_players: int, personal: bool) -> Base:
    """Draw the static picture (uncached; see :func:`get_base`)."""
    lay = make_layout(board, theme, n_players, personal)
    img = page(board, static_key, lay, theme)
    palette = base_palette(board, static_key, theme, personal)
    return Base(key=(static_key, theme, n_players, personal), image=quantized(img, palette), layout=lay,
                palette=palette)


_BASES: Kept[tuple[str, Theme, int, bool], Base] = Kept(8)


def get_base(board: BoardView, static_key: str, theme: Theme, n_players: int, personal: bool) -> Base:
    """The cached static picture for this board (by its static key), theme and layout."""
    return _BASES.get((static_key, theme, n_players, personal),
                      lambda: build_base(board, static_key, theme, n_players, personal))

