"""One test per rule of the official rules, each from a small explicit position on the tiny island.

The tiny island, tile ``i`` on site ``i``, is drawn in the docstring of ``tests/helpers/engine.py``.
"""

from __future__ import annotations

import pytest

from engine import BUILDING_SETS, SCORING_CARD_IDS, IllegalMove, Move, new_game, parse_move
from engine.cards import SCORING_CARDS_DEALT, SUPPLY
from tests.helpers.engine import TINY, arranged, legal, play, put, tiny_game


def scores(events: list[dict]) -> list[tuple[int, int, str]]:
    return [(e["seat"], e["delta"], e["reason"]) for e in events if e["type"] == "score"]


# ---------------------------------------------------------------- setup


def test_each_player_starts_with_8_houses_3_churches_2_lighthouses() -> None:
    game = tiny_game(3)
    assert SUPPLY == {"house": 8, "church": 3, "lighthouse": 2}
    for p in game.view(None)["players"]:
        assert p["supply"] == {"house": 8, "church": 3, "lighthouse": 2}


@pytest.mark.parametrize(("n", "each"), [(2, 4), (3, 3), (4, 2)])
def test_scoring_cards_dealt_4_3_2_and_the_rest_form_the_round_two_deck(n: int, each: int) -> None:
    game = new_game([f"P{i}" for i in range(n)], 5, island=TINY)
    assert SCORING_CARDS_DEALT[n] == each
    assert all(len(h) == each for h in game.hand_scoring)
    everything = [c for h in game.hand_scoring for c in h] + game.deck
    assert sorted(everything) == sorted(SCORING_CARD_IDS)
    assert len(SCORING_CARD_IDS) == 16


def test_building_card_sets_are_the_official_ones() -> None:
    assert BUILDING_SETS == {
        "A": {"ship": 1, "road": 2, "river": 3, "double": 1},
        "B": {"ship": 1, "road": 4, "river": 1, "double": 1},
        "C": {"ship": 3, "road": 2, "river": 1, "double": 1},
        "D": {"ship": 2, "road": 2, "river": 2, "double": 1},
    }
    assert all(sum(s.values()) == 7 for s in BUILDING_SETS.values())


def test_sets_are_dealt_at_random_by_default_each_player_a_different_one() -> None:
    seen = set()
    for seed in range(30):
        game = new_game(["a", "b", "c"], seed, island=TINY)
        assert game.phase == "land"
        assert len(set(game.set_of)) == 3
        seen.add(tuple(game.set_of))
        assert new_game(["a", "b", "c"], seed, island=TINY).set_of == game.set_of
    assert len(seen) > 5


@pytest.mark.parametrize("n", [2, 3, 4])
def test_draft_the_player_acting_last_chooses_first_counter_clockwise_and_the_last_chooser_starts(n: int) -> None:
    game = new_game([f"P{i}" for i in range(n)], 11, draft=True, island=TINY)
    assert game.phase == "choose_set"
    start = game.turn_order[0]
    expected = [(start - 1 - i) % n for i in range(n)]
    assert game.order == expected
    assert game.to_move == game.turn_order[-1]  # acts last in turn order, chooses first
    choosers = []
    while game.phase == "choose_set":
        choosers.append(game.to_move)
        game.apply(game.legal_moves()[0])
    if n == 4:
        assert choosers == expected[:3]  # the fourth must take the set left over
        assert game.events[-1] == {"type": "set", "seat": expected[3], "set": "D", "forced": True}
    else:
        assert choosers == expected
    assert game.phase == "land"
    assert game.to_move == expected[-1] == start
    assert len({s for s in game.set_of}) == n


def test_a_taken_set_cannot_be_chosen_again() -> None:
    game = new_game(["a", "b", "c"], 3, draft=True, island=TINY)
    game.apply("set C")
    with pytest.raises(IllegalMove, match="already been taken"):
        game.apply("set C")


