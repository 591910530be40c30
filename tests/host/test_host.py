"""The host through its public API, on real SQLite files: lobby rules, refusals, play, computers,
undo, away, restarts, duplicates, simultaneous moves and turn reminders. No timing assertions but one generous upper
bound: a computer keeps to AI_SECONDS while the event loop is busy."""

from __future__ import annotations

import asyncio
import json
import re
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from bot.host.errors import HostError
from bot.host.host import Host
from bot.host.model import UNDO, effective_moves
from bot.host.settings import Settings
from bot.host.store import SCHEMA_VERSION, Store
from bot.host.table import TableInfo
from engine import SCORING_CARD_IDS, Game, replay
from engine.ai import OFFERED, STRENGTHS
from i18n import LOCALES, catalogue, t
from tests.helpers.clock import START, Clock
from tests.helpers.engine import TINY
from tests.helpers.host import (
    ADA,
    BO,
    CH,
    CH2,
    CY,
    DI,
    GUILD,
    SEED,
    as_left_by_version,
    make_host,
    play_first,
    refused,
    tiny_factory,
    user_to_move,
)

# ---------------------------------------------------------------------- helpers


async def replayed(store: Store, game_id: int) -> Game:
    """The game replayed from the moves table (undo rows applied)."""
    row = await store.get_game(game_id)
    assert row is not None
    game = tiny_factory([s["name"] for s in row.seats], row.seed, row.options["draft"])
    for move in effective_moves(await store.moves(game_id)):
        game.apply(move.move)
    return game


async def assert_snapshot_is_replay(store: Store, game_id: int) -> Game:
    row = await store.get_game(game_id)
    assert row is not None and row.state is not None
    game = await replayed(store, game_id)
    assert Game.from_json(row.state) == game
    return game


async def two_player_game(host: Host, *, draft: bool = False) -> None:
    await host.lobby.open(CH, GUILD, ADA, "Ada", draft=draft)
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.start(CH, ADA)


# ---------------------------------------------------------------------- lobby


async def test_open_seats_the_opener_and_the_computers(host: Host) -> None:
    info = await host.lobby.open(CH, GUILD, ADA, "Ada", draft=True, locale="de", computers=2, strength="expert")
    assert info.status == "lobby" and info.opener_id == ADA and info.opener_name == "Ada"
    assert info.draft and info.locale == "de"
    assert [(s.user_id, s.is_computer, s.strength) for s in info.seats] == [
        (ADA, False, None), (None, True, "expert"), (None, True, "expert")]
    assert [s.name for s in info.seats[1:]] == ["Computer 1", "Computer 2"]
    assert info.humans == (ADA,)


async def test_a_second_game_in_the_channel_is_refused(host: Host, sqlite: Store, clock: Clock) -> None:
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await refused("host.error.game_exists", host.lobby.open(CH, GUILD, BO, "Bo"))
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.start(CH, ADA)
    await refused("host.error.game_exists", host.lobby.open(CH, GUILD, CY, "Cy"))
    # the database refuses it too, even for a host that did not load the channel's game
    other = make_host(sqlite, clock)
    await refused("host.error.game_exists", other.lobby.open(CH, GUILD, CY, "Cy"))
    # another channel is free
    assert (await host.lobby.open(CH2, GUILD, CY, "Cy")).status == "lobby"


async def test_join_and_leave(host: Host) -> None:
    await refused("host.error.no_game", host.lobby.join(CH, BO, "Bo"))
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await host.lobby.join(CH, BO, "Bo")
    await refused("host.error.already_seated", host.lobby.join(CH, BO, "Bo"))
    await refused("host.error.not_seated", host.lobby.leave(CH, CY))
    info = await host.lobby.leave(CH, ADA)  # the opener leaves: the next person opens
    assert info.opener_id == BO and [s.user_id for s in info.seats] == [BO]
    info = await host.lobby.leave(CH, BO)  # nobody left: the lobby closes and the channel is free
    assert info.status == "abandoned"
    assert (await host.lobby.open(CH, GUILD, CY, "Cy")).status == "lobby"


async def test_a_lobby_with_only_computers_left_closes(host: Host) -> None:
    await host.lobby.open(CH, GUILD, ADA, "Ada", computers=1)
    assert (await host.lobby.leave(CH, ADA)).status == "abandoned"


async def test_at_most_four_players(host: Host) -> None:
    await refused("host.error.too_many_players", host.lobby.open(CH, GUILD, ADA, "Ada", computers=4))
    await host.lobby.open(CH, GUILD, ADA, "Ada", computers=2)
    await host.lobby.join(CH, BO, "Bo")
    await refused("host.error.lobby_full_computers", host.lobby.join(CH, CY, "Cy"))  # a computer seat could make room
    await refused("host.error.lobby_full_computers", host.lobby.add_computer(CH, ADA))
    info = await host.lobby.remove_computer(CH, ADA)
    assert [s.user_id for s in info.seats] == [ADA, None, BO]
    info = await host.lobby.join(CH, CY, "Cy")
    assert len(info.seats) == 4


async def test_start_needs_two_players(host: Host) -> None:
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await refused("host.error.too_few_players", host.lobby.start(CH, ADA))
    info = await host.lobby.add_computer(CH, ADA, "random")
    assert info.seats[1].strength == "random"
    await host.lobby.remove_computer(CH, ADA)
    await refused("host.error.no_computer", host.lobby.remove_computer(CH, ADA))
    await refused("host.error.too_few_players", host.lobby.start(CH, ADA))


