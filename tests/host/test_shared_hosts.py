"""Two hosts (as two processes would have) over one PostgreSQL database: computer moves, reminders and leases
happen once whichever host gets there first, and each host sees what the other wrote before its next change."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.host.host import Host
from tests.helpers.clock import Clock
from tests.helpers.host import ADA, BO, CH, CH2, CY, GUILD, two_hosts, user_to_move


async def two_hosts_at_a_started_game(stores: Any, clock: Clock) -> tuple[Host, Host]:
    """Two hosts on one database, a game of Ada and Bo started by the first, both hosts loaded."""
    one, two = two_hosts(stores, clock)
    await one.load()
    await one.lobby.open(CH, GUILD, ADA, "Ada")
    await one.lobby.join(CH, BO, "Bo")
    await one.lobby.start(CH, ADA)
    await two.load()
    await two.refresh.channel(CH)  # the other process holds the game too (it was touched there)
    return one, two


async def test_computers_raced_by_two_hosts_move_once_per_turn(stores: Any) -> None:
    clock = Clock()
    one, two = two_hosts(stores, clock)
    assert one.shared and two.shared
    await one.load()
    await one.lobby.open(CH, GUILD, ADA, "Ada", computers=2, strength="random")
    await one.lobby.start(CH, ADA)
    await one.play.away(CH, ADA)  # every seat is played by the computer now
    await two.load()

    async def play_all(host: Host) -> list[int]:
        return [result.seq async for result in host.computers.run_computers(CH)]

    played = []
    for _ in range(200):  # the host whose turn it is not may find the lease taken and stop: go round again
        a, b = await asyncio.gather(play_all(one), play_all(two))
        played += a + b
        await one.refresh.channel(CH)
        await two.refresh.channel(CH)
        if one.games.info(CH).status == "over":
            break
    rows = await stores[0].moves(one.games.info(CH).game_id)
    assert one.games.info(CH).status == two.games.info(CH).status == "over"
    assert [r.seq for r in rows] == list(range(1, len(rows) + 1)) == sorted(played)
    assert one.play.public_view(CH) == two.play.public_view(CH)


async def test_a_due_reminder_is_recorded_and_sent_by_one_host(stores: Any) -> None:
    clock = Clock()
    one, two = await two_hosts_at_a_started_game(stores, clock)
    clock.advance(2)
    due_one, due_two = await one.reminders.due(), await two.reminders.due()
    assert len(due_one) == len(due_two) == 1
    marked = await asyncio.gather(one.reminders.mark(due_one[0]), two.reminders.mark(due_two[0]))
    assert sorted(marked) == [False, True]
    assert await one.reminders.due() == [] and await two.reminders.due() == []
    clock.advance(25)  # a day later the next one is due, again for one host only
    marked = [await one.reminders.mark(r) for r in await one.reminders.due()]
    marked += [await two.reminders.mark(r) for r in await two.reminders.due()]
    assert marked.count(True) == 1


async def test_leases_and_a_game_ended_by_the_other_host(stores: Any) -> None:
    clock = Clock()
    one, two = two_hosts(stores, clock)
    await one.load()
    await one.lobby.open(CH, GUILD, ADA, "Ada")
    await two.load()
    assert await one.leases.hold("outbox:1", 30) and not await two.leases.hold("outbox:1", 30)
    await one.leases.let_go("outbox:1")
    assert await two.leases.hold("outbox:1", 30)
    # a lobby the other host abandoned is let go of at the next sweep, and a new one is seen
    await two.lobby.abandon(CH, ADA)
    assert one.games.info(CH).status == "lobby"
    await one.refresh_all()
    assert one.games.info(CH).status == "abandoned"
    await two.lobby.open(CH, GUILD, BO, "Bo")
    assert await one.refresh_all() == []  # the sweep reads again the open games held; a new one, when touched
    assert (await one.refresh.channel(CH)).opener_id == BO == one.games.info(CH).opener_id  # type: ignore[union-attr]


async def test_a_vote_on_a_vacation_another_host_started_counts_on_an_old_copy(stores: Any) -> None:
    """The channel's process may still hold the game from before the vacation (started by the process a DM
    reached): the vote reads the game again under the channel's lock first, so it counts at the first try."""
    from bot.host.vacation import PAUSE

    clock = Clock()
    one, two = two_hosts(stores, clock)
    await one.load()
    await one.lobby.open(CH, GUILD, ADA, "Ada")
    for user, name in ((BO, "Bo"), (CY, "Cy")):
        await one.lobby.join(CH, user, name)
    await one.lobby.start(CH, ADA)
    await two.load()
    await two.refresh.channel(CH)
    game_id = one.games.info(CH).game_id
    assert [c.game_id for c in await one.vacation.start(ADA, 2)] == [game_id]
    assert two.games.info(CH).seats[0].vacation is None  # two's copy knows no vacation yet
    change = await two.vacation.vote(game_id, BO, 0, PAUSE)
    assert change.game_id == game_id
    await one.refresh.channel(CH)
    assert one.games.info(CH).seats[0] == two.games.info(CH).seats[0]


