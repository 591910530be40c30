"""The one door for information: :func:`make_view` turns a game into what one seat (or everyone) may know.

Everything shown to people (pictures, messages, computer players) is made from this dict. A view never
holds another seat's scoring cards or bird-chip values, a face-down tile's contents, the scoring-card
deck's order, the bird chips' order or the round-2 discards of others. Bird-chip values become public
once the game is over. The log says what each move did (its events), told the same way as the last move's
(:func:`engine.log.seen_by`). A seat's view says what each of its scoring cards would score now
(:meth:`engine.Game.card_now`), so that nobody needs the whole game to tell it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from engine.cards import BUILDING_CARDS, BUILDING_SETS, BUILDINGS, SINGLE_BUILDS
from engine.history import since_last_move
from engine.log import seen_by
from engine.types import (
    BoardView,
    Event,
    LogEntry,
    Pending,
    PileView,
    PlayerView,
    RiverView,
    SetChoice,
    SiteView,
    View,
    YouView,
)

if TYPE_CHECKING:
    from engine.game import Game

VIEW_VERSION = 1
_copy = dict.copy


def make_view(game: Game, seat: int | None, *, since: bool = False) -> View:
    """What ``seat`` (``None``: everyone) may know about ``game`` now; see :class:`engine.types.View`. ``since``: a
    seat's view also holds what happened since its own last move (:func:`engine.history.since_last_move`)."""
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < game.n):
        raise ValueError(f"there is no seat {seat!r} in this game")
    isl = game.island
    over = game.phase == "over"
    ranking = game.ranking()
    rank = {p: i + 1 for i, p in enumerate(ranking)}
    sites: list[SiteView] = []
    for site in isl.sites:
        s = site.id
        tile = game.site_tile[s]
        occupants = game.occupants[s]
        sites.append({
            "id": s,
            "kind": site.kind,
            "island": site.island,
            "pos": list(site.pos),
            "roads": list(site.roads),
            "rivers": list(site.rivers),
            "tile": {
                "building": tile.building,
                "points": tile.points,
                "resources": list(tile.resources),
                "fish_bonus": tile.fish_bonus,
                "bird": tile.bird,
            } if game.revealed[s] else None,
            "buildings": [{"seat": p, "type": BUILDINGS[b]} for p, b in occupants] if occupants else [],
        })
    rivers: list[RiverView] = [{
        "id": r["id"],
        "name": r.get("name", ""),
        "edges": [list(e) for e in r["edges"]],
        "source": r.get("source"),
        "mouth": r.get("mouth"),
    } for r in isl.data["rivers"]]
    players: list[PlayerView] = []
    for p in range(game.n):
        owned = game.owned[p]
        held = sorted({r for s in owned for r in game.site_tile[s].resources})
        player: PlayerView = {
            "seat": p,
            "name": game.names[p],
            "score": game.score[p],
            "laps": game.score[p] // 50,
            "track": game.score[p] % 50,
            "rank": rank[p],
            "supply": dict(zip(BUILDINGS, game.supply[p], strict=True)),
            "destroyed": dict(zip(BUILDINGS, game.destroyed[p], strict=True)),
            "building_set": game.set_of[p],
            "building_cards": {k: game.hand_building[p][k] for k in BUILDING_CARDS},
            "scoring_cards_in_hand": len(game.hand_scoring[p]),
            "played_building_cards": list(game.played_building[p]),
            "played_scoring_cards": list(game.played_scoring[p]),
            "birds": len(game.birds[p]),
            "can_share": game.share_seat == p and game.phase in ("land", "play"),
            "resources": held,
            "buildings_on_board": len(owned),
        }
        if over:
            player["bird_chips"] = list(game.birds[p])
        players.append(player)
    events = [seen_by(e, seat, over) for e in game.events]
    # A view's log holds every event of the game: those without a secret part (most) are copied without a call.
    log: list[LogEntry] = [{
        "seat": entry["seat"],
        "move": "discard" if entry["seat"] != seat and entry["move"].startswith("discard") else entry["move"],
        "round": entry["round"],
        "scores": entry["scores"].copy(),
        "events": cast(list[Event], [_copy(e) if "secret" not in e else seen_by(e, seat, over)
                                     for e in entry["events"]]),
    } for entry in game.log]
    # The island's static part (name, size, outlines, roads) is its own data, shaped as BoardView declares.
    board = cast(BoardView, {**isl.public_dict(), "rivers": rivers, "sites": sites})
    view: View = {
        "version": VIEW_VERSION,
        "seat": seat,
        "round": game.round,
        "phase": game.phase,
        "to_move": game.to_move,
        "turn_order": list(game.turn_order),
        "pending": cast(Pending, dict(game.pending)) if game.pending else None,
        "board": board,
        "players": players,
        "ranking": ranking,
        "scoring_deck": len(game.deck),
        "bird_chips_left": len(game.chips),
        "events": events,
        "log": log,
        "winner": ranking[0] if over else None,
    }
    if game.phase == "choose_set":
        taken = {x for x in game.set_of if x}
        view["sets"] = [SetChoice({"set": x, "building_cards": dict(BUILDING_SETS[x]), "taken": x in taken})
                        for x in sorted(BUILDING_SETS)]
        view["choosing_order"] = list(game.order)
    if game.round == 2 and game.piles:
        view["piles"] = [PileView({
            "id": pile["id"],
            "set": pile["set"],
            "building_cards": dict(BUILDING_SETS[pile["set"]]),
            "scoring_cards": list(pile["scoring_cards"]),
            "taken_by": pile["taken_by"],
        }) for pile in game.piles]
        if game.phase in ("choose_pile", "discard"):
            view["choosing_order"] = list(game.order)
    if game.phase == "discard":
        view["discarded"] = [p for p in range(game.n) if game.discarded[p] is not None]
    if seat is not None:
        hand = sorted(game.hand_scoring[seat])
        you: YouView = {
            "seat": seat,
            "scoring_cards": hand,
            # Counted on the game itself: a card counts buildings, their tiles and how many bird chips a seat holds.
            "cards_now": [game.card_now(seat, card) for card in hand] if game.phase in ("land", "play") else [],
            "bird_chips": list(game.birds[seat]),
            "legal_moves": [str(m) for m in game.legal_moves()] if game.to_move == seat else [],
        }
        if game.to_move == seat and game.phase == "play" and game.pending is None:
            # Where each kind of build could go now (free and shared sites), whether or not the seat holds
            # such a card: tells in advance whether a double move of that kind will build.
            build_sites: dict[str, list[int]] = {}
            for kind in SINGLE_BUILDS:
                free, share = game.targets(seat, kind)
                build_sites[kind] = sorted(free + share)
            you["build_sites"] = build_sites
        discarded = game.discarded[seat]
        if discarded is not None:
            you["discarded"] = discarded
        if since:
            you["since"] = since_last_move(game, seat)
        view["you"] = you
    return view

