"""What the chat shows of each picture without a tap, and what a tap shows, measured from the renderer's own record.

Discord scales a picture down to a box (``render.inline``: 550 × 350 for a desktop attachment, 600 × 350 for a
desktop gallery, a 330 dp column at most 400 dp high on Android) and crops the items of a gallery of several. Every
kind of overview (2, 3 and 4 players, a drafted start, round 2, game over, a DM, in each language, with the long and
wide names of the names test) is drawn once for this module, and each text it drew (``render.overview_texts.Written``:
where its ink went, how tall its capitals are) is scaled to each box:

- the names, the scores and the "to move" marker (at game over: who won) are at least ``Theme.inline_text`` (8)
  pixels tall in every box, and every text at least ``Theme.phone_text`` (9) when a phone shows the tapped picture
  400 pixels wide, inside the picture;
- the overview covers at least twice the area of the board picture (the one the chat showed before the overview:
  1280 × 2687 in the channel, 800 × 2018 in a DM) on desktop, and not less on Android;
- no picture of a post is cropped: each stands alone in its gallery.

The same measure finds the portrait board unreadable in the chat (``test_the_portrait_board_alone_is_not_readable``),
so that it is known to fail where it should.
"""

from __future__ import annotations

import copy
import hashlib
import io
import random
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

import engine
from i18n import LOCALES
from render import inline
from render.describe import describe, legal_sites
from render.fonts import cap_height
from render.layout import make_layout
from render.overview import LAYERS, compose_overview, get_overview_base, quantized_overview, render_overview
from render.overview_layout import OverviewLayout, overview_layout
from render.overview_texts import Written
from render.samples import NAMES, play
from render.theme import Theme
from tests.helpers.names import LONG_NAMES

THEME = Theme()
DM_BOARD = replace(Theme(width=round(800 / THEME.personal_share)), width=800)
"""The theme of a DM's board as the bot draws it (``bot.host.pictures.PERSONAL_WIDTH``)."""
READ = ("name", "score", "to_move", "winner")
"""What must be readable without a tap."""
LONG = [name for group in LONG_NAMES.values() for name in group]
ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------- the boxes


def test_a_picture_is_scaled_down_into_its_box_and_never_up() -> None:
    """The issue's figures: today's boards as the chat shows them; a small picture keeps its size; a wide one
    fills the box's width; no side below 40."""
    def rounded(size: inline.Size) -> tuple[int, int]:
        return (round(size[0]), round(size[1]))

    assert rounded(inline.shown((1600, 3333), inline.DESKTOP_ATTACHMENT)) == (168, 350)
    assert rounded(inline.shown((800, 2018), inline.DESKTOP_GALLERY)) == (139, 350)
    assert rounded(inline.shown((1600, 3333), inline.ANDROID)) == (192, 400)
    assert rounded(inline.shown((800, 2018), inline.ANDROID)) == (159, 400)
    assert inline.shown((300, 200), inline.DESKTOP_GALLERY) == (300, 200)
    assert inline.shown((1600, 900), inline.DESKTOP_ATTACHMENT) == (550, 309.375)
    assert inline.shown((1600, 900), inline.DESKTOP_GALLERY) == (600, 337.5)
    assert inline.shown((1200, 1200), inline.ANDROID) == (330, 330)
    assert inline.shown((20, 4000), inline.ANDROID) == (20, 400)  # its own width: less than 40
    assert inline.shown((100, 4000), inline.DESKTOP_GALLERY) == (40, 350)
    with pytest.raises(ValueError):
        inline.scale((0, 10), inline.ANDROID)


