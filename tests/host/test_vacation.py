"""Vacations and turn deadlines through the host's public API, on both stores (the ``store`` fixture), with a clock
the tests move: the others' vote both ways and its timeout, ``back`` ending a vacation early in every game, a
deadline's warning, the computer's move and the hand-over after the third; each also across a restart (a new host
on the same database) in the middle of its waiting period."""

from __future__ import annotations

from typing import Any

import pytest

from bot.host import deadlines, vacation
from bot.host.change import Change
from bot.host.deliveries import NOTICE_DM, NOTICE_POST
from bot.host.host import Host
from bot.host.idle import IDLE_KINDS
from bot.host.model import NewTimer
from bot.host.reminders import REMINDER
from bot.host.table import MoveResult, TableInfo
from bot.host.timers import KINDS
from bot.host.vacation import VacationChange
from tests.helpers.clock import DAY, HOUR, Clock
from tests.helpers.host import ADA, BO, CH, CH2, CY, GUILD, loaded_host, play_first, refused


async def three_players(host: Host, channel: int = CH, *, deadline: int = 0) -> None:
    await host.lobby.open(channel, GUILD, ADA, "Ada", deadline_hours=deadline)
    await host.lobby.join(channel, BO, "Bo")
    await host.lobby.join(channel, CY, "Cy")
    await host.lobby.start(channel, ADA)


async def notices(store: Any, kind: str = NOTICE_POST) -> list[dict[str, Any]]:
    return [d.payload for d in await store.pending_deliveries() if d.kind == kind]


async def due_timers(host: Host, now: float | None = None) -> list[object]:
    """Run the host's due timers but its turn reminders (``bot.host.reminders``, not this file's business)."""
    return await host.timers.run_due(now, kinds=[kind for kind in KINDS if kind != REMINDER])


async def own_timers(store: Any, game_id: int) -> list[Any]:
    """The game's vacation and deadline timers (its stale timer, ``bot.host.idle``, and its turn reminder,
    ``bot.host.reminders``, are not this file's business)."""
    return [t for t in await store.timers(game_id) if t.kind not in (*IDLE_KINDS, REMINDER)]


async def timer_kinds(store: Any, game_id: int) -> list[str]:
    return sorted(t.kind for t in await own_timers(store, game_id))


async def test_the_others_vote_to_pause_and_the_game_waits_until_the_vacation_ends(store: Any, clock: Clock) -> None:
    host = await loaded_host(store, clock)
    await three_players(host, deadline=24)
    game_id = host.games.info(CH).game_id
    [change] = await host.vacation.start(ADA, 3)
    assert (change.state, change.name, change.until) == ("vote", "Ada", clock.now + 3 * DAY)
    assert [(n["key"], n.get("vote")) for n in await notices(store)] == [("bot.vacation.vote", 0)]
    assert await timer_kinds(store, game_id) == sorted([*deadlines.KINDS, vacation.END, vacation.VOTE])
    await refused("host.error.not_a_voter", host.vacation.vote(game_id, ADA, 0, "pause"))
    assert (await host.vacation.vote(game_id, BO, 0, "pause")).state == "vote"
    # a restart in the middle of the vote keeps the vote cast
    host = await loaded_host(store, clock)
    await host.refresh.game(game_id)  # the vote's click touches the game: loaded
    paused = await host.vacation.vote(game_id, CY, 0, "pause")
    assert paused.state == "pause" and not paused.computer_to_move and host.games.info(CH).paused
    error = await refused("host.error.paused", play_first(host))
    assert error.params == {"name": "Ada", "until": int(change.until)}
    assert "Ada" in error.text("en") and f"<t:{int(change.until)}:f>" in error.text("en")
    assert await timer_kinds(store, game_id) == [vacation.END]  # the deadline does not run while paused
    clock.advance(2 * 24)
    assert await host.reminders.due() == [] and await due_timers(host) == []
    # at its end the game goes on, with the turn's deadline from then
    clock.advance(24)
    [over] = await due_timers(host)
    assert isinstance(over, VacationChange) and over.state is None and not host.games.info(CH).paused
    assert await timer_kinds(store, game_id) == sorted(deadlines.KINDS)
    assert (await notices(store))[-1]["key"] == "bot.vacation.over"
    await play_first(host)


