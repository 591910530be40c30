"""What a player types for a scoring card (``/santacruz score card:…``) is read in every language, with or
without the signs between a name's words; an unknown name is refused with the list of the cards. Names cut to
Discord's limits keep whole letters."""

from __future__ import annotations

import pytest

from bot.adapter.errors import Refusal
from bot.adapter.options import scoring_card_id
from bot.adapter.words.common import clip
from engine import SCORING_CARD_IDS
from i18n import LOCALES, t


@pytest.mark.parametrize("lang", LOCALES)
def test_every_card_is_found_by_its_id_and_its_name_in_any_language(lang: str) -> None:
    for card in SCORING_CARD_IDS:
        assert scoring_card_id(card, lang) == card
        for other in LOCALES:
            name = t(f"game.scoring.{card}.name", other)
            assert scoring_card_id(name, lang) == card
            assert scoring_card_id(f"  {name.upper()} ", lang) == card


def test_the_words_of_a_name_count_not_the_signs_between_them() -> None:
    assert scoring_card_id("house, church, lighthouse", "en") == "trio"
    assert scoring_card_id("Haus Kirche Leuchtturm", "de") == "trio"
    assert scoring_card_id("maison+église+phare", "fr") == "trio"
    assert scoring_card_id("Fish, sheep", "en") == "fish-sheep"


def test_an_unknown_card_is_refused_with_the_cards_named() -> None:
    with pytest.raises(Refusal) as refused:
        scoring_card_id("church", "en")
    assert refused.value.params["cards"].count(", ") == len(SCORING_CARD_IDS) - 1


def test_a_label_cut_to_discord_s_limit_keeps_whole_letters() -> None:
    assert clip("क्षत्रिय wins", 4) == "क्ष…"  # not क्षत… with त torn from its र
    assert clip("Ada wins", 4) == "Ada…"
    assert clip("Ada", 4) == "Ada"
