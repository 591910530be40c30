"""The outbox on real SQLite files: every change writes the posts and DMs it owes in its own transaction,
with public facts only; a failed write stores neither the change nor its deliveries; rows are marked done or
due again later."""

from __future__ import annotations

import json
from typing import Any, Final

import pytest

from bot.host.deliveries import (
    ABANDONED_POST,
    HAND_DM,
    LOBBY_EDIT,
    LOBBY_POST,
    MOVE_POST,
    SEAT_POST,
    START_POST,
    TURN_DM,
    TURN_OVER_DM,
    Delivery,
)
from bot.host.errors import HostError
from bot.host.host import Host
from bot.host.model import DeliveryRow
from bot.host.store import Store
from bot.host.table import MoveResult, SeatChange, StartResult
from tests.helpers.clock import Clock
from tests.helpers.host import ADA, BO, CH, GUILD, SEED, loaded_host, play_first, user_to_move


@pytest.fixture
def host_store(store: Any) -> Any:
    """The host of these tests on each store in turn."""
    return store


async def started(host: Host) -> StartResult:
    """Ada's game with Bo, started."""
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await host.lobby.join(CH, BO, "Bo")
    return await host.lobby.start(CH, ADA)


def kinds(rows: list[DeliveryRow]) -> list[tuple[str, int, int | None]]:
    return [(r.kind, r.seq, r.user_id) for r in rows]


def assert_public(host: Host, rows: list[DeliveryRow]) -> None:
    """No payload carries the seed, a seat's own view or any seat's secret scoring cards."""
    for row in rows:
        text = json.dumps(row.payload)
        assert '"seed"' not in text and str(SEED) not in text and '"scoring_cards"' not in text
        assert '"you": {' not in text and '"legal_moves"' not in text


LOBBY: Final = [(LOBBY_POST, 0, None), (LOBBY_EDIT, 0, None), (LOBBY_EDIT, 0, None)]
"""The lobby's message, its redraw after Bo joined, and its redraw at the start (without its buttons)."""


async def test_the_lobby_message_is_owed_when_it_opens_and_redrawn_after_each_change(store: Store,
                                                                                     clock: Clock) -> None:
    host = await loaded_host(store, clock)
    info = await host.lobby.open(CH, GUILD, ADA, "Ada", computers=1)
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.remove_computer(CH, ADA)
    await host.lobby.leave(CH, BO)
    await host.lobby.abandon(CH, ADA)
    rows = await store.deliveries(info.game_id)
    assert kinds(rows) == [(LOBBY_POST, 0, None)] + [(LOBBY_EDIT, 0, None)] * 4 + [(ABANDONED_POST, 0, None)]
    assert rows[0].payload == {} and all(r.payload == {} for r in rows[1:5])
    # a game in a thread of its own: its lobby message is the message that started the thread, in the channel
    thread = await host.lobby.open(CH + 1, GUILD, ADA, "Ada", parent_id=CH, lobby_message=(CH, CH + 1))
    [posted] = await store.deliveries(thread.game_id)
    assert (posted.kind, posted.channel_id, posted.payload) == (LOBBY_POST, CH + 1, {"channel": CH, "message": CH + 1})
    assert await host.outbox.lobby_message(thread.game_id) is None  # not sent yet
    await host.outbox.delivered(Delivery.from_row(posted), message_id=CH + 1)
    assert await host.outbox.lobby_message(thread.game_id) == (posted.id, CH, CH + 1)


async def test_start_writes_its_post_and_every_hand(host: Host, store: Store) -> None:
    start = await started(host)
    rows = await store.deliveries(start.info.game_id)
    assert kinds(rows[:3]) == LOBBY
    rows = rows[3:]
    first = start.to_move_user_id
    other = BO if first == ADA else ADA
    assert kinds(rows) == [(START_POST, 0, None)] + [
        (TURN_DM if u == first else HAND_DM, 0, u) for u in (ADA, BO)]
    assert all(r.done_at is None and r.attempts == 0 and r.channel_id == CH for r in rows)
    assert StartResult.from_payload(rows[0].payload) == start
    assert {r.user_id for r in rows[1:]} == {first, other}
    assert_public(host, rows)


