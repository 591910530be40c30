"""Sprites of the building sites: tile backs, tile faces, site-number badges and highlight rings.

Each sprite is cached by what it shows (never by site or game), so a render pastes a handful of
prepared images. A sprite covers the tile's box plus ``pad`` pixels on every side; paste it at
``(cx - w / 2 - pad, cy - h / 2 - pad)``.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from engine.types import TileView
from render.draw import dashed, grow, shape_points, sprite
from render.fonts import font
from render.icons import DARK, SILHOUETTES, WHITE, paint_icon, paint_piece
from render.theme import RGB, Theme

TileKey = tuple[str, int, tuple[str, ...], int, bool]
"""(building, points, resources, fish bonus, bird) of a revealed tile."""


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """``a`` blended towards ``b`` by ``t`` (0..1)."""
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def tile_key(tile: TileView) -> TileKey:
    return (tile["building"], int(tile["points"]), tuple(tile["resources"]), int(tile["fish_bonus"]),
            bool(tile["bird"]))


PIECE_X, PIECE_Y = 0.315, 0.55
"""Centre of the building picture (and of a building standing on it), as shares of the tile box."""


def pad_of(h: int) -> int:
    """Margin around a tile's box in its sprites (room for outlines, buildings, rings and the badge)."""
    return max(6, round(h * 0.34))


BADGE_AT = (0.12, -0.08)
"""Centre of the site-number badge, as shares of the tile box (on its top-left edge)."""


def badge_size(h: int) -> int:
    """Font size of site numbers for tiles ``h`` pixels high (legal sites get 15 % more)."""
    return max(14, round(h * 0.44))


def face_colour(kind: str, theme: Theme) -> RGB:
    """A revealed tile's colour."""
    return {"coast": theme.tile_coast, "volcano": theme.tile_volcano}.get(kind, theme.tile_land)


def back_colour(kind: str, theme: Theme) -> RGB:
    """A face-down tile's colour."""
    return {"coast": theme.back_coast, "volcano": theme.back_volcano}.get(kind, theme.back_land)


@lru_cache(maxsize=64)
def back(kind: str, w: int, h: int, theme: Theme) -> Image.Image:
    """A face-down tile: the kind's back colour and an emblem, nothing of what is printed on it."""
    pad = pad_of(h)

    def paint(d: ImageDraw.ImageDraw, k: int) -> None:
        cx, cy = (w / 2 + pad) * k, (h / 2 + pad) * k
        pts = shape_points(kind, cx, cy, w * k, h * k)
        d.polygon([(x + 2 * k, y + 2 * k) for x, y in pts], fill=(0, 0, 0, 90))
        bg = back_colour(kind, theme)
        d.polygon(pts, fill=bg, outline=theme.tile_edge, width=max(2, round(h * 0.05)) * k)
        inner = grow(pts, cx, cy, -0.14 * h * k, -0.14 * h * k)
        d.polygon(inner, outline=mix(bg, theme.back_mark, 0.28), width=max(1, round(h * 0.03)) * k)
        s = 0.42 * h * k
        star = [(0.5, 0.0), (0.6, 0.4), (1.0, 0.5), (0.6, 0.6), (0.5, 1.0), (0.4, 0.6), (0.0, 0.5), (0.4, 0.4)]
        d.polygon([(cx - s / 2 + px * s, cy - s / 2 + py * s) for px, py in star], fill=mix(bg, theme.back_mark, 0.42))

    return sprite(w + 2 * pad, h + 2 * pad, paint)


GLYPH_SPOT = {"house": (0.5, 0.73), "church": (0.68, 0.74), "lighthouse": (0.5, 0.7)}
"""Where a tile's build points sit in its building's silhouette (in :data:`render.icons.SILHOUETTES`' unit square)."""


def face_parts(h: int, theme: Theme) -> tuple[int, int, int]:
    """The sizes on a revealed tile ``h`` pixels high: its building's silhouette (with the build points in it), the
    resource and bird icons, and the font of the points and the fish bonus. Icons and figures are as large as
    :attr:`Theme.phone_icon` and :attr:`Theme.phone_text` ask (readable on a phone) on the smallest tile the layout
    makes (:func:`render.layout.tile_size`), and grow with larger tiles."""
    digits = max(theme.phone_size(theme.phone_text, "bold"), round(h * 0.36))
    icon_px = max(round(theme.phone_px(theme.phone_icon)), round(h * 0.46))
    return round(h * 0.8), icon_px, digits


