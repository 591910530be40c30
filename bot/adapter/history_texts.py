"""The words of players' history: ``/santacruz stats`` and ``/santacruz leaderboard`` answers, in the reader's
language, from the host's :class:`~bot.host.ratings.PlayerStats` and :class:`~bot.host.ratings.Leaderboard`.

Names are escaped (no mention, no markdown); ratings show as the rounded ordinal (``mu − 3·sigma``).
"""

from __future__ import annotations

from bot.adapter.texts import esc
from bot.host.ratings import BoardRow, Leaderboard, PlayerStats
from i18n import t


def _share(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)} %" if whole else "–"


def _number(value: float, locale: str) -> str:
    """One decimal, with the decimal comma in German and French."""
    shown = f"{value:.1f}"
    return shown if locale == "en" else shown.replace(".", ",")


def _card(card: str | None, locale: str) -> str:
    return t(f"game.scoring.{card}.name", locale) if card else t("bot.stats.no_card", locale)


def stats_text(stats: PlayerStats, locale: str) -> str:
    """A person's statistics in a server, one fact a line."""
    lines = [f"**{t('bot.stats.title', locale, name=esc(stats.name))}**",
             t("bot.stats.games", locale, games=stats.games, wins=stats.wins, share=_share(stats.wins, stats.games))]
    lines += [t("bot.stats.by_players", locale, players=s.players, games=s.games, wins=s.wins,
                share=_share(s.wins, s.games)) for s in stats.by_players]
    lines += [
        t("bot.stats.score", locale, average=_number(stats.average_score, locale), best=stats.best_score),
        t("bot.stats.rank", locale, rank=_number(stats.average_rank, locale)),
        t("bot.stats.cards", locale, favourite=_card(stats.favourite_card, locale),
          profitable=_card(stats.profitable_card, locale)),
        t("bot.stats.birds", locale, points=stats.bird_chips),
        t("bot.stats.computers", locale, games=stats.games_with_computers),
    ]
    for pool in ("humans", "mixed"):
        rating = stats.ratings.get(pool)
        if rating is not None:
            lines.append(t(f"bot.stats.rating_{pool}", locale, rating=rating.shown, games=rating.games))
    if not stats.ratings:
        lines.append(t("bot.stats.unrated", locale))
    return "\n".join(lines)


def _row(row: BoardRow, locale: str) -> str:
    rating = str(row.rating) if row.rating is not None else t("bot.leaderboard.unrated", locale)
    return t("bot.leaderboard.row", locale, place=row.place, name=esc(row.name), rating=rating, wins=row.wins,
             games=row.games)


def leaderboard_text(board: Leaderboard, user_id: int, locale: str) -> str:
    """One page of a leaderboard, the reader's row in bold, their own row below when not on the page."""
    title = f"**{t('bot.leaderboard.title', locale, by=t(f'bot.leaderboard.by.{board.by}', locale))}**"
    if not board.rows:
        return f"{title}\n{t('bot.leaderboard.empty', locale)}"
    lines = [title]
    lines += [f"**{_row(r, locale)}**" if r.user_id == user_id else _row(r, locale) for r in board.rows]
    if board.own is not None:
        lines.append(f"{t('bot.leaderboard.you', locale)} **{_row(board.own, locale)}**")
    if board.pages > 1:
        lines.append(t("bot.leaderboard.page", locale, page=board.page + 1, pages=board.pages))
    return "\n".join(lines)
