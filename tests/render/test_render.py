"""Tests of the pictures (``render``): made from views of many random games, honest about hidden things.

- pictures of random positions (2–4 players, dealt and drafted sets, every phase, game over, the project's
  island and the tiny test island without outlines) are valid PNGs of at most 1 MiB;
- the public picture is byte-identical when only hidden information differs;
- the personal picture flags exactly the sites of the seat's legal moves (``legal_sites``);
- the incremental island layer gives the same picture as painting from scratch;
- every catalogue key the pictures use exists in all languages with the same placeholders;
- the last-move bar says the short form of ``i18n.describe_events`` and marks exactly the events' sites.

No timing assertions and no golden files: pictures are compared with each other, with a tolerance where
glyph rendering could differ.
"""

from __future__ import annotations

import hashlib
import io
import random
import string
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops

import engine
from i18n import catalogue, describe_events, listed, t, tn
from render import layer as render_layer
from render.base import get_base
from render.board import board_items, compose_board, render_board
from render.describe import describe, legal_sites
from render.draw import paste
from render.encode import MAX_BYTES, quantized
from render.gameover import render_game_over
from render.island import static_board
from render.layout import Layout
from render.samples import NAMES, play
from render.theme import Theme
from render.tiles import badge_centre, site_badge
from tests.helpers.engine import TINY

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
PERSONAL_WIDTH = round(Theme().width * Theme().personal_share)


def check_png(data: bytes, width: int = Theme().width) -> Image.Image:
    assert data.startswith(PNG_MAGIC)
    assert len(data) <= MAX_BYTES
    img = Image.open(io.BytesIO(data))
    img.load()
    assert img.format == "PNG"
    assert img.width == width
    return img


def similar(a: Image.Image, b: Image.Image, tolerance: float = 0.002) -> bool:
    """Whether at most ``tolerance`` of the pixels differ noticeably (glyphs may differ across FreeTypes)."""
    if a.size != b.size:
        return False
    diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB")).convert("L").point(lambda v: 255 if v > 24 else 0)
    return diff.histogram()[255] <= tolerance * a.width * a.height


# ---------------------------------------------------------------- many random positions


@pytest.mark.parametrize("n", [2, 3, 4])
def test_pictures_of_random_positions_are_valid_pngs(n: int) -> None:
    """At 800 px, the narrowest ``PICTURE_WIDTH``: the layout is the same at any width, scaled
    (``test_theme_width_scales_the_picture``), and the default width has tests of its own below."""
    rng = random.Random(n)
    narrow = Theme(width=800)
    personal_width = round(800 * narrow.personal_share)
    for seed in (n * 100 + 1, n * 100 + 2):
        draft = seed % 2 == 0
        game = engine.new_game(NAMES[:n], seed, draft=draft)
        phases = set()
        step = 0
        while True:
            if step % 9 == 0 or game.phase not in phases or game.is_over():
                phases.add(game.phase)
                check_png(render_board(game.view(None), theme=narrow), 800)
                seat = game.to_move
                if seat is not None:
                    locale = ("en", "de", "fr")[seed % 3]
                    check_png(render_board(game.view(seat), personal=True, locale=locale, theme=narrow),
                              personal_width)
                    # waiting for its turn
                    check_png(render_board(game.view((seat + 1) % n), personal=True, theme=narrow), personal_width)
                else:
                    check_png(render_board(game.view(0), personal=True, theme=narrow), personal_width)
            if game.is_over():
                break
            game.apply(rng.choice(game.legal_moves()))
            step += 1
        assert "over" in phases and "play" in phases and "land" in phases
        assert ("choose_set" in phases) == draft
        check_png(render_game_over(game.view(None), theme=narrow), 800)


def test_the_package_and_the_settings_load_no_picture_module() -> None:
    """``render/__init__.py`` imports none of its modules: the settings read the widths drawn (``render.theme``)
    without loading Pillow or the renderer."""
    code = ("import sys, render, bot.host.settings; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('render', 'PIL')))")
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['render', 'render.theme']"


