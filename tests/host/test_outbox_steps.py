"""What a pending delivery becomes, decided by the host's outbox (``host.outbox.step``), on both stores: a post
names without pinging the people in their quiet hours, and a lobby message's redraw that a later one makes again is
skipped; a DM in quiet hours is held (written before the step is
returned), no longer holds up the channel and stays held when the bot starts again; a turn DM whose turn passed, or
to someone who turned turn DMs off, is skipped unless it changed their hand; the held DMs of a person gather into one
when their hours end, the others marked done only once it was sent. The edit that tells a passed turn's DMs so is
never held; the game-over DM is held, and never gathered into another."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from bot.host import metrics
from bot.host.change import Change
from bot.host.deliveries import (
    CHANGED,
    GAME_OVER_DM,
    HAND_DM,
    LOBBY_EDIT,
    LOBBY_POST,
    MOVE_POST,
    NOTICE_DM,
    NOTICE_POST,
    START_POST,
    TURN_DM,
    TURN_OVER_DM,
    Delivery,
)
from bot.host.host import Host
from bot.host.model import NewDelivery
from bot.host.outbox import (
    CARDS_WAIT,
    FOLDED,
    NOT_RUNNING,
    Held,
    SendDm,
    SendGameOver,
    SendGathered,
    SendPost,
    SendTurnOver,
    Skip,
    Step,
)
from tests.helpers.clock import Clock, at
from tests.helpers.host import ADA, BO, CH, CH2, CY, GUILD, finish, make_host, play_first, start_two, user_to_move

pytestmark = pytest.mark.clock_at("2026-11-24 12:00")
"""The host's clock (``clock``, which ``host`` reads) starts on Tuesday 24 November 2026 at noon in Berlin."""


async def step_of(host: Host, delivery: Delivery, later: list[Delivery] | None = None) -> Step:
    async with host.outbox.step(delivery, later or []) as step:
        return step


async def pending(host: Host, channel: int = CH) -> list[Delivery]:
    return await host.outbox.pending_deliveries(channel)


@pytest.fixture
def host_store(store: Any) -> Any:
    """The host of these tests on each store in turn."""
    return store


async def test_only_the_newest_redraw_of_a_lobby_message_is_sent(host: Host) -> None:
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await host.lobby.add_computer(CH, ADA)
    await host.lobby.remove_computer(CH, ADA)
    waiting = await pending(host)
    assert [d.kind for d in waiting] == [LOBBY_POST, LOBBY_EDIT, LOBBY_EDIT]
    steps = [await step_of(host, d, waiting[i + 1:]) for i, d in enumerate(waiting)]
    assert steps == [SendPost(), Skip("skipped: a later edit draws the lobby as it is then"), SendPost()]


async def test_a_post_names_the_player_in_quiet_hours_without_a_ping(host: Host, clock: Clock) -> None:
    mover = await start_two(host, CH, ((ADA, "Ada"), (BO, "Bo")))
    (start_post,) = [d for d in await pending(host) if d.kind == START_POST]
    assert await step_of(host, start_post) == SendPost(frozenset())
    await host.people.change_settings(mover, time_zone="Europe/Berlin", quiet=(22, 7))
    clock.now = at("2026-11-24 23:00")
    assert await step_of(host, start_post) == SendPost(frozenset({mover}))
    clock.now = at("2026-11-25 07:00")
    assert await step_of(host, start_post) == SendPost(frozenset())


async def held_turn_dm(host: Host) -> tuple[list[Delivery], Delivery]:
    """A game of two whose first mover keeps quiet hours from 22:00 to 7:00 (Berlin); at 23:00 the outbox holds
    their turn DM until 7:00. What was owed then, and that turn DM."""
    clock: Any = host.clock
    mover = await start_two(host, CH, ((ADA, "Ada"), (BO, "Bo")))
    await host.people.change_settings(mover, time_zone="Europe/Berlin", quiet=(22, 7))
    clock.now = at("2026-11-24 23:00")
    owed = await pending(host)
    (turn,) = [d for d in owed if d.kind == TURN_DM]
    assert await step_of(host, turn) == Held(at("2026-11-25 07:00"))
    return owed, turn


async def test_a_dm_in_quiet_hours_is_held_and_no_longer_holds_up_the_channel(host: Host, clock: Clock) -> None:
    _, turn = await held_turn_dm(host)
    again = await pending(host)
    (held,) = [d for d in again if d.id == turn.id]
    assert held.due_at == at("2026-11-25 07:00") and held.payload["held"] is True
    assert [again[i].id for i in host.outbox.ready(again)] == [d.id for d in again if d.id != turn.id]
    assert await host.outbox.held_channels_due() == []
    clock.now = at("2026-11-25 07:00")
    assert host.outbox.ready(again) == list(range(len(again)))
    assert await host.outbox.held_channels_due() == [CH]


