"""What a game's web page shows, as one JSON document per view (public, or a seat's own), in the viewer's language.

The page draws itself from this document alone (``static/page.js``), and so could a Discord Activity next: the
server answers ``/g/<token>/state.json`` with :func:`public_document` and a seat's link with the same and its
:func:`seat_block` under ``you``; the offline demo writes one document per position into its page
(``bot.web.static_site``). Every word comes from the message catalogues (``web.*``, and the game's own ``game.*``:
moves, events, cards, as the bot says them), in the language the viewer's browser asks for
(:func:`viewer_locale`: English, German or French).

Only views go in: the public view (``Game.view(None)``) for everything a public document says, the seat's own view
for ``you``; so a document holds no hand, no face-down tile and no bird chip that its reader may not see. Names are
shown as typed, each inside a bidirectional isolate so that a right-to-left override in a name cannot turn the words
around it; the page sets every text as text (never as HTML), and :func:`shown_name` caps marks stacked on one
letter.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Final, Protocol

from babel.dates import format_datetime

from bot.host.web import Page
from engine import BUILDING_CARDS, SINGLE_BUILDS, LogEntry, View, parse_move
from engine.log import built, points_won
from i18n import LOCALES, describe_move, listed, normalize_locale, t, tn
from render.theme import DEFAULT_THEME

ISOLATES: Final = re.compile("[\u2066-\u2069]")
"""The bidirectional isolate controls, taken out of a name before it is isolated (one could end the isolate)."""
MOST_MARKS: Final = 4
"""Combining marks kept on one letter of a name (enough for every script's own; a pile more would spill over lines)."""
_QUALITY: Final = re.compile(r"^\s*([A-Za-z]{1,8})(?:-[A-Za-z0-9]{1,8})*\s*(?:;\s*q\s*=\s*([0-9.]{1,5}))?\s*$")


class Urls(Protocol):
    """Where a page finds what it shows: the board of a position, a seat's own picture, the live updates."""

    def board(self, page: Page, at: int, locale: str) -> str: ...

    def personal(self, page: Page, locale: str) -> str | None: ...

    def state(self) -> str | None: ...

    def events(self) -> str | None: ...

    def hint(self) -> str | None: ...


def viewer_locale(accept_language: str | None) -> str:
    """The language a browser asks for (``Accept-Language``, by quality), among English, German and French; English
    when it asks for none of them."""
    best, best_q = "en", -1.0
    for number, part in enumerate((accept_language or "")[:400].split(",")[:20]):
        match = _QUALITY.match(part)
        if match is None:
            continue
        lang = match.group(1).lower()
        try:
            q = float(match.group(2)) if match.group(2) else 1.0
        except ValueError:
            continue
        if lang in LOCALES and q > 0 and (q, -number) > (best_q, 0):
            best, best_q = lang, q
    return best


def shown_name(name: str) -> str:
    """A name as the page shows it: as typed, without isolate controls, with at most :data:`MOST_MARKS` combining
    marks on one letter, and never empty."""
    out: list[str] = []
    marks = 0
    for char in ISOLATES.sub("", name):
        if unicodedata.combining(char):
            marks += 1
            if marks > MOST_MARKS:
                continue
        else:
            marks = 0
        out.append(char)
    return "".join(out).strip() or "?"


def isolated(name: str) -> str:
    """A name for the inside of a sentence: in a first-strong isolate (U+2068 … U+2069)."""
    return f"\u2068{shown_name(name)}\u2069"


def labels(locale: str) -> dict[str, str]:
    """The page's fixed words (headings, buttons, help), for the template."""
    keys = {
        "lang": t("web.lang", locale), "heading": t("web.heading", locale),
        "players": t("web.players.title", locale), "played": t("web.played.title", locale),
        "log": t("web.log.title", locale), "replay": t("web.replay.title", locale),
        "slider": t("web.replay.slider", locale), "previous": t("web.replay.previous", locale),
        "next": t("web.replay.next", locale), "now": t("web.replay.now", locale),
        "live_on": t("web.live.on", locale), "live_waiting": t("web.live.waiting", locale),
        "live_ended": t("web.live.ended", locale), "live_moved": t("web.live.moved", locale),
        "zoom_in": t("web.zoom.in", locale), "zoom_out": t("web.zoom.out", locale),
        "zoom_fit": t("web.zoom.fit", locale), "zoom_help": t("web.zoom.help", locale),
        "public_note": t("web.public.note", locale), "noscript": t("web.noscript", locale),
        "coach": t("web.coach.title", locale), "coach_thinking": t("web.coach.thinking", locale),
        "scoring_title": t("web.you.scoring_title", locale), "builds_title": t("web.you.builds_title", locale),
        "demo": t("web.demo.note", locale),
    }
    return keys


def colour(seat: int) -> tuple[str, str]:
    """A seat's colour and the ink drawn on it, as the pictures give them (``#rrggbb``)."""
    return _hex(DEFAULT_THEME.player(seat)), _hex(DEFAULT_THEME.ink(seat))


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def signed(number: int) -> str:
    """A change of points with its sign: "+6", "0", "−2" (a true minus sign)."""
    return f"+{number}" if number > 0 else f"−{-number}" if number < 0 else "0"


# ---------------------------------------------------------------------- the public document


def public_document(page: Page, view: View | None, at: int, locale: str, urls: Urls, *,
                    last: View | None = None) -> dict[str, Any]:
    """The public page's document of position ``at`` (``view``: the public view there; ``None`` for a lobby).
    ``last``: the public view of the latest position, whose log is the whole game's (default ``view``)."""
    names = [s.name for s in page.seats] if view is None else [p["name"] for p in view["players"]]
    doc: dict[str, Any] = {
        "view": "public", "lang": locale, "status": page.status, "live": page.status in ("lobby", "running"),
        "version": page.version, "positions": page.positions, "at": at,
        "title": t("web.title", locale, players=listed([isolated(n) for n in names], locale)),
        "players_line": listed([isolated(n) for n in names], locale),
        "state": urls.state(), "events": urls.events(),
    }
    if view is None:
        doc.update(turn=t("web.status.lobby", locale), phase="", position="", board=None, played=[], log=[], scores="",
                   result=[], players=[_lobby_player(page, seat, locale) for seat in range(len(page.seats))])
        return doc
    whole = last if last is not None else view
    doc.update(
        turn=status_line(page, view, locale),
        phase=_phase(view, locale),
        position=position_text(at, page.positions, locale),
        board={"src": urls.board(page, at, locale), "alt": t("web.board.alt", locale,
                                                              position=position_text(at, page.positions, locale))},
        players=[_player(page, view, seat, locale) for seat in range(len(view["players"]))],
        scores=scores_text(view, locale),
        played=played_lines(view["log"], names, locale),
        log=log_items(whole["log"], names, locale),
        result=result_lines(view, locale) if view["phase"] == "over" else [],
    )
    return doc


def status_line(page: Page, view: View, locale: str) -> str:
    """Whose turn it is at the view's position, or how the game ended."""
    names = [p["name"] for p in view["players"]]
    if view["phase"] == "over":
        winner = view["winner"] if view["winner"] is not None else view["ranking"][0]
        return t("web.status.over", locale, player=isolated(names[winner]),
                 points=tn("game.points", view["players"][winner]["score"], locale))
    if page.status == "abandoned":
        return t("web.status.abandoned", locale)
    seat = view["to_move"]
    if seat is None:
        return _phase(view, locale)
    away = seat < len(page.seats) and page.seats[seat].away
    return t("web.status.turn_away" if away else "web.status.turn", locale, player=isolated(names[seat]))


def _phase(view: View, locale: str) -> str:
    return " · ".join([t("game.round", locale, round=view["round"]), t(f"game.phase.{view['phase']}", locale)])


def position_text(at: int, count: int, locale: str) -> str:
    """"Move 12 of 40", or before the first move."""
    return t("web.replay.position", locale, at=at, count=count) if at else t("web.replay.setup", locale)


def scores_text(view: View, locale: str) -> str:
    """The scores, the highest first ("Ada 45, Bo 40 and Cy 12"), for a link's description."""
    players = sorted(view["players"], key=lambda p: p["rank"])
    return listed([f"{isolated(p['name'])} {p['score']}" for p in players], locale)


def _lobby_player(page: Page, seat: int, locale: str) -> dict[str, Any]:
    info = page.seats[seat]
    ground, ink = colour(seat)
    return {"seat": seat, "name": shown_name(info.name), "colour": ground, "ink": ink,
            "letter": DEFAULT_THEME.marks([s.name for s in page.seats])[seat], "tags": _tags(page, seat, locale),
            "score": "", "to_move": False, "lines": []}


def _tags(page: Page, seat: int, locale: str) -> list[str]:
    if seat >= len(page.seats):
        return []
    info = page.seats[seat]
    tags = [t("web.player.computer", locale)] if info.computer else []
    if info.away:
        tags.append(t("web.player.away", locale))
    if info.former:
        tags.append(t("web.player.former", locale, names=listed([isolated(n) for n in info.former], locale)))
    return tags


def _player(page: Page, view: View, seat: int, locale: str) -> dict[str, Any]:
    """One seat's card as the board's panel shows it: its colour and letter, score and place, the building cards
    it holds (everyone counts them), how many scoring cards it holds, its bird chips, the scoring cards it played."""
    p = view["players"][seat]
    ground, ink = colour(seat)
    held = [tn(f"game.count.card.{c}", p["building_cards"][c], locale) for c in BUILDING_CARDS
            if p["building_cards"].get(c)]
    lines = [t("web.player.building_cards", locale,
               cards=listed(held, locale) if held else t("web.player.no_cards", locale)),
             tn("web.player.scoring_cards", p["scoring_cards_in_hand"], locale)]
    chips = p.get("bird_chips")
    if chips:
        lines.append(t("web.player.chips", locale, chips=" + ".join(map(str, chips)),
                       points=tn("game.points", sum(chips), locale)))
    else:
        lines.append(tn("web.player.birds", p["birds"], locale))
    if p["played_scoring_cards"]:
        lines.append(t("web.player.played", locale, cards=listed(
            [t(f"game.scoring.{c}.name", locale) for c in p["played_scoring_cards"]], locale)))
    return {"seat": seat, "name": shown_name(p["name"]), "colour": ground, "ink": ink,
            "letter": DEFAULT_THEME.marks([q["name"] for q in view["players"]])[seat],
            "tags": _tags(page, seat, locale), "to_move": view["to_move"] == seat and view["phase"] != "over",
            "score": t("web.player.score", locale, points=tn("game.points", p["score"], locale), rank=p["rank"]),
            "lines": lines}


def _changes(entry: LogEntry, names: Sequence[str]) -> list[str]:
    """The points a logged move gave beyond its words (a scoring card's, for everyone), "Ada +6"."""
    won = points_won(entry["events"])
    return [f"{isolated(names[seat])} {signed(delta)}" for seat, reasons in sorted(won.items())
            if (delta := sum(d for reason, d in reasons.items() if reason not in ("build", "bird_chips")))]


def played_lines(log: Sequence[LogEntry], names: Sequence[str], locale: str) -> list[str]:
    """Every scoring card played so far, by whom, with what it gave each player."""
    lines = []
    for entry in log:
        if entry["move"] == "discard":
            continue
        move = parse_move(entry["move"])
        if move.verb != "score":
            continue
        card, player = t(f"game.scoring.{move.card}.name", locale), isolated(names[entry["seat"]])
        changes = _changes(entry, names)
        if changes:
            lines.append(t("web.played.line", locale, card=card, player=player, changes=listed(changes, locale)))
        else:
            lines.append(t("web.played.no_points", locale, card=card, player=player))
    return lines or [t("web.played.none", locale)]


def log_items(log: Sequence[LogEntry], names: Sequence[str], locale: str) -> list[dict[str, Any]]:
    """The moves in words, each with its number (the position it leads to), under a heading per round, with the
    scores after round 1."""
    shown = [isolated(n) for n in names]
    items: list[dict[str, Any]] = []
    current = 0
    for index, entry in enumerate(log):
        played_in = int(log[index - 1]["round"]) if index else 1
        if played_in != current:
            if current:
                scores = log[index - 1]["scores"]
                order = sorted(range(len(scores)), key=lambda s: -scores[s])
                items.append({"note": t("web.log.scores", locale, round=current, scores=listed(
                    [f"{shown[s]} {scores[s]}" for s in order], locale))})
            current = played_in
            items.append({"heading": t("game.round", locale, round=current)})
        seat = entry["seat"]
        said = describe_move(entry["move"], locale, shown, seat, built=built(entry["events"], seat))
        changes = _changes(entry, names)
        if changes:
            said = t("web.log.points", locale, move=said, changes=listed(changes, locale))
        items.append({"n": index + 1, "seat": seat, "text": said})
    if not log:
        items.append({"note": t("web.log.empty", locale)})
    return items


def result_lines(view: View, locale: str) -> list[str]:
    """A finished game's places: "1. Ada: 120 points (bird chips 2 + 3)"."""
    lines = []
    for place, seat in enumerate(view["ranking"], start=1):
        p = view["players"][seat]
        lines.append(f"{place}. {isolated(p['name'])}: {tn('game.points', p['score'], locale)}")
    return lines


# ---------------------------------------------------------------------- a seat's own view


def seat_block(page: Page, view: View, expires: int, locale: str, urls: Urls, *, may_ask: bool) -> dict[str, Any]:
    """What only the seat's own link shows, from that seat's view: its building cards, its scoring cards with their
    text and what each would score now, its bird chips, where each of its cards builds now (on its turn), the coach
    (``may_ask``: the game has hints on and it is the seat's turn; the coach's own checks decide again)."""
    you = view["you"]
    seat = you["seat"]
    me = view["players"][seat]
    names = [p["name"] for p in view["players"]]
    held = [tn(f"game.count.card.{c}", me["building_cards"][c], locale) for c in BUILDING_CARDS
            if me["building_cards"].get(c)]
    now = {entry["card"]: entry for entry in you["cards_now"]}  # as the seat's own view counts them now
    scoring = []
    for card in you["scoring_cards"]:
        entry = now.get(card)
        said = None
        if entry is not None and entry["other"] is not None:
            said = t("web.you.now", locale, points=signed(entry["points"]), other=isolated(names[entry["other"]]),
                     other_points=signed(entry["other_points"]))
        elif entry is not None:
            said = t("web.you.now_alone", locale, points=signed(entry["points"]))
        scoring.append({"name": t(f"game.scoring.{card}.name", locale), "text": t(f"game.scoring.{card}.text", locale),
                        "now": said})
    chips = you["bird_chips"]
    block: dict[str, Any] = {
        "seat": seat,
        "title": t("web.you.title", locale, name=isolated(names[seat])),
        "private": t("web.you.private", locale, until=_when(expires, locale)),
        "building_cards": t("web.you.building_cards", locale,
                            cards=listed(held, locale) if held else t("web.player.no_cards", locale)),
        "scoring": scoring,
        "scoring_none": None if scoring else t("web.you.scoring_none", locale),
        "chips": (t("web.you.chips", locale, chips=listed(chips, locale), points=tn("game.points", sum(chips), locale))
                  if chips else t("web.you.no_chips", locale)),
        "builds": builds_lines(view, locale),
        "discarded": (t("web.you.discarded", locale, card=t(f"game.scoring.{you['discarded']}.name", locale))
                      if you.get("discarded") else None),
        "board": {"src": urls.personal(page, locale),
                  "alt": t("web.board.alt", locale, position=position_text(page.positions, page.positions, locale))},
        "coach": _coach(page, view, locale, urls, may_ask),
    }
    return block


def builds_lines(view: View, locale: str) -> list[str]:
    """Where each of the seat's building cards builds now ("Ship: 1, 5 and 9"), on its turn in the play phase;
    else the one line saying it comes then; nothing once the game is over."""
    you = view["you"]
    if view["phase"] == "over":
        return []
    sites = you.get("build_sites")
    if sites is None:
        return [t("web.you.builds_later", locale)]
    held = view["players"][you["seat"]]["building_cards"]
    lines = [t("web.you.builds_card", locale, card=t(f"game.card.{card}.short", locale),
               sites=listed(sites.get(card, []), locale) or t("web.you.builds_nowhere", locale))
             for card in SINGLE_BUILDS if held.get(card)]
    return lines or [t("web.you.builds_later", locale)]


def _coach(page: Page, view: View, locale: str, urls: Urls, may_ask: bool) -> dict[str, Any]:
    if view["phase"] == "over" or page.status != "running":
        return {"text": "", "ask": None, "url": None}
    if not page.hints:
        return {"text": t("web.coach.off", locale), "ask": None, "url": None}
    if not may_ask:
        return {"text": t("web.coach.later", locale), "ask": None, "url": None}
    return {"text": "", "ask": t("web.coach.ask", locale), "url": urls.hint()}


def _when(seconds: int, locale: str) -> str:
    """A moment in the reader's language (UTC): "7 Mar 2026, 14:05:00"."""
    cldr = {"en": "en_GB", "de": "de_DE", "fr": "fr_FR"}[normalize_locale(locale)]
    return format_datetime(datetime.fromtimestamp(seconds, UTC), "medium", tzinfo=UTC, locale=cldr)