async def test_a_move_writes_its_post_and_dms_in_its_transaction(host: Host, store: Store) -> None:
    start = await started(host)
    result = await play_first(host)
    rows = [r for r in await store.deliveries(start.info.game_id) if r.seq == 1]
    assert rows[0].kind == MOVE_POST and MoveResult.from_payload(rows[0].payload) == result
    assert result.passed_user_id is not None  # the mover's turn DM is told that the turn passed (no new DM)
    assert result.to_move_user_id is not None
    # the next player's turn DM first: the edit of the mover's DM waits for the budget's cosmetic share
    expected = [(TURN_DM, 1, result.to_move_user_id), (TURN_OVER_DM, 1, result.passed_user_id)]
    expected += [(HAND_DM, 1, u) for u in result.dm_user_ids if u != result.to_move_user_id]
    assert kinds(rows[1:]) == expected
    assert rows[1].payload["hand_changed"] == (result.to_move_user_id in result.dm_user_ids)
    assert_public(host, await store.deliveries(start.info.game_id))


@pytest.mark.parametrize("store", ["sqlite"], indirect=True)
async def test_a_failed_write_stores_neither_the_move_nor_its_deliveries(host: Host, store: Store) -> None:
    start = await started(host)
    before = await store.deliveries(start.info.game_id)
    # a real "database or disk is full": no page may be added to the file
    conn = store._conn  # the store's own connection: the limit is per connection
    async with conn.execute("PRAGMA page_count") as cur:
        row = await cur.fetchone()
    assert row is not None
    await conn.execute(f"PRAGMA max_page_count = {int(row[0])}")
    user = user_to_move(host)
    with pytest.raises(HostError, match=r"host\.error\.storage"):  # "database or disk is full", in the player's words
        await host.play.move(CH, user, host.play.legal_moves(CH, user)[0])
    await conn.execute("PRAGMA max_page_count = 1073741823")
    assert await store.deliveries(start.info.game_id) == before
    assert await store.moves(start.info.game_id) == []
    info = host.games.info(CH)
    assert info is not None and info.seq == 0 and info.to_move == start.to_move
    # the same move goes through once the disk has room again
    await host.play.move(CH, user, host.play.legal_moves(CH, user)[0])
    assert [r.kind for r in await store.deliveries(start.info.game_id)][len(before)] == MOVE_POST


async def test_away_back_and_abandon_write_their_posts(host: Host, store: Store) -> None:
    start = await started(host)
    user = user_to_move(host)
    away = await host.play.away(CH, user)
    back = await host.play.back(CH, user)
    await host.lobby.abandon(CH, ADA, name="Ada the Opener")
    rows = (await store.deliveries(start.info.game_id))[len(LOBBY) + 3:]
    assert kinds(rows) == [(SEAT_POST, 0, None), (SEAT_POST, 0, None), (TURN_DM, 0, user), (ABANDONED_POST, 0, None),
                           (TURN_OVER_DM, 0, user)]  # the player to move's turn DM is told the game was abandoned
    assert SeatChange.from_payload(rows[0].payload) == away and away.away
    assert SeatChange.from_payload(rows[1].payload) == back and not back.away
    assert rows[3].payload == {"name": "Ada the Opener", "locale": "en"} and rows[4].payload == {"reason": "abandoned"}


