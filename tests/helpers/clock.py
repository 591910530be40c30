"""Time a test moves: :class:`Clock`, the host's clock that stands still until the test moves it, and :func:`at`,
a local wall time as the clock reads it."""

from __future__ import annotations

import time
from datetime import datetime
from zoneinfo import ZoneInfo

START = 1_700_000_000.0
"""Where a :class:`Clock` starts unless told otherwise: a fixed moment (14 November 2023), so that the host tests
read the same times on every run."""
HOUR = 3600.0
DAY = 24 * HOUR
BERLIN = ZoneInfo("Europe/Berlin")


class Clock:
    """The host's clock (``Host(clock=...)``, ``Driver(clock=...)``): it reads :attr:`now`, which only the test
    moves (:meth:`advance`, or by setting it)."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    @classmethod
    def real_time(cls) -> Clock:
        """A clock that starts at the real time, in whole seconds: for a bot, whose Discord ids carry the time."""
        return cls(float(int(time.time())))

    def __call__(self) -> float:
        return self.now

    def advance(self, hours: float = 0.0, *, days: float = 0.0) -> None:
        self.now += hours * HOUR + days * DAY


def at(text: str, zone: ZoneInfo = BERLIN) -> float:
    """A local wall time in ``zone`` (``"2026-11-24 23:30"``) as seconds since the epoch."""
    return datetime.fromisoformat(text).replace(tzinfo=zone).timestamp()
