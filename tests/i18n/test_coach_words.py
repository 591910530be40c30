"""The coach's words (i18n/coach.py, coach.json): every reason in every language, counts in plural forms, short."""

from __future__ import annotations

import random
import re
from functools import cache

import pytest

from engine import CardNow, new_game
from engine.ai.coach import (
    COMPARISON_CODES,
    MERITS,
    REASON_CODES,
    RISKS,
    VOLCANO_STATUSES,
    Advice,
    CoachError,
    MoveAdvice,
    Reason,
    VolcanoRisk,
    advise,
)
from i18n import LOCALES, catalogue, describe_move, t
from i18n.coach import MESSAGE_MAX, advice_text, refusal_text

NAMES = ("Ada", "Bo", "Cy")


def _one_of_each() -> tuple[Reason, ...]:
    """A reason of every code, with plausible parameters (singular and plural counts both appear below)."""
    return (
        Reason.of("build_points", points=3),
        Reason.of("build_expected", tenths=25, chance=80),
        Reason.of("build_expected", tenths=10, chance=100),
        Reason.of("no_build"),
        Reason.of("card_score", card="sugar", points=7, other=1, other_points=4),
        Reason.of("card_score", card="eruption", points=-4, other=2, other_points=-2),
        Reason.of("card_score_alone", card="gold10", points=10),
        Reason.of("destroys", yours=2, others=1),
        Reason.of("card_gain", card="gold10", now=0, after=10, chance=100),
        Reason.of("card_gain", card="fish-sheep", now=3, after=7, chance=25),
        Reason.of("card_loss", card="eruption", now=-2, after=-4, chance=100),
        Reason.of("card_loss", card="eruption", now=-2, after=-4, chance=40),
        Reason.of("bird_chip", chance=100, left=1),
        Reason.of("bird_chip", chance=30, left=12),
        Reason.of("opens", count=1),
        Reason.of("reveals", count=3),
        Reason.of("takes_from", seats=(1, 2)),
        Reason.of("shares", seat=2),
        *(Reason.of("on_volcano", status=s, chance=35) for s in ("unseen", "pile", "yours")),
        Reason.of("double_plan", kind="road", options=4, sites=(9, 12)),
        Reason.of("pass_rest"),
        Reason.of("set_choice", set="B"),
        Reason.of("pile_cards", owner=1, set="C", cards=("volcano", "gold10")),
        Reason.of("discard_card", card="birds"),
        Reason.of("ends_game", points=7, chips=(4, 3)),
        Reason.of("ends_game", points=0, chips=()),
    )


PARTS = (0, 1, 2)
"""The reasons are shown in three advices, each short enough for one message in every language."""


