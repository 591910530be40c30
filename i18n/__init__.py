"""Message catalogues: every text a person sees, in English, German and French.

Catalogues are JSON files ``i18n/locales/<lang>/<domain>.json``, each a flat mapping from a key to a
``str.format`` template. Keys start with their domain (``game.``, ``render.``, ``bot.``, ``rules.``,
``commands.``), so that each file has one owner. :func:`t` looks a key up for a locale and fills in
the placeholders; a missing key in German or French falls back to English, a key missing everywhere
raises ``KeyError`` (tests make sure that never happens).

Counted phrases have two keys, ``<key>.one`` and ``<key>.other``; :func:`tn` picks the right one.
:func:`describe_events` and :func:`describe_move` turn the engine's events and move notation into
sentences; :func:`illegal_text` words why the engine refused a move (``game.illegal.<code>``).
``i18n/GLOSSARY.md`` documents the key scheme and the game's words.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any, Final

from engine import SCORING_CARD_IDS, SINGLE_BUILDS, IllegalMove, Move, parse_move

LOCALES: Final = ("en", "de", "fr")
DEFAULT_LOCALE: Final = "en"

RULE_TOPICS: Final = ("overview", "setup", "turn", "building", "scoring", "round2", "track", "end")
"""The topics of ``/santacruz rules``; each has ``rules.<topic>.title`` and ``rules.<topic>.text``."""


def normalize_locale(locale: object) -> str:
    """Map a Discord locale (``'de'``, ``'en-US'``, ``'fr'``, a ``discord.Locale``…) to ``en``, ``de`` or ``fr``."""
    text = str(getattr(locale, "value", locale) or "").lower().replace("_", "-")
    lang = text.split("-", 1)[0]
    return lang if lang in LOCALES else DEFAULT_LOCALE


@cache
def catalogue(locale: str) -> dict[str, str]:
    """All keys of one language, merged from its domain files."""
    merged: dict[str, str] = {}
    folder = resources.files("i18n").joinpath("locales", locale)
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            data = json.loads(entry.read_text(encoding="utf-8"))
            overlap = merged.keys() & data.keys()
            if overlap:
                raise ValueError(f"{locale}/{entry.name} repeats keys: {sorted(overlap)[:5]}")
            merged.update(data)
    return merged


def has(key: str) -> bool:
    """Whether ``key`` exists (in the English catalogue, which every language must match)."""
    return key in catalogue(DEFAULT_LOCALE)


def t(key: str, locale: object = DEFAULT_LOCALE, /, **values: Any) -> str:
    """The text for ``key`` in ``locale`` with ``values`` filled in."""
    lang = normalize_locale(locale)
    template = catalogue(lang).get(key)
    if template is None:
        template = catalogue(DEFAULT_LOCALE)[key]
    return template.format(**values) if values else template


def plural_form(count: int, locale: object = DEFAULT_LOCALE) -> str:
    """``'one'`` or ``'other'``: the plural category of ``count`` (French counts 0 and 1 as singular)."""
    n = abs(count)
    if normalize_locale(locale) == "fr":
        return "one" if n < 2 else "other"
    return "one" if n == 1 else "other"


def tn(key: str, count: int, locale: object = DEFAULT_LOCALE, /, **values: Any) -> str:
    """The text of ``<key>.one`` or ``<key>.other`` for ``count``; ``{count}`` is filled in too.

    ``tn("game.points", 1, "en")`` gives ``"1 point"``, ``tn("game.points", 3, "de")`` ``"3 Punkte"``.
    """
    return t(f"{key}.{plural_form(count, locale)}", locale, count=count, **values)


# ---------------------------------------------------------------------- engine events and moves in words


def _card_name(card: str, locale: object) -> str:
    return t(f"game.scoring.{card}.name", locale)


def _a_building(building: str, locale: object) -> str:
    return t(f"game.building.{building}.a", locale)


def describe_events(events: Iterable[Mapping[str, Any]], locale: object, names: Sequence[str]) -> list[str]:
    """One sentence per engine event (``game.apply(...)`` or ``view["events"]``), for a game log.

    ``names[seat]`` names each seat. A build and its build points become one sentence, so do the end
    bird chips and their points; neighbouring reveals are merged. The secret parts a seat's own view holds
    (a bird chip's value, a drawn or discarded card) are shown when present. Raises ``KeyError`` for an
    event type without a text (tests make sure there is none).
    """
    todo = list(events)
    lines: list[str] = []
    i = 0
    while i < len(todo):
        e = todo[i]
        kind = e["type"]
        nxt = todo[i + 1] if i + 1 < len(todo) else None
        seat = e.get("seat")
        player = names[seat] if isinstance(seat, int) else ""
        if kind in ("build", "birds"):
            reason = "build" if kind == "build" else "birds"
            points = 0
            if nxt and nxt["type"] == "score" and nxt["seat"] == seat and nxt["reason"] == reason:
                points = nxt["delta"]
                i += 1
            if kind == "build":
                key = "game.event.build_shared" if e.get("shared") else "game.event.build"
                lines.append(t(key, locale, player=player, a_building=_a_building(e["building"], locale),
                               site=e["site"], points=points))
            elif e["chips"]:
                chips = ", ".join(str(c) for c in e["chips"])
                lines.append(tn("game.event.birds", len(e["chips"]), locale, player=player, chips=chips,
                                points=points))
            else:
                lines.append(t("game.event.birds_none", locale, player=player))
        elif kind == "reveal":
            sites = [e["site"]]
            while i + 1 < len(todo) and todo[i + 1]["type"] == "reveal":
                i += 1
                sites.append(todo[i]["site"])
            if len(sites) == 1:
                lines.append(t("game.event.reveal", locale, site=sites[0]))
            else:
                lines.append(t("game.event.reveal_many", locale, sites=", ".join(map(str, sites))))
        elif kind == "score":
            delta, reason = e["delta"], e["reason"]
            if reason in ("build", "birds"):
                lines.append(tn(f"game.event.score.{reason}", delta, locale, player=player))
            else:
                key = "game.event.score.card" if delta >= 0 else "game.event.loss.card"
                lines.append(tn(key, abs(delta), locale, player=player, card=_card_name(reason, locale)))
        elif kind == "card":
            card = e["card"]
            if e.get("scoring"):
                lines.append(t("game.event.card.scoring", locale, player=player, card=_card_name(card, locale)))
            elif card == "double":
                lines.append(t(f"game.event.card.double_{e['kind']}", locale, player=player))
            else:
                lines.append(t(f"game.event.card.{card}", locale, player=player))
        elif kind == "bird":
            if "value" in e:
                lines.append(tn("game.event.bird_value", e["value"], locale, player=player))
            else:
                lines.append(t("game.event.bird", locale, player=player))
        elif kind == "no_build":
            values: dict[str, Any] = {"player": player}
            if e["reason"] == "supply":
                values.update(site=e["site"], a_building=_a_building(e["building"], locale))
            lines.append(t(f"game.event.no_build.{e['reason']}", locale, **values))
        elif kind == "destroy":
            lines.append(t("game.event.destroy", locale, player=player,
                           a_building=_a_building(e["building"], locale), site=e["site"]))
        elif kind == "set":
            key = "game.event.set_forced" if e.get("forced") else "game.event.set"
            lines.append(t(key, locale, player=player, set=e["set"],
                           set_name=t(f"game.set.{e['set']}.name", locale)))
        elif kind == "pile":
            key = "game.event.pile_forced" if e.get("forced") else "game.event.pile"
            lines.append(t(key, locale, player=player, pile=e["pile"], owner=names[e["pile"]]))
        elif kind in ("draw", "discard"):
            if "card" in e:
                lines.append(t(f"game.event.{kind}_card", locale, player=player, card=_card_name(e["card"], locale)))
            else:
                lines.append(t(f"game.event.{kind}", locale, player=player))
        elif kind == "round_end":
            lines.append(t("game.event.round_end", locale, round=e["round"]))
        elif kind == "game_over":
            lines.append(t("game.event.game_over", locale, winner=names[e["ranking"][0]]))
        else:
            lines.append(t(f"game.event.{kind}", locale, player=player))
        i += 1
    return lines


def describe_move(move: str | Move, locale: object, names: Sequence[str], seat: int) -> str:
    """A move in words, from its notation (``"ship 7"``, ``"score gold10"``, ``"discard"`` …) and its seat."""
    player = names[seat]
    if str(move).strip() == "discard":  # the public log hides which card was put back
        return t("game.move.discard", locale, player=player)
    m = parse_move(move) if isinstance(move, str) else move
    verb = m.verb
    if verb == "set":
        return t("game.move.set", locale, player=player, set=m.letter, set_name=t(f"game.set.{m.letter}.name", locale))
    if m.site is not None:
        return t(f"game.move.{verb}", locale, player=player, site=m.site)
    if verb in SINGLE_BUILDS:
        return t(f"game.move.{verb}_no_site", locale, player=player)
    if verb == "double":
        return t(f"game.move.double_{m.kind}", locale, player=player)
    if verb in ("score", "discard"):
        key = "game.move.score" if verb == "score" else "game.move.discard_card"
        return t(key, locale, player=player, card=_card_name(str(m.card), locale))
    if m.pile is not None:
        return t("game.move.pile", locale, player=player, pile=m.pile, owner=names[m.pile])
    return t(f"game.move.{verb}", locale, player=player)


def illegal_text(error: IllegalMove, locale: object, escape: Callable[[str], str] = str) -> str:
    """Why a move was refused (the engine's :class:`~engine.IllegalMove`), in the words of ``locale``.

    ``escape`` makes what the user typed harmless for the place the text is shown (e.g. Discord markdown).
    """
    values: dict[str, Any] = {}
    for name, value in error.params.items():
        values.update(_reason_words(name, value, locale, escape))
    return t(f"game.illegal.{error.code}", locale, **values)


_LIST_MAX: Final = 12
"""A reason lists at most this many sites or cards, then "…"."""


def _reason_words(name: str, value: Any, locale: object, escape: Callable[[str], str]) -> dict[str, Any]:
    """The placeholders of ``game.illegal.*`` that an :class:`~engine.IllegalMove` parameter fills."""
    if name == "card":  # a scoring card, or what the user typed instead of one
        card = str(value)
        return {"card": _card_name(card, locale) if card in SCORING_CARD_IDS else escape(card)}
    if name == "cards":
        return {"cards": _joined([_card_name(c, locale) for c in value])}
    if name == "kind":
        card = t(f"game.card.{value}.one", locale)
        return {"kind": t(f"game.card.{value}.short", locale),
                "kind_card": card if normalize_locale(locale) == "de" else card[:1].lower() + card[1:]}
    if name == "building":
        return {"a_building": _a_building(value, locale)}
    if isinstance(value, (list, tuple)):
        return {name: _joined([str(v) for v in value])}
    if isinstance(value, str) and name in ("text", "verb"):
        return {name: escape(value)}
    return {name: value}


def _joined(items: Sequence[str]) -> str:
    return ", ".join(items[:_LIST_MAX]) + (" …" if len(items) > _LIST_MAX else "")
