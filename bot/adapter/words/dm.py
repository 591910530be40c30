"""A player's own side in words: their cards, bird chips and supply (from their own view: it shows secrets), what they
are asked to do on their turn, the turn DM's text, the line counting the other games waiting, and the one DM that
gathers what waited during quiet hours.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from bot.adapter.emojis import NO_EMOJIS, Emojis, scoring_icon
from bot.adapter.threads import LOCKED
from bot.adapter.words.common import (
    SEP,
    channel_link,
    esc,
    lines_text,
    names_of,
    phase_text,
    scoring_name,
    signed,
    timestamp,
)
from bot.adapter.words.moves import turn_said
from bot.host.deliveries import CHANNEL_GONE
from bot.host.table import PastGame, TableInfo
from bot.host.user_settings import OpenGame
from engine import (
    BUILDING_CARDS,
    BUILDINGS,
    SINGLE_BUILDS,
    PlayerView,
    View,
)
from engine.types import ScoreBreakdown
from i18n import describe_events, listed, t, tn

SINCE_MAX: Final = 1500
"""Characters at most of a DM's "since your last turn" part (the oldest turns give way first): a V2 message carries
4,000 characters of text in all (:mod:`bot.adapter.dm_layout`)."""
HELP_TURNS: Final = 1
"""A player's first turns of the play phase whose DM says how to play (the menus, the buttons, the commands): the
first only, so that an undo of its move, which brings that turn's DM again, makes it twice at most."""


def building_cards_text(player: PlayerView, locale: str, emojis: Emojis = NO_EMOJIS) -> str:
    """The building cards held, counted in words ("1 ship, 4 roads, 1 double move"), as the sets' cards read, each
    after its emoji when the bot has them."""
    cards = player["building_cards"]
    held = [emojis.mark(c) + tn(f"game.count.card.{c}", cards[c], locale) for c in BUILDING_CARDS if cards.get(c)]
    return listed(held, locale) if held else t("bot.hand.no_cards", locale)


def supply_text(player: PlayerView, locale: str, emojis: Emojis = NO_EMOJIS) -> str:
    """The buildings left in the supply, counted in words ("8 houses, 3 churches, 1 lighthouse"), each after its
    emoji when the bot has them."""
    supply = player["supply"]
    return listed([emojis.mark(b) + tn(f"game.count.building.{b}", supply[b], locale) for b in BUILDINGS], locale)


def builds_text(view: View, locale: str, emojis: Emojis = NO_EMOJIS) -> str:
    """Which of the seat's building cards builds where now ("Where your cards build: Ship 1, 5, 9 · Road
    nowhere"), from its own view on its turn in the play phase; "" when the view does not say."""
    you = view.get("you")
    sites = you.get("build_sites") if you is not None else None
    if you is None or sites is None:
        return ""
    held = view["players"][you["seat"]]["building_cards"]
    parts = []
    for card in SINGLE_BUILDS:
        if not held.get(card):
            continue
        where = listed(sites.get(card, []), locale) or t("bot.dm.builds_nowhere", locale)
        parts.append(t("bot.dm.builds_card", locale, card=emojis.mark(card) + t(f"game.card.{card}.short", locale),
                       sites=where))
    return t("bot.dm.builds", locale, cards=SEP.join(parts)) if parts else ""


def hand_text(view: View, locale: str, emojis: Emojis = NO_EMOJIS) -> str:
    """A seat's own cards, bird chips and supply, from that seat's view (it shows secrets); cards, bird chips and
    buildings each after its emoji when the bot has them."""
    you = view["you"]
    me = view["players"][you["seat"]]
    scoring = (listed([emojis.mark(scoring_icon(c)) + scoring_name(c, locale) for c in you["scoring_cards"]], locale)
               or t("bot.hand.no_cards", locale))
    chips = you["bird_chips"]
    birds = (emojis.mark("chip") + t("bot.hand.chips", locale, chips=listed(chips, locale),
                                     points=tn("game.points", sum(chips), locale))
             if chips else t("bot.hand.no_chips", locale))
    lines = [
        t("bot.hand.score", locale, points=tn("game.points", me["score"], locale), rank=me["rank"]),
        t("bot.hand.building_cards", locale, cards=building_cards_text(me, locale, emojis)),
        t("bot.hand.scoring_cards", locale, cards=scoring),
        t("bot.hand.bird_chips", locale, chips=birds),
        t("bot.hand.supply", locale, supply=supply_text(me, locale, emojis)),
    ]
    if you.get("discarded"):
        card = you["discarded"]
        lines.append(t("bot.hand.discarded", locale, card=emojis.mark(scoring_icon(card)) + scoring_name(card, locale)))
    return "\n".join(lines)


def turn_prompt(view: View, locale: str) -> str:
    """What the seat to move is asked to do now (from its own view)."""
    pending = view.get("pending")
    if pending:
        return t(f"bot.prompt.double.{pending['card']}", locale, left=pending.get("builds_left", 1))
    return t(f"bot.prompt.{view['phase']}", locale)


