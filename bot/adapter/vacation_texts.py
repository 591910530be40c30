"""The words of vacations and turn deadlines: the channel's notices and DMs the host owes (``notice_post`` and
``notice_dm`` deliveries), the notes that explain a vacation in the others' reminders, and the lobby's deadline.

The host words nothing: a notice's payload holds a catalogue key and its raw values (names, times as seconds since
the epoch, a number of days); here names are escaped, channels become links and days words ("1 day", "3 days"), in
the given language.
"""

from __future__ import annotations

from typing import Any, Final

from bot.adapter.settings_texts import counted
from bot.adapter.texts import channel_link, esc
from bot.host.deadlines import DEADLINE_HOURS
from bot.host.table import TableInfo
from i18n import t

DEADLINE_CHOICES: Final = tuple(str(hours) if hours else "none" for hours in DEADLINE_HOURS)
"""The values of ``/santacruz new deadline:`` (hours; ``none``: no deadline)."""


def deadline_hours(choice: str | None) -> int:
    """The hours of a ``deadline`` choice (0: none)."""
    return 0 if choice in (None, "none") else int(str(choice))


def notice_text(payload: dict[str, Any], locale: str) -> str:
    """A notice (a channel post or a DM) in ``locale``: its key with its values, names escaped."""
    params = dict(payload.get("params", {}))
    if "name" in params:
        params["name"] = esc(str(params["name"]))
    if "channel" in params:
        params["channel"] = channel_link(int(params["channel"]))
    if "days" in params:
        params["days"] = counted("bot.count.days", float(params["days"]), locale)
    return t(str(payload["key"]), locale, **params)


def vacation_notes(info: TableInfo, user_id: int, locale: str) -> list[str]:
    """Lines for a reminder to ``user_id`` that explain the others' vacations in the game (a vote on it, or the
    computer playing the seat meanwhile)."""
    return [t(f"bot.vacation.note.{seat.vacation}", locale, name=esc(seat.name), until=int(seat.vacation_until))
            for seat in info.seats
            if seat.vacation in ("vote", "computer") and seat.user_id != user_id and seat.vacation_until is not None]
