"""``render_overview``: the picture the chat shows without a tap, composed for Discord's inline box.

Discord scales every picture down to a box (:mod:`render.inline`): the tall board (:mod:`render.board`) shows
there as a stamp. The overview is a landscape picture (1.25 : 1) that the box shows large, and whose words are
as tall as :attr:`Theme.inline_text` in the smallest box (a phone's chat column): whose turn it is, each player's
score and place, the last move's sites, the island's buildings in the players' colours. The board stays the picture
a tap opens for everything else; a message carries both, each alone in its gallery, so that neither is cropped.

Layout (:class:`render.overview_layout.OverviewLayout`, once per board, theme and player count): a header across
the top (whose turn it is, or who won; the round and the phase), the island on the left (the board picture's own
geometry scaled down: sea, land, rivers and roads drawn once; each site a small tile with its buildings), the
players on the right, in seat order like the board's panel, one card each (name; score, place, the last move's
points, "to move"), and below them the last move's words. A seat's own overview (a DM) rings and numbers the sites
it may build on and tells every move since its own last one.

This module composes the picture: its static part (the header's band, the island with every site face down, the
cards' frames; drawn once per board, theme and player count) and on a copy of it the items of its own layer
(:data:`LAYERS`): the island's sites (:mod:`render.overview_island`), the header, the cards and the words
(:mod:`render.overview_texts`), each repainted only where it changed. Every text drawn is listed with the box its
ink covers and its height (:class:`render.overview_texts.Written`), so that tests measure what the picture shows at
Discord's scale from the renderer's own record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from PIL import Image, ImageDraw

from engine.types import BoardView, View
from i18n import normalize_locale
from render.base import Kept
from render.describe import describe, legal_sites
from render.draw import paste
from render.encode import quantized, write_png
from render.fonts import cap_height
from render.island import static_board
from render.layer import Item, Layers
from render.overview_island import island_and_palette, site, site_at, site_items
from render.overview_layout import OverviewLayout, overview_layout
from render.overview_texts import Records, Written, card_items, frame, header_item, words_item
from render.theme import DEFAULT_THEME, Theme

_BASES: Kept[tuple[str, Theme, int], tuple[Image.Image, OverviewLayout, Image.Image]] = Kept(8)
LAYERS = Layers()
"""The overviews' island layers (kept apart from the board's)."""


def _build_base(board: BoardView, theme: Theme, n_players: int) -> tuple[Image.Image, OverviewLayout, Image.Image]:
    """The background, the header's band, the island with every site face down, the frames, in the palette's
    colours (a picture is drawn on an RGB copy); the layout; the palette."""
    lay = overview_layout(board, theme, n_players)
    img = Image.new("RGB", (lay.width, lay.height), theme.background)
    d = ImageDraw.Draw(img)
    d.rectangle(lay.header, fill=theme.card)
    island, palette = island_and_palette(board, lay, theme)
    img.paste(island, lay.map[:2])
    mini = lay.board
    for s in board["sites"]:
        paste(img, site(s["kind"], None, (), mini.tile_w, mini.tile_h, theme), *site_at(mini, s["id"]))
    for rect in lay.cards:  # as a card not lit looks (each card is drawn over it)
        frame(d, rect, lay.unit, theme.card, theme.card_edge, 1.5)
    d.rounded_rectangle(lay.words, radius=round(10 * lay.unit), fill=theme.card)
    return quantized(img, palette), lay, palette


def get_overview_base(board: BoardView, theme: Theme, n_players: int,
                      static_key: str | None = None) -> tuple[Image.Image, OverviewLayout, Image.Image]:
    """The cached static overview (alike in every language, in the channel and in a DM) with its layout and
    palette; ``static_key``: :func:`render.island.static_board` of ``board``, where the caller has it."""
    key = static_board(board) if static_key is None else static_key
    return _BASES.get((key, theme, n_players), lambda: _build_base(board, theme, n_players))


def _moved(records: Records, x0: int, y0: int) -> list[Written]:
    """``records`` of a part pasted with its top-left corner at (x0, y0)."""
    return [Written(w.role, w.text, (w.box[0] + x0, w.box[1] + y0, w.box[2] + x0, w.box[3] + y0), w.cap, w.seat)
            for w in records]


T = TypeVar("T")


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
    for item, records in [header_item(lay, view, theme, locale, marks),
                          *card_items(lay, view, theme, locale, marks, last.deltas, you),
                          words_item(lay, last, theme, locale)]:
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


__all__ = ["LAYERS", "compose_overview", "get_overview_base", "quantized_overview", "render_overview"]