def test_round_two_phases_are_drawn() -> None:
    """At 800 px, like the random positions: what is checked is that these phases are drawn at all."""
    game = engine.new_game(NAMES[:3], 9)
    rng = random.Random(9)
    seen = set()
    narrow = Theme(width=800)
    while not game.is_over():
        if game.phase in ("choose_pile", "discard") and game.phase not in seen:
            seen.add(game.phase)
            check_png(render_board(game.view(None), locale="fr", theme=narrow), 800)
            check_png(render_board(game.view(game.to_move), personal=True, locale="de", theme=narrow), 600)
        game.apply(rng.choice(game.legal_moves()))
    assert seen == {"choose_pile", "discard"}


def test_tiny_island_without_outlines() -> None:
    """At 800 px: what is checked is that a board without outlines is drawn at all (land around its sites)."""
    narrow = Theme(width=800)
    for n in (2, 4):
        game = play(n, 3, 12, island=TINY)
        check_png(render_board(game.view(None), theme=narrow), 800)
        check_png(render_board(game.view(game.to_move), personal=True, theme=narrow), 600)
        check_png(render_game_over(play(n, 3, None, island=TINY).view(None), theme=narrow), 800)


def test_game_over_picture_in_every_language() -> None:
    game = play(4, 21, None)
    over = game.view(None)
    assert over["phase"] == "over"
    pictures = [check_png(render_game_over(over, locale=loc)) for loc in ("en", "de", "fr")]
    assert all(p.height == pictures[0].height for p in pictures)
    assert render_game_over(over) == render_game_over(over)
    check_png(render_game_over(game.view(2)))  # a seat's view at the end shows the same public things
    check_png(render_board(over))


def test_theme_width_scales_the_picture() -> None:
    game = play(3, 4, 30)
    small = Theme(width=960)
    check_png(render_board(game.view(None), theme=small), width=960)
    check_png(render_game_over(play(2, 4, None).view(None), theme=small), width=960)


# ---------------------------------------------------------------- hidden information


def hide_differently(game: engine.Game, rng: random.Random) -> engine.Game:
    """A clone whose hidden information differs: face-down tiles, others' cards, deck, bird chips."""
    other = game.clone()
    isl = other.island
    for kind in engine.SITE_KINDS:
        hidden = [s for s in isl.sites_of_kind[kind] if not other.revealed[s]]
        tiles = [other.tile_at[s] for s in hidden]
        rng.shuffle(tiles)
        for s, tile in zip(hidden, tiles, strict=True):
            other.tile_at[s] = tile
    other._derive()
    pool = list(other.deck) + [c for hand in other.hand_scoring for c in hand]
    rng.shuffle(pool)
    for seat in range(other.n):
        k = len(other.hand_scoring[seat])
        other.hand_scoring[seat], pool = pool[:k], pool[k:]
    other.deck = pool
    other.chips = [rng.choice([1, 2, 3]) for _ in other.chips]
    other.birds = [[rng.choice([1, 2, 3]) for _ in chips] for chips in other.birds]
    other._legal = None
    return other


@pytest.mark.parametrize("seed", [31, 32, 33])
def test_the_public_picture_is_drawn_from_a_view_that_hides_what_is_hidden(seed: int) -> None:
    """A picture is drawn from a view alone (``render_board(view, ...)``), and the same view gives the same bytes
    (``test_same_view_gives_same_bytes_and_locales_differ_only_in_words``): so nothing hidden reaches the public
    picture when the public views of two games differing only in what is hidden are equal."""
    rng = random.Random(seed)
    n = 2 + seed % 3
    for moves in (0, 7, 25, 60):
        game = play(n, seed, moves)
        if game.is_over():
            continue
        other = hide_differently(game, rng)
        assert other.tile_at != game.tile_at or other.deck != game.deck or other.birds != game.birds
        assert other.view(None) == game.view(None)