async def test_only_the_opener_or_a_manager_starts(host: Host) -> None:
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await host.lobby.join(CH, BO, "Bo")
    error = await refused("host.error.not_opener", host.lobby.start(CH, BO))
    assert error.params == {"opener": "Ada"}
    await refused("host.error.not_opener", host.lobby.add_computer(CH, BO))
    await refused("host.error.not_opener", host.lobby.abandon(CH, BO))
    result = await host.lobby.start(CH, BO, can_manage=True)
    assert result.info.status == "running"
    assert set(result.dm_user_ids) == {ADA, BO}
    assert result.to_move_user_id == result.info.seats[result.to_move].user_id
    assert not result.computer_to_move
    assert "you" not in result.view


async def test_lobby_actions_after_the_start_are_refused(host: Host) -> None:
    await two_player_game(host)
    await refused("host.error.not_in_lobby", host.lobby.join(CH, CY, "Cy"))
    await refused("host.error.not_in_lobby", host.lobby.start(CH, ADA))
    await refused("host.error.not_in_lobby", host.lobby.add_computer(CH, ADA))
    await refused("host.error.leave_running", host.lobby.leave(CH, ADA))


async def test_bad_options_are_refused(host: Host) -> None:
    error = await refused("host.error.bad_locale", host.lobby.open(CH, GUILD, ADA, "Ada", locale="es"))
    assert error.params == {"locale": "es", "choices": "en, de, fr"}
    error = await refused("host.error.bad_strength", host.lobby.open(CH, GUILD, ADA, "Ada", strength="godlike"))
    assert error.params == {"strength": "godlike", "choices": ", ".join(OFFERED)}
    assert host.games.info(CH) is None


async def test_every_offered_strength_seats_a_computer_and_no_other_does(host: Host) -> None:
    assert {"random", "greedy", "expert"} <= set(OFFERED) <= set(STRENGTHS)
    for channel, strength in enumerate(STRENGTHS, start=CH):
        if strength in OFFERED:
            info = await host.lobby.open(channel, GUILD, ADA, "Ada", computers=1, strength=strength.upper())
            info = await host.lobby.add_computer(channel, ADA, strength)
            assert [s.strength for s in info.seats] == [None, strength, strength]
        else:
            error = await refused("host.error.bad_strength", host.lobby.open(channel, GUILD, ADA, "Ada", computers=1,
                                                                        strength=strength))
            assert error.params["choices"] == ", ".join(OFFERED) and host.games.info(channel) is None
            await host.lobby.open(channel, GUILD, ADA, "Ada")
            await refused("host.error.bad_strength", host.lobby.add_computer(channel, ADA, strength))
            assert [s.is_computer for s in host.games.info(channel).seats] == [False]


async def test_abandon_frees_the_channel(host: Host) -> None:
    await two_player_game(host)
    info = await host.lobby.abandon(CH, ADA)
    assert info.status == "abandoned"
    await refused("host.error.no_game", host.play.move(CH, ADA, "land 1"))
    await refused("host.error.no_game", host.lobby.abandon(CH, ADA))
    await refused("host.error.not_over", host.lobby.rematch(CH, ADA))
    await host.lobby.open(CH, GUILD, BO, "Bo")


# ---------------------------------------------------------------------- refusals in play


async def test_moves_are_refused_without_a_running_game(host: Host) -> None:
    await refused("host.error.no_game", host.play.move(CH, ADA, "land 1"))
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await refused("host.error.not_running", host.play.move(CH, ADA, "land 1"))
    await refused("host.error.not_running", host.play.undo(CH, ADA))
    assert host.play.legal_moves(CH, ADA) == []


async def test_not_seated_and_not_your_turn(host: Host) -> None:
    await two_player_game(host)
    await refused("host.error.not_seated", host.play.move(CH, CY, "land 1"))
    mover = user_to_move(host)
    waiting = BO if mover == ADA else ADA
    error = await refused("host.error.not_your_turn", host.play.move(CH, waiting, "land 1"))
    assert error.params == {"name": "Ada" if mover == ADA else "Bo"}
    assert host.play.legal_moves(CH, waiting) == []
    assert host.play.legal_moves(CH, mover) == ["land 1", "land 2", "land 3", "land 4"]
    assert host.play.legal_moves(CH, mover, prefix="LAND 3") == ["land 3"]
    assert host.games.info(CH).seq == 0


async def test_illegal_moves_change_nothing(host: Host, sqlite: Store) -> None:
    await two_player_game(host)
    mover = user_to_move(host)
    before = host.play.view_for(CH, mover)
    for text, reason in (("fly 3", "not a move"), ("land 9", ""), ("", "no move given")):
        error = await refused("host.error.illegal_move", host.play.move(CH, mover, text, interaction_id=1))
        assert reason in error.params["reason"] and error.params["move"] == text
    assert host.play.view_for(CH, mover) == before
    assert await sqlite.moves(host.games.info(CH).game_id) == []
    # the refused interaction was not stored, so the same interaction may still make a legal move
    assert (await host.play.move(CH, mover, "land 1", interaction_id=1)).move == "land 1"


async def test_a_scoring_card_not_in_hand_is_refused(host: Host) -> None:
    await two_player_game(host)
    await play_first(host)
    await play_first(host)  # both landed: the play phase
    mover = user_to_move(host)
    hand = host.play.view_for(CH, mover)["you"]["scoring_cards"]
    missing = next(c for c in SCORING_CARD_IDS if c not in hand)
    error = await refused("host.error.illegal_move", host.play.move(CH, mover, f"score {missing}"))
    assert error.params["reason"]
    assert (await host.play.move(CH, mover, f"score {hand[0]}")).move == f"score {hand[0]}"


