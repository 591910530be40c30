"""Words for the bot's messages: pure functions from host answers and engine views to text.

Nothing here talks to Discord; every text comes from the message catalogues (``bot.*`` keys in
``i18n/locales/<lang>/bot.json`` plus the game's own ``game.*`` words), and player names are escaped
so that a name can neither ping anyone nor break the markdown. Which view a function is given decides
what it may show: functions that print a seat's secrets (:func:`hand_text`) take that seat's own view,
and the cog only ever sends their output to that seat's player.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import discord

from bot.host.table import MoveResult, PastGame, SeatChange, StartResult, TableInfo
from bot.host.takeback import Risk
from engine import (
    BUILDING_CARDS,
    BUILDINGS,
    SCORING_CARD_IDS,
    SINGLE_BUILDS,
    Move,
    PlayerView,
    SiteView,
    View,
    builds_nothing,
    parse_move,
)
from engine.ai.coach import CardNow, cards_now
from i18n import ask_move, describe_events, describe_move, listed, t, tn
from render.script import letters_within

SEP: Final = " · "
"""Between the parts of a label ("12 · Church · 3 points · Sugar")."""
MESSAGE_MAX: Final = 2000
LABEL_MAX: Final = 80
"""Discord's limit for button labels."""
OPTION_MAX: Final = 100
"""Discord's limit for select option labels and descriptions, and autocomplete choice names."""
LANGUAGE_NAMES: Final = {"en": "English", "de": "Deutsch", "fr": "Français"}
"""Each language in its own words (no catalogue key, as the glossary says)."""


_MENTION_OPEN = re.compile(r"<(?=[@#])")
"""The opening of a user, role or channel mention (``<@1>``, ``<@!1>``, ``<@&1>``, ``<#1>``), whatever its digits:
``discord.utils.escape_mentions`` knows ids of 17-20 digits only."""


def esc(name: str) -> str:
    """A player name made harmless for a message: no mention (``@everyone``, ``@here``, and every ``<@…>``,
    ``<@&…>``, ``<#…>`` whatever its digits, broken by a zero-width space after the ``<``), no markdown."""
    text = _MENTION_OPEN.sub("<\u200b", discord.utils.escape_mentions(str(name)))
    return discord.utils.escape_markdown(text)


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters (with an ellipsis when cut), between two letters."""
    return text if len(text) <= limit else letters_within(text, limit - 1).rstrip() + "…"


def mention(user_id: int) -> str:
    return f"<@{user_id}>"


def channel_link(channel_id: int) -> str:
    return f"<#{channel_id}>"


def timestamp(seconds: float, style: str = "R") -> str:
    """A Discord timestamp: every reader sees it in their own language and time zone."""
    return f"<t:{int(seconds)}:{style}>"


def signed(number: int) -> str:
    """A change of points with its sign: "+6", "0", "−2" (a true minus sign)."""
    return f"+{number}" if number > 0 else f"−{-number}" if number < 0 else "0"


def names_of(view: View) -> list[str]:
    """The escaped names of a view's seats, in seat order."""
    return [esc(p["name"]) for p in view["players"]]


def message_link(guild_id: int | None, channel_id: int, message_id: int) -> str:
    """The link that jumps to a message (as discord.py's ``jump_url`` writes it; ``@me`` outside a server)."""
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}/{message_id}"


def lines_text(lines: Iterable[str], limit: int = MESSAGE_MAX) -> str:
    """Lines joined by newlines, dropping the oldest ones (after the first) if they do not fit."""
    items = [line for line in lines if line]
    text = "\n".join(items)
    if len(text) <= limit or len(items) < 2:
        return clip(text, limit)
    head, rest = items[0], items[1:]
    while rest and len(head) + 3 + sum(len(r) + 1 for r in rest) > limit:
        rest.pop(0)
    return "\n".join([head, "…", *rest])


# ---------------------------------------------------------------------- cards, sites and moves


def scoring_name(card: str, locale: str) -> str:
    return t(f"game.scoring.{card}.name", locale)


