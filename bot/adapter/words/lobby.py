"""The lobby message: the opener, the game's options, the seats (a computer's strength, an away or vacationing
player marked, how fast each person usually moves), and the game's thread when it has one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from bot.adapter.words.archive import duration
from bot.adapter.words.common import SEP, channel_link, esc, lines_text
from bot.host.table import TableInfo
from i18n import t

LANGUAGE_NAMES: Final = {"en": "English", "de": "Deutsch", "fr": "Français"}
"""Each language in its own words (no catalogue key, as the glossary says)."""


def strength_name(strength: str | None, locale: str) -> str:
    return t(f"commands.choice.strength.{strength or 'greedy'}", locale)


def seat_name(seat: Any, locale: str) -> str:
    """A seat in a list: its escaped name, marked when the computer plays it."""
    name = esc(seat.name)
    if seat.is_computer:
        return t("bot.seat.computer", locale, name=name, strength=strength_name(seat.strength, locale))
    if seat.away:
        return t("bot.seat.away", locale, name=name)
    if getattr(seat, "vacation", None) is not None:
        return t("bot.seat.vacation", locale, name=name)
    return name


def lobby_text(info: TableInfo, locale: str, usual: Mapping[int, float] | None = None) -> str:
    """The lobby message (game language); ``usual``: user id -> how fast that person usually moves in the server
    (the median of their timed turns, in seconds), for those who have enough timed turns."""
    head = t("bot.lobby.title", locale, opener=esc(info.opener_name))
    lines = [head]
    options = [t("bot.lobby.language", locale, language=LANGUAGE_NAMES.get(info.locale, info.locale))]
    if info.draft:
        options.append(t("bot.lobby.draft", locale))
    if info.deadline_hours:
        options.append(t("bot.lobby.deadline", locale, hours=info.deadline_hours))
    if info.hints:
        options.append(t("bot.lobby.hints", locale))
    lines.append(SEP.join(options))
    lines.append(t("bot.lobby.players", locale, count=len(info.seats), max=4))
    usual = usual or {}
    lines.extend(f"{s.seat + 1}. {seat_name(s, locale)}" + (
        f"{SEP}{t('bot.speed.usual', locale, time=duration(usual[s.user_id], locale))}"
        if s.user_id is not None and s.user_id in usual else "") for s in info.seats)
    if info.parent_id is not None:
        lines.append(t("bot.lobby.thread", locale, thread=channel_link(info.channel_id)))
    if info.status == "lobby":
        lines.append(t("bot.lobby.hint", locale))
    elif info.status == "abandoned":
        lines.append(t("bot.lobby.closed", locale))
    else:
        lines.append(t("bot.lobby.started", locale))
    return lines_text(lines)
