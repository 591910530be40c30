"""Numbers, lists and the words around the cards by each language's rules: percentages, decimals and lists from
CLDR (Babel), their no-break spaces drawable in the pictures, the French genders of « tour », « carte », « aucun »,
and a refused building card said in each card's own words."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.adapter.errors import _explain_illegal
from bot.host.errors import HostError
from engine import IllegalMove, new_game
from i18n import LOCALES, decimal, describe_events, listed, percent, t, tn
from render.fonts import face_of

ROOT = Path(__file__).resolve().parents[2]


def test_percentages_follow_each_languages_rules() -> None:
    assert percent(0.45, "en") == "45%"
    assert percent(0.45, "de") == "45\u00a0%" and percent(0.45, "fr") == "45\u00a0%"
    assert percent(0, "en") == "0%" and percent(1, "de") == "100\u00a0%"


def test_decimals_use_the_languages_mark_and_a_true_minus_sign() -> None:
    assert [decimal(2.5, lang) for lang in LOCALES] == ["2.5", "2,5", "2,5"]
    assert decimal(3.0, "en") == "3" and decimal(-1.5, "de") == "\u22121,5"
    assert decimal(1234.56, "en") == "1,234.6" and decimal(1234.5, "de") == "1.234,5"


def test_lists_are_joined_with_the_languages_and() -> None:
    assert [listed([3, 7, 12], lang) for lang in LOCALES] == ["3, 7 and 12", "3, 7 und 12", "3, 7 et 12"]
    assert listed([], "en") == "" and listed(["Ada"], "fr") == "Ada"
    assert listed(range(1, 21), "en", most=5) == "1, 2, 3, 4 and 16 more"
    assert listed(range(1, 21), "de", most=5) == "1, 2, 3, 4 und 16 weitere"
    assert listed(range(1, 4), "en", most=5) == "1, 2 and 3"  # short enough: all named
    assert [listed(["A", "B", "C"], lang, choice=True) for lang in LOCALES] == ["A, B or C", "A, B oder C", "A, B ou C"]


@pytest.mark.parametrize("weight", ["regular", "bold", "condensed"])
def test_the_pictures_fonts_draw_the_no_break_spaces_and_the_minus(weight: str) -> None:
    for char in "\u00a0\u202f\u2212":
        assert face_of(char, weight) is not None, (hex(ord(char)), weight)
    for lang in LOCALES:  # whatever CLDR puts in a number is drawn
        for text in (percent(0.5, lang), decimal(-1234.5, lang), listed([1, 2], lang)):
            assert all(face_of(c, weight) is not None for c in text), (lang, text)


def test_no_percent_sign_is_written_into_a_template() -> None:
    """A percentage is formatted whole (its sign and spacing are the language's), never "{chance}%"."""
    for path in sorted((ROOT / "i18n" / "locales").glob("*/*.json")):
        for key, text in json.loads(path.read_text(encoding="utf-8")).items():
            assert not re.search(r"\}\s?%", text), (path.parent.name, key, text)


def test_french_gives_tour_carte_and_aucun_their_gender() -> None:
    french = {}
    for path in sorted((ROOT / "i18n" / "locales" / "fr").glob("*.json")):
        french.update(json.loads(path.read_text(encoding="utf-8")))
    wrong = re.compile(r"\b(?:la|une|cette|de la) double tour|\b(?:le|un|ce) carte\b|cartes? \w+ : aucun\b")
    assert [k for k, v in french.items() if wrong.search(v)] == []
    short = describe_events([{"type": "card", "seat": 0, "card": "double", "kind": "road"}], "fr", ["Ada"],
                            short=True)
    assert short == ["Ada a joué le double tour : deux fois carte route."]
    assert t("render.you.cards", "fr", cards=t("render.you.no_cards", "fr")) == "Tes cartes score : aucune"
    assert t("render.you.chips", "fr", chips=t("render.you.no_chips", "fr")) == "Tes jetons oiseau : aucun"


@pytest.mark.parametrize(("code", "kind", "said"), [
    ("no_building_card", "ship", {"en": "You have no ship card left.", "de": "Du hast keine Schiffkarte mehr.",
                                  "fr": "Tu n’as plus de carte navire."}),
    ("no_building_card", "road", {"en": "You have no road card left.", "de": "Du hast keine Wegkarte mehr.",
                                  "fr": "Tu n’as plus de carte route."}),
    ("no_double_card", None, {"en": "You have no double move left.", "de": "Du hast keinen Doppelzug mehr.",
                              "fr": "Tu n’as plus de double tour."}),
])
def test_a_card_no_longer_held_is_named_in_its_own_words(code: str, kind: str | None, said: dict[str, str]) -> None:
    game = new_game(["Ada", "Bo"], 1)
    view = game.view(0)
    reason = IllegalMove(code, kind=kind) if kind else IllegalMove(code)
    error = HostError("host.error.illegal_move", move=kind or "double road", reason=str(reason), illegal=reason)
    for lang in LOCALES:
        assert _explain_illegal(error, view, [], lang) == said[lang]


@pytest.mark.parametrize("lang", LOCALES)
def test_the_bird_scoring_card_is_said_as_every_card_and_the_ends_chips_with_their_reveal(lang: str) -> None:
    card = [{"type": "card", "seat": 0, "card": "birds", "scoring": True},
            {"type": "score", "seat": 0, "delta": 8, "reason": "birds"}]
    name = t("game.scoring.birds.name", lang)
    assert describe_events(card, lang, ["Ada"])[1] == tn("game.event.score.card", 8, lang, player="Ada", card=name)
    end = [{"type": "birds", "seat": 0, "chips": [2, 3]},  # the end's chips score under their own reason
           {"type": "score", "seat": 0, "delta": 5, "reason": "bird_chips"}]
    assert describe_events(end, lang, ["Ada"]) == [tn("game.event.birds", 2, lang, player="Ada",
                                                      chips=listed([2, 3], lang), points=5)]