def scoring_text(card: str, locale: str) -> str:
    return t(f"game.scoring.{card}.text", locale)


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


def site_of(view: View, site: int) -> SiteView | None:
    for entry in view["board"]["sites"]:
        if entry["id"] == site:
            return entry
    return None


def site_label(view: View, site: int, locale: str) -> str:
    """What building on ``site`` gives, as far as the view shows it: "12 · Church · 3 points · Sugar"."""
    entry = site_of(view, site)
    parts = [str(site)]
    if entry is None:
        return parts[0]
    tile = entry.get("tile")
    if tile is None:
        parts.append(t("bot.site.face_down", locale, kind=t(f"game.site_kind.{entry['kind']}", locale)))
    else:
        parts.append(t(f"game.building.{tile['building']}.one", locale))
        parts.append(tn("game.points", int(tile["points"]), locale))
        parts.extend(t(f"game.resource.{r}", locale) for r in tile["resources"])
        if tile.get("fish_bonus"):
            parts.append(t("bot.site.fish_bonus", locale, bonus=tile["fish_bonus"]))
        if tile.get("bird"):
            parts.append(t("game.term.bird_chip.one", locale))
    owners = entry.get("buildings") or []
    if owners:
        names = names_of(view)
        parts.append(t("bot.site.share", locale, player=names[owners[0]["seat"]]))
    return SEP.join(parts)


def set_label(letter: str, locale: str) -> str:
    return t("game.set.label", locale, set=letter, name=t(f"game.set.{letter}.name", locale))


def set_choice_label(letter: str, locale: str) -> str:
    """A set as a choice: its name and its cards ("Set A: River set — 1 ship, 2 roads, 3 rivers, 1 double move"),
    the same on a DM's button as in ``/santacruz choose``."""
    return f"{set_label(letter, locale)} — {t(f'game.set.{letter}.cards', locale)}"


def scores_now(view: View) -> dict[str, CardNow]:
    """What each scoring card of the seat's hand would score now, by card (the coach's reckoning from the seat's own
    view; empty outside the landing and play phases, and for the public view)."""
    if view.get("you") is None or view["seat"] is None:
        return {}
    return {entry.card: entry for entry in cards_now(view)}


def score_label(view: View, card: str, locale: str, now: Mapping[str, CardNow]) -> str:
    """A scoring card as a choice: its name and, when ``now`` knows it, what it would score now for the seat and for
    the best other seat ("Gold (10) · now: you +6, Bo +10")."""
    entry = now.get(card)
    if entry is None:
        return scoring_name(card, locale)
    names = names_of(view)
    return t("bot.score.now", locale, card=scoring_name(card, locale), points=signed(entry.points),
             other=names[entry.other], other_points=signed(entry.other_points))


def pile_label(view: View, pile_id: int, locale: str) -> str:
    names = names_of(view)
    for pile in view.get("piles") or []:
        if pile["id"] == pile_id:
            cards = ", ".join(scoring_name(c, locale) for c in pile["scoring_cards"]) or "—"
            return t("bot.pile.label", locale, owner=names[pile_id], set=pile["set"],
                     set_name=t(f"game.set.{pile['set']}.name", locale), cards=cards)
    return t("bot.pile.short", locale, owner=names[pile_id] if 0 <= pile_id < len(names) else pile_id)


def move_label(view: View, move: str | Move, locale: str) -> str:
    """A legal move of the viewing seat in words, for a button, a menu option or a choice."""
    m = parse_move(move) if isinstance(move, str) else move
    verb = m.verb
    if m.site is not None:
        return site_label(view, m.site, locale)
    if m.pile is not None:
        return pile_label(view, m.pile, locale)
    if verb in BUILDING_CARDS and verb != "double":
        return t("bot.move.no_build", locale, card=t(f"game.card.{verb}.one", locale))
    if verb == "double":
        return t("bot.move.double", locale, kind=t(f"game.card.{m.kind}.short", locale))
    if verb == "score":
        return scoring_name(str(m.card), locale)
    if verb == "discard":
        return t("bot.move.discard", locale, card=scoring_name(str(m.card), locale))
    if verb == "set":
        return set_choice_label(str(m.letter), locale)
    return t("bot.move.pass", locale)


