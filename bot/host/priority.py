"""What may wait: the priority of the work under way, a context variable that follows its awaits and nothing else.

The adapter marks work with ``with cosmetic():`` (an edit that only tidies what is already there: buttons off old
posts, a passed turn's DM, *Undo* marks) or ``with catching_up():`` (a post or DM owed from before this process
started); everything else is the moves being played now. Two parts give way by it when they are full: the budget of
requests to Discord (:mod:`bot.host.rate_budget`) and the render workers (:class:`bot.host.workers.WorkerPool`: the
pictures of a post owed since before a start wait for those of the moves being played).
"""

from __future__ import annotations

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


_current: contextvars.ContextVar[Priority] = contextvars.ContextVar("priority", default=Priority.POST)


def current() -> Priority:
    """The priority of the work under way here."""
    return _current.get()


@contextmanager
def cosmetic() -> Iterator[None]:
    """The work inside only tidies what is already there: it gives way to posts and DMs."""
    with _at(Priority.COSMETIC):
        yield


@contextmanager
def catching_up() -> Iterator[None]:
    """The work inside carries a post or DM owed from before this process started: it gives way to the posts and DMs
    of the moves being played now (cosmetic work inside stays cosmetic)."""
    with _at(Priority.CATCH_UP):
        yield


@contextmanager
def _at(priority: Priority) -> Iterator[None]:
    token = _current.set(max(priority, _current.get()))
    try:
        yield
    finally:
        _current.reset(token)
