"""What a change may owe: the kinds of deliveries (a channel post or a DM, written with the change in its transaction),
a :class:`Delivery` as the outbox reads it (:mod:`bot.host.outbox`), and what a start, a move, an abandoned game and
a lobby owe (:func:`start_deliveries`, :func:`move_deliveries`, :func:`abandoned_turn`, :func:`lobby_post`,
:func:`lobby_edit`; the other parts write their notices themselves). A delivery's payload holds public facts only: a
DM reads the player's hand from the host when it is sent."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, Final

from bot.host.model import DeliveryRow, NewDelivery
from bot.host.table import MoveResult, SeatChange, StartResult, Table
from engine import Game

MOVE_POST: Final = "move_post"
"""The channel post of a turn (payload: the :class:`MoveResult` of its last move, whose events are the whole turn's:
a double move and its builds are one post), or of an undo of a move that had its post (the adapter edits that post
where it can)."""
START_POST: Final = "start_post"
"""The channel post of the start (payload: the :class:`StartResult`)."""
SEAT_POST: Final = "seat_post"
"""The channel post of a seat going away or coming back (payload: the :class:`SeatChange`)."""
ABANDONED_POST: Final = "abandoned_post"
"""The channel post of an abandoned game (payload: ``name`` of who abandoned it, ``locale``)."""
TURN_DM: Final = "turn_dm"
"""The DM with the move controls of the player to move at ``seq`` (payload: ``start``, ``hand_changed``);
skipped when that turn has passed (then only the hand is sent if it changed)."""
REPLAY_POST: Final = "replay_post"
"""The animated replay posted after the game-over post (payload: ``locale``). No longer written: the game-over
post carries the replay (:attr:`MoveResult.replay`); rows written before are still delivered."""
HAND_DM: Final = "hand_dm"
"""The DM with a player's hand, read from the host when it is sent (payload: ``start``, and :data:`CHANGED` for
what another player's move did to it)."""
CHANGED: Final = "changed"
"""The payload key that marks a hand DM as a "your cards changed" DM of a move (which waits
:data:`bot.host.outbox.CARDS_WAIT` for a turn DM to be folded into)."""
IDLE_POST: Final = "stale_post"
"""An idle table's channel post (payload: ``what`` (``lobby_closed``, ``notice`` or ``abandoned``), ``locale``,
``days``, and for the notice ``user_ids`` to mention and ``grace_days``); see ``bot.host.idle``."""
NOTICE_POST: Final = "notice_post"
"""A channel post in words (vacations, deadlines, take-overs; payload: ``key``, ``locale``, ``params`` and, for a
vacation vote, ``vote`` = the seat on vacation, to carry the vote buttons; for a seat handed to the computer,
``takeable`` = that seat, to carry *Take this seat*; for an offer to take a seat, ``takeover`` = ``seat`` and the
newcomer's ``user_id``, to carry the opener's *Confirm*)."""
NOTICE_DM: Final = "notice_dm"
"""A DM in words to ``user_id`` (payload: ``key``, ``locale`` of the game, ``params``)."""
TURN_OVER_DM: Final = "turn_over_dm"
"""Not a new DM: the person's turn DMs of the game still showing a turn that has passed are edited to say so, their
controls taken off (payload: ``reason`` — ``moved``, ``computer``, ``undo``, ``abandoned`` or :data:`CHANNEL_GONE` —,
``moved`` (the mover as seat), ``moves`` and ``events`` of the turn, ``by`` the seat who took a move back,
``game_over``)."""
CHANNEL_GONE: Final = "channel_gone"
"""Why a turn DM's turn passed when its game's channel was deleted (or the bot left the server): the game ended."""
LOBBY_POST: Final = "lobby_post"
"""The lobby message (payload: ``channel`` and ``message`` when it was posted already and is edited into the lobby:
the message in the parent channel that started the game's thread; else it is posted in the game's channel). Drawn
from the game as it is when it is sent; the message it went out as is kept (:meth:`bot.host.outbox.Outbox.delivered`),
for every later redraw, by any process, after a restart too."""
LOBBY_EDIT: Final = "lobby_edit"
"""The lobby message redrawn with its game as it is when the edit is sent (a seat taken or left, a computer added or
removed, the start, the lobby closed or abandoned; payload: none): skipped when a later one of the same game waits
(only the newest state is drawn), and the lobby message's buttons are gone once the game is no lobby any more."""
GAME_OVER_DM: Final = "game_over_dm"
"""The one DM a person gets at game over: their place and score, broken down, against the winner's, and the link
to the game-over post (payload: none; read from the archive when it is sent)."""
DELIVERY_KINDS: Final = (MOVE_POST, START_POST, SEAT_POST, ABANDONED_POST, REPLAY_POST, NOTICE_POST, IDLE_POST,
                         LOBBY_POST, LOBBY_EDIT, TURN_DM, HAND_DM, NOTICE_DM, TURN_OVER_DM, GAME_OVER_DM)
CHANNEL_POSTS: Final = frozenset({MOVE_POST, START_POST, SEAT_POST, ABANDONED_POST, REPLAY_POST, NOTICE_POST,
                                  IDLE_POST, LOBBY_POST, LOBBY_EDIT})