def move_detail(view: View, move: str | Move, locale: str) -> str | None:
    """A second line for a menu option: the scoring card's text (a set's button label lists its cards)."""
    m = parse_move(move) if isinstance(move, str) else move
    if m.verb in ("score", "discard") and m.card in SCORING_CARD_IDS:
        return scoring_text(str(m.card), locale)
    return None


def needs_confirmation(move: str, legal: Sequence[str], view: View | None = None) -> bool:
    """Whether ``move`` (one of the ``legal`` moves) builds nothing and is confirmed first, as online
    (the engine decides: :func:`engine.builds_nothing`, with the seat's view's ``you.build_sites``)."""
    you = view.get("you") if view is not None else None
    build_sites = you.get("build_sites") if you is not None else None
    return builds_nothing(parse_move(move), [parse_move(m) for m in legal], build_sites)


def confirm_question(move: str, locale: str) -> str:
    m = parse_move(move)
    if m.verb == "pass":
        return t("bot.confirm.pass", locale)
    if m.verb == "double":
        return t("bot.confirm.no_build_double", locale, kind=t(f"game.card.{m.kind}.short", locale))
    return t("bot.confirm.no_build", locale, card=t(f"game.card.{m.card}.one", locale))


def cannot_undo_text(risk: Risk, locale: str, names: Sequence[str]) -> str:
    """What a final move does that cannot be taken back, in words: "site 12 is turned face up; you draw a bird
    chip", "“Volcano” is scored (0 points for you, 9 for Bo)" (only what everyone may know,
    :class:`bot.host.takeback.Risk`)."""
    parts = []
    if risk.scores is not None:
        card = scoring_name(risk.scores, locale)
        if risk.other is None:
            parts.append(t("bot.confirm.what.score", locale, card=card, count=risk.points))
        else:
            parts.append(t("bot.confirm.what.score_other", locale, card=card, count=risk.points,
                           other=names[risk.other], other_points=_minus(risk.other_points)))
    if risk.revealed:
        parts.append(t("bot.confirm.what.reveal", locale, count=len(risk.revealed),
                       sites=listed(risk.revealed, locale)))
    if risk.bird:
        parts.append(t("bot.confirm.what.bird", locale))
    if risk.ends_round:
        parts.append(t("bot.confirm.what.round", locale))
    if risk.ends_game:
        parts.append(t("bot.confirm.what.game_over", locale))
    if not parts:
        return t("bot.confirm.what.hidden", locale)
    return functools.reduce(lambda first, then: t("bot.confirm.what.then", locale, first=first, then=then), parts)


def _minus(number: int) -> str:
    """A number with a true minus sign when below 0 ("−6"), as :func:`signed` writes it; else as it is."""
    return str(number) if number >= 0 else signed(number)


def final_question(move: str, risk: Risk, locale: str, names: Sequence[str], *, builds_nothing: bool = False) -> str:
    """The one-click question before a move that cannot be taken back, asked in the mover's own words and naming
    what it reveals or scores ("Play the scoring card “Lighthouses”? This cannot be taken back: “Lighthouses” is
    scored (5 points for you)."); after the no-build question when the card also builds nothing."""
    if builds_nothing:
        note = t("bot.confirm.final_note", locale, what=cannot_undo_text(risk, locale, names))
        return f"{confirm_question(move, locale)}\n{note}"
    return t("bot.confirm.final", locale, question=ask_move(move, locale, names),
             what=cannot_undo_text(risk, locale, names))


QUESTION_SEP: Final = "\n\u2063\n"
"""Between a message with move controls and the question a click on them asked in place (an invisible separator
on a line of its own), so that *Back* and the answer can take the question off again."""


