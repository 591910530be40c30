"""The animated replay of a finished game: a GIF of overviews Discord plays inline (readable in the chat's box), well
under 8 MiB for long 4-player games."""

from __future__ import annotations

import io

from PIL import Image

from engine import View, new_game
from engine.ai import choose_move
from render.replay import MAX_FRAMES, frame_indices, render_replay

DISCORD_LIMIT = 8 * 1024 * 1024


def four_player_views(seed: int) -> list[View]:
    game = new_game(["Ada", "Bo", "Cy", "Di"], seed)
    views = [game.view(None)]
    while game.to_move is not None:
        game.apply(choose_move(game.view(game.to_move), strength="random", seed=len(views), budget=0.1))
        views.append(game.view(None))
    return views


def test_frames_keep_the_first_and_last_position_and_are_bounded() -> None:
    assert frame_indices(3) == [0, 1, 2]
    picked = frame_indices(250, 40)
    assert len(picked) == 40 and picked[0] == 0 and picked[-1] == 249
    assert picked == sorted(set(picked))
    assert frame_indices(0) == []


def test_replay_of_the_longest_four_player_game_fits_discord() -> None:
    longest = max((four_player_views(seed) for seed in (3, 17, 29)), key=len)
    gif = render_replay(longest, locale="de")
    assert len(gif) < DISCORD_LIMIT, f"{len(gif)} bytes for {len(longest) - 1} moves"
    picture = Image.open(io.BytesIO(gif))
    assert picture.format == "GIF" and picture.is_animated
    assert picture.n_frames == len(longest) <= MAX_FRAMES  # one frame per move


def test_every_frame_of_the_replay_is_its_position_s_picture() -> None:
    """Each frame, drawn over the frames before it as a viewer does, is the picture of its position: the frames that
    keep only the changed pixels lose nothing, and none is skipped."""
    from PIL import ImageChops

    from render.encode import quantized
    from render.overview import compose_overview
    from render.replay import frame_theme, spare_index

    game = new_game(["Ada", "Bo"], 4)
    views = [game.view(None)]
    while game.to_move is not None and len(views) < 30:
        game.apply(choose_move(game.view(game.to_move), strength="random", seed=len(views), budget=0.1))
        views.append(game.view(None))
    picture = Image.open(io.BytesIO(render_replay(views, locale="fr")))
    marked = picture.info.get("transparency")  # every frame's graphic control extension gives the same index
    assert picture.n_frames == len(views)
    theme = frame_theme()
    spare = None
    for index, view in enumerate(views):
        picture.seek(index)
        img, palette, _written = compose_overview(view, locale="fr", theme=theme)
        frame = quantized(img, palette)
        spare = spare_index(palette)
        assert spare is not None and frame.histogram()[spare] == 0, index  # the unchanged pixels' mark is no colour
        expected = frame.convert("RGB")
        assert ImageChops.difference(picture.convert("RGB"), expected).getbbox() is None, index
    assert marked == spare


def test_the_replay_plays_readably_in_the_chat_s_box() -> None:
    """Its frames are overviews 640 pixels wide: the desktop chat shows them at 437 × 350, a phone's at 330 × 264
    (not a 168 × 350 stamp of the board), never enlarged."""
    from render import inline
    from render.overview_layout import overview_layout
    from render.replay import REPLAY_WIDTH, frame_theme

    game = new_game(["Ada", "Bo", "Cy"], 5)
    views = [game.view(None)]
    for _ in range(3):
        game.apply(choose_move(game.view(game.to_move), strength="random", seed=len(views), budget=0.1))
        views.append(game.view(None))
    picture = Image.open(io.BytesIO(render_replay(views)))
    lay = overview_layout(views[0]["board"], frame_theme(), 3)
    assert picture.size == (lay.width, lay.height) and lay.width == REPLAY_WIDTH
    assert inline.shown(picture.size, inline.DESKTOP_GALLERY) == (437.5, 350)
    assert inline.shown(picture.size, inline.ANDROID) == (330, 264)