async def test_stale_buttons_are_refused(host: Host) -> None:
    await two_player_game(host)
    info = host.games.info(CH)
    await refused("host.error.stale", host.play.move(CH, user_to_move(host), "land 1", expected_seq=3))
    await refused("host.error.stale", host.play.move(CH, user_to_move(host), "land 1", game_id=info.game_id + 1))
    result = await host.play.move(CH, user_to_move(host), "land 1", expected_seq=0, game_id=info.game_id)
    assert result.seq == 1


def test_every_error_key_has_a_text_in_every_language() -> None:
    root = Path(__file__).resolve().parents[2]
    source = "".join(path.read_text(encoding="utf-8") for path in sorted((root / "bot" / "host").glob("*.py")))
    keys = set(re.findall(r'"(host\.[a-z_.]+)"', source))
    assert len(keys) > 25
    host_json = {lang: json.loads((root / f"i18n/locales/{lang}/host.json").read_text(encoding="utf-8"))
                 for lang in LOCALES}
    assert host_json["en"].keys() == keys
    for lang in LOCALES:
        assert host_json[lang].keys() == keys
        for key in keys:
            placeholders = set(re.findall(r"{(\w+)}", catalogue(lang)[key]))
            assert placeholders == set(re.findall(r"{(\w+)}", catalogue("en")[key])), (lang, key)
    assert HostError("host.error.lobby_full", max=4).text("de").startswith("Alle Plätze")
    assert t("host.computer_name", "fr", number=2) == "Ordinateur 2"


# ---------------------------------------------------------------------- moves and results


async def test_a_move_result_has_what_the_channel_message_needs(host: Host, sqlite: Store) -> None:
    await two_player_game(host)
    mover = user_to_move(host)
    result = await host.play.move(CH, mover, "land 4", interaction_id=555)
    info = host.games.info(CH)
    assert (result.game_id, result.channel_id, result.locale, result.seq) == (info.game_id, CH, "en", 1)
    assert result.user_id == mover and result.name == ("Ada" if mover == ADA else "Bo")
    assert not result.by_computer and not result.undo and result.move == "land 4"
    assert [e["type"] for e in result.events] == ["build", "score", "bird"]
    assert all("secret" not in e and "value" not in e for e in result.events)
    assert result.view["log"][-1]["move"] == "land 4" and "you" not in result.view
    assert result.to_move == info.to_move != result.seat
    assert result.to_move_user_id == user_to_move(host) and not result.computer_to_move
    # drew a bird chip: their hand changed, by their own move, so no DM for it (their next turn DM shows it)
    assert result.secret_changed == (result.seat,) and result.dm_user_ids == ()
    assert not result.game_over and result.ranking is None
    rows = await sqlite.moves(info.game_id)
    assert [(r.seq, r.seat, r.user_id, r.move, r.interaction_id) for r in rows] == [
        (1, result.seat, mover, "land 4", 555)]
    await assert_snapshot_is_replay(sqlite, info.game_id)


async def test_move_notation_is_stored_canonically(host: Host, sqlite: Store) -> None:
    await two_player_game(host)
    result = await host.play.move(CH, user_to_move(host), "  LAND   2 ")
    assert result.move == "land 2"
    assert (await sqlite.moves(result.game_id))[0].move == "land 2"


async def test_secrets_stay_in_the_seat_view(host: Host) -> None:
    await two_player_game(host)
    result = await play_first(host)
    for answer in (result, host.games.info(CH)):
        assert str(SEED) not in repr(answer) and str(SEED) not in json.dumps(asdict(answer), default=str)
    ada, bo = host.play.view_for(CH, ADA), host.play.view_for(CH, BO)
    assert ada["you"]["seat"] != bo["you"]["seat"]
    public = host.play.public_view(CH)
    assert "you" not in public and host.play.view_for(CH, CY) == public  # not seated: the public view
    text = json.dumps(public)
    assert "scoring_cards\"" not in text.replace("played_scoring_cards\"", "")


async def test_view_helpers_refuse_without_a_started_game(host: Host) -> None:
    with pytest.raises(HostError, match="no_game"):
        host.play.public_view(CH)
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    with pytest.raises(HostError, match="not_running"):
        host.play.view_for(CH, ADA)


# ---------------------------------------------------------------------- computers


async def test_a_full_game_with_computer_seats(host: Host, sqlite: Store) -> None:
    await host.lobby.open(CH, GUILD, ADA, "Ada", draft=True, computers=2, strength="greedy")
    start = await host.lobby.start(CH, ADA)
    assert start.dm_user_ids == (ADA,)
    results = []
    while host.games.info(CH).status == "running":
        async for result in host.computers.run_computers(CH):
            assert result.by_computer and result.user_id is None and result.name.startswith("Computer")
            # only people get DMs, and only when their own secrets changed
            assert result.dm_user_ids == ((ADA,) if host.games.seat_of(CH, ADA) in result.secret_changed else ())
            results.append(result)
        if host.games.info(CH).status != "running":
            break
        assert results == [] or results[-1].to_move_user_id == ADA or not results[-1].computer_to_move
        result = await play_first(host, interaction_id=10_000 + len(results))
        assert not result.by_computer and result.user_id == ADA
        results.append(result)
    last = results[-1]
    assert last.game_over and last.to_move is None and last.to_move_user_id is None
    assert sorted(last.ranking) == [0, 1, 2] and last.view["winner"] == last.ranking[0]
    assert [r.seq for r in results] == list(range(1, len(results) + 1))
    assert host.games.info(CH).status == "over" and host.play.legal_moves(CH, ADA) == []
    game_id = last.game_id
    assert len(await sqlite.moves(game_id)) == len(results)
    game = await assert_snapshot_is_replay(sqlite, game_id)
    assert game.is_over()
    assert (await sqlite.get_game(game_id)).next_reminder_at is None
    await refused("host.error.game_over", host.play.move(CH, ADA, "pass"))
    # nothing more to run
    assert [r async for r in host.computers.run_computers(CH)] == []


