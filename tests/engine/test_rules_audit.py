"""Rules audit: one test per finding, each from a small explicit position on the tiny island.

Passing tests pin rules (and documented decisions of ``shared/rules/README.md`` and ``engine/RULES.md``)
that ``tests/test_rules.py`` did not cover yet. The first four pinned bugs the audit found (a player who
cannot land, undo after the bird chips were shown, two unclear messages); they are fixed.

The tiny island, tile ``i`` on site ``i``, is drawn in the docstring of ``tests/helpers/engine.py``.

``arranged()`` seats 2 players, seat 0 starts; sets A (seat 0: 1 ship, 3 rivers, 2 roads, 1 double) and
B (seat 1: 1 ship, 1 river, 4 roads, 1 double), C and D for seats 2 and 3.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine import Game, IllegalMove, Island, new_game
from tests.helpers.engine import arranged, legal, play, put, tiny_island_data

NO_CARDS = {"ship": 0, "river": 0, "road": 0, "double": 0}


def scores(events: list[dict[str, Any]]) -> list[tuple[int, int, str]]:
    return [(e["seat"], e["delta"], e["reason"]) for e in events if e["type"] == "score"]


def landed(**kw: Any) -> Game:
    """Seat 0 landed on coast 1 (lighthouse), seat 1 on coast 2 (house); seat 0 to play."""
    game = arranged(**kw)
    play(game, "land 1", "land 2")
    return game


def playing(game: Game, seat: int = 0) -> Game:
    """Jump ``game`` (built with ``put``) to the card-playing phase with ``seat`` to move."""
    game.phase = "play"
    game._turn = game.turn_order.index(seat)
    game._legal = None
    return game


def last_cards(game: Game, seat: int, *, scoring: list[str] | None = None,
               building: dict[str, int] | None = None) -> Game:
    """Round 2, everyone's hand empty except ``seat``'s: the next card(s) end the game."""
    game.round = 2
    for p in range(game.n):
        game.hand_building[p] = dict(NO_CARDS)
        game.hand_scoring[p] = []
    game.hand_scoring[seat] = list(scoring or [])
    game.hand_building[seat] = dict(NO_CARDS) | (building or {})
    return playing(game, seat)


def to_round_two(game: Game, score: list[int] | None = None, stamp: list[int] | None = None) -> Game:
    """End round 1 at once: every dealt scoring card counts as played; optional score track position."""
    if score is not None:
        game.score = list(score)
    if stamp is not None:
        game.stamp = list(stamp)
        game._stamps = max(stamp)
    for p in range(game.n):
        game.played_scoring[p] = list(game.hand_scoring[p])
        game.hand_scoring[p] = []
        game.hand_building[p] = dict(NO_CARDS)
    game.phase = "play"
    game.events = []
    game._start_round_two()
    game._legal = None
    return game


# ================================================================ bugs found by the audit, now fixed


def _island_with_three_coast_sites() -> Island:
    data = tiny_island_data()
    data["sites"][3]["kind"] = "land"  # site 4 is now inland: coast sites 1, 2, 3
    for tile in data["tiles"]:
        if tile["id"] == 4:
            tile["kind"] = "land"
    return Island(data)


def test_bauen_nicht_moeglich_a_player_who_cannot_land_is_skipped_not_stuck() -> None:
    # "Wenn möglich, muss der Spieler ein Gebäude setzen. Kann er dies nicht, endet sein Zug sofort."
    # Four players, three coast sites: the fourth player cannot land. The engine accepts the island
    # (rejecting it at setup would also be a fix) and then offers the fourth player no move at all.
    try:
        game = new_game(["a", "b", "c", "d"], 1, island=_island_with_three_coast_sites())
    except ValueError:
        return
    for _ in range(3):
        game.apply(game.legal_moves()[0])
    assert game.to_move is None or game.legal_moves(), "the game is stuck: a seat to move without moves"
    assert game.phase == "play"


def test_undo_is_refused_after_the_game_ending_move_showed_the_bird_chips() -> None:
    # RULES.md #21: a move may be taken back only if it revealed nothing hidden. The last move of the game
    # turns every player's bird chips face up (values public from then on), so it must not be undoable,
    # even when the card itself (here a road card without effect) revealed nothing.
    game = last_cards(arranged(), 1, building={"road": 1})
    game.birds = [[3], [1]]
    events = game.apply("road")
    assert any(e["type"] == "birds" and e["chips"] == [3] for e in events)  # seat 0's chip is now public
    assert game.is_over()
    assert not game.can_undo()


def test_error_message_when_the_share_right_is_used_up_says_so() -> None:
    # "DAZUSETZEN ... darf in diesem gesamten Durchgang einmalig": once used, the holder should be told
    # that he has used it, and the others simply that the site is taken.
    game = landed()
    play(game, "road 5", "ship 1", "road 6")  # seat 1 shares coast 1, then seat 0 plays
    holder = str(game.refusal("road 5"))  # seat 1 (on 1) next to seat 0's house on 5
    play(game, "road 8")
    other = str(game.refusal("ship 2"))  # seat 0 onto seat 1's house
    assert "already taken" in other and "nobody" not in other
    assert "nobody" not in holder
    assert "used" in holder


@pytest.mark.parametrize(("text", "words"), [
    ("ship 1000", "no site 1000"),
    ("land 0", "no site 0"),
    ("ship 0", "no site 0"),
    ("pile 10", "no pile 10"),
])
def test_error_message_for_an_out_of_range_number_names_the_missing_site_or_pile(text: str, words: str) -> None:
    # 'ship 77' says "There is no site 77; the sites are numbered 1 to 10." Numbers out of the notation's
    # range should get the same clear answer; "'1000' is not a number" is wrong.
    game = landed()
    assert "no site 77" in str(game.refusal("ship 77"))
    message = str(game.refusal(text))
    assert "not a number" not in message
    assert words in message.lower()


# ================================================================ landing


def test_landing_follows_the_building_rules_points_bird_and_reveal_without_a_card() -> None:
    # "Dabei beachtet er die Regeln zum Bauen": build points, bird chip, revealing — but no card.
    game = arranged(chips=[2])
    events = game.apply("land 1")  # coast 1: lighthouse 2 with a bird, road to 5
    assert [e["type"] for e in events] == ["build", "score", "bird", "reveal"]
    assert scores(events) == [(0, 2, "build")]
    assert game.birds[0] == [2] and game.revealed[5]
    assert game.played_building[0] == [] and game.last_card_seat is None
    assert game.hand_building[0] == {"ship": 1, "river": 3, "road": 2, "double": 1}


# ================================================================ building


def test_bauen_nicht_moeglich_rules_example_river_card_without_a_church() -> None:
    # "Spieler Rot hat eine Flusskarte gespielt und ist nur am kurzen Fluss vertreten. Auf das einzige freie
    # Plättchen kann er nicht setzen, weil er keine Kirche mehr im Vorrat hat. ... sein Zug endet sofort."
    game = arranged()
    put(game, 0, 3, 10)  # seat 0 on the short river (3 ~ 7 ~ 10); 7 (church) is the only free site
    put(game, 1, 2)
    game.revealed[7] = True  # 7 shows a church
    game.supply[0][1] = 0  # no church left
    playing(game)
    assert [m for m in legal(game) if m.startswith("river")] == ["river"]
    events = game.apply("river")
    assert events == [{"type": "card", "seat": 0, "card": "river"},
                      {"type": "no_build", "seat": 0, "reason": "no_site"}]
    assert game.to_move == 1


def test_verdeckte_plaettchen_a_failed_build_scores_nothing_and_reveals_only_that_tile() -> None:
    # "Hat er kein passendes Gebäude im Vorrat, endet sein Zug sofort": no points, no bird chip, and the
    # neighbours stay face down (nothing was built, so step 6 "Plättchen aufdecken" does not happen).
    game = arranged(chips=[1, 2, 3])
    put(game, 0, 3)  # river 1: 3 ~ 7 ~ 10; tile 10 (church 4, bird) is face down
    put(game, 1, 2)
    game.supply[0][1] = 0
    playing(game)
    assert not game.revealed[10] and not game.revealed[9]
    events = game.apply("river 10")
    assert [e["type"] for e in events] == ["card", "reveal", "no_build"]
    assert game.revealed[10] and not game.revealed[9]
    assert game.birds[0] == [] and game.score[0] == 0


def test_verdeckte_plaettchen_are_never_reached_by_road_or_ship() -> None:
    # Every build reveals its road neighbours, tiles stay revealed in round 2 and coast tiles lie face up,
    # so only a river card (or a double river) can ever be aimed at a face-down tile.
    for seed in range(25):
        game = new_game([f"P{i}" for i in range(2 + seed % 3)], seed)
        rng = random.Random(seed)
        while not game.is_over():
            for move in game.legal_moves():
                site = move.site
                if site is not None and not game.revealed[site]:
                    kind = game.pending["card"] if move.verb == "build" else move.verb  # type: ignore[index]
                    assert kind == "river", (seed, str(move))
            for seat in range(game.n):
                for s in game.owned[seat]:
                    assert all(game.revealed[nb] for nb in game.island.road_nbrs[s]), (seed, seat, s)
            game.apply(rng.choice(game.legal_moves()))


def test_doppelzug_naming_a_kind_without_any_site_ends_the_turn_at_once() -> None:
    # "Kann er dies nicht, endet sein Zug sofort nach dem Ausspielen der Baukarte." — also for a double move.
    game = landed()
    events = game.apply("double river")  # seat 0 (coast 1) is on no river
    assert events == [{"type": "card", "seat": 0, "card": "double", "kind": "river"},
                      {"type": "no_build", "seat": 0, "reason": "no_site"}]
    assert game.hand_building[0]["double"] == 0 and game.to_move == 1


def test_doppelzug_the_second_build_is_compulsory_when_a_free_site_is_left() -> None:
    # "Wenn möglich, muss der Spieler ein Gebäude setzen" holds for each of the two builds.
    game = landed()
    play(game, "double ship", "build 3")
    assert legal(game) == ["build 4"]
    with pytest.raises(IllegalMove, match="so you must"):
        game.apply("pass")


def test_each_build_on_a_bird_tile_draws_one_chip_until_they_run_out() -> None:
    # "zieht er 1 Vogelchip vom Vorrat" per build; README: with none left, a bird mark gives nothing.
    game = landed(chips=[2, 1])  # seat 0 draws 1 at the landing on coast 1 (bird)
    assert game.birds[0] == [1] and game.chips == [2]
    play(game, "double road", "build 5", "build 6")  # 6 has a bird: the last chip
    assert game.birds[0] == [1, 2] and game.chips == []
    play(game, "ship 4")  # seat 1: coast 4 has a bird, but the pile is empty
    assert game.birds[1] == []
    assert game.view(None)["bird_chips_left"] == 0


def test_a_player_whose_hand_is_empty_is_skipped_until_everyone_has_played_every_card() -> None:
    # "Erst wenn alle Spieler alle Karten gespielt haben, endet der Durchgang."
    game = arranged(scoring=[["coast"], []])
    game.hand_building = [dict(NO_CARDS) | {"road": 1}, dict(NO_CARDS)]
    playing(game)
    game.apply("score coast")
    assert game.to_move == 0 and game.round == 1  # seat 1 has nothing left: seat 0 again
    game.apply("road")
    assert game.round == 2


# ================================================================ the share right (dazusetzen)


def test_dazusetzen_belongs_only_to_the_last_player_in_turn_order() -> None:
    # "Der Spieler, der im aktuellen Durchgang als Letzter am Zug ist ... darf ... einmalig ... dazusetzen"
    game = arranged(3, start=1)  # turn order 1, 2, 0: seat 0 plays last
    put(game, 1, 1)
    put(game, 2, 4)
    put(game, 0, 3)
    assert game.share_seat == 0
    assert game.targets(0, "ship") == ([2], [1, 4])
    assert game.targets(1, "ship") == ([2], [])
    assert game.targets(2, "ship") == ([2], [])
    assert [p["can_share"] for p in game.view(None)["players"]] == [True, False, False]


def test_dazusetzen_follows_the_placement_rule_of_the_card_played() -> None:
    # "anstatt es wie üblich auf ein freies Plättchen zu setzen": only "free" is waived, not road/river.
    game = arranged()
    put(game, 0, 5, 8, 7)
    put(game, 1, 2)  # seat 1 (last player) on coast 2: road to 8, river 2 (2 ~ 8 ~ 9)
    playing(game, 1)
    moves = legal(game)
    assert "road 8" in moves and "river 8" in moves  # shared, by road and by river
    assert "road 5" not in moves and "road 7" not in moves  # not one road segment from seat 1
    assert "river 7" not in moves  # river 1: seat 1 has no building on it


def test_dazusetzen_a_shared_build_scores_draws_a_bird_chip_and_is_counted_by_scoring_cards() -> None:
    # README decision: a shared build scores the tile's points and draws a bird chip like any build.
    game = landed(chips=[2, 3])  # seat 0 lands on coast 1 (lighthouse 2, fish +2, bird) and draws 3
    play(game, "road 5")
    events = game.apply("ship 1")
    assert events[1]["shared"] is True
    assert scores(events) == [(1, 2, "build")]
    assert game.birds[1] == [2]
    play(game, "road 6")  # seat 0
    game.hand_scoring[1] = ["coast"]
    game._legal = None
    assert scores(game.apply("score coast")) == [(1, 6, "coast"), (0, 3, "coast")]


def test_dazusetzen_once_per_round_even_within_a_double_move() -> None:
    # "einmalig": after sharing with the first build, the second build of the double move must be free.
    game = landed()
    play(game, "road 5")
    put(game, 0, 3, 4)  # every coast site now holds a building of seat 0
    assert legal(game)[:4] == ["ship", "ship 1", "ship 3", "ship 4"]
    play(game, "double ship")
    assert legal(game) == ["build 1", "build 3", "build 4", "pass"]
    events = play(game, "build 3")
    assert events[-1] == {"type": "no_build", "seat": 1, "reason": "no_site"}
    assert game.occupants[4] == [(0, 0)] and game.to_move == 0 and game.share_seat is None


def test_dazusetzen_may_be_used_for_the_second_build_of_a_double_move() -> None:
    game = landed()
    play(game, "road 5")
    put(game, 0, 3)
    play(game, "double ship", "build 4")  # the free coast site first
    assert legal(game) == ["build 1", "build 3", "pass"]
    events = play(game, "build 1")
    assert any(e.get("shared") for e in events)
    assert game.occupants[1] == [(0, 2), (1, 2)] and game.to_move == 0


def test_dazusetzen_in_round_two_belongs_to_the_player_before_the_last_placed() -> None:
    # Round 2: the last-placed player starts, so the share right goes to his right-hand neighbour.
    game = to_round_two(arranged(3, start=0), score=[20, 5, 12], stamp=[1, 2, 3])  # seat 1 is last
    assert game.turn_order == [1, 2, 0]
    assert game.share_seat == 0
    assert not any(p["can_share"] for p in game.view(None)["players"])  # not while choosing cards
    while game.phase != "land":
        game.apply(game.legal_moves()[0])
    assert [p["can_share"] for p in game.view(None)["players"]] == [True, False, False]


# ================================================================ eruption


def test_vulkanausbruch_on_a_shared_volcano_tile_costs_both_players_and_destroys_both_buildings() -> None:
    # "-2 Punkte pro Gebäude ... auf ein Vulkanplättchen"; "alle Gebäude auf Vulkanplättchen zerstört".
    game = arranged(scoring=[["eruption"], []])
    put(game, 0, 9)
    put(game, 1, 9)  # seat 1 (last player) shared volcano 9
    game.score = [10, 10]
    playing(game)
    events = game.apply("score eruption")
    assert scores(events) == [(0, -2, "eruption"), (1, -2, "eruption")]
    assert [(e["seat"], e["site"]) for e in events if e["type"] == "destroy"] == [(0, 9), (1, 9)]
    assert game.occupants[9] == [] and game.destroyed == [[1, 0, 0], [1, 0, 0]]


def test_vulkanausbruch_the_freed_volcano_tile_can_be_built_by_the_next_player() -> None:
    # "Die Vulkanplättchen sind nun wieder frei und bereits der nächste Spieler kann dort bauen."
    game = arranged(scoring=[["eruption"], []])
    put(game, 0, 9)
    put(game, 1, 6)  # seat 1 is one road segment from volcano 9
    playing(game)
    play(game, "score eruption")
    assert game.to_move == 1
    assert "road 9" in legal(game)
    play(game, "road 9")
    assert game.occupants[9] == [(1, 0)]


def test_vulkanausbruch_a_destroyed_building_no_longer_gives_a_place_on_its_river() -> None:
    # River card: "Auf diesem Fluss muss bereits mindestens ein Gebäude des Spielers stehen."
    game = arranged(scoring=[["eruption"], []])
    put(game, 0, 1)
    put(game, 1, 9)  # seat 1's only river building: volcano 9 on river 2 (2 ~ 8 ~ 9)
    assert game.targets(1, "river") == ([2, 8], [])
    playing(game)
    play(game, "score eruption")
    assert game.targets(1, "river") == ([], [])
    assert "river" in legal(game)


def test_vulkanausbruch_destroyed_buildings_come_back_for_round_two() -> None:
    # "Jeder nimmt alle Gebäude seiner Farbe zurück in seinen Vorrat. Auch eventuell vom Vulkan zerstörte."
    game = arranged(scoring=[["eruption"], []])
    put(game, 0, 9, 10)
    put(game, 1, 9)
    game.score = [20, 20]
    playing(game)
    play(game, "score eruption")
    assert game.destroyed == [[1, 1, 0], [1, 0, 0]]
    to_round_two(game)
    assert game.supply == [[8, 3, 2], [8, 3, 2]]
    assert game.destroyed == [[0, 0, 0], [0, 0, 0]]
    assert game.view(None)["players"][0]["destroyed"] == {"house": 0, "church": 0, "lighthouse": 0}


# ================================================================ scoring cards


def test_fischbonus_pair_card_with_sheep_only_pays_3_and_no_bonus() -> None:
    # "3 Punkte + Fischbonus für alle, die auf nur einen der beiden Rohstoffe gebaut haben": no fish
    # building, no bonus.
    game = arranged(scoring=[["fish-sheep"], []])
    put(game, 0, 5)  # sheep
    put(game, 1, 3)  # neither
    playing(game)
    assert scores(game.apply("score fish-sheep")) == [(0, 3, "fish-sheep")]


def test_fischbonus_on_a_shared_fish_tile_goes_to_both_players() -> None:
    # "erhält jeder Spieler für alle seine Gebäude auf Fischplättchen die ... Extrapunkte"
    game = arranged(scoring=[["fish"], []])
    put(game, 0, 1, 2)  # fish +2 and fish +1
    put(game, 1, 1)  # shared lighthouse tile, fish +2
    playing(game)
    assert scores(game.apply("score fish")) == [(0, 5 + 2 + 1, "fish"), (1, 5 + 2, "fish")]


def test_connected_buildings_are_not_joined_through_another_players_building() -> None:
    # "Die Gebäude müssen direkt über Wege verbunden sein": a foreign building breaks the chain, a shared
    # tile (own building standing there too) does not.
    game = arranged(scoring=[["connected"], []])
    put(game, 1, 6)
    put(game, 0, 1, 5, 7, 8, 2)  # 1-5 and 7-8-2, joined only through 6
    assert game.card_points(0, "connected") == 0
    put(game, 0, 6)  # seat 0 shares 6 (as if it were the last player)
    assert game.largest_road_group(0) == 6
    assert game.card_points(0, "connected") == 7 and game.card_points(1, "connected") == 0


def test_houses_and_trio_cards_count_each_players_own_building_on_a_shared_tile() -> None:
    game = arranged()
    put(game, 0, 1)  # lighthouse
    put(game, 1, 3, 5, 1)  # church, house and a lighthouse beside seat 0's on coast 1
    assert game.card_points(1, "trio") == 6
    assert game.card_points(0, "trio") == 0
    put(game, 0, 5, 6, 8)  # seat 0 shares house 5: its fourth house with 1? no: 5, 6, 8 are three
    assert game.card_points(0, "houses") == 0
    put(game, 0, 9)
    assert game.card_points(0, "houses") == 6  # 5 (shared), 6, 8, 9
    assert game.card_points(1, "houses") == 0  # seat 1: one house (5)


def test_birds_card_in_round_two_counts_the_chips_kept_from_round_one() -> None:
    # "Die Vogelchips bleiben verdeckt vor den Spielern liegen"; "2 Punkte pro Vogelchip ... bisher gesammelt"
    game = arranged()
    game.birds = [[1, 3], []]
    to_round_two(game)
    assert game.birds == [[1, 3], []]
    assert game.card_points(0, "birds") == 4


# ================================================================ score track


def test_hinten_anstellen_equal_scores_after_round_one_the_later_arrival_is_last_and_starts() -> None:
    # "Der Spieler, der auf der Zählleiste hinten liegt, beginnt" — with equal points the marker that
    # arrived later stands behind.
    game = to_round_two(arranged(), score=[10, 10], stamp=[9, 4])  # seat 0 arrived on 10 later
    assert game.ranking() == [1, 0]
    assert game.to_move == 0 and game.order == [0, 1]
    assert game.turn_order == [0, 1]


def test_hinten_anstellen_a_final_tie_is_won_by_the_earlier_arrival() -> None:
    # Bird chips are scored "beginnend mit dem Spieler, der die letzte Karte gespielt hat": seat 1 plays the
    # last card, reaches 13 first; seat 0 arrives on 13 afterwards and stands behind.
    game = last_cards(arranged(), 1, scoring=["volcano"])
    game.score, game.stamp, game._stamps = [10, 12], [5, 6], 6
    game.birds = [[3], [1]]
    events = game.apply("score volcano")
    assert [e["seat"] for e in events if e["type"] == "birds"] == [1, 0]
    assert game.score == [13, 13]
    assert game.ranking() == [1, 0] and game.view(None)["winner"] == 1


def test_a_player_without_bird_chips_keeps_his_place_at_the_end() -> None:
    game = last_cards(arranged(), 1, scoring=["volcano"])
    game.score, game.stamp, game._stamps = [12, 10], [5, 6], 6
    game.birds = [[], [2]]
    game.apply("score volcano")
    assert game.score == [12, 12]
    assert game.ranking() == [0, 1]  # seat 0 was on 12 first and did not move


def test_spielende_bird_chips_start_with_the_player_of_the_last_card_then_clockwise() -> None:
    game = last_cards(arranged(3, start=1), 2, building={"road": 1})
    game.birds = [[1], [2], [3]]
    events = game.apply("road")
    assert [e["seat"] for e in events if e["type"] == "birds"] == [2, 0, 1]
    assert [(s, d) for s, d, r in scores(events) if r == "bird_chips"] == [(2, 3), (0, 1), (1, 2)]


# ================================================================ round 2


def test_round_two_last_place_starts_then_clockwise_not_in_ranking_order() -> None:
    # Cards are chosen from last to first place, but play then goes clockwise from the last-placed player.
    game = to_round_two(arranged(4, start=0), score=[30, 10, 20, 5], stamp=[1, 2, 3, 4])
    assert game.ranking() == [0, 2, 1, 3]
    assert game.order == [3, 1, 2, 0]  # choosing piles: last place first
    assert game.turn_order == [3, 0, 1, 2]
    assert game.share_seat == 2


def test_round_two_four_players_the_leader_must_take_the_last_pile() -> None:
    # "Der Spieler, der auf der Wertungsleiste vorne liegt, muss das verbliebene Kartenset nehmen."
    game = to_round_two(arranged(4, start=0), score=[30, 10, 20, 5], stamp=[1, 2, 3, 4])
    play(game, "pile 0", "pile 1")
    events = play(game, "pile 2")
    assert events[-1] == {"type": "pile", "seat": 0, "pile": 3, "forced": True}
    assert game.phase == "discard" and game.set_of == ["D", "B", "C", "A"]
    assert game.to_move == 3  # discards in the round's turn order


def test_round_two_offers_only_the_sets_played_in_round_one() -> None:
    # "Bei weniger als 4 Spielern werden überzählige Sets in die Schachtel zurückgelegt."
    game = to_round_two(arranged(2, sets=("B", "D")), score=[3, 9], stamp=[1, 2])
    assert [p["set"] for p in game.view(None)["piles"]] == ["B", "D"]
    assert legal(game) == ["pile 0", "pile 1"]


def test_round_two_the_tiles_stay_as_they_are() -> None:
    # "Auch die Plättchen bleiben so liegen wie sie sind": revealed stay revealed, face-down stay face down.
    game = landed()
    play(game, "road 5")  # reveals 6
    before = list(game.revealed)
    assert before[6] and not before[9] and not before[10]
    to_round_two(game)
    assert game.revealed == before
    assert all(not occ for occ in game.occupants)
    tiles = [s["tile"] is not None for s in game.view(None)["board"]["sites"]]
    assert tiles == before[1:]


def test_round_two_each_pile_holds_its_set_and_the_scoring_cards_played_with_it() -> None:
    # "Er sucht eines der offenliegenden Kartensets (inkl. Wertungskarten) aus"
    game = arranged(scoring=[["coast", "river"], ["birds", "trio"]])
    to_round_two(game, score=[5, 9], stamp=[1, 2])
    drawn = list(game.hand_scoring[0])
    play(game, "pile 1")  # seat 0 (last) takes seat 1's pile; seat 1 gets seat 0's
    assert game.set_of == ["B", "A"]
    assert sorted(game.hand_scoring[0]) == sorted(["birds", "trio", *drawn])
    assert game.hand_building[0] == {"ship": 1, "river": 1, "road": 4, "double": 1}


# ================================================================ secrets in views


def test_views_never_show_another_seats_scoring_cards() -> None:
    game = landed(scoring=[["gold10", "trio"], ["eruption", "connected"]])
    public = json.dumps(game.view(None))
    seat1 = json.dumps(game.view(1))
    seat0 = json.dumps(game.view(0))
    for card in ("gold10", "trio", "eruption", "connected"):
        assert card not in public
    assert "gold10" not in seat1 and "trio" not in seat1
    assert "eruption" not in seat0 and "connected" not in seat0
    assert game.view(0)["you"]["scoring_cards"] == ["gold10", "trio"]


def test_bird_chip_values_are_hidden_from_the_others_until_the_end() -> None:
    game = arranged(chips=[1, 3])
    game.apply("land 1")  # seat 0 draws the 3
    for seat in (None, 1):
        view = game.view(seat)
        assert "bird_chips" not in view["players"][0]
        assert all("value" not in e for e in view["events"])
        assert view["players"][0]["birds"] == 1
    assert game.view(1)["you"]["bird_chips"] == []
    assert game.view(0)["you"]["bird_chips"] == [3]
    assert [e["value"] for e in game.view(0)["events"] if e["type"] == "bird"] == [3]


def test_a_face_down_tile_changes_no_view_no_legal_move_and_no_message() -> None:
    # Seat 0 has no house left; face-down volcano 9 on its river holds a house in one game, a church in the
    # other: nothing the players can see may differ.
    def position(tile_on_9: int) -> Game:
        game = arranged(layout={i: i for i in range(1, 11)} | {9: tile_on_9, 10: 19 - tile_on_9})
        put(game, 0, 2, 8)  # river 2: 2 ~ 8 ~ 9; 9 is not one road segment from 2 or 8
        put(game, 1, 3)
        game.supply[0][0] = 0
        game.revealed[9] = game.revealed[10] = False
        return playing(game)

    house, church = position(9), position(10)
    assert house.site_tile[9].building == "house" and church.site_tile[9].building == "church"
    for seat in (None, 0, 1):
        assert house.view(seat) == church.view(seat)
    assert "river 9" in legal(house)
    for text in ("river 9", "road 9", "ship 9", "river", "road 10", "double river"):
        assert str(house.refusal(text)) == str(church.refusal(text)), text


def test_round_two_drawn_cards_and_discards_stay_secret_even_after_the_end() -> None:
    game = arranged(scoring=[["coast", "river", "birds", "houses"], ["trio", "sugar", "wood", "gold6"]])
    to_round_two(game, score=[5, 9], stamp=[1, 2])
    other = game.clone()
    # give seat 0 a different drawn card: seat 1 and the public must not notice
    other.hand_scoring[0], other.deck[0] = [other.deck[0]], other.hand_scoring[0][0]
    for seat in (None, 1):
        assert other.view(seat) == game.view(seat)
    while game.phase != "over":
        game.apply(game.legal_moves()[-1])
    discarded = game.discarded[0]
    assert discarded is not None
    other = game.clone()
    other.discarded[0] = next(c for c in ("eruption", "fish", "volcano", "wood-sugar") if c != discarded)
    for seat in (None, 1):
        assert other.view(seat) == game.view(seat)
    assert [e["move"] for e in game.view(1)["log"] if e["seat"] == 0 and e["round"] == 2][1] == "discard"


def test_views_hold_no_deck_order_and_no_chip_pile_order() -> None:
    game = landed()
    other = game.clone()
    other.deck.reverse()
    other.chips.reverse()
    assert other.deck != game.deck
    for seat in (None, 0, 1):
        assert other.view(seat) == game.view(seat)