async def test_at_start_up_a_backoff_ends_but_a_dm_held_for_quiet_hours_stays_held(host: Host, clock: Clock) -> None:
    owed, turn = await held_turn_dm(host)
    backed_off = next(d for d in owed if d.id != turn.id)
    await host.outbox.retry_delivery(backed_off, 3600.0, "503 Service Unavailable")
    resumed = {d.id: d for d in await host.outbox.resume_deliveries()}  # the bot starts again at 23:00
    assert resumed[backed_off.id].due_at == clock.now, "a failed delivery's backoff carried over a restart"
    assert resumed[turn.id].due_at == at("2026-11-25 07:00") and resumed[turn.id].payload["held"] is True


async def test_turn_dms_skipped_when_the_turn_passed_or_turned_off(host: Host) -> None:
    mover = await start_two(host, CH, ((ADA, "Ada"), (BO, "Bo")))
    (turn,) = [d for d in await pending(host) if d.kind == TURN_DM]
    step = await step_of(host, turn)
    assert isinstance(step, SendDm) and step.turn and step.start and step.info.channel_id == CH
    for d in await pending(host):
        await host.outbox.delivered(d)
    await play_first(host)
    while user_to_move(host) == mover:  # the rest of the mover's turn (a double move's builds)
        await play_first(host)
    owed = await pending(host)
    (next_turn,) = [d for d in owed if d.kind == TURN_DM]
    assert next_turn.user_id == user_to_move(host)
    assert isinstance(await step_of(host, next_turn), SendDm)
    stale = replace(next_turn, id=0, seq=next_turn.seq - 1,
                    payload_json=json.dumps({"start": False, "hand_changed": False}))
    assert await step_of(host, stale) == Skip("skipped: the turn has passed")
    changed = replace(stale, payload_json=json.dumps({"start": False, "hand_changed": True}))
    assert await step_of(host, changed) == SendDm(host.games.info(CH), turn=False)  # type: ignore[arg-type]
    assert next_turn.user_id is not None
    await host.people.change_settings(next_turn.user_id, turn_dms=False)
    assert await step_of(host, next_turn) == Skip("skipped: the player turned turn DMs off")
    hand = replace(next_turn, id=0, kind=HAND_DM, payload_json=json.dumps({"start": False}))
    assert await step_of(host, hand, [next_turn]) == Skip("skipped: a later DM shows the same hand")
    posts = [d for d in owed if d.kind == MOVE_POST]
    assert posts and isinstance(await step_of(host, posts[0]), SendPost)


async def owe_changed_hands(host: Host) -> tuple[Delivery, Delivery, Delivery]:
    """A started game of two whose hand DMs are sent; then a "your cards changed" DM owed to each player (as another
    player's move owes them) and, after them, the player to move's turn DM: (that player's, the other's, the turn)."""
    mover = await start_two(host, CH, ((ADA, "Ada"), (BO, "Bo")))
    other = BO if mover == ADA else ADA
    for d in await pending(host):
        await host.outbox.delivered(d)
    async with host.games.change(CH) as table:
        assert table is not None
        await host.games.write(table, Change(deliveries=[
            NewDelivery(HAND_DM, table.seq, user, {"start": False, CHANGED: True}) for user in (mover, other)]))
    async with host.games.change(CH) as table:
        assert table is not None
        await host.games.write(table, Change(deliveries=[
            NewDelivery(TURN_DM, table.seq, mover, {"start": False, "hand_changed": True})]))
    changed_mine, changed_other, turn = await pending(host)
    assert (changed_mine.user_id, changed_other.user_id, turn.kind) == (mover, other, TURN_DM)
    return changed_mine, changed_other, turn