async def test_the_default_island_and_the_engine_computer_players(sqlite: Store, clock: Clock) -> None:
    host = Host(sqlite, Settings(ai_seconds=0.05), clock=clock)  # engine.new_game and engine.ai
    await host.lobby.open(CH, GUILD, ADA, "Ada", computers=1, strength="random")
    await host.lobby.add_computer(CH, ADA, "greedy")
    await host.lobby.add_computer(CH, ADA, "expert")
    await host.lobby.start(CH, ADA)
    await host.play.away(CH, ADA)
    results = [r async for r in host.computers.run_computers(CH)]
    assert results[-1].game_over and all(r.by_computer for r in results)
    row = await sqlite.get_game(results[-1].game_id)
    moves = [m.move for m in effective_moves(await sqlite.moves(row.id))]
    game = replay([s["name"] for s in row.seats], row.seed, moves)
    assert Game.from_json(row.state) == game and game.is_over()


async def test_computers_move_first_and_stop_at_the_person(host: Host) -> None:
    await host.lobby.open(CH, GUILD, ADA, "Ada", computers=1)
    start = await host.lobby.start(CH, ADA)
    results = [r async for r in host.computers.run_computers(CH)]
    if start.computer_to_move:
        assert len(results) == 1 and results[0].to_move_user_id == ADA
    else:
        assert results == []
    assert user_to_move(host) == ADA


async def test_a_failing_or_illegal_computer_still_moves(sqlite: Store, clock: Clock) -> None:
    calls: list[str] = []

    def broken(view: dict[str, Any], strength: str, seed: int, budget: float) -> str:
        calls.append(strength)
        if len(calls) == 1:
            raise RuntimeError("the computer player crashed")
        return "fly away"

    host = Host(sqlite, Settings(ai_strength="expert"), clock=clock, game_factory=tiny_factory, chooser=broken)
    await host.lobby.open(CH, GUILD, ADA, "Ada", computers=1)
    await host.lobby.start(CH, ADA)
    await host.play.away(CH, ADA)
    results = [r async for r in host.computers.run_computers(CH)]
    assert len(results) == len(calls) > 2 and all(r.by_computer for r in results)
    assert results[-1].game_over and calls[0] == "expert"


async def test_an_away_seat_is_played_at_ai_strength_off_a_busy_loop_within_ai_seconds(
        sqlite: Store, clock: Clock) -> None:
    """The stand-in of an away person plays at AI_STRENGTH (here the strongest offered, engine.ai.STRONGEST) in the
    worker pool, not on the event loop's thread, with AI_SECONDS to think, and keeps to it while the event loop is
    busy computing (in a thread it shares the interpreter with the loop; its own clock stops it, as
    tests/engine/test_master.py checks playout by playout). A search that ignored its budget would think for ever."""
    import threading

    from engine.ai import STRONGEST, choose_move

    seconds = 0.2
    calls: list[tuple[str, float, bool, float]] = []
    loop_thread = threading.get_ident()

    def engine_player(view: dict[str, Any], strength: str, seed: int, budget: float) -> str:
        started = time.perf_counter()
        move = choose_move(view, strength=strength, seed=seed, budget=budget, island=TINY)
        calls.append((strength, budget, threading.get_ident() != loop_thread, time.perf_counter() - started))
        return move

    async def busy(stop: asyncio.Event) -> int:
        """The loop computes 20 ms at a time, as a slow command would, until told to stop; how often it did."""
        chunks = 0
        while not stop.is_set():
            until = time.perf_counter() + 0.02
            while time.perf_counter() < until:
                pass
            chunks += 1
            await asyncio.sleep(0)
        return chunks

    host = Host(sqlite, Settings(ai_strength=STRONGEST, ai_seconds=seconds), clock=clock, game_factory=tiny_factory,
                chooser=engine_player)
    await two_player_game(host)
    while len(host.play.legal_moves(CH, user_to_move(host))) < 3:  # a position the search thinks about
        await play_first(host)
    mover = user_to_move(host)
    await host.play.away(CH, mover)
    stop = asyncio.Event()
    hog = asyncio.create_task(busy(stop))
    results = [r async for r in host.computers.run_computers(CH)]
    stop.set()
    assert await hog > 0  # the loop kept computing while the computer thought
    assert len(results) == 1 and results[0].by_computer and results[0].user_id == mover
    assert calls and all(c[:3] == (STRONGEST, seconds, True) for c in calls)
    assert all(c[3] < seconds + 1.0 for c in calls), calls  # its budget and one playout; generous for a busy machine


