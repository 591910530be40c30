"""The shipped fonts draw every name; text is placed right to left where it should; pictures are readable on a phone.

Coverage is checked per character through the fallback chain on the files in the package's own folder (the
ones the wheel carries), against each face's missing-glyph box. Phone sizes come from the layout's font
sizes and the fonts' outlines, scaled to a picture shown 400 pixels wide.
"""

from __future__ import annotations

import colorsys
import fnmatch
import io
import math
import tomllib
import unicodedata
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageDraw

import engine
from i18n import listed, t
from render.base import get_base
from render.draw import fit, text_width
from render.fonts import CHAINS, FONT_DIR, cap_height, chain_font, face_of, read_cmap, shaping
from render.header import turn_label
from render.island import static_board
from render.layout import CARD_PAD, make_layout
from render.legend import render_legend
from render.script import bbox, draw, length, letters_within, runs, shape, visual
from render.theme import Theme
from tests.helpers.names import LONG_NAMES

ROOT = Path(__file__).resolve().parents[2]

SCRIPTS = {
    "Latin": "Ada Björn Céline Đorđe Łukasz Œdipe Ñandú Şükrü",
    "Greek": "Ελένη Αλέξανδρος",
    "Cyrillic": "Жанна Дмитрий Ёлка",
    "Chinese": "王小明 李华 张伟",
    "Japanese": "たろう カタカナ 山田",
    "Korean": "김민준 이서연",
    "Arabic": "محمد فاطمة",
    "Hebrew": "שלום דוד",
    "Devanagari": "राजेश किशन",
    "Thai": "สมชาย ใจดี",
    "Bengali": "প্রিয়া বাংলা",
    "Gurmukhi": "ਹਰਪ੍ਰੀਤ ਪੰਜਾਬੀ",
    "Gujarati": "ગુજરાતી નરેશ",
    "Tamil": "தமிழ்செல்வி கார்த்திக்",
    "Telugu": "శ్రీనివాస్ తెలుగు",
    "Kannada": "ಕನ್ನಡ ಸುರೇಶ್",
    "Malayalam": "ശ്രീക്കുട്ടി മലയാളം",
    "Sinhala": "සිංහල නිමල්",
    "Myanmar": "မြန်မာ အောင်",
    "Khmer": "ខ្មែរ សុខា",
    "Ethiopic": "አማርኛ ሰላም",
    "Tibetan": "བཀྲ་ཤིས་ བསྟན་འཛིན",
    "Mongolian": "ᠮᠣᠩᠭᠣᠯ ᠪᠠᠲᠤ",
    "Syriac": "ܫܠܡܐ ܐܦܪܝܡ",
    "Thaana": "ދިވެހި އަޙްމަދު",
    "Cherokee": "ᏣᎳᎩ ᏌᏊ",
    "Emoji": "🦊🐻🎲🌊⭐❤😀",
}


def _ink(index: int, weight: str, c: str) -> Image.Image:
    return chain_font(index, 40, weight).getmask(c)


@pytest.mark.parametrize("weight", sorted(CHAINS))
@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_every_character_of_every_script_has_a_real_glyph_in_the_chain(script: str, weight: str) -> None:
    for c in SCRIPTS[script]:
        if c == " " or unicodedata.category(c).startswith("M"):
            continue
        index = face_of(c, weight)
        assert index is not None, f"{script}: no shipped face has {c!r} (U+{ord(c):04X})"
        face = CHAINS[weight][index]
        assert (FONT_DIR / face.file).is_file()
        assert ord(c) in _codepoints(face.file)
        glyph, missing = _ink(index, weight, c), _ink(index, weight, "\U0010fffd")
        assert glyph.getbbox() is not None
        assert glyph.size != missing.size or ImageChops.difference(
            Image.frombytes("L", glyph.size, bytes(glyph)), Image.frombytes("L", missing.size, bytes(missing))
        ).getbbox() is not None, f"{script}: {c!r} draws as the missing-glyph box"


def _codepoints(file: str) -> set[int]:
    starts, ends = read_cmap(FONT_DIR / file)
    return {c for s, e in zip(starts, ends, strict=True) if e - s < 70000 for c in range(s, e + 1)}


def test_the_fonts_and_their_licences_are_package_data_of_the_wheel() -> None:
    assert FONT_DIR == ROOT / "assets" / "fonts"  # the editable install reads the repository's assets/
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert setuptools["package-dir"]["render.assets"] == "assets"
    globs = setuptools["package-data"]["render.assets.fonts"]
    files = sorted(p.name for p in FONT_DIR.iterdir() if p.suffix in (".ttf", ".txt"))
    for name in files:
        assert any(fnmatch.fnmatch(name, g) for g in globs), name
    shipped = {face.file for chain in CHAINS.values() for face in chain}
    assert shipped <= set(files)
    for family in ("DejaVu", "Noto", "DroidSansFallback", "Nanum", "Symbola"):
        assert f"LICENSE-{family}.txt" in files
    total = sum((FONT_DIR / f).stat().st_size for f in files)
    assert total < 20 * 1024 * 1024


