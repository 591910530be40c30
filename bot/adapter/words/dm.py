"""A player's own side in words: their cards, bird chips and supply (from their own view: it shows secrets), what they
are asked to do on their turn, the turn DM's text, the line counting the other games waiting, and the one DM that
gathers what waited during quiet hours.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.adapter.words.common import SEP, channel_link, lines_text, phase_text, scoring_name, timestamp
from bot.host.table import TableInfo
from bot.host.user_settings import OpenGame
from engine import (
    BUILDING_CARDS,
    BUILDINGS,
    SINGLE_BUILDS,
    PlayerView,
    View,
)
from i18n import listed, t, tn


def building_cards_text(player: PlayerView, locale: str) -> str:
    """The building cards held, counted in words ("1 ship, 4 roads, 1 double move"), as the sets' cards read."""
    cards = player["building_cards"]
    held = [tn(f"game.count.card.{c}", cards[c], locale) for c in BUILDING_CARDS if cards.get(c)]
    return listed(held, locale) if held else t("bot.hand.no_cards", locale)


def supply_text(player: PlayerView, locale: str) -> str:
    """The buildings left in the supply, counted in words ("8 houses, 3 churches, 1 lighthouse")."""
    supply = player["supply"]
    return listed([tn(f"game.count.building.{b}", supply[b], locale) for b in BUILDINGS], locale)


def builds_text(view: View, locale: str) -> str:
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
        parts.append(t("bot.dm.builds_card", locale, card=t(f"game.card.{card}.short", locale), sites=where))
    return t("bot.dm.builds", locale, cards=SEP.join(parts)) if parts else ""


def hand_text(view: View, locale: str) -> str:
    """A seat's own cards, bird chips and supply, from that seat's view (it shows secrets)."""
    you = view["you"]
    me = view["players"][you["seat"]]
    scoring = listed([scoring_name(c, locale) for c in you["scoring_cards"]], locale) or t("bot.hand.no_cards", locale)
    chips = you["bird_chips"]
    birds = (t("bot.hand.chips", locale, chips=listed(chips, locale),
               points=tn("game.points", sum(chips), locale))
             if chips else t("bot.hand.no_chips", locale))
    lines = [
        t("bot.hand.score", locale, points=tn("game.points", me["score"], locale), rank=me["rank"]),
        t("bot.hand.building_cards", locale, cards=building_cards_text(me, locale)),
        t("bot.hand.scoring_cards", locale, cards=scoring),
        t("bot.hand.bird_chips", locale, chips=birds),
        t("bot.hand.supply", locale, supply=supply_text(me, locale)),
    ]
    if you.get("discarded"):
        lines.append(t("bot.hand.discarded", locale, card=scoring_name(you["discarded"], locale)))
    return "\n".join(lines)


def turn_prompt(view: View, locale: str) -> str:
    """What the seat to move is asked to do now (from its own view)."""
    pending = view.get("pending")
    if pending:
        return t(f"bot.prompt.double.{pending['card']}", locale, left=pending.get("builds_left", 1))
    return t(f"bot.prompt.{view['phase']}", locale)


def dm_text(info: TableInfo, view: View, locale: str, *, turn: bool, reminder: bool = False,
            start: bool = False, notes: Sequence[str] = (), asked: bool = False,
            deadline: float | None = None) -> str:
    """A player's DM: where, whose turn, ``notes`` (e.g. the others' vacations), their hand (own view), and what
    to do: on their turn, which card builds where and, with a turn ``deadline`` (a time), when their time runs out.
    ``asked``: the player asked for their cards (``/santacruz status``, *My cards*), nothing changed."""
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
    lines = [head, *notes, hand_text(view, locale)]
    if turn:
        lines.append(turn_prompt(view, locale))
        lines.append(builds_text(view, locale))
        if deadline is not None:
            lines.append(t("bot.dm.deadline", locale, until=timestamp(deadline), at=timestamp(deadline, "t")))
    return lines_text(lines)


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
