"""Message catalogues: every text a person sees, in English, German and French.

Catalogues are JSON files ``i18n/locales/<lang>/<domain>.json``, each a flat mapping from a key to a
``str.format`` template. Keys start with their domain (``game.``, ``render.``, ``bot.``, ``rules.``,
``commands.``), so that each file has one owner. :func:`t` looks a key up for a locale and fills in
the placeholders; a missing key in German or French falls back to English, a key missing everywhere
raises ``KeyError`` (tests make sure that never happens).

Counted phrases have two keys, ``<key>.one`` and ``<key>.other``; :func:`tn` picks the right one.
:func:`describe_events` (the one describer of events: a long form for the channel, a short one for the
picture) and :func:`describe_move` turn the engine's events and move notation into sentences;
:func:`illegal_text` words why the engine refused a move (``game.illegal.<code>``).
Numbers and lists follow the locale's own rules (CLDR, through Babel): :func:`percent` ("45%", „45 %“,
« 45 % »), :func:`decimal` ("1.5", „1,5“) and :func:`listed` ("3, 7 and 12", „3, 7 und 12“, « 3, 7 et 12 »).
``i18n/GLOSSARY.md`` documents the key scheme and the game's words.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from importlib import resources
from typing import Any, Final

from babel.lists import format_list
from babel.numbers import format_decimal, format_percent

from engine import SCORING_CARD_IDS, SINGLE_BUILDS, IllegalMove, Move, parse_move
from engine.types import Event

LOCALES: Final = ("en", "de", "fr")
DEFAULT_LOCALE: Final = "en"

RULE_TOPICS: Final = ("overview", "setup", "turn", "building", "scoring", "round2", "track", "end", "pictures")
"""The topics of ``/santacruz rules``; each has ``rules.<topic>.title`` and ``rules.<topic>.text``."""


_CLDR: Final = {"en": "en_GB", "de": "de_DE", "fr": "fr_FR"}
"""The CLDR locale whose number and list rules each language follows (the English texts are British English: no
comma before "and")."""


def normalize_locale(locale: object) -> str:
    """Map a Discord locale (``'de'``, ``'en-US'``, ``'fr'``, a ``discord.Locale``…) to ``en``, ``de`` or ``fr``."""
    text = str(getattr(locale, "value", locale) or "").lower().replace("_", "-")
    lang = text.split("-", 1)[0]
    return lang if lang in LOCALES else DEFAULT_LOCALE


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys stand once each (``json`` would silently keep the last of a repeated key)."""
    keys = [key for key, _ in pairs]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise ValueError(f"keys written twice: {repeated[:5]}")
    return dict(pairs)


@cache
def catalogue(locale: str) -> dict[str, str]:
    """All keys of one language, merged from its domain files."""
    merged: dict[str, str] = {}
    folder = resources.files("i18n").joinpath("locales", locale)
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            data = json.loads(entry.read_text(encoding="utf-8"), object_pairs_hook=_once_each)
            overlap = merged.keys() & data.keys()
            if overlap:
                raise ValueError(f"{locale}/{entry.name} repeats keys: {sorted(overlap)[:5]}")
            merged.update(data)
    return merged


def has(key: str) -> bool:
    """Whether ``key`` exists (in the English catalogue, which every language must match)."""
    return key in catalogue(DEFAULT_LOCALE)


def t(key: str, locale: object = DEFAULT_LOCALE, /, **values: Any) -> str:
    """The text for ``key`` in ``locale`` with ``values`` filled in.

    A counted key (one with ``.one`` and ``.other`` forms and no text of its own) read with a ``count`` value
    picks its form as :func:`tn` does: ``t("bot.reply.joined", "en", count=1)``.
    """
    lang = normalize_locale(locale)
    if "count" in values and key not in catalogue(DEFAULT_LOCALE) and f"{key}.one" in catalogue(DEFAULT_LOCALE):
        key = f"{key}.{plural_form(values['count'], lang)}"
    template = catalogue(lang).get(key)
    if template is None:
        template = catalogue(DEFAULT_LOCALE)[key]
    return template.format(**values) if values else template


