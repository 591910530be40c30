"""Someone new takes over a seat the computer plays for a person who left it, through the host's public API on both
stores: the offer, the opener's confirmation, the refusals (a seated person, a stranger's or a forged confirmation,
a second offer), the lapse after a day (across a restart), the seat's own person coming back first, and the
results: the seat taken over is counted apart and not rated, the people who played the whole game are."""

from __future__ import annotations

import json
from typing import Any

from bot.host.deliveries import HAND_DM, MOVE_POST, NOTICE_POST, TURN_DM, Delivery
from bot.host.host import Host
from bot.host.takeover import LAPSED, OFFER_HOURS, OFFERED, TAKEN
from bot.host.timers import TAKEOVER_LAPSE
from tests.helpers.clock import Clock
from tests.helpers.host import ADA, BO, CH, CY, DI, EVE, GUILD, loaded_host, make_host, refused, user_to_move


async def three_people(store: Any, clock: Clock) -> Host:
    """A running game of Ada, Bo and Cy in :data:`CH`."""
    host = await loaded_host(store, clock)
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.join(CH, CY, "Cy")
    await host.lobby.start(CH, ADA)
    return host


async def notices(store: Any) -> list[dict[str, Any]]:
    return [d.payload for d in await store.pending_deliveries() if d.kind == NOTICE_POST]


async def post_all(host: Host, store: Any, first_message: int) -> dict[str, tuple[Delivery, int]]:
    """Every pending channel post sent (the start's, the seats handed over or back, the notices), each as a message
    of its own numbered from ``first_message``, after taking the buttons off the posts it ends as the adapter does:
    each with its message, the notices by key, the seats' posts as ``away:<seat>`` or ``back:<seat>``."""
    sent = {}
    posts = [Delivery.from_row(d) for d in await store.pending_deliveries()]
    for number, post in enumerate(p for p in posts if p.is_post):
        ended = [delivery for delivery, _ in await host.outbox.ended_by(post)]
        await host.outbox.delivered(post, message_id=first_message + number, closed=ended)
        name = post.payload["key"] if post.kind == NOTICE_POST else (
            f"{'away' if post.payload.get('away') else 'back'}:{post.payload.get('seat')}")
        sent[name] = (post, first_message + number)
    return sent


def seat_of(host: Host, user_id: int) -> int:
    info = host.games.info(CH)
    assert info is not None
    return next(s.seat for s in info.seats if s.user_id == user_id)


async def play_out(host: Host) -> None:
    """The game to its end: the people play their first legal move, the computers theirs."""
    while (info := host.games.info(CH)) is not None and info.status == "running":
        if info.seats[info.to_move].away:  # type: ignore[index]  # running: someone is to move
            async for _ in host.computers.run_computers(CH):
                pass
            continue
        user = user_to_move(host)
        await host.play.move(CH, user, host.play.legal_moves(CH, user)[0])


async def test_a_newcomer_takes_over_a_seat_left_to_the_computer_once_the_opener_confirms(
        store: Any, clock: Clock) -> None:
    host = await three_people(store, clock)
    await refused("host.error.takeover_none", host.takeover.offer(CH, EVE, "Eve"))
    await host.play.away(CH, BO)
    bo = seat_of(host, BO)
    await refused("host.error.takeover_seated", host.takeover.offer(CH, CY, "Cy"))
    offered = await host.takeover.offer(CH, EVE, "Eve")
    assert (offered.state, offered.seat, offered.name, offered.newcomer) == (OFFERED, bo, "Bo", "Eve")
    assert offered.info.seats[bo].offered_to == "Eve"
    [notice] = await notices(store)
    assert notice["key"] == "bot.takeover.offered" and notice["params"] == {"name": "Bo", "newcomer": "Eve"}
    assert notice["takeover"] == {"seat": bo, "user_id": EVE}  # what the opener's Confirm button carries
    await refused("host.error.takeover_offered", host.takeover.offer(CH, DI, "Di"))
    # nobody but the opener (or Manage Channels) confirms, and only the offer that stands
    await refused("host.error.not_opener", host.takeover.confirm(CH, CY, bo, EVE))
    await refused("host.error.takeover_gone", host.takeover.confirm(CH, ADA, bo, DI))  # a forged newcomer
    await refused("host.error.takeover_gone", host.takeover.confirm(CH, ADA, 9, EVE))  # a forged seat
    taken = await host.takeover.confirm(CH, CY, bo, EVE, can_manage=True)
    assert (taken.state, taken.newcomer_id) == (TAKEN, EVE) and not taken.computer_to_move
    seat = taken.info.seats[bo]
    assert (seat.user_id, seat.name, seat.away, seat.former, seat.offered_to) == (EVE, "Eve", False, ("Bo",), None)
    assert host.play.public_view(CH)["players"][bo]["name"] == "Eve"  # the game's names follow (a restart replays none)
    assert [n["key"] for n in await notices(store)][-1] == "bot.takeover.taken"
    to_move = host.games.info(CH).to_move  # type: ignore[union-attr]
    dms = [(d.kind, d.user_id) for d in await store.pending_deliveries() if d.user_id == EVE]
    assert dms == [(TURN_DM if to_move == bo else HAND_DM, EVE)]  # the newcomer's hand, by DM only
    assert TAKEOVER_LAPSE not in {t.kind for t in await store.timers(taken.game_id)}
    # the seat is Eve's: Bo's back is refused, Eve plays on her turn
    await refused("host.error.not_seated", host.play.back(CH, BO))
    await refused("host.error.takeover_gone", host.takeover.confirm(CH, ADA, bo, EVE))
    while host.games.info(CH).to_move != bo:  # type: ignore[union-attr]
        user = user_to_move(host)
        await host.play.move(CH, user, host.play.legal_moves(CH, user)[0])
    assert host.play.legal_moves(CH, EVE) and await host.play.move(CH, EVE, host.play.legal_moves(CH, EVE)[0])


