"""The game-over picture's words: the rounds' points add up with the bird chips to the score, each round of the
chart is named (German „1. Durchgang“ is wider than its room between the axis and round 2), and the bird chips'
line keeps its name in every language however many chips a seat holds. The words drawn are read by recording the
picture's calls to its text function (the drawing itself is tested in ``test_render.py``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import render.gameover as gameover
from i18n import LOCALES, t
from render.samples import play
from render.theme import Theme

NAMES = ["王小明", "たろう", "🦊 Fuchs", "محمد"]


def drawn(view: Any, locale: str, width: int, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The strings the game-over picture of ``view`` draws at ``width``."""
    said: list[str] = []
    real = gameover.text

    def record(img: Any, x: float, y: float, s: str, *args: Any, **kwargs: Any) -> None:
        said.append(s)
        real(img, x, y, s, *args, **kwargs)

    monkeypatch.setattr(gameover, "text", record)
    gameover.compose_game_over(view, locale=locale, theme=Theme(width=width))
    monkeypatch.setattr(gameover, "text", real)
    return said


@pytest.mark.parametrize("locale", LOCALES)
def test_the_rounds_and_the_bird_chips_add_up_to_each_score_and_every_round_is_named(
        locale: str, monkeypatch: pytest.MonkeyPatch) -> None:
    view = play(4, 7, None, names=NAMES).view(None)
    log = view["log"]
    round_one = next(e["scores"] for e in log if e["round"] == 2)  # after the move that ended round 1
    for width in (800, 1600):
        said = drawn(view, locale, width, monkeypatch)
        for p in view["players"]:
            chips = sum(p["bird_chips"])
            one = round_one[p["seat"]]
            two = p["score"] - one - chips
            assert t("render.over.rounds", locale, one=one, two=two) in said
        assert t("render.over.round", locale, n=1) in said and t("render.over.round", locale, n=2) in said


@pytest.mark.parametrize("locale", LOCALES)
def test_the_bird_chips_line_keeps_its_name_however_many_chips(locale: str, monkeypatch: pytest.MonkeyPatch) -> None:
    view = copy.deepcopy(play(4, 7, None, names=NAMES).view(None))
    view["players"][0]["bird_chips"] = [3, 3, 3, 2, 2, 2, 1, 1, 1, 1]
    label = t("render.over.birds", locale, chips="")
    said = drawn(view, locale, 800, monkeypatch)
    lines = [s for s in said if s.startswith(label)]
    assert len(lines) == 4, said  # one a seat, named
    assert sum(line.endswith("19") for line in lines) == 1  # detailed where it fits, else the sum alone
