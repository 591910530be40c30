"""The engine's precomputed tables and caches agree with the plain definitions they stand for.

The island's lookup tables (river reach, sites by kind, tiles by kind), the road groups, and the legal
moves the engine keeps between moves (after a landing or a double move's build, and shared by a clone)
are each compared with a straightforward computation from the state.
"""

from __future__ import annotations

import random

import pytest

from engine import Island, Move, default_island, new_game
from engine.cards import SITE_KINDS
from tests.helpers.engine import TINY


@pytest.mark.parametrize("island", [default_island(), TINY], ids=["default", "tiny"])
def test_the_island_tables_follow_from_its_sites_rivers_and_tiles(island: Island) -> None:
    for site in range(island.n_sites + 1):
        on_its_rivers: set[int] = set()
        for river in island.rivers_of[site]:
            on_its_rivers |= island.river_sites[river]
        assert island.river_reach[site] == on_its_rivers
    for kind in SITE_KINDS:
        assert island.site_set_of_kind[kind] == {s.id for s in island.sites if s.kind == kind}
        assert island.tile_ids_of_kind[kind] == tuple(t.id for t in island.tiles if t.kind == kind)
        assert list(island.tile_ids_of_kind[kind]) == sorted(island.tile_ids_of_kind[kind])
    assert island.river_site_set == {s.id for s in island.sites if s.rivers}


def reference_road_groups(island: Island, sites: set[int]) -> list[set[int]]:
    """Connected groups by repeated merging: slow and obviously right."""
    groups = [{s} for s in sites]
    merged = True
    while merged:
        merged = False
        for i in range(len(groups)):
            for j in range(i + 1, len(groups)):
                if any(b in island.road_nbrs[a] for a in groups[i] for b in groups[j]):
                    groups[i] |= groups.pop(j)
                    merged = True
                    break
            if merged:
                break
    return sorted(groups, key=min)


@pytest.mark.parametrize("seed", range(5))
def test_road_groups_are_the_connected_groups_in_the_order_of_their_lowest_site(seed: int) -> None:
    island = default_island()
    rng = random.Random(seed)
    for size in (0, 1, 4, 9, 16, 30, island.n_sites):
        sites = set(rng.sample(range(1, island.n_sites + 1), size))
        assert island.road_groups(sites) == reference_road_groups(island, sites)
        assert island.road_groups(frozenset(sites)) == reference_road_groups(island, sites)


@pytest.mark.parametrize(("n", "seed", "draft"), [(2, 31, False), (3, 32, True), (4, 33, False), (4, 34, True)])
def test_legal_moves_kept_between_moves_equal_fresh_ones(n: int, seed: int, draft: bool) -> None:
    game = new_game([f"P{i}" for i in range(n)], seed, draft=draft)
    rng = random.Random(seed)
    kept = 0
    while game.to_move is not None:
        if game._legal is not None:  # kept by the engine (landing, a double move, set-up) or by a clone
            kept += 1
            assert game._legal == game._generate()
        moves = game.legal_moves()
        copy = game.clone()
        assert copy.legal_moves() == moves
        copy.apply(moves[-1])  # playing on the clone leaves the game's moves as they were
        assert game.legal_moves() == moves
        game.apply(rng.choice(moves))
    assert kept > 0
    assert game.legal_moves() == [] and game._generate() == []


def test_a_clone_keeps_the_log_of_its_game_unchanged() -> None:
    game = new_game(["A", "B", "C"], 35)
    rng = random.Random(35)
    for _ in range(40):
        game.apply(rng.choice(game.legal_moves()))
    before = [dict(entry, scores=list(entry["scores"])) for entry in game.log]
    copy = game.clone()
    while copy.to_move is not None:
        copy.apply(copy.legal_moves()[0])
    assert game.log == before and len(copy.log) > len(before)
    assert all(isinstance(m, Move) for m in game.legal_moves())