def test_the_listed_packages_are_every_package_folder() -> None:
    """pyproject lists the packages (to install assets/ as render.assets): a new package folder must be listed."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    folders = {str(init.parent.relative_to(ROOT)).replace("/", ".")
               for top in ("engine", "render", "bot", "i18n", "play") for init in (ROOT / top).rglob("__init__.py")}
    assert listed == folders | {"render.assets", "render.assets.fonts"}


def test_right_to_left_names_sit_in_their_place_in_a_left_to_right_line() -> None:
    line = visual("to move محمد")
    assert line.startswith("to move ")
    assert line[len("to move "):] == "دمحم"  # the name's letters, right to left
    assert visual("محمد 12 (x)").startswith("12 ")  # a number after an Arabic name stays readable
    assert visual("Ada, שלום!") == "Ada, םולש!"
    assert visual("Ada 12") == "Ada 12"
    # brackets take the direction of what they enclose (N0): the number stays in its brackets after the name
    assert visual("محمد (3)") == "(3) دمحم"  # it read "3) دمحم)"
    assert visual("Ada (محمد)") == "Ada (دمحم)" and visual("(محمد) 3") == "(دمحم) 3"
    arabic = runs("to move محمد", "bold")
    assert arabic[0] == ("to move ", 0)
    assert CHAINS["bold"][arabic[1][1]].file.startswith("NotoSansArabic")
    assert all(unicodedata.name(c).startswith("ARABIC LETTER") for c in arabic[1][0])  # joined forms
    assert len({unicodedata.name(c).split()[-2] for c in arabic[1][0]}) > 1  # initial, medial, final


def test_names_in_scripts_with_clusters_are_shaped() -> None:
    if not shaping():
        pytest.skip("this Pillow has no raqm: Devanagari and Thai are drawn unshaped (Devanagari's short i in place)")
    size = 40
    for weight in ("regular", "bold"):
        # क्ष is one conjunct glyph, not क with its virama followed by ष
        assert length("क्ष", size, weight) < length("क्", size, weight) + length("ष", size, weight) - 0.25 * size
        # the reph: र् before ज is a hook above it, not a letter of its own
        assert length("र्ज", size, weight) < length("ज", size, weight) + 0.1 * size
    # the shaper puts the short i before its consonant: the text is not reordered a second time
    assert shape("किशन") == "किशन"
    # Thai: the tone mark of ที่ sits on top of the upper vowel (drawn on it, it would vanish into it)
    assert bbox("ที่", size)[1] < bbox("ที", size)[1] - 0.1 * size
    # Bengali: the cluster প্র is one glyph
    assert length("প্র", size) < length("প্", size) + length("র", size) - 0.2 * size


@pytest.mark.parametrize(("name", "direction"), [("ܫܠܡܐ", "rtl"), ("ދިވެހި", "rtl"), ("ᠮᠣᠩᠭᠣᠯ", "ltr")])
def test_joining_and_right_to_left_scripts_are_drawn_as_their_shaper_draws_them(name: str, direction: str) -> None:
    """A Syriac or Thaana name goes to the shaper in logical order with its direction (in visual order, reversed,
    Syriac's letters would join the wrong way round and Thaana's vowel signs sit on the wrong letters); a Mongolian
    name joins left to right. The picture is the shaper's own drawing of the name."""
    if not shaping():
        pytest.skip("this Pillow has no raqm: these scripts are drawn unshaped")
    size = 40
    ((_text, index),) = runs(name)
    ours = Image.new("L", (400, 100))
    draw(ImageDraw.Draw(ours), (10, 70), name, size, 255, anchor="ls")
    theirs = Image.new("L", (400, 100))
    ImageDraw.Draw(theirs).text((10, 70), name, font=chain_font(index, size, "regular"), fill=255, anchor="ls",
                                direction=direction)
    assert ours.getbbox() is not None
    assert ImageChops.difference(ours, theirs).getbbox() is None
    letters = sum(length(c, size) for c in name)
    assert abs(length(name, size) - letters) > 1  # joined or placed by the font's rules, not letter by letter


def test_tibetan_letters_stack() -> None:
    if not shaping():
        pytest.skip("this Pillow has no raqm: Tibetan is drawn unshaped")
    size = 40
    # ཀྲ: the subjoined ra stands under the ka and adds no width
    assert length("ཀྲ", size) < length("ཀ", size) + 0.1 * size
    stack, ka = _ink_box("ཀྲ", size), _ink_box("ཀ", size)
    assert stack[0] == ka[0] and abs(stack[2] - ka[2]) < 0.1 * size  # in the column of the ka ...
    assert stack != ka  # ... and drawn (the ka's stem gives way to the ra)


def _ink_box(s: str, size: int) -> tuple[int, int, int, int]:
    """Where ``s`` drawn at ``size`` leaves ink."""
    image = Image.new("L", (8 * size, 4 * size))
    draw(ImageDraw.Draw(image), (size, 2 * size), s, size, 255, anchor="ls")
    box = image.getbbox()
    assert box is not None
    return box


