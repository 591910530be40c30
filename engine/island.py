"""The island as data: building sites, roads, rivers, tiles and bird chips, loaded from ``data/island.json``.

:class:`Island` is immutable and holds the board's topology in the shapes the rules engine needs
(road neighbours, river membership, which sites a build reveals). The JSON file is the only source;
``ISLAND.md`` explains its design.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from engine.cards import BUILDINGS, RESOURCES, SITE_KINDS


@dataclass(frozen=True, slots=True)
class Tile:
    """A tile as printed: the building that must stand on it, its build points and what it shows."""

    id: int
    kind: str
    building: str
    points: int
    resources: tuple[str, ...]
    fish_bonus: int
    bird: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "building": self.building,
            "points": self.points,
            "resources": list(self.resources),
            "fish_bonus": self.fish_bonus,
            "bird": self.bird,
        }


@dataclass(frozen=True, slots=True)
class Site:
    """A building site on the board."""

    id: int
    kind: str
    island: str
    pos: tuple[float, float]
    roads: tuple[int, ...]
    """Sites one road segment away."""
    rivers: tuple[int, ...]
    """Ids of the rivers this site lies on."""


class Island:
    """The board: sites (ids ``1..n``), roads, rivers, the tiles in the box and the bird chips."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.name: str = data.get("name", "island")
        raw_sites = sorted(data["sites"], key=lambda s: s["id"])
        ids = [s["id"] for s in raw_sites]
        if ids != list(range(1, len(ids) + 1)):
            raise ValueError("site ids must be 1..n")
        n = len(ids)
        self.n_sites = n
        road_nbrs: list[set[int]] = [set() for _ in range(n + 1)]
        for a, b in data["roads"]:
            if a == b or not (1 <= a <= n and 1 <= b <= n):
                raise ValueError(f"bad road {a}-{b}")
            road_nbrs[a].add(b)
            road_nbrs[b].add(a)
        site_rivers: list[set[int]] = [set() for _ in range(n + 1)]
        river_nbrs: list[set[int]] = [set() for _ in range(n + 1)]
        self.river_ids: tuple[int, ...] = tuple(r["id"] for r in data["rivers"])
        river_sites: dict[int, frozenset[int]] = {}
        for river in data["rivers"]:
            members: set[int] = set()
            for a, b in river["edges"]:
                members.update((a, b))
                river_nbrs[a].add(b)
                river_nbrs[b].add(a)
            for s in members:
                site_rivers[s].add(river["id"])
            river_sites[river["id"]] = frozenset(members)
        self.river_sites = river_sites
        for s in raw_sites:
            if s["kind"] not in SITE_KINDS:
                raise ValueError(f"site {s['id']}: unknown kind {s['kind']!r}")
        self.sites: tuple[Site, ...] = tuple(
            Site(
                id=s["id"],
                kind=s["kind"],
                island=s.get("island", "main"),
                pos=(float(s["pos"][0]), float(s["pos"][1])) if "pos" in s else (0.0, 0.0),
                roads=tuple(sorted(road_nbrs[s["id"]])),
                rivers=tuple(sorted(site_rivers[s["id"]])),
            )
            for s in raw_sites
        )
        # Index 0 is unused so that site ids index these tuples directly.
        self.kind: tuple[str, ...] = ("", *tuple(s.kind for s in self.sites))
        self.road_nbrs: tuple[frozenset[int], ...] = tuple(frozenset(x) for x in road_nbrs)
        self.rivers_of: tuple[frozenset[int], ...] = tuple(frozenset(x) for x in site_rivers)
        self.on_river: tuple[bool, ...] = tuple(bool(x) for x in site_rivers)
        self.reveal_nbrs: tuple[tuple[int, ...], ...] = tuple(
            tuple(sorted(road_nbrs[i] | river_nbrs[i])) for i in range(n + 1)
        )
        self.river_reach: tuple[frozenset[int], ...] = tuple(
            frozenset().union(*(river_sites[r] for r in site_rivers[i])) for i in range(n + 1)
        )
        """Per site, every site on one of its rivers (itself included): where a river card may go from it."""
        self.coast_sites: tuple[int, ...] = tuple(s.id for s in self.sites if s.kind == "coast")
        self.sites_of_kind: dict[str, tuple[int, ...]] = {
            k: tuple(s.id for s in self.sites if s.kind == k) for k in SITE_KINDS
        }
        self.site_set_of_kind: dict[str, frozenset[int]] = {k: frozenset(v) for k, v in self.sites_of_kind.items()}
        """The same as sets, to count a seat's sites of a kind by intersection."""
        self.river_site_set: frozenset[int] = frozenset(s.id for s in self.sites if s.rivers)
        """Every site on a river."""
        self.tiles: tuple[Tile, ...] = tuple(
            Tile(
                id=t["id"],
                kind=t["kind"],
                building=t["building"],
                points=int(t["points"]),
                resources=tuple(t.get("resources", ())),
                fish_bonus=int(t.get("fish_bonus", 0)),
                bird=bool(t.get("bird", False)),
            )
            for t in sorted(data["tiles"], key=lambda t: t["id"])
        )
        self.tile_by_id: dict[int, Tile] = {t.id: t for t in self.tiles}
        self.tile_ids_of_kind: dict[str, tuple[int, ...]] = {
            k: tuple(t.id for t in self.tiles if t.kind == k) for k in SITE_KINDS
        }
        """The ids of the tiles for each kind of site, in id order (the order a new game shuffles them from)."""
        for t in self.tiles:
            if t.building not in BUILDINGS or t.kind not in SITE_KINDS:
                raise ValueError(f"tile {t.id}: bad building or kind")
            if any(r not in RESOURCES for r in t.resources):
                raise ValueError(f"tile {t.id}: unknown resource")
        for k in SITE_KINDS:
            have = sum(1 for t in self.tiles if t.kind == k)
            need = len(self.sites_of_kind[k])
            if have < need:
                raise ValueError(f"{need} {k} sites but only {have} {k} tiles")
        self.bird_chips: tuple[int, ...] = tuple(int(v) for v in data["bird_chips"])
        self.road_edges: tuple[tuple[int, int], ...] = tuple(
            sorted((min(a, b), max(a, b)) for a, b in data["roads"])
        )

    def road_groups(self, sites: set[int] | frozenset[int]) -> list[set[int]]:
        """``sites`` split into groups joined by road segments between them (branching allowed)."""
        nbrs = self.road_nbrs
        groups: list[set[int]] = []
        left = set(sites)
        for start in sorted(sites):  # groups in the order of their lowest site
            if start not in left:
                continue
            left.discard(start)
            group = {start}
            stack = [start]
            while stack:
                found = nbrs[stack.pop()] & left
                if found:
                    left -= found
                    group |= found
                    stack.extend(found)
            groups.append(group)
        return groups

    def public_dict(self) -> dict[str, Any]:
        """The static board for drawing: size, island outlines, volcanoes, roads and river courses."""
        return {
            "name": self.name,
            "size": list(self.data.get("size", [1000, 760])),
            "islands": self.data.get("islands", []),
            "roads": [list(e) for e in self.road_edges],
        }


@cache
def default_island() -> Island:
    """The project's island (``engine/data/island.json``), loaded once."""
    text = resources.files("engine").joinpath("data/island.json").read_text(encoding="utf-8")
    return Island(json.loads(text))