def plural_form(count: float, locale: object = DEFAULT_LOCALE) -> str:
    """``'one'`` or ``'other'``: the plural category of ``count`` (French counts 0 and 1 as singular, and any
    number below 2: « 1,5 heure »)."""
    n = abs(count)
    if normalize_locale(locale) == "fr":
        return "one" if n < 2 else "other"
    return "one" if n == 1 else "other"


def tn(key: str, count: float, locale: object = DEFAULT_LOCALE, /, **values: Any) -> str:
    """The text of ``<key>.one`` or ``<key>.other`` for ``count``; ``{count}`` is filled in too.

    ``tn("game.points", 1, "en")`` gives ``"1 point"``, ``tn("game.points", 3, "de")`` ``"3 Punkte"``.
    """
    shown = f"{count:g}" if isinstance(count, float) else count  # 1.5 hours, 14 days (never "14.0")
    return t(f"{key}.{plural_form(count, locale)}", locale, count=shown, **values)


# ---------------------------------------------------------------------- engine events and moves in words


def _card_name(card: str, locale: object) -> str:
    return t(f"game.scoring.{card}.name", locale)


def _a_building(building: str, locale: object) -> str:
    return t(f"game.building.{building}.a", locale)


def _player(names: Sequence[str], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) else ""


_POINTS_OF: Final = {"build": "build", "birds": "bird_chips"}
"""The reason of the score event that follows a build or the bird chips revealed at the end (merged with them)."""


def describe_events(events: Iterable[Event], locale: object, names: Sequence[str], *, short: bool = False) -> list[str]:
    """The engine's events (``game.apply(...)`` or ``view["events"]``) in words: the one describer.

    ``names[seat]`` names each seat; cards and buildings are named alike in both forms.

    - the long form (default) is the channel's log: one sentence per event (``game.event.*``); a build and
      its build points become one sentence, so do the end bird chips and their points; neighbouring reveals
      are merged.
    - ``short=True`` is the picture's summary of the last move (``game.short.*``): what each player did, then
      the revealed sites, the destroyed sites and the points, each gathered into one sentence.

    The secret parts a seat's own view holds (a bird chip's value, a drawn or discarded card) are shown when
    present (the short form says "you": only that seat's view has them).
    """
    todo = list(events)
    return _short_lines(todo, locale, names) if short else _long_lines(todo, locale, names)


def _long_lines(todo: list[Event], locale: object, names: Sequence[str]) -> list[str]:
    lines: list[str] = []
    i = 0
    while i < len(todo):
        e = todo[i]
        nxt = todo[i + 1] if i + 1 < len(todo) else None
        if e["type"] == "build" or e["type"] == "birds":
            player = _player(names, e["seat"])
            points = 0
            if nxt and nxt["type"] == "score" and nxt["seat"] == e["seat"] and nxt["reason"] == _POINTS_OF[e["type"]]:
                points = nxt["delta"]
                i += 1
            if e["type"] == "build":
                key = "game.event.build_shared" if e.get("shared") else "game.event.build"
                lines.append(t(key, locale, player=player, a_building=_a_building(e["building"], locale),
                               site=e["site"], points=points))
            elif e["chips"]:
                chips = listed(e["chips"], locale)
                lines.append(tn("game.event.birds", len(e["chips"]), locale, player=player, chips=chips,
                                points=points))
            else:
                lines.append(t("game.event.birds_none", locale, player=player))
        elif e["type"] == "reveal":
            sites = [e["site"]]
            while i + 1 < len(todo) and (following := todo[i + 1])["type"] == "reveal":
                i += 1
                sites.append(following["site"])
            if len(sites) == 1:
                lines.append(t("game.event.reveal", locale, site=sites[0]))
            else:
                lines.append(t("game.event.reveal_many", locale, sites=listed(sites, locale)))
        else:
            lines.append(_long_line(e, locale, names))
        i += 1
    return lines


