"""How long people take for their turns: what is measured with each move (from the start of the turn to the move that
ends it, without quiet hours, vacations and pauses; computers' moves and undone moves not counted), and the median and
90th percentile read back, on both stores (the ``store`` fixture)."""

from __future__ import annotations

import random
from datetime import datetime
from itertools import pairwise
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.host.history_store import percentile
from bot.host.turn_times import turn_seconds
from bot.host.user_settings import UserSettings, quiet_until, quiet_windows
from tests.helpers.clock import HOUR, Clock
from tests.helpers.host import ADA, BO, CH, CY, GUILD, make_host, user_to_move

DAY = 24 * HOUR
NOON = datetime(2026, 3, 2, 12, tzinfo=ZoneInfo("UTC")).timestamp()
"""Monday 2 March 2026, 12:00 UTC: the tests' clocks start here."""


async def stored(store: Any, game_id: int) -> dict[int, tuple[int, float]]:
    """The game's turn times as stored: move number -> (user, seconds)."""
    async with store._read() as db:  # the rows as they are (no public reader lists one game's)
        rows = await db.fetch("SELECT seq, user_id, seconds FROM turn_times WHERE game_id = ? ORDER BY seq", game_id)
    return {int(r["seq"]): (int(r["user_id"]), float(r["seconds"])) for r in rows}


async def test_each_turn_a_person_ends_is_timed_from_its_start_once_and_an_undo_takes_its_time_back(
        store: Any) -> None:
    """A whole game of two people, each move after its own wait: every turn is timed from the move that gave it to
    the mover (a double move's builds are one turn, timed at its last build); an undone move's time goes with it,
    and the turn played again is timed from its first start."""
    clock = Clock(NOON)
    host = make_host(store, clock)
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.start(CH, ADA)
    game_id = host.games.info(CH).game_id  # type: ignore[union-attr]
    rng = random.Random(3)
    expected: dict[int, tuple[int, float]] = {}
    turn_began, undone = clock.now, 0
    while (info := host.games.info(CH)) is not None and info.status == "running":
        user = user_to_move(host)
        moves = host.play.legal_moves(CH, user)
        doubles = [m for m in moves if m.startswith("double")]
        clock.advance(rng.uniform(0.1, 30))
        result = await host.play.move(CH, user, doubles[0] if doubles else rng.choice(moves))
        ends_turn = result.game_over or result.to_move != result.seat
        if ends_turn:
            expected[result.seq] = (user, clock.now - turn_began)
        if ends_turn and result.undoable and undone < 3:  # taken back before anyone acts, then played again
            undone += 1
            clock.advance(1)
            await host.play.undo(CH, user)
            del expected[result.seq]
            continue
        if ends_turn:
            turn_began = clock.now
    times = await stored(store, game_id)
    assert undone == 3 and len(times) > 20
    assert times.keys() == expected.keys()
    for seq, (user, seconds) in expected.items():
        assert times[seq][0] == user and times[seq][1] == pytest.approx(seconds)
    speed = await host.archive.turn_speed(GUILD, ADA)
    own = sorted(seconds for user, seconds in expected.values() if user == ADA)
    assert speed.turns == len(own)
    assert speed.median == pytest.approx(percentile(own, 0.5))
    assert speed.p90 == pytest.approx(percentile(own, 0.9))
    assert (await host.archive.turn_speed(GUILD + 1, ADA)).turns == 0  # per server


async def test_quiet_hours_vacations_and_pauses_do_not_count_and_computers_moves_are_not_timed(store: Any) -> None:
    clock = Clock(NOON)
    host = make_host(store, clock)
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.join(CH, CY, "Cy")
    await host.lobby.start(CH, ADA)
    info = host.games.info(CH)
    assert info is not None and info.to_move is not None
    game_id = info.game_id
    order = [info.seats[(info.to_move + i) % 3] for i in range(3)]
    one, two, three = (seat.user_id for seat in order)
    assert one is not None and two is not None and three is not None
    await host.people.change_settings(two, time_zone="UTC", quiet=(22, 7))

    async def move(hours: float, user: int) -> int:
        clock.advance(hours)
        assert user_to_move(host) == user
        result = await host.play.move(CH, user, host.play.legal_moves(CH, user)[0])
        assert result.to_move != result.seat
        return result.seq

    async def pause(seat_order: int, voters: tuple[int, int]) -> None:
        for voter in voters:
            await host.vacation.vote(game_id, voter, order[seat_order].seat, "pause")

    first = await move(1, one)  # the first turn, from the start of the game
    # the second waits from 13:00 to 09:00 the next day: 20 hours, 9 of them their quiet hours (22:00 to 07:00)
    second = await move(20, two)
    # the third's own vacation of 5 days, paused by the others' votes: their time counts before and after it
    clock.advance(2)
    await host.vacation.start(three, 5)
    await pause(2, (one, two))
    clock.advance(30)
    await host.vacation.end(three)
    third = await move(3, three)
    # the first's turn runs while the second's vacation is voted on (it counts), then pauses the game (it does not)
    clock.advance(1)
    await host.vacation.start(two, 2)
    clock.advance(1)
    await pause(1, (one, three))
    clock.advance(24)
    await host.vacation.end(two)
    fourth = await move(2, one)
    # away: the computer moves for the second, untimed
    await host.play.away(CH, two)
    by_computer, *_ = [r async for r in host.computers.run_computers(CH)]
    assert by_computer.user_id == two and by_computer.by_computer
    assert await stored(store, game_id) == {first: (one, 1 * HOUR), second: (two, 11 * HOUR),
                                            third: (three, 2 * HOUR + 3 * HOUR), fourth: (one, 4 * HOUR)}


