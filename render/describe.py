"""What the last move did, from ``view["events"]`` (in a seat's picture asked with ``since``: every move since the
seat's own last one, ``view["you"]["since"]``): the sites and seats to mark, and its words.

Only the view is read. The words come from the one describer of events, :func:`i18n.describe_events`
(its short form), so the picture names cards and buildings as the channel does. A seat's own view may
carry its secrets (the value of the bird chip it took, the card it put back); the public view never
does, so nothing here can leak them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine import SINGLE_BUILDS, parse_move
from engine.types import View
from i18n import describe_events, t


@dataclass(slots=True)
class LastMove:
    """The marks and the words for the last move (or for every move since the seat's own last one)."""

    built: dict[int, int] = field(default_factory=dict)
    """Site -> seat that built there."""
    revealed: list[int] = field(default_factory=list)
    destroyed: list[int] = field(default_factory=list)
    deltas: dict[int, int] = field(default_factory=dict)
    """Seat -> points gained (or lost) by the move."""
    sentences: list[str] = field(default_factory=list)
    label: str = "render.last_move"
    """The catalogue key of the words' label: the last move, or every move since the seat's own last one."""


def legal_sites(view: View) -> list[int]:
    """The building sites named by the legal moves of a seat view (``view["you"]["legal_moves"]``), sorted.

    The public view has no legal moves: the result is empty.
    """
    sites: set[int] = set()
    for move in _legal_moves(view):
        site = parse_move(move).site
        if site is not None:
            sites.add(site)
    return sorted(sites)


def _legal_moves(view: View) -> list[str]:
    you = view.get("you")
    return you["legal_moves"] if you is not None else []


def card_name(card: str, locale: str) -> str:
    """A building card's name (``ship``, ``river``, ``road``, ``double``) inside a phrase."""
    return t(f"render.card.{card}", locale)


def scoring_name(card: str, locale: str) -> str:
    """A scoring card's name (``gold10``, ``river``…), the same as everywhere else."""
    return t(f"game.scoring.{card}.name", locale)


def names_of(view: View) -> list[str]:
    return [p["name"] for p in view["players"]]


def describe(view: View, locale: str) -> LastMove:
    """Read the last move's events (a seat's view with ``since``: those of every move since the seat's own last
    one): what to mark, and the short form of their words."""
    out = LastMove()
    you = view.get("you")
    since = you.get("since") if you is not None else None
    events = view["events"]
    if since is not None:
        events = [e for turn in since["turns"] for e in turn["events"]]
        out.label = "render.since_last"
    for e in events:
        if e["type"] == "build":
            out.built[e["site"]] = e["seat"]
        elif e["type"] == "reveal":
            out.revealed.append(e["site"])
        elif e["type"] == "destroy":
            out.destroyed.append(e["site"])
        elif e["type"] == "score":
            out.deltas[e["seat"]] = out.deltas.get(e["seat"], 0) + e["delta"]
    out.revealed = sorted(set(out.revealed))
    out.destroyed = sorted(set(out.destroyed))
    names = names_of(view)
    out.sentences = describe_events(events, locale, names, short=True)
    first = view["to_move"]
    if not out.sentences and not view["log"] and first is not None:
        out.sentences.append(start_words(view, locale))
    return out


def start_words(view: View, locale: str) -> str:
    """The first picture's words, in the rules' terms: the start player; in a drafted game, who chooses a set first
    and that the last to take one becomes the start player (the turn order the channel names begins with them)."""
    names = names_of(view)
    start = names[view["turn_order"][0]]
    first = view["to_move"]
    if view["phase"] == "choose_set" and first is not None:
        return t("render.ev.start_draft", locale, name=names[first], start=start)
    return t("render.ev.start", locale, name=start)


def other_moves(view: View, locale: str) -> list[str]:
    """The seat's legal moves that do not build on a site, in words (scoring cards, double move…)."""
    names = names_of(view)
    words: list[str] = []
    doubles: list[str] = []
    for text in _legal_moves(view):
        move = parse_move(text)
        verb = move.verb
        if move.site is not None:
            continue
        if verb == "score":
            words.append(t("render.move.score", locale, card=scoring_name(str(move.card), locale)))
        elif verb == "double":
            doubles.append(card_name(str(move.kind), locale))
        elif verb in SINGLE_BUILDS:
            words.append(t("render.move.no_site", locale, card=card_name(verb, locale)))
        elif verb == "pass":
            words.append(t("render.move.pass", locale))
        elif verb == "set":
            words.append(t("render.move.set", locale, set=move.letter))
        elif move.pile is not None:
            owner = names[move.pile] if move.pile < len(names) else move.pile
            words.append(t("render.move.pile", locale, owner=owner))
        elif verb == "discard":
            words.append(t("render.move.discard", locale, card=scoring_name(str(move.card), locale)))
    if doubles:
        words.append(t("render.move.double", locale, card=" / ".join(doubles)))
    return words