def with_question(content: str, question: str) -> str:
    """A message with move controls, asking ``question`` below its own text (in place of a second message)."""
    base = split_question(content)[0]
    return clip(base, MESSAGE_MAX - len(QUESTION_SEP) - len(question)) + QUESTION_SEP + question


def split_question(content: str) -> tuple[str, bool]:
    """A message's own text without a question asked in place, and whether it had one."""
    base, sep, _ = content.partition(QUESTION_SEP)
    return base, bool(sep)


def public_move(move: str) -> str:
    """A move's notation as everyone may see it: which card a player put back in round 2 stays secret."""
    return "discard" if move.strip() == "discard" or parse_move(move).verb == "discard" else move


def played_text(move: str, locale: str, names: Sequence[str], seat: int, view: View | None = None) -> str:
    """The mover's own confirmation of a move, said to them (may show their own discarded card); with the ``view``
    right after it, a build is said with what it built ("Done: You land and build a lighthouse on site 10 (+2)")."""
    built = built_by_events(view, move, seat) if view is not None else None
    return t("bot.reply.played", locale, move=describe_move(move, locale, names, seat, built=built, you=True))


def built_by_events(view: View, move: str, seat: int) -> tuple[str, int, bool] | None:
    """(building, points, shared) that ``move`` of ``seat`` built, from the events of the ``view`` it made; ``None``
    when it built nothing (or the view is of another move)."""
    m = parse_move(move)
    events = view.get("events") or []
    for i, e in enumerate(events):
        if e["type"] == "build" and e["seat"] == seat and e["site"] == m.site:
            after = events[i + 1] if i + 1 < len(events) else None
            points = after["delta"] if after is not None and after["type"] == "score" and after["seat"] == seat \
                and after["reason"] == "build" else 0
            return e["building"], points, bool(e.get("shared"))
    return None


def built_by_log(view: View, index: int) -> tuple[str, int, bool] | None:
    """(building, points, shared) that the move ``view["log"][index]`` built on its site, read from the board (the
    site's tile, face up once built on), the score track (the mover's score rose by the tile's points, besides the
    bird chips counted at the end) and the earlier builds of the round on that site (shared: another building stood
    there, not swept away by an eruption since); ``None`` for a move without a site, or one that built nothing."""
    tile = _built_tile(view, index)
    if tile is None:
        return None
    site = parse_move(view["log"][index]["move"]).site
    assert site is not None
    return str(tile["building"]), int(tile["points"]), _stands_on(view, index, site)


def _built_tile(view: View, index: int) -> Any:
    """The tile the site move ``view["log"][index]`` built on (its mover's score rose by the tile's points), or
    ``None``."""
    log = view["log"]
    entry = log[index]
    if entry["move"] == "discard":
        return None
    m = parse_move(entry["move"])
    site = site_of(view, m.site) if m.site is not None else None
    tile = site.get("tile") if site is not None else None
    if tile is None or index == 0:  # the first move of a game that has a site is a landing: it always builds
        return tile
    seat = entry["seat"]
    gained = entry["scores"][seat] - log[index - 1]["scores"][seat]
    if index == len(log) - 1 and view["phase"] == "over":
        gained -= sum(view["players"][seat].get("bird_chips") or [])
    return tile if gained == int(tile["points"]) else None


def played_in(log: Sequence[Any], index: int) -> int:
    """The round the move ``log[index]`` was played in (an entry's ``round`` is the round after it: the move that
    ends round 1 says 2)."""
    return int(log[index - 1]["round"]) if index > 0 else 1


def _stands_on(view: View, index: int, site: int) -> bool:
    """Whether a building stood on ``site`` before the move ``view["log"][index]`` (built earlier in its round)."""
    log = view["log"]
    entry = site_of(view, site)
    erupts = entry is not None and entry["kind"] == "volcano"
    stands = False
    for earlier in range(index):
        before = log[earlier]
        if played_in(log, earlier) != played_in(log, index) or before["move"] == "discard":
            continue
        m = parse_move(before["move"])
        if m.site == site and _built_tile(view, earlier) is not None:
            stands = True
        elif erupts and m.verb == "score" and m.card == "eruption":
            stands = False
    return stands


