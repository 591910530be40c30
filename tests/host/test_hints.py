"""Hints in the host (``bot/host/hints.py``): who may ask the coach and when, what the answer is made of (the
asker's own view, thought about in the worker pool), that asking changes nothing; and that a game with hints on
is not rated, stays out of the standings and is counted apart in the statistics, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.host.host import Host
from bot.host.settings import Settings
from bot.host.store import Store
from engine import SCORING_CARD_IDS, parse_move
from tests.host.test_host import ADA, BO, CH, CY, GUILD, SEED, Clock, first_legal, make_host, refused, user_to_move
from tests.host.test_ratings import PEOPLE, info, play_to_the_end, rows

HINT_SECONDS = 0.2
"""Quick thinking: the tests check what the coach says, not how well it plays."""


def coached_host(store: Any, clock: Clock) -> Host:
    """A host on the real island (the coach explains on it) whose coach thinks briefly."""
    return Host(store, Settings(hint_seconds=HINT_SECONDS), clock=clock, chooser=first_legal, new_seed=lambda: SEED)


@pytest.fixture
async def sqlite(tmp_path: Path) -> AsyncIterator[Store]:
    store = await Store.open(tmp_path / "hints.db")
    yield store
    await store.close()


@pytest.fixture
async def host(sqlite: Store) -> Host:
    host = coached_host(sqlite, Clock())
    await host.load()
    return host


async def three_players(host: Host, *, hints: bool = True, channel: int = CH) -> None:
    await host.lobby.open(channel, GUILD, ADA, "Ada", hints=hints)
    await host.lobby.join(channel, BO, "Bo")
    await host.lobby.join(channel, CY, "Cy")
    await host.lobby.start(channel, ADA)


async def version(store: Store, host: Host, channel: int = CH) -> tuple[int, int]:
    """The stored game's version and the length of its move log: what any change would bump."""
    row = await store.get_game(info(host, channel).game_id)
    assert row is not None
    return row.version, len(await store.moves(row.id))


def other_than(host: Host, user: int) -> int:
    return next(u for u in (ADA, BO, CY) if u != user)


# ---------------------------------------------------------------------- the answer


async def test_the_player_to_move_gets_advice_from_their_own_view_and_nothing_changes(host: Host,
                                                                                      sqlite: Store) -> None:
    await three_players(host)
    for _ in range(4):  # a few moves in: some sites taken, some cards played
        user = user_to_move(host)
        await host.play.move(CH, user, host.play.legal_moves(CH, user)[0])
    user = user_to_move(host)
    seat = host.games.seat_of(CH, user)
    before = await version(sqlite, host)
    answer = await host.hints.hint(CH, user)
    advice = answer.advice
    assert (answer.game_id, answer.channel_id, answer.seq, answer.seat) == (info(host).game_id, CH, info(host).seq,
                                                                             seat)
    assert answer.names == ("Ada", "Bo", "Cy") and advice.seat == seat
    legal = host.play.legal_moves(CH, user)
    assert advice.best.move in legal and str(parse_move(advice.best.move)) == advice.best.move
    assert advice.runner_up is not None and advice.runner_up.move in legal and advice.runner_up.move != advice.best.move
    assert advice.best.reasons and advice.playouts > 0
    # the hand it speaks of is the asker's secret hand: only their own view holds it
    own = host.play.view_for(CH, user)["you"]["scoring_cards"]
    assert sorted(c["card"] for c in advice.hand) == sorted(own) and set(own) <= set(SCORING_CARD_IDS)
    assert await version(sqlite, host) == before  # nothing stored, the game did not move
    assert user_to_move(host) == user and host.play.legal_moves(CH, user) == legal


async def test_asking_again_at_the_same_position_gives_the_same_advice_without_thinking_again(host: Host) -> None:
    await three_players(host)
    user = user_to_move(host)
    first, second = await asyncio.gather(host.hints.hint(CH, user), host.hints.hint(CH, user))
    assert first.advice is second.advice  # asked twice at once: thought about once
    third = await host.hints.hint(CH, user)
    assert third.advice is first.advice
    await host.play.move(CH, user, host.play.legal_moves(CH, user)[0])
    if user_to_move(host) == user:  # a double move goes on: a new position, new thinking
        assert (await host.hints.hint(CH, user)).advice is not first.advice


# ---------------------------------------------------------------------- refusals: in words, nothing changes


async def test_off_turn_and_outdated_questions_are_refused_and_change_nothing(host: Host, sqlite: Store) -> None:
    await three_players(host)
    user = user_to_move(host)
    waiting = other_than(host, user)
    before = await version(sqlite, host)
    error = await refused("host.error.hint_not_your_turn", host.hints.hint(CH, waiting))
    assert error.params == {"name": PEOPLE[user]}
    seq = info(host).seq
    await refused("host.error.stale", host.hints.hint(CH, user, game_id=info(host).game_id, expected_seq=seq - 1))
    await refused("host.error.stale", host.hints.hint(CH, user, game_id=info(host).game_id + 1, expected_seq=seq))
    assert await version(sqlite, host) == before
    answer = await host.hints.hint(CH, user, game_id=info(host).game_id, expected_seq=seq)  # the button of now works
    assert answer.seq == seq


