"""Every "later" of the host in one place: the timer kinds, who handles each, and running the due ones.

A timer is a row of ``timers``, written with the change that sets it (``Change.timers``) and finished with the change
its firing makes (``Change.timer``), so it survives restarts and runs once whichever process sweeps first: the sweep
claims the due rows (``FOR UPDATE SKIP LOCKED`` on PostgreSQL), each for :data:`TIMER_LEASE` seconds. The kinds:

=====================  ==========================================  ========================================
kind                   due                                         handled by
=====================  ==========================================  ========================================
``deadline_warning``   at 75 % of a turn deadline                  ``bot.host.deadlines``: a DM until when
``deadline_move``      at the deadline                             ``bot.host.deadlines``: the computer moves
``vacation_vote``      12 hours after a vacation began             ``bot.host.vacation``: the votes decide
``vacation_end``       when the vacation ends                      ``bot.host.vacation``: the player is back
``lobby_expiry``       ``LOBBY_DAYS`` after a lobby opened         ``bot.host.idle_tables``: it closes
``stale_game``         ``STALE_DAYS`` after the last move          ``bot.host.idle_tables``: "Keep it open"?
``stale_abandon``      three days after that announcement          ``bot.host.idle_tables``: abandoned
``turn_reminder``      a delay after a person's turn began         ``bot.host.reminders``: the reminder DM
``takeover_lapse``     a day after someone offered to take a seat  ``bot.host.takeover``: the offer lapses
=====================  ==========================================  ========================================

Each part registers its handlers with the :class:`Schedule` when the host builds it (:meth:`Schedule.on`); a test
checks that the host handles exactly :data:`KINDS`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Final

from bot.host.errors import HostError, StorageFailed, VersionConflict, storage_refusal
from bot.host.model import TimerRow
from bot.host.stores import TimerRows

log = logging.getLogger(__name__)

WARNING: Final = "deadline_warning"
"""Due at 75 % of a turn deadline: the player gets a DM saying until when they have."""
RAN_OUT: Final = "deadline_move"
"""Due at a turn deadline: the computer makes that one move for the player."""
VOTE: Final = "vacation_vote"
"""Due some hours after a vacation began: the votes cast decide, a tie or none lets the computer play."""
END: Final = "vacation_end"
"""Due when a vacation ends: the player plays their seat again."""
LOBBY_EXPIRY: Final = "lobby_expiry"
"""A lobby's time to be started."""
IDLE_GAME: Final = "stale_game"
"""A running game's time without a move before its players are asked to keep it open."""
IDLE_ABANDON: Final = "stale_abandon"
"""The time the players have to press "Keep it open" after that announcement."""
REMINDER: Final = "turn_reminder"
"""Due a delay after a person's turn began (then a day after each reminder): the turn reminder DM."""
TAKEOVER_LAPSE: Final = "takeover_lapse"
"""Due a day after someone offered to take a seat: the offer lapses unless the opener confirmed it."""
KINDS: Final = (WARNING, RAN_OUT, VOTE, END, LOBBY_EXPIRY, IDLE_GAME, IDLE_ABANDON, REMINDER, TAKEOVER_LAPSE)
"""Every timer kind the host sets (the table above)."""
TIMER_LEASE: Final = 60.0
"""Seconds a process holds a claimed timer; after that another process may run it (the first one died)."""

TimerHandler = Callable[[TimerRow, float], Awaitable[object | None]]
"""What runs when a timer is due: ``handler(timer, now)``; it writes what the timer changes with ``Change(timer=...)``
(the timer done in the same transaction), and returns what the adapter must act on (a ``MoveResult``, a
``SeatChange``, ...) or ``None``."""


class Schedule:
    """The handlers of the timer kinds, and the sweep that runs the due timers."""

    def __init__(self, store: TimerRows, refresh: Callable[[int], Awaitable[object]], *, owner: str,
                 clock: Callable[[], float]) -> None:
        """``refresh(channel_id)`` loads a channel's game if this process does not hold it, and reads it again when
        another process may have changed it."""
        self.store = store
        self._refresh = refresh
        self.owner = owner
        """This process's name in the timers' claims."""
        self._clock = clock
        self._handlers: dict[str, TimerHandler] = {}

    @property
    def kinds(self) -> frozenset[str]:
        """The kinds that have a handler."""
        return frozenset(self._handlers)

    def on(self, kind: str, handler: TimerHandler) -> None:
        """Run ``handler(timer, now)`` when a timer of ``kind`` is due (one handler per kind)."""
        if kind in self._handlers:
            raise ValueError(f"timer kind {kind!r} has a handler already")
        self._handlers[kind] = handler

    async def run_due(self, now: float | None = None, *, kinds: Sequence[str] | None = None) -> list[object]:
        """Claim the timers due at ``now`` (each is claimed by one process; a claim of a process that died
        expires after :data:`TIMER_LEASE` seconds and another takes it over) and run their handlers, soonest
        first; returns the handlers' outcomes. One timer's failure is logged and does not stop the others; a
        storage failure leaves the timer to be claimed again when its lease ends. ``kinds``: only timers of these
        kinds (default: every kind)."""
        now = self._clock() if now is None else now
        with storage_refusal():
            claimed = await self.store.claim_timers(now, owner=self.owner, lease=TIMER_LEASE, kinds=kinds)
        outcomes: list[object] = []
        for timer in claimed:
            handler = self._handlers.get(timer.kind)
            if handler is not None:  # the handler judges the game as the database has it now (loaded if not held)
                try:
                    await self._refresh(timer.channel_id)
                except HostError as exc:
                    log.warning("game %d: cannot read it for its %s timer (%s)", timer.game_id, timer.kind, exc.key)
                    continue
            if handler is None:
                log.warning("game %d: no handler for a timer of kind %r (timer %d); left for another process",
                            timer.game_id, timer.kind, timer.id)
                continue
            try:
                outcome = await handler(timer, now)
            except (StorageFailed, VersionConflict, HostError) as exc:
                log.warning("game %d: the %s timer could not run (%s); it is tried again later",
                            timer.game_id, timer.kind, exc)
                continue
            except Exception:
                log.exception("game %d: the %s timer failed; it is tried again later", timer.game_id, timer.kind)
                continue
            if outcome is not None:
                outcomes.append(outcome)
        return outcomes