async def test_a_tie_lets_the_computer_play_until_the_vacation_ends(store: Any, clock: Clock) -> None:
    host = await loaded_host(store, clock)
    await three_players(host)
    game_id = host.games.info(CH).game_id
    seat = host.games.info(CH).to_move
    user = host.games.info(CH).seats[seat].user_id
    others = [u for u in (ADA, BO, CY) if u != user]
    await host.vacation.start(user, 1)
    assert host.play.legal_moves(CH, user) != []  # during the vote the player may still move
    await host.vacation.vote(game_id, others[0], seat, "computer")
    decided = await host.vacation.vote(game_id, others[1], seat, "pause")
    assert decided.state == "computer" and decided.computer_to_move
    await refused("host.error.vote_closed", host.vacation.vote(game_id, others[1], seat, "computer"))
    assert host.games.info(CH).seats[seat].vacation == "computer" and host.play.legal_moves(CH, user) == []
    await refused("host.error.on_vacation", host.play.move(CH, user, "land 1"))
    moves = [r async for r in host.computers.run_computers(CH)]
    assert moves and all(r.by_computer and r.seat == seat for r in moves)
    assert host.games.info(CH).to_move != seat


async def test_nobody_voting_within_12_hours_lets_the_computer_play_after_a_restart(store: Any, clock: Clock) -> None:
    host = await loaded_host(store, clock)
    await three_players(host)
    game_id = host.games.info(CH).game_id
    await host.vacation.start(BO, 5)
    clock.advance(6)
    host = await loaded_host(store, clock)  # a restart in the middle of the waiting period
    assert await due_timers(host) == []
    clock.advance(6)
    [decided] = await due_timers(host)
    assert isinstance(decided, VacationChange) and decided.state == "computer"
    assert (await notices(store))[-1]["key"] == "bot.vacation.computer_plays"
    assert host.games.info(CH).seats[1].vacation == "computer"
    assert await timer_kinds(store, game_id) == [vacation.END]


async def test_back_ends_the_vacation_early_in_every_game(store: Any, clock: Clock) -> None:
    host = await loaded_host(store, clock)
    await three_players(host, CH)
    await three_players(host, CH2)
    assert len(await host.vacation.start(CY, 10)) == 2
    await refused("host.error.already_on_vacation", host.vacation.start(CY, 3))
    await refused("host.error.bad_vacation_days", host.vacation.start(ADA, 31))
    await refused("host.error.no_games_for_vacation", host.vacation.start(99, 3))
    ended = await host.vacation.end(CY)
    assert sorted(c.channel_id for c in ended) == [CH, CH2] and all(c.state is None for c in ended)
    assert all(host.games.info(ch).seats[2].vacation is None for ch in (CH, CH2))
    assert await host.vacation.end(CY) == []
    # the timers of the ended vacation do nothing when they come due
    clock.advance(24 * 11)
    assert await due_timers(host) == []
    assert all(host.games.info(ch).seats[2].vacation is None for ch in (CH, CH2))


async def test_a_deadline_warns_at_75_percent_then_the_computer_moves_and_the_third_hands_the_seat_over(
        store: Any, clock: Clock) -> None:
    host = await loaded_host(store, clock)
    await host.lobby.open(CH, GUILD, ADA, "Ada", deadline_hours=12)
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.start(CH, ADA)
    game_id = host.games.info(CH).game_id
    runs_out = {0: 0, 1: 0}
    while True:
        seat = host.games.info(CH).to_move
        clock.advance(8)
        host = await loaded_host(store, clock)  # a restart before the warning
        clock.advance(1)
        [warned] = await due_timers(host)
        assert isinstance(warned, TableInfo)
        [dm] = [p for p in await notices(store, NOTICE_DM)]
        assert dm["key"] == "bot.deadline.warning" and dm["params"]["until"] == int(clock.now + 3 * HOUR)
        await store.mark_delivered((await store.pending_deliveries())[-1].id, now=clock.now)
        host = await loaded_host(store, clock)  # a restart before the deadline
        clock.advance(3)
        [moved] = await due_timers(host)
        assert isinstance(moved, MoveResult) and moved.by_computer and moved.seat == seat
        runs_out[seat] += 1
        post = (await notices(store))[-1]
        assert post["params"] == {"name": ["Ada", "Bo"][seat], "count": runs_out[seat]}
        for delivery in await store.pending_deliveries():
            await store.mark_delivered(delivery.id, now=clock.now)
        if runs_out[seat] == deadlines.MAX_TIMEOUTS:
            break
    assert post["key"] == "bot.deadline.handed_over"
    assert host.games.info(CH).seats[seat].away and host.games.info(CH).seats[1 - seat].away is False
    assert (await store.get_game(game_id)).seats[seat]["timeouts"] == deadlines.MAX_TIMEOUTS


