"""The picture's named colours and sizes: one frozen :class:`Theme` with defaults.

Every colour the renderer uses is a field here (like ``chess.svg``'s colour table), so a different look
is one ``Theme(...)`` away and caches can key on the theme (it is hashable). Player colours come with a
second cue for colour-blind players: a letter drawn on every building and marker (the players' initials
when they differ, otherwise :attr:`Theme.letters`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

RGB = tuple[int, int, int]

WIDTHS: Final = (800, 2400)
"""The narrowest and the widest board picture drawn (pixels): narrower, a phone's 400 pixels would blur the text
heights the theme holds there; wider only makes the post heavier."""


@dataclass(frozen=True)
class Theme:
    """Colours (RGB tuples) and sizes of the pictures. All fields have defaults."""

    width: int = 1280
    """The board picture's width in pixels; the game-over picture, a seat's own board and the overview scale with it
    (the legend and the statistics chart have widths of their own). 1280: a phone opens the board at about 1,170 device
    pixels across and a desktop fits it to the window (a 1:2 picture under 700 pixels wide), so a wider board only costs
    drawing and sending (a 1600-pixel board takes half as long again to draw and a third more bytes,
    ``bench/bench_render.py --spread``); zooming further is the web page's board (2400 pixels). At 1280 the board's
    layout is the one the widest boards have (the text sizes round so that the header, the panel's cards and the
    track keep their lines; at 1200 they need one more each)."""
    deflate_level: int = 1
    """ISA-L's deflate level of the PNG (0 to 3, :mod:`render.encode`). The pictures are palette images: 1 writes a
    1280-pixel board in about 3 ms and 240 KiB, 0 as fast and 15 % larger, 2 the same as 1, 3 three times as long and
    larger (``bench/bench_render.py --levels``)."""
    phone_width: int = 400
    """The width at which Discord shows a picture on a phone: the text heights below hold at that width."""
    phone_text: float = 9.0
    """Height (capitals and digits, :func:`render.fonts.cap_height`) of site numbers and player names there."""
    phone_line: float = 7.0
    """Height of the game-over picture's and the legend's lines there."""
    phone_read: float = 9.0
    """Height of every line of the board picture there: the last move, the scoring cards played, the header, the
    panel's counts, the score track and a DM's own strip."""
    phone_icon: float = 12.0
    """Side of the tiles' resource and bird icons there."""
    personal_share: float = 0.75
    """A personal (DM) picture is this share of :attr:`width` wide: smaller to send, as readable on a phone."""
    overview_share: float = 0.9375
    """The overview (the picture the chat shows without a tap, :mod:`render.overview`) is this share of
    :attr:`width` wide, in the channel and in a DM alike: 1,200 pixels at the default width, as wide as a phone (a
    330-dp chat column at 3 pixels a dp: 990) or a high-density desktop (its 437 x 350 at 2: 874) shows it inline, no
    wider; at 960 its cards would need a line more for the same words, and the last move fewer."""
    inline_text: float = 8.0
    """Height (capitals and digits) of the overview's names, scores and "to move" marker as the chat shows the
    picture without a tap, in the smallest of :data:`render.inline.BOXES` (CSS pixels or dp)."""

    # --- sea and islands
    sea: RGB = (36, 104, 150)
    sea_wave: RGB = (62, 130, 176)
    shallow: RGB = (88, 162, 190)
    beach: RGB = (232, 212, 158)
    land: RGB = (128, 170, 92)
    land_shade: RGB = (108, 150, 76)
    volcano_slope: RGB = (150, 118, 92)
    volcano_rim: RGB = (104, 78, 62)
    crater: RGB = (58, 40, 34)
    lava: RGB = (236, 98, 40)
    road: RGB = (226, 202, 148)
    road_edge: RGB = (118, 90, 58)
    river: RGB = (34, 110, 206)
    river_light: RGB = (126, 186, 240)

    # --- tiles
    tile_coast: RGB = (250, 240, 212)
    tile_land: RGB = (238, 246, 220)
    tile_volcano: RGB = (252, 224, 204)
    back_coast: RGB = (86, 140, 170)
    back_land: RGB = (88, 120, 70)
    back_volcano: RGB = (132, 84, 62)
    back_mark: RGB = (255, 255, 255)
    tile_edge: RGB = (52, 44, 38)
    tile_ink: RGB = (76, 66, 58)
    points_disc: RGB = (255, 255, 255)
    fish_bonus: RGB = (24, 92, 170)
    bird_disc: RGB = (46, 104, 196)

    # --- resources (icon colours)
    fish: RGB = (74, 134, 196)
    sheep: RGB = (250, 250, 246)
    wood: RGB = (150, 96, 52)
    sugar: RGB = (138, 186, 60)
    gold: RGB = (240, 188, 36)

    # --- players: colour, the ink drawn on it, and the fallback letters
    players: tuple[RGB, ...] = ((214, 52, 44), (40, 104, 214), (244, 196, 40), (34, 34, 40))
    """Red, blue, yellow, black: apart from the light tiles and, by lightness, under red-green colour blindness."""
    player_ink: tuple[RGB, ...] = ((255, 255, 255), (255, 255, 255), (30, 30, 30), (255, 255, 255))
    letters: tuple[str, ...] = ("A", "B", "C", "D")
    use_initials: bool = True
    """Mark buildings with the players' initials when these differ (else with :attr:`letters`)."""

    # --- marks on the board
    last_move: RGB = (255, 214, 0)
    reveal: RGB = (255, 255, 255)
    destroy: RGB = (220, 30, 30)
    legal: RGB = (230, 0, 126)
    badge: RGB = (28, 28, 34)
    badge_text: RGB = (255, 255, 255)

    # --- panels and text
    background: RGB = (30, 34, 44)
    card: RGB = (46, 52, 66)
    card_active: RGB = (64, 72, 92)
    card_edge: RGB = (84, 92, 112)
    text: RGB = (240, 240, 244)
    muted: RGB = (160, 166, 182)
    faded: RGB = (96, 102, 118)
    good: RGB = (110, 220, 120)
    bad: RGB = (255, 110, 100)
    track_cell: RGB = (58, 64, 80)
    track_cell_alt: RGB = (50, 56, 70)
    lap_ring: RGB = (255, 200, 60)
    chart_grid: RGB = (70, 76, 94)

    def __hash__(self) -> int:
        # Themes key many caches: hash the fields once.
        cached = self.__dict__.get("_hash")
        if cached is None:
            cached = hash(tuple(getattr(self, f) for f in self.__dataclass_fields__))
            object.__setattr__(self, "_hash", cached)
        return cached

    def phone_size(self, height: float, weight: str = "regular") -> int:
        """The font size whose capitals are ``height`` pixels tall on a picture shown :attr:`phone_width` wide."""
        from render.fonts import size_for

        return size_for(height * self.width / self.phone_width, weight)

    def phone_px(self, pixels: float) -> float:
        """How many pixels of this picture are ``pixels`` pixels when it is shown :attr:`phone_width` wide."""
        return pixels * self.width / self.phone_width

    def player(self, seat: int) -> RGB:
        return self.players[seat % len(self.players)]

    def ink(self, seat: int) -> RGB:
        return self.player_ink[seat % len(self.player_ink)]

    def marks(self, names: Sequence[str]) -> list[str]:
        """One short mark per seat: the initials when they are all different letters, else the letters."""
        if self.use_initials:
            initials = []
            for name in names:
                first = next((c for c in name if c.isalpha()), "")
                initials.append(first.upper()[:1])
            if all(initials) and len(set(initials)) == len(initials):
                return initials
        return [self.letters[i % len(self.letters)] for i in range(len(names))]


DEFAULT_THEME = Theme()
