"""The board pictures of the web pages: drawn on demand by the bot's own renderer, off the event loop, and kept.

A position's board is render's most detailed picture of it (:func:`bot.host.pictures.render_picture` at the widest
width render draws, :data:`FULL_WIDTH`), drawn in the render worker pool the bot's posts use (worker processes under
``santacruz-bot``; a thread without one) the first time a page asks for it, and kept in a cache bounded by its bytes
(:data:`CACHE_BYTES`, least recently used first out). Two pages asking for the same picture at once share one
drawing. A seat's own picture (its legal sites flagged) is keyed by its seat as well, and only ever handed to that
seat's signed link (the server checks the link before it asks).
"""

from __future__ import annotations

import asyncio
import struct
from collections import OrderedDict
from concurrent.futures import Executor
from typing import Any, Final

from bot.host.pictures import render_picture, render_timer
from bot.host.workers import WorkerPool, as_pool
from engine import View
from render.theme import WIDTHS

FULL_WIDTH: Final = WIDTHS[1]
"""The width the pages' boards are drawn at (pixels): the widest render offers, for zooming in."""
CACHE_BYTES: Final = 96 * 1024 * 1024
"""The most bytes of pictures kept (about 150 boards at full width)."""


def png_size(png: bytes) -> tuple[int, int]:
    """A PNG's width and height, from its header."""
    width, height = struct.unpack(">II", png[16:24])
    return int(width), int(height)


class BoardPictures:
    """The pages' pictures, drawn once each and kept while there is room."""

    def __init__(self, executor: WorkerPool | Executor | None, *, limit: int = CACHE_BYTES,
                 width: int = FULL_WIDTH) -> None:
        self.workers = as_pool(executor, name="render")
        self.limit = limit
        self.width = width
        """The boards' width in pixels (:data:`FULL_WIDTH`; tests draw narrower ones, quicker)."""
        self._kept: OrderedDict[tuple[Any, ...], bytes] = OrderedDict()
        self._bytes = 0
        self._drawing: dict[tuple[Any, ...], asyncio.Future[bytes]] = {}

    def kept(self, key: tuple[Any, ...]) -> bytes | None:
        """The picture of ``key`` if it is drawn already."""
        png = self._kept.get(key)
        if png is not None:
            self._kept.move_to_end(key)
        return png

    async def png(self, key: tuple[Any, ...], view: View, locale: str, *, personal: bool = False) -> bytes:
        """The picture of ``view`` (named for ever by ``key``), drawn now if it is not kept; raises what drawing
        raised (the server answers 503)."""
        png = self.kept(key)
        if png is not None:
            return png
        drawing = self._drawing.get(key)
        if drawing is None:
            drawing = asyncio.ensure_future(self._draw(key, view, locale, personal))
            self._drawing[key] = drawing
            drawing.add_done_callback(lambda _: self._drawing.pop(key, None))
        return await asyncio.shield(drawing)

    async def _draw(self, key: tuple[Any, ...], view: View, locale: str, personal: bool) -> bytes:
        with render_timer("web"):
            png: bytes = await self.workers.run(render_picture, view, locale, personal, False, self.width,
                                                what="a web page's board")
        self._kept[key] = png
        self._bytes += len(png)
        while self._bytes > self.limit and len(self._kept) > 1:
            _, dropped = self._kept.popitem(last=False)
            self._bytes -= len(dropped)
        return png
