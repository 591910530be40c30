"""Notices in a game's channel or a DM: idle tables (a lobby that closed, the "Keep it open" notice, the game
abandoned when nobody kept it open, the notice once kept open), vacations and turn deadlines (the host's ``notice_*``
deliveries hold a catalogue key and raw values; here names are escaped, channels become links and days words), and
the notes that explain the others' vacations in a reminder.
"""

from __future__ import annotations

from typing import Any, Final

from bot.adapter.words.common import channel_link, esc, mention
from bot.host.deadlines import DEADLINE_HOURS
from bot.host.idle import ABANDONED, LOBBY_CLOSED, NOTICE
from bot.host.table import TableInfo
from i18n import t, tn


def days_text(days: Any, locale: str) -> str:
    """A number of days in words, after a preposition ("14 days", "1 day", „nach 14 Tagen“)."""
    return tn("bot.count.days_after", float(days), locale)


def idle_text(payload: dict[str, Any]) -> str:
    """The channel post of a ``stale_post`` delivery."""
    what, locale = payload["what"], str(payload["locale"])
    days = days_text(payload["days"], locale)
    if what == LOBBY_CLOSED:
        return t("bot.stale.lobby_closed", locale, days=days)
    if what == NOTICE:
        mentions = " ".join(mention(int(user_id)) for user_id in payload["user_ids"])
        grace = days_text(payload["grace_days"], locale)
        return t("bot.stale.notice", locale, mentions=mentions, days=days, grace=grace)
    if what == ABANDONED:
        return t("bot.stale.abandoned", locale, days=days)
    raise ValueError(f"unknown idle table post {what!r}")


def kept_open_text(name: str, stale_days: float, locale: str) -> str:
    """The notice once someone seated pressed "Keep it open" (it replaces the notice, without its button)."""
    return t("bot.stale.kept_open", locale, name=esc(name), days=days_text(stale_days, locale))


DEADLINE_CHOICES: Final = tuple(str(hours) if hours else "none" for hours in DEADLINE_HOURS)
"""The values of ``/santacruz new deadline:`` (hours; ``none``: no deadline)."""


def deadline_hours(choice: str | None) -> int:
    """The hours of a ``deadline`` choice (0: none)."""
    return 0 if choice in (None, "none") else int(str(choice))


def notice_text(payload: dict[str, Any], locale: str) -> str:
    """A notice (a channel post or a DM) in ``locale``: its key with its values, names escaped."""
    params = dict(payload.get("params", {}))
    for person in ("name", "newcomer"):
        if person in params:
            params[person] = esc(str(params[person]))
    if "channel" in params:
        params["channel"] = channel_link(int(params["channel"]))
    if "mention" in params:
        params["mention"] = mention(int(params["mention"]))
    if "days" in params:
        params["days"] = tn("bot.count.days", float(params["days"]), locale)
    return t(str(payload["key"]), locale, **params)


def vacation_notes(info: TableInfo, user_id: int, locale: str) -> list[str]:
    """Lines for a reminder to ``user_id`` that explain the others' vacations in the game (a vote on it, or the
    computer playing the seat meanwhile)."""
    return [t(f"bot.vacation.note.{seat.vacation}", locale, name=esc(seat.name), until=int(seat.vacation_until))
            for seat in info.seats
            if seat.vacation in ("vote", "computer") and seat.user_id != user_id and seat.vacation_until is not None]