async def test_delivered_and_retried_rows(host: Host, store: Store, clock: Clock) -> None:
    await started(host)
    pending = await host.outbox.pending_deliveries(CH)
    lobby, pending = pending[:len(LOBBY)], pending[len(LOBBY):]
    assert [(d.kind, d.seq, d.user_id) for d in lobby] == LOBBY
    assert pending[0].kind == START_POST and await host.outbox.pending_deliveries(CH + 1) == []
    first, second = pending[0], pending[1]
    await host.outbox.retry_delivery(first, 30.0, "DiscordServerError 503")
    await host.outbox.delivered(second)
    again = await host.outbox.pending_deliveries()
    assert [d.id for d in again] == [d.id for d in lobby] + [first.id] + [d.id for d in pending[2:]]
    again = again[len(LOBBY):]
    assert again[0].attempts == 1 and again[0].due_at == clock() + 30.0
    row = next(r for r in await store.deliveries(first.game_id) if r.id == first.id)
    assert row.last_error == "DiscordServerError 503" and row.done_at is None
    await host.outbox.delivered(again[0], "missing permission: send_messages")
    row = next(r for r in await store.deliveries(first.game_id) if r.id == first.id)
    assert row.done_at == clock() and row.attempts == 2 and row.last_error == "missing permission: send_messages"


async def test_pending_deliveries_survive_a_restart(store: Store, clock: Clock, host: Host) -> None:
    await started(host)
    await play_first(host)
    owed = [d.id for d in await host.outbox.pending_deliveries()]
    second = await loaded_host(store, clock)
    assert [d.id for d in await second.outbox.pending_deliveries()] == owed


def test_a_discard_stays_secret_in_the_payload() -> None:
    result = MoveResult(
        game_id=1, channel_id=2, locale="en", seq=3, seat=0, name="Ada", user_id=ADA, by_computer=False,
        move="discard gold10", undo=False, events=[], view={}, to_move=1, to_move_name="Bo", to_move_user_id=BO,
        computer_to_move=False, secret_changed=(0,), dm_user_ids=(ADA,), game_over=False, ranking=None)
    payload = result.to_payload()
    assert payload["move"] == "discard" and "gold10" not in json.dumps(payload)


@pytest.mark.parametrize("store", ["sqlite"], indirect=True)
async def test_no_turn_dm_for_the_rest_of_ones_own_double_move(host: Host, store: Store) -> None:
    """A double move's card leaves its player to move: the answer to that move carries the rest of the turn, so the
    host owes them no turn DM for it; the move that passes the turn owes the next player theirs."""
    start = await started(host)
    for _ in range(60):
        user = user_to_move(host)
        legal = host.play.legal_moves(CH, user)
        double = next((m for m in legal if m.startswith("double")), None)
        if double is not None:
            break
        await host.play.move(CH, user, next((m for m in legal if m.split()[0] != "pass"), legal[0]))
    else:
        pytest.fail("no double move came up")
    result = await host.play.move(CH, user, double)
    assert result.to_move_user_id == user and user not in result.dm_user_ids
    rows = [r for r in await store.deliveries(start.info.game_id) if r.seq == result.seq]
    assert all(r.kind != TURN_DM for r in rows), kinds(rows)
    while (after := await host.play.move(CH, user, host.play.legal_moves(CH, user)[0])).to_move_user_id == user:
        assert all(r.kind != TURN_DM for r in await store.deliveries(start.info.game_id) if r.seq == after.seq)
    rows = [r for r in await store.deliveries(start.info.game_id) if r.seq == after.seq]
    if after.to_move_user_id is not None:
        assert (TURN_DM, after.seq, after.to_move_user_id) in kinds(rows)


@pytest.mark.parametrize(("payload", "held"), [
    ({"held": True, "start": False}, True),
    ({"start": False}, None),
    ({"result": {"held": True}}, None),  # named deeper down only: not the delivery's mark
    ({"note": "held"}, None),  # as a word in a value
    ({"note": 'the "held" DM', "held": 3}, 3),
])
def test_a_delivery_s_mark_is_read_without_decoding_a_payload_that_does_not_name_it(payload: dict[str, object],
                                                                                     held: object) -> None:
    row = DeliveryRow.read({"id": 1, "game_id": 2, "channel_id": 3, "seq": 4, "kind": "turn_dm", "user_id": 5,
                            "payload": json.dumps(payload), "created_at": 0.0, "due_at": 0.0, "attempts": 0,
                            "done_at": None, "last_error": None})
    assert row.marked("held") == held
    assert ("payload" in vars(row)) == ('"held"' in row.payload_json), "decoded only when its text names the key"
    assert row.payload == payload
