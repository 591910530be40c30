"""The game host: every decision and all state that needs no discord.py.

``host`` (:class:`Host`, one engine instance per channel, and :class:`HostError`, every refusal),
``table`` (a game at its table and the frozen answers the host gives), ``store`` (games and their
append-only move log), ``settings`` (the environment), ``pictures`` (pictures rendered off the event
loop). Nothing under this package imports discord.py (a test checks it), so the host can be driven
by any front-end: the Discord adapter (``bot.adapter``), the tests, a benchmark.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.host.errors import HostError
    from bot.host.host import Host

__all__ = ["Host", "HostError"]

_LAZY = {"Host": "bot.host.host", "HostError": "bot.host.errors"}


def __getattr__(name: str) -> Any:
    """``Host`` and ``HostError``, imported on first use: a worker process that only draws pictures or thinks for a
    computer imports ``bot.host.pictures`` or ``bot.host.workers`` without the whole host (half a second at every
    worker's start)."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
