"""The channel's words about a game: the post of a move (public words only), of the start and of a seat change,
who moves next, the ranking, ``/santacruz status`` and ``/santacruz log``.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.adapter.words.archive import duration
from bot.adapter.words.common import (
    MESSAGE_MAX,
    esc,
    lines_text,
    mention,
    names_of,
    phase_text,
    signed,
    timestamp,
)
from bot.adapter.words.moves import played_in, public_move
from bot.host.table import MoveResult, SeatChange, SeatInfo, StartResult, TableInfo
from engine import LogEntry, View, parse_move
from engine.log import built, points_won
from i18n import describe_events, describe_move, listed, t, tn


def next_text(locale: str, *, user_id: int | None, name: str | None, view: View) -> str:
    """Who moves next: a mention for a person, the name for the computer."""
    if user_id is not None:
        return t("bot.post.next", locale, mention=mention(user_id), phase=phase_text(view, locale))
    return t("bot.post.next_computer", locale, name=esc(name or ""), phase=phase_text(view, locale))


def then_name(names: Sequence[str], locale: str) -> str:
    """The people who played one seat, first first ("Ada, then Bo"), already escaped."""
    said = names[0]
    for after in names[1:]:
        said = t("bot.seat.then", locale, before=said, after=after)
    return said


def seat_names(view: View, former: Sequence[Sequence[str]], locale: str) -> list[str]:
    """The escaped names of a view's seats, each taken-over seat's naming everyone who played it ("Ada, then Bo";
    ``former``: per seat, the names before its present person's, as :attr:`MoveResult.former` has them)."""
    names = names_of(view)
    return [then_name([*(esc(n) for n in former[seat]), name], locale) if seat < len(former) and former[seat]
            else name for seat, name in enumerate(names)]


def usual_line(people: Sequence[tuple[str, float]], locale: str) -> str:
    """How fast each of ``people`` (name, median seconds of their timed turns in the server) usually moves, in one
    line; nothing without anyone."""
    if not people:
        return ""
    return t("bot.speed.usual_list", locale, people=", ".join(
        t("bot.speed.person", locale, name=esc(name), time=duration(seconds, locale)) for name, seconds in people))


def ranking_lines(view: View, locale: str, former: Sequence[Sequence[str]] = ()) -> list[str]:
    names = seat_names(view, former, locale)
    players = view["players"]
    lines = []
    for place, seat in enumerate(view["ranking"], start=1):
        p = players[seat]
        chips = p.get("bird_chips")
        extra = t("bot.ranking.chips", locale, chips=listed(chips, locale)) if chips else ""
        lines.append(t("bot.ranking.line", locale, place=place, name=names[seat],
                       points=tn("game.points", p["score"], locale), extra=extra).rstrip())
    return lines


def move_post(result: MoveResult, locale: str, usual: Sequence[tuple[str, float]] = ()) -> str:
    """The channel message after a move (public words only) or an undo; at game over ``usual`` says how fast each
    person usually moves in the server (:func:`usual_line`)."""
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
        lines.extend(ranking_lines(result.view, locale, result.former))
        lines.append(usual_line(usual, locale))
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
    order = listed([names[s] for s in view["turn_order"]], locale)
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


def result_lines(view: View, locale: str) -> list[str]:
    """A finished game's result: the final ranking (places, scores, bird chips) and who won."""
    winner = view["winner"] if view["winner"] is not None else view["ranking"][0]
    return [t("bot.post.game_over", locale), *ranking_lines(view, locale),
            t("bot.log.winner", locale, name=names_of(view)[winner])]


def status_text(info: TableInfo, view: View, locale: str, *, deadline: float | None = None) -> str:
    """Whose turn and since when (and when their time runs out, with a turn ``deadline``), the scores and the cards
    left (public facts only); once the game is over, its result."""
    names = names_of(view)
    lines = [t("bot.status.title", locale, phase=phase_text(view, locale))]
    if info.to_move is not None:
        seat = info.seats[info.to_move]
        who = mention(seat.user_id) if seat.user_id is not None and not seat.away else esc(seat.name)
        since = info.last_move_at or info.created_at
        lines.append(t("bot.status.turn", locale, player=who, since=timestamp(since)))
        if deadline is not None:
            lines.append(t("bot.status.deadline", locale, until=timestamp(deadline), at=timestamp(deadline, "t")))
    elif view["phase"] == "over":  # the result: places, scores and bird chips, and who won
        return lines_text([*lines, *result_lines(view, locale)])
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


def log_lines(view: View, locale: str, seats: Sequence[SeatInfo] = ()) -> list[str]:
    """The moves so far in words, one line each, with the points each move changed beyond what its words say (a
    scoring card's points for everyone), under a title and a line per round; each move named after the person who
    played its seat then, and a line where someone new took a seat over (``seats``: the game's, which know who played
    each seat before); the scores after round 1 and, once the game is over, its result (the final scores with the
    bird chips, the places, the winner)."""
    names = names_of(view)
    log = view["log"]
    takeovers = _takeovers(seats, names, locale)
    lines = [t("bot.log.title", locale, count=len(log)), *(line for at, line, _ in takeovers if at is None)]
    current = 0
    for index, entry in enumerate(log):
        if played_in(log, index) != current:
            if current:
                lines.append(_scores_line(log[index - 1]["scores"], current, names, locale))
            current = played_in(log, index)
            lines.append(f"__{t('game.round', locale, round=current)}__")
        lines.extend(line for at, line, _ in takeovers if at == index)
        then = list(names)
        for at, _, (seat, before) in reversed(takeovers):  # the earliest take-over after this move names its player
            if at is None or at > index:
                then[seat] = before
        said = describe_move(entry["move"], locale, then, entry["seat"], built=built(entry["events"], entry["seat"]))
        changes = [f"{then[seat]} {signed(delta)}" for seat, delta in sorted(_changes(entry).items()) if delta]
        if changes:
            said = t("bot.log.points", locale, move=said, changes=listed(changes, locale))
        elif entry["move"] != "discard" and parse_move(entry["move"]).verb == "score":  # a card that gave no point
            said = t("bot.log.no_points", locale, move=said)
        lines.append("• " + said)
    lines.extend(line for at, line, _ in takeovers if at is not None and at >= len(log))
    if not log:
        lines.append(t("bot.log.empty", locale))
    if view["phase"] == "over" and log:
        lines += result_lines(view, locale)
    return lines


def _changes(entry: LogEntry) -> dict[int, int]:
    """Each seat's points from a logged move that its words do not say (a scoring card's, for everyone): the build
    points are said with the build, and the bird chips shown at the end with the result."""
    return {seat: sum(delta for reason, delta in reasons.items() if reason not in ("build", "bird_chips"))
            for seat, reasons in points_won(entry["events"]).items()}


def _scores_line(scores: Sequence[int], round_: int, names: Sequence[str], locale: str) -> str:
    """The scores after a round, the highest first ("Scores after round 1: Ada 69, Bo 55 and Cy 40")."""
    order = sorted(range(len(scores)), key=lambda seat: -scores[seat])
    return t("bot.log.round_scores", locale, round=round_,
             scores=listed([f"{names[seat]} {scores[seat]}" for seat in order], locale))


def _takeovers(seats: Sequence[SeatInfo], names: Sequence[str], locale: str
               ) -> list[tuple[int | None, str, tuple[int, str]]]:
    """The take-overs of a game's seats, in the order of the log: the number of moves the game had then (``None``:
    not known; the line then stands first and the seat's moves name everyone who played it), the log's line, and
    the seat with the name of the person who played it before."""
    found: list[tuple[int | None, str, tuple[int, str]]] = []
    for seat in seats:
        people = [*(esc(name) for name in seat.former), names[seat.seat]]
        for number, before in enumerate(people[:-1]):
            at = seat.former_moves[number] if number < len(seat.former_moves) else None
            line = t("bot.log.takeover", locale, name=before, newcomer=people[number + 1])
            found.append((at, line, (seat.seat, before if at is not None else then_name(people, locale))))
    return sorted(found, key=lambda f: -1 if f[0] is None else f[0])


def log_fits(lines: Sequence[str]) -> bool:
    """Whether the whole log fits in one message."""
    return len("\n".join(lines)) <= MESSAGE_MAX


def log_file(lines: Sequence[str]) -> str:
    """The whole log as plain text for a ``.txt`` attachment (without Discord's markdown)."""
    return "\n".join(line.replace("**", "").replace("__", "").replace("\\", "") for line in lines) + "\n"
