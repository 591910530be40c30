"""The words of idle tables in a game's channel (the game's language): a lobby that closed, the "Keep it open"
notice that mentions the players, the game abandoned when nobody kept it open, and the notice once kept open.

The posts are deliveries of kind ``stale_post`` (see ``bot.host.idle``); their payload holds public facts only.
"""

from __future__ import annotations

from typing import Any

from bot.adapter.settings_texts import counted
from bot.adapter.texts import esc, mention
from bot.host.idle import ABANDONED, LOBBY_CLOSED, NOTICE
from i18n import t


def days_text(days: Any, locale: str) -> str:
    """A number of days in words, after a preposition ("14 days", "1 day", „nach 14 Tagen“)."""
    return counted("bot.count.days_after", float(days), locale)


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
    raise ValueError(f"unknown stale post {what!r}")


def kept_open_text(name: str, stale_days: float, locale: str) -> str:
    """The notice once someone seated pressed "Keep it open" (it replaces the notice, without its button)."""
    return t("bot.stale.kept_open", locale, name=esc(name), days=days_text(stale_days, locale))
