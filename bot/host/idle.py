"""The periods of idle tables as timer rows: a lobby nobody starts, a game nobody moves in.

Every period is a row of ``timers``, written with the change that sets it (write-then-apply), so it survives
restarts and runs once whichever process sweeps first:

* :data:`LOBBY_EXPIRY`: set when a lobby opens (a rematch's too), due ``LOBBY_DAYS`` later; the start cancels it.
* :data:`IDLE_GAME`: set at the start and re-armed by every move (cancelled and added again in the move's own
  transaction), due ``STALE_DAYS`` after the last move; when it fires the players are asked to keep the game open.
* :data:`IDLE_ABANDON`: set by that announcement, due :data:`KEEP_OPEN_DAYS` later; "Keep it open" cancels it
  and re-arms :data:`IDLE_GAME`, else the game is abandoned without a result (not rated).

A vacation pause holds the idle clock: a idle timer that fires while a pause holds the game starts the period
again from the pause's end instead (``bot.host.idle_tables``). A pause that wants it exact may also, in its own
transactions, cancel :data:`IDLE_KINDS` when it begins and add :func:`idle_timer` when it ends. What the timers do
when they fire lives in ``bot.host.idle_tables`` (which needs the host; this module must not, the host imports it).
"""

from __future__ import annotations

from typing import Any, Final

from bot.host.deliveries import IDLE_POST
from bot.host.model import NewDelivery, NewTimer
from bot.host.settings import Settings
from bot.host.table import DAY
from bot.host.timers import IDLE_ABANDON as IDLE_ABANDON
from bot.host.timers import IDLE_GAME as IDLE_GAME
from bot.host.timers import LOBBY_EXPIRY as LOBBY_EXPIRY

IDLE_KINDS: Final = (IDLE_GAME, IDLE_ABANDON)
"""What a move (or "Keep it open") cancels before it re-arms :data:`IDLE_GAME`."""
KEEP_OPEN_DAYS: Final = 3.0
"""Days the players of a idle game have to keep it open before it is abandoned."""

LOBBY_CLOSED: Final = "lobby_closed"
NOTICE: Final = "notice"
ABANDONED: Final = "abandoned"
IDLE_POSTS: Final = (LOBBY_CLOSED, NOTICE, ABANDONED)
"""The ``what`` of a ``stale_post`` delivery."""


def lobby_timer(settings: Settings, now: float) -> NewTimer:
    """The timer of a lobby opened at ``now``."""
    return NewTimer(LOBBY_EXPIRY, now + settings.lobby_days * DAY)


def idle_timer(settings: Settings, now: float) -> NewTimer:
    """The timer of a game whose last move (or start, or "Keep it open") was at ``now``."""
    return NewTimer(IDLE_GAME, now + settings.stale_days * DAY)


def abandon_timer(now: float) -> NewTimer:
    """The timer of a game announced as idle at ``now``."""
    return NewTimer(IDLE_ABANDON, now + KEEP_OPEN_DAYS * DAY)


def idle_post(what: str, seq: int, locale: str, days: float, **extra: Any) -> NewDelivery:
    """The channel post of an idle table (``what``: one of :data:`IDLE_POSTS`), public facts only."""
    if what not in IDLE_POSTS:
        raise ValueError(f"unknown idle post {what!r}")
    return NewDelivery(IDLE_POST, seq, payload={"what": what, "locale": locale, "days": days, **extra})