@pytest.mark.parametrize("n", [2, 3, 4])
def test_score_markers_start_on_0_1_2_3_in_turn_order(n: int) -> None:
    game = new_game([f"P{i}" for i in range(n)], 8, island=TINY)
    assert [game.score[s] for s in game.turn_order] == [0, 1, 2, 3][:n]
    assert game.ranking() == list(reversed(game.turn_order))


def test_coast_tiles_lie_face_up_land_and_volcano_tiles_face_down() -> None:
    view = tiny_game().view(None)
    for site in view["board"]["sites"]:
        assert (site["tile"] is not None) == (site["kind"] == "coast")


def test_tiles_are_laid_by_kind_from_the_seed() -> None:
    game = new_game(["a", "b"], 4)
    isl = game.island
    for site in range(1, isl.n_sites + 1):
        assert isl.tile_by_id[game.tile_at[site]].kind == isl.kind[site]
    assert len(set(game.tile_at[1:])) == isl.n_sites
    assert new_game(["a", "b"], 4).tile_at == game.tile_at
    assert new_game(["a", "b"], 5).tile_at != game.tile_at


# ---------------------------------------------------------------- landing


def test_landing_each_player_builds_on_a_free_coast_tile_without_a_card() -> None:
    game = arranged()
    assert legal(game) == ["land 1", "land 2", "land 3", "land 4"]
    play(game, "land 1")
    assert game.to_move == 1
    assert "land 1" not in legal(game)
    play(game, "land 2")
    assert game.phase == "play"
    assert game.hand_building[0] == BUILDING_SETS["A"]  # no card was played


def test_landing_is_not_on_land_or_volcano_sites() -> None:
    game = arranged()
    with pytest.raises(IllegalMove, match="not on the coast"):
        game.apply("land 5")


def test_building_scores_the_tile_points_then_draws_a_bird_chip_then_reveals_connected_tiles() -> None:
    game = arranged(chips=[1, 3])
    events = game.apply("land 1")
    assert [e["type"] for e in events] == ["build", "score", "bird", "reveal"]
    assert events[0] == {"type": "build", "seat": 0, "site": 1, "building": "lighthouse"}
    assert events[1] == {"type": "score", "seat": 0, "delta": 2, "reason": "build"}
    assert events[3] == {"type": "reveal", "site": 5}
    assert game.birds[0] == [3]
    assert game.supply[0] == [8, 3, 1]
    assert "value" not in events[2]  # the chip's value is secret


def test_building_reveals_tiles_connected_by_road_or_river() -> None:
    game = arranged()
    play(game, "land 3")  # coast 3: road to 4, river 1 to 7
    revealed = [e["site"] for e in game.events if e["type"] == "reveal"]
    assert revealed == [7]  # 4 is a coast tile, already face up


# ---------------------------------------------------------------- building cards


def landed(**kw: object) -> object:
    game = arranged(**kw)  # type: ignore[arg-type]
    play(game, "land 1", "land 2")
    return game


def test_ship_card_builds_on_any_free_coast_tile() -> None:
    game = landed()
    assert [m for m in legal(game) if m.startswith("ship")] == ["ship 3", "ship 4"]
    play(game, "ship 4")
    assert game.occupants[4] == [(0, 0)]
    assert game.hand_building[0]["ship"] == 0
    assert game.played_building[0] == ["ship"]


def test_road_card_builds_only_on_a_free_tile_directly_connected_by_road_to_an_own_building() -> None:
    game = landed()
    assert [m for m in legal(game) if m.startswith("road")] == ["road 5"]
    with pytest.raises(IllegalMove, match="not one road segment away"):
        game.apply("road 6")


def test_river_card_needs_an_own_building_on_that_river() -> None:
    game = landed()
    assert "river" in legal(game)  # seat 0 is on no river: the card can only be played without effect
    assert not [m for m in legal(game) if m.startswith("river ")]
    play(game, "road 5")
    assert [m for m in legal(game) if m.startswith("river")] == ["river 8", "river 9"]