async def test_computer_moves_run_off_the_event_loop(sqlite: Store, clock: Clock) -> None:
    """While a computer thinks (blocked in its thread), the host answers another channel."""
    import threading

    release = threading.Event()
    entered = threading.Event()

    def slow(view: dict[str, Any], strength: str, seed: int, budget: float) -> str:
        entered.set()
        assert release.wait(30)
        return view["you"]["legal_moves"][0]

    host = Host(sqlite, Settings(), clock=clock, game_factory=tiny_factory, chooser=slow)
    await host.lobby.open(CH, GUILD, ADA, "Ada", computers=1)
    await host.lobby.start(CH, ADA)
    if not host.games.info(CH).seats[host.games.info(CH).to_move].is_computer:
        await play_first(host)

    async def one() -> Any:
        return await anext(host.computers.run_computers(CH))

    task = asyncio.create_task(one())
    assert await asyncio.to_thread(entered.wait, 60)
    info = await host.lobby.open(CH2, GUILD, BO, "Bo")  # answered while the computer is thinking
    assert info.status == "lobby" and not task.done()
    release.set()
    result = await task
    assert result.by_computer


async def test_away_and_back(host: Host, sqlite: Store) -> None:
    await two_player_game(host)
    mover = user_to_move(host)
    other = BO if mover == ADA else ADA
    change = await host.play.away(CH, mover)
    assert change.away and change.user_id == mover and change.computer_to_move
    assert change.info.seats[change.seat].away
    await refused("host.error.already_away", host.play.away(CH, mover))
    await refused("host.error.you_are_away", host.play.move(CH, mover, "land 1"))
    assert host.play.legal_moves(CH, mover) == []
    results = [r async for r in host.computers.run_computers(CH)]
    assert len(results) == 1 and results[0].by_computer and results[0].user_id == mover
    assert (await sqlite.moves(results[0].game_id))[0].user_id is None  # stored as a computer move
    assert results[0].to_move_user_id == other
    await play_first(host)  # the other person moves; now the computer again, for the away seat
    assert [r.user_id for r in [r async for r in host.computers.run_computers(CH)]] == [mover]
    change = await host.play.back(CH, mover)
    assert not change.away and not change.computer_to_move
    await refused("host.error.not_away", host.play.back(CH, mover))
    await refused("host.error.not_seated", host.play.away(CH, CY))


async def test_the_opener_hands_over_a_player_only_after_the_time_limit(host: Host, clock: Clock) -> None:
    await two_player_game(host)
    if user_to_move(host) == ADA:
        await play_first(host)
    assert user_to_move(host) == BO
    await refused("host.error.not_opener", host.play.hand_over(CH, BO, ADA))
    await refused("host.error.not_overdue", host.play.hand_over(CH, ADA, BO))
    clock.advance(47.5)
    error = await refused("host.error.not_overdue", host.play.hand_over(CH, ADA, BO))
    assert error.params == {"name": "Bo", "hours": "48"}
    clock.advance(1)
    await refused("host.error.not_overdue", host.play.hand_over(CH, BO, ADA, can_manage=True))  # Ada is not to move
    change = await host.play.hand_over(CH, ADA, BO)
    assert change.away and change.computer_to_move and change.seat == host.games.seat_of(CH, BO)


# ---------------------------------------------------------------------- undo


def undoable_first_move(host: Host) -> str:
    game = tiny_factory(["x", "y"], SEED, True)
    move = str(game.legal_moves()[0])
    assert host.play.legal_moves(CH, user_to_move(host))[0] == move
    return move


async def test_undo_takes_back_a_move_that_revealed_nothing(host: Host, sqlite: Store) -> None:
    await two_player_game(host, draft=True)
    mover = user_to_move(host)
    before = host.play.view_for(CH, mover)
    moved = await host.play.move(CH, mover, undoable_first_move(host), interaction_id=1)
    result = await host.play.undo(CH, mover, interaction_id=2)
    assert result.undo and result.move == moved.move and result.seq == 2 and result.events == []
    assert result.to_move == moved.seat and result.to_move_user_id == mover
    assert host.play.view_for(CH, mover)["you"] == before["you"] and host.games.info(CH).to_move == before["to_move"]
    rows = await sqlite.moves(result.game_id)
    assert [(r.seq, r.move, r.user_id) for r in rows] == [(1, moved.move, mover), (2, UNDO, mover)]
    game = await assert_snapshot_is_replay(sqlite, result.game_id)
    assert game.moves == []
    await refused("host.error.already_done", host.play.undo(CH, mover, interaction_id=2))
    await refused("host.error.undo_nothing", host.play.undo(CH, mover))


async def test_undo_twice_when_nobody_else_acted(host: Host) -> None:
    await two_player_game(host, draft=True)
    mover = user_to_move(host)
    await play_first(host)
    # the same player takes it back, plays again, and takes that back too
    await host.play.undo(CH, mover)
    await play_first(host)
    await host.play.undo(CH, mover)
    assert host.games.info(CH).seq == 4 and user_to_move(host) == mover


async def test_undo_is_refused_after_another_acted(host: Host) -> None:
    await two_player_game(host, draft=True)
    first = user_to_move(host)
    await play_first(host)  # a set choice: nothing hidden
    second = user_to_move(host)
    await refused("host.error.undo_not_last", host.play.undo(CH, second))  # not theirs
    await play_first(host)
    await refused("host.error.undo_not_last", host.play.undo(CH, first))  # someone acted since
    await refused("host.error.not_seated", host.play.undo(CH, CY))


async def test_undo_is_refused_when_something_was_revealed(host: Host) -> None:
    await two_player_game(host)
    mover = user_to_move(host)
    await host.play.move(CH, mover, "land 1")  # reveals the neighbouring face-down tile
    await refused("host.error.undo_hidden", host.play.undo(CH, mover))


