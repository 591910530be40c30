"""Pictures for the bot's messages, rendered off the event loop and cached by position.

A board is drawn in the bot's render worker pool (worker processes under ``santacruz-bot``) or, without one, in a
thread, so the bot keeps answering while Pillow works (an emoji of the icons, drawn once for good at a start, in a
thread). A killed worker process does not end the pictures: the pool is replaced and the picture drawn again
(``bot.host.workers``). The last pictures are kept by the caller's key (``(game id, seq, user id or None for the
channel)``) with the language and the kind: the channel's board of one position is drawn once however many messages
show it. A picture that fails to render is logged and the words go alone. At a start each render worker draws a
move's pictures once for two, three and four players (:func:`warm_workers`), so that the first pictures the players
wait for are not the ones that draw the bases every picture starts from.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
from collections import OrderedDict
from concurrent.futures import Executor
from typing import Any, Final

import engine
import render.board
import render.emoji
import render.gameover
import render.overview
import render.replay
from bot.host import metrics, priority
from bot.host.workers import WorkerPool, as_pool
from engine import View, from_record
from render.theme import DEFAULT_THEME, Theme

log = logging.getLogger(__name__)

RENDER_CACHE_SIZE: Final = 64
DEFAULT_WIDTH: Final = DEFAULT_THEME.width
"""The boards' width when ``PICTURE_WIDTH`` is not set (pixels)."""
PERSONAL_WIDTH: Final = 800
"""The widest a player's own picture (a DM, *My cards*) is drawn, in pixels: a phone shows it no larger, and it
is a fifth fewer bytes than one drawn at the default board's three quarters (960)."""


def render_picture(view: View, locale: str, personal: bool, game_over: bool, width: int = DEFAULT_WIDTH,
                   overview: bool = False) -> bytes:
    """A picture of ``view`` for a board ``width`` pixels wide (a module-level function, so that a process pool can
    run it): the board, the game-over chart, or with ``overview`` what the chat shows without a tap."""
    theme = _theme(width)
    if overview:
        return render.overview.render_overview(view, locale=locale, personal=personal, theme=theme)
    if game_over:
        return render.gameover.render_game_over(view, locale=locale, theme=theme)
    return render.board.render_board(view, locale=locale, personal=personal, theme=theme)


@functools.cache
def _theme(width: int) -> Theme:
    """One theme per width (the renderer's caches key on it)."""
    return DEFAULT_THEME if width == DEFAULT_WIDTH else dataclasses.replace(DEFAULT_THEME, width=width)


def picture_width(width: int, *, personal: bool, overview: bool) -> int:
    """How wide a picture is drawn for boards ``width`` pixels wide: a player's own board narrower
    (:data:`PERSONAL_WIDTH`); an overview as wide in a DM as in the channel (a phone's chat column shows it at the same
    size)."""
    return min(width, round(PERSONAL_WIDTH / DEFAULT_THEME.personal_share)) if personal and not overview else width


def render_timer(picture: str) -> Any:
    """A timer of ``santacruz_render_seconds`` for a picture of kind ``picture`` asked now, labelled with the priority
    of the work under way (:func:`bot.host.priority.current`), the one the render workers give it."""
    return metrics.RENDER_SECONDS.labels(picture, priority.current().name.lower()).time()


WARM_PLAYERS: Final = (2, 3, 4)
"""The player counts whose pictures a render worker draws once at a start (:func:`warm_up`)."""


def warm_up(width: int) -> None:
    """In a render worker: a move's pictures drawn once for each of :data:`WARM_PLAYERS` (the post's overview and
    board, a seat's), so that the bases, palettes and icons they start from are drawn before a player waits for them."""
    for players in WARM_PLAYERS:
        game = engine.new_game([f"P{seat + 1}" for seat in range(players)], players)
        for view, personal in ((game.view(None), False), (game.view(game.to_move, since=True), True)):
            for overview in (True, False):
                render_picture(view, "en", personal, False, picture_width(width, personal=personal,
                                                                          overview=overview), overview)