def test_river_card_onto_a_face_down_tile_reveals_it_then_builds_what_it_shows() -> None:
    game = landed()
    play(game, "road 5")
    events = game.apply("river 9")  # volcano house 3, face down
    assert [e["type"] for e in events] == ["card", "reveal", "build", "score", "reveal"]
    assert events[1] == {"type": "reveal", "site": 9}
    assert game.occupants[9] == [(1, 0)]
    assert events[4] == {"type": "reveal", "site": 10}  # 6 was revealed by the road to 5, 8 by the landing


def test_river_card_onto_a_face_down_tile_ends_the_turn_if_its_building_is_not_in_the_supply() -> None:
    game = landed()
    play(game, "road 5")
    game.supply[1][0] = 0  # no house left; tile 9 shows a house
    game._legal = None
    events = game.apply("river 9")
    assert events[-1] == {"type": "no_build", "seat": 1, "site": 9, "reason": "supply", "building": "house"}
    assert game.occupants[9] == []
    assert game.revealed[9]
    assert game.to_move == 0


def test_it_is_not_allowed_to_build_on_an_occupied_tile() -> None:
    game = landed()
    with pytest.raises(IllegalMove, match="already taken"):
        game.apply("ship 2")


def test_the_building_printed_on_the_tile_must_come_from_the_supply() -> None:
    game = landed()
    game.supply[0][1] = 0  # no church: coast 3 shows a church
    game._legal = None
    assert [m for m in legal(game) if m.startswith("ship")] == ["ship 4"]
    with pytest.raises(IllegalMove, match="needs a church"):
        game.apply("ship 3")


def test_must_build_if_possible_a_card_without_effect_only_when_nothing_can_be_built() -> None:
    game = landed()
    with pytest.raises(IllegalMove, match="so you must"):
        game.apply("road")
    events = game.apply("river")  # seat 0 has no building on a river
    assert events == [{"type": "card", "seat": 0, "card": "river"},
                      {"type": "no_build", "seat": 0, "reason": "no_site"}]
    assert game.hand_building[0]["river"] == 2
    assert game.to_move == 1


def test_double_move_builds_twice_with_one_kind_each_build_after_the_previous_reveal() -> None:
    game = landed()
    events = game.apply("double road")
    assert events == [{"type": "card", "seat": 0, "card": "double", "kind": "road"}]
    assert game.to_move == 0
    assert game.view(0)["pending"] == {"kind": "double", "card": "road", "builds_left": 2}
    assert legal(game) == ["build 5"]
    play(game, "build 5")  # reveals 6 — now buildable with the second road
    assert legal(game) == ["build 6"]
    play(game, "build 6")
    assert game.pending is None
    assert game.to_move == 1
    assert game.hand_building[0]["double"] == 0


def test_double_move_cannot_mix_kinds() -> None:
    game = landed()
    play(game, "double road", "build 5")
    with pytest.raises(IllegalMove, match="Finish your double move"):
        game.apply("ship 3")


def test_double_move_ends_when_the_second_build_is_impossible() -> None:
    game = landed()
    play(game, "double ship", "build 3")
    assert game.to_move == 0  # coast 4 is still free
    game2 = landed()
    game2.supply[0] = [0, 1, 1]
    game2._legal = None
    events = play(game2, "double ship", "build 3")  # coast 4 needs a house: none left
    assert events[-1] == {"type": "no_build", "seat": 0, "reason": "no_site"}
    assert game2.to_move == 1


def test_double_river_builds_the_second_even_if_the_first_fails() -> None:
    layout = {i: i for i in range(1, 11)} | {9: 10, 10: 9}  # volcano 9: church 4, volcano 10: house 3
    game = landed(layout=layout)
    play(game, "road 5")  # seat 0
    play(game, "ship 3")  # seat 1: church on coast 3 (river 1), reveals 7
    play(game, "road 6")  # seat 0, reveals 9
    game.supply[1][0] = 0  # seat 1 has no house left: face-down 10 shows a house
    game._legal = None
    assert [m for m in legal(game) if m.startswith("river ")] == ["river 7", "river 9", "river 10"]
    events = play(game, "double river", "build 10")
    assert events[-1] == {"type": "no_build", "seat": 1, "site": 10, "reason": "supply", "building": "house"}
    assert game.to_move == 1 and game.pending == {"kind": "double", "card": "river", "builds_left": 1}
    play(game, "build 7")
    assert game.occupants[7] == [(1, 1)]
    assert game.to_move == 0