async def test_undo_is_refused_after_a_computer_moved(host: Host) -> None:
    await host.lobby.open(CH, GUILD, ADA, "Ada", draft=True, computers=1)
    await host.lobby.start(CH, ADA)
    async for _ in host.computers.run_computers(CH):
        pass
    while True:  # until the computer moves right after one of Ada's moves
        await play_first(host)
        if [r async for r in host.computers.run_computers(CH)]:
            break
    await refused("host.error.undo_not_last", host.play.undo(CH, ADA))


# ---------------------------------------------------------------------- restarts, duplicates, races


async def test_a_second_host_on_the_same_file_continues_the_game(sqlite_path: Path, clock: Clock) -> None:
    store = await Store.open(sqlite_path)
    first = make_host(store, clock)
    await two_player_game(first)
    await host_lobby(first)
    for i in range(5):
        await play_first(first, interaction_id=900 + i)
    view_before = first.play.public_view(CH)
    seats_before = {u: first.play.view_for(CH, u) for u in (ADA, BO)}
    lobby_before = first.games.info(CH2)
    await store.close()

    store = await Store.open(sqlite_path)
    second = make_host(store, clock)
    assert await second.load() == []  # neither owes work: each is read when touched
    touched = [await second.refresh.channel(channel) for channel in (CH, CH2)]
    assert [info.channel_id if info is not None else None for info in touched] == [CH, CH2]
    assert second.play.public_view(CH) == view_before
    assert {u: second.play.view_for(CH, u) for u in (ADA, BO)} == seats_before
    assert second.games.info(CH2) == lobby_before and second.games.info(CH).seq == 5
    # a retried interaction is not applied twice
    mover = user_to_move(second)
    await refused("host.error.already_done",
                  second.play.move(CH, mover, second.play.legal_moves(CH, mover)[0], interaction_id=904))
    # the game goes on: no move lost, none applied twice
    result = await play_first(second, interaction_id=905)
    assert result.seq == 6
    rows = await store.moves(result.game_id)
    assert [r.seq for r in rows] == [1, 2, 3, 4, 5, 6]
    assert [r.interaction_id for r in rows] == list(range(900, 906))
    await assert_snapshot_is_replay(store, result.game_id)
    # and the lobby can still be joined and started after the restart
    await second.lobby.join(CH2, DI, "Di")
    assert (await second.lobby.start(CH2, CY)).info.status == "running"
    await store.close()


async def host_lobby(host: Host) -> None:
    await host.lobby.open(CH2, GUILD, CY, "Cy", computers=1, locale="fr")


async def test_loading_replays_a_snapshot_that_disagrees_with_the_log(sqlite_path: Path, clock: Clock) -> None:
    store = await Store.open(sqlite_path)
    host = make_host(store, clock)
    await two_player_game(host)
    await play_first(host)
    game_id = host.games.info(CH).game_id
    stale = tiny_factory(["Ada", "Bo"], SEED, False).to_json()  # a snapshot from before the move
    await store.update_game(game_id, now=clock(), state=stale)
    second = make_host(store, clock)
    await second.load()
    await second.refresh.channel(CH)  # loaded when touched
    assert second.play.public_view(CH) == host.play.public_view(CH)
    await assert_snapshot_is_replay(store, game_id)  # the snapshot was repaired
    await store.close()


async def test_two_moves_at_the_same_instant_apply_exactly_once(host: Host, sqlite: Store) -> None:
    await two_player_game(host)
    mover = user_to_move(host)
    outcomes = await asyncio.gather(host.play.move(CH, mover, "land 1", interaction_id=1),
                                    host.play.move(CH, mover, "land 2", interaction_id=2),
                                    return_exceptions=True)
    done = [o for o in outcomes if not isinstance(o, BaseException)]
    errors = [o for o in outcomes if isinstance(o, BaseException)]
    assert len(done) == 1 and len(errors) == 1
    assert isinstance(errors[0], HostError) and errors[0].key == "host.error.not_your_turn"
    assert len(await sqlite.moves(done[0].game_id)) == 1


async def test_the_same_interaction_twice_at_once_applies_once(host: Host, sqlite: Store) -> None:
    await two_player_game(host)
    mover = user_to_move(host)
    outcomes = await asyncio.gather(*(host.play.move(CH, mover, "land 1", interaction_id=77) for _ in range(3)),
                                    return_exceptions=True)
    assert sum(not isinstance(o, BaseException) for o in outcomes) == 1
    assert {o.key for o in outcomes if isinstance(o, HostError)} == {"host.error.already_done"}
    assert len(await sqlite.moves(host.games.info(CH).game_id)) == 1


async def test_two_computer_runners_make_each_move_once(host: Host, sqlite: Store) -> None:
    await host.lobby.open(CH, GUILD, ADA, "Ada", computers=1)
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.start(CH, ADA)
    await host.play.away(CH, ADA)
    await host.play.away(CH, BO)

    async def drain() -> list[int]:
        return [r.seq async for r in host.computers.run_computers(CH)]

    a, b = await asyncio.gather(drain(), drain())
    assert sorted(a + b) == list(range(1, len(a) + len(b) + 1))
    assert host.games.info(CH).status == "over"
    await assert_snapshot_is_replay(sqlite, host.games.info(CH).game_id)