async def test_an_offer_lapses_after_a_day_even_across_a_restart_and_the_seats_own_person_coming_back_wins(
        store: Any, clock: Clock) -> None:
    host = await three_people(store, clock)
    await host.play.away(CH, BO)
    await host.play.away(CH, CY)
    await refused("host.error.takeover_which", host.takeover.offer(CH, EVE, "Eve"))
    bo, cy = seat_of(host, BO), seat_of(host, CY)
    await refused("host.error.takeover_not_open", host.takeover.offer(CH, EVE, "Eve", seat_of(host, ADA)))
    first = await host.takeover.offer(CH, EVE, "Eve", bo)
    game = first.game_id
    sent = await post_all(host, store, 500)
    (offer_bo, message), handed_bo, handed_cy = sent["bot.takeover.offered"], sent[f"away:{bo}"], sent[f"away:{cy}"]
    clock.advance(OFFER_HOURS - 1)
    host = make_host(store, clock)  # a restart while the offer waits
    await host.load()
    assert await host.timers.run_due(kinds=[TAKEOVER_LAPSE]) == []
    clock.advance(1)
    [lapsed] = await host.timers.run_due(kinds=[TAKEOVER_LAPSE])
    assert (lapsed.state, lapsed.seat, lapsed.newcomer) == (LAPSED, bo, "Eve")
    assert host.games.info(CH).seats[bo].offered_to is None  # type: ignore[union-attr]
    assert [n["key"] for n in await notices(store)][-1] == "bot.takeover.lapsed"
    await refused("host.error.takeover_gone", host.takeover.confirm(CH, ADA, bo, EVE))
    assert first.game_id == lapsed.game_id
    # an offer for Cy's seat; the lapse takes Confirm off Bo's offer's post only (the seat may still be taken)
    await host.takeover.offer(CH, DI, "Di", cy)
    [lapse] = [Delivery.from_row(d) for d in await store.pending_deliveries() if d.kind == NOTICE_POST
               and d.payload["key"] == "bot.takeover.lapsed"]
    assert lapse.payload["seat"] == bo and await host.outbox.ended_by(lapse) == [(offer_bo.id, message)]
    sent = await post_all(host, store, 600)
    offer_cy, cy_message = sent["bot.takeover.offered"]
    assert offer_cy.payload["takeover"]["seat"] == cy and await host.outbox.ended_by(lapse) == []
    # then Cy comes back first: the offer is withdrawn (its post loses Confirm), its lapse with it; the post that
    # handed Cy's seat over loses Take this seat; Bo's keeps it
    back = await host.play.back(CH, CY)
    assert back.info.seats[cy].offered_to is None
    assert [n["key"] for n in await notices(store)][-1] == "bot.takeover.withdrawn"
    pending = [p for p in map(Delivery.from_row, await store.pending_deliveries()) if p.is_post]
    ended = [[(handed_cy[0].id, handed_cy[1])], [(offer_cy.id, cy_message)]]
    assert [await host.outbox.ended_by(p) for p in pending] == ended
    await post_all(host, store, 700)
    game_over = Delivery(0, game, CH, 99, MOVE_POST, None, json.dumps({"game_over": True}), 0.0, 0.0, 0, None, None)
    assert await host.outbox.ended_by(game_over) == [(handed_bo[0].id, handed_bo[1])]  # at the end, Bo's Take this seat
    assert TAKEOVER_LAPSE not in {t.kind for t in await store.timers(first.game_id)}
    await refused("host.error.takeover_gone", host.takeover.confirm(CH, ADA, cy, DI))


async def test_a_seat_taken_over_is_counted_apart_and_the_people_who_played_the_whole_game_are_rated(
        store: Any, clock: Clock) -> None:
    host = await three_people(store, clock)
    await host.play.away(CH, BO)
    bo = seat_of(host, BO)
    await host.takeover.offer(CH, EVE, "Eve")
    game_id = (await host.takeover.confirm(CH, ADA, bo, EVE)).game_id
    await play_out(host)
    eve = await host.archive.stats(GUILD, EVE)
    assert eve is not None and (eve.games, eve.games_taken_over, eve.ratings) == (0, 1, {})
    assert await host.archive.stats(GUILD, BO) is None  # Bo left: no result
    for person in (ADA, CY):
        stats = await host.archive.stats(GUILD, person)
        assert stats is not None and stats.games == 1 and stats.games_taken_over == 0
        assert stats.ratings["mixed"].games == 1  # the seat was the computer's for a while: a game with computers
    board = await host.archive.leaderboard(GUILD, ADA, "games")
    assert sorted(row.user_id for row in board.rows) == [ADA, CY]
    # forget-me of the person who left renames them in the seat's former players too
    await host.people.forget_me(BO)
    row = await store.get_game(game_id)
    assert row is not None and [f["name"] for f in row.seats[bo]["former"]] == ["former player"]
