"""Small explicit positions for rule tests: a tiny island and helpers to lay its tiles by hand.

The tiny island (:data:`TINY`), tile ``i`` on site ``i`` (:func:`tiny_game`)::

    coast 1 (lighthouse 2, fish +2, bird) -road- land 5 (house 1, sheep) -road- land 6 (house 2, wood, bird)
    land 6 -road- land 7 (church 3, sheep+wood) -road- land 8 (house 1) -road- coast 2 (house 1, fish+1+sugar)
    land 6 -road- volcano 9 (house 3, gold) -road- volcano 10 (church 4, gold, bird)
    coast 3 (church 3) -road- coast 4 (house 2, sugar, bird)
    river 1: 3 ~ 7 ~ 10        river 2: 2 ~ 8 ~ 9
"""

from __future__ import annotations

from typing import Any

from engine import Game, Island, new_game


def tiny_island_data() -> dict[str, Any]:
    """Ten sites::

        coast 1 --road-- land 5 --road-- land 6 --road-- land 7 --road-- land 8 --road-- coast 2
                                           |                                            (river 2: 2~8~9)
                                         volcano 9 --road-- volcano 10
        coast 3 --road-- coast 4          river 1: 3~7~10
    """
    sites = [{"id": i, "kind": k, "island": "main", "pos": [i * 60, 100]}
             for i, k in enumerate(["coast"] * 4 + ["land"] * 4 + ["volcano"] * 2, start=1)]
    tiles = []
    specs = {  # tile id: (kind, building, points, resources, fish bonus, bird)
        1: ("coast", "lighthouse", 2, ["fish"], 2, True),
        2: ("coast", "house", 1, ["fish", "sugar"], 1, False),
        3: ("coast", "church", 3, [], 0, False),
        4: ("coast", "house", 2, ["sugar"], 0, True),
        5: ("land", "house", 1, ["sheep"], 0, False),
        6: ("land", "house", 2, ["wood"], 0, True),
        7: ("land", "church", 3, ["sheep", "wood"], 0, False),
        8: ("land", "house", 1, [], 0, False),
        9: ("volcano", "house", 3, ["gold"], 0, False),
        10: ("volcano", "church", 4, ["gold"], 0, True),
    }
    for tid, (kind, building, points, res, bonus, bird) in specs.items():
        tiles.append({"id": tid, "kind": kind, "building": building, "points": points,
                      "resources": res, "fish_bonus": bonus, "bird": bird})
    return {
        "name": "tiny",
        "size": [700, 200],
        "islands": [],
        "sites": sites,
        "roads": [[1, 5], [5, 6], [6, 7], [7, 8], [2, 8], [6, 9], [9, 10], [3, 4]],
        "rivers": [{"id": 1, "name": "short", "edges": [[3, 7], [7, 10]]},
                   {"id": 2, "name": "long", "edges": [[2, 8], [8, 9]]}],
        "tiles": tiles,
        "bird_chips": [1, 2, 3, 2, 1, 3],
    }


TINY = Island(tiny_island_data())


def tiny_game(n: int = 2, *, seed: int = 1, layout: dict[int, int] | None = None) -> Game:
    """A game on the tiny island with tile ``i`` on site ``i`` (or ``layout``), sets dealt by seed."""
    game = new_game([f"P{i}" for i in range(n)], seed, island=TINY)
    set_layout(game, layout or {i: i for i in range(1, 11)})
    return game


def set_layout(game: Game, layout: dict[int, int]) -> None:
    """Lay tiles by hand (site -> tile id) before anything is built."""
    for site, tile in layout.items():
        game.tile_at[site] = tile
    game._derive()
    game._legal = None


def play(game: Game, *moves: str) -> list[dict[str, Any]]:
    """Apply moves in order and return the events of the last one."""
    events: list[dict[str, Any]] = []
    for move in moves:
        events = game.apply(move)
    return events


def arranged(
    n: int = 2,
    *,
    start: int = 0,
    sets: tuple[str, ...] = ("A", "B", "C", "D"),
    scoring: list[list[str]] | None = None,
    chips: list[int] | None = None,
    layout: dict[int, int] | None = None,
) -> Game:
    """A tiny-island game before the landing with a chosen start player, sets, hands and chip pile.

    ``chips`` are drawn from the end of the list (the last value is drawn first).
    """
    from engine.cards import START_SCORES

    game = tiny_game(n, layout=layout)
    game.turn_order = [(start + i) % n for i in range(n)]
    game.share_seat = game.turn_order[-1]
    for pos, seat in enumerate(game.turn_order):
        game.score[seat] = START_SCORES[pos]
        game.stamp[seat] = pos + 1
    game._stamps = n
    for seat in range(n):
        game._take_set(seat, sets[seat])
    if scoring is not None:
        game.hand_scoring = [list(h) for h in scoring]
    if chips is not None:
        game.chips = list(chips)
    game._legal = None
    return game


def put(game: Game, seat: int, *sites: int) -> None:
    """Stand ``seat``'s buildings on ``sites`` directly (for scoring positions), revealing the tiles."""
    from engine.cards import BUILDINGS

    for site in sites:
        b = game.site_b[site]
        game.revealed[site] = True
        game.occupants[site].append((seat, b))
        game.owned[seat].add(site)
        game.supply[seat][b] -= 1
        assert game.supply[seat][b] >= 0, f"no {BUILDINGS[b]} left"
    game._legal = None


def legal(game: Game) -> list[str]:
    return [str(m) for m in game.legal_moves()]
