"""Command options typed by hand: the autocomplete suggestions, and reading what the user typed.

Pure functions of a seat's own view and legal moves (the turn's commands fetch both from the host): the sites
offered to ``/santacruz land`` and ``build`` with their labels, the scoring cards of the hand, the
choices of a draft or a discard, the time zones of ``/santacruz settings``; and the move meant by a
scoring card's name or a ``choose`` option.
What names nothing is a :class:`bot.adapter.errors.Refusal` that lists what would have been accepted.
Every value offered is accepted as it is: ``build``'s ``site`` is text, so that with no card chosen an
offer carries its card ("ship 12", read by :func:`build_site`); what the command would refuse is not offered.
"""

from __future__ import annotations

from typing import Any, Final

from discord.app_commands import Choice

from bot.adapter.errors import Refusal
from bot.adapter.words.common import OPTION_MAX, SEP, clip, esc, scoring_text
from bot.adapter.words.moves import move_detail, move_label, score_label, scores_now, site_label
from bot.host.user_settings import time_zones as time_zones_known
from engine import SCORING_CARD_IDS, SINGLE_BUILDS, IllegalMove, Move, View, parse_move
from i18n import LOCALES, t

CHOICES_MAX: Final = 25
"""Discord shows at most this many autocomplete choices."""
CHOICE_VERBS: Final = ("set", "pile", "discard", "pass")
"""The moves ``/santacruz choose`` makes."""


def scoring_card_id(card: str, locale: str) -> str:
    """A scoring card's id from what the user typed: the id, or its name in any language (whatever stands
    between its words: "House + church + lighthouse", "house, church, lighthouse")."""
    text = card.strip().lower()
    if text in SCORING_CARD_IDS:
        return text
    words = _words(text)
    for card_id in SCORING_CARD_IDS:
        if any(_words(t(f"game.scoring.{card_id}.name", lang).lower()) == words for lang in (locale, *LOCALES)):
            return card_id
    raise Refusal("bot.error.unknown_card", card=esc(card),
                  cards=", ".join(t(f"game.scoring.{c}.name", locale) for c in SCORING_CARD_IDS))


def _words(name: str) -> tuple[str, ...]:
    """A card name's words, without the signs between them (``+``, commas)."""
    return tuple(name.replace("+", " ").replace(",", " ").split())


def choice_move(option: str, legal: list[str], locale: str) -> str:
    """The move meant by ``/santacruz choose option:…`` (``legal``: the user's moves): a set, a pile, a discard,
    or pass."""
    text = option.strip()
    moves = [parse_move(m) for m in legal]
    if _names_a_choice(text):
        move = text
    else:
        phase_verb = next((m.verb for m in moves if m.verb in ("set", "pile", "discard")), None)
        if phase_verb is None:
            if not legal:
                return f"set {text}"  # not their turn (or no game): the host says why
            raise Refusal("bot.error.nothing_to_choose")
        arg = text.upper() if phase_verb == "set" else text
        if phase_verb == "discard":
            arg = scoring_card_id(text, locale)
        move = f"{phase_verb} {arg}"
    try:
        return str(parse_move(move))
    except IllegalMove:
        choices = [str(m) for m in moves if m.verb in CHOICE_VERBS]
        raise Refusal("bot.error.bad_option", option=esc(option),
                      choices=", ".join(choices) or "—") from None


def _names_a_choice(text: str) -> bool:
    """Whether ``text`` is already a choice's notation (``set B``, ``pile 2``, ``discard birds``, ``pass``)."""
    try:
        return parse_move(text).verb in CHOICE_VERBS
    except IllegalMove as exc:
        return exc.params.get("verb") in CHOICE_VERBS


def site_choices(view: View, sites: list[int], current: Any, locale: str,
                 prefix: str = "") -> list[Choice[int]]:
    """The ``sites`` that match what was typed (a number's start or part of the label)."""
    typed = str(current or "").strip().lower()
    seen: set[int] = set()
    choices: list[Choice[int]] = []
    for site in sites:
        if site in seen:
            continue
        label = prefix + site_label(view, site, locale)
        if typed and not (str(site).startswith(typed) or typed in label.lower()):
            continue
        seen.add(site)
        choices.append(Choice(name=clip(label, OPTION_MAX), value=site))
    return choices[:CHOICES_MAX]


def _sites(legal: list[str], verb: str) -> list[int]:
    """The sites of the ``legal`` moves with ``verb``."""
    return [m.site for m in map(parse_move, legal) if m.verb == verb and m.site is not None]


def land_sites(view: View, legal: list[str], current: Any, locale: str) -> list[Choice[int]]:
    return site_choices(view, _sites(legal, "land"), current, locale)


