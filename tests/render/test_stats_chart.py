"""The stats picture (``render.stats``): a valid, small PNG of a player's rating and scores, drawn as lines."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from render.encode import MAX_BYTES
from render.stats import render_stats
from render.theme import DEFAULT_THEME

TITLES = ("Rating over time", "Score per game")


def opened(data: bytes) -> Image.Image:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) <= MAX_BYTES
    img = Image.open(io.BytesIO(data))
    img.load()
    return img.convert("RGB")


def colour_count(img: Image.Image, colour: tuple[int, int, int]) -> int:
    counts = img.getcolors(img.width * img.height) or []
    return next((n for n, c in counts if c == colour), 0)


@pytest.mark.parametrize(("ratings", "scores"), [([], [41]), ([3.0], [30, 44]),
                                                 ([float(i % 17) - 4 for i in range(400)], list(range(400)))])
def test_the_chart_is_a_small_png_of_the_expected_size(ratings: list[float], scores: list[int]) -> None:
    img = opened(render_stats(ratings, scores, titles=TITLES))
    assert img.size == (1200, 400)


def test_each_series_is_drawn_in_its_own_colour() -> None:
    with_ratings = opened(render_stats([1.0, 5.0, 9.0], [20, 30, 25], titles=TITLES))
    without = opened(render_stats([], [20, 30, 25], titles=TITLES))
    rating_colour, score_colour = DEFAULT_THEME.players[1], DEFAULT_THEME.players[2]
    assert colour_count(with_ratings, rating_colour) > 100 and colour_count(without, rating_colour) == 0
    assert colour_count(with_ratings, score_colour) > 100


def test_the_same_numbers_give_the_same_picture() -> None:
    assert render_stats([1.5, 2.5], [10, 12], titles=TITLES) == render_stats([1.5, 2.5], [10, 12], titles=TITLES)