async def test_a_cards_changed_dm_waits_and_folds_into_the_turn_dm_written_meanwhile(host: Host, clock: Clock) -> None:
    changed_mine, changed_other, turn = await owe_changed_hands(host)
    owed = [changed_mine, changed_other, turn]
    # the cards-changed DMs wait without holding up the turn DM after them; the channel is woken when they may go
    assert host.outbox.ready(owed) == [2]
    assert host.outbox.wake_at(owed) == changed_mine.created_at + CARDS_WAIT
    clock.now += CARDS_WAIT
    assert host.outbox.ready(owed) == [0, 1, 2] and host.outbox.wake_at(owed) is None
    # the mover's is folded into their turn DM, pending or sent; the other's goes out, showing the hand alone
    folded = Skip(FOLDED)
    assert await step_of(host, changed_mine, [changed_other, turn]) == folded
    info = host.games.info(CH)
    assert info is not None
    assert await step_of(host, changed_other, [turn]) == SendDm(info, turn=False)
    await host.outbox.delivered(turn)
    assert await step_of(host, changed_mine) == folded
    # recorded as a DM not sent on purpose (its own label), not as one given up
    before = hand_dms_counted()
    await host.outbox.delivered(changed_mine, folded.reason)
    assert hand_dms_counted() == {**before, "folded": before.get("folded", 0) + 1}


async def test_a_cards_changed_dm_of_a_game_that_ended_meanwhile_does_not_wait(host: Host) -> None:
    """Once the game is over there is no turn DM left to fold it into: it is done at once (not sent), so the
    channel's outbox is not kept busy for the rest of the wait."""
    changed_mine, changed_other, turn = await owe_changed_hands(host)
    owed = [changed_mine, changed_other, turn]
    assert host.outbox.ready(owed) == [2]
    await host.lobby.abandon(CH, ADA)
    assert host.outbox.ready(owed) == [0, 1, 2] and host.outbox.wake_at(owed) is None
    assert await step_of(host, changed_other, [turn]) == Skip(NOT_RUNNING)


def hand_dms_counted() -> dict[str, float]:
    """The hand DMs the metrics count as skipped (by reason) and as failed (``failed:`` and what became of them)."""
    counted: dict[str, float] = {}
    for family in metrics.REGISTRY.collect():
        for sample in family.samples:
            if sample.labels.get("kind") != HAND_DM or not sample.name.endswith("_total"):
                continue
            if sample.name == "santacruz_deliveries_skipped_total":
                counted[sample.labels["reason"]] = sample.value
            elif sample.name == "santacruz_deliveries_failed_total":
                counted[f"failed:{sample.labels['outcome']}"] = sample.value
    return counted


async def test_a_cards_changed_dm_whose_later_dm_was_not_sent_goes_out(host: Host, clock: Clock) -> None:
    changed_mine, _, turn = await owe_changed_hands(host)
    await host.outbox.delivered(turn, "skipped: the turn has passed")  # it showed nothing
    clock.now += CARDS_WAIT
    assert await step_of(host, changed_mine) == SendDm(host.games.info(CH), turn=False)  # type: ignore[arg-type]


async def test_held_dms_of_two_games_gather_into_one_and_only_a_sent_one_collapses_the_others(host: Host,
                                                                                           clock: Clock) -> None:
    await host.people.change_settings(ADA, time_zone="Europe/Berlin", quiet=(22, 7))
    await host.people.change_settings(BO, time_zone="Europe/Berlin", quiet=(22, 7))
    clock.now = at("2026-11-24 23:00")
    await start_two(host, CH, ((ADA, "Ada"), (BO, "Bo")))
    await host.lobby.open(CH2, GUILD, CY, "Cy")
    await host.lobby.join(CH2, ADA, "Ada")
    await host.lobby.start(CH2, CY)
    ada = [d for ch in (CH, CH2) for d in await pending(host, ch) if d.user_id == ADA]
    assert len(ada) == 2
    for d in ada:
        assert isinstance(await step_of(host, d), Held)
    clock.now = at("2026-11-25 07:30")
    first, second = [d for ch in (CH, CH2) for d in await pending(host, ch) if d.user_id == ADA]
    with pytest.raises(ConnectionError):  # the DM could not be sent: nothing is collapsed
        async with host.outbox.step(first, []) as step:
            assert isinstance(step, SendGathered) and [d.id for d in step.collapsed] == [second.id]
            raise ConnectionError("Discord did not answer")
    assert {d.id for d in await host.outbox.held_deliveries(ADA)} == {first.id, second.id}
    async with host.outbox.step(first, []) as step:
        assert isinstance(step, SendGathered) and step.locale == "en"
        standing = [g for g in (CH, CH2) if user_to_move(host, g) == ADA]
        if standing:  # Ada's turn stands somewhere: its controls go with the list of games waiting for her
            assert step.turn is not None and step.turn.channel_id in standing and step.changed == []
            assert {g.channel_id for g in step.waiting} == set(standing)
        else:
            assert step.turn is None and step.changed == [CH, CH2]
    await host.outbox.delivered(first)
    assert await host.outbox.held_deliveries(ADA) == []
    assert await step_of(host, second) == Skip("skipped: collapsed into another DM")


