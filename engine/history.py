"""What the moves of a game did, replayed from its deal: the moves since a seat's own last move as that seat may
know them (:func:`since_last_move`, a seat view's ``you["since"]``), and where each seat's points came from
(:func:`score_breakdown`).

The engine keeps only the last move's events; what earlier moves did is found by replaying the log (a whole game
replays in about a millisecond). Nothing here is a rule of its own: the events are the engine's, a site's use is
:meth:`Game.targets`, a scoring card's points are :func:`engine.cards_now.card_now`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from engine.cards import SINGLE_BUILDS
from engine.types import CardChange, Event, ScoreBreakdown, Since, SinceTurn, TakenSite

if TYPE_CHECKING:
    from engine.game import Game


def seat_event(event: dict[str, Any], seat: int | None) -> Event:
    """An engine event as ``seat`` may know it: without its secret part, unless the secret is that seat's own."""
    out = {k: v for k, v in event.items() if k != "secret"}
    if seat is not None and event.get("seat") == seat and "secret" in event:
        out.update(event["secret"])
    return cast(Event, out)  # the engine's event dicts are made to these shapes (engine/types.py)


def last_move_of(game: Game, seat: int) -> int:
    """The number of moves in the log up to and including ``seat``'s last one (0 when it has not moved yet)."""
    log = game.log
    return next((i + 1 for i in range(len(log) - 1, -1, -1) if log[i]["seat"] == seat), 0)


def since_last_move(game: Game, seat: int) -> Since:
    """Every move made since ``seat``'s own last move (since the start when it has not moved yet), grouped into
    turns (a double move's card and its builds are one turn), with their events as ``seat`` may know them; and
    what those moves changed for ``seat``: in the play phase, the sites others took that a building card it holds
    could have used then and cannot now (``taken``), and the scoring cards in its hand now worth a different number
    of points (``cards``: before, now)."""
    start = last_move_of(game, seat)
    past = game.at(start)
    held = game.hand_building[seat]
    kinds = [k for k in SINGLE_BUILDS if held[k] or held["double"]] if game.phase == "play" else []
    usable_then = {k: _usable(past, seat, k) for k in kinds}
    cards_then = _card_points(past, seat)
    turns: list[SinceTurn] = []
    built: list[tuple[int, int]] = []
    replayed = past
    log = game.log
    for index in range(start, len(log)):
        entry = log[index]
        continues = replayed.pending is not None and bool(turns) and turns[-1]["seat"] == entry["seat"]
        replayed.apply(entry["move"])
        events = replayed.events
        move = entry["move"] if entry["seat"] == seat or not entry["move"].startswith("discard") else "discard"
        seen = [seat_event(e, seat) for e in events]
        built += [(e["site"], e["seat"]) for e in seen if e["type"] == "build" and e["seat"] != seat]
        if continues:
            turns[-1]["moves"].append(move)
            turns[-1]["events"].extend(seen)
        else:
            turns.append({"seat": entry["seat"], "moves": [move], "events": seen})
    taken: list[TakenSite] = []
    for site, by in built:
        cards = [k for k in kinds if site in usable_then[k] and site not in _usable(game, seat, k)]
        if cards and all(t["site"] != site for t in taken):
            taken.append({"site": site, "seat": by, "cards": cards})
    now = _card_points(game, seat)
    changes: list[CardChange] = [{"card": card, "before": cards_then[card], "now": points}
                                 for card, points in now.items() if card in cards_then and cards_then[card] != points]
    return {"turns": turns, "taken": taken, "cards": changes}


def _usable(game: Game, seat: int, kind: str) -> set[int]:
    """The sites where a ``kind`` card of ``seat`` builds in ``game`` (free, or shared with its share right)."""
    free, share = game.targets(seat, kind)
    return {*free, *share}


def _card_points(game: Game, seat: int) -> dict[str, int]:
    """What each scoring card in ``seat``'s hand would give it if played now (during landing and play)."""
    if game.phase not in ("land", "play"):
        return {}
    from engine.cards_now import card_now  # engine.cards_now reaches engine.ai, which needs the whole engine

    return {card: card_now(game, seat, card).points for card in sorted(set(game.hand_scoring[seat]))}


def score_breakdown(game: Game) -> list[ScoreBreakdown]:
    """Per seat, where its points on the score track came from: the start, its buildings, each scoring card that
    moved its marker (its own and the others'), its bird chips; the parts add up to its score."""
    replayed = game.at(0)
    parts: list[ScoreBreakdown] = [{"seat": p, "start": replayed.score[p], "buildings": 0, "cards": {}, "birds": 0}
                                   for p in range(game.n)]
    for _, move in game.moves:
        replayed.apply(move)
        shown: int | None = None  # the seat whose bird chips were just shown at the end
        for e in replayed.events:
            if e["type"] == "birds":
                shown = e["seat"]
            if e["type"] != "score":
                continue
            part, reason, delta = parts[e["seat"]], e["reason"], e["delta"]
            if reason == "build":
                part["buildings"] += delta
            elif reason == "birds" and shown == e["seat"]:  # not the scoring card "birds", whose id is the same
                part["birds"] += delta
            else:
                part["cards"][reason] = part["cards"].get(reason, 0) + delta
    return parts