def test_marks_are_one_drawn_character_for_any_name() -> None:
    theme = Theme()
    marks = theme.marks(["王小明", "たろう", "🦊 Fuchs", "محمد"])
    assert marks == ["王", "た", "F", "م"]
    for mark in marks:
        (text, index), = runs(mark, "bold")
        assert text and index is not None
    assert theme.marks(["🦊", "🐻"]) == ["A", "B"]  # no letter at all: the theme's letters


def _game(names: list[str], moves: int | None) -> engine.Game:
    import random

    game = engine.new_game(names, 13)
    rng = random.Random(13)
    count = 0
    while not game.is_over() and (moves is None or count < moves):
        game.apply(rng.choice(game.legal_moves()))
        count += 1
    return game


def test_names_in_other_scripts_are_drawn_not_boxes_in_the_panel_and_the_ranking() -> None:
    from render.board import compose_board
    from render.gameover import compose_game_over

    names = ["王小明", "たろう", "🦊 Fuchs", "محمد"]
    boxes = ["\U000f0000" * len(n) for n in names]  # a private code point: the missing-glyph box everywhere
    view = _game(names, 30).view(None)
    board_drawn, board_missing = compose_board(view)[0], compose_board(_game(boxes, 30).view(None))[0]
    over_drawn = compose_game_over(_game(names, None).view(None))
    over_missing = compose_game_over(_game(boxes, None).view(None))
    for drawn, missing in ((board_drawn, board_missing), (over_drawn, over_missing)):
        assert drawn.width == Theme().width
        diff = ImageChops.difference(drawn, missing).getbbox()
        assert diff is not None
    theme = Theme()
    lay = get_base(view["board"], static_board(view["board"]), theme, 4, False).layout
    drawn, missing = board_drawn, board_missing
    for x0, y0, x1, _y1 in lay.cards:
        name_row = (x0, y0, x1, y0 + round(60 * lay.unit))
        assert ImageChops.difference(drawn.crop(name_row), missing.crop(name_row)).getbbox() is not None


@pytest.mark.parametrize("width", [800, 1600, 2400])
@pytest.mark.parametrize("personal", [False, True])
def test_names_numbers_and_the_last_move_are_tall_enough_at_400_pixels(width: int, personal: bool) -> None:
    theme = Theme(width=width)
    game = _game(["Ada", "Björn", "Céline", "Đorđe"], 20)
    view = game.view(game.to_move if personal else None)
    if personal:
        from dataclasses import replace

        theme = replace(theme, width=round(width * theme.personal_share))
    lay = make_layout(view["board"], theme, 4, personal)
    shown = 400 / lay.width
    assert cap_height(lay.name_size, "bold") * shown >= 9
    assert cap_height(lay.number_size, "condensed") * shown >= 9
    assert cap_height(lay.line_size) * shown >= 9
    assert cap_height(lay.card.count_size, "bold") * shown >= 9  # the panel's counts, rank and tags
    assert lay.last_move[3] - lay.last_move[1] >= 2 * lay.line_size  # room for two lines of it


def test_the_site_numbers_are_drawn_at_the_phone_size() -> None:
    from render.tiles import site_badge

    theme = Theme()
    small = site_badge(7, False, 40, theme)  # a small tile: the phone size wins over the tile's
    assert small.height >= theme.phone_size(theme.phone_text, "condensed")


def _lab(rgb: tuple[int, int, int]) -> tuple[float, float, float]:
    def lin(v: float) -> float:
        v /= 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(v) for v in rgb)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))


def _colour_blind(rgb: tuple[int, int, int], kind: str) -> tuple[int, int, int]:
    """Viénot, Brettel and Mollon (1999): how a protanope or deuteranope sees ``rgb``."""
    def lin(v: float) -> float:
        v /= 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    def enc(v: float) -> int:
        v = min(1.0, max(0.0, v))
        return round(255 * (12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055))

    r, g, b = (lin(v) for v in rgb)
    if kind == "protan":
        r2, g2, b2 = 0.11238 * r + 0.88762 * g, 0.11238 * r + 0.88762 * g, 0.00401 * r - 0.00401 * g + b
    else:
        r2, g2, b2 = 0.29275 * r + 0.70725 * g, 0.29275 * r + 0.70725 * g, -0.02234 * r + 0.02234 * g + b
    return (enc(r2), enc(g2), enc(b2))