def test_the_rounds_last_player_may_once_build_on_a_tile_another_player_occupies() -> None:
    game = landed()  # turn order 0, 1: seat 1 plays last
    assert game.view(None)["players"][1]["can_share"]
    assert not game.view(None)["players"][0]["can_share"]
    play(game, "road 5")
    assert "ship 1" in legal(game)  # coast 1 holds seat 0's lighthouse
    events = game.apply("ship 1")
    assert events[1] == {"type": "build", "seat": 1, "site": 1, "building": "lighthouse", "shared": True}
    assert game.occupants[1] == [(0, 2), (1, 2)]
    assert scores(events) == [(1, 2, "build")]
    assert not game.view(None)["players"][1]["can_share"]
    play(game, "road 6")
    assert "road 5" not in legal(game)  # the right is used up for this round


def test_sharing_is_not_possible_at_the_landing() -> None:
    game = arranged()
    play(game, "land 1")
    assert "land 1" not in legal(game)


def test_a_site_reachable_only_by_sharing_does_not_oblige_to_build() -> None:
    game = landed()
    play(game, "road 5")
    game.supply[1] = [0, 0, 2]  # seat 1: only lighthouses; coast 1 (shared) is the only site
    game._legal = None
    assert [m for m in legal(game) if m.startswith("ship")] == ["ship", "ship 1"]


def test_pass_ends_a_double_move_when_only_a_shared_tile_is_left() -> None:
    game = landed()
    play(game, "road 5")
    game.supply[1] = [0, 0, 2]
    game._legal = None
    play(game, "double ship")
    assert legal(game) == ["build 1", "pass"]
    play(game, "pass")
    assert game.to_move == 0 and game.pending is None


# ---------------------------------------------------------------- scoring cards


def scored(card: str, *, n: int = 2, setup: dict[int, tuple[int, ...]], **kw: object) -> list[tuple[int, int, str]]:
    game = arranged(n, scoring=[[card]] + [[] for _ in range(n - 1)], **kw)  # type: ignore[arg-type]
    for seat, sites in setup.items():
        put(game, seat, *sites)
    game.phase = "play"
    game._turn = 0
    game._legal = None
    return scores(game.apply(f"score {card}"))


def test_resource_cards_score_everyone_with_a_building_on_that_resource_once() -> None:
    # Rules' example: Red on wood+gold... here sheep on 5 and 7 for seat 0: still 7 once.
    assert scored("sheep", setup={0: (5, 7), 1: (3,)}) == [(0, 7, "sheep")]
    assert scored("wood", setup={0: (7,), 1: (6,)}) == [(0, 6, "wood"), (1, 6, "wood")]
    assert scored("sugar", setup={0: (4,), 1: (2,)}) == [(0, 7, "sugar"), (1, 7, "sugar")]
    assert scored("gold6", setup={0: (9,), 1: ()}) == [(0, 6, "gold6")]
    # Rules' example: Blue has two gold buildings and gets 10 only once.
    assert scored("gold10", setup={0: (), 1: (9, 10)}) == [(1, 10, "gold10")]


def test_fish_card_scores_5_plus_the_fish_bonus_of_every_building_on_a_fish_tile() -> None:
    assert scored("fish", setup={0: (1, 2), 1: ()}) == [(0, 5 + 2 + 1, "fish")]


def test_fish_sheep_card_rules_example_3_for_only_fish_plus_the_fish_bonus() -> None:
    # "Red gets 3 points for the sheep+fish card (he has no sheep) and 4 points fish bonus": bonus 2+... here 2+1.
    assert scored("fish-sheep", setup={0: (1, 2), 1: (5,)}) == [(0, 3 + 3, "fish-sheep"), (1, 3, "fish-sheep")]
    assert scored("fish-sheep", setup={0: (1, 5), 1: ()}) == [(0, 7 + 2, "fish-sheep")]