async def test_a_move_replaces_the_deadline_and_a_finished_game_keeps_none(store: Any, clock: Clock) -> None:
    host = await loaded_host(store, clock)
    await three_players(host, deadline=48)
    game_id = host.games.info(CH).game_id
    first = await own_timers(store, game_id)
    clock.advance(5)
    await play_first(host)
    second = await own_timers(store, game_id)
    assert len(first) == 2 and [b.due_at - a.due_at for a, b in zip(first, second, strict=True)] == [5 * HOUR] * 2
    assert [t.kind for t in second] == [deadlines.WARNING, deadlines.RAN_OUT]
    assert second[0].seat == host.games.info(CH).to_move
    await refused("host.error.bad_deadline", host.lobby.open(CH2, GUILD, ADA, "Ada", deadline_hours=5))
    await host.lobby.abandon(CH, ADA)
    assert await store.timers(game_id) == []


async def test_a_deadline_move_during_a_vote_is_not_made_twice(store: Any, clock: Clock) -> None:
    host = await loaded_host(store, clock)
    await three_players(host, deadline=12)
    game_id = host.games.info(CH).game_id
    mover = host.games.info(CH).to_move
    user = host.games.info(CH).seats[mover].user_id
    seq = host.games.info(CH).seq
    await host.vacation.start(user, 2)  # the vote is on: the deadline still runs
    clock.advance(12)
    outcomes = await due_timers(host)  # the warning, the computer's move, then the vote's end: all due now
    moved = [o for o in outcomes if isinstance(o, MoveResult)]
    assert len(moved) == 1 and moved[0].seat == mover
    assert [o.state for o in outcomes if isinstance(o, VacationChange)] == ["computer"]
    assert [r async for r in host.computers.run_computers(CH) if r.seat == mover] == []  # not its turn any more
    rows = [m for m in await store.moves(game_id) if m.seq == seq + 1]
    assert len(rows) == 1 and rows[0].seat == mover


async def test_a_stale_timer_does_nothing(store: Any, clock: Clock) -> None:
    host = await loaded_host(store, clock)
    await three_players(host, deadline=12)
    game_id = host.games.info(CH).game_id
    seat = host.games.info(CH).to_move
    await store.update_game(game_id, now=clock.now, timers=[
        NewTimer(deadlines.RAN_OUT, clock.now, seat, None, {"seq": 99, "until": clock.now}),
        NewTimer(vacation.END, clock.now, 0, ADA, {"since": 1.0})])
    assert await due_timers(host) == []
    assert host.games.info(CH).seq == 0


async def test_a_game_another_process_holds_is_read_from_the_database(store: Any, clock: Clock) -> None:
    other = await loaded_host(store, clock)  # started before the game was opened: it does not hold it
    host = await loaded_host(store, clock)
    await three_players(host)
    game_id = host.games.info(CH).game_id
    [change] = await other.vacation.start(BO, 2)
    assert (change.game_id, change.state) == (game_id, "vote")
    assert change.info == other.games.info(CH) and change.info.seats[1].vacation == "vote"  # loaded, then changed
    row = await store.get_game(game_id)
    assert row.seats[1]["vacation"]["state"] == "vote" and row.seats[1]["vacation"]["voters"] == [ADA, CY]
    assert [(n["key"], n["vote"], n["locale"]) for n in await notices(store)] == [("bot.vacation.vote", 1, "en")]
    assert await timer_kinds(store, game_id) == [vacation.END, vacation.VOTE]
    ended = await other.vacation.end(BO)
    assert [c.state for c in ended] == [None]
    assert (await store.get_game(game_id)).seats[1]["vacation"] is None


