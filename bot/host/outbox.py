"""The outbox (a part of the host): the channel posts and DMs each change owes, from when the change writes them
until they are sent or given up.

What a change owes is decided in :mod:`bot.host.deliveries` (the other parts write their notices themselves) and
written with the change, in its transaction (``Change.deliveries``). The adapter's publisher reads the pending ones
per channel in order (:meth:`Outbox.pending_deliveries`), sends them and records each (:meth:`Outbox.delivered`), or
retries one later (:meth:`Outbox.retry_delivery`); a person's DMs in their quiet hours are held until those end
(:meth:`Outbox.hold_deliveries`).

What a pending delivery becomes when its turn comes is decided here too, so that the publisher only draws and sends
(:meth:`Outbox.step`): a post is sent, naming without pinging the people in their quiet hours (:class:`SendPost`), but a
redraw of the lobby message that a later one of the same game makes again is skipped (only the newest state is drawn); a
DM to someone in their quiet hours is held until those end (:class:`Held`, written before the step is returned); a held
DM whose hours are over gathers every DM held for that person, of every game, into one (:class:`SendGathered`: the
others are marked done as collapsed into it once it was sent); a DM is skipped when its game is not running, when a
later DM to the same person shows the same hand, when its turn has passed, or when the person turned turn DMs off and
nothing in their hand changed (:class:`Skip`); else it is sent (:class:`SendDm`, :class:`SendNotice`,
:class:`SendGameOver`: a game-over DM is held but never gathered). The edit of turn DMs whose turn passed is never held
(:class:`SendTurnOver`).

A delivery written before this process started may be in Discord already (:meth:`Outbox.left_from_before`): a restored
backup owes again what went out after the copy was taken, and a process that died between sending and recording left
it owed. The adapter looks for it among the bot's messages before sending it; one found is recorded as delivered by
that message, not sent again (:meth:`Outbox.already_sent`).

A "your cards changed" DM (what another player's move did to a hand) waits :data:`CARDS_WAIT` before it goes, without
holding up the channel's other deliveries (:meth:`Outbox.ready`, :meth:`Outbox.wake_at`): when the same person's
turn DM (or a later DM of their hand) is written meanwhile, it is folded into that one, which shows the hand and says
what happened since their last move (the start of round 2 changes every hand, then the next players' turns come within
moments).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Final

from bot.host import metrics
from bot.host.buttons import EVERY, buttons_of, ends
from bot.host.change import Change
from bot.host.deliveries import (
    CHANGED,
    GAME_OVER_DM,
    HAND_DM,
    IDLE_POST,
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
from bot.host.errors import HostError, storage_refusal
from bot.host.games import Games
from bot.host.model import NewDelivery
from bot.host.people import People
from bot.host.restore import stored_table
from bot.host.stores import GameStore
from bot.host.table import Table, TableInfo
from bot.host.user_settings import HELD, OpenGame

CARDS_WAIT: Final = 60.0
"""Seconds a "your cards changed" DM waits for a DM of the same person that shows their hand anyway (their turn DM),
into which it is then folded."""


@dataclass(frozen=True, slots=True)
class SendPost:
    """Send the channel post; the people it names who are in their quiet hours are named without a ping."""

    quiet: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class SendDm:
    """DM the person their hand as it is now (``info``'s game): with the turn's controls (``turn``), as the first
    DM of the game (``start``), or as a reminder of the turn (``reminder``)."""

    info: TableInfo
    turn: bool
    start: bool = False
    reminder: bool = False


@dataclass(frozen=True, slots=True)
class SendNotice:
    """DM the person the notice in the delivery's payload (a vacation's or a deadline's)."""

    info: TableInfo


@dataclass(frozen=True, slots=True)
class SendGathered:
    """The person's quiet hours are over: ONE DM for every DM held for them. With a turn of theirs still standing
    (and turn DMs on) it shows that turn's hand and controls (``turn``) under the games waiting for them; else the
    list of those games (``waiting``) and of the channels where something changed (``changed``)."""

    turn: TableInfo | None
    waiting: list[OpenGame]
    changed: list[int]
    locale: str
    """The language of the delivery's own game (used when the person never chose one)."""
    collapsed: list[Delivery] = field(default_factory=list)
    """The other held DMs: marked done as collapsed into this one once it is sent."""


@dataclass(frozen=True, slots=True)
class SendTurnOver:
    """Edit the person's turn DMs of ``info``'s game that still show a turn now passed (the delivery's payload says
    how it passed); never held for quiet hours: an edit rings nobody."""

    info: TableInfo


@dataclass(frozen=True, slots=True)
class SendGameOver:
    """DM the person the result of ``info``'s game (over)."""

    info: TableInfo


@dataclass(frozen=True, slots=True)
class Skip:
    """Do not send it; record it done with ``reason``."""

    reason: str


@dataclass(frozen=True, slots=True)
class Held:
    """A DM held for the end of its person's quiet hours (already recorded: nothing to send or mark)."""

    until: float


Step = SendPost | SendDm | SendNotice | SendGathered | SendTurnOver | SendGameOver | Skip | Held
"""What a pending delivery becomes when its turn comes (:meth:`Outbox.step`)."""

GAME_GONE: Final = "skipped: the game is gone"
NOT_RUNNING: Final = "skipped: the game is not running"
SAME_HAND: Final = "skipped: a later DM shows the same hand"
TURN_PASSED: Final = "skipped: the turn has passed"
TURN_DMS_OFF: Final = "skipped: the player turned turn DMs off"
COLLAPSED_ELSEWHERE: Final = "skipped: collapsed into another DM"
NO_GAME_OVER: Final = "skipped: no game over"
LOBBY_REDRAWN_LATER: Final = "skipped: a later edit draws the lobby as it is then"
FOLDED: Final = "skipped: folded into a later DM that shows the same hand"
COLLAPSED: Final = "collapsed into delivery "
"""The start of the reason a held DM gathered into another is done with (the other's id follows)."""
SKIPPED: Final = {GAME_GONE: "game_gone", NOT_RUNNING: "not_running", SAME_HAND: "same_hand",
                  TURN_PASSED: "turn_passed", TURN_DMS_OFF: "turn_dms_off", COLLAPSED_ELSEWHERE: "collapsed",
                  NO_GAME_OVER: "no_game_over", LOBBY_REDRAWN_LATER: "lobby_redrawn_later", FOLDED: "folded"}
"""Why a delivery was not sent on purpose (the reason it is recorded with) -> its label in the metrics: normal play,
not a failure (``santacruz_deliveries_skipped_total``, apart from ``santacruz_deliveries_failed_total``)."""


def skipped(reason: str) -> str | None:
    """The metrics' label of a delivery recorded done with ``reason`` without being sent on purpose, or ``None`` when
    ``reason`` says it was given up."""
    return "collapsed" if reason.startswith(COLLAPSED) else SKIPPED.get(reason)


class Outbox:
    """The posts and DMs not sent yet, as the adapter's publisher reads and records them."""

    def __init__(self, store: GameStore, games: Games, people: People, *, clock: Callable[[], float]) -> None:
        self.store = store
        self.games = games
        self.people = people
        self._clock = clock
        self._gathering: dict[int, asyncio.Lock] = {}
        """User id -> held while their held DMs are gathered into one (several channels' outboxes at once)."""
        self._owed: set[tuple[int, str, str, str]] = set()
        """(game id, kind, key, values) of the notices owed once per game that are owed or sent (:meth:`_owe_once`)."""
        self.started = clock()
        """When this process began to deliver (the host's clock): what was written before may have gone out."""

    def now(self) -> float:
        """The host's clock (seconds since the epoch): the time deliveries are due by."""
        return self._clock()

    async def pending_deliveries(self, channel_id: int | None = None) -> list[Delivery]:
        """The posts and DMs not delivered yet (of one channel, or of every channel), in the order the
        changes that owe them were stored; each is due at its ``due_at``."""
        return [Delivery.from_row(r) for r in await self.store.pending_deliveries(channel_id)]

    async def last_post(self, game_id: int) -> tuple[int, Delivery] | None:
        """The game's latest post in its channel, whichever process sent it: its message id and its delivery (a
        start's or a move's); ``None`` before the first post went out."""
        found = await self.store.last_post(game_id)
        return None if found is None else (found[0], Delivery.from_row(found[1]))

    async def resume_deliveries(self) -> list[Delivery]:
        """At start-up: every pending delivery, made due now (a backoff from before does not carry over; a DM held
        for its person's quiet hours stays held until their end)."""
        await self.store.deliveries_due(self._clock())
        return await self.pending_deliveries()

    async def delivered(self, delivery: Delivery, error: str | None = None, *,
                        message_id: int | None = None, closed: Sequence[int] = ()) -> None:
        """Record that ``delivery`` was sent (as the message ``message_id``, if known), or given up for good
        (``error`` says why). The game-over post's message id is kept for the history's links; a DM's is the DM
        with the turn's controls, told later when the turn has passed (:meth:`open_turn_dms`); a post's whose buttons
        a later post ends (:meth:`ended_by`). ``closed``: the turn DMs and posts (their deliveries) this delivery
        told that their turn passed or took buttons off."""
        if error is not None:
            label = skipped(error)
            if label is not None:
                metrics.DELIVERIES_SKIPPED.labels(delivery.kind, label).inc()
            else:
                metrics.DELIVERIES_FAILED.labels(delivery.kind, "given_up").inc()
        over = message_id if delivery.kind == MOVE_POST and delivery.payload.get("game_over") else None
        post = message_id if delivery.kind in (MOVE_POST, START_POST) else None
        edited_later = (message_id if not delivery.is_post or buttons_of(delivery) is not None
                        or delivery.kind == LOBBY_POST else None)
        await self.store.mark_delivered(delivery.id, now=self._clock(), error=error, over_message_id=over,
                                        post_id=post, edited_id=edited_later, closed=closed)

    def left_from_before(self, delivery: Delivery) -> bool:
        """Whether ``delivery`` was written before this process started, and so may be in Discord already: sent after
        the backup that a restore brought back (the database then owes again what went out after the copy was
        taken), or by a process that died before it could record it. Look for it before sending it."""
        return delivery.created_at < self.started

    async def already_sent(self, delivery: Delivery, message_id: int) -> None:
        """``delivery``, left from before this start, is in Discord already as the message ``message_id``: recorded as
        delivered by it (a post's buttons and a turn DM's controls are edited later as if it had just been sent), not
        sent again."""
        metrics.DELIVERIES_FOUND.labels(delivery.kind).inc()
        await self.delivered(delivery, message_id=message_id)

    async def open_turn_dms(self, game_id: int, user_id: int) -> list[tuple[int, int]]:
        """The person's DMs with the controls of a turn in the game that were not told yet that it passed, whichever
        process sent them: (delivery id, message id), oldest first."""
        return await self.store.open_messages(game_id, user_id)

    async def missing_permission(self, channel_id: int, permission: str) -> None:
        """The bot lacks ``permission`` in the channel of its running game (a post went without pictures, or not at
        all): the opener is owed a DM saying so (``bot.dm.missing_<permission>``), once per game."""
        async with self.games.change(channel_id) as table:
            if table is not None and table.status == "running":
                await self._owe_once(table, NewDelivery(NOTICE_DM, table.seq, table.opener_id, {
                    "key": f"bot.dm.missing_{permission}", "locale": table.options.locale,
                    "params": {"channel": table.channel_id}}))

    async def dm_failed(self, channel_id: int, user_id: int) -> None:
        """A DM to a player of the channel's running game could not be delivered (they accept no DMs from the bot):
        the channel is owed a post that tells them, with a mention, how to allow them and where their cards are
        meanwhile (``bot.post.dm_failed``), once per game and person."""
        async with self.games.change(channel_id) as table:
            if table is not None and table.status == "running":
                await self._owe_once(table, NewDelivery(NOTICE_POST, table.seq, payload={
                    "key": "bot.post.dm_failed", "locale": table.options.locale, "params": {"mention": user_id}}))

    async def _owe_once(self, table: Table, notice: NewDelivery) -> None:
        """Write ``notice`` unless the game owes or sent one with its kind, key and values already: once per game,
        whichever process finds it owed and across restarts (the game's deliveries are read once per process)."""
        key, values = str(notice.payload["key"]), notice.payload["params"]
        mark = (table.id, notice.kind, key, repr(sorted(values.items())))
        if mark in self._owed:
            return
        with storage_refusal():
            sent = await self.store.deliveries(table.id)
        if not any(d.kind == notice.kind and d.payload.get("key") == key and d.payload.get("params") == values
                   for d in sent):
            await self.games.write(table, Change(deliveries=[notice]))
        self._owed.add(mark)

    async def ended_by(self, delivery: Delivery) -> list[tuple[int, int]]:
        """The posts whose buttons ``delivery``'s post ends (:mod:`bot.host.buttons`) that still carry them,
        whichever process sent them: (delivery id, message id), oldest first. The lobby message is never among
        them: its own redraw takes its buttons off once the game is no lobby (:data:`bot.host.deliveries.LOBBY_EDIT`;
        a game's in a thread of its own is not even in the game's channel)."""
        ended = ends(delivery)
        posts = await self.store.open_messages(delivery.game_id, None) if ended else []
        if not posts:
            return posts
        message_of = dict(posts)
        return [(row.id, message_of[row.id]) for row in await self.store.deliveries(delivery.game_id)
                if row.id in message_of and row.kind != LOBBY_POST
                and (EVERY in ended or buttons_of(Delivery.from_row(row)) in ended)]

    async def lobby_message(self, game_id: int) -> tuple[int, int, int] | None:
        """The game's lobby message, whichever process posted it: (its delivery, the channel it is in, the message);
        ``None`` before it went out."""
        with storage_refusal():
            sent = await self.store.sent_message(game_id, LOBBY_POST)
        if sent is None:
            return None
        message_id, row = sent
        return row.id, int(row.payload.get("channel", row.channel_id)), message_id

    async def retry_delivery(self, delivery: Delivery, delay: float, error: str) -> None:
        """``delivery`` failed for a passing reason (``error``): it is due again ``delay`` seconds from now."""
        metrics.DELIVERIES_FAILED.labels(delivery.kind, "retried").inc()
        await self.store.retry_delivery(delivery.id, due_at=self._clock() + delay, error=error)

    async def hold_deliveries(self, deliveries: Sequence[Delivery], until: float) -> None:
        """Hold DMs for the end of their player's quiet hours: due at ``until``, marked held (one transaction)."""
        await self.store.hold_deliveries([(d.id, d.payload) for d in deliveries], due_at=until)

    async def held_deliveries(self, user_id: int) -> list[Delivery]:
        """The person's pending held DMs, of every game, in the order they were written."""
        return [Delivery.from_row(r) for r in await self.store.held_deliveries(user_id)]

    def ready(self, pending: Sequence[Delivery]) -> list[int]:
        """The indexes of the deliveries in ``pending`` that may go in order now: all but the DMs held for the end
        of quiet hours still to come and the "your cards changed" DMs still waiting (:data:`CARDS_WAIT`): those do not
        hold up the channel's other deliveries."""
        now = self._clock()
        return [i for i, d in enumerate(pending)
                if not (d.due_at > now and d.marked(HELD)) and self._waits_until(d) <= now]

    def wake_at(self, pending: Sequence[Delivery]) -> float | None:
        """When the first "your cards changed" DM of ``pending`` still waiting may go (the host's clock), or ``None``
        (the DMs held for quiet hours are woken by the sweep)."""
        now = self._clock()
        return min((at for d in pending if (at := self._waits_until(d)) > now), default=None)

    def _waits_until(self, delivery: Delivery) -> float:
        """Until when ``delivery`` waits before it may go: a "your cards changed" DM :data:`CARDS_WAIT` after it was
        written while its game runs (unless held for quiet hours meanwhile: then those decide); once the game is known
        to be over there is no turn DM left to fold it into, and it goes at once (to be skipped: the game is not
        running); a game not in memory (let go, or not read yet) still waits; anything else not at all (0)."""
        if not delivery.marked(CHANGED) or delivery.marked(HELD):
            return 0.0
        info = self.games.find_game(delivery.game_id)
        return 0.0 if info is not None and info.status != "running" else delivery.created_at + CARDS_WAIT

    async def held_channels_due(self) -> list[int]:
        """The channels with held DMs whose quiet hours are over (or were re-timed to now)."""
        now = self._clock()
        return list(dict.fromkeys(d.channel_id for d in await self.pending_deliveries()
                                  if d.payload.get(HELD) and d.due_at <= now))

    @asynccontextmanager
    async def step(self, delivery: Delivery, later: Sequence[Delivery]) -> AsyncIterator[Step]:
        """What ``delivery`` becomes now (``later``: the channel's deliveries pending after it), for the publisher
        to carry out inside the ``async with``. A :class:`Held` DM is recorded before it is returned. Gathering a
        person's held DMs holds their lock until the block ends; the DMs collapsed into the gathered one are marked
        done then, only if the block sent it (an exception leaves them pending)."""
        if delivery.kind == LOBBY_EDIT and any(d.kind == LOBBY_EDIT and d.game_id == delivery.game_id for d in later):
            yield Skip(LOBBY_REDRAWN_LATER)
            return
        if delivery.is_post:
            yield SendPost(frozenset(u for u in _named(delivery) if self.people.quiet_until(u) is not None))
            return
        user_id = delivery.user_id
        assert user_id is not None
        if delivery.kind == TURN_OVER_DM:  # an edit, which rings nobody: never held
            info = await self.game_of(delivery)
            yield Skip(GAME_GONE) if info is None else SendTurnOver(info)
            return
        until = self.people.quiet_until(user_id)
        if until is not None:
            await self.hold_deliveries([delivery], until)
            yield Held(until)
            return
        if not delivery.payload.get(HELD):
            if delivery.payload.get(CHANGED) and await self._shown_since(delivery):
                yield Skip(FOLDED)
                return
            yield await self._game_over(delivery) if delivery.kind == GAME_OVER_DM else self._dm_step(delivery, later)
            return
        async with self._gathering.setdefault(user_id, asyncio.Lock()):
            gathered = await self._gather(delivery, user_id)
            yield gathered
            if isinstance(gathered, SendGathered):
                for other in gathered.collapsed:
                    await self.delivered(other, f"{COLLAPSED}{delivery.id}")

    def _dm_step(self, delivery: Delivery, later: Sequence[Delivery]) -> Step:
        """A hand, turn or notice DM: skipped when its game is not running or a later DM to the same person shows
        the same hand; a turn DM when its turn has passed (unless it changed the hand: then the hand alone), or when
        the person turned turn DMs off and their hand did not change."""
        info = self.games.find_game(delivery.game_id)
        if info is None or info.status != "running":
            return Skip(NOT_RUNNING)
        if any(d.user_id == delivery.user_id and d.game_id == delivery.game_id and _shows_hand(d, info)
               for d in later):
            return Skip(SAME_HAND)
        if delivery.kind == NOTICE_DM:
            return SendNotice(info)
        start = bool(delivery.payload.get("start"))
        hand_changed = bool(delivery.payload.get("hand_changed"))
        if delivery.kind == TURN_DM and delivery.payload.get("reminder"):
            if not _turn_stands(delivery, info):
                return Skip(TURN_PASSED)
            return SendDm(info, turn=True, reminder=True)
        if delivery.kind == TURN_DM:
            assert delivery.user_id is not None
            turn_dms = self.people.settings_of(delivery.user_id).turn_dms
            if not turn_dms and not (start or hand_changed):
                return Skip(TURN_DMS_OFF)
            if turn_dms and _turn_stands(delivery, info):
                return SendDm(info, turn=True, start=start)
            if not hand_changed:
                return Skip(TURN_PASSED)
        return SendDm(info, turn=False, start=start)

    async def _shown_since(self, delivery: Delivery) -> bool:
        """Whether a DM of the same game and person written after ``delivery`` (a "your cards changed" DM that waited)
        showed, or will show, their hand: one sent, or one pending that will (:func:`_shows_hand`)."""
        info = self.games.find_game(delivery.game_id)
        assert delivery.user_id is not None
        with storage_refusal():
            rows = await self.store.dms_after(delivery.game_id, delivery.user_id, delivery.id, (TURN_DM, HAND_DM))
        return any(row.last_error is None if row.done_at is not None
                   else info is not None and _shows_hand(Delivery.from_row(row), info)
                   for row in rows)

    async def _gather(self, delivery: Delivery, user_id: int) -> Step:
        """Every DM held for ``user_id`` as one (see :class:`SendGathered`), or a skip when another outbox already
        gathered this one."""
        held = [d for d in await self.held_deliveries(user_id) if d.kind != GAME_OVER_DM or d.id == delivery.id]
        if all(d.id != delivery.id for d in held):
            return Skip(COLLAPSED_ELSEWHERE)
        if delivery.kind == GAME_OVER_DM:  # a game's result is told on its own, never gathered into another DM
            return await self._game_over(delivery)
        try:
            waiting = [g for g in await self.people.open_games_for(user_id) if g.yours]
        except HostError:  # the list is a nicety: the DM goes out without it
            waiting = []
        first = self.games.find_game(delivery.game_id)
        locale = first.locale if first is not None else "en"
        collapsed = [d for d in held if d.id != delivery.id]
        turn = next((info for d in reversed(held) if d.kind == TURN_DM
                     and (info := self._standing(d)) is not None), None)
        if turn is not None and self.people.settings_of(user_id).turn_dms:
            return SendGathered(turn, waiting, [], locale, collapsed)
        return SendGathered(None, waiting, list(dict.fromkeys(d.channel_id for d in held)), locale, collapsed)

    async def _game_over(self, delivery: Delivery) -> Step:
        """A game-over DM: sent when its game is over, else (the game-over move was taken back) skipped."""
        info = await self.game_of(delivery)
        return SendGameOver(info) if info is not None and info.status == "over" else Skip(NO_GAME_OVER)

    async def game_of(self, delivery: Delivery) -> TableInfo | None:
        """The delivery's game: in memory, or (a finished game after a restart) as its stored row tells it."""
        info = self.games.find_game(delivery.game_id)
        if info is not None:
            return info
        row = await self.store.get_game(delivery.game_id)
        return stored_table(row, []).info() if row is not None else None

    def _standing(self, delivery: Delivery) -> TableInfo | None:
        """The running game of a turn DM whose turn still stands, or ``None``."""
        info = self.games.find_game(delivery.game_id)
        return info if info is not None and info.status == "running" and _turn_stands(delivery, info) else None


def _named(delivery: Delivery) -> list[int]:
    """The people a channel post mentions: the player to move of a turn's or a start's post, the players of an
    idle table's notice."""
    payload: dict[str, Any] = delivery.payload
    if delivery.kind in (MOVE_POST, START_POST):
        user = payload.get("to_move_user_id")
        return [int(user)] if user is not None else []
    if delivery.kind == IDLE_POST:
        return [int(u) for u in payload.get("user_ids", ())]
    return []


def _turn_stands(delivery: Delivery, info: TableInfo) -> bool:
    """Whether the turn of a turn DM is still the game's current turn, its player's to make."""
    seat = info.seats[info.to_move] if info.to_move is not None else None
    return info.seq == delivery.seq and seat is not None and seat.user_id == delivery.user_id and not seat.away


def _shows_hand(delivery: Delivery, info: TableInfo) -> bool:
    """Whether ``delivery`` will DM its player's hand (a hand DM, a turn DM of the current turn, or a passed
    turn DM of a move that changed the hand)."""
    if delivery.kind == HAND_DM:
        return True
    return delivery.kind == TURN_DM and (delivery.seq == info.seq or bool(delivery.payload.get("hand_changed")))
