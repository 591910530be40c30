"""``render_legend``: what the board's pictures mean, as a picture of its own (shown with ``/santacruz rules``).

The board picture has no legend, so its island and names get the room; this picture lists every entry
(site shapes, face-down tiles, roads and rivers, buildings, points, resources, cards, marks: :func:`legend_entries`,
each with its picture, :func:`legend_picture`) in two columns, its words from the ``render.legend.*`` catalogue keys,
as readable on a phone as the board.
"""

from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageDraw

from i18n import normalize_locale, t
from render.draw import fit, paste, shape_points, sprite, text
from render.encode import encode
from render.fonts import font, size_for
from render.icons import icon
from render.theme import DEFAULT_THEME, Theme
from render.tiles import back, dashed_outline, face, pad_of, ring

WIDTH = 800
"""The legend's width in pixels, whatever the board's (it is a picture of its own, which a phone shows whole)."""
COLUMNS = 2


@lru_cache(maxsize=32)
def _legend_sample(name: str, size: int, theme: Theme) -> Image.Image:
    """A legend picture that is not a plain icon: site shapes, road, river, fish bonus, marks."""
    w, h = round(size * 1.45), size
    if name == "back":
        return back("land", w, h, theme).crop(_trim(h))
    if name == "last":
        im = ring("land", w, h, theme.last_move, 0.14).copy()
        spr = back("land", w, h, theme)
        im.paste(spr, (0, 0), spr)
        return im.crop(_trim(h, 0.7))
    if name == "revealed":
        im = face("land", ("house", 2, (), 0, False), w, h, theme).copy()
        dash = dashed_outline("land", w, h, theme.reveal)
        im.paste(dash, (0, 0), dash)
        return im.crop(_trim(h, 0.7))

    def paint(d: ImageDraw.ImageDraw, k: int) -> None:
        W, H = w * k, h * k
        if name in ("coast", "land", "volcano"):
            pts = shape_points(name, W / 2, H / 2, W - 2 * k, H - 2 * k)
            fill = {"coast": theme.tile_coast, "volcano": theme.tile_volcano}.get(name, theme.tile_land)
            d.polygon(pts, fill=fill, outline=theme.tile_edge, width=max(2, round(h * 0.06)) * k)
        elif name == "road":
            d.line([(0, H * 0.6), (W, H * 0.4)], fill=theme.road_edge, width=round(H * 0.28))
            d.line([(0, H * 0.6), (W, H * 0.4)], fill=theme.road, width=round(H * 0.18))
        elif name == "river":
            pts = [(W * i / 20, H * 0.5 + H * 0.18 * math.sin(i / 20 * 4 * math.pi)) for i in range(21)]
            d.line(pts, fill=(20, 70, 140), width=round(H * 0.34), joint="curve")
            d.line(pts, fill=theme.river, width=round(H * 0.24), joint="curve")
            d.line(pts, fill=theme.river_light, width=max(1, round(H * 0.06)), joint="curve")
        elif name == "bonus":
            d.text((W / 2, H / 2), "+2", font=font(round(H * 0.8), "bold"), fill=theme.fish_bonus, anchor="mm")

    return sprite(w, h, paint)


def _trim(h: int, extra: float = 0.0) -> tuple[int, int, int, int]:
    pad = pad_of(h)
    e = round(extra * pad)
    w = round(h * 1.45)
    return (pad - e, pad - e, pad + w + e, pad + h + e)


def legend_entries(personal: bool) -> list[tuple[str, str]]:
    """(picture, catalogue key) of every legend entry, in order."""
    entries = [
        ("coast", "render.legend.coast"), ("land", "render.legend.land"), ("volcano", "render.legend.volcano"),
        ("back", "render.legend.back"), ("road", "render.legend.road"), ("river", "render.legend.river"),
        ("house", "render.legend.house"), ("church", "render.legend.church"),
        ("lighthouse", "render.legend.lighthouse"), ("points", "render.legend.points"),
        ("bonus", "render.legend.fish_bonus"), ("bird", "render.legend.bird"),
        ("fish", "render.resource.fish"), ("sheep", "render.resource.sheep"), ("wood", "render.resource.wood"),
        ("sugar", "render.resource.sugar"), ("gold", "render.resource.gold"), ("tick", "render.legend.held"),
        ("ship", "render.legend.ship"), ("river_card", "render.legend.river_card"),
        ("road_card", "render.legend.road_card"), ("double", "render.legend.double"),
        ("scoring", "render.legend.scoring"), ("chip", "render.legend.chips"),
        ("last", "render.legend.last"), ("revealed", "render.legend.revealed"),
        ("destroy", "render.legend.destroyed"),
    ]
    if personal:
        entries.append(("flag", "render.legend.legal"))
    return entries


def legend_picture(name: str, size: int, theme: Theme) -> Image.Image:
    """The picture of legend entry ``name`` (see :func:`legend_entries`), ``size`` pixels high."""
    if name in ("coast", "land", "volcano", "back", "road", "river", "bonus", "last", "revealed"):
        return _legend_sample(name, size, theme)
    return icon({"river_card": "river", "road_card": "road"}.get(name, name), size, theme)


def compose_legend(*, locale: str = "en", personal: bool = True, theme: Theme = DEFAULT_THEME) -> Image.Image:
    """The legend as an RGB image (with the legal-site flag when ``personal``)."""
    locale = normalize_locale(locale)
    entries = legend_entries(personal)
    W = WIDTH
    size_px = size_for(theme.phone_line * W / theme.phone_width)  # its words as tall as the board's on a phone
    pad = round(size_px * 0.6)
    row_h = round(size_px * 1.7)
    per_column = -(-len(entries) // COLUMNS)
    H = 2 * pad + per_column * row_h
    img = Image.new("RGB", (W, H), theme.background)
    col_w = (W - 2 * pad) / COLUMNS
    pic_h = round(size_px * 1.3)
    pictures = [legend_picture(name, pic_h, theme) for name, _key in entries]
    words_at = max(pic_h * 1.6, max(pic.width for pic in pictures) + pic_h * 0.3)  # after the widest picture
    for i, ((_name, key), pic) in enumerate(zip(entries, pictures, strict=True)):
        column, row = divmod(i, per_column)
        x = pad + column * col_w
        cy = pad + row * row_h + row_h / 2
        paste(img, pic, x, cy - pic.height / 2)
        tx = x + words_at
        label, lsize = fit(t(key, locale), size_px, x + col_w - tx - pad / 2, min_size=size_px)
        text(img, tx, cy, label, lsize, theme.text, anchor="lm")
    return img


def render_legend(*, locale: str = "en", personal: bool = True, theme: Theme = DEFAULT_THEME) -> bytes:
    """The legend as PNG bytes."""
    return encode(compose_legend(locale=locale, personal=personal, theme=theme), None, theme)