def test_a_gallery_of_several_crops_its_items_to_fill_the_grid_s_cells() -> None:
    """Four items stand in a 2 × 2 grid of 298 × 173 on desktop, two in squares (portraits on Android); a picture
    alone is never cropped. Today's game-over gallery (the board, the chart, the replay) lost a third of the board
    and of the replay and more."""
    assert inline.cells(4, inline.DESKTOP_GALLERY) == [(298, 173)] * 4
    assert inline.cells(2, inline.DESKTOP_GALLERY) == [(298, 298)] * 2
    assert inline.cells(2, inline.ANDROID) == [(163, 220)] * 2
    assert len(inline.cells(7, inline.DESKTOP_ATTACHMENT)) == 7
    with pytest.raises(ValueError):
        inline.cells(1, inline.ANDROID)
    for box in inline.BOXES:
        assert inline.cropped([(1600, 3333)], box) == [0.0]
        assert inline.cropped([], box) == []
        board, _chart, replay = inline.cropped([(1600, 3333), (1600, 900), (640, 1333)], box)
        assert board > 0.3 and replay > 0.3
    assert inline.cropped([(500, 500), (900, 900)], inline.DESKTOP_GALLERY) == [0.0, 0.0]
    assert min(inline.cropped([(500, 500), (900, 900)], inline.ANDROID)) > 0.2  # squares in portrait cells


def test_the_inline_sizes_are_known_without_pillow_s_drawing_code() -> None:
    """``render.inline`` is arithmetic: importing it (and ``render``) loads no Pillow module."""
    code = ("import sys, render.inline, render.theme; "
            "assert not [m for m in sys.modules if m.split('.')[0] == 'PIL'], sorted(sys.modules)")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


# ---------------------------------------------------------------- every kind of overview, drawn once


@dataclass(frozen=True)
class Drawn:
    """One overview as drawn, with what it is of."""

    label: str
    view: Any
    locale: str
    personal: bool
    size: tuple[int, int]
    written: list[Written]
    layout: OverviewLayout
    board: tuple[int, int]
    """The board picture's size for the same view: what the chat showed until now (the post still carries it)."""


def _drafted(n: int, seed: int) -> engine.Game:
    game = engine.new_game(NAMES[:n], seed, draft=True)
    game.apply(random.Random(seed).choice(game.legal_moves()))
    return game


def _round_two(n: int, seed: int) -> engine.Game:
    game = engine.new_game(NAMES[:n], seed)
    rng = random.Random(seed)
    while game.view(None).get("round", 1) < 2 or game.to_move is None:
        game.apply(rng.choice(game.legal_moves()))
    return game


def _with_legal_sites(n: int, seed: int) -> engine.Game:
    """A game past its first moves in which the seat to move may build somewhere (its DM numbers those sites)."""
    game = engine.new_game(NAMES[:n], seed)
    rng = random.Random(seed)
    moves = 0
    while game.to_move is None or moves < 8 or not legal_sites(game.view(game.to_move)):
        game.apply(rng.choice(game.legal_moves()))
        moves += 1
    return game


def _long(n: int, first: int) -> engine.Game:
    """The names test's long and wide names, with three-digit scores (set on the view below)."""
    return play(n, 40 + first, 30, names=(LONG[first:] + LONG)[:n])


def _cases() -> list[tuple[str, engine.Game, str, bool]]:
    cases = []
    for lang in LOCALES:
        cases += [(f"2 players {lang}", play(2, 11, 26), lang, False),
                  (f"3 players {lang}", play(3, 12, 40), lang, False),
                  (f"4 players {lang}", play(4, 13, 22), lang, False),
                  (f"drafted start {lang}", _drafted(3, 5), lang, False),
                  (f"round 2 {lang}", _round_two(4, 8), lang, False),
                  (f"game over {lang}", play(4, 14, None), lang, False),
                  (f"DM {lang}", _with_legal_sites(4, 13), lang, True)]
    cases += [("game over, 2 players", play(2, 15, None), "de", False),
              ("DM, 2 players", _with_legal_sites(2, 16), "fr", True),
              ("DM, 3 players", play(3, 17, 12), "en", True),
              ("long names, 2 players", _long(2, 0), "en", False),
              ("long names, 3 players", _long(3, 3), "de", False),
              ("long names, 4 players", _long(4, 6), "fr", False),
              ("long names, DM", _long(4, 2), "de", True)]
    return cases