async def test_a_passed_turn_is_told_at_once_even_in_quiet_hours_and_only_once(host: Host, clock: Clock) -> None:
    mover = await start_two(host, CH, ((ADA, "Ada"), (BO, "Bo")))
    (turn,) = [d for d in await pending(host) if d.kind == TURN_DM]
    for d in await pending(host):  # the turn DM went out as message 900
        await host.outbox.delivered(d, message_id=900 if d.id == turn.id else None)
    info = host.games.info(CH)
    assert info is not None
    game_id = info.game_id
    assert await host.outbox.open_turn_dms(game_id, mover) == [(turn.id, 900)]
    await host.people.change_settings(mover, time_zone="Europe/Berlin", quiet=(22, 7))
    clock.now = at("2026-11-24 23:00")
    await play_first(host)
    while user_to_move(host) == mover:  # the rest of the mover's turn (a double move's builds)
        await play_first(host)
    (told,) = [d for d in await pending(host) if d.kind == TURN_OVER_DM]
    assert told.user_id == mover and told.payload["reason"] == "moved" and told.payload["moves"]
    assert await step_of(host, told) == SendTurnOver(host.games.info(CH))  # type: ignore[arg-type]  # never held
    await host.outbox.delivered(told, closed=[turn.id])
    assert await host.outbox.open_turn_dms(game_id, mover) == []


async def test_the_result_waits_for_quiet_hours_and_is_never_gathered_into_another_dm(host: Host, clock: Clock) -> None:
    await host.people.change_settings(ADA, time_zone="Europe/Berlin", quiet=(22, 7))
    clock.now = at("2026-11-24 23:00")
    await finish(host)  # Ada away: the computer plays her seat to the end
    owed = [d for d in await pending(host) if d.user_id == ADA]
    (result,) = [d for d in owed if d.kind == GAME_OVER_DM]
    passed = [d for d in owed if d.kind == TURN_OVER_DM]
    assert passed and all(d.payload["reason"] == "computer" for d in passed)
    for d in owed:
        step = await step_of(host, d)
        assert isinstance(step, SendTurnOver if d.kind == TURN_OVER_DM else Held)
        if d.kind == TURN_OVER_DM:
            await host.outbox.delivered(d)
    clock.now = at("2026-11-25 07:30")
    held = await host.outbox.held_deliveries(ADA)
    assert result.id in {d.id for d in held} and len(held) > 1
    other = next(d for d in held if d.id != result.id)
    async with host.outbox.step(other, []) as step:
        assert isinstance(step, SendGathered) and result.id not in [d.id for d in step.collapsed]
    (result,) = [d for d in await host.outbox.held_deliveries(ADA) if d.kind == GAME_OVER_DM]
    assert await step_of(host, result) == SendGameOver(host.games.info(CH))  # type: ignore[arg-type]


async def test_the_opener_is_owed_one_dm_per_missing_permission_per_game_across_restarts(host: Host,
                                                                                       store: Any) -> None:
    """So is the channel one post per person whose DMs it refuses (``dm_failed``)."""
    await start_two(host, CH, ((ADA, "Ada"), (BO, "Bo")))
    await finish(host, CH2)  # a game that is over owes nothing
    await host.outbox.missing_permission(CH2, "attach_files")
    assert not [d for d in await pending(host, CH2) if d.kind == NOTICE_DM]
    for restarted in (False, False, True):
        if restarted:  # another start of the bot (or another process) finds the DM already owed
            host = make_host(store, host.clock)  # type: ignore[arg-type]
            await host.load()
        await host.outbox.missing_permission(CH, "attach_files")
        await host.outbox.missing_permission(CH, "send_messages")
        await host.outbox.dm_failed(CH, BO)
    said = [d.payload for d in await pending(host) if d.kind == NOTICE_POST]
    assert said == [{"key": "bot.post.dm_failed", "locale": "en", "params": {"mention": BO}}]
    owed = [(d.user_id, d.payload) for d in await pending(host) if d.kind == NOTICE_DM]
    assert owed == [(ADA, {"key": f"bot.dm.missing_{p}", "locale": "en", "params": {"channel": CH}})
                    for p in ("attach_files", "send_messages")]
    (told, _) = [d for d in await pending(host) if d.kind == NOTICE_DM]
    await host.outbox.delivered(told)
    host = make_host(store, host.clock)  # type: ignore[arg-type]
    await host.load()
    await host.outbox.missing_permission(CH, "attach_files")  # sent already, and another start: still once
    assert len([d for d in await store.deliveries(told.game_id) if d.kind == NOTICE_DM]) == 2
