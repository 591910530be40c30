"""Hints in the host (``bot/host/hints.py``): who may ask the coach and when, what the answer is made of (the
asker's own view, thought about in the worker pool), that asking changes nothing; and that a game with hints on
is not rated, stays out of the standings and is counted apart in the statistics, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.host.host import Host, default_game_factory
from bot.host.store import Store
from engine import SCORING_CARD_IDS, parse_move
from tests.helpers.clock import Clock
from tests.helpers.host import (
    ADA,
    BO,
    CH,
    CY,
    GUILD,
    PEOPLE,
    info,
    loaded_host,
    make_host,
    play_to_the_end,
    refused,
    rows,
    user_to_move,
)

HINT_SECONDS = 0.2
"""Quick thinking: the tests check what the coach says, not how well it plays."""


@pytest.fixture
async def coached(sqlite: Store, clock: Clock) -> Host:
    """A loaded host on the real island (the coach explains on it) whose coach thinks briefly."""
    return await loaded_host(sqlite, clock, game_factory=default_game_factory, hint_seconds=HINT_SECONDS)


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


async def test_the_player_to_move_gets_advice_from_their_own_view_and_nothing_changes(coached: Host,
                                                                                      sqlite: Store) -> None:
    await three_players(coached)
    for _ in range(4):  # a few moves in: some sites taken, some cards played
        user = user_to_move(coached)
        await coached.play.move(CH, user, coached.play.legal_moves(CH, user)[0])
    user = user_to_move(coached)
    seat = coached.games.seat_of(CH, user)
    before = await version(sqlite, coached)
    answer = await coached.hints.hint(CH, user)
    advice = answer.advice
    table = info(coached)
    assert (answer.game_id, answer.channel_id, answer.seq, answer.seat) == (table.game_id, CH, table.seq, seat)
    assert answer.names == ("Ada", "Bo", "Cy") and advice.seat == seat
    legal = coached.play.legal_moves(CH, user)
    assert advice.best.move in legal and str(parse_move(advice.best.move)) == advice.best.move
    assert advice.runner_up is not None and advice.runner_up.move in legal and advice.runner_up.move != advice.best.move
    assert advice.best.reasons and advice.playouts > 0
    # the hand it speaks of is the asker's secret hand: only their own view holds it
    own = coached.play.view_for(CH, user)["you"]["scoring_cards"]
    assert sorted(c["card"] for c in advice.hand) == sorted(own) and set(own) <= set(SCORING_CARD_IDS)
    assert await version(sqlite, coached) == before  # nothing stored, the game did not move
    assert user_to_move(coached) == user and coached.play.legal_moves(CH, user) == legal


async def test_asking_again_at_the_same_position_gives_the_same_advice_without_thinking_again(coached: Host) -> None:
    await three_players(coached)
    user = user_to_move(coached)
    first, second = await asyncio.gather(coached.hints.hint(CH, user), coached.hints.hint(CH, user))
    assert first.advice is second.advice  # asked twice at once: thought about once
    third = await coached.hints.hint(CH, user)
    assert third.advice is first.advice
    await coached.play.move(CH, user, coached.play.legal_moves(CH, user)[0])
    if user_to_move(coached) == user:  # a double move goes on: a new position, new thinking
        assert (await coached.hints.hint(CH, user)).advice is not first.advice


# ---------------------------------------------------------------------- refusals: in words, nothing changes


async def test_off_turn_and_outdated_questions_are_refused_and_change_nothing(coached: Host, sqlite: Store) -> None:
    await three_players(coached)
    user = user_to_move(coached)
    waiting = other_than(coached, user)
    before = await version(sqlite, coached)
    error = await refused("host.error.hint_not_your_turn", coached.hints.hint(CH, waiting))
    assert error.params == {"name": PEOPLE[user]}
    seq = info(coached).seq
    await refused("host.error.stale", coached.hints.hint(CH, user, game_id=info(coached).game_id, expected_seq=seq - 1))
    await refused("host.error.stale", coached.hints.hint(CH, user, game_id=info(coached).game_id + 1, expected_seq=seq))
    assert await version(sqlite, coached) == before
    # the button of now works
    answer = await coached.hints.hint(CH, user, game_id=info(coached).game_id, expected_seq=seq)
    assert answer.seq == seq


async def test_no_table_no_seat_a_lobby_and_a_table_without_hints_are_refused(coached: Host, sqlite: Store) -> None:
    await refused("host.error.no_game", coached.hints.hint(CH, ADA))
    await coached.lobby.open(CH, GUILD, ADA, "Ada", hints=True)
    await refused("host.error.not_running", coached.hints.hint(CH, ADA))
    await coached.lobby.join(CH, BO, "Bo")
    await coached.lobby.start(CH, ADA)
    before = await version(sqlite, coached)
    await refused("host.error.not_seated", coached.hints.hint(CH, CY))
    await three_players(coached, hints=False, channel=CH + 1)
    await refused("host.error.hints_off", coached.hints.hint(CH + 1, user_to_move(coached, CH + 1)))
    assert await version(sqlite, coached) == before


async def test_a_seat_the_computer_plays_gets_no_hint(coached: Host) -> None:
    await three_players(coached)
    user = user_to_move(coached)
    await coached.play.away(CH, user)
    await refused("host.error.you_are_away", coached.hints.hint(CH, user))  # the computer is to move for them
    async for _ in coached.computers.run_computers(CH):
        pass
    await refused("host.error.you_are_away", coached.hints.hint(CH, user))  # and after it moved for them


async def test_the_hints_option_is_stored_with_the_table_and_kept_by_a_restart_and_a_rematch(sqlite: Store) -> None:
    host = make_host(sqlite, Clock())
    await host.load()
    opened = await host.lobby.open(CH, GUILD, ADA, "Ada", hints=True)
    assert opened.hints
    assert (await sqlite.get_game(opened.game_id)).options["hints"] is True  # type: ignore[union-attr]
    again = make_host(sqlite, Clock())
    await again.load()
    await again.refresh.channel(CH)  # loaded when touched
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
