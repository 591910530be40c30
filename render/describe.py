"""What the last move did, from ``view["events"]``: sentences for the picture and the sites to mark.

Only the view is read. A seat's own view may carry its secrets (the value of the bird chip it took,
the card it put back); the public view never does, so nothing here can leak them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine import SINGLE_BUILDS, parse_move
from i18n import t


@dataclass(slots=True)
class LastMove:
    """The marks and the words for the last move."""

    built: dict[int, int] = field(default_factory=dict)
    """Site -> seat that built there."""
    revealed: list[int] = field(default_factory=list)
    destroyed: list[int] = field(default_factory=list)
    deltas: dict[int, int] = field(default_factory=dict)
    """Seat -> points gained (or lost) by the move."""
    sentences: list[str] = field(default_factory=list)


def legal_sites(view: dict[str, Any]) -> list[int]:
    """The building sites named by the legal moves of a seat view (``view["you"]["legal_moves"]``), sorted.

    The public view has no legal moves: the result is empty.
    """
    sites: set[int] = set()
    for move in (view.get("you") or {}).get("legal_moves", []):
        site = parse_move(move).site
        if site is not None:
            sites.add(site)
    return sorted(sites)


def card_name(card: str, locale: str) -> str:
    """A building card's name (``ship``, ``river``, ``road``, ``double``)."""
    return t(f"render.card.{card}", locale)


def scoring_name(card: str, locale: str) -> str:
    """A scoring card's name (``gold10``, ``river``…)."""
    return t(f"render.scoring.{card}", locale)


def names_of(view: dict[str, Any]) -> list[str]:
    return [p["name"] for p in view["players"]]


def _sites(sites: list[int]) -> str:
    return ", ".join(str(s) for s in sites)


def describe(view: dict[str, Any], locale: str) -> LastMove:
    """Read the last move's events."""
    out = LastMove()
    names = names_of(view)
    you = view.get("seat")
    say = out.sentences
    drew = False
    for e in view.get("events", []):
        kind = e.get("type")
        seat = e.get("seat")
        name = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else ""
        if kind == "set":
            say.append(t("render.ev.set_forced" if e.get("forced") else "render.ev.set", locale, name=name,
                         set=e.get("set")))
        elif kind == "pile":
            pile = e.get("pile")
            owner = names[pile] if isinstance(pile, int) and 0 <= pile < len(names) else str(pile)
            say.append(t("render.ev.pile", locale, name=name, owner=owner))
        elif kind == "discard":
            if seat == you and "card" in e:
                say.append(t("render.ev.discard_you", locale, card=scoring_name(e["card"], locale)))
            else:
                say.append(t("render.ev.discard", locale, name=name))
        elif kind == "card":
            card = e.get("card", "")
            if e.get("scoring"):
                say.append(t("render.ev.scoring", locale, name=name, card=scoring_name(card, locale)))
            elif card == "double":
                say.append(t("render.ev.double", locale, name=name, card=card_name(e.get("kind") or "", locale)))
            else:
                say.append(t("render.ev.card", locale, name=name, card=card_name(card, locale)))
        elif kind == "build":
            site = int(e["site"])
            out.built[site] = int(seat)  # type: ignore[arg-type]
            building = t(f"render.building.{e.get('building')}", locale)
            key = "render.ev.build_shared" if e.get("shared") else "render.ev.build"
            say.append(t(key, locale, name=name, building=building, site=site))
        elif kind == "no_build":
            if e.get("reason") == "supply":
                building = t(f"render.building.{e.get('building')}", locale)
                say.append(t("render.ev.no_build_supply", locale, name=name, building=building, site=e.get("site")))
            else:
                say.append(t("render.ev.no_build", locale, name=name))
        elif kind == "bird":
            if seat == you and "value" in e:
                say.append(t("render.ev.bird_you", locale, value=e["value"]))
            else:
                say.append(t("render.ev.bird", locale, name=name))
        elif kind == "reveal":
            out.revealed.append(int(e["site"]))
        elif kind == "destroy":
            out.destroyed.append(int(e["site"]))
        elif kind == "score":
            out.deltas[int(seat)] = out.deltas.get(int(seat), 0) + int(e.get("delta", 0))  # type: ignore[arg-type]
        elif kind == "pass":
            say.append(t("render.ev.pass", locale, name=name))
        elif kind == "round_end":
            say.append(t("render.ev.round_end", locale, n=e.get("round", 1)))
        elif kind == "draw":
            if seat == you and "card" in e:
                say.append(t("render.ev.draw_you", locale, card=scoring_name(e["card"], locale)))
            elif not drew:
                say.append(t("render.ev.draw", locale))
            drew = True
        elif kind == "birds":
            chips = e.get("chips") or []
            if chips:
                say.append(t("render.ev.birds", locale, name=name, chips=" + ".join(str(c) for c in chips),
                             total=sum(chips)))
        elif kind == "game_over":
            ranking = e.get("ranking") or view.get("ranking") or []
            if ranking:
                say.append(t("render.ev.game_over", locale, name=names[ranking[0]]))
    if out.revealed:
        out.revealed = sorted(set(out.revealed))
        say.append(t("render.ev.reveal", locale, sites=_sites(out.revealed)))
    if out.destroyed:
        out.destroyed = sorted(set(out.destroyed))
        say.append(t("render.ev.destroy", locale, sites=_sites(out.destroyed)))
    if out.deltas:
        parts = [f"{names[s]} {d:+d}" for s, d in sorted(out.deltas.items(), key=lambda x: x[0]) if d]
        if parts:
            say.append(t("render.ev.points", locale, list=", ".join(parts)))
    if not say and not view.get("log"):
        first = view.get("to_move")
        if isinstance(first, int):
            say.append(t("render.ev.start", locale, name=names[first]))
    return out


def other_moves(view: dict[str, Any], locale: str) -> list[str]:
    """The seat's legal moves that do not build on a site, in words (scoring cards, double move…)."""
    names = names_of(view)
    words: list[str] = []
    doubles: list[str] = []
    for text in (view.get("you") or {}).get("legal_moves", []):
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
