"""The channel's words about a game: the post of a move (public words only), of the start and of a seat change,
who moves next, the ranking, ``/santacruz status`` and ``/santacruz log``.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.adapter.words.common import MESSAGE_MAX, esc, lines_text, mention, names_of, phase_text, timestamp
from bot.adapter.words.moves import played_in, public_move
from bot.host.table import MoveResult, SeatChange, StartResult, TableInfo
from engine import View
from engine.log import built
from i18n import describe_events, describe_move, t, tn


def next_text(locale: str, *, user_id: int | None, name: str | None, view: View) -> str:
    """Who moves next: a mention for a person, the name for the computer."""
    if user_id is not None:
        return t("bot.post.next", locale, mention=mention(user_id), phase=phase_text(view, locale))
    return t("bot.post.next_computer", locale, name=esc(name or ""), phase=phase_text(view, locale))


def ranking_lines(view: View, locale: str) -> list[str]:
    names = names_of(view)
    players = view["players"]
    lines = []
    for place, seat in enumerate(view["ranking"], start=1):
        p = players[seat]
        chips = p.get("bird_chips")
        extra = t("bot.ranking.chips", locale, chips=", ".join(map(str, chips))) if chips else ""
        lines.append(t("bot.ranking.line", locale, place=place, name=names[seat],
                       points=tn("game.points", p["score"], locale), extra=extra).rstrip())
    return lines


def move_post(result: MoveResult, locale: str) -> str:
    """The channel message after a move (public words only) or an undo."""
    names = names_of(result.view)
    lines: list[str] = []
    if result.undo:
        lines.append(t("bot.post.undo", locale, move=describe_move(public_move(result.move), locale, names,
                                                                   result.seat)))
    else:
        events = describe_events(result.events, locale, names)
        if result.by_computer and result.user_id is not None:
            lines.append(t("bot.post.for_away", locale, name=names[result.seat]))
        lines.extend(f"• {e}" for e in events)
    if result.game_over:
        lines.append(t("bot.post.game_over", locale))
        lines.extend(ranking_lines(result.view, locale))
        lines.append(t("bot.post.rematch_hint", locale))
    elif result.to_move is not None:
        lines.append(next_text(locale, user_id=result.to_move_user_id, name=result.to_move_name, view=result.view))
    if hints_again(result):
        lines.append(t("bot.post.hints", locale))
    return lines_text(lines)


def hints_again(result: MoveResult) -> bool:
    """Whether a move's post says again that hints are on: once more after the start's post, with the move that
    ends round 1 (the new round's first post), and never at game over."""
    return result.hints and not result.game_over and not result.undo and any(
        e["type"] == "round_end" and e["round"] == 1 for e in result.events)


def start_post(start: StartResult, locale: str) -> str:
    view = start.view
    names = names_of(view)
    order = ", ".join(names[s] for s in view["turn_order"])
    lines = [t("bot.post.start", locale, players=order)]
    if start.info.draft:
        lines.append(t("bot.post.draft", locale))
    seat = start.info.seats[start.to_move]
    lines.append(next_text(locale, user_id=start.to_move_user_id, name=seat.name, view=view))
    if start.info.hints:
        lines.append(t("bot.post.hints", locale))
    return lines_text(lines)


def seat_change_post(change: SeatChange, locale: str) -> str:
    key = "bot.post.away" if change.away else "bot.post.back"
    return t(key, locale, name=esc(change.name))


def status_text(info: TableInfo, view: View, locale: str, *, deadline: float | None = None) -> str:
    """Whose turn and since when (and when their time runs out, with a turn ``deadline``), the scores and the cards
    left (public facts only)."""
    names = names_of(view)
    lines = [t("bot.status.title", locale, phase=phase_text(view, locale))]
    if info.to_move is not None:
        seat = info.seats[info.to_move]
        who = mention(seat.user_id) if seat.user_id is not None and not seat.away else esc(seat.name)
        since = info.last_move_at or info.created_at
        lines.append(t("bot.status.turn", locale, player=who, since=timestamp(since)))
        if deadline is not None:
            lines.append(t("bot.status.deadline", locale, until=timestamp(deadline), at=timestamp(deadline, "t")))
    elif view["phase"] == "over":
        lines.append(t("bot.post.game_over", locale))
    for ranked in view["ranking"]:
        p = view["players"][ranked]
        cards = sum(p["building_cards"].values())
        lines.append(t("bot.status.line", locale, rank=p["rank"], name=names[ranked],
                       points=tn("game.points", p["score"], locale),
                       building=tn("bot.count.building_cards", cards, locale),
                       scoring=tn("bot.count.scoring_cards", p["scoring_cards_in_hand"], locale),
                       birds=tn("bot.count.bird_chips", p["birds"], locale)))
    lines.append(t("bot.status.deck", locale, deck=view["scoring_deck"], chips=view["bird_chips_left"]))
    return lines_text(lines)


def log_lines(view: View, locale: str) -> list[str]:
    """The moves so far in words, one line each, under a title and a line per round."""
    names = names_of(view)
    lines = [t("bot.log.title", locale, count=len(view["log"]))]
    current = 0
    for index, entry in enumerate(view["log"]):
        if played_in(view["log"], index) != current:
            current = played_in(view["log"], index)
            lines.append(f"__{t('game.round', locale, round=current)}__")
        lines.append("• " + describe_move(entry["move"], locale, names, entry["seat"],
                                          built=built(entry["events"], entry["seat"])))
    if len(lines) == 1:
        lines.append(t("bot.log.empty", locale))
    return lines


def log_fits(lines: Sequence[str]) -> bool:
    """Whether the whole log fits in one message."""
    return len("\n".join(lines)) <= MESSAGE_MAX


def log_file(lines: Sequence[str]) -> str:
    """The whole log as plain text for a ``.txt`` attachment (without Discord's markdown)."""
    return "\n".join(line.replace("**", "").replace("__", "").replace("\\", "") for line in lines) + "\n"