def since_text(view: View, locale: str, *, limit: int = SINCE_MAX) -> str:
    """What happened since the seat's own last move, from its view with ``since`` (``game.view(seat, since=True)``):
    every other turn whole, in the channel's words, one line each (a double move with its builds, a scoring card
    with what it paid each player, a bird chip, the deal of a new round), then what it changed for the seat: sites
    its building cards could have used that others took, scoring cards of its hand now worth other points. "" when
    nothing happened (its first turn as the first to move) or the view does not say."""
    you = view.get("you")
    since = you.get("since") if you is not None else None
    if since is None:
        return ""
    names = names_of(view)
    turns = [f"• {SEP.join(told)}" for turn in since["turns"] if (told := describe_events(turn["events"], locale,
                                                                                          names))]
    notes = []
    if since["taken"]:
        sites = [t("bot.dm.since_taken_site", locale, site=taken["site"], player=names[taken["seat"]],
                   cards=listed([t(f"game.card.{c}.short", locale) for c in taken["cards"]], locale))
                 for taken in since["taken"]]
        notes.append(f"• {t('bot.dm.since_taken', locale, sites=listed(sites, locale))}")
    for change in since["cards"]:
        said = t("bot.dm.since_card", locale, card=scoring_name(change["card"], locale),
                 now=tn("game.points", change["now"], locale), before=change["before"])
        notes.append(f"• {said}")
    if not turns and not notes:
        return ""
    head = t("bot.dm.since", locale)
    room = limit - len(head) - len("\n• …") - sum(len(note) + 1 for note in notes)
    cut = False
    while len(turns) > 1 and sum(len(turn) + 1 for turn in turns) > room:
        turns.pop(0)  # the oldest turn gives way; the newest, and what changed for the player, stay
        cut = True
    return "\n".join([head, *(["• …"] if cut else []), *turns, *notes])


def play_help_shown(view: View) -> bool:
    """Whether a turn DM of the seat says how to play (the menus and buttons, or the commands): on its first
    :data:`HELP_TURNS` turns of the play phase in round 1 (the cards it has played tell how many it has had), then no
    more; always the question of a double move's next build."""
    if view["phase"] != "play" or view.get("pending") is not None:
        return True
    me = view["players"][view["seat"]] if view["seat"] is not None else None
    played = len(me["played_building_cards"]) + len(me["played_scoring_cards"]) if me is not None else 0
    return view["round"] == 1 and played < HELP_TURNS


@dataclass(frozen=True, slots=True)
class HandWords:
    """A player's hand message in words, part by part (:mod:`bot.adapter.dm_layout` shows each on its own)."""

    head: str
    """Where, whose turn, and the notes (e.g. the others' vacations)."""
    since: str
    """What happened since the player's last move ("" when nothing did)."""
    hand: str
    """Their cards, bird chips and supply."""
    turn: str
    """On their turn: what to do, which card builds where, when their time runs out ("" otherwise)."""

    def text(self) -> str:
        """All of it as one text (a message that is no V2 layout)."""
        return lines_text([self.head, self.since, self.hand, self.turn])


def hand_words(info: TableInfo, view: View, locale: str, *, turn: bool, reminder: bool = False,
               start: bool = False, notes: Sequence[str] = (), asked: bool = False,
               deadline: float | None = None, emojis: Emojis = NO_EMOJIS) -> HandWords:
    """A player's DM: where, whose turn, ``notes`` (e.g. the others' vacations), their hand (own view), and what
    to do: on their turn, which card builds where and, with a turn ``deadline`` (a time), when their time runs out.
    ``asked``: the player asked for their cards (``/santacruz status``, *My cards*), nothing changed. ``emojis``: those
    the bot has, beside the cards', bird chips' and buildings' words."""
    where = channel_link(info.channel_id)
    if start and not turn:
        head = t("bot.dm.start", locale, channel=where, phase=phase_text(view, locale))
    elif reminder:
        head = t("bot.dm.reminder", locale, channel=where)
    elif turn:
        head = t("bot.dm.your_turn", locale, channel=where, phase=phase_text(view, locale))
    elif asked:
        head = t("bot.dm.your_cards", locale, channel=where, phase=phase_text(view, locale))
    else:
        head = t("bot.dm.hand_changed", locale, channel=where, phase=phase_text(view, locale))
    doing: list[str] = []
    if turn and play_help_shown(view):
        doing.append(turn_prompt(view, locale))
        doing.append(builds_text(view, locale, emojis))
        if deadline is not None:
            doing.append(t("bot.dm.deadline", locale, until=timestamp(deadline), at=timestamp(deadline, "t")))
    return HandWords(lines_text([head, *notes]), since_text(view, locale), hand_text(view, locale, emojis),
                     lines_text(doing))