def test_wood_sugar_card_7_for_both_3_for_one_no_fish_bonus() -> None:
    assert scored("wood-sugar", setup={0: (6, 4), 1: (2,)}) == [(0, 7, "wood-sugar"), (1, 3, "wood-sugar")]


def test_houses_card_6_for_at_least_4_houses() -> None:
    assert scored("houses", setup={0: (2, 4, 5, 6), 1: (8, 9, 3)}) == [(0, 6, "houses")]


def test_trio_card_6_for_a_house_a_church_and_a_lighthouse() -> None:
    assert scored("trio", setup={0: (1, 3, 5), 1: (2, 7)}) == [(0, 6, "trio")]


def test_connected_card_7_for_4_buildings_connected_by_roads_branching_allowed() -> None:
    # 5-6-7 with a branch 6-9: four buildings joined by roads (the rules' example allows branches)
    assert scored("connected", setup={0: (5, 6, 7, 9), 1: (1, 2, 3, 4)}) == [(0, 7, "connected")]
    # 1-5 and 7-8-2 are two groups of 2 and 3: not 4 connected
    assert scored("connected", setup={0: (1, 5, 7, 8, 2), 1: ()}) == []


def test_connected_card_counts_road_links_only_not_rivers() -> None:
    # 3 ~ 7 ~ 10 is a river, 3 - 4 a road: no four by road
    assert scored("connected", setup={0: (3, 4, 7, 10), 1: ()}) == []


def test_coast_river_volcano_cards_score_3_per_building() -> None:
    assert scored("coast", setup={0: (1, 3), 1: (4,)}) == [(0, 6, "coast"), (1, 3, "coast")]
    assert scored("river", setup={0: (2, 7), 1: (9, 1)}) == [(0, 6, "river"), (1, 3, "river")]
    assert scored("volcano", setup={0: (9,), 1: (10,)}) == [(0, 3, "volcano"), (1, 3, "volcano")]


def test_birds_card_scores_2_per_bird_chip_held() -> None:
    game = arranged(scoring=[["birds"], []])
    game.birds = [[3, 1, 2], [1]]
    game.phase, game._turn = "play", 0
    assert scores(game.apply("score birds")) == [(0, 6, "birds"), (1, 2, "birds")]


def test_eruption_costs_2_per_volcano_building_destroys_them_and_frees_the_volcano_tiles() -> None:
    game = arranged(scoring=[["eruption"], []])
    put(game, 0, 9, 5)
    put(game, 1, 10)
    game.phase, game._turn = "play", 0
    events = game.apply("score eruption")
    assert scores(events) == [(0, -2, "eruption"), (1, -2, "eruption")]
    assert [(e["seat"], e["site"]) for e in events if e["type"] == "destroy"] == [(0, 9), (1, 10)]
    assert game.occupants[9] == [] and game.occupants[10] == []
    assert game.destroyed[0] == [1, 0, 0] and game.destroyed[1] == [0, 1, 0]
    assert game.supply[0][0] == 6  # destroyed buildings do not come back this round
    # the next player may build on the freed volcano tile at once
    game.supply[1][0] = 8
    assert "river 9" not in legal(game)  # seat 1 has no building left on a river...
    assert "road 9" not in legal(game)


def test_destroyed_buildings_no_longer_count_for_later_scoring_cards() -> None:
    game = arranged(scoring=[["eruption", "volcano"], []])
    put(game, 0, 9, 10)
    game.phase, game._turn = "play", 0
    play(game, "score eruption")
    game._turn = 0
    game._legal = None
    assert scores(game.apply("score volcano")) == []


def test_the_cards_player_scores_first_then_the_others_clockwise() -> None:
    game = arranged(4, start=2, scoring=[[], [], ["coast"], []])
    put(game, 0, 1)
    put(game, 1, 2)
    put(game, 2, 3)
    put(game, 3, 4)
    game.phase, game._turn = "play", 0
    assert [s for s, _, _ in scores(game.apply("score coast"))] == [2, 3, 0, 1]