@pytest.fixture(scope="module")
def drawn() -> list[Drawn]:
    out = []
    boards: dict[tuple[int, bool], tuple[int, int]] = {}
    for label, game, lang, personal in _cases():
        seat = game.to_move if game.to_move is not None else 0
        view = game.view(seat, since=True) if personal else game.view(None)  # a DM tells every move since
        if label.startswith("long names"):
            view = copy.deepcopy(view)
            for i, p in enumerate(view["players"]):
                p["score"] = 100 + 37 * i
        img, _palette, written = compose_overview(view, locale=lang, personal=personal)
        n = len(view["players"])
        if (n, personal) not in boards:
            board = make_layout(view["board"], DM_BOARD if personal else THEME, n, personal)
            boards[n, personal] = (board.width, board.height)
        lay = get_overview_base(view["board"], THEME, n)[1]
        out.append(Drawn(label, view, lang, personal, img.size, written, lay, boards[n, personal]))
    return out


def too_small(size: tuple[float, float], texts: list[tuple[str, str, float]], least: float) -> list[str]:
    """The texts (role, words, capitals' height in picture pixels) that a box shows less than ``least`` tall, in
    any box, for a picture of ``size``."""
    return [f"{box.name}: {role} {said!r} {cap * inline.scale(size, box):.1f} px"
            for box in inline.BOXES for role, said, cap in texts if cap * inline.scale(size, box) < least]


def test_names_scores_and_whose_turn_are_readable_without_a_tap(drawn: list[Drawn]) -> None:
    """In each box every player's name and score, and whose turn it is (the header's words and ▶, the card's
    "to move" and ▶), or at game over who won, are at least 8 pixels tall."""
    for d in drawn:
        texts = [(w.role, w.text, float(w.cap)) for w in d.written if w.role in READ]
        assert too_small(d.size, texts, THEME.inline_text) == [], d.label
        seats = {p["seat"] for p in d.view["players"]}
        assert {w.seat for w in d.written if w.role == "name"} == seats, d.label
        for p in d.view["players"]:  # every name, whole or cut where its card has no room, and every score
            [name] = [w.text for w in d.written if w.role == "name" and w.seat == p["seat"]]
            assert name == p["name"] or p["name"].startswith(name.removesuffix("…").rstrip()), (d.label, name)
            assert [w.text for w in d.written if w.role == "score" and w.seat == p["seat"]] == [str(p["score"])]
            assert len([w for w in d.written if w.role == "place" and w.seat == p["seat"]]) == 1
        mover = d.view.get("to_move")
        moving = {w.seat for w in d.written if w.role == "to_move"}
        if mover is None:
            assert not moving and [w.seat for w in d.written if w.role == "winner"][:1] == [d.view["winner"]]
        else:  # the header's words and sign, and the card's
            assert moving == {mover} and len([w for w in d.written if w.role == "to_move"]) == 4, d.label


def test_every_text_of_the_tapped_overview_is_readable_at_400_pixels_and_inside(drawn: list[Drawn]) -> None:
    """A phone shows the tapped picture at its width (about 400 pixels): every text is at least 9 pixels tall there
    (as the board's words, ``test_phone_layout``), and inside the picture; a card's words inside their card."""
    for d in drawn:
        width, height = d.size
        for w in d.written:
            assert w.cap * THEME.phone_width / width >= THEME.phone_text, (d.label, w)
            x0, y0, x1, y1 = w.box
            assert x0 >= 0 and x1 <= width and y0 >= 0 and y1 <= height, (d.label, w)
            if w.role in ("name", "score", "place", "points") or (w.role == "to_move" and w.box[0] > d.layout.map[2]):
                cx0, cy0, cx1, cy1 = d.layout.cards[w.seat if w.seat is not None else 0]
                assert cx0 <= x0 and x1 <= cx1 and cy0 <= y0 and y1 <= cy1, (d.label, w)
        words = [w for w in d.written if w.role == "words"]
        assert bool(words) == bool(describe(d.view, d.locale).sentences), d.label  # none after a DM's own move
        x0, y0, x1, y1 = d.layout.words
        assert all(x0 <= w.box[0] and w.box[2] <= x1 and y0 <= w.box[1] and w.box[3] <= y1 for w in words), d.label
        if d.personal:  # the legal sites' numbers, where the seat may build
            numbers = [w for w in d.written if w.role == "number"]
            assert d.label in ("DM, 3 players", "long names, DM") or numbers, d.label


