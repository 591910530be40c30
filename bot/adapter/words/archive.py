"""Finished games and players' history in words: ``/santacruz history`` (the list and one past game) and
``/santacruz stats`` (a player's statistics, or with ``leaderboard:`` a page of the leaderboard).

Ratings show on the familiar scale of :func:`~bot.host.ratings.displayed` (a newcomer at 1000, never below 0), marked
provisional during the first :data:`~bot.host.ratings.PROVISIONAL_GAMES` rated games.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.adapter.words.common import esc, lines_text, timestamp
from bot.host.history_store import TurnSpeed
from bot.host.ratings import PROVISIONAL_GAMES, BoardRow, Leaderboard, PlayerStats, provisional
from bot.host.table import PastGame
from i18n import decimal, listed, percent, t, tn


def past_name(game: PastGame, seat: int, locale: str) -> str:
    name = esc(game.names[seat])
    return f"{name} {t('bot.history.computer', locale)}" if game.computers[seat] else name


def history_text(games: Sequence[PastGame], links: Sequence[str | None], locale: str) -> str:
    """The server's last finished games, newest first: number, date, scores, winner, link to the game-over post."""
    if not games:
        return t("bot.history.empty", locale)
    lines = [t("bot.history.title", locale, count=len(games))]
    for game, url in zip(games, links, strict=True):
        scores = listed([f"{past_name(game, s, locale)} {game.scores[s]}" for s in game.ranking], locale)
        line = t("bot.history.line", locale, id=game.game_id, date=timestamp(game.finished_at, "d"), scores=scores,
                 winner=esc(game.winner))
        lines.append(line + (f" · {t('bot.history.link', locale, url=url)}" if url else ""))
    return lines_text(lines)


def past_game_text(game: PastGame, url: str | None, locale: str) -> str:
    """One past game: its number, date, winner, the ranking and a link to its game-over post."""
    lines = [t("bot.history.game", locale, id=game.game_id, date=timestamp(game.finished_at, "f"),
               winner=esc(game.winner))]
    lines += [t("bot.history.rank", locale, rank=rank, name=past_name(game, seat, locale),
                score=tn("game.points", game.scores[seat], locale))
              for rank, seat in enumerate(game.ranking, start=1)]
    if url:
        lines.append(t("bot.history.link", locale, url=url))
    return lines_text(lines)


def _share(part: int, whole: int, locale: str) -> str:
    return percent(part / whole, locale) if whole else "–"


def _card(card: str | None, locale: str) -> str:
    return t(f"game.scoring.{card}.name", locale) if card else t("bot.stats.no_card", locale)


def stats_text(stats: PlayerStats, locale: str, speed: TurnSpeed | None = None) -> str:
    """A person's statistics in a server, one fact a line; the games with hints on and the seats taken over in lines
    apart (not rated, in no other figure); how fast they end their turns (``speed``) when any was timed."""
    title = f"**{t('bot.stats.title', locale, name=esc(stats.name))}**"
    coached = t("bot.stats.hints", locale, games=stats.games_with_hints, wins=stats.wins_with_hints)
    taken = t("bot.stats.taken_over", locale, games=stats.games_taken_over, wins=stats.wins_taken_over)
    speed_line = [] if speed is None or not speed.turns or speed.median is None or speed.p90 is None else [
        t("bot.stats.speed", locale, turns=speed.turns, median=duration(speed.median, locale),
          p90=duration(speed.p90, locale))]
    if not stats.games:  # only games with hints or seats taken over: nothing of a record to show
        apart = [line for line, games in ((coached, stats.games_with_hints), (taken, stats.games_taken_over)) if games]
        return "\n".join([title, *apart, *speed_line, t("bot.stats.unrated", locale),
                          t("bot.stats.rating_meaning", locale, games=PROVISIONAL_GAMES)])
    lines = [title,
             t("bot.stats.games", locale, games=stats.games, wins=stats.wins,
               share=_share(stats.wins, stats.games, locale))]
    lines += [tn("bot.stats.by_players", s.wins, locale, players=s.players, games=s.games,
                 share=_share(s.wins, s.games, locale)) for s in stats.by_players]
    lines += [
        t("bot.stats.score", locale, average=decimal(stats.average_score, locale), best=stats.best_score),
        t("bot.stats.rank", locale, rank=decimal(stats.average_rank, locale)),
        t("bot.stats.cards", locale, favourite=_card(stats.favourite_card, locale),
          profitable=_card(stats.profitable_card, locale)),
        t("bot.stats.birds", locale, points=tn("game.points", stats.bird_chips, locale)),
        t("bot.stats.computers", locale, games=stats.games_with_computers),
    ]
    if stats.games_with_hints:
        lines.append(coached)
    if stats.games_taken_over:
        lines.append(taken)
    lines += speed_line
    for pool in ("humans", "mixed"):
        rating = stats.ratings.get(pool)
        if rating is not None:
            lines.append(tn(f"bot.stats.rating_{pool}", rating.games, locale, rating=rating.shown,
                            provisional=_provisional(rating.games, locale)))
    if not stats.ratings:
        lines.append(t("bot.stats.unrated", locale))
    lines.append(t("bot.stats.rating_meaning", locale, games=PROVISIONAL_GAMES))
    return "\n".join(lines)


def duration(seconds: float, locale: str) -> str:
    """A span of time in the largest units that say it (``3 min``, ``2 h 5 min``, ``1 d 4 h``), at least a minute."""
    minutes = max(1, round(seconds / 60))
    if minutes < 60:
        return t("bot.duration.minutes", locale, minutes=minutes)
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return t("bot.duration.hours", locale, hours=hours, minutes=minutes)
    days, hours = divmod(hours, 24)
    return t("bot.duration.days", locale, days=days, hours=hours)


def _provisional(games: int, locale: str) -> str:
    """" (provisional)" after a rating with too few rated games, else nothing."""
    return t("bot.stats.provisional", locale) if provisional(games) else ""


def _row(row: BoardRow, locale: str) -> str:
    if row.rating is None:
        rating = t("bot.leaderboard.unrated", locale)
    else:
        rating = f"{row.rating}{_provisional(row.rated_games, locale)}"
    return t("bot.leaderboard.row", locale, place=row.place, name=esc(row.name), rating=rating,
             wins=tn("bot.count.wins", row.wins, locale), games=tn("bot.count.games", row.games, locale))


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
