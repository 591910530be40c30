"""The outbox (a part of the host): the channel posts and DMs each change owes, from when the change writes them
until they are sent or given up.

What a change owes is decided here (:func:`move_deliveries`, :func:`start_deliveries`; the other parts write their
notices themselves) and written with the change, in its transaction (``Change.deliveries``). The adapter's publisher
reads the pending ones per channel in order (:meth:`Outbox.pending_deliveries`), sends them and records each
(:meth:`Outbox.delivered`), or retries one later (:meth:`Outbox.retry_delivery`); a person's DMs in their quiet hours
are held until those end (:meth:`Outbox.hold_deliveries`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.host.model import NewDelivery
from bot.host.stores import GameStore
from bot.host.table import (
    HAND_DM,
    MOVE_POST,
    START_POST,
    TURN_DM,
    Delivery,
    MoveResult,
    StartResult,
)
from engine import Game


class Outbox:
    """The posts and DMs not sent yet, as the adapter's publisher reads and records them."""

    def __init__(self, store: GameStore, *, clock: Callable[[], float]) -> None:
        self.store = store
        self._clock = clock

    def now(self) -> float:
        """The host's clock (seconds since the epoch): the time deliveries are due by."""
        return self._clock()

    async def pending_deliveries(self, channel_id: int | None = None) -> list[Delivery]:
        """The posts and DMs not delivered yet (of one channel, or of every channel), in the order the
        changes that owe them were stored; each is due at its ``due_at``."""
        return [Delivery.from_row(r) for r in await self.store.pending_deliveries(channel_id)]

    async def resume_deliveries(self) -> list[Delivery]:
        """At start-up: every pending delivery, made due now (a backoff from before does not carry over)."""
        await self.store.deliveries_due(self._clock())
        return await self.pending_deliveries()

    async def delivered(self, delivery: Delivery, error: str | None = None, *,
                        message_id: int | None = None) -> None:
        """Record that ``delivery`` was sent (as the message ``message_id``, if known), or given up for good
        (``error`` says why). The game-over post's message id is kept for the history's links."""
        over = message_id if delivery.kind == MOVE_POST and delivery.payload.get("game_over") else None
        post = message_id if delivery.kind in (MOVE_POST, START_POST) else None
        await self.store.mark_delivered(delivery.id, now=self._clock(), error=error, over_message_id=over,
                                        post_id=post)

    async def retry_delivery(self, delivery: Delivery, delay: float, error: str) -> None:
        """``delivery`` failed for a passing reason (``error``): it is due again ``delay`` seconds from now."""
        await self.store.retry_delivery(delivery.id, due_at=self._clock() + delay, error=error)

    async def hold_deliveries(self, deliveries: Sequence[Delivery], until: float) -> None:
        """Hold DMs for the end of their player's quiet hours: due at ``until``, marked held (one transaction)."""
        await self.store.hold_deliveries([(d.id, d.payload) for d in deliveries], due_at=until)

    async def held_deliveries(self, user_id: int) -> list[Delivery]:
        """The person's pending held DMs, of every game, in the order they were written."""
        return [Delivery.from_row(r) for r in await self.store.held_deliveries(user_id)]


def owes_post(old: Game | None, new: Game, undone: str | None) -> bool:
    """Whether a move owes the channel a post: once its turn is over (a double move's card and its first build
    leave the turn open; its post comes after the last build, with the whole turn); an undo, when the move it takes
    back had its post (it ended a turn), and the adapter edits that post where it can."""
    if undone is not None:
        return old is None or old.pending is None
    return new.pending is None or new.is_over()


def move_deliveries(result: MoveResult, *, post: bool = True) -> list[NewDelivery]:
    """What a move owes: its channel post (``post``; the game-over post carries the replay when
    :attr:`MoveResult.replay` says so), then the DMs of the hands others changed and the next player's turn DM.
    One DM at most per person: the player to move gets the turn DM, which shows their hand."""
    owed = [NewDelivery(MOVE_POST, result.seq, payload=result.to_payload())] if post else []
    if result.game_over:
        return owed
    for user_id in result.dm_user_ids:
        if user_id != result.to_move_user_id:
            owed.append(NewDelivery(HAND_DM, result.seq, user_id, {"start": False}))
    if result.to_move_user_id is not None:
        owed.append(NewDelivery(TURN_DM, result.seq, result.to_move_user_id,
                                {"start": False, "hand_changed": result.to_move_user_id in result.dm_user_ids}))
    return owed


def start_deliveries(start: StartResult) -> list[NewDelivery]:
    """What a start owes: its channel post, then every person's hand (with controls for the first player)."""
    owed = [NewDelivery(START_POST, 0, payload=start.to_payload())]
    for user_id in start.dm_user_ids:
        kind = TURN_DM if user_id == start.to_move_user_id else HAND_DM
        owed.append(NewDelivery(kind, 0, user_id, {"start": True, "hand_changed": True}))
    return owed