def test_a_revealed_tile_does_change_the_picture() -> None:
    """At 800 px: a tile face seen at another site shows at any width (what is seen does reach the picture)."""
    game = play(2, 40, 6)
    other = game.clone()
    revealed = [s for s in range(1, other.island.n_sites + 1)
                if other.revealed[s] and not other.occupants[s] and other.island.kind[s] == "coast"]
    a, b = revealed[0], next(s for s in revealed if other.tile_at[s] != other.tile_at[revealed[0]])
    other.tile_at[a], other.tile_at[b] = other.tile_at[b], other.tile_at[a]
    other._derive()
    narrow = Theme(width=800)
    assert render_board(other.view(None), theme=narrow) != render_board(game.view(None), theme=narrow)


def test_the_personal_picture_is_drawn_from_a_view_with_only_its_own_secrets() -> None:
    """As the public picture's test above: a seat's picture is drawn from the seat's view alone, which is the same
    for two games differing only in what the seat may not see."""
    game = play(3, 50, 20)
    seat = game.to_move
    other = hide_differently(game, random.Random(1))
    # the seat's own secrets are kept, everything else hidden changes
    other.hand_scoring[seat] = list(game.hand_scoring[seat])
    other.birds[seat] = list(game.birds[seat])
    other.tile_at = list(game.tile_at)
    other._derive()
    other._legal = None
    assert other.to_json() != game.to_json() and other.view(seat) == game.view(seat)


# ---------------------------------------------------------------- the personal picture's flags


def engine_sites(game: engine.Game) -> list[int]:
    return sorted({m.site for m in game.legal_moves() if m.site is not None})


def badge_colour(img: Image.Image, lay: Layout, sid: int, theme: Theme) -> tuple[int, int, int]:
    """The colour inside a site's number badge, just left of its digits."""
    bx, by = badge_centre(*lay.centers[sid], lay.tile_w, lay.tile_h)
    legal = site_badge(sid, True, lay.tile_h, theme)
    plain = site_badge(sid, False, lay.tile_h, theme)
    # inside the pill's rounded left end, before the digits: bright or dark depending on the badge drawn
    x = bx - plain.width / 2 + 0.12 * plain.height if legal.width > plain.width else bx
    return img.getpixel((round(x), round(by)))  # type: ignore[return-value]


def close(a: tuple[int, ...], b: tuple[int, ...], tol: int = 40) -> bool:
    return all(abs(x - y) <= tol for x, y in zip(a, b, strict=False))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_legal_sites_are_the_sites_of_the_legal_moves(n: int) -> None:
    theme = Theme(width=PERSONAL_WIDTH)  # a personal picture is narrower
    rng = random.Random(70 + n)
    game = engine.new_game(NAMES[:n], 70 + n)
    board = game.view(None)["board"]
    lay = get_base(board, static_board(board), theme, n, True).layout  # the same for the whole game
    checked = 0
    while not game.is_over():
        seat = game.to_move
        view = game.view(seat)
        sites = legal_sites(view)
        assert sites == engine_sites(game)
        assert legal_sites(game.view(None)) == []
        if sites and rng.random() < 0.35:
            img, _palette = compose_board(view, personal=True)
            flagged = [s["id"] for s in view["board"]["sites"]
                       if close(badge_colour(img, lay, s["id"], theme), theme.legal)]
            assert flagged == sites
            checked += 1
        game.apply(rng.choice(game.legal_moves()))
    assert checked >= 3


def test_personal_picture_needs_a_seat_view() -> None:
    game = play(2, 5, 3)
    with pytest.raises(ValueError):
        render_board(game.view(None), personal=True)


# ---------------------------------------------------------------- caches give the same picture