def _synthetic(volcano: str, part: int = 0) -> Advice:
    """An advice with the ``part``-th third of :func:`_one_of_each` (all of them: ``part`` -1)."""
    reasons = _one_of_each()
    third = -(-len(reasons) // len(PARTS))
    shown = reasons if part < 0 else reasons[part * third:(part + 1) * third]
    best = MoveAdvice("ship 7", shown, 40, 0.61, 3)
    second = MoveAdvice("road 9", (Reason.of("build_points", points=1),), 38, 0.55, 1)
    why = (Reason.of("value_gap", gap=6, playouts=78), Reason.of("close_call", gap=2, playouts=78),
           Reason.of("fewer_points", count=2),
           Reason.of("misses", codes=MERITS), Reason.of("risks", codes=RISKS))
    hand = (CardNow(card="sugar", points=7, other=1, other_points=4),
            CardNow(card="eruption", points=-2, other=2, other_points=-4),
            CardNow(card="volcano", points=3, other=None, other_points=0))
    return Advice(seat=0, names=NAMES, round=1, phase="play", best=best, runner_up=second, why_not=why,
                  hand=hand, volcano=VolcanoRisk(volcano, 35, 1), playouts=200)


def test_the_synthetic_advice_uses_every_code() -> None:
    advice = _synthetic("unseen", -1)
    assert {r.code for r in advice.best.reasons} == set(REASON_CODES)
    assert {r.code for r in advice.why_not} == set(COMPARISON_CODES)


@pytest.mark.parametrize("lang", LOCALES)
@pytest.mark.parametrize("volcano", [s for s in VOLCANO_STATUSES if s not in ("played", "out")])
def test_every_reason_has_words_in_every_language(lang: str, volcano: str) -> None:
    texts = [advice_text(_synthetic(volcano, part), lang) for part in PARTS]
    for part, text in enumerate(texts):
        assert len(text) <= MESSAGE_MAX
        assert "{" not in text and "}" not in text
        reasons = len(_synthetic(volcano, part).best.reasons)
        assert len(text.splitlines()) == 2 + reasons + 1 + 1 + 1 + len(COMPARISON_CODES)
        said = describe_move("ship 7", lang, NAMES, 0, you=True)  # to the asker, after a colon
        assert (said if lang == "de" else said[0].lower() + said[1:]) in text
        assert NAMES[0] not in text.splitlines()[1]
    both = "\n".join(texts)
    for card in ("sugar", "gold10", "fish-sheep", "eruption", "volcano", "birds"):
        assert t(f"game.scoring.{card}.name", lang) in both
    assert "−4" in both  # a loss shows a true minus sign


def test_a_text_too_long_for_discord_is_cut_between_lines() -> None:
    text = advice_text(_synthetic("unseen", -1), "fr", names=["Ａ" * 32, "B" * 32, "C" * 32])
    assert len(text) <= MESSAGE_MAX
    assert text.endswith("\n…")
    full_lines = text.splitlines()[:-1]
    assert full_lines[0].startswith("Conseil pour")


def test_the_words_read_as_expected_in_english() -> None:
    text = "\n".join(advice_text(_synthetic("unseen", part), "en") for part in PARTS)
    for line in ("Hint for Ada (round 1)",
                 "Best move: ship 7 — you play a ship card and build on site 7",
                 "• Scores 3 build points now",
                 "• The tile is face down: 2.5 build points on average, 80% that you have its building",
                 "• The tile is face down: 1 build point on average",
                 "• Scores “Sugar” now: 7 points for you, 4 points for Bo",
                 "• Scores “Eruption” now: −4 points for you, −2 points for Cy",
                 "• The eruption destroys 2 buildings of yours and 1 building of the other players",
                 "• Raises “Gold (10)” in your hand from 0 to 10 points",
                 "• May raise “Fish + sheep” in your hand from 3 to 7 points (25% chance)",
                 "• Opens 1 new site for your next building cards",
                 "• Turns 3 face-down sites face up (everyone sees them)",
                 "• Takes a site within reach of Bo and Cy",
                 "• Double move (Road): 4 possible sites, best 9 and 12",
                 ("Your scoring cards if played now (you / the best other): Sugar 7 / Bo 4 · Eruption −2 / Cy −4 · "
                  "Volcano 3"),
                 "• Scores “Gold (10)” now: 10 points for you, nothing for the others",
                 "Volcano: the eruption card is unseen (35% that another player holds it); "
                 "1 of your buildings stands on a volcano site",
                 "• Ends the game: +7 from the bird chips you hold (4 + 3), revealed then",
                 "• Ends the game (you hold no bird chips yet)",
                 "Runner-up: road 9 — you play a road card and build on site 9",
                 "• The search rates it 6 out of 100 lower (78 simulated games)",
                 "• Scores 2 points less now"):
        assert line in text.splitlines(), line


def test_german_and_french_use_their_decimal_comma_and_plural_forms() -> None:
    de = "\n".join(advice_text(_synthetic("unseen", part), "de") for part in PARTS)
    fr = "\n".join(advice_text(_synthetic("unseen", part), "fr") for part in PARTS)
    assert "im Schnitt 2,5 Baupunkte" in de
    assert "• Das Plättchen liegt verdeckt: im Schnitt 1 Baupunkt" in de.splitlines()
    assert "prime de construction de 2,5 points en moyenne" in fr
    assert "prime de construction de 1 point en moyenne" in fr
    assert "Ouvre 1 nouvel emplacement" in fr
    assert "2 bâtiments à toi et 1 bâtiment aux autres joueurs" in fr
    assert "„Zucker“" in de and "« Sucre »" in fr
    # percentages by each language's rules (CLDR): a no-break space before the sign in German and French only
    assert "zu 80\u00a0% hast du sein Gebäude" in de and "80\u00a0% de chances" in fr
    assert "80%" not in de + fr and "80 %" not in de + fr


def test_french_says_tu() -> None:
    for key, text in catalogue("fr").items():
        if key.startswith("coach."):
            assert not re.search(r"\b(vous|votre|vos)\b", text, re.IGNORECASE), key


@cache
def _real_advice() -> tuple[Advice, ...]:
    out = []
    for n in (2, 3, 4):
        game = new_game([*NAMES, "Di"][:n], 90 + n)
        rng = random.Random(n)
        k = 0
        while not game.is_over():
            if k % 11 == 3:
                seat = game.to_move
                assert seat is not None
                out.append(advise(game.view(seat), seed=k, iterations=16, budget=None))
            game.apply(rng.choice(game.legal_moves()))
            k += 1
    return tuple(out)


@pytest.mark.parametrize("lang", LOCALES)
def test_real_advice_reads_well_and_fits_one_discord_message(lang: str) -> None:
    long_names = ["Ａ" * 32, "B" * 32, "C" * 32, "D" * 32]  # Discord's longest display names
    for advice in _real_advice():
        text = advice_text(advice, lang, names=long_names[: len(advice.names)])
        assert len(text) <= MESSAGE_MAX
        assert "{" not in text and "}" not in text
        assert advice.best.move in text
        if advice.runner_up is not None:
            assert advice.runner_up.move in text


def test_names_can_be_escaped_for_the_place_they_are_shown() -> None:
    text = advice_text(_synthetic("unseen"), "en", names=["A_da", "B*o", "Cy"],
                       escape=lambda s: s.replace("_", "\\_").replace("*", "\\*"))
    assert "Hint for A\\_da" in text and "B\\*o" in text


@pytest.mark.parametrize("lang", LOCALES)
def test_refusals_have_words(lang: str) -> None:
    for code in CoachError.CODES:
        text = refusal_text(CoachError(code), lang)
        assert text.endswith(".") and "{" not in text