@dataclass(frozen=True, slots=True)
class Delivery(DeliveryRow):
    """A message the bot owes Discord, as the database holds it until it is delivered (the outbox): a
    :class:`bot.host.model.DeliveryRow` (``kind`` one of :data:`DELIVERY_KINDS`; ``user_id`` the DM's recipient,
    ``None`` for a channel post; ``seq`` the position it belongs to) that reads its payload.

    ``payload`` holds public facts only: a DM reads the player's hand from the host when it is sent.
    """

    @classmethod
    def from_row(cls, row: DeliveryRow) -> Delivery:
        return cls(*(getattr(row, f.name) for f in fields(row)))

    @property
    def is_post(self) -> bool:
        return self.kind in CHANNEL_POSTS

    def move(self) -> MoveResult:
        return MoveResult.from_payload(self.payload)

    def start(self) -> StartResult:
        return StartResult.from_payload(self.payload)

    def seat_change(self) -> SeatChange:
        return SeatChange.from_payload(self.payload)


def lobby_post(message: tuple[int, int] | None = None) -> NewDelivery:
    """The lobby message a new lobby owes (``message``: the channel and message posted already, which becomes it)."""
    return NewDelivery(LOBBY_POST, 0, payload={} if message is None else {"channel": message[0],
                                                                        "message": message[1]})


def lobby_edit(seq: int) -> NewDelivery:
    """The redraw of the lobby message a change of its game owes (at the game's position ``seq``)."""
    return NewDelivery(LOBBY_EDIT, seq)


def owes_post(old: Game | None, new: Game, undone: str | None) -> bool:
    """Whether a move owes the channel a post: once its turn is over (a double move's card and its first build
    leave the turn open; its post comes after the last build, with the whole turn); an undo, when the move it takes
    back had its post (it ended a turn), and the adapter edits that post where it can."""
    if undone is not None:
        return old is None or old.pending is None
    return new.pending is None or new.is_over()


def move_deliveries(result: MoveResult, *, post: bool = True, people: Sequence[int] = ()) -> list[NewDelivery]:
    """What a move owes, in the order a channel's outbox sends it: its channel post (``post``; the game-over post
    carries the replay when :attr:`MoveResult.replay` says so); the next player's turn DM (it shows their hand); the
    edit of the turn DMs of the person whose turn passed (no new DM: a cosmetic edit, which waits for the budget's
    cosmetic share, so after the turn DM, which should not wait for it; they are two people); then the DMs of the
    hands others changed (one DM at most per person: the player to move has the turn DM). At game over: the edit, then
    one DM to each of the game's ``people``."""
    owed = [NewDelivery(MOVE_POST, result.seq, payload=result.to_payload())] if post else []
    turn_over = ([NewDelivery(TURN_OVER_DM, result.seq, result.passed_user_id, turn_over_payload(result))]
                 if result.passed_user_id is not None else [])
    if result.game_over:
        return owed + turn_over + [NewDelivery(GAME_OVER_DM, result.seq, user_id, {}) for user_id in people]
    if result.to_move_user_id is not None and result.to_move_user_id == result.passed_user_id:
        owed += turn_over  # (a person holds one seat; were it otherwise, their old turn DMs are told first)
        turn_over = []
    if result.to_move_user_id is not None:
        owed.append(NewDelivery(TURN_DM, result.seq, result.to_move_user_id,
                                {"start": False, "hand_changed": result.to_move_user_id in result.dm_user_ids}))
    owed += turn_over
    for user_id in result.dm_user_ids:
        if user_id != result.to_move_user_id:
            owed.append(NewDelivery(HAND_DM, result.seq, user_id, {"start": False, CHANGED: True}))
    return owed


def turn_over_payload(result: MoveResult) -> dict[str, Any]:
    """What the edit of a passed turn's DMs says: why it passed (``moved``, ``computer``: the computer moved for
    the person, ``undo``: ``by`` took their move back), the turn's moves (public: a discard's card hidden) and
    events, and whether the game is over."""
    if result.undo:
        return {"reason": "undo", "by": result.seat, "game_over": False}
    public = result.to_payload()
    return {"reason": "computer" if result.by_computer else "moved", "moved": result.seat,
            "moves": public["turn_moves"], "events": public["events"], "game_over": result.game_over}


def abandoned_turn(table: Table) -> list[NewDelivery]:
    """What abandoning a running game owes its player to move, a person: their turn DM told that the game ended."""
    seat = table.to_move
    user_id = table.seats[seat].user_id if seat is not None else None
    return [] if user_id is None else [NewDelivery(TURN_OVER_DM, table.seq, user_id, {"reason": "abandoned"})]


def start_deliveries(start: StartResult) -> list[NewDelivery]:
    """What a start owes: its channel post, then every person's hand (with controls for the first player)."""
    owed = [NewDelivery(START_POST, 0, payload=start.to_payload())]
    for user_id in start.dm_user_ids:
        kind = TURN_DM if user_id == start.to_move_user_id else HAND_DM
        owed.append(NewDelivery(kind, 0, user_id, {"start": True, "hand_changed": True}))
    return owed