@pytest.mark.parametrize("store", ["sqlite"], indirect=True)
async def test_a_refused_write_changes_nothing(store: Any, clock: Clock) -> None:
    host = await loaded_host(store, clock)
    await three_players(host, deadline=12)
    game_id = host.games.info(CH).game_id
    before = (host.games.info(CH), await store.timers(game_id))
    await store._conn.execute("PRAGMA query_only = ON")  # the fault lives on this connection
    await refused("host.error.storage", host.vacation.start(ADA, 2))
    assert (host.games.info(CH), await store.timers(game_id)) == before
    await store._conn.execute("PRAGMA query_only = OFF")
    await host.vacation.start(ADA, 2)
    await store._conn.execute("PRAGMA query_only = ON")
    await refused("host.error.storage", host.vacation.vote(game_id, BO, 0, "pause"))
    assert host.games.info(CH).seats[0].vacation == "vote"
    await refused("host.error.storage", host.vacation.end(ADA))
    assert host.games.info(CH).seats[0].vacation == "vote"
    clock.advance(12)
    await refused("host.error.storage", due_timers(host))  # the due timers stay for the next sweep
    assert host.games.info(CH).seq == 0 and host.games.info(CH).seats[0].vacation == "vote"
    await store._conn.execute("PRAGMA query_only = OFF")
    clock.advance(1)
    outcomes = await due_timers(host)
    assert any(isinstance(o, MoveResult) for o in outcomes) and host.games.info(CH).seq == 1


async def test_a_deadline_runs_out_while_another_process_writes_the_game_and_its_timers_survive_restarts(
        store: Any, clock: Clock) -> None:
    """Two processes, the clock moved 13 h then 13 h more while both were down. While the computer chose
    the timed-out move, the other process wrote the game without moving it (a reminder's state) and this process read
    it again: the new copy in memory was taken for "the turn moved on", the deadline was marked done with no move and
    no new timer, and the game waited forever. Whatever is read meanwhile, the move is made and the next turn's
    deadline is set, at every restart and clock jump."""
    host = await loaded_host(store, clock)
    await host.lobby.open(CH, GUILD, ADA, "Ada", deadline_hours=12)
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.start(CH, ADA)
    game_id = host.games.info(CH).game_id
    for _ in range(2):  # the clock moves 13 h while both processes are down, twice
        clock.advance(13)
        host, other = await loaded_host(store, clock), await loaded_host(store, clock)
        seq = (await host.refresh.channel(CH)).seq  # type: ignore[union-attr]
        await other.refresh.channel(CH)  # both hold the game
        choose = host.deadlines._choose

        async def choose_while_written(table: Any, seat: int, choose: Any = choose, other: Any = other,
                                       host: Host = host) -> str:
            text = await choose(table, seat)
            # the other process writes the game (its reminder state) and this one reads it again
            await other.games.write(other.games.live(CH, game_id), Change({"next_reminder_at": clock.now + HOUR}))
            await host.games.refresh.channel(CH)
            return text

        host.deadlines._choose = choose_while_written  # type: ignore[method-assign]
        moved = [o for o in await due_timers(host) if isinstance(o, MoveResult)]
        assert len(moved) == 1 and moved[0].by_computer, "the computer made the move whose deadline passed"
        assert host.games.info(CH).seq == seq + 1
        assert await timer_kinds(store, game_id) == sorted(deadlines.KINDS), "the next turn's deadline is set"
        [ran_out] = [t for t in await own_timers(store, game_id) if t.kind == deadlines.RAN_OUT]
        assert ran_out.payload["seq"] == seq + 1 and ran_out.due_at == clock.now + 12 * HOUR


async def test_a_deadline_whose_timers_were_lost_is_set_again_at_the_next_start(store: Any, clock: Clock) -> None:
    """A running game with a turn deadline but no timer for it (lost some other way than a move) gets its turn's
    timers again when a host loads it, counted from the last move: the computer then makes that move when it runs
    out, as it would have."""
    host = await loaded_host(store, clock)
    await three_players(host, deadline=12)
    game_id = host.games.info(CH).game_id
    mover = host.games.info(CH).to_move
    async with store._write() as db:  # the deadline's timers gone (seen after clock jumps with two processes)
        await db.execute("UPDATE timers SET done_at = ? WHERE game_id = ? AND kind IN (?, ?)", clock.now, game_id,
                         *deadlines.KINDS)
    assert await timer_kinds(store, game_id) == []
    clock.advance(13)
    host = await loaded_host(store, clock)
    assert await timer_kinds(store, game_id) == sorted(deadlines.KINDS)
    moved = [r for r in await due_timers(host) if isinstance(r, MoveResult)]
    assert len(moved) == 1 and moved[0].by_computer and moved[0].seat == mover
