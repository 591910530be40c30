"""The island layer, redrawn only where it changed (the lila-gif idea: compose only what differs).

A picture's island is the base picture with a list of :data:`Item` sprites pasted on it in order. The
last few results are kept with their item lists; a new picture starts from the kept one that differs
least (usually the previous move of the same game), finds the rectangles of the items that appeared
or disappeared, and repaints just those rectangles from the base: every item that touches such a
rectangle is pasted again, in the list's order, onto a fresh crop of the base. Pasting is
pixel-local, so the result is identical, pixel for pixel, to painting the whole list from scratch.
Each kind of picture keeps its own layers (:class:`Layers`): the board's and the overview's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import TypeVar

from PIL import Image

from render import draw

T = TypeVar("T")
Item = tuple[Hashable, Image.Image, int, int]
"""(key of the sprite, sprite, x, y) with (x, y) the sprite's top-left corner on the picture; an RGBA sprite is
blended by its alpha, an RGB one covers its rectangle."""


def _mask(sprite: Image.Image) -> Image.Image | None:
    return sprite if sprite.mode == "RGBA" else None


def _paste(dest: Image.Image, sprite: Image.Image, x: int, y: int) -> None:
    """Paste ``sprite`` on ``dest`` with its top-left corner at (x, y): an RGB one covers its rectangle, an RGBA one
    is blended by its alpha where it has ink (:func:`render.draw.paste`)."""
    if sprite.mode == "RGBA":
        draw.paste(dest, sprite, x, y)
    else:
        dest.paste(sprite, (x, y))


def _canvas(ground: Image.Image, box: tuple[int, int, int, int] | None = None) -> Image.Image:
    """A new RGB image of ``ground`` (or of its ``box``), which may be kept in a palette's colours."""
    part = ground if box is None else ground.crop(box)
    if part.mode == "RGB":
        return part.copy() if box is None else part
    return part.convert("RGB")

KEEP = 2
"""Pictures kept in all: the last picture of a kind and the one before it (a post's board and a hand's, say). More
are hardly ever the closest with many games drawn in turn, and each is a page of 10 to 20 MB."""
QUANTIZED = 64
"""Opaque sprites kept in a palette's colours."""


Entry = tuple[Hashable, int, int, int, int]
"""An item as remembered: (key, x, y, width, height)."""


class _Layer:
    __slots__ = ("base_key", "entries", "image", "paletted")

    def __init__(self, base_key: Hashable, image: Image.Image, entries: list[Entry]) -> None:
        self.base_key = base_key
        self.image = image
        self.entries = entries
        self.paletted: tuple[Image.Image, Image.Image] | None = None
        """The image in a palette's colours, with that palette (:meth:`Layers.paletted`)."""


Rect = tuple[int, int, int, int]


def _overlap(a: Rect, b: Rect) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _merge(rects: list[Rect]) -> list[Rect]:
    """Merge overlapping rectangles into their bounding boxes until none overlap."""
    out = list(rects)
    changed = True
    while changed:
        changed = False
        merged: list[Rect] = []
        for r in out:
            for i, m in enumerate(merged):
                if _overlap(r, m):
                    merged[i] = (min(r[0], m[0]), min(r[1], m[1]), max(r[2], m[2]), max(r[3], m[3]))
                    changed = True
                    break
            else:
                merged.append(r)
        out = merged
    return out


def _same_order(old: list[Entry], new: list[Entry]) -> bool:
    """Whether the entries both lists share come in the same order (then a partial repaint is exact)."""
    common = set(old).intersection(new)
    return [e for e in old if e in common] == [e for e in new if e in common]