async def warm_workers(workers: WorkerPool, count: int, width: int) -> None:
    """Each of ``count`` render workers draws :func:`warm_up`'s pictures (a failure is logged: the pictures are then
    drawn as they are asked for)."""
    try:
        await asyncio.gather(*(workers.run(warm_up, width, what="warming up") for _ in range(count)))
    except Exception:
        log.exception("the render workers could not draw their first pictures ahead")


def record_views(record: dict[str, Any]) -> list[View]:
    """The public views of a game record (``host.archive.game_record``): the set-up, then after each move."""
    game = from_record(record["setup"], [])
    views = [game.view(None)]
    for move in record["moves"]:
        game.apply(move["move"])
        views.append(game.view(None))
    return views


def render_replay_record(record: dict[str, Any], locale: str) -> bytes:
    """The animated replay (GIF) of a finished game's record (module level, for a process pool)."""
    return render.replay.render_replay(record_views(record), locale=locale)


class Pictures:
    """Renders views to PNG off the event loop, keeping the last :data:`RENDER_CACHE_SIZE` by key."""

    def __init__(self, executor: WorkerPool | Executor | None, *, width: int = DEFAULT_WIDTH) -> None:
        """``executor``: where pictures are drawn (a bare executor is wrapped in a :class:`WorkerPool`); ``width``:
        the boards' width in pixels (``PICTURE_WIDTH``)."""
        self.workers = as_pool(executor, name="render")
        self.width = width
        self._renders: OrderedDict[tuple[Any, ...], bytes] = OrderedDict()

    async def png(self, view: View, locale: str, *, key: tuple[Any, ...] | None = None,
                  personal: bool = False, game_over: bool = False, overview: bool = False) -> bytes | None:
        """A picture of ``view``, rendered off the loop (cached by ``key``); ``None`` if rendering failed.
        ``overview``: the picture the chat shows without a tap (:mod:`render.overview`), which a message carries
        before the board (each alone in its gallery, so that Discord crops neither)."""
        cache_key = (*key, locale, personal, game_over, overview) if key is not None else None
        if cache_key is not None and cache_key in self._renders:
            self._renders.move_to_end(cache_key)
            return self._renders[cache_key]
        try:
            png = await self._render_off_loop(view, locale, personal=personal, game_over=game_over,
                                              overview=overview)
        except Exception:
            log.exception("rendering a picture failed; sending the words alone")
            return None
        if cache_key is not None:
            self._renders[cache_key] = png
            while len(self._renders) > RENDER_CACHE_SIZE:
                self._renders.popitem(last=False)
        return png

    async def replay_gif(self, record: dict[str, Any], locale: str) -> bytes | None:
        """The animated replay of a finished game, made in the render worker pool; ``None`` if that failed."""
        try:
            with render_timer("replay"):
                return await self.workers.run(render_replay_record, record, locale, what="a replay")
        except Exception:
            log.exception("rendering a replay failed; it is left out")
            return None

    async def emoji(self, icon: str) -> bytes | None:
        """Icon ``icon`` as an emoji (:func:`render.emoji.emoji_png`), drawn in a thread (a few small pictures, once
        for good: not worth starting the render worker processes for, at a start that may draw nothing else);
        ``None`` if that failed."""
        try:
            return await asyncio.to_thread(render.emoji.emoji_png, icon)
        except Exception:
            log.exception("drawing an emoji failed; it is left out")
            return None

    async def _render_off_loop(self, view: View, locale: str, *, personal: bool, game_over: bool,
                               overview: bool) -> bytes:
        """Render in the render worker pool (a process pool in production), else in a thread. A player's own board
        is narrower (:data:`PERSONAL_WIDTH`); an overview is as wide in a DM as in the channel (a phone's chat
        column shows it at the same size)."""
        width = picture_width(self.width, personal=personal, overview=overview)
        picture = "overview" if overview else "game_over" if game_over else "dm" if personal else "board"
        with render_timer(picture):
            return await self.workers.run(render_picture, view, locale, personal, game_over, width, overview,
                                          what="a picture")
