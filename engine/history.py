"""What a game's moves did, for one seat or for all: the moves since a seat's own last move as that seat may know
them (:func:`since_last_move`, a seat view's ``you["since"]``), and where each seat's points came from
(:func:`score_breakdown`).

Each log entry holds the events its move caused (:mod:`engine.log`); nothing here is a rule of its own: an event is
seen as :func:`engine.log.seen_by` lets a seat see it, a site's use is :meth:`Game.targets`, a scoring card's points
are :meth:`Game.card_points`, points by reason :func:`engine.log.points_won`. What a seat could do before
its last move's followers is found on the game replayed to that move (:meth:`Game.at`, about a millisecond).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.cards import SINGLE_BUILDS
from engine.log import points_won, seen_by
from engine.moves import parse_move
from engine.types import CardChange, ScoreBreakdown, Since, SinceTurn, TakenSite

if TYPE_CHECKING:
    from engine.game import Game


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
    over = game.phase == "over"
    turns: list[SinceTurn] = []
    built: list[tuple[int, int]] = []
    for entry in game.log[start:]:
        move = entry["move"] if entry["seat"] == seat or not entry["move"].startswith("discard") else "discard"
        seen = [seen_by(e, seat, over) for e in entry["events"]]
        built += [(e["site"], e["seat"]) for e in seen if e["type"] == "build" and e["seat"] != seat]
        if turns and turns[-1]["seat"] == entry["seat"] and _double_step(move):
            turns[-1]["moves"].append(move)
            turns[-1]["events"].extend(seen)
        else:
            turns.append({"seat": entry["seat"], "moves": [move], "events": seen})
    held = game.hand_building[seat]
    kinds = [k for k in SINGLE_BUILDS if held[k] or held["double"]] if game.phase == "play" else []
    past = game.at(start) if turns and (kinds or game.hand_scoring[seat]) else game
    taken: list[TakenSite] = []
    for site, by in built:
        cards = [k for k in kinds if site in _usable(past, seat, k) and site not in _usable(game, seat, k)]
        if cards and all(t["site"] != site for t in taken):
            taken.append({"site": site, "seat": by, "cards": cards})
    then, now = _card_points(past, seat), _card_points(game, seat)
    changes: list[CardChange] = [{"card": card, "before": then[card], "now": points}
                                 for card, points in now.items() if card in then and then[card] != points]
    return {"turns": turns, "taken": taken, "cards": changes}


def _double_step(move: str) -> bool:
    """Whether a move is a double move's build or the pass that ends it: a step of the turn its card began."""
    return move != "discard" and parse_move(move).verb in ("build", "pass")


def _usable(game: Game, seat: int, kind: str) -> set[int]:
    """The sites where a ``kind`` card of ``seat`` builds in ``game`` (free, or shared with its share right)."""
    free, share = game.targets(seat, kind)
    return {*free, *share}


def _card_points(game: Game, seat: int) -> dict[str, int]:
    """What each scoring card in ``seat``'s hand would give it if played now (during landing and play)."""
    if game.phase not in ("land", "play"):
        return {}
    return {card: game.card_points(seat, card) for card in sorted(set(game.hand_scoring[seat]))}


def score_breakdown(game: Game) -> list[ScoreBreakdown]:
    """Per seat, where its points on the score track came from: the start, its buildings, each scoring card that
    moved its marker (its own and the others'), its bird chips; the parts add up to its score."""
    won = points_won(e for entry in game.log for e in entry["events"])
    parts: list[ScoreBreakdown] = []
    for seat in range(game.n):
        reasons = dict(won.get(seat, {}))
        buildings, birds = reasons.pop("build", 0), reasons.pop("bird_chips", 0)
        parts.append({"seat": seat, "start": game.score[seat] - buildings - birds - sum(reasons.values()),
                      "buildings": buildings, "cards": reasons, "birds": birds})
    return parts