def dm_text(info: TableInfo, view: View, locale: str, *, turn: bool, reminder: bool = False,
            start: bool = False, notes: Sequence[str] = (), asked: bool = False,
            deadline: float | None = None) -> str:
    """:func:`hand_words` as one text."""
    return hand_words(info, view, locale, turn=turn, reminder=reminder, start=start, notes=notes, asked=asked,
                      deadline=deadline).text()


def others_waiting(count: int, locale: str) -> str:
    """The line of a turn DM that says how many other games wait for the player ("" when none)."""
    return tn("bot.games.others_wait", count, locale) if count > 0 else ""


def held_text(waiting: Sequence[OpenGame], changed_channels: Sequence[int], locale: str) -> str:
    """The head of the one DM sent when quiet hours end: the games that wait for the player's move, or else the
    games whose cards changed meanwhile."""
    lines = [t("bot.held.header", locale)]
    lines.extend(f"- {t('bot.held.your_turn', locale, channel=channel_link(g.channel_id), since=timestamp(g.since))}"
                 for g in waiting)
    if not waiting and changed_channels:
        channels = listed([channel_link(c) for c in changed_channels], locale)
        lines.append(t("bot.held.changed", locale, channels=channels))
    lines.append(t("bot.held.hint", locale))
    return lines_text(lines)


def turn_over_text(info: TableInfo, payload: dict[str, Any], locale: str) -> str:
    """What a turn DM says once its turn has passed (in place of its turn, its hand and its question): the turn
    as its player made it, or made by the computer for them, or taken back by another player's undo, or ended with
    the game abandoned or its channel gone; and that the game is over, when it is (``payload``:
    :func:`bot.host.deliveries.turn_over_payload`'s, or ``reason`` ``abandoned`` or ``channel_gone``)."""
    where = channel_link(info.channel_id)
    names = [esc(s.name) for s in info.seats]
    reason = payload.get("reason")
    if reason == "undo":
        lines = [t("bot.dm.turn_over.undo", locale, channel=where, player=names[int(payload["by"])])]
    elif reason == "abandoned":
        lines = [t("bot.dm.turn_over.abandoned", locale, channel=where)]
    elif reason == CHANNEL_GONE and payload.get("why") == LOCKED:  # the thread is still there to read
        lines = [t("bot.dm.turn_over.thread_locked", locale, channel=where)]
    elif reason == CHANNEL_GONE:  # no link: it would lead nowhere
        lines = [t("bot.dm.turn_over.channel_gone", locale)]
    else:
        moves = [str(m) for m in payload.get("moves") or []]
        said = turn_said(moves, payload.get("events") or [], int(payload["moved"]), names, locale)
        key = "bot.dm.turn_over.computer" if reason == "computer" else "bot.dm.turn_over.moved"
        lines = [t(key, locale, channel=where, moves=said)]
    if payload.get("game_over"):
        lines.append(t("bot.dm.turn_over.game_over", locale))
    return lines_text(lines)


def game_over_text(game: PastGame, seat: int, locale: str, link: str | None) -> str:
    """A player's one DM at game over: their place and score, broken down (the start, buildings, each scoring card
    that moved their marker, bird chips), against the winner's (the winner's against the runner-up's), and the link
    to the game-over post."""
    assert game.view is not None
    where = channel_link(game.channel_id)
    names = [esc(n) for n in game.names]
    place = game.ranking.index(seat) + 1
    winner = game.ranking[0]
    points = tn("game.points", game.scores[seat], locale)
    if place == 1:
        other = game.ranking[1]
        head = t("bot.dm.over.won", locale, channel=where, points=points, player=names[other],
                 other_points=tn("game.points", game.scores[other], locale))
    else:
        other = winner
        head = t("bot.dm.over.place", locale, channel=where, place=place, players=len(game.names), points=points,
                 player=names[winner], other_points=tn("game.points", game.scores[winner], locale))
    lines = [head,
             t("bot.dm.over.yours", locale, parts=breakdown_text(game.breakdown[seat], game.scores[seat], locale)),
             t("bot.dm.over.theirs", locale, player=names[other],
               parts=breakdown_text(game.breakdown[other], game.scores[other], locale))]
    if link is not None:
        lines.append(t("bot.dm.over.link", locale, link=link))
    return lines_text(lines)


def breakdown_text(parts: ScoreBreakdown, total: int, locale: str) -> str:
    """Where a seat's points came from, in one line: "start 2 · buildings 41 · “Gold (10)” +10 · … · bird chips 7
    = 107" (each scoring card that moved the marker, the most first)."""
    said = [t("bot.dm.over.start", locale, points=parts["start"]),
            t("bot.dm.over.buildings", locale, points=parts["buildings"])]
    said += [f"{scoring_name(card, locale)} {signed(points)}"
             for card, points in sorted(parts["cards"].items(), key=lambda item: (-item[1], item[0]))]
    said.append(t("bot.dm.over.birds", locale, points=parts["birds"]))
    return f"{SEP.join(said)} = {total}"
