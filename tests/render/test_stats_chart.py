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


def pixels_of(img: Image.Image, colour: tuple[int, int, int], box: tuple[int, int, int, int]) -> list[tuple[int, int]]:
    """The points of ``box`` (left, top, right, bottom) that have exactly ``colour``."""
    x0, y0, x1, y1 = box
    return [(x, y) for x in range(x0, x1) for y in range(y0, y1) if img.getpixel((x, y)) == colour]


def test_one_game_is_a_readable_point_in_the_middle_with_its_value() -> None:
    img = opened(render_stats([1040.0], [53], titles=TITLES))
    for colour, (left, right) in ((DEFAULT_THEME.players[1], (0, 600)), (DEFAULT_THEME.players[2], (600, 1200))):
        dot = pixels_of(img, colour, (left, 0, right, img.height))
        assert len(dot) > 150  # a dot one can see, not a speck
        xs, ys = [x for x, _ in dot], [y for _, y in dot]
        assert max(xs) - min(xs) < 30 and max(ys) - min(ys) < 30  # one point, no line
        middle_x, middle_y = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
        assert abs(middle_x - (left + right) / 2) < 40  # in the middle of its panel, not against the left edge
        assert 120 < middle_y < 300  # between the grid lines, not on the bottom line
        value = pixels_of(img, DEFAULT_THEME.text, (round(middle_x) - 60, min(ys) - 50, round(middle_x) + 60, min(ys)))
        assert len(value) > 40  # its value written above it


def test_a_single_game_and_a_longer_history_differ_only_where_they_should() -> None:
    one = opened(render_stats([1040.0], [53], titles=TITLES))
    two = opened(render_stats([1040.0, 1080.0], [53, 61], titles=TITLES))
    score_colour = DEFAULT_THEME.players[2]
    assert colour_count(two, score_colour) > colour_count(one, score_colour)  # a line joins the games