def test_the_overview_is_shown_at_least_twice_as_large_as_the_board_on_desktop(drawn: list[Drawn]) -> None:
    """On desktop (an attachment or a gallery) the overview covers at least twice the area of the board picture
    (1280 × 2687: 167 × 350; a DM's 800 × 2018: 139 × 350), on Android not less (191 × 400 and 159 × 400)."""
    for d in drawn:
        for box in inline.BOXES:
            need = (2 if box is not inline.ANDROID else 1) * inline.area(d.board, box)
            assert inline.area(d.size, box) >= need, (d.label, box.name, inline.shown(d.size, box))
    four = next(d for d in drawn if d.label == "4 players en")
    assert four.board == (1280, 2687)
    assert next(d for d in drawn if d.label == "DM en").board == (800, 2018)


def test_no_picture_of_a_post_is_cropped(drawn: list[Drawn]) -> None:
    """A post carries each picture alone in its gallery (``bot.adapter.posts.layout``; the adapter's tests check the
    galleries it sends): the overview, the board and at game over the chart and the replay; none is cropped."""
    for d in drawn:
        pictures = [d.size, d.board]
        if d.view.get("phase") == "over":
            pictures += [(THEME.width, round(THEME.width * 9 / 16)), (640, 1333)]
        for box in inline.BOXES:
            assert [inline.cropped([size], box) for size in pictures] == [[0.0]] * len(pictures), d.label


def test_the_portrait_board_alone_is_not_readable_without_a_tap() -> None:
    """The measure above fails on the board picture, the chat's picture until now: its names, scores and "to move"
    are 3 to 5 pixels tall in every box."""
    game = play(4, 13, 22)
    for theme, personal in ((THEME, False), (DM_BOARD, True)):
        lay = make_layout(game.view(None)["board"], theme, 4, personal)
        texts = [("name", "Ada", float(cap_height(lay.name_size, "bold"))),
                 ("score", "32", float(cap_height(lay.card.score_size, "bold"))),
                 ("to_move", "to move", float(cap_height(lay.card.count_size, "bold")))]
        small = too_small((lay.width, lay.height), texts, THEME.inline_text)
        assert len(small) == len(texts) * len(inline.BOXES), small


# ---------------------------------------------------------------- the picture itself


def test_the_overview_is_a_png_of_its_layout_the_same_for_the_same_view() -> None:
    game = play(3, 12, 40)
    view = game.view(None)
    png = render_overview(view, locale="de")
    assert png.startswith(b"\x89PNG") and png == render_overview(view, locale="de")
    lay = overview_layout(view["board"], THEME, 3)
    with Image.open(io.BytesIO(png)) as img:
        assert img.size == (lay.width, lay.height) == (round(THEME.width * THEME.overview_share), lay.height)
    with pytest.raises(ValueError):
        render_overview(view, personal=True)  # a DM's overview needs the seat's view


def test_the_overview_s_island_layer_equals_painting_it_from_scratch() -> None:
    """The overview is repainted only where its sites, header, cards or words changed (its own layers, apart from
    the board's), and only those rectangles are quantized again: the pictures, in RGB and in the palette's colours,
    drawn one after the other in any order, are the ones painted whole."""
    game = engine.new_game(NAMES[:3], 81)
    rng = random.Random(81)
    views = []
    while not game.is_over():
        game.apply(rng.choice(game.legal_moves()))
        views.append(game.view(None))
    picks = [*views[::9], views[30], views[5], views[-1], views[31]]
    theme = Theme(width=800)

    def rgb(view: Any) -> bytes:
        return hashlib.sha256(compose_overview(view, theme=theme)[0].tobytes()).digest()

    def paletted(view: Any) -> bytes:
        return hashlib.sha256(quantized_overview(view, theme=theme).tobytes()).digest()

    sequence = [(paletted if i % 3 else rgb, view) for i, view in enumerate(picks)]
    sequence += [(paletted, picks[0]), (rgb, picks[1]), (paletted, picks[1])]  # a paletted picture the RGB one changed
    drawn = [draw(view) for draw, view in sequence]  # each from the layers the ones before left
    for (draw, view), digest in zip(sequence, drawn, strict=True):
        LAYERS.clear()
        assert draw(view) == digest
