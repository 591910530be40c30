"""The host's refusals and the stores' errors, in one place.

:class:`HostError` is every refusal a person sees (``key`` a message-catalogue key, ``params`` its values);
:func:`storage_refusal` turns a database failure into the refusal that says so (``host.error.storage``, or the
key a caller names), once for every part.
:class:`StoreError` and its kinds are what a store raises: :class:`ChannelBusy`, :class:`MoveConflict`,
:class:`VersionConflict` (another process changed the game first: a *conflict*), :class:`StorageFailed` (the database
refused; nothing was written), :class:`DamagedRow` (a stored row that cannot be read). :class:`Damage` and
:func:`damage_notice` say why a quarantined game cannot go on. :class:`CopyBehind`: a process's copy of a game
could not be brought up to date in time. This module imports nothing of ``bot.host`` but
:mod:`bot.host.model`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

from bot.host.metrics import STORAGE_ERRORS
from bot.host.model import DamagedGame
from engine import IllegalMove
from i18n import illegal_text, t

log = logging.getLogger(__name__)


class StoreError(Exception):
    """A write the database refused; nothing was written."""


class StoreOpenError(StoreError):
    """The database file cannot be opened or written; the message names the file and the likely cause."""


class ChannelBusy(StoreError):
    """The channel already has an open (lobby or running) game."""


class MoveConflict(StoreError):
    """The move's ``(game_id, seq)`` or its interaction id is stored already."""


class StorageFailed(StoreError):
    """The database could not be read or written (disk full, locked, read-only, I/O error); nothing was
    written. Worth trying again later."""


class CopyBehind(Exception):
    """This process's copy of a game is behind the database, and a change under way here kept it so longer than the
    caller would wait; nothing was decided from it. Worth trying again shortly."""


class VersionConflict(StoreError):
    """The game changed in the database since it was read (another process wrote it); nothing was written."""


class Damage(Exception):
    """A stored game that cannot be played on: ``reason`` is ``seats``, ``options`` or ``log``."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


class DamagedRow(StoreError, Damage):
    """A stored game row whose seats or options cannot be read (``reason``: the column): the store's
    :class:`Damage`, which the host quarantines like any other."""

    def __init__(self, game_id: int, channel_id: int, reason: str, detail: str) -> None:
        Damage.__init__(self, reason, detail)
        self.args = (f"game {game_id}: {reason}: {detail}",)
        self.game_id = game_id
        self.channel_id = channel_id


class HostError(Exception):
    """A refusal: nothing changed. ``key`` is a message-catalogue key, ``params`` fill its template;
    ``illegal`` is the engine's reason when it refused a move (its words fill ``{reason}``)."""

    def __init__(self, key: str, *, illegal: IllegalMove | None = None, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params
        self.illegal = illegal

    def text(self, locale: object = "en") -> str:
        """The refusal in words, in ``locale``."""
        if self.illegal is not None:
            return t(self.key, locale, **{**self.params, "reason": illegal_text(self.illegal, locale)})
        return t(self.key, locale, **self.params)

    def __str__(self) -> str:
        return f"{self.key} {self.params}" if self.params else self.key


DAMAGE_REASONS: Final = {"seats": "host.damaged.seats", "options": "host.damaged.options", "log": "host.damaged.log"}
"""What can be damaged -> the catalogue key that says so to the channel."""


def damage_notice(damaged: DamagedGame, locale: object) -> str:
    """The channel's notice that its game cannot continue, and why, in ``locale``."""
    reason = t(DAMAGE_REASONS.get(damaged.reason, "host.damaged.log"), locale)
    return t("host.damaged.notice", locale, game=damaged.game_id, reason=reason)


STATS_REFUSAL: Final = "bot.stats.storage_failed"
"""The refusal of the players' history (statistics, leaderboards, forget-me) when the database fails."""


@contextmanager
def storage_refusal(key: str = "host.error.storage", doing: str = "storage") -> Iterator[None]:
    """Turn a database failure into a refusal: ``key`` (by default the one that says storage failed and to try
    again), logged as ``doing`` failed."""
    try:
        yield
    except StorageFailed as exc:
        log.warning("%s failed: %s", doing, exc)
        STORAGE_ERRORS.labels(doing).inc()
        raise HostError(key) from None