class Layers:
    """The last ``keep`` layers of one kind of picture (the board's, the overview's: so that drawing one kind never
    pushes out the other's), for every thread."""

    def __init__(self, keep: int = KEEP) -> None:
        self.keep = keep
        self._layers: list[_Layer] = []
        """Kept layers, oldest first."""
        self._quantized: dict[Hashable, tuple[Image.Image, Image.Image]] = {}
        """An opaque sprite's key -> (the palette, the sprite in its colours), oldest first."""
        self._lock = threading.Lock()

    def clear(self) -> None:
        """Forget every layer kept (the next picture is painted whole)."""
        with self._lock:
            self._layers.clear()

    def compose(self, base_key: Hashable, ground: Image.Image, items: list[Item]) -> Image.Image:
        """A new RGB image: ``ground`` (never modified; RGB, or in a palette's colours) with ``items`` pasted in
        order."""
        return self.apply(base_key, ground, items, Image.Image.copy)

    def apply(self, base_key: Hashable, ground: Image.Image, items: list[Item], then: Callable[[Image.Image], T]) -> T:
        """What ``then`` makes of ``ground`` with ``items`` pasted in order, given the kept picture itself while no
        other thread may change it (``then`` must not change it either)."""
        with self._lock:
            layer, repainted = self._compose(base_key, ground, items)
            if repainted:  # its palette picture (if any) shows what was there before
                layer.paletted = None
            return then(layer.image)

    def paletted(self, base_key: Hashable, ground: Image.Image, items: list[Item], palette: Image.Image,
                 quantize: Callable[[Image.Image, Image.Image], Image.Image]) -> Image.Image:
        """``ground`` with ``items`` pasted in order, in the colours of ``palette`` (``quantize``: nearest colour, no
        dithering, so that a rectangle quantized alone is the same as in the whole): kept with the layer, only the
        rectangles repainted are quantized again, and an opaque sprite that alone fills its rectangle once for all
        the pictures that show it (kept by its key). A new image."""
        with self._lock:
            layer, dirty = self._compose(base_key, ground, items)
            if layer.paletted is None or layer.paletted[1] is not palette or dirty is None:
                layer.paletted = (quantize(layer.image, palette), palette)
            else:
                for r, alone in dirty:
                    if alone is None:
                        part = quantize(layer.image.crop(r), palette)
                    else:
                        kept = self._quantized.get(alone[0])
                        if kept is None or kept[0] is not palette:
                            kept = self._quantized[alone[0]] = (palette, quantize(alone[1], palette))
                            while len(self._quantized) > QUANTIZED:
                                del self._quantized[next(iter(self._quantized))]
                        part = kept[1]
                    layer.paletted[0].paste(part, r[:2])
            return layer.paletted[0].copy()

    def _compose(self, base_key: Hashable, ground: Image.Image,
                 items: list[Item]) -> tuple[_Layer, list[tuple[Rect, Item | None]] | None]:
        """The kept layer that now shows ``items``, and the rectangles repainted on it, each with the opaque item
        that alone fills it, if one does (``None``: painted whole)."""
        entries = [(key, x, y, spr.width, spr.height) for key, spr, x, y in items]
        best: _Layer | None = None
        best_diff: set[Entry] = set()
        wanted = set(entries)
        kept = self._layers
        for layer in reversed(kept):
            if layer.base_key != base_key:
                continue
            if layer.entries == entries:
                kept.remove(layer)
                kept.append(layer)
                return layer, []
            diff = wanted.symmetric_difference(layer.entries)
            if best is None or len(diff) < len(best_diff):
                best, best_diff = layer, diff
        repainted: list[tuple[Rect, Item | None]] | None = None
        if best is None or len(best_diff) > len(items) // 2 + 8 or not _same_order(best.entries, entries):
            layer = _Layer(base_key, _canvas(ground), entries)
            for _key, spr, x, y in items:
                _paste(layer.image, spr, x, y)
        else:  # repaint the kept picture in place: it now shows the new items
            kept.remove(best)
            layer, image = best, best.image
            layer.entries = entries
            W, H = ground.size
            dirty = [(max(0, x), max(0, y), min(W, x + w), min(H, y + h)) for _k, x, y, w, h in best_diff]
            boxes = [(x, y, x + w, y + h) for _k, x, y, w, h in entries]
            repainted = []
            for r in _merge([d for d in dirty if d[0] < d[2] and d[1] < d[3]]):
                over = [i for i, box in enumerate(boxes) if _overlap(box, r)]
                if len(over) == 1 and _mask(items[over[0]][1]) is None and boxes[over[0]] == r:
                    image.paste(items[over[0]][1], r[:2])  # one opaque sprite, just its rectangle
                    repainted.append((r, items[over[0]]))
                    continue
                crop = _canvas(ground, r)
                for i in over:
                    _key, spr, x, y = items[i]
                    _paste(crop, spr, x - r[0], y - r[1])
                image.paste(crop, r[:2])
                repainted.append((r, None))
        kept.append(layer)
        if len(kept) > self.keep:
            kept.pop(0)
        return layer, repainted


BOARD_LAYERS = Layers()
"""The board pictures' layers."""


def compose(base_key: Hashable, ground: Image.Image, items: list[Item]) -> Image.Image:
    """A new image: ``ground`` (never modified) with ``items`` pasted in order (the board's layers)."""
    return BOARD_LAYERS.compose(base_key, ground, items)
