"""What lets several processes share one database, on both stores: a game's version (every write bumps it, a
write that expects an older one is refused whole), timers written with the change that sets them and claimed
once, and leases that a live holder keeps and a dead one loses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.host.errors import MoveConflict, VersionConflict
from bot.host.model import MoveRow, NewDelivery, NewTimer
from bot.host.postgres_store import PostgresStore
from bot.host.store import Store

CH = 4242


async def new_game(store: Any, channel_id: int = CH) -> int:
    return int(await store.insert_game(channel_id=channel_id, guild_id=1, opener_id=7, seats=[], options={},
                                       seed=5, status="running", locale="en", now=1.0))


async def test_every_write_bumps_the_version_and_a_stale_write_changes_nothing(store: Any) -> None:
    game_id = await new_game(store)
    assert await store.game_version(game_id) == 0
    assert await store.open_game_version(CH) == (game_id, 0)
    assert await store.update_game(game_id, now=2.0, locale="de") == 1
    assert await store.append_move(MoveRow(game_id, 1, 0, 7, "land 3", 11, 3.0), last_move_at=3.0) == 2
    with pytest.raises(VersionConflict):
        await store.update_game(game_id, now=4.0, expect_version=1, locale="fr",
                                deliveries=[NewDelivery("seat_post", 1)], timers=[NewTimer("t", 9.0)])
    with pytest.raises(VersionConflict):
        await store.append_move(MoveRow(game_id, 2, 1, 8, "land 4", 12, 4.0), expect_version=1, last_move_at=4.0)
    row = await store.get_game(game_id)
    assert (row.locale, row.version, row.last_move_at) == ("de", 2, 3.0)
    assert [m.seq for m in await store.moves(game_id)] == [1]
    assert await store.pending_deliveries() == [] and await store.timers(game_id) == []
    # at the version it expects, the write goes through
    assert await store.append_move(MoveRow(game_id, 2, 1, 8, "land 4", 12, 4.0), expect_version=2) == 3
    # a second process's move with the same seq is a conflict, not a second move
    with pytest.raises(MoveConflict):
        await store.append_move(MoveRow(game_id, 2, 0, 7, "land 5", 13, 5.0))
    assert await store.game_version(game_id) == 3 and await store.game_version(game_id + 99) is None


async def test_timers_are_set_with_their_change_claimed_once_and_finished(store: Any) -> None:
    game_id = await new_game(store)
    other = await new_game(store, CH + 1)
    await store.update_game(game_id, now=2.0, timers=[NewTimer("warning", 10.0, seat=1, user_id=8, payload={"n": 1}),
                                                      NewTimer("deadline", 20.0, seat=1)])
    await store.update_game(other, now=2.0, timers=[NewTimer("warning", 5.0)])
    assert [(t.kind, t.due_at, t.channel_id) for t in await store.timers(game_id)] == [
        ("warning", 10.0, CH), ("deadline", 20.0, CH)]
    assert await store.claim_timers(4.0, owner="a", lease=30.0) == []
    first = await store.claim_timers(12.0, owner="a", lease=30.0)
    assert [(t.game_id, t.kind) for t in first] == [(other, "warning"), (game_id, "warning")]
    assert first[1].payload == {"n": 1} and first[1].user_id == 8 and first[1].seat == 1
    # another process finds nothing while the lease holds, and takes them over once it has expired
    assert await store.claim_timers(13.0, owner="b", lease=30.0) == []
    taken = await store.claim_timers(43.0, owner="b", lease=30.0)
    assert [(t.game_id, t.kind) for t in taken] == [(other, "warning"), (game_id, "warning"), (game_id, "deadline")]
    # finishing one writes what it changed, once
    version = await store.finish_timer(first[1].id, now=44.0, locale="fr",
                                       deliveries=[NewDelivery("seat_post", 0, payload={"x": 1})],
                                       cancel_timers=["deadline"], timers=[NewTimer("deadline", 99.0)])
    assert version == 2 and (await store.get_game(game_id)).locale == "fr"
    assert [(t.kind, t.due_at) for t in await store.timers(game_id)] == [("deadline", 99.0)]
    assert [d.payload for d in await store.pending_deliveries(CH)] == [{"x": 1}]
    with pytest.raises(VersionConflict):
        await store.finish_timer(first[1].id, now=45.0, locale="de")
    assert (await store.get_game(game_id)).locale == "fr"


async def test_a_finished_or_damaged_game_keeps_no_timer(store: Any) -> None:
    game_id = await new_game(store)
    damaged = await new_game(store, CH + 1)
    for game in (game_id, damaged):
        await store.update_game(game, now=2.0, timers=[NewTimer("stale", 50.0), NewTimer("deadline", 60.0)])
    await store.update_game(game_id, now=3.0, status="over")
    assert await store.mark_damaged(damaged, reason="r", detail="d", now=3.0)
    assert await store.timers(game_id) == [] and await store.timers(damaged) == []
    assert await store.claim_timers(100.0, owner="a", lease=5.0) == []
    assert await store.open_game_version(CH) is None


async def test_a_lease_is_kept_by_its_holder_and_taken_over_when_it_expires(store: Any) -> None:
    assert await store.take_lease("outbox:1", "a", now=10.0, seconds=30.0)
    assert not await store.take_lease("outbox:1", "b", now=20.0, seconds=30.0)
    assert await store.take_lease("outbox:1", "a", now=35.0, seconds=30.0)  # renewed: until 65
    assert not await store.take_lease("outbox:1", "b", now=60.0, seconds=30.0)
    assert await store.take_lease("outbox:2", "b", now=60.0, seconds=30.0)
    assert await store.take_lease("outbox:1", "b", now=66.0, seconds=30.0)  # a died: b takes over
    assert not await store.take_lease("outbox:1", "a", now=67.0, seconds=30.0)
    await store.release_lease("outbox:1", "a")  # not a's any more: nothing happens
    assert not await store.take_lease("outbox:1", "a", now=68.0, seconds=30.0)
    await store.release_lease("outbox:1", "b")
    assert await store.take_lease("outbox:1", "a", now=69.0, seconds=30.0)


async def test_two_hosts_on_one_database_run_each_due_timer_once(store: Any) -> None:
    """Two processes' hosts sweep the same timers: each runs once, a failing handler does not stop the others,
    and a timer whose handler failed is taken again once its claim has expired."""
    from bot.host.host import Host
    from bot.host.model import TimerRow
    from bot.host.settings import Settings
    from bot.host.timers import TIMER_LEASE

    opener = Host(store, Settings(), clock=lambda: 0.0)
    game_id = (await opener.lobby.open(CH, 1, 7, "Ada")).game_id  # a real lobby: hosts read it before its timers
    await store.update_game(game_id, now=2.0, timers=[NewTimer("chime", 10.0, payload={"n": n}) for n in range(4)]
                            + [NewTimer("flaky", 11.0), NewTimer("chime", 500.0, payload={"n": 9})])
    ran: list[tuple[str, int]] = []
    flaky_calls: list[str] = []

    def make(name: str) -> Host:
        host = Host(store, Settings(), clock=lambda: 0.0)

        async def chime(timer: TimerRow, now: float) -> object:
            await store.finish_timer(timer.id, now=now)
            ran.append((name, timer.payload["n"]))
            return timer.payload["n"]

        async def flaky(timer: TimerRow, now: float) -> object:
            flaky_calls.append(name)
            if len(flaky_calls) == 1:
                raise RuntimeError("the first try fails")
            await store.finish_timer(timer.id, now=now)
            return "flaky"

        host.timers.on("chime", chime)
        host.timers.on("flaky", flaky)
        return host

    first, second = make("first"), make("second")
    assert first.owner != second.owner
    outcomes = await first.timers.run_due(20.0)
    assert outcomes == [0, 1, 2, 3] and await second.timers.run_due(20.0) == []
    # the flaky one stays claimed by the first host until the lease ends, then the second takes it over
    assert await second.timers.run_due(20.0 + TIMER_LEASE / 2) == []
    assert await second.timers.run_due(21.0 + TIMER_LEASE) == ["flaky"]
    assert flaky_calls == ["first", "second"]
    assert sorted(ran) == [("first", 0), ("first", 1), ("first", 2), ("first", 3)]
    assert [t.payload for t in await store.timers(game_id) if t.kind == "chime"] == [{"n": 9}]  # and the lobby's
    with pytest.raises(ValueError):
        first.timers.on("chime", lambda timer, now: None)  # type: ignore[arg-type,return-value]  # a second one


async def test_the_kinds_of_pending_timers_of_the_games_asked_about_in_one_read(store: Any) -> None:
    first, second, third = await new_game(store), await new_game(store, CH + 1), await new_game(store, CH + 2)
    await store.update_game(first, now=2.0, timers=[NewTimer("stale", 50.0), NewTimer("deadline", 60.0),
                                                    NewTimer("deadline", 70.0)])
    await store.update_game(second, now=2.0, timers=[NewTimer("lobby", 50.0)])
    await store.update_game(second, now=3.0, cancel_timers=["lobby"])
    await store.update_game(third, now=2.0, timers=[NewTimer("vacation", 50.0)])
    kinds = {first: {"stale", "deadline"}, third: {"vacation"}}
    assert await store.pending_timer_kinds([first, second, third]) == kinds
    assert await store.pending_timer_kinds([third]) == {third: {"vacation"}}


async def test_a_game_and_its_moves_are_read_at_one_moment(store: Any, request: pytest.FixtureRequest,
                                                           sqlite_path: Path) -> None:
    """Another process's move committed between reading a game's row and its move log is seen by neither read:
    loading a game moved elsewhere never pairs an older state and version with a newer log."""
    game_id = await new_game(store)
    await store.append_move(MoveRow(game_id, 1, 0, 7, "land 3", 11, 2.0), last_move_at=2.0)
    if isinstance(store, PostgresStore):
        other: Any = await PostgresStore.open(request.getfixturevalue("pg_url"))
    else:
        other = await Store.open(sqlite_path)
    try:
        async with store._snapshot() as db:
            row = (await db.fetch("SELECT version FROM games WHERE id = ?", game_id))[0]
            await other.append_move(MoveRow(game_id, 2, 1, 8, "land 4", 12, 3.0), last_move_at=3.0)
            seqs = [r["seq"] for r in await db.fetch("SELECT seq FROM moves WHERE game_id = ? ORDER BY seq",
                                                     game_id)]
        assert (row["version"], seqs) == (1, [1])  # the moment of the first read, for both
        stored = await store.game_with_moves(game_id)
        assert stored is not None
        assert (stored[0].version, [m.seq for m in stored[1]]) == (2, [1, 2])
        assert await store.game_with_moves(game_id + 99) is None
    finally:
        await other.close()


async def test_the_latest_post_is_the_message_of_the_latest_post_delivery_that_went_out(store: Any) -> None:
    """Whichever process sent it: the game's latest post message and its delivery (a start's or a move's); a DM done
    later is not a post, a pending post is not out yet."""
    game_id = await new_game(store)
    assert await store.last_post(game_id) is None
    await store.update_game(game_id, now=2.0, deliveries=[NewDelivery("start_post", 0), NewDelivery("hand_dm", 0, 7)])
    start, dm = await store.pending_deliveries()
    assert await store.last_post(game_id) is None, "nothing went out yet"
    await store.mark_delivered(start.id, now=3.0, post_id=501)
    await store.mark_delivered(dm.id, now=3.0)
    assert [(m, d.id, d.kind) for m, d in [await store.last_post(game_id)]] == [(501, start.id, "start_post")]
    await store.update_game(game_id, now=4.0, deliveries=[NewDelivery("move_post", 1, payload={"seq": 1})])
    (move,) = await store.pending_deliveries()
    assert (await store.last_post(game_id))[1].id == start.id, "a pending post is not out yet"
    await store.mark_delivered(move.id, now=5.0, post_id=502)
    message_id, delivery = await store.last_post(game_id)
    assert (message_id, delivery.id, delivery.seq, delivery.payload) == (502, move.id, 1, {"seq": 1})
    other = await new_game(store, CH + 1)
    assert await store.last_post(other) is None