# ---------------------------------------------------------------------- a seat's own cards


def building_cards_text(player: PlayerView, locale: str) -> str:
    """The building cards held, counted in words ("1 ship, 4 roads, 1 double move"), as the sets' cards read."""
    cards = player["building_cards"]
    held = [tn(f"game.count.card.{c}", cards[c], locale) for c in BUILDING_CARDS if cards.get(c)]
    return ", ".join(held) if held else t("bot.hand.no_cards", locale)


def supply_text(player: PlayerView, locale: str) -> str:
    """The buildings left in the supply, counted in words ("8 houses, 3 churches, 1 lighthouse")."""
    supply = player["supply"]
    return ", ".join(tn(f"game.count.building.{b}", supply[b], locale) for b in BUILDINGS)


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
        where = ", ".join(map(str, sites.get(card, []))) or t("bot.dm.builds_nowhere", locale)
        parts.append(t("bot.dm.builds_card", locale, card=t(f"game.card.{card}.short", locale), sites=where))
    return t("bot.dm.builds", locale, cards=SEP.join(parts)) if parts else ""


def hand_text(view: View, locale: str) -> str:
    """A seat's own cards, bird chips and supply, from that seat's view (it shows secrets)."""
    you = view["you"]
    me = view["players"][you["seat"]]
    scoring = ", ".join(scoring_name(c, locale) for c in you["scoring_cards"]) or t("bot.hand.no_cards", locale)
    chips = you["bird_chips"]
    birds = (t("bot.hand.chips", locale, chips=", ".join(str(c) for c in chips),
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


def phase_text(view: View, locale: str) -> str:
    return SEP.join([t("game.round", locale, round=view["round"]), t(f"game.phase.{view['phase']}", locale)])


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


# ---------------------------------------------------------------------- channel messages


def lobby_text(info: TableInfo, locale: str) -> str:
    """The lobby message (game language)."""
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
    lines.extend(f"{s.seat + 1}. {seat_name(s, locale)}" for s in info.seats)
    if info.status == "lobby":
        lines.append(t("bot.lobby.hint", locale))
    elif info.status == "abandoned":
        lines.append(t("bot.lobby.closed", locale))
    else:
        lines.append(t("bot.lobby.started", locale))
    return lines_text(lines)


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
    if result.hints:
        lines.append(t("bot.post.hints", locale))
    return lines_text(lines)


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


def log_text(view: View, locale: str) -> str:
    """The moves so far in words (the newest kept if they do not all fit)."""
    return lines_text(log_lines(view, locale))


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
                                          built=built_by_log(view, index)))
    if len(lines) == 1:
        lines.append(t("bot.log.empty", locale))
    return lines


# ---------------------------------------------------------------------- the archive of finished games


def log_fits(lines: Sequence[str]) -> bool:
    """Whether the whole log fits in one message."""
    return len("\n".join(lines)) <= MESSAGE_MAX


def log_file(lines: Sequence[str]) -> str:
    """The whole log as plain text for a ``.txt`` attachment (without Discord's markdown)."""
    return "\n".join(line.replace("**", "").replace("__", "").replace("\\", "") for line in lines) + "\n"


def past_name(game: PastGame, seat: int, locale: str) -> str:
    name = esc(game.names[seat])
    return f"{name} {t('bot.history.computer', locale)}" if game.computers[seat] else name


def history_text(games: Sequence[PastGame], links: Sequence[str | None], locale: str) -> str:
    """The server's last finished games, newest first: number, date, scores, winner, link to the game-over post."""
    if not games:
        return t("bot.history.empty", locale)
    lines = [t("bot.history.title", locale, count=len(games))]
    for game, url in zip(games, links, strict=True):
        scores = ", ".join(f"{past_name(game, s, locale)} {game.scores[s]}" for s in game.ranking)
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