async def test_a_move_stored_by_another_host_is_seen_before_the_next_move(host: Host, sqlite: Store,
                                                                          clock: Clock) -> None:
    """Two processes over one database: each checks its copy against the database before a change."""
    await two_player_game(host)
    other = make_host(sqlite, clock)
    await other.load()
    await other.refresh.channel(CH)  # loaded when touched
    mover_in_first = user_to_move(host)
    stale_move = host.play.legal_moves(CH, mover_in_first)[0]
    await play_first(other)  # the first host does not know of this move yet
    assert host.games.info(CH).seq == 0
    await refused("host.error.not_your_turn", host.play.move(CH, mover_in_first, stale_move))
    assert host.games.info(CH).seq == 1  # read again from the database before judging the move
    assert host.play.public_view(CH) == other.play.public_view(CH)
    # and the next player's move, made in the first host, is seen by the other before its next change
    await play_first(host)
    assert other.games.info(CH).seq == 1
    assert (await other.refresh.channel(CH)).seq == 2 and other.play.public_view(CH) == host.play.public_view(CH)
    assert (await other.refresh.game(other.games.info(CH).game_id)).seq == 2
    # a game opened by another process is found in a channel this one never saw
    await host.lobby.open(CH + 1, GUILD, ADA, "Ada")
    assert other.games.info(CH + 1) is None
    await refused("host.error.game_exists", other.lobby.open(CH + 1, GUILD, BO, "Bo"))
    assert other.games.info(CH + 1).status == "lobby"
    assert (await other.lobby.join(CH + 1, BO, "Bo")).seats[1].name == "Bo"
    assert [s.name for s in (await host.refresh.channel(CH + 1)).seats] == ["Ada", "Bo"]


# ---------------------------------------------------------------------- rematch


async def test_rematch_seats_the_same_players(host: Host) -> None:
    await refused("host.error.no_previous_game", host.lobby.rematch(CH, ADA))
    await host.lobby.open(CH, GUILD, ADA, "Ada", draft=True, locale="de", computers=1, strength="random")
    await host.lobby.join(CH, BO, "Bo")
    await refused("host.error.game_exists", host.lobby.rematch(CH, ADA))
    await host.lobby.start(CH, ADA)
    await host.play.away(CH, ADA)
    await host.play.away(CH, BO)
    async for _ in host.computers.run_computers(CH):
        pass
    assert host.games.info(CH).status == "over"
    await refused("host.error.not_seated", host.lobby.rematch(CH, CY))
    info = await host.lobby.rematch(CH, BO)
    assert info.status == "lobby" and info.opener_id == BO and info.draft and info.locale == "de"
    assert [(s.user_id, s.name, s.strength, s.away) for s in info.seats] == [
        (ADA, "Ada", None, False), (None, "Computer 1", "random", False), (BO, "Bo", None, False)]
    await refused("host.error.game_exists", host.lobby.rematch(CH, ADA))


async def test_rematch_after_a_restart(sqlite_path: Path, clock: Clock) -> None:
    store = await Store.open(sqlite_path)
    host = make_host(store, clock)
    await host.lobby.open(CH, GUILD, ADA, "Ada", computers=1)
    await host.lobby.start(CH, ADA)
    await host.play.away(CH, ADA)
    async for _ in host.computers.run_computers(CH):
        pass
    second = make_host(store, clock)
    assert await second.load() == []  # finished games are not brought back
    info = await second.lobby.rematch(CH, CY, can_manage=True)
    assert info.opener_id == ADA and [s.user_id for s in info.seats] == [ADA, None]
    await store.close()


# ---------------------------------------------------------------------- reminders


async def test_reminders_are_due_after_the_delay_and_not_repeated(sqlite_path: Path, clock: Clock) -> None:
    store = await Store.open(sqlite_path)
    host = make_host(store, clock, reminder_hours=12)
    await two_player_game(host)
    mover = user_to_move(host)
    assert await host.reminders.due() == []
    clock.advance(11.9)
    assert await host.reminders.due() == []
    clock.advance(0.2)
    (reminder,) = await host.reminders.due()
    assert (reminder.user_id, reminder.channel_id, reminder.seq) == (mover, CH, 0)
    assert reminder.waiting_since == START and reminder.locale == "en"
    await host.reminders.mark(reminder)
    assert await host.reminders.due() == []
    await store.close()

    # after a restart the sent reminder is not repeated; the next one comes a day later
    store = await Store.open(sqlite_path)
    host = make_host(store, clock, reminder_hours=12)
    await host.load()
    assert await host.reminders.due() == []
    clock.advance(23.9)
    assert await host.reminders.due() == []
    clock.advance(0.2)
    (again,) = await host.reminders.due()
    assert again.user_id == mover
    await host.reminders.mark(again)
    await store.close()


async def test_a_move_resets_the_reminder_at_most_one_a_day(host: Host, clock: Clock) -> None:
    await two_player_game(host)
    first = user_to_move(host)
    clock.advance(12)
    (reminder,) = await host.reminders.due()
    await host.reminders.mark(reminder)
    await play_first(host)  # the reminded player moves: now the other player's clock runs
    second = user_to_move(host)
    clock.advance(12)
    (other,) = await host.reminders.due()
    assert other.user_id == second != first
    await play_first(host)
    # the first player was reminded 12 hours ago: not again within a day
    clock.advance(11.5)
    assert await host.reminders.due() == []
    clock.advance(1)
    assert [r.user_id for r in await host.reminders.due()] == [first]


async def test_a_stale_reminder_is_not_recorded(host: Host, clock: Clock) -> None:
    await two_player_game(host)
    clock.advance(13)
    (reminder,) = await host.reminders.due()
    await play_first(host)  # the player moved before the reminder was marked
    await host.reminders.mark(reminder)
    assert host.games.info(CH).seq == 1
    clock.advance(12)
    assert [r.seq for r in await host.reminders.due()] == [1]