async def test_forget_me_deletes_a_persons_turn_times(store: Any) -> None:
    clock = Clock(NOON)
    host = make_host(store, clock)
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.start(CH, ADA)
    for _ in range(4):
        clock.advance(1)
        user = user_to_move(host)
        await host.play.move(CH, user, host.play.legal_moves(CH, user)[0])
    assert (await host.archive.turn_speed(GUILD, ADA)).turns > 0
    assert (await host.archive.turn_speed(GUILD, BO)).turns > 0
    await host.people.forget_me(ADA)
    assert (await host.archive.turn_speed(GUILD, ADA)).turns == 0
    assert (await host.archive.turn_speed(GUILD, BO)).turns > 0


@pytest.mark.parametrize("store", ["sqlite"], indirect=True)
async def test_the_percentiles_are_read_at_their_ranks(store: Any) -> None:
    """Many turns of one person, and a few of others on the same server: the median and the 90th percentile are
    the values at their ranks, between the two nearest, as numpy's default computes them."""
    rng = random.Random(8)
    async with store._write() as db:
        rows = [(1, seq, GUILD, ADA if seq % 3 else BO, rng.expovariate(1 / 600), NOON) for seq in range(1, 1001)]
        await db.executemany("INSERT INTO turn_times (game_id, seq, guild_id, user_id, seconds, moved_at)"
                             " VALUES (?, ?, ?, ?, ?, ?)", rows)
    own = sorted(r[4] for r in rows if r[3] == ADA)
    speed = await store.turn_speed(GUILD, ADA)
    assert speed.turns == len(own) == 667
    assert speed.median == pytest.approx(own[333])  # an odd count: the middle value
    assert speed.p90 == pytest.approx(own[599] + 0.4 * (own[600] - own[599]))
    assert (await store.turn_speed(None, ADA)).turns == 0


def test_a_turns_time_leaves_out_the_union_of_quiet_hours_and_breaks() -> None:
    quiet = UserSettings(time_zone="UTC", quiet_from=22, quiet_to=7)
    start = NOON
    # 3 days; quiet 9 h a night (27 h); a break over the first night and into the next morning (overlapping)
    breaks = [(start + 8 * HOUR, start + 24 * HOUR)]  # 20:00 to 12:00: 16 h, 9 of them quiet hours already
    assert turn_seconds(start, start + 3 * DAY, quiet, breaks) == pytest.approx((72 - 27 - 7) * HOUR)
    assert turn_seconds(start, start + HOUR, quiet, [(start - DAY, start + DAY)]) == 0.0
    assert turn_seconds(start, start + HOUR, UserSettings(), []) == HOUR


@pytest.mark.parametrize("zone", ["Europe/Berlin", "America/New_York", "Asia/Kolkata", "UTC"])
def test_quiet_windows_are_the_hours_quiet_until_calls_quiet_across_daylight_saving_time(zone: str) -> None:
    """Every instant of a month around a clock change lies in a window exactly when ``quiet_until`` says it is
    quiet, for windows across midnight and within a day."""
    rng = random.Random(zone)
    start = datetime(2026, 3, 20, tzinfo=ZoneInfo(zone)).timestamp()  # Europe and the US change in this month
    for first, to in ((22, 7), (1, 6), (0, 23)):
        settings = UserSettings(time_zone=zone, quiet_from=first, quiet_to=to)
        windows = quiet_windows(settings, start, start + 30 * DAY)
        assert all(a < b for a, b in windows) and all(b <= c for (_, b), (c, _) in pairwise(windows))
        for _ in range(3000):
            moment = start + rng.random() * 30 * DAY
            inside = any(a <= moment < b for a, b in windows)
            assert inside == (quiet_until(settings, moment) is not None), (first, to, moment)