@lru_cache(maxsize=256)
def face(kind: str, tile: TileKey, w: int, h: int, theme: Theme) -> Image.Image:
    """A revealed tile: on the left the building to build, its build points written in it; on the right its
    resources in a column (a fish bonus below the fish, or beside the column where two resources fill it); a bird
    on the top right corner."""
    pad = pad_of(h)
    building, points, resources, bonus, bird = tile
    glyph, isz, digits = face_parts(h, theme)

    def paint(d: ImageDraw.ImageDraw, k: int) -> None:
        x0, y0 = pad * k, pad * k
        W, H = w * k, h * k
        cx, cy = x0 + W / 2, y0 + H / 2
        pts = shape_points(kind, cx, cy, W, H)
        d.polygon([(x + 2 * k, y + 2 * k) for x, y in pts], fill=(0, 0, 0, 90))
        d.polygon(pts, fill=face_colour(kind, theme), outline=theme.tile_edge, width=max(2, round(h * 0.04)) * k)
        s, i = glyph * k, isz * k
        right = x0 + W - 0.08 * W  # the column's right edge, inside the shape's slanted or rounded sides
        gx, gy = x0 + PIECE_X * W - s / 2, y0 + PIECE_Y * H - s / 2
        d.polygon([(gx + px * s, gy + py * s) for px, py in SILHOUETTES[building]], fill=theme.tile_ink,
                  outline=DARK, width=max(1, round(h * 0.02)) * k)
        fx, fy = GLYPH_SPOT[building]
        d.text((gx + fx * s, gy + fy * s), str(points), font=font(digits * k, "bold"), fill=WHITE, anchor="mm",
               stroke_width=max(1, round(h * 0.02)) * k, stroke_fill=theme.tile_ink)
        items: list[str] = list(resources)
        bonus_txt = f"+{bonus}" if bonus else ""
        beside = bool(bonus_txt) and len(items) >= 2
        if bonus_txt and not beside:
            items.append(bonus_txt)
        gap = max(1.0, (H - len(items) * i) / (len(items) + 1)) if items else 0.0
        ix = right - i
        for n, item in enumerate(items):
            iy = y0 + gap + n * (i + gap) if len(items) > 1 else cy - i / 2
            if item.startswith("+"):
                d.text((ix + i / 2, iy + i / 2), item, font=font(digits * k, "bold"), fill=theme.fish_bonus,
                       anchor="mm", stroke_width=max(1, round(h * 0.02)) * k, stroke_fill=WHITE)
            else:
                paint_icon(d, item, ix, iy, i, theme)
        if beside:  # two resources fill the column: the fish bonus over the fish's tail, inside the tile
            row = items.index("fish") if "fish" in items else 0
            iy = y0 + gap + row * (i + gap) + i / 2
            f = font(digits * k, "bold")
            bw = f.getlength(bonus_txt) + 0.3 * i
            bx = x0 + W - 0.02 * W - bw / 2
            d.rounded_rectangle([bx - bw / 2, iy - 0.48 * i, bx + bw / 2, iy + 0.48 * i], radius=0.48 * i,
                                fill=WHITE, outline=theme.fish_bonus, width=max(1, round(h * 0.02)) * k)
            d.text((bx, iy), bonus_txt, font=f, fill=theme.fish_bonus, anchor="mm")
        if bird:  # on the top right corner, half outside, like a sticker
            b = i
            paint_icon(d, "bird", x0 + W - 0.55 * b, y0 - 0.35 * b, b, theme)

    return sprite(w + 2 * pad, h + 2 * pad, paint)


@lru_cache(maxsize=256)
def pieces(occupants: tuple[tuple[str, RGB, RGB, str], ...], w: int, h: int) -> Image.Image:
    """The buildings standing on one site (one, or two on a shared tile), over its building picture."""
    pad = pad_of(h)

    def paint(d: ImageDraw.ImageDraw, k: int) -> None:
        x0, y0 = pad * k, pad * k
        W, H = w * k, h * k
        if len(occupants) == 1:
            spots = [(PIECE_X, 0.92)]
        else:
            spots = [(PIECE_X - 0.06, 0.78), (PIECE_X + 0.2, 0.78)]
        for (building, colour, ink, mark), (fx, size) in zip(occupants, spots, strict=False):
            s = size * H
            paint_piece(d, building, x0 + fx * W - s / 2, y0 + PIECE_Y * H - s / 2, s, colour, ink, mark)

    return sprite(w + 2 * pad, h + 2 * pad, paint)