def _long_line(e: Event, locale: object, names: Sequence[str]) -> str:
    """The sentence of one event that merges with none of its neighbours."""
    if e["type"] == "score":
        player, delta, reason = _player(names, e["seat"]), e["delta"], e["reason"]
        if reason == "build":  # the end's bird chips (reason bird_chips) are said with their reveal (_long_lines)
            return tn("game.event.score.build", delta, locale, player=player)
        key = "game.event.score.card" if delta >= 0 else "game.event.loss.card"
        return tn(key, abs(delta), locale, player=player, card=_card_name(reason, locale))
    if e["type"] == "card":
        player, card = _player(names, e["seat"]), e["card"]
        if e.get("scoring"):
            return t("game.event.card.scoring", locale, player=player, card=_card_name(card, locale))
        if card == "double":
            return t(f"game.event.card.double_{e.get('kind')}", locale, player=player)
        return t(f"game.event.card.{card}", locale, player=player)
    if e["type"] == "bird":
        player = _player(names, e["seat"])
        if "value" in e:
            return tn("game.event.bird_value", e["value"], locale, player=player)
        return t("game.event.bird", locale, player=player)
    if e["type"] == "no_build":
        player = _player(names, e["seat"])
        if e["reason"] == "supply":
            return t("game.event.no_build.supply", locale, player=player, site=e.get("site"),
                     a_building=_a_building(e.get("building", ""), locale))
        return t("game.event.no_build.no_site", locale, player=player)
    if e["type"] == "destroy":
        return t("game.event.destroy", locale, player=_player(names, e["seat"]),
                 a_building=_a_building(e["building"], locale), site=e["site"])
    if e["type"] == "set":
        key = "game.event.set_forced" if e.get("forced") else "game.event.set"
        return t(key, locale, player=_player(names, e["seat"]), set=e["set"],
                 set_name=t(f"game.set.{e['set']}.name", locale))
    if e["type"] == "pile":
        own = "_own" if e["pile"] == e["seat"] else ""  # one's own round-1 cards back
        key = f"game.event.pile{own}_forced" if e.get("forced") else f"game.event.pile{own}"
        return t(key, locale, player=_player(names, e["seat"]), pile=e["pile"], owner=_player(names, e["pile"]))
    if e["type"] == "draw" or e["type"] == "discard":
        player = _player(names, e["seat"])
        if "card" in e:
            return t(f"game.event.{e['type']}_card", locale, player=player, card=_card_name(e["card"], locale))
        return t(f"game.event.{e['type']}", locale, player=player)
    if e["type"] == "round_end":
        return t("game.event.round_end", locale, round=e["round"])
    if e["type"] == "game_over":
        return t("game.event.game_over", locale, winner=_player(names, e["ranking"][0]))
    if e["type"] == "pass":
        return t("game.event.pass", locale, player=_player(names, e["seat"]))
    # build, birds and reveal merge with their neighbours (_long_lines); a new event type needs a text
    raise KeyError(f"game.event.{e['type']}")


def _short_lines(todo: list[Event], locale: object, names: Sequence[str]) -> list[str]:
    lines: list[str] = []
    revealed: set[int] = set()
    destroyed: set[int] = set()
    deltas: dict[int, int] = {}
    drew = False
    for e in todo:
        if e["type"] == "reveal":
            revealed.add(e["site"])
        elif e["type"] == "destroy":
            destroyed.add(e["site"])
        elif e["type"] == "score":
            deltas[e["seat"]] = deltas.get(e["seat"], 0) + e["delta"]
        elif e["type"] == "draw" and "card" not in e:
            if not drew:
                lines.append(t("game.short.draw", locale))
            drew = True
        elif e["type"] == "birds" and not e["chips"]:
            continue
        else:
            lines.append(_short_line(e, locale, names))
    if revealed:
        lines.append(tn("game.short.reveal", len(revealed), locale, sites=listed(sorted(revealed), locale)))
    if destroyed:
        lines.append(tn("game.short.destroy", len(destroyed), locale, sites=listed(sorted(destroyed), locale)))
    points = [f"{_player(names, seat)} {'+' if delta > 0 else '−'}{abs(delta)}"  # a true minus sign
              for seat, delta in sorted(deltas.items()) if delta]
    if points:
        lines.append(t("game.short.points", locale, list=listed(points, locale)))
    return lines


