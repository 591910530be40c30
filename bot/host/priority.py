"""What may wait: the priority of the work under way, a context variable that follows its awaits and nothing else.

The adapter marks work with ``with cosmetic():`` (an edit that only tidies what is already there: buttons off old
posts, a passed turn's DM, *Undo* marks) or ``with catching_up():`` (a post or DM owed from before this process
started); everything else is the moves being played now. Two parts give way by it when they are full: the budget of
requests to Discord (:mod:`bot.host.rate_budget`) and the render workers (:class:`bot.host.workers.WorkerPool`: the
pictures of a post owed since before a start wait for those of the moves being played, or are drawn apart, with what
the cores have left). Owed work may be hurried (:class:`Owed`): a move being played waits behind it in its channel, so
from then on it goes at the moves' priority.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from enum import IntEnum


class Priority(IntEnum):
    """Which work goes first when the budget or the workers are full (the lower, the sooner)."""

    POST = 0
    """Posts, turn DMs, and all work not marked otherwise."""
    CATCH_UP = 1
    """The posts and DMs owed from before this process started (a restart's, a restore's)."""
    COSMETIC = 2
    """Edits that only tidy what is already there: buttons off old posts, a passed turn's DM, an *Undo* mark."""


class Owed:
    """A piece of work owed from before this process started (a delivery) that may be hurried: once a move being played
    waits behind it, what it still does goes at the moves' priority (:func:`current`), and what waits for it may
    look again (:meth:`hurried`)."""

    __slots__ = ("_hurried",)

    def __init__(self, *, hurried: bool = False) -> None:
        self._hurried = asyncio.Event()
        if hurried:
            self._hurried.set()

    @property
    def is_hurried(self) -> bool:
        return self._hurried.is_set()

    def hurry(self) -> None:
        """A move being played waits behind this work: it goes at the moves' priority from now on."""
        self._hurried.set()

    async def hurried(self) -> None:
        """Return once this work was hurried."""
        await self._hurried.wait()


_current: contextvars.ContextVar[Priority] = contextvars.ContextVar("priority", default=Priority.POST)
_owed: contextvars.ContextVar[Owed | None] = contextvars.ContextVar("owed", default=None)


def current() -> Priority:
    """The priority of the work under way here (owed work that was hurried goes at the moves')."""
    level = _current.get()
    if level is Priority.CATCH_UP and (owed := _owed.get()) is not None and owed.is_hurried:
        return Priority.POST
    return level


def owed() -> Owed | None:
    """The owed work under way here, if it may be hurried (:func:`catching_up`)."""
    return _owed.get() if _current.get() is Priority.CATCH_UP else None


@contextmanager
def cosmetic() -> Iterator[None]:
    """The work inside only tidies what is already there: it gives way to posts and DMs."""
    with _at(Priority.COSMETIC):
        yield


@contextmanager
def catching_up(owed: Owed | None = None) -> Iterator[None]:
    """The work inside carries a post or DM owed from before this process started: it gives way to the posts and DMs
    of the moves being played now (cosmetic work inside stays cosmetic), until ``owed`` is hurried."""
    token = _owed.set(owed)
    try:
        with _at(Priority.CATCH_UP):
            yield
    finally:
        _owed.reset(token)


@contextmanager
def _at(priority: Priority) -> Iterator[None]:
    token = _current.set(max(priority, _current.get()))
    try:
        yield
    finally:
        _current.reset(token)