def build_sites(view: View, legal: list[str], current: Any, locale: str, card: str | None,
                kind: str | None) -> list[Choice[str]]:
    """The sites for ``/santacruz build``: a pending double's builds, the chosen card's, or every card's.

    Each value is accepted as it is (:func:`build_site` reads it): a site's number where the card is known (a
    pending double, the chosen card, a double move's kind), and with no card chosen a move that carries its card
    ("ship 12"), so that picking "Ship · 12 · Church" alone plays it. A card that cannot build here gets no offers."""
    builds = _sites(legal, "build")
    if builds:  # a double move's next build: only with no card, or the double move, chosen
        return _as_text(site_choices(view, builds, current, locale)) if card in (None, "double") else []
    if card == "double":
        if kind not in SINGLE_BUILDS or Move("double", kind) not in map(parse_move, legal):
            return []
        return _as_text(site_choices(view, list(view["you"].get("build_sites", {}).get(kind, [])), current, locale))
    if card in SINGLE_BUILDS:
        return _as_text(site_choices(view, _sites(legal, card), current, locale))
    if card is not None or kind is not None:
        return []  # a card or kind the command refuses with no site: nothing to offer
    choices: list[Choice[str]] = []
    for single in SINGLE_BUILDS:
        prefix = t(f"game.card.{single}.short", locale) + SEP
        choices += [Choice(name=c.name, value=f"{single} {c.value}")
                    for c in site_choices(view, _sites(legal, single), current, locale, prefix)]
    return choices[:CHOICES_MAX]


def _as_text(choices: list[Choice[int]]) -> list[Choice[str]]:
    """Site choices for the ``build`` command's ``site`` option, which is text (it may carry a card)."""
    return [Choice(name=c.name, value=str(c.value)) for c in choices]


def build_site(site: str | None, card: str | None, locale: str) -> tuple[str | None, int | None]:
    """The card and site meant by ``/santacruz build``'s ``card`` and ``site`` options: ``site`` is a site's
    number, or a move that carries its card ("ship 12", as autocomplete offers it with no card chosen; "build 12"
    for a double move's build). A card in ``site`` that differs from ``card`` is refused, as is text naming no
    site."""
    if site is None:
        return card, None
    text = site.strip().lower()
    if text.isdigit():
        return card, int(text)
    try:
        move = parse_move(text)
    except IllegalMove:
        move = None
    if move is None or move.site is None or move.verb not in (*SINGLE_BUILDS, "build"):
        raise Refusal("bot.error.bad_value", value=esc(site))
    carried = move.verb if move.verb in SINGLE_BUILDS else None
    if carried is not None and card not in (None, carried):
        raise Refusal("bot.error.site_other_card", site_card=t(f"game.card.{carried}.one", locale),
                      card=t(f"game.card.{card}.one", locale))
    return card or carried, move.site


def score_cards(view: View, legal: list[str], current: str, locale: str) -> list[Choice[str]]:
    """The scoring cards the seat may score now (``legal``: none unless it is their turn), with what each would score
    now for the seat and the best other seat, and their text, that match what was typed."""
    typed = (current or "").strip().lower()
    choices = []
    playable = {m.card for m in map(parse_move, legal) if m.verb == "score"}
    now = scores_now(view) if playable else {}
    for card in dict.fromkeys(c for c in view["you"]["scoring_cards"] if c in playable):
        label = f"{score_label(view, card, locale, now)} — {scoring_text(card, locale)}"
        if typed and typed not in label.lower() and not card.startswith(typed):
            continue
        choices.append(Choice(name=clip(label, OPTION_MAX), value=card))
    return choices[:CHOICES_MAX]


def choose_options(view: View, legal: list[str], current: str, locale: str) -> list[Choice[str]]:
    """The sets, piles, discards and pass among ``legal`` that match what was typed."""
    typed = (current or "").strip().lower()
    choices = []
    for move in legal:
        if parse_move(move).verb not in CHOICE_VERBS:
            continue
        label = move_label(view, move, locale)
        detail = move_detail(view, move, locale)
        if detail:
            label = f"{label} — {detail}"
        if typed and typed not in label.lower() and not move.startswith(typed):
            continue
        choices.append(Choice(name=clip(label, OPTION_MAX), value=move))
    return choices[:CHOICES_MAX]


AUTOCOMPLETE_MAX: Final = 25
"""Discord shows at most 25 autocomplete choices."""


def time_zones(current: str) -> list[Choice[str]]:
    """The time zones (IANA names from the standard library) containing what the user typed, those starting with it
    first; with nothing typed, a few common ones."""
    typed = str(current or "").strip().lower().replace(" ", "_")
    names = time_zones_known()
    if not typed:
        return [Choice(name=n, value=n) for n in COMMON_ZONES if n in names][:AUTOCOMPLETE_MAX]
    starting = [n for n in names if n.lower().startswith(typed)]
    containing = [n for n in names if typed in n.lower() and n not in starting]
    return [Choice(name=n, value=n) for n in (starting + containing)[:AUTOCOMPLETE_MAX]]


COMMON_ZONES: Final = ("UTC", "Europe/London", "Europe/Berlin", "Europe/Paris", "Europe/Zurich", "Europe/Vienna",
                       "America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles",
                       "America/Sao_Paulo", "Asia/Tokyo", "Asia/Kolkata", "Australia/Sydney")