async def test_no_table_no_seat_a_lobby_and_a_table_without_hints_are_refused(host: Host, sqlite: Store) -> None:
    await refused("host.error.no_game", host.hints.hint(CH, ADA))
    await host.lobby.open(CH, GUILD, ADA, "Ada", hints=True)
    await refused("host.error.not_running", host.hints.hint(CH, ADA))
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.start(CH, ADA)
    before = await version(sqlite, host)
    await refused("host.error.not_seated", host.hints.hint(CH, CY))
    await three_players(host, hints=False, channel=CH + 1)
    await refused("host.error.hints_off", host.hints.hint(CH + 1, user_to_move(host, CH + 1)))
    assert await version(sqlite, host) == before


async def test_a_seat_the_computer_plays_gets_no_hint(host: Host) -> None:
    await three_players(host)
    user = user_to_move(host)
    await host.play.away(CH, user)
    await refused("host.error.you_are_away", host.hints.hint(CH, user))  # the computer is to move for them
    async for _ in host.computers.run_computers(CH):
        pass
    await refused("host.error.you_are_away", host.hints.hint(CH, user))  # and after it moved for them


async def test_the_hints_option_is_stored_with_the_table_and_kept_by_a_restart_and_a_rematch(sqlite: Store) -> None:
    host = make_host(sqlite, Clock())
    await host.load()
    opened = await host.lobby.open(CH, GUILD, ADA, "Ada", hints=True)
    assert opened.hints
    assert (await sqlite.get_game(opened.game_id)).options["hints"] is True  # type: ignore[union-attr]
    again = make_host(sqlite, Clock())
    await again.load()
    assert info(again).hints
    await again.lobby.join(CH, BO, "Bo")
    await again.lobby.start(CH, ADA)
    last = await play_to_the_end(again)
    assert last.hints and last.game_over
    rematch = await again.lobby.rematch(CH, ADA)
    assert rematch.hints and rematch.game_id != opened.game_id
    plain = await again.lobby.open(CH + 1, GUILD, ADA, "Ada")
    assert not plain.hints


# ---------------------------------------------------------------------- not rated, counted apart (both stores)


async def finished(host: Host, users: list[int], *, hints: bool, channel: int) -> None:
    await host.lobby.open(channel, GUILD, users[0], PEOPLE[users[0]], hints=hints)
    for user in users[1:]:
        await host.lobby.join(channel, user, PEOPLE[user])
    await host.lobby.start(channel, users[0])
    await play_to_the_end(host, channel)


async def test_a_game_with_hints_is_not_rated_and_stats_count_it_apart(store: Any) -> None:
    host = make_host(store, Clock())
    await host.load()
    await finished(host, [ADA, BO], hints=True, channel=CH)
    only = await host.archive.stats(GUILD, ADA)
    assert only is not None and only.games == 0 and only.wins == 0 and only.games_with_hints == 1
    assert only.ratings == {} and only.scores == [] and only.rating_history == []
    assert (await host.archive.leaderboard(GUILD, ADA, "games")).rows == []  # not in the standings either
    await finished(host, [ADA, BO], hints=False, channel=CH + 1)
    await finished(host, [ADA, BO], hints=True, channel=CH + 2)
    stats = await host.archive.stats(GUILD, ADA)
    other = await host.archive.stats(GUILD, BO)
    assert stats is not None and other is not None
    assert (stats.games, stats.games_with_hints) == (1, 2) and (other.games, other.games_with_hints) == (1, 2)
    assert stats.wins + other.wins == 1 and stats.wins_with_hints + other.wins_with_hints == 2
    assert stats.ratings["humans"].games == 1 and len(stats.rating_history) == 1  # the one game without hints
    assert len(stats.scores) == 1
    board = await host.archive.leaderboard(GUILD, ADA, "games")
    assert {(r.user_id, r.games, r.rated_games) for r in board.rows} == {(ADA, 1, 1), (BO, 1, 1)}


async def test_the_stats_query_with_its_games_uses_indexes(sqlite: Store) -> None:
    """A person's results with whether their games had hints on: the results' index and the games' key."""
    sql = ("EXPLAIN QUERY PLAN SELECT r.score, g.options FROM results r LEFT JOIN games g ON g.id = r.game_id"
           " WHERE r.guild_id = 1 AND r.user_id = 2 ORDER BY r.finished_at, r.game_id")
    steps = [row["detail"] for row in await rows(Path(sqlite.path), sql)]
    assert all("INDEX" in step or "PRIMARY KEY" in step for step in steps if step.startswith(("SCAN", "SEARCH")))
    assert not any("TEMP B-TREE" in step for step in steps), steps
