"""``render_legend``: what the board's pictures mean, as a picture of its own (shown with ``/santacruz rules``).

The board picture has no legend, so its island and names get the room; this picture lists every entry
(site shapes, face-down tiles, roads and rivers, buildings, points, resources, cards, marks) in two
columns, its words from the ``render.legend.*`` catalogue keys, as readable on a phone as the board.
"""

from __future__ import annotations

from PIL import Image

from i18n import normalize_locale, t
from render.chrome import legend_entries, legend_picture
from render.draw import fit, paste, text
from render.encode import encode
from render.fonts import size_for
from render.theme import DEFAULT_THEME, Theme

WIDTH_SHARE = 0.5
"""The legend is this share of ``theme.width`` wide (800 pixels by default)."""
COLUMNS = 2


def compose_legend(*, locale: str = "en", personal: bool = True, theme: Theme = DEFAULT_THEME) -> Image.Image:
    """The legend as an RGB image (with the legal-site flag when ``personal``)."""
    locale = normalize_locale(locale)
    entries = legend_entries(personal)
    W = round(theme.width * WIDTH_SHARE)
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
