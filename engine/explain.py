"""Plain-words reasons why a move is not allowed now (the message of :class:`~engine.moves.IllegalMove`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.cards import BUILDINGS
from engine.moves import IllegalMove, Move, parse_move

if TYPE_CHECKING:
    from engine.game import Game

_PHASE_HINT = {
    "choose_set": "First each player chooses a building-card set, e.g. 'set B'.",
    "land": "Each player first lands: a building on a free coast site, e.g. 'land 12'.",
    "choose_pile": "Round 2 starts with choosing a pile of cards, e.g. 'pile 1'.",
    "discard": "Each player now discards one scoring card, e.g. 'discard birds'.",
}


def _sites(sites: list[int]) -> str:
    return ", ".join(str(s) for s in sites[:12]) + (" …" if len(sites) > 12 else "")


def why_illegal(game: Game, move: Move | str) -> str:
    if isinstance(move, str):
        try:
            move = parse_move(move)
        except IllegalMove as exc:
            return str(exc)
    if game.is_legal(move):
        return f"'{move}' is legal now."
    seat = game.to_move
    if seat is None:
        return "The game is over."
    phase, verb = game.phase, move.verb
    phase_of_verb = {"set": "choose_set", "land": "land", "pile": "choose_pile", "discard": "discard"}
    wanted = phase_of_verb.get(verb, "play")
    if wanted != phase:
        if phase in _PHASE_HINT:
            return _PHASE_HINT[phase]
        return {
            "choose_set": "Building-card sets are chosen only at the start of the game.",
            "land": "The landing is only at the start of a round.",
            "choose_pile": "Piles are chosen only at the start of round 2.",
            "discard": "Scoring cards are discarded only at the start of round 2.",
        }[wanted]
    if phase == "choose_set":
        return f"Set {move.arg} has already been taken."
    if phase == "choose_pile":
        if not any(p["id"] == move.arg for p in game.piles):
            return f"There is no pile {move.arg}; the piles are numbered 0 to {game.n - 1}."
        return f"Pile {move.arg} has already been taken."
    if phase == "discard":
        return f"You do not hold the scoring card '{move.arg}'."
    if phase == "land":
        return _site_problem(game, seat, int(move.arg), "land") or "You cannot land there."  # type: ignore[arg-type]
    # play phase
    pending = game.pending
    if pending is not None:
        if verb == "build":
            return (_site_problem(game, seat, int(move.arg), pending["card"])  # type: ignore[arg-type]
                    or "You cannot build there.")
        if verb == "pass":
            return "You can still build on a free site, so you must (double move)."
        return (f"Finish your double move first: build with 'build <site>' "
                f"({pending['builds_left']} build(s) of kind {pending['card']} left).")
    if verb == "build":
        return "'build' is only for the builds of a double move; play a card such as 'road 9'."
    if verb == "pass":
        return "There is nothing to pass: play one of your cards."
    if verb == "score":
        return f"You do not hold the scoring card '{move.arg}'."
    hand = game.hand_building[seat]
    if verb == "double":
        return "You have no double-move card left."
    if not hand[verb]:
        return f"You have no {verb} card left."
    free, _share = game.targets(seat, verb)
    if move.arg is None:
        return (f"You can build with this {verb} card, so you must: choose a site "
                f"(e.g. '{verb} {free[0]}'; possible: {_sites(free)}).")
    return _site_problem(game, seat, int(move.arg), verb) or f"You cannot build on site {move.arg}."


def _site_problem(game: Game, seat: int, site: int, kind: str) -> str | None:
    isl = game.island
    if not 1 <= site <= isl.n_sites:
        return f"There is no site {site}; the sites are numbered 1 to {isl.n_sites}."
    occ = game.occupants[site]
    if kind in ("land", "ship") and isl.kind[site] != "coast":
        what = "The landing" if kind == "land" else "A ship card"
        return f"Site {site} is not on the coast. {what} builds on a free coast site."
    if occ:
        if any(p == seat for p, _ in occ):
            return f"You already have a building on site {site}."
        if kind == "land":
            return f"Site {site} is already taken; the landing needs a free coast site."
        if game.share_seat != seat:
            last = game.turn_order[-1]
            if last == seat:
                return (f"Site {site} is already taken, and you have used your right to build beside another "
                        "player's building this round.")
            return (f"Site {site} is already taken. Only the round's last player may, once per round, build "
                    "beside another player's building.")
        if len(occ) > 1:
            return f"Site {site} already holds two buildings."
    if kind == "road":
        near = [s for s in game.owned[seat] if site in isl.road_nbrs[s]]
        if not near:
            return f"Site {site} is not one road segment away from any of your buildings."
    if kind == "river":
        mine = {r for s in game.owned[seat] for r in isl.rivers_of[s]}
        if not isl.rivers_of[site]:
            return f"Site {site} is not on a river."
        if not (mine & isl.rivers_of[site]):
            return f"Site {site} is on a river where you have no building yet."
    if game.revealed[site]:
        building = BUILDINGS[game.site_b[site]]
        if not game.supply[seat][game.site_b[site]]:
            return f"Site {site} needs a {building} and you have none left in your supply."
    return None
