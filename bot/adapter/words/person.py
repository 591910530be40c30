"""A person's own things in words: the ``/santacruz settings`` panel and the ``/santacruz games`` list.

Times are Discord timestamps (``<t:…:R>``), which every reader sees in their own language and time zone; a relative
timestamp reads "3 hours ago" by itself, so the texts say when a turn *started*.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.adapter.words.common import channel_link, esc, lines_text, message_link, timestamp
from bot.adapter.words.posts import usual_line
from bot.host.user_settings import OpenGame, UserSettings, local_time, quiet_until
from i18n import t, tn


def settings_text(settings: UserSettings, locale: str, *, now: float, default_hours: float,
                  saved: bool = False) -> str:
    """The settings panel: each setting as it is now (``default_hours``: the bot's ``REMINDER_HOURS``)."""
    lines = [t("bot.settings.saved", locale)] if saved else []
    lines.append(t("bot.settings.title", locale))
    lines.append(t("bot.settings.time_zone", locale, zone=settings.time_zone, time=local_time(settings, now)))
    if settings.quiet_from is not None and settings.quiet_to is not None:
        lines.append(t("bot.settings.quiet", locale, start=f"{settings.quiet_from:02d}",
                       end=f"{settings.quiet_to:02d}"))
        until = quiet_until(settings, now)
        if until is not None:
            lines.append(t("bot.settings.quiet_now", locale, until=timestamp(until, "t")))
    else:
        lines.append(t("bot.settings.quiet_off", locale))
    if settings.reminders:
        hours = settings.reminder_hours or default_hours
        lines.append(t("bot.settings.reminders", locale, hours=tn("bot.count.hours", hours, locale)))
    else:
        lines.append(t("bot.settings.reminders_off", locale))
    lines.append(t("bot.settings.turn_dms_on" if settings.turn_dms else "bot.settings.turn_dms_off", locale))
    lines.append(t("bot.settings.hint", locale))
    return lines_text(lines)


def game_line(game: OpenGame, locale: str, deadline: float | None = None) -> str:
    """One game of ``/santacruz games``: where, whose turn since when (and when its time runs out, with a turn
    ``deadline``), and a link to its latest post."""
    where, since = channel_link(game.channel_id), timestamp(game.since)
    if game.status == "lobby":
        return t("bot.games.lobby", locale, channel=where, since=since)
    if game.yours:
        line = t("bot.games.yours", locale, channel=where, since=since)
    else:
        name = esc(game.to_move_name or "?")
        key = "bot.games.computer" if game.computer_to_move else "bot.games.someone"
        line = t(key, locale, channel=where, name=name, since=since)
    if deadline is not None:
        line = f"{line} · {t('bot.games.deadline', locale, until=timestamp(deadline))}"
    if game.last_message_id is None:
        return line
    url = message_link(game.guild_id, game.channel_id, game.last_message_id)
    return f"{line} · {t('bot.games.last_post', locale, url=url)}"


def games_text(games: Sequence[OpenGame], locale: str, deadlines: Mapping[int, float] | None = None,
               usual: Mapping[int, Mapping[int, float]] | None = None) -> str:
    """``/santacruz games``: every open game of the person, in the host's order (theirs to move first);
    ``deadlines``: game id -> when the current turn's time runs out, for the games with a turn deadline; ``usual``:
    game id -> user id -> how fast that person usually moves in the game's server (median seconds), a line under
    the game for its people who have enough timed turns."""
    if not games:
        return t("bot.games.none", locale)
    deadlines, usual = deadlines or {}, usual or {}
    lines = [t("bot.games.title", locale)]
    for game in games:
        lines.append(f"- {game_line(game, locale, deadlines.get(game.game_id))}")
        speeds = usual.get(game.game_id, {})
        people = [(name, speeds[user_id]) for user_id, name in game.people if user_id in speeds]
        if people:
            lines.append(f"  {usual_line(people, locale)}")
    return lines_text(lines)