def _delta(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    return math.dist(_lab(a), _lab(b))


def test_player_colours_stay_apart_from_the_tiles_and_each_other_also_for_colour_blind_eyes() -> None:
    theme = Theme()
    tiles = (theme.tile_coast, theme.tile_land, theme.tile_volcano)
    for colour in theme.players:
        assert min(_delta(colour, tile) for tile in tiles) > 25, colour
        assert colorsys.rgb_to_hls(*(v / 255 for v in colour))[1] < 0.75  # never as light as a tile
    pairs = [(a, b) for i, a in enumerate(theme.players) for b in theme.players[i + 1:]]
    for a, b in pairs:
        assert _delta(a, b) > 40, (a, b)
        for kind in ("protan", "deutan"):
            assert _delta(_colour_blind(a, kind), _colour_blind(b, kind)) > 20, (kind, a, b)


@pytest.mark.parametrize("locale", ["en", "de", "fr"])
def test_the_legend_is_a_picture_of_its_own_in_every_language(locale: str) -> None:
    img = Image.open(io.BytesIO(render_legend(locale=locale)))
    assert img.width == 800 and img.height > 300
    assert len(img.convert("RGB").getcolors(1 << 20) or []) > 20


@pytest.mark.parametrize("locale", ["en", "de", "fr"])
def test_the_legends_words_stand_clear_of_every_picture_and_whole(locale: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each entry's words start after the widest picture of the legend (the built and revealed tiles' samples, with
    their outlines, are wider than the icons), and none is cut."""
    import render.legend as legend

    pictures: list[tuple[float, int]] = []
    words: list[tuple[float, str]] = []
    real_paste, real_text = legend.paste, legend.text

    def paste(img: Image.Image, pic: Image.Image, x: float, y: float) -> None:
        pictures.append((x, pic.width))
        real_paste(img, pic, x, y)

    def text(img: Image.Image, x: float, y: float, s: str, size: int, *args: object, **kwargs: object) -> None:
        words.append((x, s))
        real_text(img, x, y, s, size, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(legend, "paste", paste)
    monkeypatch.setattr(legend, "text", text)
    legend.compose_legend(locale=locale)
    assert len(pictures) == len(words) > 20
    for (px, width), (tx, s) in zip(pictures, words, strict=True):
        assert tx >= px + width, s
        assert not s.endswith("…"), s


@pytest.mark.parametrize("name", ["தமிழ்செல்வி கார்த்திக்", "क्षत्रिय अर्जुन", "প্রিয়া বাংলা", "Ðorđe Céline",
                                  "👍🏽👍🏽👍🏽👍🏽 Ada", "ශ්‍රී ලංකා", "ឧត្តម សុខា"])
def test_a_name_too_long_is_cut_between_letters_never_inside_one(name: str) -> None:
    size = 40
    for width in range(20, round(text_width(name, size)), 7):
        cut, _ = fit(name, size, width, min_size=size)
        kept = cut.removesuffix("…").rstrip()
        assert name.startswith(kept), (cut, name)
        rest = name[len(kept):]
        if not rest.strip():
            continue
        first = rest.lstrip()[0] if kept.endswith(" ") else rest[0]
        assert not unicodedata.category(first).startswith("M"), (kept, rest)  # no sign torn from its letter
        assert first not in "\u200c\u200d\U0001f3fd", (kept, rest)
        assert not (kept and unicodedata.combining(kept[-1]) == 9), (kept, rest)  # no conjunct cut in two


def test_a_text_cut_to_a_length_keeps_whole_letters() -> None:
    name = "क्षत्रिय"  # three letters: क्ष, त्रि, य
    cuts = {letters_within(name, limit) for limit in range(len(name) + 1)}
    assert cuts == {"", "क्ष", "क्षत्रि", "क्षत्रिय"}
    assert letters_within("Ada 👍🏽", 5) == "Ada "  # the skin tone stays with its emoji
    assert letters_within("Ada", 2) == "Ad"


@pytest.mark.parametrize("locale", ["en", "de", "fr"])
def test_whose_turn_it_is_is_said_in_words_that_fit_whole(locale: str) -> None:
    """The header says "Fuchs ist am Zug" where it fits, else "Fuchs am Zug", else the name alone; it never cuts
    the words ("Fuchs ist a…"), only a name too long for any room."""
    name, size = "🦊 Fuchs", 40
    full, compact = t("render.to_move", locale, name=name), t("render.to_move_compact", locale, name=name)
    assert turn_label(name, locale, size, text_width(full, size, "bold") + 1) == (full, size)
    assert turn_label(name, locale, size, text_width(full, size, "bold") - 1)[0] in (compact, name)
    assert turn_label(name, locale, size, text_width(compact, size, "bold") - 1) == (name, size)
    cut, _ = turn_label("Bartholomäus Wolkenstein", locale, size, text_width(name, size, "bold"))
    assert cut.endswith("…") and cut.startswith("Barth")


@pytest.mark.parametrize("width", [800, 1280, 1600, 2400])
@pytest.mark.parametrize("locale", ["en", "de", "fr"])
def test_every_word_of_the_game_over_picture_is_readable_on_a_phone(locale: str, width: int,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Every text of the game-over picture (the header, each place's bird chips and points per round, the chart's
    title, numbers and rounds) is drawn at least as large as the board's last move on a phone (7 pixels tall at
    400 pixels wide), whole; the chips stay named ("Bird chips: …"), and where the longest row has no room for its
    chips one by one they are counted by value in every row alike. With 2 and 4 players, the chart's scale and a
    short round 1 included. At the narrowest width, the default and wider ones, whose text sizes round differently
    (at 1280 the German rounds' points once needed more room than the ranking's column had, and were drawn smaller)."""
    import render.gameover as gameover

    drawn: list[tuple[str, int, object]] = []
    real = gameover.text

    def spy(img: Image.Image, x: float, y: float, s: str, size: int, *args: object, **kwargs: object) -> None:
        drawn.append((s, size, kwargs.get("anchor")))
        real(img, x, y, s, size, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(gameover, "text", spy)
    theme = Theme(width=width)
    for names in (["Ada", "Björn", "Céline", "Đorđe"], ["Ada", "Björn"]):
        game = _game(names, None)
        view = game.view(None)
        view["players"][0]["bird_chips"] = [3, 3, 3, 3, 2, 2, 2, 1, 1]  # as many as a seat gathered in a random game
        view["players"][1]["bird_chips"] = [3]  # one chip is its value, not "3 = 3"
        drawn.clear()
        gameover.compose_game_over(view, locale=locale, theme=theme)
        for s, size, _anchor in drawn:
            assert cap_height(size) * 400 / theme.width >= 7, (s, size)
        texts = [s for s, _size, _anchor in drawn]
        label = t("render.over.birds", locale, chips="")
        assert any(s.endswith(("2+2+2+1+1 = 20", "4×3 + 3×2 + 2×1 = 20")) or s == label + "20" for s in texts), texts
        assert not any(s.endswith("3 = 3") for s in texts), texts
        rounds = [s for s in texts if " · " in s and any(c.isdigit() for c in s)]
        assert len(rounds) == len(names), texts
        for s in rounds + [s for s in texts if " = " in s]:
            assert not s.endswith("…"), s
        everyone = [s for s in texts if s.startswith(t("render.over.birds", locale, chips=""))]
        assert len(everyone) == len(names), "the chips named in every row"
        assert t("render.over.round", locale, n=2) in texts and t("render.over.moves", locale) in texts
        scale = [int(s) for s, _size, anchor in drawn if anchor == "rm" and s.isdigit()]  # the chart's numbers
        assert scale[0] == 0 and scale[-1] >= max(p["score"] for p in view["players"]) and 3 <= len(scale) <= 9


@pytest.mark.parametrize("locale", ["en", "de", "fr"])
def test_many_bird_chips_are_counted_by_value_where_their_list_has_no_room(locale: str,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Up to about ten chips a place lists them (2+3+1 = 6); more do not fit a phone's size, and the line counts them
    by value instead (4×3 + 5×2 + 3×1 = 25) in every row alike, named ("Bird chips: …"), never smaller and never
    cut; where even the count has no room beside the name (German, French), their sum ("Vogelchips: 25")."""
    import render.gameover as gameover

    drawn: list[tuple[str, int]] = []
    real = gameover.text

    def spy(img: Image.Image, x: float, y: float, s: str, size: int, *args: object, **kwargs: object) -> None:
        drawn.append((s, size))
        real(img, x, y, s, size, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(gameover, "text", spy)
    theme = Theme()
    view = _game(["Ada", "Björn", "Céline", "Đorđe"], None).view(None)
    view["players"][0]["bird_chips"] = [3, 2, 1, 3, 2, 3, 2, 1, 3, 2, 1, 2]  # 12 chips
    view["players"][1]["bird_chips"] = [2, 2]
    view["players"][2]["bird_chips"] = [1, 2]
    view["players"][3]["bird_chips"] = []
    gameover.compose_game_over(view, locale=locale, theme=theme)
    label = t("render.over.birds", locale, chips="")
    lines = {s: size for s, size in drawn if s.startswith(label)}
    counted = {label + c for c in ("4×3 + 5×2 + 3×1 = 25", "2×2 = 4", "2 + 1 = 3", "0")}
    summed = {label + c for c in ("25", "4", "3", "0")}  # where even the count has no room beside the name
    assert set(lines) in (counted, summed), lines
    assert locale != "en" or set(lines) == counted, lines
    assert all(cap_height(size) * 400 / theme.width >= 7 for size in lines.values())


@pytest.mark.parametrize("locale", ["en", "de", "fr"])
@pytest.mark.parametrize("width", [800, 1600])
def test_the_personal_strip_is_readable_on_a_phone_and_stays_inside(locale: str, width: int,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The DM picture's own strip (your scoring cards, bird chips, what the flags mean) is drawn at the last move's
    size (7 pixels tall at 400 pixels wide) and wrapped inside its box, never shrunk: a long hand wraps, the chips
    come whole (after the cards, or on a line of their own), and a long list of other moves ends in "…"."""
    from dataclasses import replace

    import render.chrome as chrome

    drawn: list[tuple[float, float, str, int]] = []
    real = chrome.words

    def spy(img: Image.Image, x: float, y: float, s: str, size: int, *args: object, **kwargs: object) -> None:
        drawn.append((x, y, s, size))
        real(img, x, y, s, size, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(chrome, "words", spy)
    game = _game(["Ada", "Björn", "Céline", "Đorđe"], 20)
    seat = game.to_move
    assert seat is not None
    view = game.view(seat)
    view["you"]["scoring_cards"] = ["connected", "trio", "fish-sheep", "eruption"]
    view["you"]["bird_chips"] = [3, 2, 2, 1]
    theme = replace(Theme(width=width), width=round(width * Theme().personal_share))
    lay = make_layout(view["board"], theme, 4, True)
    assert lay.you is not None
    x0, y0, x1, y1 = lay.you
    others = [t(f"game.scoring.{c}.name", locale) for c in view["you"]["scoring_cards"]] * 3
    img = Image.new("RGB", (lay.width, lay.height))
    chrome.paint_you(img, lay, view, theme, locale, 7, others)
    assert drawn
    for x, y, s, size in drawn:
        assert cap_height(size) * 400 / lay.width >= 9, (s, size)
        assert x >= x0 and x + text_width(s, size, "regular") <= x1 + 1, s  # the bold title is narrower than this
        assert y0 < y - cap_height(size) and y < y1, s
    texts = [s for _x, _y, s, _size in drawn]
    chips = t("render.you.chips", locale, chips=listed([3, 2, 2, 1], locale))
    assert any(s == chips or s.endswith(f"·  {chips}") for s in texts), texts
    assert texts[-1].endswith("…"), texts


@pytest.mark.parametrize("locale", ["en", "de", "fr"])
def test_every_word_of_a_panel_card_is_readable_on_a_phone_and_whole(locale: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A player's card in the panel (rank, tags, the counts of buildings, cards, scoring cards and bird chips) is
    drawn at the last move's phone size or larger, inside the card, with 2, 3 and 4 players; the share right's tag,
    which nothing else shows, is whole in every language, on the rank line or on a line of its own."""
    import render.panel as panel

    drawn: list[tuple[float, str, int, str]] = []
    real = panel.text

    def spy(img: Image.Image, x: float, y: float, s: str, size: int, *args: object, **kwargs: object) -> None:
        drawn.append((x, s, size, str(kwargs.get("anchor", "la"))))
        real(img, x, y, s, size, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(panel, "text", spy)
    for n in (2, 3, 4):
        game = _game(["Ada", "Björn", "Céline", "Đorđe"][:n], 12)
        view = game.view(None)
        theme = Theme()
        lay = make_layout(view["board"], theme, n, False)
        player = dict(view["players"][0], can_share=True, laps=2, track=12, birds=11, rank=1)
        state = panel.card_state(player, True, "A")  # type: ignore[arg-type]
        x0, _y0, x1, y1 = lay.cards[0]
        drawn.clear()
        panel.card_image.cache_clear()
        panel._row.cache_clear()
        card = panel.card_image(state, (x1 - x0, y1 - lay.cards[0][1]), theme, locale, lay.unit, lay.name_size,
                                lay.card)
        texts = [s for _x, s, _size, _anchor in drawn]
        assert t("render.can_share", locale) in texts, (n, texts)
        assert "11" in texts and not any(s.endswith("…") for s in texts), texts
        for x, s, size, anchor in drawn:
            assert cap_height(size, "bold") * 400 / lay.width >= 9, (n, s, size)
            left = x - text_width(s, size, "bold") if anchor.startswith("r") else x
            assert left >= 0 and left + text_width(s, size, "bold") <= card.width, (n, s)


@pytest.mark.parametrize("locale", ["en", "de", "fr"])
def test_the_header_is_readable_on_a_phone_in_every_phase(locale: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The header's words (whose turn, what is left of the scoring deck and the bird chips, the round and the
    phase) are at least the last move's phone size, whole, in every phase's longest words and in DM pictures too."""
    import json
    from dataclasses import replace

    import render.header as header

    drawn: list[tuple[str, int, str]] = []
    real = header.text

    def spy(img: Image.Image, x: float, y: float, s: str, size: int, *args: object, **kwargs: object) -> None:
        drawn.append((s, size, str(kwargs.get("weight", "regular"))))
        real(img, x, y, s, size, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(header, "text", spy)
    catalogue = json.loads((Path(__file__).parents[2] / "i18n" / "locales" / "en" / "render.json").read_text())
    phases = [key.removeprefix("render.phase.") for key in catalogue if key.startswith("render.phase.")]
    game = _game(["Ada", "Björn", "Céline", "Đorđe"], 12)
    for personal in (False, True):
        theme = Theme() if not personal else replace(Theme(), width=round(Theme().width * Theme().personal_share))
        view = game.view(None)
        lay = make_layout(view["board"], theme, 4, personal)
        for phase in phases:
            view = dict(game.view(None), phase=phase, round=2, scoring_deck=12, bird_chips_left=22)
            drawn.clear()
            img = Image.new("RGB", (lay.width, lay.height))
            header.paint_header(img, lay, view, theme, locale, ["A", "B", "C", "D"])  # type: ignore[arg-type]
            texts = [s for s, _size, _weight in drawn]
            assert t(f"render.phase.{phase}", locale) in " ".join(texts), texts
            if phase != "over":  # the deck's and the chips' counts beside their icons; at the end the winner's room
                assert "12" in texts and "22" in texts, texts
            for s, size, weight in drawn:
                assert cap_height(size, weight) * 400 / lay.width >= 9, (s, size)
                assert not s.endswith("…"), s


@pytest.mark.parametrize("locale", ["en", "de", "fr"])
@pytest.mark.parametrize("width", [800, 1600])
def test_the_score_track_is_readable_on_a_phone(locale: str, width: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The score track's title, what a ring means and the numbers of the fives are at the last move's phone size,
    inside the track, each number inside its cell."""
    import render.track as track

    drawn: list[tuple[float, str, int, str, str]] = []
    real = track.text

    def spy(img: Image.Image, x: float, y: float, s: str, size: int, *args: object, **kwargs: object) -> None:
        drawn.append((x, s, size, str(kwargs.get("weight", "regular")), str(kwargs.get("anchor", "la"))))
        real(img, x, y, s, size, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(track, "text", spy)
    view = _game(["Ada", "Björn", "Céline", "Đorđe"], 12).view(None)
    lay = make_layout(view["board"], Theme(width=width), 4, False)
    img = Image.new("RGB", (lay.width, lay.height))
    track.paint_track_title(img, lay, Theme(width=width), locale)
    track.paint_track_static(img, lay, Theme(width=width))
    x0, _y0, x1, _y1 = lay.track
    texts = [s for _x, s, _size, _weight, _anchor in drawn]
    assert t("render.track.hint", locale) in texts and [str(v) for v in range(0, 50, 5)] == texts[2:], texts
    cells = track.track_cells(lay)
    for x, s, size, weight, _anchor in drawn:
        assert cap_height(size, weight) * 400 / lay.width >= 9, (s, size)
        assert x0 <= x and x + text_width(s, size, weight) <= x1, s
        if s.isdigit():  # a five's number may run on into the next cell, which has none
            cx0, _cy0, _cx1, _cy1 = cells[int(s)]
            cx1 = cells[int(s) + 1][2]
            assert cx0 <= x and x + text_width(s, size, weight) <= cx1, s


def test_a_last_move_too_long_for_its_lines_is_cut_inside_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """A last move longer than its lines ends in "…" inside the bar, drawn at the size it was measured at (it was
    measured at a smaller size and drawn at the full one, past the bar's margin)."""
    import render.chrome as chrome

    drawn: list[tuple[float, str, int]] = []
    real = chrome.words

    def spy(img: Image.Image, x: float, y: float, s: str, size: int, *args: object, **kwargs: object) -> None:
        drawn.append((x, s, size))
        real(img, x, y, s, size, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(chrome, "words", spy)
    view = _game(["Ada", "Björn", "Céline", "Đorđe"], 12).view(None)
    lay = make_layout(view["board"], Theme(), 4, False)
    sentences = [f"Björn reveals bird chips 2 + 3 + 2 + 1 + 2 + 1 = 11 (sentence {i})." for i in range(8)]
    chrome.paint_last_move(Image.new("RGB", (lay.width, lay.height)), lay, sentences, Theme(), "en")
    x0, _y0, x1, _y1 = lay.last_move
    assert drawn[-1][1].endswith("…")
    for x, s, size in drawn:
        assert size == lay.line_size and x0 < x and x + text_width(s, size) <= x1 - 14 * lay.unit + 1, s


@pytest.mark.parametrize("n", [2, 3, 4])
def test_long_names_with_three_digit_scores_are_cut_only_where_the_card_has_no_room(
        n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Names of 12 to 32 characters (Latin, CJK, emoji, Arabic) with three-digit scores, in 2-, 3- and 4-player
    pictures: each name has its card's first line after the marker to itself (the score is on the rank line), is
    drawn whole where it fits and cut only where it does not (the cut filling the line), and every word of every card
    stays inside its card, every word of the picture inside the picture."""
    import render.chrome as chrome
    import render.header as header
    import render.panel as panel
    import render.track as track
    from render.board import compose_board
    from render.script import bbox

    drawn: list[tuple[float, float, str, int, str, str]] = []
    on: list[tuple[int, int]] = []  # the size of the image each was drawn on (a card's, or the picture's)
    real_text, real_words = chrome.text, chrome.words

    def spy_text(img: Image.Image, x: float, y: float, s: str, size: int, *args: object, **kwargs: object) -> None:
        drawn.append((x, y, s, size, str(kwargs.get("weight", "regular")), str(kwargs.get("anchor", "la"))))
        on.append(img.size)
        real_text(img, x, y, s, size, *args, **kwargs)  # type: ignore[arg-type]

    def spy_words(img: Image.Image, x: float, y: float, s: str, size: int, *args: object, **kwargs: object) -> None:
        drawn.append((x, y, s, size, str(kwargs.get("weight", "regular")), "ls"))
        on.append(img.size)
        real_words(img, x, y, s, size, *args, **kwargs)  # type: ignore[arg-type]

    for module in (chrome, header, panel, track):  # the board's words around the island
        monkeypatch.setattr(module, "text", spy_text)
    monkeypatch.setattr(chrome, "words", spy_words)
    names = [name for group in LONG_NAMES.values() for name in group]
    assert all(12 <= len(name) <= 32 for name in names)
    cut = whole = 0
    for first in range(0, len(names), n):
        seated = (names[first:] + names)[:n]
        view = _game(seated, 40 + first).view(None)
        for i, p in enumerate(view["players"]):
            score = 100 + 37 * i + first
            p.update(score=score, laps=score // 50, track=score % 50)
        compose_board(view, locale="en")  # the base (and its palette's sample, drawn below the picture) first
        panel.card_image.cache_clear()
        drawn.clear()
        on.clear()
        compose_board(view, locale="en")
        lay = make_layout(view["board"], Theme(), n, False)
        for (x, y, s, size, weight, anchor), (w, h) in zip(drawn, on, strict=True):  # nothing outside its image
            left, top, right, bottom = bbox(s, size, weight, anchor)
            assert x + left >= 0 and x + right <= w and y + top >= 0 and y + bottom <= h, s
        drawn.clear()
        for p in view["players"]:
            x0, y0, x1, y1 = lay.cards[p["seat"]]
            state = panel.card_state(p, False, "A")
            panel.card_image.cache_clear()
            drawn.clear()
            panel.card_image(state, (x1 - x0, y1 - y0), Theme(), "en", lay.unit, lay.name_size, lay.card)
            texts = [s for _x, _y, s, _size, _w, _a in drawn]
            assert str(p["score"]) in texts
            [(nx, _ny, said, size, _w, _a)] = [d for d in drawn if d[2] == p["name"] or d[2].endswith("…")]
            room = (x1 - x0) - CARD_PAD * lay.unit - nx
            assert size == lay.name_size
            if said == p["name"]:
                assert text_width(said, size, "bold") <= room
                whole += 1
            else:
                kept = said.removesuffix("…").rstrip()
                assert p["name"].startswith(kept) and text_width(p["name"], size, "bold") > room, said
                widest = max(text_width(c, size, "bold") for c in p["name"])
                assert room - 2 * widest <= text_width(said, size, "bold") <= room, said
                cut += 1
            for x, y, s, size, weight, anchor in drawn:  # every word inside the card
                left, top, right, bottom = bbox(s, size, weight, anchor)
                assert x + left >= 0 and x + right <= x1 - x0 and y + top >= 0 and y + bottom <= y1 - y0, s
    assert (whole or n == 4) and (cut or n == 2)  # 12 characters fill a 4-player card's line


@pytest.mark.parametrize("locale", ["en", "de", "fr"])
def test_the_scoring_cards_played_this_round_are_in_view_whole_inside_their_box(
        locale: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The board shows every scoring card played this round after its player's marker, the eruption card in the
    colour of losses: a whole round of the longest names (nine cards with 3 players, eight with 2 and 4) fits its box
    uncut at the last move's phone size, in the channel's picture and a DM's; before any, it says none yet."""
    from dataclasses import replace

    import render.chrome as chrome

    drawn: list[tuple[float, float, str, int, tuple[int, int, int]]] = []
    real = chrome.text

    def spy(img: Image.Image, x: float, y: float, s: str, size: int, fill: tuple[int, int, int], *args: object,
            **kwargs: object) -> None:
        drawn.append((x, y, s, size, fill))
        real(img, x, y, s, size, fill, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(chrome, "text", spy)
    by_length = sorted(engine.SCORING_CARD_IDS, key=lambda c: -len(t(f"game.scoring.{c}.name", locale)))
    for n, each in ((2, 4), (3, 3), (4, 2)):
        longest = [*[c for c in by_length if c != "eruption"][:n * each - 1], "eruption"]
        view = _game(["Ada", "Björn", "Céline", "Đorđe"][:n], 12).view(None)
        for p in view["players"]:
            p["played_scoring_cards"] = longest[p["seat"] * each:(p["seat"] + 1) * each]
        for personal in (False, True):
            theme = replace(Theme(), width=round(Theme().width * (Theme().personal_share if personal else 1)))
            lay = make_layout(view["board"], theme, n, personal)
            drawn.clear()
            chrome.paint_played(Image.new("RGB", (lay.width, lay.height)), lay, view, theme, locale,
                                ["A", "B", "C", "D"][:n])
            x0, y0, x1, y1 = lay.played
            said = [s for _x, _y, s, _size, _fill in drawn]
            assert "…" not in said, (n, said)
            names = " ".join(t(f"game.scoring.{c}.name", locale) for seat in view["turn_order"]
                             for c in view["players"][seat]["played_scoring_cards"])  # in turn order
            assert " ".join(s.rstrip(",") for s in said) == names, said
            assert [fill for _x, _y, s, _size, fill in drawn if s in t("game.scoring.eruption.name", locale)] \
                and all(fill == theme.bad for _x, _y, s, _size, fill in drawn
                        if s in t("game.scoring.eruption.name", locale).split())
            for x, y, s, size, _fill in drawn:
                assert cap_height(size) * 400 / lay.width >= 9, (s, size)
                assert x0 < x and x + text_width(s, size) <= x1 and y0 < y - cap_height(size) and y < y1, s
    view = _game(["Ada", "Björn"], 0).view(None)
    lay = make_layout(view["board"], Theme(), 2, False)
    drawn.clear()
    chrome.paint_played(Image.new("RGB", (lay.width, lay.height)), lay, view, Theme(), locale, ["A", "B"])
    assert " ".join(s for _x, _y, s, _size, _fill in drawn) == t("render.played.none", locale)
