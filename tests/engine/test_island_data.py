"""Checks of the island data file engine/data/island.json against every constraint the rules state.

The file is read directly with ``json`` (not through the engine): the 3 islands and their outlines,
the 49 building sites, the roads, the 3 rivers, the 54 tiles and the 22 bird chips.  Each test is
named after the constraint it checks; see engine/ISLAND.md for the design behind the numbers.
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from functools import cache
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

ISLAND_PATH = Path(__file__).resolve().parents[2] / "engine" / "data" / "island.json"

Point = tuple[float, float]
Edge = tuple[int, int]

KINDS = ("coast", "land", "volcano")
ISLAND_IDS = ("main", "northwest", "south")
RESOURCES = ("fish", "sheep", "wood", "sugar", "gold")
BUILDINGS = ("house", "church", "lighthouse")

# Sites per island and kind (coast, land, volcano).
SITES_PER_ISLAND = {
    "main": {"coast": 12, "land": 17, "volcano": 8},
    "northwest": {"coast": 3, "land": 2, "volcano": 0},
    "south": {"coast": 3, "land": 2, "volcano": 2},
}
TILES_PER_KIND = {"coast": 20, "land": 23, "volcano": 11}
BUILDING_TILES = {"house": 30, "church": 15, "lighthouse": 9}
POINT_RANGE = {"coast": (1, 3), "land": (1, 3), "volcano": (2, 4)}

MIN_SITE_DISTANCE = 55.0
COAST_MAX_FROM_OUTLINE = 45.0
INLAND_MIN_FROM_OUTLINE = 50.0
MARGIN = 30.0
ROAD_CLEARANCE = 30.0  # a road keeps this far from every site it does not end at
MAX_BRIDGES = 2
# Sites on at least two of (coast, river, road).  With 18 coast sites and rivers of 3 + 8 + 5 sites
# (3 of them coast mouths) the most that is possible is 18 + 13 = 31; every such site reaches it.
MIN_SITES_ON_TWO = 31


# ---------------------------------------------------------------- loading and geometry helpers


@cache
def _load() -> dict[str, Any]:
    with ISLAND_PATH.open(encoding="utf-8") as fh:
        return json.load(fh)


@pytest.fixture
def data() -> dict[str, Any]:
    return _load()


def _pos(data: dict[str, Any]) -> dict[int, Point]:
    return {s["id"]: (float(s["pos"][0]), float(s["pos"][1])) for s in data["sites"]}


def _site_by_id(data: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {s["id"]: s for s in data["sites"]}


def _island(data: dict[str, Any], island_id: str) -> dict[str, Any]:
    return next(i for i in data["islands"] if i["id"] == island_id)


def _outline(data: dict[str, Any], island_id: str) -> list[Point]:
    return [(float(x), float(y)) for x, y in _island(data, island_id)["outline"]]


def _roads(data: dict[str, Any]) -> list[Edge]:
    return [(a, b) for a, b in data["roads"]]


def _river_edges(river: dict[str, Any]) -> list[Edge]:
    return [(a, b) for a, b in river["edges"]]


def _river_sites(river: dict[str, Any]) -> set[int]:
    return {i for edge in river["edges"] for i in edge}


def _river_by_name(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(r for r in data["rivers"] if r["name"] == name)


def _neighbours(edges: list[Edge]) -> dict[int, set[int]]:
    nb: dict[int, set[int]] = defaultdict(set)
    for a, b in edges:
        nb[a].add(b)
        nb[b].add(a)
    return nb


def _connected(nodes: set[int], edges: list[Edge]) -> bool:
    if not nodes:
        return True
    nb = _neighbours(edges)
    start = next(iter(nodes))
    seen = {start}
    todo = [start]
    while todo:
        for n in nb[todo.pop()]:
            if n in nodes and n not in seen:
                seen.add(n)
                todo.append(n)
    return seen == nodes


def _orient(a: Point, b: Point, c: Point) -> float:
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def _segments_cross(p1: Point, p2: Point, q1: Point, q2: Point) -> bool:
    """True when the two segments meet anywhere except at a shared end point."""
    shared = {p1, p2} & {q1, q2}
    if len(shared) == 2:
        return True  # the same segment twice
    if shared:
        # Segments sharing an end point only "cross" when they overlap along a line.
        s = shared.pop()
        o1 = p2 if p1 == s else p1
        o2 = q2 if q1 == s else q1
        if abs(_orient(s, o1, o2)) > 1e-9:
            return False
        return (o1[0] - s[0]) * (o2[0] - s[0]) + (o1[1] - s[1]) * (o2[1] - s[1]) > 0
    d1, d2 = _orient(q1, q2, p1), _orient(q1, q2, p2)
    d3, d4 = _orient(p1, p2, q1), _orient(p1, p2, q2)
    if ((d1 > 0) != (d2 > 0)) and ((d3 > 0) != (d4 > 0)) and d1 and d2 and d3 and d4:
        return True

    def on_seg(a: Point, b: Point, c: Point) -> bool:
        return min(a[0], b[0]) <= c[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= c[1] <= max(a[1], b[1])

    return (
        (d1 == 0 and on_seg(q1, q2, p1))
        or (d2 == 0 and on_seg(q1, q2, p2))
        or (d3 == 0 and on_seg(p1, p2, q1))
        or (d4 == 0 and on_seg(p1, p2, q2))
    )


def _dist_point_segment(p: Point, a: Point, b: Point) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2))
    return math.dist(p, (a[0] + t * dx, a[1] + t * dy))


def _polygon_edges(poly: list[Point]) -> list[tuple[Point, Point]]:
    return [(poly[i], poly[(i + 1) % len(poly)]) for i in range(len(poly))]


def _dist_to_outline(p: Point, poly: list[Point]) -> float:
    return min(_dist_point_segment(p, a, b) for a, b in _polygon_edges(poly))


def _inside(p: Point, poly: list[Point]) -> bool:
    inside = False
    for (x1, y1), (x2, y2) in _polygon_edges(poly):
        if (y1 > p[1]) != (y2 > p[1]):
            x = x1 + (p[1] - y1) * (x2 - x1) / (y2 - y1)
            if x > p[0]:
                inside = not inside
    return inside


def _area(poly: list[Point]) -> float:
    return abs(sum(a[0] * b[1] - b[0] * a[1] for a, b in _polygon_edges(poly))) / 2


def _centroid(poly: list[Point]) -> Point:
    return (sum(p[0] for p in poly) / len(poly), sum(p[1] for p in poly) / len(poly))


def _convex_hull(points: list[Point]) -> list[Point]:
    pts = sorted(set(points))
    lower: list[Point] = []
    upper: list[Point] = []
    for p in pts:
        while len(lower) >= 2 and _orient(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and _orient(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def _river_polylines(data: dict[str, Any], river: dict[str, Any]) -> list[tuple[Point, Point]]:
    """All drawn river segments: its edges, plus source and mouth joined to their nearest river site."""
    pos = _pos(data)
    segs = [(pos[a], pos[b]) for a, b in _river_edges(river)]
    sites = _river_sites(river)
    for key in ("source", "mouth"):
        pt = (float(river[key][0]), float(river[key][1]))
        nearest = min(sites, key=lambda i: math.dist(pos[i], pt))
        segs.append((pt, pos[nearest]))
    return segs


# ---------------------------------------------------------------- file and islands


def test_file_has_exactly_the_schema_keys(data: dict[str, Any]) -> None:
    assert set(data) == {"name", "size", "islands", "sites", "roads", "rivers", "tiles", "bird_chips"}
    assert data["name"] == "Santa Cruz"
    assert all(set(i) == {"id", "outline", "volcano"} for i in data["islands"])
    assert all(set(s) == {"id", "kind", "island", "pos"} for s in data["sites"])
    assert all(set(r) == {"id", "name", "edges", "source", "mouth"} for r in data["rivers"])
    tile_keys = {"id", "kind", "building", "points", "resources", "fish_bonus", "bird"}
    assert all(set(t) == tile_keys for t in data["tiles"])


def test_drawing_size_is_1000_by_760(data: dict[str, Any]) -> None:
    assert data["size"] == [1000, 760]


def test_exactly_three_islands_main_northwest_south(data: dict[str, Any]) -> None:
    assert [i["id"] for i in data["islands"]] == list(ISLAND_IDS)


def test_volcanoes_large_on_main_small_on_south_none_on_northwest(data: dict[str, Any]) -> None:
    main = _island(data, "main")["volcano"]
    south = _island(data, "south")["volcano"]
    assert _island(data, "northwest")["volcano"] is None
    assert main is not None and south is not None
    assert set(main) == set(south) == {"center", "radius"}
    assert main["radius"] >= 1.5 * south["radius"] > 0
    for island_id, volcano in (("main", main), ("south", south)):
        centre = (float(volcano["center"][0]), float(volcano["center"][1]))
        poly = _outline(data, island_id)
        assert _inside(centre, poly)
        assert _dist_to_outline(centre, poly) > volcano["radius"], f"{island_id} volcano reaches the sea"


def test_outlines_have_30_to_80_points(data: dict[str, Any]) -> None:
    for island in data["islands"]:
        assert 30 <= len(island["outline"]) <= 80, island["id"]
        assert all(len(p) == 2 and all(isinstance(c, int) for c in p) for p in island["outline"])


def test_outlines_keep_margin_from_drawing_edges(data: dict[str, Any]) -> None:
    width, height = data["size"]
    for island in data["islands"]:
        for x, y in island["outline"]:
            assert MARGIN <= x <= width - MARGIN and MARGIN <= y <= height - MARGIN, (island["id"], x, y)


def test_outlines_are_simple_polygons(data: dict[str, Any]) -> None:
    for island_id in ISLAND_IDS:
        edges = _polygon_edges(_outline(data, island_id))
        n = len(edges)
        for i, j in combinations(range(n), 2):
            if j == i + 1 or (i == 0 and j == n - 1):
                continue
            assert not _segments_cross(*edges[i], *edges[j]), (island_id, i, j)


def test_outlines_have_bays_and_capes_not_circles(data: dict[str, Any]) -> None:
    for island_id in ISLAND_IDS:
        poly = _outline(data, island_id)
        ratio = _area(poly) / _area(_convex_hull(poly))
        assert ratio < 0.985, f"{island_id} is (nearly) convex: area/hull = {ratio:.3f}"
        centre = _centroid(poly)
        radii = [math.dist(centre, p) for p in poly]
        assert max(radii) / min(radii) > 1.25, f"{island_id} is too round"


def test_islands_do_not_overlap(data: dict[str, Any]) -> None:
    for a, b in combinations(ISLAND_IDS, 2):
        pa, pb = _outline(data, a), _outline(data, b)
        assert not any(_inside(p, pb) for p in pa)
        assert not any(_inside(p, pa) for p in pb)
        assert min(_dist_to_outline(p, pb) for p in pa) > 40, f"{a} and {b} almost touch"


def test_main_is_big_in_the_middle_northwest_top_left_south_at_bottom(data: dict[str, Any]) -> None:
    width, height = data["size"]
    areas = {i: _area(_outline(data, i)) for i in ISLAND_IDS}
    assert areas["main"] > 3 * max(areas["northwest"], areas["south"])
    mx, my = _centroid(_outline(data, "main"))
    nx, ny = _centroid(_outline(data, "northwest"))
    _, sy = _centroid(_outline(data, "south"))
    assert mx > width * 0.45 and height * 0.2 < my < height * 0.6
    assert nx < width * 0.3 and ny < height * 0.35
    assert sy > height * 0.75 and sy > my


# ---------------------------------------------------------------- sites


def test_49_sites_with_ids_1_to_49(data: dict[str, Any]) -> None:
    assert [s["id"] for s in data["sites"]] == list(range(1, 50))


def test_site_ids_in_reading_order(data: dict[str, Any]) -> None:
    """Top to bottom in bands of 50 units, left to right within a band."""
    sites = data["sites"]
    keys = [(s["pos"][1] // 50, s["pos"][0]) for s in sites]
    assert keys == sorted(keys)


def test_site_kind_totals_18_coast_21_land_10_volcano(data: dict[str, Any]) -> None:
    assert Counter(s["kind"] for s in data["sites"]) == {"coast": 18, "land": 21, "volcano": 10}


def test_site_counts_per_island_and_kind(data: dict[str, Any]) -> None:
    assert {s["kind"] for s in data["sites"]} <= set(KINDS)
    for island_id, expected in SITES_PER_ISLAND.items():
        got = Counter(s["kind"] for s in data["sites"] if s["island"] == island_id)
        assert {k: got[k] for k in KINDS} == expected, island_id
    assert {s["island"] for s in data["sites"]} == set(ISLAND_IDS)


def test_site_positions_are_integer_points_in_the_drawing(data: dict[str, Any]) -> None:
    width, height = data["size"]
    for s in data["sites"]:
        assert len(s["pos"]) == 2 and all(type(c) is int for c in s["pos"]), s
        assert MARGIN <= s["pos"][0] <= width - MARGIN and MARGIN <= s["pos"][1] <= height - MARGIN, s


def test_sites_lie_inside_their_island(data: dict[str, Any]) -> None:
    for s in data["sites"]:
        assert _inside((s["pos"][0], s["pos"][1]), _outline(data, s["island"])), s


def test_sites_at_least_55_apart(data: dict[str, Any]) -> None:
    pos = _pos(data)
    for a, b in combinations(pos, 2):
        assert math.dist(pos[a], pos[b]) >= MIN_SITE_DISTANCE, (a, b)


def test_coast_sites_near_the_outline(data: dict[str, Any]) -> None:
    for s in data["sites"]:
        if s["kind"] == "coast":
            d = _dist_to_outline(tuple(s["pos"]), _outline(data, s["island"]))
            assert d <= COAST_MAX_FROM_OUTLINE, (s["id"], d)


def test_land_and_volcano_sites_inland(data: dict[str, Any]) -> None:
    for s in data["sites"]:
        if s["kind"] != "coast":
            d = _dist_to_outline(tuple(s["pos"]), _outline(data, s["island"]))
            assert d >= INLAND_MIN_FROM_OUTLINE, (s["id"], d)


def test_volcano_sites_on_their_volcano_and_others_off_it(data: dict[str, Any]) -> None:
    for s in data["sites"]:
        volcano = _island(data, s["island"])["volcano"]
        if s["kind"] == "volcano":
            assert volcano is not None, s
            d = math.dist(s["pos"], volcano["center"])
            assert 0.3 * volcano["radius"] <= d <= volcano["radius"] + 10, (s["id"], d)
        elif volcano is not None:
            assert math.dist(s["pos"], volcano["center"]) > volcano["radius"] + 15, s["id"]


# ---------------------------------------------------------------- roads


def test_roads_are_sorted_pairs_of_known_sites_without_duplicates(data: dict[str, Any]) -> None:
    ids = set(_pos(data))
    roads = _roads(data)
    assert all(len(r) == 2 for r in data["roads"])
    assert all(a < b and a in ids and b in ids for a, b in roads)
    assert len(set(roads)) == len(roads)


def test_roads_stay_on_one_island(data: dict[str, Any]) -> None:
    site = _site_by_id(data)
    for a, b in _roads(data):
        assert site[a]["island"] == site[b]["island"], (a, b)


def test_roads_run_over_land(data: dict[str, Any]) -> None:
    pos, site = _pos(data), _site_by_id(data)
    for a, b in _roads(data):
        poly = _outline(data, site[a]["island"])
        for k in range(1, 20):
            t = k / 20
            p = (pos[a][0] + t * (pos[b][0] - pos[a][0]), pos[a][1] + t * (pos[b][1] - pos[a][1]))
            assert _inside(p, poly), (a, b)


def test_roads_do_not_cross(data: dict[str, Any]) -> None:
    pos = _pos(data)
    for (a, b), (c, d) in combinations(_roads(data), 2):
        assert not _segments_cross(pos[a], pos[b], pos[c], pos[d]), ((a, b), (c, d))


def test_roads_do_not_pass_through_other_sites(data: dict[str, Any]) -> None:
    pos = _pos(data)
    for a, b in _roads(data):
        for i, p in pos.items():
            if i not in (a, b):
                assert _dist_point_segment(p, pos[a], pos[b]) >= ROAD_CLEARANCE, (a, b, i)


def test_roads_go_around_the_craters(data: dict[str, Any]) -> None:
    pos, site = _pos(data), _site_by_id(data)
    for a, b in _roads(data):
        volcano = _island(data, site[a]["island"])["volcano"]
        if volcano is not None:
            centre = (float(volcano["center"][0]), float(volcano["center"][1]))
            assert _dist_point_segment(centre, pos[a], pos[b]) >= 0.4 * volcano["radius"], (a, b)


def test_every_site_has_1_to_4_road_neighbours(data: dict[str, Any]) -> None:
    nb = _neighbours(_roads(data))
    for s in data["sites"]:
        assert 1 <= len(nb[s["id"]]) <= 4, (s["id"], sorted(nb[s["id"]]))


def test_every_land_and_volcano_site_has_a_road_or_river(data: dict[str, Any]) -> None:
    linked = {i for edge in _roads(data) for i in edge}
    for river in data["rivers"]:
        linked |= _river_sites(river)
    for s in data["sites"]:
        if s["kind"] != "coast":
            assert s["id"] in linked, s["id"]


def test_road_network_of_each_island_is_connected(data: dict[str, Any]) -> None:
    roads = _roads(data)
    for island_id in ISLAND_IDS:
        nodes = {s["id"] for s in data["sites"] if s["island"] == island_id}
        assert _connected(nodes, roads), island_id


def test_small_islands_reached_only_by_ship(data: dict[str, Any]) -> None:
    site = _site_by_id(data)
    links = _roads(data) + [e for r in data["rivers"] for e in _river_edges(r)]
    for a, b in links:
        assert site[a]["island"] == site[b]["island"], (a, b)
    for island_id in ("northwest", "south"):
        assert any(site[a]["island"] == island_id for a, _ in _roads(data)), f"{island_id} has no roads"


def test_rules_example_south_coast_site_with_exactly_one_neighbour(data: dict[str, Any]) -> None:
    """A lighthouse built by ship on the volcanic small island reveals exactly one tile."""
    nb = _neighbours(_roads(data))
    on_river = {i for r in data["rivers"] for i in _river_sites(r)}
    candidates = [
        s["id"]
        for s in data["sites"]
        if s["island"] == "south" and s["kind"] == "coast" and len(nb[s["id"]]) == 1 and s["id"] not in on_river
    ]
    assert candidates


# ---------------------------------------------------------------- rivers


def test_three_rivers_short_medium_long(data: dict[str, Any]) -> None:
    assert [r["id"] for r in data["rivers"]] == [1, 2, 3]
    assert sorted(r["name"] for r in data["rivers"]) == ["long", "medium", "short"]


def test_river_edges_are_sorted_pairs_of_known_sites(data: dict[str, Any]) -> None:
    ids = set(_pos(data))
    for river in data["rivers"]:
        edges = _river_edges(river)
        assert all(len(e) == 2 for e in river["edges"])
        assert all(a < b and a in ids and b in ids for a, b in edges), river["name"]
        assert len(set(edges)) == len(edges), river["name"]


def test_rivers_are_paths_or_trees(data: dict[str, Any]) -> None:
    for river in data["rivers"]:
        sites, edges = _river_sites(river), _river_edges(river)
        assert len(edges) == len(sites) - 1, river["name"]
        assert _connected(sites, edges), river["name"]


def test_river_sizes_short_3_long_branched_about_7_medium_4_or_5(data: dict[str, Any]) -> None:
    assert len(_river_sites(_river_by_name(data, "short"))) == 3
    assert 4 <= len(_river_sites(_river_by_name(data, "medium"))) <= 5
    assert 7 <= len(_river_sites(_river_by_name(data, "long"))) <= 8


def test_long_river_has_a_main_stream_and_two_side_branches(data: dict[str, Any]) -> None:
    nb = _neighbours(_river_edges(_river_by_name(data, "long")))
    leaves = [i for i, n in nb.items() if len(n) == 1]
    assert len(leaves) == 4  # the main stream's source and mouth, and the two branch heads
    assert sum(len(n) - 2 for n in nb.values() if len(n) > 2) == 2


def test_short_and_medium_rivers_are_unbranched(data: dict[str, Any]) -> None:
    for name in ("short", "medium"):
        nb = _neighbours(_river_edges(_river_by_name(data, name)))
        assert all(len(n) <= 2 for n in nb.values()), name


def test_rivers_only_on_main_island(data: dict[str, Any]) -> None:
    site = _site_by_id(data)
    for river in data["rivers"]:
        assert {site[i]["island"] for i in _river_sites(river)} == {"main"}, river["name"]
        for key in ("source", "mouth"):
            p = (float(river[key][0]), float(river[key][1]))
            assert _inside(p, _outline(data, "main")) or _dist_to_outline(p, _outline(data, "main")) <= 6


def test_site_on_at_most_one_river(data: dict[str, Any]) -> None:
    seen: Counter[int] = Counter()
    for river in data["rivers"]:
        seen.update(_river_sites(river))
    assert all(n == 1 for n in seen.values()), [i for i, n in seen.items() if n > 1]


def test_river_mouth_on_coastline_at_a_coast_site_ending_the_river(data: dict[str, Any]) -> None:
    pos, site = _pos(data), _site_by_id(data)
    poly = _outline(data, "main")
    for river in data["rivers"]:
        mouth = (float(river["mouth"][0]), float(river["mouth"][1]))
        assert _dist_to_outline(mouth, poly) <= 6, river["name"]
        sites = _river_sites(river)
        nearest = min(sites, key=lambda i: math.dist(pos[i], mouth))
        assert site[nearest]["kind"] == "coast", river["name"]
        assert math.dist(pos[nearest], mouth) <= COAST_MAX_FROM_OUTLINE + 10, river["name"]
        assert len(_neighbours(_river_edges(river))[nearest]) == 1, river["name"]


def test_river_source_inland_long_ones_at_the_volcano(data: dict[str, Any]) -> None:
    pos = _pos(data)
    poly = _outline(data, "main")
    volcano = _island(data, "main")["volcano"]
    for river in data["rivers"]:
        source = (float(river["source"][0]), float(river["source"][1]))
        assert _inside(source, poly) and _dist_to_outline(source, poly) >= 60, river["name"]
        first = min(_river_sites(river), key=lambda i: math.dist(pos[i], source))
        assert math.dist(pos[first], source) <= 60, river["name"]
        assert len(_neighbours(_river_edges(river))[first]) == 1, river["name"]
        if river["name"] in ("long", "medium"):
            assert math.dist(source, volcano["center"]) <= volcano["radius"], river["name"]


def test_rivers_do_not_cross_each_other(data: dict[str, Any]) -> None:
    rivers = data["rivers"]
    for r1, r2 in combinations(rivers, 2):
        for s1 in _river_polylines(data, r1):
            for s2 in _river_polylines(data, r2):
                assert not _segments_cross(*s1, *s2), (r1["name"], r2["name"])


def test_rivers_do_not_follow_roads(data: dict[str, Any]) -> None:
    roads = set(_roads(data))
    for river in data["rivers"]:
        assert not roads & set(_river_edges(river)), river["name"]


def test_at_most_two_bridges_where_rivers_cross_roads(data: dict[str, Any]) -> None:
    pos = _pos(data)
    bridges = [
        (river["name"], road)
        for river in data["rivers"]
        for seg in _river_polylines(data, river)
        for road in _roads(data)
        if _segments_cross(*seg, pos[road[0]], pos[road[1]])
    ]
    assert len(bridges) <= MAX_BRIDGES, bridges


def test_rivers_run_over_land(data: dict[str, Any]) -> None:
    pos = _pos(data)
    poly = _outline(data, "main")
    for river in data["rivers"]:
        for a, b in _river_edges(river):
            for k in range(1, 20):
                t = k / 20
                p = (pos[a][0] + t * (pos[b][0] - pos[a][0]), pos[a][1] + t * (pos[b][1] - pos[a][1]))
                assert _inside(p, poly), (river["name"], a, b)


def test_most_sites_on_two_of_coast_river_road(data: dict[str, Any]) -> None:
    on_road = {i for edge in _roads(data) for i in edge}
    on_river = {i for r in data["rivers"] for i in _river_sites(r)}
    count = sum((s["kind"] == "coast") + (s["id"] in on_river) + (s["id"] in on_road) >= 2 for s in data["sites"])
    assert count >= MIN_SITES_ON_TWO


# ---------------------------------------------------------------- tiles


def test_54_tiles_with_ids_1_to_54(data: dict[str, Any]) -> None:
    assert [t["id"] for t in data["tiles"]] == list(range(1, 55))


def test_tile_counts_20_coast_23_land_11_volcano(data: dict[str, Any]) -> None:
    assert Counter(t["kind"] for t in data["tiles"]) == TILES_PER_KIND


def test_a_few_more_tiles_than_sites_of_each_kind(data: dict[str, Any]) -> None:
    sites = Counter(s["kind"] for s in data["sites"])
    tiles = Counter(t["kind"] for t in data["tiles"])
    for kind in KINDS:
        assert 1 <= tiles[kind] - sites[kind] <= 3, kind


def test_building_counts_30_houses_15_churches_9_lighthouses(data: dict[str, Any]) -> None:
    assert Counter(t["building"] for t in data["tiles"]) == BUILDING_TILES


def test_lighthouses_only_on_coast_tiles(data: dict[str, Any]) -> None:
    for t in data["tiles"]:
        assert t["building"] in BUILDINGS, t
        if t["building"] == "lighthouse":
            assert t["kind"] == "coast", t
    coast = Counter(t["building"] for t in data["tiles"] if t["kind"] == "coast")
    assert coast["house"] > 0 and coast["church"] > 0
    for kind in ("land", "volcano"):
        assert {t["building"] for t in data["tiles"] if t["kind"] == kind} == {"house", "church"}, kind


def test_build_points_coast_and_land_1_to_3_volcano_2_to_4(data: dict[str, Any]) -> None:
    for t in data["tiles"]:
        low, high = POINT_RANGE[t["kind"]]
        assert isinstance(t["points"], int) and low <= t["points"] <= high, t


def test_best_points_on_the_volcanoes(data: dict[str, Any]) -> None:
    def mean(kind: str) -> float:
        pts = [t["points"] for t in data["tiles"] if t["kind"] == kind]
        return sum(pts) / len(pts)

    assert mean("volcano") > max(mean("coast"), mean("land"))
    assert max(t["points"] for t in data["tiles"] if t["kind"] == "volcano") == 4


def test_churches_and_lighthouses_worth_more_than_houses_on_average(data: dict[str, Any]) -> None:
    for kind in KINDS:
        by_building: dict[str, list[int]] = defaultdict(list)
        for t in data["tiles"]:
            if t["kind"] == kind:
                by_building[t["building"]].append(t["points"])
        house = sum(by_building["house"]) / len(by_building["house"])
        for other in ("church", "lighthouse"):
            if by_building[other]:
                assert sum(by_building[other]) / len(by_building[other]) > house, (kind, other)


def test_resources_up_to_two_distinct_known(data: dict[str, Any]) -> None:
    for t in data["tiles"]:
        res = t["resources"]
        assert len(res) <= 2 and len(set(res)) == len(res) and set(res) <= set(RESOURCES), t


def test_fish_only_on_coast_tiles(data: dict[str, Any]) -> None:
    for t in data["tiles"]:
        if "fish" in t["resources"]:
            assert t["kind"] == "coast", t


def test_fish_bonus_1_to_3_on_fish_tiles_else_0(data: dict[str, Any]) -> None:
    for t in data["tiles"]:
        if "fish" in t["resources"]:
            assert 1 <= t["fish_bonus"] <= 3, t
        else:
            assert t["fish_bonus"] == 0, t


def test_every_resource_on_at_least_5_tiles(data: dict[str, Any]) -> None:
    count = Counter(r for t in data["tiles"] for r in t["resources"])
    for res in RESOURCES:
        assert count[res] >= 5, (res, count[res])


def test_some_tiles_have_no_resource(data: dict[str, Any]) -> None:
    for kind in KINDS:
        assert any(not t["resources"] for t in data["tiles"] if t["kind"] == kind), kind


def test_gold_mostly_on_volcano_tiles_at_most_2_elsewhere(data: dict[str, Any]) -> None:
    gold = Counter(t["kind"] for t in data["tiles"] if "gold" in t["resources"])
    elsewhere = gold["coast"] + gold["land"]
    assert elsewhere <= 2
    assert gold["volcano"] > elsewhere


def test_sheep_wood_sugar_mostly_on_land(data: dict[str, Any]) -> None:
    for res in ("sheep", "wood", "sugar"):
        where = Counter(t["kind"] for t in data["tiles"] if res in t["resources"])
        assert where["land"] > where["coast"] and where["land"] > where["volcano"], (res, where)
    assert any("sugar" in t["resources"] for t in data["tiles"] if t["kind"] == "coast")


def test_richer_tiles_have_fewer_points(data: dict[str, Any]) -> None:
    for kind in KINDS:
        by_count: dict[int, list[int]] = defaultdict(list)
        for t in data["tiles"]:
            if t["kind"] == kind:
                by_count[len(t["resources"])].append(t["points"])
        means = {n: sum(p) / len(p) for n, p in by_count.items()}
        assert means[2] < means[0], (kind, means)
        assert means[2] <= means[1] <= means[0], (kind, means)


def test_bird_marks_on_about_12_tiles_spread_over_kinds(data: dict[str, Any]) -> None:
    assert all(isinstance(t["bird"], bool) for t in data["tiles"])
    birds = Counter(t["kind"] for t in data["tiles"] if t["bird"])
    assert 10 <= sum(birds.values()) <= 14
    assert all(birds[kind] >= 2 for kind in KINDS), birds


def test_22_bird_chips_worth_1_2_or_3(data: dict[str, Any]) -> None:
    chips = data["bird_chips"]
    assert len(chips) == 22
    assert set(chips) == {1, 2, 3}
    assert all(type(c) is int for c in chips)


def test_rules_example_lighthouse_tile_worth_2_with_bird(data: dict[str, Any]) -> None:
    """The rules' example: a lighthouse built by ship scores 2 points and a bird chip."""
    assert any(
        t["kind"] == "coast" and t["building"] == "lighthouse" and t["points"] == 2 and t["bird"] for t in data["tiles"]
    )


def test_enough_tiles_for_every_players_lighthouses(data: dict[str, Any]) -> None:
    """Up to 4 players own 2 lighthouses each; lighthouses can only stand on lighthouse tiles."""
    lighthouses = sum(t["building"] == "lighthouse" for t in data["tiles"])
    coast_sites = sum(s["kind"] == "coast" for s in data["sites"])
    assert 8 <= lighthouses <= coast_sites