async def test_a_users_games_are_read_again_from_the_database(stores: Any) -> None:
    """What a command in a DM reads first: the games the user sits in that another process opened, changed or
    ended; games of other people are left alone."""
    clock = Clock()
    one, two = two_hosts(stores, clock)
    await one.load()
    await one.lobby.open(CH, GUILD, ADA, "Ada")
    await one.lobby.join(CH, BO, "Bo")
    await two.load()
    await one.lobby.open(CH + 1, GUILD, BO, "Bo")  # Bo's only: opened after two loaded
    await one.lobby.open(CH + 2, GUILD, ADA, "Ada")
    await one.lobby.start(CH, ADA)
    await two.refresh.games_of(ADA)
    assert two.games.info(CH).status == "running" and two.games.info(CH + 2) is not None
    assert two.games.info(CH + 1) is None  # not Ada's game
    await one.lobby.abandon(CH + 2, ADA)
    await two.refresh.games_of(ADA)
    assert two.games.info(CH + 2).status == "abandoned"
    assert [g.channel_id for g in two.games.games_of(ADA)] == [CH]


async def test_a_reading_waits_for_a_change_under_way_when_asked_to(stores: Any) -> None:
    """A command's reading before it decides (what to offer, ask or refuse) waits for a change of the game under way
    in its own process (here a change that holds the channel while the other host moves), then reads the game
    again: it sees the other host's move, not the copy from before it. Without waiting it answers with that copy
    at once, as the sweep and the publisher want."""
    clock = Clock()
    one, two = await two_hosts_at_a_started_game(stores, clock)
    seq = two.games.info(CH).seq
    let_go = asyncio.Event()

    async def busy() -> None:
        async with two.games.change(CH):  # e.g. the sweep reading the game, or another command's move
            await let_go.wait()

    holder = asyncio.create_task(busy())
    await asyncio.sleep(0)
    mover = next(user for user in (ADA, BO) if one.play.legal_moves(CH, user))
    await one.play.move(CH, mover, one.play.legal_moves(CH, mover)[0])
    assert (await two.refresh.channel(CH)).seq == seq, "without waiting: the copy from before the change"
    reading = asyncio.create_task(two.refresh.channel(CH, wait=30))
    await asyncio.sleep(0.05)
    assert not reading.done(), "it waits for the change under way"
    let_go.set()
    info = await reading
    await holder
    assert info is not None and info.seq == seq + 1 == one.games.info(CH).seq
    assert two.play.legal_moves(CH, mover) == one.play.legal_moves(CH, mover)
    assert two.games.info(CH).to_move == one.games.info(CH).to_move
    to_move = user_to_move(one)
    assert two.play.legal_moves(CH, to_move) == one.play.legal_moves(CH, to_move) != []


async def test_a_reading_of_several_games_waits_once_for_all_of_them(stores: Any,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A command in a DM reads every game of its player again; the wait for changes under way is one budget for
    all of them (Discord takes the first answer within 3 s), not one per game."""
    clock = Clock()
    one, two = await two_hosts_at_a_started_game(stores, clock)
    await one.lobby.open(CH2, GUILD, ADA, "Ada")
    await one.lobby.join(CH2, BO, "Bo")
    await one.lobby.start(CH2, ADA)
    await two.refresh.games_of(ADA)
    for channel in (CH, CH2):  # both of the second host's copies fall behind
        mover = next(user for user in (ADA, BO) if one.play.legal_moves(channel, user))
        await one.play.move(channel, mover, one.play.legal_moves(channel, mover)[0])
    asked: list[float] = []
    real = two.games.refresh.channel

    async def waiting(channel_id: int, *, wait: float = 0.0) -> Any:
        asked.append(wait)
        await asyncio.sleep(wait)  # as if a change under way held each channel all that time
        return await real(channel_id)

    monkeypatch.setattr(two.games.refresh, "channel", waiting)
    await two.refresh.games_of(ADA, wait=0.2)
    assert len(asked) == 2 and asked[0] == pytest.approx(0.2, abs=0.05) and sum(asked) <= 0.25, asked
    assert two.games.info(CH).seq == one.games.info(CH).seq and two.games.info(CH2).seq == one.games.info(CH2).seq


async def test_a_host_knows_when_another_plays_a_channels_computers(stores: Any) -> None:
    """While one host holds a channel's computers (thinking), the other's try finds the lease taken and remembers
    that another process plays them (the sweep then does not warn of a stopped task); once it plays them itself, it
    forgets."""
    clock = Clock()
    one, two = two_hosts(stores, clock)
    await one.load()
    await one.lobby.open(CH, GUILD, ADA, "Ada", computers=2, strength="random")
    await one.lobby.start(CH, ADA)
    await one.play.away(CH, ADA)  # every seat is played by the computer now
    await two.load()
    lease = f"computers:{CH}"
    assert await one.leases.hold(lease, one.computers.computer_lease)  # one is thinking for the channel
    assert not two.computers.played_elsewhere(CH)
    assert [r async for r in two.computers.run_computers(CH)] == []
    assert two.computers.played_elsewhere(CH) and not one.computers.played_elsewhere(CH)
    await one.leases.let_go(lease)
    playing = two.computers.run_computers(CH)
    assert (await anext(playing)).seq == one.games.info(CH).seq + 1 and not two.computers.played_elsewhere(CH)
    await playing.aclose()  # one move is enough