def test_incremental_layer_equals_painting_from_scratch() -> None:
    """The composed pictures (before the palette, so that no difference hides in it) are compared, at 800 px: the
    layer repaints rectangles of sprites, the same at every width."""
    views = []
    game = engine.new_game(NAMES[:4], 80)
    rng = random.Random(80)
    while not game.is_over():
        game.apply(rng.choice(game.legal_moves()))
        views.append(game.view(None))
    picks = [*views[::7], views[40], views[10], views[-1], views[3]]
    narrow = Theme(width=800)

    def picture(view: dict[str, Any]) -> bytes:
        return hashlib.sha256(compose_board(view, theme=narrow)[0].tobytes()).digest()

    incremental = [picture(v) for v in picks]  # each starts from the previous picture's layer
    for view, digest in zip(picks, incremental, strict=True):
        render_layer.BOARD_LAYERS.clear()
        assert picture(view) == digest


def test_a_sprite_blended_where_it_has_ink_is_the_sprite_blended_whole() -> None:
    """``render.draw.paste`` blends a sprite only within the box of its ink (a tile's square is mostly clear): every
    sprite of a mid-game board's island, pasted so on the base, gives the picture that blending each whole gives."""
    game = engine.new_game(NAMES[:4], 81)
    rng = random.Random(81)
    for _ in range(40):
        game.apply(rng.choice(game.legal_moves()))
    view = game.view(game.to_move, since=True)
    theme = Theme(width=800)
    base = get_base(view["board"], static_board(view["board"]), theme, 4, True)
    items = board_items(view, base.layout, theme, theme.marks([p["name"] for p in view["players"]]),
                        describe(view, "en"), set(legal_sites(view)))
    trimmed, whole = base.image.convert("RGB"), base.image.convert("RGB")
    clear = 0
    for _key, sprite, x, y in items:
        clear += sprite.getbbox() != (0, 0, *sprite.size)
        paste(trimmed, sprite, x, y)
        whole.paste(sprite, (x, y), sprite)
    assert clear > len(items) // 3, "many sprites have clear margins: the case this is about"
    assert trimmed.tobytes() == whole.tobytes()


def test_the_island_drawn_once_is_each_player_count_s_island() -> None:
    """The static picture of each player count and kind of picture at one width (the same in every language) starts
    from one island drawn once (``render.base.island``): it is the static picture drawn with no island kept."""
    from render import base as render_base

    board = play(3, 5, 20).view(None)["board"]
    key = static_board(board)
    width = Theme(width=800)  # the channel's pictures, and a DM's picture as wide (a personal base of that width)
    kinds = [(3, False, width), (4, False, width), (2, True, width)]

    def static(n: int, personal: bool, theme: Theme) -> bytes:
        return hashlib.sha256(render_base.build_base(board, key, theme, n, personal).image.tobytes()).digest()

    shared = [static(*kind) for kind in kinds]
    assert len(set(shared)) == len(kinds)
    for kind, digest in zip(kinds[1:], shared[1:], strict=True):
        render_base._ISLANDS.clear()
        assert static(*kind) == digest, kind


def test_an_outline_says_inside_as_a_walk_round_all_its_edges_does() -> None:
    """The land's bushes stand inside the island's outline: the outline's banded test (``render.base._Outline``)
    answers as the even-odd walk round every edge, on the project's island and at its edges' very heights."""
    from render.base import _Outline
    from render.draw import chaikin

    def walk(x: float, y: float, poly: list[tuple[float, float]]) -> bool:
        hit = False
        for i, (x0, y0) in enumerate(poly):
            x1, y1 = poly[(i + 1) % len(poly)]
            if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
                hit = not hit
        return hit

    rng = random.Random(5)
    islands = play(2, 1, 0).view(None)["board"]["islands"]
    checked = 0
    for isl in islands:
        poly = chaikin([(float(x) * 3.1, float(y) * 3.1) for x, y in isl["outline"]], 2)
        outline = _Outline(poly)
        xs, ys = [p[0] for p in poly], [p[1] for p in poly]
        points = [(rng.uniform(min(xs) - 5, max(xs) + 5), rng.uniform(min(ys) - 5, max(ys) + 5)) for _ in range(400)]
        points += [(rng.uniform(min(xs), max(xs)), y) for _x, y in poly[::5]]  # on a vertex's height
        inside = [(x, y) in outline for x, y in points]
        assert inside == [walk(x, y, poly) for x, y in points]
        checked += sum(inside)
    assert checked > 0