# ---------------------------------------------------------------- score track


def test_a_marker_landing_on_an_occupied_value_stands_behind_so_there_are_no_ties() -> None:
    game = arranged(3, start=0, scoring=[["coast"], [], []])  # scores 0, 1, 2
    put(game, 0, 1)  # seat 0 gets 3 coast points -> 3
    put(game, 1, 2)  # seat 1: 1 + 3 -> 4
    put(game, 2, 3)  # seat 2: 2 + 3 -> 5
    game.score = [1, 0, 0]
    game.phase, game._turn = "play", 0
    game.apply("score coast")  # seat 0 -> 4 first, seat 1 -> 3, seat 2 -> 3 (arrives after seat 1)
    assert game.score == [4, 3, 3]
    assert game.ranking() == [0, 1, 2]
    assert [p["rank"] for p in game.view(None)["players"]] == [1, 2, 3]


def test_moving_back_after_an_eruption_also_stands_behind() -> None:
    game = arranged(2, scoring=[["eruption"], []])
    put(game, 0, 9)
    game.score = [7, 5]
    game.stamp = [5, 1]
    game.phase, game._turn = "play", 0
    game.apply("score eruption")
    assert game.score == [5, 5]
    assert game.ranking() == [1, 0]  # seat 0 arrived on 5 later


def test_score_track_laps_of_50() -> None:
    game = arranged()
    game.score[0] = 51
    player = game.view(None)["players"][0]
    assert (player["laps"], player["track"]) == (1, 1)  # rules' example: 51 points, marker on 1


# ---------------------------------------------------------------- rounds


def play_round_one(game: object) -> None:
    while game.round == 1 and game.phase != "over":  # type: ignore[attr-defined]
        game.apply(game.legal_moves()[0])  # type: ignore[attr-defined]


def test_the_round_ends_when_every_player_has_played_every_card() -> None:
    game = arranged(scoring=[["coast", "river"], ["birds", "volcano"]])
    cards_played = 0
    while game.round == 1:
        seat = game.to_move
        before = game._hand_size(seat)
        events = game.apply(game.legal_moves()[-1])
        cards_played += sum(1 for e in events if e["type"] == "card")
        if game.round == 1:
            assert any(game._hand_size(p) for p in range(2))
        assert game._hand_size(seat) in (before, before - 1)
    assert cards_played == 2 * (7 + 2)  # every building and scoring card of both hands, then the round ends
    assert any(e["type"] == "round_end" and e["round"] == 1 for e in game.events)


def test_round_two_returns_all_buildings_keeps_tiles_draws_a_card_and_the_last_place_chooses_first() -> None:
    game = arranged(3, start=0)
    play_round_one(game)
    assert game.round == 2 and game.phase == "choose_pile"
    assert all(not occ for occ in game.occupants)
    assert game.supply == [[8, 3, 2]] * 3 and game.destroyed == [[0, 0, 0]] * 3
    assert all(len(h) == 1 for h in game.hand_scoring)  # each drew one hidden card
    assert [e["type"] for e in game.events].count("draw") == 3
    ranking = game.ranking()
    assert game.to_move == ranking[-1]
    assert game.turn_order[0] == ranking[-1]
    piles = game.view(None)["piles"]
    assert [p["set"] for p in piles] == game.round1_sets
    first = game.to_move
    own = game.round1_sets.index(game.round1_sets[first])
    play(game, f"pile {own}")  # taking one's own pile is allowed
    second = game.to_move
    assert second == ranking[-2]
    play(game, game.legal_moves()[0].__str__())
    # the leader takes the pile left over without choosing
    assert game.phase == "discard"
    assert sorted(p["taken_by"] for p in game.piles) == [0, 1, 2]
    assert game.events[-1]["forced"] is True