async def test_no_reminders_for_computers_away_players_or_finished_games(host: Host, clock: Clock) -> None:
    await two_player_game(host)
    await host.play.away(CH, user_to_move(host))
    clock.advance(100)
    assert await host.reminders.due() == []
    await host.lobby.abandon(CH, ADA)
    assert await host.reminders.due() == []


# ---------------------------------------------------------------------- users' languages


async def test_a_users_language_is_stored_once_and_survives_a_new_host(sqlite_path: Path, clock: Clock) -> None:
    store = await Store.open(sqlite_path)
    host = make_host(store, clock)
    await host.load()
    assert host.people.locale_of(ADA) is None
    writes: list[tuple[int, str]] = []
    real_set = store.set_user_locale

    async def counting_set(user_id: int, locale: str, *, now: float) -> None:
        writes.append((user_id, locale))
        await real_set(user_id, locale, now=now)

    store.set_user_locale = counting_set  # type: ignore[method-assign]
    assert await host.people.remember_locale(ADA, "de") is True
    assert await host.people.remember_locale(ADA, "de") is False  # unchanged: no database write
    assert await host.people.remember_locale(BO, "fr") is True
    clock.advance(1)
    assert await host.people.remember_locale(BO, "en") is True
    assert writes == [(ADA, "de"), (BO, "fr"), (BO, "en")]
    assert (host.people.locale_of(ADA), host.people.locale_of(BO), host.people.locale_of(CY)) == ("de", "en", None)
    await refused("host.error.bad_locale", host.people.remember_locale(CY, "xx"))
    assert host.people.locale_of(CY) is None
    await store.close()

    store = await Store.open(sqlite_path)
    second = make_host(store, clock)
    assert second.people.locale_of(ADA) is None  # not before load()
    await second.load()
    assert [second.people.locale_of(user) for user in (ADA, BO, CY)] == ["de", "en", None]
    assert await second.people.remember_locale(ADA, "de") is False
    await store.close()


async def test_a_version_2_database_keeps_its_games_and_stores_languages(sqlite_path: Path, clock: Clock) -> None:
    store = await Store.open(sqlite_path)
    first = make_host(store, clock)
    await two_player_game(first)
    await play_first(first, interaction_id=900)
    view_before = first.play.public_view(CH)
    await store.close()
    await as_left_by_version(sqlite_path, 2)  # the same data as a bot of schema version 2 left it

    store = await Store.open(sqlite_path)
    assert await store.schema_version() == SCHEMA_VERSION
    second = make_host(store, clock)
    (info,) = await second.load()
    assert info.seq == 1 and second.play.public_view(CH) == view_before
    assert second.people.locale_of(ADA) is None
    assert await second.people.remember_locale(ADA, "fr") is True
    result = await play_first(second, interaction_id=901)
    assert result.seq == 2
    await store.close()

    store = await Store.open(sqlite_path)
    third = make_host(store, clock)
    assert await third.load() == []  # whose move the game waits for was written at the second start: it owes nothing
    await third.refresh.channel(CH)
    assert third.people.locale_of(ADA) == "fr" and third.games.info(CH).seq == 2
    await store.close()


# ---------------------------------------------------------------------- listings


async def test_listings(host: Host) -> None:
    await two_player_game(host)
    await host.lobby.open(CH2, GUILD, ADA, "Ada")
    info = host.games.info(CH)
    assert host.games.find_game(info.game_id) == info and host.games.find_game(999) is None
    assert [g.channel_id for g in host.games.games_of(ADA)] == [CH]  # lobbies are not listed
    assert host.games.games_of(CY) == []
    assert host.games.seat_of(CH, CY) is None and host.games.seat_of(CH, ADA) in (0, 1)
    assert host.games.seat_of(999, ADA) is None


async def test_kick_is_decided_by_the_host(host: Host) -> None:
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await host.lobby.join(CH, BO, "Bo")
    await refused("host.error.not_a_player", host.lobby.kick(CH, ADA, CY, "Cy"))
    await refused("host.error.not_opener", host.lobby.kick(CH, BO, ADA, "Ada"))
    await refused("host.error.kick_self", host.lobby.kick(CH, ADA, ADA, "Ada"))
    lobby = await host.lobby.kick(CH, BO, ADA, "Ada", can_manage=True)  # a moderator may
    assert isinstance(lobby, TableInfo) and [s.name for s in lobby.seats] == ["Bo"]
    await host.lobby.join(CH, ADA, "Ada")
    await host.lobby.start(CH, BO)
    to_move = host.games.info(CH).seats[host.games.info(CH).to_move].user_id  # type: ignore[union-attr]  # running
    assert to_move is not None  # Bo opens now (Ada left and came back): too early to hand a seat over
    await refused("host.error.not_overdue", host.lobby.kick(CH, BO, to_move, "someone"))


async def test_only_the_opener_or_a_moderator_may_abandon(host: Host) -> None:
    with pytest.raises(HostError, match="no_game"):
        host.lobby.may_abandon(CH, ADA)
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await host.lobby.join(CH, BO, "Bo")
    assert host.lobby.may_abandon(CH, ADA).status == "lobby"
    assert host.lobby.may_abandon(CH, BO, can_manage=True).status == "lobby"
    with pytest.raises(HostError, match="not_opener"):
        host.lobby.may_abandon(CH, BO)