def test_same_view_gives_same_bytes_and_locales_differ_only_in_words() -> None:
    game = play(3, 90, 33)
    view = game.view(None)
    en = render_board(view)
    assert render_board(view) == en
    # the PNG holds the composed picture in the base's palette, pixel for pixel (whatever its zlib level)
    img, palette = compose_board(view)
    written = Image.open(io.BytesIO(en))
    assert written.mode == "P" and written.getpalette() == palette.getpalette()
    assert written.tobytes() == quantized(img, palette).tobytes()
    de = Image.open(io.BytesIO(render_board(view, locale="de")))
    en_img = Image.open(io.BytesIO(en))
    assert de.size == en_img.size
    board = view["board"]
    lay = get_base(board, static_board(board), Theme(), 3, False).layout
    assert similar(en_img.crop(lay.board), de.crop(lay.board))
    assert not similar(en_img.crop(lay.track), de.crop(lay.track))


def test_names_with_accents_are_drawn_with_real_glyphs() -> None:
    from render.fonts import font

    f = font(30, "bold")
    missing = f.getmask("\uffff").getbbox()
    for ch in "ÄÖÜäöüßÉéèçĐđŁœ":
        assert f.getmask(ch).getbbox() != missing, ch


# ---------------------------------------------------------------- message catalogue


def test_render_catalogue_is_complete_in_every_language() -> None:
    def fields(template: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(template) if name}

    keys = {k for k in catalogue("en") if k.startswith("render.")}
    assert keys
    for lang in ("de", "fr"):
        other = {k: v for k, v in catalogue(lang).items() if k.startswith("render.")}
        assert set(other) == keys, lang
        for key in keys:
            assert fields(other[key]) == fields(catalogue("en")[key]), (lang, key)
    for card in engine.SCORING_CARD_IDS:  # pictures name scoring cards as the channel does
        assert f"game.scoring.{card}.name" in catalogue("en")
        assert f"render.scoring.{card}" not in keys
    for kind in engine.BUILDING_CARDS:
        assert f"render.card.{kind}" in keys
    for phase in engine.PHASES:
        assert f"render.phase.{phase}" in keys
    for res in engine.RESOURCES:
        assert f"render.resource.{res}" in keys
    for building in engine.BUILDINGS:
        assert f"game.building.{building}.one" in catalogue("en")


@pytest.mark.parametrize("n", [2, 4])
def test_last_move_words_are_the_short_form_and_marks_follow_the_events(n: int) -> None:
    game = engine.new_game(NAMES[:n], 90 + n)
    rng = random.Random(90 + n)
    start = describe(game.view(0), "en")
    assert start.sentences == [t("render.ev.start", "en", name=NAMES[game.turn_order[0]])]
    built_seen = 0
    while not game.is_over():
        seat = game.to_move
        events = game.apply(rng.choice(game.legal_moves()))
        for view in (game.view(None), game.view(seat)):
            last = describe(view, "de")
            assert last.sentences == describe_events(view["events"], "de", NAMES[:n], short=True)
            assert last.built == {e["site"]: e["seat"] for e in view["events"] if e["type"] == "build"}
            assert last.revealed == sorted({e["site"] for e in events if e["type"] == "reveal"})
            assert sum(last.deltas.values()) == sum(e["delta"] for e in events if e["type"] == "score")
        built_seen += bool(last.built)
    assert built_seen >= 10


