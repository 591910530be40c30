"""Moves in words: a legal move as a button, menu option or choice (sites with what they give, scoring cards with
what they score now), the questions asked before a move (it builds nothing, it cannot be taken back), the mover's
own confirmation.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any, Final

from bot.adapter.words.common import MESSAGE_MAX, SEP, clip, esc, names_of, scoring_name, scoring_text, signed
from bot.host.play import Asked
from bot.host.takeback import Risk
from engine import (
    BUILDING_CARDS,
    SCORING_CARD_IDS,
    CardNow,
    Event,
    Move,
    SiteView,
    View,
    parse_move,
)
from engine.log import built
from i18n import ask_move, describe_move, listed, t, tn


def site_of(view: View, site: int) -> SiteView | None:
    for entry in view["board"]["sites"]:
        if entry["id"] == site:
            return entry
    return None


def site_label(view: View, site: int, locale: str) -> str:
    """What building on ``site`` gives, as far as the view shows it: "12 · Church · 3 points · Sugar"; on a site
    already built on, that it spends the share right ("46 · share with Bo: uses your share right this round · …")."""
    entry = site_of(view, site)
    parts = [str(site)]
    if entry is None:
        return parts[0]
    owners = entry.get("buildings") or []
    if owners:  # first: a menu option's label is cut at its end when long
        parts.append(t("bot.site.share", locale, player=names_of(view)[owners[0]["seat"]]))
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
    return SEP.join(parts)


def set_label(letter: str, locale: str) -> str:
    return t("game.set.label", locale, set=letter, name=t(f"game.set.{letter}.name", locale))


def set_choice_label(letter: str, locale: str) -> str:
    """A set as a choice: its name and its cards ("Set A: River set — 1 ship, 2 roads, 3 rivers, 1 double move"),
    the same on a DM's button as in ``/santacruz choose``."""
    return f"{set_label(letter, locale)} — {t(f'game.set.{letter}.cards', locale)}"


def scores_now(view: View) -> dict[str, CardNow]:
    """What each scoring card of the seat's hand would score now, by card, as its view says (``you["cards_now"]``;
    empty outside the landing and play phases, and for the public view)."""
    you = view.get("you")
    return {entry["card"]: entry for entry in you["cards_now"]} if you is not None else {}


def score_label(view: View, card: str, locale: str, now: Mapping[str, CardNow]) -> str:
    """A scoring card as a choice: its name and, when ``now`` knows it, what it would score now for the seat and for
    the best other seat ("Gold (10) · now: you +6, Bo +10")."""
    entry = now.get(card)
    if entry is None:
        return scoring_name(card, locale)
    other = entry["other"]
    if other is None:
        return t("bot.score.now_alone", locale, card=scoring_name(card, locale), points=signed(entry["points"]))
    return t("bot.score.now", locale, card=scoring_name(card, locale), points=signed(entry["points"]),
             other=names_of(view)[other], other_points=signed(entry["other_points"]))


def pile_label(view: View, pile_id: int, locale: str) -> str:
    names = names_of(view)
    for pile in view.get("piles") or []:
        if pile["id"] == pile_id:
            cards = listed([scoring_name(c, locale) for c in pile["scoring_cards"]], locale) or "—"
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
    if risk.ends_game and risk.chips:
        parts.append(t("bot.confirm.what.game_over_birds", locale, points=sum(risk.chips),
                       chips=" + ".join(map(str, risk.chips))))
    elif risk.ends_game:
        parts.append(t("bot.confirm.what.game_over", locale))
    if not parts:
        return t("bot.confirm.what.hidden", locale)
    return functools.reduce(lambda first, then: t("bot.confirm.what.then", locale, first=first, then=then), parts)


def _minus(number: int) -> str:
    """A number with a true minus sign when below 0 ("−6"), as :func:`signed` writes it; else as it is."""
    return str(number) if number >= 0 else signed(number)


def final_question(move: str, risk: Risk, locale: str, names: Sequence[str], *, seat: int | None = None,
                   builds_nothing: bool = False) -> str:
    """The one-click question before a move that cannot be taken back, asked in the mover's own words and naming
    what it reveals or scores ("Play the scoring card “Lighthouses”? This cannot be taken back: “Lighthouses” is
    scored (5 points for you)."); after the no-build question when the card also builds nothing."""
    if builds_nothing:
        note = t("bot.confirm.final_note", locale, what=cannot_undo_text(risk, locale, names))
        return f"{confirm_question(move, locale)}\n{note}"
    question = t("bot.confirm.final", locale, question=ask_move(move, locale, names, seat),
                 what=cannot_undo_text(risk, locale, names))
    if risk.shares is None:
        return question
    return f"{question} {t('bot.confirm.share', locale, player=names[risk.shares])}"


QUESTION_SEP: Final = "\n\u2063\n"
"""Between a message with move controls and the question a click on them asked in place (an invisible separator
on a line of its own), so that *Back* and the answer can take the question off again."""


def asked_question(asked: Asked, locale: str) -> str:
    """The one-click question the host asks before a person's moves (:class:`bot.host.play.Asked`): a card that
    builds nothing, or moves that cannot be taken back, naming what they reveal or score (the first of them that
    cannot be, of a double move and its build)."""
    if not asked.risk.final:
        return confirm_question(asked.moves[0], locale)
    first = asked.risk.first_final or 0
    return final_question(asked.moves[first], asked.risk, locale, [esc(n) for n in asked.names], seat=asked.seat,
                          builds_nothing=asked.builds_nothing)


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
    built_now = built(view["events"], seat, parse_move(move).site) if view is not None else None
    return t("bot.reply.played", locale, move=describe_move(move, locale, names, seat, built=built_now, you=True))


def turn_said(moves: Sequence[str], events: Sequence[Event], seat: int, names: Sequence[str], locale: str) -> str:
    """A turn's moves said to the one who made them, each with what it built ("You play the double move to build
    twice as with road cards · You build a house on site 12 (+1) in the double move · …"), from the turn's
    events."""
    return SEP.join(describe_move(move, locale, names, seat, you=True,
                                  built=None if move == "discard" else built(events, seat, parse_move(move).site))
                    for move in moves)


def played_in(log: Sequence[Any], index: int) -> int:
    """The round the move ``log[index]`` was played in (an entry's ``round`` is the round after it: the move that
    ends round 1 says 2)."""
    return int(log[index - 1]["round"]) if index > 0 else 1
