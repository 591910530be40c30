"""The engine's reasons for refusing a move, in words in every language."""

from __future__ import annotations

import io

import pytest

from bot.host.host import HostError
from engine import REASONS, IllegalMove, parse_move
from i18n import LOCALES, catalogue, illegal_text, t
from play.cli import run_play
from tests.helpers.engine import arranged, play


def refusal(text: str) -> IllegalMove:
    game = arranged()
    play(game, "land 1", "land 2")
    game.supply[0][1] = 0  # no church left: coast 3 shows a church
    game._legal = None
    reason = game.refusal(text)
    assert reason is not None
    return reason


def test_every_reason_code_has_words_in_every_language() -> None:
    for code in REASONS:
        words = {lang: catalogue(lang)[f"game.illegal.{code}"] for lang in LOCALES}
        assert words["de"] != words["en"] and words["fr"] != words["en"], code
        assert words["de"].endswith(".") and words["fr"].endswith("."), code


@pytest.mark.parametrize(("text", "words"), [
    ("ship 3", {"en": "Site 3 needs a church, and you have none left in your supply.",
                "de": "Bauplatz 3 braucht eine Kirche, aber davon ist nichts mehr in deinem Vorrat.",
                "fr": "L’emplacement 3 demande une église, et il ne t’en reste plus dans ta réserve."}),
    ("road", {"en": "You can build with this road card, so you must: choose a site (possible: 5).",
              "de": "Mit dieser Wegkarte kannst du bauen, also musst du es auch: Wähle einen Bauplatz (möglich: 5).",
              "fr": "Tu peux construire avec cette carte route, tu dois donc le faire : choisis un emplacement "
                    "(possibles : 5)."}),
    ("score gold10", {"en": "You do not hold the scoring card “Gold (10)”.",
                      "de": "Du hast die Wertungskarte „Gold (10)“ nicht auf der Hand.",
                      "fr": "Tu n’as pas la carte score « Or (10) » en main."}),
])
def test_a_refusal_is_worded_in_each_language(text: str, words: dict[str, str]) -> None:
    reason = refusal(text)
    for lang in LOCALES:
        assert illegal_text(reason, lang) == words[lang]


def test_what_the_user_typed_is_escaped_for_where_it_is_shown() -> None:
    with pytest.raises(IllegalMove) as caught:
        parse_move("**fly** 3")
    assert illegal_text(caught.value, "de", escape=lambda s: s.replace("*", "\\*")).startswith(
        "„\\*\\*fly\\*\\*“ ist kein Zug.")


def test_the_hosts_refusal_gives_the_engine_reason_in_the_users_language() -> None:
    reason = refusal("road 6")
    error = HostError("host.error.illegal_move", move="road 6", reason=str(reason), illegal=reason)
    assert error.text("de") == t("host.error.illegal_move", "de", move="road 6",
                                 reason="Bauplatz 6 ist mit keinem deiner Gebäude durch ein einzelnes Wegstück "
                                        "verbunden.")
    assert error.text("fr").endswith("n’est pas à un tronçon de route de l’un de tes bâtiments.")
    assert str(reason) == "Site 6 is not one road segment away from any of your buildings."


def test_the_terminal_game_explains_a_refused_move_in_the_games_language() -> None:
    out = io.StringIO()
    answers = iter(["land 999", "quit"])
    run_play(2, 1, "random", 3, 0.1, "de", ask=lambda _prompt: next(answers), stream=out)
    text = out.getvalue()
    assert t("cli.play.illegal", "de", reason="Es gibt keinen Bauplatz 999: Die Bauplätze sind von 1 bis") in text
    assert "There is no site" not in text