@pytest.mark.parametrize("locale", ["en", "de", "fr"])
def test_the_first_picture_names_the_start_player_as_the_channel_s_turn_order_does(locale: str) -> None:
    """The first picture says who the start player is (the first of the turn order the channel names); in a drafted
    game, who chooses a set first (the player acting last, rules' setup step 6) and that the last to take a set
    becomes the start player (step 7), not that the first chooser "moves first"."""
    start_player = t("game.term.start_player", locale).lower()
    for n in (2, 3, 4):
        dealt = engine.new_game(NAMES[:n], 60 + n).view(None)
        start = NAMES[dealt["turn_order"][0]]
        assert dealt["to_move"] == dealt["turn_order"][0]
        assert describe(dealt, locale).sentences == [t("render.ev.start", locale, name=start)]
        game = engine.new_game(NAMES[:n], 60 + n, draft=True)
        drafted = game.view(None)
        chooser, start = NAMES[drafted["to_move"]], NAMES[drafted["turn_order"][0]]
        assert chooser == NAMES[drafted["turn_order"][-1]] != start
        [said] = describe(drafted, locale).sentences
        assert said == t("render.ev.start_draft", locale, name=chooser, start=start)
        assert said.index(chooser) < said.index(start) and start_player in said.lower()
        while game.phase == "choose_set":  # the last to take a set does start
            game.apply(game.legal_moves()[0])
        assert game.to_move == drafted["turn_order"][0] and game.phase == "land"


