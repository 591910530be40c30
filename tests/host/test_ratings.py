"""Results and ratings of finished games: written with the final move, rated with openskill's Plackett–Luce
from the engine's ranking, per server and pool; computers are not rated, abandoned games leave nothing;
statistics, leaderboards and forget-me on both stores alike."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import aiosqlite
import pytest
from openskill.models import PlackettLuce

from bot.host.errors import HostError
from bot.host.host import Host
from bot.host.model import MoveRow
from bot.host.ratings import PAGE_SIZE, Rating, SeatResult, displayed, game_results, new_rating, rate
from bot.host.store import Store
from engine import Game
from engine.history import score_breakdown
from tests.helpers.clock import Clock
from tests.helpers.host import (
    ADA,
    BO,
    CH,
    CY,
    DI,
    GUILD,
    PEOPLE,
    info,
    make_host,
    play_first,
    play_to_the_end,
    rows,
    tiny_factory,
    user_to_move,
)

CHANNELS = itertools.count(1000)
async def finished_game(host: Host, users: list[int], *, computers: int = 0, channel: int = CH) -> Any:
    await host.lobby.open(channel, GUILD, users[0], PEOPLE[users[0]], computers=computers)
    for user in users[1:]:
        await host.lobby.join(channel, user, PEOPLE[user])
    await host.lobby.start(channel, users[0])
    return await play_to_the_end(host, channel)


# ---------------------------------------------------------------------- openskill from fixed rankings


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_fixed_ranking_rates_best_first_as_plackett_luce_does(players: int) -> None:
    before = [new_rating() for _ in range(players)]
    after = rate(before)
    model = PlackettLuce()
    expected = model.rate([[model.rating()] for _ in range(players)], ranks=list(range(1, players + 1)))
    assert [(r.mu, r.sigma) for r in after] == pytest.approx([(t[0].mu, t[0].sigma) for t in expected])
    assert [r.mu for r in after] == sorted((r.mu for r in after), reverse=True)  # the winner gains most
    assert after[0].mu > 25 > after[-1].mu and all(r.sigma < before[0].sigma for r in after)
    assert all(r.games == 1 for r in after)


def test_an_upset_moves_ratings_more_than_the_expected_result() -> None:
    strong, weak = Rating(35.0, 3.0, 20), Rating(20.0, 3.0, 20)
    expected, upset = rate([strong, weak]), rate([weak, strong])
    assert upset[0].mu - weak.mu > expected[0].mu - strong.mu > 0
    assert Rating(30.0, 2.0).shown == 1960  # ordinal 24 on the shown scale: 1000 + 40 × 24


def test_ties_in_score_are_ranked_as_the_engine_ranks_them() -> None:
    game = tiny_factory(["Ada", "Bo", "Cy"], 9, False)
    while not game.is_over():
        game.apply(game.legal_moves()[0])
    game.score = [20, 20, 12]
    game.stamp = [5, 3, 1]  # Bo reached 20 first: the engine puts Bo ahead of Ada
    results = game_results(game, score_breakdown(game), game_id=1, guild_id=GUILD, user_ids=[ADA, BO, CY],
                           names=["Ada", "Bo", "Cy"], finished_at=0.0)
    assert [(r.name, r.rank) for r in sorted(results, key=lambda r: r.rank)] == [("Bo", 1), ("Ada", 2), ("Cy", 3)]


# ---------------------------------------------------------------------- through the host


@pytest.mark.parametrize("users", [[ADA, BO], [ADA, BO, CY], [ADA, BO, CY, DI]])
async def test_a_finished_game_of_people_is_rated_once_by_its_ranking(host: Host, sqlite: Store,
                                                                      users: list[int]) -> None:
    last = await finished_game(host, users)
    stored = await rows(Path(sqlite.path), "SELECT * FROM results WHERE game_id = ? ORDER BY rank", last.game_id)
    assert [r["seat"] for r in stored] == list(last.ranking)
    assert [r["score"] for r in stored] == [last.view["players"][s]["score"] for s in last.ranking]
    assert all(r["players"] == len(users) and r["with_computers"] == 0 and r["guild_id"] == GUILD for r in stored)
    ratings = await rows(Path(sqlite.path), "SELECT * FROM ratings")
    by_user = {r["user_id"]: r for r in ratings}
    assert set(by_user) == set(users) and {r["pool"] for r in ratings} == {"humans"}
    in_order = [by_user[r["user_id"]]["mu"] for r in stored]
    assert in_order == sorted(in_order, reverse=True) and all(r["games"] == 1 for r in ratings)
    history = await rows(Path(sqlite.path), "SELECT * FROM rating_history WHERE game_id = ?", last.game_id)
    assert len(history) == len(users)
    winner = stored[0]["user_id"]
    stats = await host.archive.stats(GUILD, winner)
    assert stats is not None and stats.games == 1 and stats.wins == 1 and stats.ratings["humans"].games == 1
    assert stats.scores == [stored[0]["score"]] and stats.rating_history == [displayed(by_user[winner]["ordinal"])]


async def test_scoring_cards_and_bird_chips_are_counted_from_the_whole_game(host: Host, sqlite: Store) -> None:
    last = await finished_game(host, [ADA, BO])
    stored = await rows(Path(sqlite.path), "SELECT * FROM results WHERE game_id = ?", last.game_id)
    for row, player in zip(sorted(stored, key=lambda r: r["seat"]), last.view["players"], strict=True):
        assert row["bird_chips"] == sum(player["bird_chips"])
        cards = json.loads(row["scoring_cards"])
        assert set(cards) == set(player["played_scoring_cards"])  # an eruption card may bring negative points
    assert any(json.loads(r["scoring_cards"]) for r in stored)  # the game did play scoring cards


async def test_with_computers_only_the_people_are_rated_apart(host: Host, sqlite: Store) -> None:
    last = await finished_game(host, [ADA, BO], computers=1)
    stored = await rows(Path(sqlite.path), "SELECT * FROM results WHERE game_id = ?", last.game_id)
    assert len(stored) == 3 and sum(r["user_id"] is None for r in stored) == 1
    assert all(r["with_computers"] == 1 for r in stored)
    ratings = await rows(Path(sqlite.path), "SELECT * FROM ratings")
    assert {(r["user_id"], r["pool"]) for r in ratings} == {(ADA, "mixed"), (BO, "mixed")}
    people = sorted((r for r in stored if r["user_id"] is not None), key=lambda r: r["rank"])
    mu = {r["user_id"]: r["mu"] for r in ratings}
    assert mu[people[0]["user_id"]] > mu[people[1]["user_id"]]  # rated by their places among themselves


async def test_one_person_against_computers_has_results_but_no_rating(host: Host, sqlite: Store) -> None:
    await finished_game(host, [ADA], computers=2)
    assert len(await rows(Path(sqlite.path), "SELECT * FROM results")) == 3
    assert await rows(Path(sqlite.path), "SELECT * FROM ratings") == []
    stats = await host.archive.stats(GUILD, ADA)
    assert stats is not None and stats.games_with_computers == 1 and stats.ratings == {}


async def test_an_abandoned_game_is_not_rated(host: Host, sqlite: Store) -> None:
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.start(CH, ADA)
    await play_first(host)
    await host.lobby.abandon(CH, ADA)
    for table in ("results", "ratings", "rating_history", "standings"):
        assert await rows(Path(sqlite.path), f"SELECT * FROM {table}") == []
    assert await host.archive.stats(GUILD, ADA) is None


async def test_ratings_accumulate_per_server(host: Host, sqlite: Store) -> None:
    await finished_game(host, [ADA, BO])
    await host.lobby.rematch(CH, ADA)
    await host.lobby.start(CH, ADA)
    await play_to_the_end(host)
    stats = await host.archive.stats(GUILD, ADA)
    assert stats is not None and stats.games == 2 and stats.ratings["humans"].games == 2
    assert len(stats.rating_history) == 2
    assert await host.archive.stats(GUILD + 1, ADA) is None  # another server knows nothing of it


async def test_forget_me_removes_the_person_and_nothing_else(host: Host, sqlite: Store) -> None:
    last = await finished_game(host, [ADA, BO])
    moves_before = await sqlite.moves(last.game_id)
    forgotten = await host.people.forget_me(ADA)
    assert forgotten.results == 1 and forgotten.ratings == 1 and forgotten.history == 1
    assert forgotten.games_renamed == 1
    path = Path(sqlite.path)
    for table in ("results", "ratings", "rating_history", "standings"):
        assert [r["user_id"] for r in await rows(path, f"SELECT user_id FROM {table}")] == [BO]
    game = await sqlite.get_game(last.game_id)
    assert game is not None
    names = {s["user_id"]: s["name"] for s in game.seats}
    assert names == {ADA: "former player", BO: "Bo"}
    assert await sqlite.moves(last.game_id) == moves_before  # the moves stay
    assert await host.archive.stats(GUILD, ADA) is None
    bo = await host.archive.stats(GUILD, BO)
    assert bo is not None and bo.games == 1
    info = host.games.info(CH)
    assert info is not None and {s.name for s in info.seats} == {"former player", "Bo"}


async def test_a_failed_final_write_stores_neither_the_move_nor_the_results(host: Host, sqlite: Store) -> None:
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.start(CH, ADA)
    while True:
        user = user_to_move(host)
        move = host.play.legal_moves(CH, user)[0]
        game = host.games.tables[CH].game  # the test looks ahead with a copy of the game, never changing it
        assert game is not None
        ahead = Game.from_json(game.to_json())
        ahead.apply(move)
        if ahead.is_over():
            break
        await play_first(host)
    async with aiosqlite.connect(sqlite.path) as conn:
        # a storage fault at the results: the table it writes through is gone
        await conn.execute("CREATE TRIGGER no_results BEFORE INSERT ON results BEGIN"
                           " INSERT INTO lost_table VALUES (1); END")
        await conn.commit()
    before = info(host)
    with pytest.raises(HostError, match=r"host\.error\.storage"):  # the player is told storage failed
        await host.play.move(CH, user, move)
    assert info(host).status == "running" and info(host).seq == before.seq
    assert len(await sqlite.moves(before.game_id)) == before.seq
    assert await rows(Path(sqlite.path), "SELECT * FROM ratings") == []


# ---------------------------------------------------------------------- both stores alike


def seat_results(game_id: int, ranking: list[int], *, guild: int = GUILD, computers: tuple[int, ...] = ()
                 ) -> list[SeatResult]:
    """Results of a game whose seats ``ranking`` are user ids in finishing order (computers: seats with no user)."""
    n = len(ranking)
    return [SeatResult(guild_id=guild, game_id=game_id, seat=place - 1,
                       user_id=None if place - 1 in computers else user, name=f"P{user}", score=50 - place,
                       rank=place, players=n, with_computers=bool(computers), finished_at=1000.0 + game_id,
                       scoring_cards={"sheep": 7} if place == 1 else {}, bird_chips=place)
            for place, user in enumerate(ranking, start=1)]


async def store_finished(store: Any, ranking: list[int], **kwargs: Any) -> int:
    game_id = await store.insert_game(channel_id=next(CHANNELS), guild_id=GUILD,
                                      opener_id=ranking[0], seats=[{"user_id": u, "name": f"P{u}"} for u in ranking],
                                      options={}, seed=1, status="running", locale="de", now=1.0)
    await store.append_move(MoveRow(game_id, 1, 0, ranking[0], "pass", None, 2.0),
                            results=seat_results(game_id, ranking, **kwargs), status="over")
    return int(game_id)


async def test_both_stores_keep_results_ratings_and_boards_alike(store: Any) -> None:
    players = list(range(1, PAGE_SIZE + 4))  # 13 people: two pages
    for i in range(len(players) - 1):
        await store_finished(store, [players[i], players[i + 1]])
    await store_finished(store, [1, 2, 3], computers=(1,))
    results, ratings, history = await store.player_history(GUILD, 1)
    assert [r["rank"] for r in results] == [1, 1] and results[0]["scoring_cards"] == {"sheep": 7}
    assert set(ratings) == {"humans", "mixed"} and ratings["humans"].games == 1 and len(history["humans"]) == 1
    board = await store.leaderboard(GUILD, "games", 0, 13)
    assert board.pages == 2 and len(board.rows) == PAGE_SIZE
    assert [r.place for r in board.rows] == list(range(1, PAGE_SIZE + 1))
    assert board.rows[0].games >= board.rows[-1].games
    assert board.own is not None and board.own.user_id == 13 and board.own.place > PAGE_SIZE
    second = await store.leaderboard(GUILD, "games", 1, 13)
    assert second.page == 1 and second.own is None and any(r.user_id == 13 for r in second.rows)
    assert {r.user_id for r in board.rows} | {r.user_id for r in second.rows} == set(players)
    by_rating = await store.leaderboard(GUILD, "rating", 5, 99)
    assert by_rating.page == by_rating.pages - 1 and by_rating.own is None  # clamped; 99 never played
    ratings_shown = [r.rating or 0 for r in (await store.leaderboard(GUILD, "rating", 0, 1)).rows]
    assert len(ratings_shown) == PAGE_SIZE and ratings_shown == sorted(ratings_shown, reverse=True)
    forgotten = await store.forget_user(2, {"en": "former player", "de": "ehemalige Person", "fr": "x"})
    assert forgotten.games_renamed == 3 and forgotten.results == 2  # in the third game seat 1 was a computer
    assert (await store.player_history(GUILD, 2)) == ([], {}, {})
    assert (await store.player_history(GUILD, 3))[0] != []


async def test_the_history_queries_use_their_indexes(sqlite: Store) -> None:
    """With 10,000 finished games stats and leaderboards must stay fast: no query scans a whole table."""
    plans = {
        "stats": "SELECT * FROM results WHERE guild_id = 1 AND user_id = 2 ORDER BY finished_at, game_id",
        "history": "SELECT ordinal FROM rating_history WHERE guild_id = 1 AND pool = 'humans' AND user_id = 2"
                   " ORDER BY at, game_id",
        "by rating": "SELECT s.name FROM ratings r JOIN standings s ON s.guild_id = r.guild_id"
                     " AND s.user_id = r.user_id WHERE r.guild_id = 1 AND r.pool = 'humans'"
                     " ORDER BY r.ordinal DESC, r.user_id LIMIT 10",
        "by wins": "SELECT s.name FROM standings s WHERE s.guild_id = 1 ORDER BY s.wins DESC, s.user_id LIMIT 10",
        "by games": "SELECT s.name FROM standings s WHERE s.guild_id = 1 ORDER BY s.games DESC, s.user_id LIMIT 10",
    }
    for what, sql in plans.items():
        steps = [row["detail"] for row in await rows(Path(sqlite.path), f"EXPLAIN QUERY PLAN {sql}")]
        assert all("INDEX" in step for step in steps if step.startswith(("SCAN", "SEARCH"))), (what, steps)
        assert not any("TEMP B-TREE" in step for step in steps), (what, steps)


async def test_a_locked_database_makes_forget_me_change_nothing(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "locked.db", busy_timeout=0.1)
    host = make_host(store, Clock())
    await host.load()
    try:
        await finished_game(host, [ADA, BO])
        async with aiosqlite.connect(store.path, isolation_level=None) as other:
            await other.execute("BEGIN IMMEDIATE")  # another process writing: "database is locked"
            with pytest.raises(HostError) as refused:
                await host.people.forget_me(ADA)
            await other.execute("ROLLBACK")
        assert refused.value.key == "bot.stats.storage_failed"
        assert {s.name for s in info(host).seats} == {"Ada", "Bo"}  # memory unchanged too
        stats = await host.archive.stats(GUILD, ADA)
        assert stats is not None and stats.games == 1 and "humans" in stats.ratings
        assert (await host.people.forget_me(ADA)).results == 1  # and it works once the lock is gone
    finally:
        await store.close()