@lru_cache(maxsize=64)
def ring(kind: str, w: int, h: int, colour: RGB, width: float) -> Image.Image:
    """A thick band around a site's shape (paste it under the tile)."""
    pad = pad_of(h)

    def paint(d: ImageDraw.ImageDraw, k: int) -> None:
        cx, cy = (w / 2 + pad) * k, (h / 2 + pad) * k
        pts = shape_points(kind, cx, cy, w * k, h * k)
        g = width * h * k
        d.polygon(grow(pts, cx, cy, g + 2 * k, g + 2 * k), fill=DARK)
        d.polygon(grow(pts, cx, cy, g, g), fill=colour)

    return sprite(w + 2 * pad, h + 2 * pad, paint)


@lru_cache(maxsize=16)
def dashed_outline(kind: str, w: int, h: int, colour: RGB) -> Image.Image:
    """A dashed outline just outside a site's shape (the mark of a tile revealed by the last move)."""
    pad = pad_of(h)

    def paint(d: ImageDraw.ImageDraw, k: int) -> None:
        cx, cy = (w / 2 + pad) * k, (h / 2 + pad) * k
        pts = grow(shape_points(kind, cx, cy, w * k, h * k), cx, cy, 0.1 * h * k, 0.1 * h * k)
        lw = max(2, round(h * 0.07)) * k
        dashed(d, pts, DARK, lw + 2 * k, 0.22 * h * k, 0.12 * h * k)
        dashed(d, pts, colour, lw, 0.22 * h * k, 0.12 * h * k)

    return sprite(w + 2 * pad, h + 2 * pad, paint)


@lru_cache(maxsize=256)
def badge(number: int, size: int, fill: RGB, ink: RGB) -> Image.Image:
    """A site number on a rounded pill, readable on a phone; the sprite is centred on its anchor."""
    f = font(size, "condensed")
    label = str(number)
    tw = f.getlength(label)
    bw, bh = round(tw + size * 0.4), round(size * 1.04)

    def paint(d: ImageDraw.ImageDraw, k: int) -> None:
        d.rounded_rectangle([k, k, (bw + 1) * k, (bh + 1) * k], radius=bh * k / 2, fill=(0, 0, 0, 110))
        d.rounded_rectangle([0, 0, bw * k - 1, bh * k - 1], radius=bh * k / 2, fill=fill, outline=WHITE,
                            width=max(1, round(size * 0.08)) * k)
        d.text((bw * k / 2, bh * k / 2 + size * k * 0.04), label, font=font(size * k, "condensed"), fill=ink,
               anchor="mm")

    return sprite(bw + 2, bh + 2, paint)


OccupantKey = tuple[tuple[str, RGB, RGB, str], ...]
"""(building, colour, ink, letter) of each building on a site."""


@lru_cache(maxsize=384)
def stack(kind: str, tile: TileKey | None, occupants: OccupantKey, w: int, h: int, theme: Theme) -> Image.Image:
    """One site's tile (face or back) with the buildings on it, in one sprite (numbers go on top later).

    Sites are cached whole because between two moves almost all of them look the same.
    """
    out = face(kind, tile, w, h, theme) if tile is not None else back(kind, w, h, theme)
    if occupants:
        out = out.copy()
        out.alpha_composite(pieces(occupants, w, h))
    return out


def site_badge(number: int, legal: bool, h: int, theme: Theme) -> Image.Image:
    """A site's number badge (bright on a legal site); centre it on :func:`badge_centre`."""
    size = max(badge_size(h), theme.phone_size(theme.phone_text, "condensed"))
    if legal:
        return badge(number, round(size * 1.15), theme.legal, theme.badge_text)
    return badge(number, size, theme.badge, theme.badge_text)


def badge_centre(cx: float, cy: float, w: int, h: int) -> tuple[float, float]:
    """Where the number badge of the site centred on (cx, cy) is centred."""
    return (cx + (BADGE_AT[0] - 0.5) * w, cy + (BADGE_AT[1] - 0.5) * h)