def test_pictures_drawn_in_threads_at_once_never_convert_with_one_palette_together(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The conversion to a base's fixed palette fills that palette's lookup cache without the interpreter lock, and
    every picture of the base shares it: two threads filling it at once crashed the bot (a segfault in Pillow's
    ``ImagingPaletteCacheUpdate``). Pictures and replays drawn in threads at once convert one at a time, and are
    the pictures drawn one by one (at 800 px: the conversions are watched, whatever their size)."""
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor
    from functools import partial

    from render.replay import render_replay

    views = [play(3, seed, 14 + seed).view(None) for seed in range(4)]
    draw = partial(render_board, theme=Theme(width=800))
    alone = [draw(v) for v in views]
    real = Image.Image.quantize
    lock = threading.Lock()
    inside, most = [0], [0]

    def watched(self: Image.Image, *args: Any, **kwargs: Any) -> Image.Image:
        if kwargs.get("palette") is None:
            return real(self, *args, **kwargs)
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.005)  # a wide window: two conversions at once would meet in it
        try:
            return real(self, *args, **kwargs)
        finally:
            with lock:
                inside[0] -= 1

    monkeypatch.setattr(Image.Image, "quantize", watched)
    with ThreadPoolExecutor(4) as pool:
        boards = list(pool.map(draw, views * 2))
        replays = list(pool.map(lambda v: render_replay([v, v], max_frames=2), views[:2]))
    assert boards == alone * 2 and all(r.startswith(b"GIF8") for r in replays)
    assert most[0] == 1, f"{most[0]} conversions with a fixed palette ran at once"


@pytest.mark.parametrize("width", [640, 800, 1600])
def test_score_track_markers_and_their_rings_stay_inside_their_cell(width: int,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A marker with one to three 50-point rings, alone or with others on its cell, in the first and last cell of
    each row (the GIF's 640 pixels included), is drawn inside its cell: never over the next row's numbers, never
    off the track's right edge."""
    import render.track as track
    from render.layout import make_layout

    pasted: list[tuple[float, float, int, int]] = []
    real = track.paste

    def spy(img: Image.Image, spr: Image.Image, x: float, y: float) -> None:
        pasted.append((x, y, spr.width, spr.height))
        real(img, spr, x, y)

    monkeypatch.setattr(track, "paste", spy)
    theme = Theme(width=width)
    for n in (2, 3, 4):
        view = play(n, 5, 3).view(None)
        lay = make_layout(view["board"], theme, n, False)
        cells = track.track_cells(lay)
        for cell in (0, 24, 25, 49, 7):
            for laps in (0, 1, 2, 3):
                for together in range(1, n + 1):
                    for i, p in enumerate(view["players"]):
                        score = laps * 50 + cell if i < together else 10 + 3 * i
                        p.update(score=score, laps=score // 50, track=score % 50)
                    pasted.clear()
                    page = Image.new("RGB", (lay.width, lay.height))
                    track.paint_track(page, lay, view, theme, ["A", "B", "C", "D"])
                    x0, y0, x1, y1 = cells[cell]
                    inside = [(x, y, w, h) for x, y, w, h in pasted if x0 - w < x < x1 and y0 - h < y < y1]
                    assert len(inside) == together, (cell, laps, together)
                    for x, y, w, h in inside:
                        assert x0 <= round(x) and round(x) + w <= x1 + 1, (width, n, cell, laps, together)
                        assert y0 <= round(y) and round(y) + h <= y1 + 1, (width, n, cell, laps, together)
                        assert w >= 0.3 * min(x1 - x0, y1 - y0) / (1 if together <= 2 else 2)  # still a marker


@pytest.mark.parametrize("locale", ["en", "de", "fr"])
def test_at_game_over_the_header_names_the_winner_and_the_dm_strip_gives_the_seat_s_place(
        locale: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The game over's board says who won where "X to move" stood (it was blank), in the channel's picture and a DM's;
    a DM's own strip gives the seat's place and points against the winner's, or that it won, and its bird chips,
    without the flag of legal sites (it stood alone in an empty box). At 800 px, the narrowest ``PICTURE_WIDTH``:
    the words must be there whole at that width too."""
    import render.chrome as chrome
    import render.header as header
    import render.panel as panel
    import render.track as track

    texts: list[str] = []
    pasted: list[int] = []
    real_text, real_words, real_paste = chrome.text, chrome.words, chrome.paste

    def spy_text(img: Image.Image, x: float, y: float, s: str, *args: Any, **kwargs: Any) -> None:
        texts.append(s)
        real_text(img, x, y, s, *args, **kwargs)

    def spy_words(img: Image.Image, x: float, y: float, s: str, *args: Any, **kwargs: Any) -> None:
        texts.append(s)
        real_words(img, x, y, s, *args, **kwargs)

    def spy_paste(img: Image.Image, spr: Image.Image, x: float, y: float) -> None:
        pasted.append(spr.width)
        real_paste(img, spr, x, y)

    for module in (chrome, header, panel, track):  # the board's words around the island
        monkeypatch.setattr(module, "text", spy_text)
    monkeypatch.setattr(chrome, "words", spy_words)
    monkeypatch.setattr(chrome, "paste", spy_paste)
    game = play(4, 14, None)
    ranking = game.ranking()
    winner = game.view(None)["players"][ranking[0]]
    said = t("render.over.winner", locale, name=winner["name"], count=winner["score"])
    for view, personal in ((game.view(None), False), (game.view(ranking[0]), True), (game.view(ranking[2]), True)):
        texts.clear()
        compose_board(view, locale=locale, personal=personal, theme=Theme(width=800))
        assert said in texts, texts
        assert not any(t("render.deck", locale, n=view["scoring_deck"]) in s for s in texts)
    from render.theme import Theme as T

    for seat in (ranking[0], ranking[2]):
        view = game.view(seat)
        theme = T(width=600)  # a DM's picture at 800
        lay = get_base(view["board"], static_board(view["board"]), theme, 4, True).layout
        texts.clear()
        pasted.clear()
        chrome.paint_you(Image.new("RGB", (lay.width, lay.height)), lay, view, theme, locale, 0, [])
        me, best = view["players"][seat], view["players"][ranking[0]]
        words = " ".join(texts)
        assert not pasted  # no flag
        points = tn("game.points", me["score"], locale)
        if seat == ranking[0]:
            assert t("render.you.won", locale, points=points) in words, words
        else:
            assert t("render.you.placed", locale, rank=3, n=4, points=points, winner=best["name"],
                     winner_points=tn("game.points", best["score"], locale)) in words, words
        chips = listed(view["you"]["bird_chips"], locale)
        assert t("render.you.chips", locale, chips=chips) in words, words