def test_round_two_each_player_discards_one_scoring_card_in_secret_then_the_last_place_starts() -> None:
    game = arranged(2, start=0, scoring=[["coast", "river", "birds", "houses"], ["trio", "sugar", "wood", "gold6"]])
    play_round_one(game)
    while game.phase == "choose_pile":
        game.apply(game.legal_moves()[0])
    assert game.phase == "discard"
    last = game.ranking()[-1]
    seat = game.to_move
    assert seat == last
    hand_before = list(game.hand_scoring[seat])
    assert len(hand_before) == 5  # 4 played in round 1 by the pile's owner + the drawn card
    card = sorted(hand_before)[0]
    events = game.apply(f"discard {card}")
    assert events == [{"type": "discard", "seat": seat}]
    other = 1 - seat
    assert game.view(other)["log"][-1]["move"] == "discard"
    assert game.view(seat)["log"][-1]["move"] == f"discard {card}"
    assert card not in str(game.view(other)["events"])
    play(game, str(game.legal_moves()[0]))
    assert game.phase == "land" and game.to_move == last


def test_game_end_bird_chips_scored_starting_with_the_player_of_the_last_card_and_the_track_decides() -> None:
    game = arranged(3, start=1, chips=[1, 2, 3, 3, 2, 1])
    while game.phase != "over":
        game.apply(game.legal_moves()[-1])
    last = game.last_card_seat
    birds = [e for e in game.events if e["type"] == "birds"]
    assert [e["seat"] for e in birds] == [(last + i) % 3 for i in range(3)]
    assert game.to_move is None and game.legal_moves() == []
    view = game.view(None)
    assert view["winner"] == game.ranking()[0]
    assert game.events[-1] == {"type": "game_over", "ranking": game.ranking()}
    assert all("bird_chips" in p for p in view["players"])  # values are public once the game is over


def test_when_bird_chips_run_out_a_bird_mark_gives_nothing() -> None:
    game = arranged(chips=[])
    events = game.apply("land 1")
    assert [e["type"] for e in events] == ["build", "score", "reveal"]
    assert game.birds[0] == []


# ---------------------------------------------------------------- moves and errors


@pytest.mark.parametrize("text", ["land 12", "ship 7", "ship", "river 3", "road", "double road", "build 9",
                                  "pass", "score gold10", "pile 2", "discard eruption", "set B", "score fish-sheep"])
def test_notation_round_trips(text: str) -> None:
    move = parse_move(text)
    assert str(move) == text
    assert parse_move(str(move)) is move
    assert repr(move) == f"parse_move({text!r})"
    assert Move(move.verb, move.arg) is move


@pytest.mark.parametrize(("text", "words"), [
    ("", "no move"), ("fly 3", "not a move"), ("land", "needs a site number"), ("land x", "not a number"),
    ("score gold", "not a scoring card"), ("double", "names the kind"), ("double church", "names the kind"),
    ("set Z", "by its letter"), ("ship 3 4", "too many words"), ("pass 3", "nothing after"),
    ("land 99999", "no site 99999"), ("pile 12", "no pile 12"), ("ship 0", "no site 0"),
])
def test_malformed_moves_raise_illegal_move_in_plain_words(text: str, words: str) -> None:
    with pytest.raises(IllegalMove, match=words):
        parse_move(text)
    assert issubclass(IllegalMove, ValueError)


def test_an_illegal_move_changes_nothing() -> None:
    game = landed()
    before = game.to_json()
    for text in ("road 6", "ship 2", "score gold10", "land 3", "build 4", "pile 1", "double sheep", "ship 77"):
        with pytest.raises(IllegalMove):
            game.apply(text)
        assert game.to_json() == before


def test_error_messages_name_the_problem() -> None:
    game = landed()
    assert "no site 77" in str(game.refusal("ship 77"))
    assert "do not hold" in str(game.refusal("score gold10"))
    assert "landing" in str(game.refusal("land 3"))
    game.hand_building[0]["ship"] = 0
    game._legal = None
    assert "no ship card left" in str(game.refusal("ship 3"))