def _short_line(e: Event, locale: object, names: Sequence[str]) -> str:
    """The picture's sentence for one event that is not gathered with others."""
    if e["type"] == "card":
        player, card = _player(names, e["seat"]), e["card"]
        if e.get("scoring"):
            return t("game.short.card.scoring", locale, player=player, card=_card_name(card, locale))
        if card == "double":
            return t(f"game.short.card.double_{e.get('kind')}", locale, player=player)
        return t(f"game.short.card.{card}", locale, player=player)
    if e["type"] == "build":
        key = "game.short.build_shared" if e.get("shared") else "game.short.build"
        return t(key, locale, player=_player(names, e["seat"]), site=e["site"],
                 building=t(f"game.building.{e['building']}.one", locale))
    if e["type"] == "no_build":
        player = _player(names, e["seat"])
        if e["reason"] == "supply":
            return t("game.short.no_build_supply", locale, player=player, site=e.get("site"),
                     building=t(f"game.building.{e.get('building')}.one", locale))
        return t("game.short.no_build", locale, player=player)
    if e["type"] == "bird":
        if "value" in e:
            return t("game.short.bird_value", locale, value=e["value"])
        return t("game.short.bird", locale, player=_player(names, e["seat"]))
    if e["type"] == "set":
        key = "game.short.set_forced" if e.get("forced") else "game.short.set"
        return t(key, locale, player=_player(names, e["seat"]), set=e["set"])
    if e["type"] == "pile":
        key = "game.short.pile_own" if e["pile"] == e["seat"] else "game.short.pile"
        return t(key, locale, player=_player(names, e["seat"]), owner=_player(names, e["pile"]))
    if e["type"] == "draw" or e["type"] == "discard":
        if "card" in e:
            return t(f"game.short.{e['type']}_card", locale, card=_card_name(e["card"], locale))
        return t(f"game.short.{e['type']}", locale, player=_player(names, e["seat"]))
    if e["type"] == "birds":
        return t("game.short.birds", locale, player=_player(names, e["seat"]),
                 chips=" + ".join(str(c) for c in e["chips"]), total=sum(e["chips"]))
    if e["type"] == "round_end":
        return t("game.short.round_end", locale, round=e["round"])
    if e["type"] == "game_over":
        return t("game.short.game_over", locale, player=_player(names, e["ranking"][0]))
    if e["type"] == "pass":
        return t("game.short.pass", locale, player=_player(names, e["seat"]))
    # reveal, destroy and score are gathered by _short_lines; a new event type needs a text
    raise KeyError(f"game.short.{e['type']}")


def describe_move(move: str | Move, locale: object, names: Sequence[str], seat: int, *,
                  built: tuple[str, int, bool] | None = None, you: bool = False) -> str:
    """A move in words, from its notation (``"ship 7"``, ``"score gold10"``, ``"discard"`` …) and its seat.

    ``built`` (the building, its points, whether beside another player's: the share right) for a move that built on
    its site: then the build is said in the channel's words ("… and builds a lighthouse on site 10 (+2)",
    ``game.move.<verb>_built`` around ``game.move.built`` or ``built_shared``). ``you``: said to the mover, in the
    second person ("You land and build a lighthouse on site 10 (+2)": ``game.you.*``)."""
    player = names[seat]
    said = "game.you" if you else "game.move"
    if str(move).strip() == "discard":  # the public log hides which card was put back
        return t(f"{said}.discard", locale, player=player)
    m = parse_move(move) if isinstance(move, str) else move
    if m.site is not None and built is not None:
        building, points, shared = built
        words = t(f"{said}.built_shared" if shared else f"{said}.built", locale, site=m.site,
                  a_building=_a_building(building, locale), points=points)
        return t(f"{said}.{m.verb}_built", locale, player=player, built=words)
    kind, values = _move_words(m, locale, names, seat)
    return t(f"{said}.{kind}", locale, player=player, **values)


def ask_move(move: str | Move, locale: object, names: Sequence[str], seat: int | None = None) -> str:
    """A move of one's own as a question to oneself, before it is played ("Land on site 12?", "Play the scoring
    card “Lighthouses”?"): ``game.ask.<kind>``, the same kinds as :func:`describe_move`'s; ``seat``, the mover's
    (taking back one's own round-1 cards is said so)."""
    kind, values = _move_words(parse_move(move) if isinstance(move, str) else move, locale, names, seat)
    return t(f"game.ask.{kind}", locale, **values)


