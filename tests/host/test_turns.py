"""Turns (``bot.host.turns``), as the outboxes use them for the deliveries left from before a start: a few under way at
once, the others in order, and a channel whose newer post waits behind its owed one let through at once. The whole
way, through the real bot and the fake Discord: ``tests/adapter/test_bot_restart.py``; by priority, as the render pool
uses them: ``tests/host/test_workers.py``."""

from __future__ import annotations

import asyncio

from bot.host.turns import Turns


async def under_way(turns: Turns, channel: int, done: list[int], gate: asyncio.Event, *,
                    hurry: bool = False) -> bool:
    """Under way until ``gate`` opens; whether it waited for its turn."""
    async with turns.turn(channel, hurry=hurry) as waited:
        done.append(channel)
        await gate.wait()
    return waited


async def test_two_at_once_the_others_in_order_and_a_hurried_channel_at_once_without_a_turn() -> None:
    turns = Turns(2)
    done: list[int] = []
    gates = {channel: asyncio.Event() for channel in range(1, 7)}
    tasks = {channel: asyncio.create_task(under_way(turns, channel, done, gates[channel])) for channel in range(1, 6)}
    await asyncio.sleep(0)
    assert done == [1, 2] and turns.free == 0
    assert turns.hurry(4)  # a move was made in channel 4: its owed post goes now
    await asyncio.sleep(0)
    assert done == [1, 2, 4]
    assert not turns.hurry(4) and not turns.hurry(9)  # none waits for either any more
    tasks[6] = asyncio.create_task(under_way(turns, 6, done, gates[6], hurry=True))  # a newer one behind it already
    await asyncio.sleep(0)
    assert done == [1, 2, 4, 6]
    for channel in (4, 6):  # through without taking a turn: nobody waiting moves on
        gates[channel].set()
        await tasks[channel]
    assert done == [1, 2, 4, 6]
    gates[1].set()
    await tasks[1]
    await asyncio.sleep(0)
    assert done == [1, 2, 4, 6, 3]
    tasks[5].cancel()  # a channel gone while it waited
    gates[2].set()
    gates[3].set()
    await tasks[2]
    await tasks[3]
    assert done == [1, 2, 4, 6, 3] and turns.free == 2
    assert [tasks[channel].result() for channel in (1, 2, 3, 4, 6)] == [False, False, True, True, False]


async def test_a_delivery_handed_a_turn_as_it_is_cancelled_passes_the_turn_on() -> None:
    turns = Turns(1)
    done: list[int] = []
    gates = {channel: asyncio.Event() for channel in (1, 2, 3)}
    first = asyncio.create_task(under_way(turns, 1, done, gates[1]))
    await asyncio.sleep(0)
    second = asyncio.create_task(under_way(turns, 2, done, gates[2]))
    third = asyncio.create_task(under_way(turns, 3, done, gates[3]))
    await asyncio.sleep(0)
    gates[1].set()
    await asyncio.sleep(0)  # channel 1 is through and hands its turn to channel 2, which has not run since
    assert first.done() and done == [1]
    second.cancel()
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert second.cancelled() and done == [1, 3]
    gates[3].set()
    await third
    assert turns.free == 1