def _move_words(m: Move, locale: object, names: Sequence[str], seat: int | None) -> tuple[str, dict[str, Any]]:
    """Which text a move is said with (``ship``, ``ship_no_site``, ``double_road``, ``discard_card``, ``pile_own``
    …) and the values it names, whoever says it (``seat``: the mover's, when known)."""
    verb = m.verb
    if verb == "set":
        return "set", {"set": m.letter, "set_name": t(f"game.set.{m.letter}.name", locale)}
    if m.site is not None:
        return verb, {"site": m.site}
    if verb in SINGLE_BUILDS:
        return f"{verb}_no_site", {}
    if verb == "double":
        return f"double_{m.kind}", {}
    if verb in ("score", "discard"):
        return ("score" if verb == "score" else "discard_card"), {"card": _card_name(str(m.card), locale)}
    if m.pile is not None:
        return ("pile_own" if m.pile == seat else "pile"), {"pile": m.pile, "owner": names[m.pile]}
    return verb, {}


def illegal_text(error: IllegalMove, locale: object, escape: Callable[[str], str] = str) -> str:
    """Why a move was refused (the engine's :class:`~engine.IllegalMove`), in the words of ``locale``.

    ``escape`` makes what the user typed harmless for the place the text is shown (e.g. Discord markdown).
    """
    values: dict[str, Any] = {}
    for name, value in error.params.items():
        values.update(_reason_words(name, value, locale, escape))
    return t(f"game.illegal.{error.code}", locale, **values)


_LIST_MAX: Final = 12
"""A reason names at most this many sites or cards, then counts the rest ("and 4 more")."""


def _reason_words(name: str, value: Any, locale: object, escape: Callable[[str], str]) -> dict[str, Any]:
    """The placeholders of ``game.illegal.*`` that an :class:`~engine.IllegalMove` parameter fills."""
    if name == "card":  # a scoring card, or what the user typed instead of one
        card = str(value)
        return {"card": _card_name(card, locale) if card in SCORING_CARD_IDS else escape(card)}
    if name == "cards":
        return {"cards": listed([_card_name(c, locale) for c in value], locale, most=_LIST_MAX)}
    if name == "kind":
        card = t(f"game.card.{value}.one", locale)
        return {"kind": t(f"game.card.{value}.short", locale),
                "kind_card": card if normalize_locale(locale) == "de" else card[:1].lower() + card[1:]}
    if name == "building":
        return {"a_building": _a_building(value, locale)}
    if isinstance(value, (list, tuple)):
        return {name: listed([str(v) for v in value], locale, most=_LIST_MAX)}
    if isinstance(value, str) and name in ("text", "verb"):
        return {name: escape(value)}
    return {name: value}


def listed(items: Sequence[object], locale: object, *, most: int | None = None, choice: bool = False) -> str:
    """Items named in a sentence, joined by the locale's rules: "12", "12 and 14", "3, 7 and 12" („und“, « et »);
    with ``choice``, alternatives: "3, 7 or 12" („oder“, « ou »).

    ``most``: name at most that many, the rest counted ("3, 7, 12 and 4 more")."""
    words = [str(item) for item in items]
    if most is not None and len(words) > most:
        rest = len(words) - (most - 1)
        words = [*words[:most - 1], tn("game.more", rest, locale)]
    cldr = _CLDR[normalize_locale(locale)]
    return format_list(words, style="or" if choice else "standard", locale=cldr) if words else ""


def percent(share: float, locale: object) -> str:
    """A share (0.45) as a whole percentage by the locale's rules: "45%", „45 %“, « 45 % » (no-break spaces)."""
    return format_percent(share, locale=_CLDR[normalize_locale(locale)])


def decimal(value: float, locale: object, *, digits: int = 1) -> str:
    """A number with at most ``digits`` decimals by the locale's rules ("1.5", „1,5“, "12"), and a true minus
    sign ("−1.5")."""
    pattern = "#,##0" + ("." + "#" * digits if digits > 0 else "")
    shown = format_decimal(value, format=pattern, locale=_CLDR[normalize_locale(locale)])
    return shown.replace("-", "\u2212")
