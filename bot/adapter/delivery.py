"""One delivery of the outbox drawn and sent, and its outcome recorded: a channel post (a move's, the start's, a seat
change, an idle table's notice, a vacation's or a deadline's, the replay, an abandoned game, the lobby message), a DM (a
hand, a turn, a notice, a player's result at game over) or the edit telling a passed turn's DMs so, as the host decided
it (``host.outbox.step``: send, skip, hold for quiet hours, gather the held ones into one). The message a DM with a
turn's controls went out as is recorded with its outcome, so that any process can edit it later.

What a failure means is decided here: a passing one (5xx, timeout, connection error) is tried again after the
backoff; 404 Unknown Channel or Unknown Guild means the channel is gone (the delivery is given up and the channel's
games end), and so does 400 Thread is locked for a game's thread; 403 Missing Access asks Discord whether the bot is
still in the server (removed: gone as well, quietly; still there: tried once more before the opener is asked for the
permission); without Attach Files a post goes without its pictures, without Send Messages the players go on by DM,
and either way the opener is told once (for a game in a thread, without Send Messages in Threads, its channel is
told); anything else is given up and logged, and the channel's other deliveries go on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, Final

import discord

from bot.adapter import posts
from bot.adapter.compose import Composed, compose_post
from bot.adapter.dms import DirectMessages
from bot.adapter.lobby_message import LobbyMessages
from bot.adapter.sending import (
    ATTACH_FILES,
    SEND_MESSAGES,
    TRANSIENT_ERRORS,
    MissingPermission,
    Posted,
    deliver_post,
)
from bot.adapter.sent_before import SentBefore
from bot.adapter.threads import LOCKED, SEND_MESSAGES_IN_THREADS, THREAD_LOCKED, ThreadNotices, edit_message
from bot.adapter.undo_marks import UndoMarks
from bot.host.deliveries import (
    LOBBY_EDIT,
    LOBBY_POST,
    MOVE_POST,
    SEAT_POST,
    Delivery,
)
from bot.host.errors import StorageFailed
from bot.host.host import Host
from bot.host.outbox import Held, SendPost, SendTurnOver, Skip, Step
from bot.host.pictures import Pictures

log = logging.getLogger(__name__)

CHANNEL_GONE: Final = frozenset({10003, 10004})
"""Discord's codes of a 404 that means the channel (Unknown Channel) or its server (Unknown Guild) is gone."""
MISSING_ACCESS: Final = 50001
"""Discord's code of a 403 that means the bot cannot see the channel: not in its server any more, or no View
Channel (a 403 for a missing Send Messages is 50013 Missing Permissions)."""


@dataclass(frozen=True, slots=True)
class Backoff:
    """How long to wait before trying a delivery again: ``first`` seconds, doubling, at most ``limit``."""

    first: float = 2.0
    limit: float = 300.0

    def delay(self, attempts: int) -> float:
        """The wait after the ``attempts``-th failure in a row (1 for the first)."""
        return min(self.limit, self.first * 2.0 ** max(0, attempts - 1))


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of a delivery: whether the channel's next one may follow now (``gone``: why its channel is gone)."""

    go_on: bool
    gone: str | None = None


class Deliveries:
    """Draws and sends the deliveries, and records each outcome with the host."""

    def __init__(self, client: discord.Client, host: Host, pictures: Pictures, dms: DirectMessages,
                 lobbies: LobbyMessages, threads: ThreadNotices) -> None:
        self.client = client
        self.host = host
        self.pictures = pictures
        self.dms = dms
        self.lobbies = lobbies
        """The lobby messages: posted and redrawn (without buttons once the lobby is over)."""
        self.threads = threads
        """Where a game in a thread tells its channel what the bot lacks there."""
        self.undo_marks = UndoMarks(client, host)
        self.clicked: dict[tuple[int, int], int] = {}
        """(game id, seq) -> the DM whose controls made that move (told that its turn passed, its *Undo* stays)."""
        self._unmarked: dict[int, str | None] = {}
        """Deliveries sent (or given up) whose outcome the database has not taken yet: id -> error."""
        self._posted_as: dict[int, int] = {}
        """Delivery id -> the message a post or a DM with a turn's controls went out as, recorded with its outcome even
        when what follows fails (the outbox keeps those it links to or edits later: a game-over post, a turn DM)."""
        self._closed: dict[int, list[int]] = {}
        """Delivery id -> the turn DMs it told that their turn passed, the posts it took buttons off."""
        self.tidying: set[asyncio.Task[None]] = set()
        """Cosmetic edits running beside the outboxes (*Undo* taken off the previous post)."""
        self.sent_before = SentBefore(client, host, dms)
        """Looks for a delivery left from before the start in Discord first (a restored backup owes it again)."""

    async def deliver(self, delivery: Delivery, later: list[Delivery], backoff: Backoff) -> Outcome:
        """Send one delivery and record the outcome: done, given up, held, or due again after ``backoff``.

        A delivery that was sent but could not be marked done (the database refused the write) is only marked when
        the outbox tries again, never sent twice by this process."""
        if delivery.id in self._unmarked:
            await self.host.outbox.delivered(delivery, self._unmarked[delivery.id],
                                             message_id=self._posted_as.pop(delivery.id, None),
                                             closed=self._closed.pop(delivery.id, ()))
            del self._unmarked[delivery.id]
            return Outcome(True)
        gone: str | None = None
        try:
            async with self.host.outbox.step(delivery, later) as step:
                if isinstance(step, Held):
                    return Outcome(True)
                if (found := await self.sent_before.find(delivery, step)) is not None:  # left from before: sent?
                    await self.host.outbox.already_sent(delivery, found)
                    return Outcome(True)
                error = await self._send(delivery, step)
        except _AccessInDoubt:
            delay = backoff.delay(delivery.attempts + 1)
            log.info("game %d: %s %d answered Missing Access; trying again in %.1f s (the bot may have been removed "
                     "from the server)", delivery.game_id, delivery.kind, delivery.id, delay)
            await self.host.outbox.retry_delivery(delivery, delay, "missing access")
            return Outcome(False)
        except _ServerLeft as left:
            log.info("game %d: %s %d given up: %s", delivery.game_id, delivery.kind, delivery.id, left.reason)
            error = gone = left.reason
        except TRANSIENT_ERRORS as exc:
            delay = backoff.delay(delivery.attempts + 1)
            log.warning("game %d: %s %d failed (%s); trying again in %.1f s", delivery.game_id, delivery.kind,
                        delivery.id, _describe(exc), delay)
            await self.host.outbox.retry_delivery(delivery, delay, _describe(exc))
            return Outcome(False)
        except StorageFailed:  # e.g. gathering held DMs could not read them: the outbox tries again later
            raise
        except discord.HTTPException as exc:
            log.warning("game %d: %s %d cannot be delivered (%s); giving up", delivery.game_id, delivery.kind,
                        delivery.id, _describe(exc))
            error = _describe(exc)
            if delivery.is_post and isinstance(exc, discord.NotFound) and exc.code in CHANNEL_GONE:
                gone = f"channel gone: {error}"
            elif delivery.is_post and exc.code == THREAD_LOCKED:  # a moderator locked the game's thread
                gone = LOCKED
        except Exception as exc:  # a broken delivery is isolated: reported, given up, the others go on
            log.exception("game %d: %s %d failed; giving up", delivery.game_id, delivery.kind, delivery.id)
            error = _describe(exc)
        self._unmarked[delivery.id] = error
        await self.host.outbox.delivered(delivery, error, message_id=self._posted_as.get(delivery.id),
                                         closed=self._closed.get(delivery.id, ()))
        del self._unmarked[delivery.id]
        self._posted_as.pop(delivery.id, None)
        self._closed.pop(delivery.id, None)
        return Outcome(gone is None, gone)

    async def _send(self, delivery: Delivery, step: Step) -> str | None:
        """Carry out the host's ``step`` for ``delivery``: why it was not sent (skipped, no permission), or None."""
        if isinstance(step, Skip):
            return step.reason
        if not isinstance(step, SendPost):
            return await self._send_dm(delivery, step)
        missing: str | None = None
        try:
            await self._take_buttons_off(delivery)
            posted = await self._post(delivery, step.quiet)
            if posted is not None:  # kept by the outbox where it needs it (a later post ends its buttons, say)
                self._posted_as.setdefault(delivery.id, posted.message.id)
            if posted is not None and posted.without_pictures:
                missing = ATTACH_FILES
        except MissingPermission as exc:
            if _forbidden_code(exc) == MISSING_ACCESS:
                await self._check_access(delivery)
            missing = exc.permission
        if missing is None:
            return None
        info = self.host.games.find_game(delivery.game_id)
        if info is not None and info.parent_id is not None and missing == SEND_MESSAGES:
            await self.threads.missing_in_thread(info, SEND_MESSAGES_IN_THREADS)
        elif info is not None:
            await self.dms.tell_missing_permission(info, missing)
        else:
            log.warning("game %d: the bot lacks %s in channel %d", delivery.game_id, missing, delivery.channel_id)
        return f"missing permission: {missing}" if missing == SEND_MESSAGES else None

    async def _check_access(self, delivery: Delivery) -> None:
        """A post answered 403 Missing Access: the bot was removed from the server (Discord answers so before the
        gateway's GUILD_DELETE arrives), or it may not view the channel. Removed (Discord no longer shows it the
        server): :class:`_ServerLeft`, the channel's games end quietly. Still in the server at the first try:
        :class:`_AccessInDoubt`, tried again after the backoff (GUILD_DELETE usually comes meanwhile, and gives it
        up); at a later try the opener is asked for the permission as for any other."""
        info = self.host.games.find_game(delivery.game_id)
        if info is None or info.guild_id is None:
            return
        try:
            await self.client.fetch_guild(info.guild_id)
        except (discord.NotFound, discord.Forbidden) as exc:
            raise _ServerLeft(f"the bot is no longer in the server ({_describe(exc)})") from None
        except discord.HTTPException:
            pass  # Discord cannot say now: treated as still in the server
        if delivery.attempts == 0:
            raise _AccessInDoubt

    async def _post(self, delivery: Delivery, quiet: frozenset[int]) -> Posted | None:
        """Send a channel post as composed (:func:`bot.adapter.compose.compose_post`; ``None``: an undo edited the
        post it takes back, or a lobby's message was redrawn); ``quiet``: the people it names without pinging them."""
        composed = await compose_post(self.host, delivery, pictures=self.pictures, quiet=quiet)
        if delivery.kind == MOVE_POST:
            return await self._post_move(delivery, composed)
        if delivery.kind == LOBBY_EDIT:  # its buttons gone for good: the lobby message is closed with it
            self._closed.setdefault(delivery.id, []).extend(await self.lobbies.redraw(delivery, composed))
            return None
        if delivery.kind == LOBBY_POST and "message" in delivery.payload:
            return await self.lobbies.edit_into(delivery, composed)
        try:
            return await self._send_composed(delivery.channel_id, composed, _nonce(delivery))
        finally:
            if delivery.kind == SEAT_POST and delivery.payload.get("away"):
                # the computer plays the seat now: its turn DM's controls are no longer theirs
                change = delivery.seat_change()
                await self.dms.strip_turn_dm(change.info.game_id, change.user_id)

    async def _send_composed(self, channel_id: int, composed: Composed, nonce: str) -> Posted:
        """Post what was composed: a game's post in Components V2, anything else as words with its buttons."""
        if composed.layout is not None:
            return await posts.deliver_layout(self.client, channel_id, composed.layout, pictures=composed.pictures,
                                              mentions=composed.mentions, nonce=nonce)
        return await deliver_post(self.client, channel_id, composed.text, pictures=composed.pictures,
                                  view=composed.view, mentions=composed.mentions, nonce=nonce)

    async def _take_buttons_off(self, delivery: Delivery) -> None:
        """The posts whose buttons ``delivery``'s post ends (an offer decided, a seat someone's again, a vote over,
        the game over: :mod:`bot.host.buttons`) lose them, however far back; a passing failure is raised (the post
        is tried again, and takes them off then)."""
        closed: list[int] = []
        for ended, message_id in await self.host.outbox.ended_by(delivery):
            try:  # in a thread Discord archived meanwhile, unarchived first
                await edit_message(self.client, delivery.channel_id, message_id, view=None, tidy=True)
            except TRANSIENT_ERRORS:
                raise
            except discord.NotFound:
                pass  # the post was deleted: nothing carries the buttons any more
            except discord.HTTPException as exc:
                log.warning("game %d: could not take the buttons off a post (%s)", delivery.game_id, exc.status)
            closed.append(ended)
        self._closed[delivery.id] = closed

    async def _post_move(self, delivery: Delivery, composed: Composed) -> Posted | None:
        """A turn's post (the game over's with the replay, or that as a message of its own when it does not fit): once
        it went out, the previous post loses its *Undo* beside the outbox (:meth:`_beside`), this one is marked for the
        next; an undo edits the post of the move it takes back (:meth:`UndoMarks.edit_taken_back`), and only when that
        post is gone or cannot be found is posted anew (pinging nobody)."""
        result, nonce = delivery.move(), _nonce(delivery)
        if result.undo and await self.undo_marks.edit_taken_back(result, composed.text, composed.pictures):
            return None
        previous = None if result.undo else await self.undo_marks.previous(result.game_id)
        posted = await self._send_composed(result.channel_id, composed, nonce)
        self._posted_as[delivery.id] = posted.message.id
        if previous is not None:
            shown = [name for png, name in composed.pictures if png is not None]
            self.undo_marks.sent(result, posted, composed.text, shown, undo=result.undoable,
                                 mentions=composed.mentions)
            self._beside(self.undo_marks.strip(previous), f"santacruz-undo-off-{result.game_id}")
        if composed.then is not None:
            await self._send_composed(result.channel_id, composed.then, f"{nonce}r")
        return posted

    def _beside(self, edit: Coroutine[Any, Any, None], name: str) -> None:
        """Run a cosmetic ``edit`` beside the outbox, which goes on with the next delivery meanwhile (the edit handles
        its own failures; a stop gives it the same grace as the outboxes: :attr:`tidying`)."""
        task = asyncio.create_task(edit, name=name)
        self.tidying.add(task)
        task.add_done_callback(self.tidying.discard)

    async def _send_dm(self, delivery: Delivery, step: Step) -> str | None:
        """A DM as the host decided it (:meth:`DirectMessages.deliver`); the reason it was not sent, if so. The
        message with a turn's controls it went out as, and the turn DMs it told that their turn passed, are recorded
        with its outcome; a passed turn's DM whose controls made the move keeps its *Undo*."""
        clicked = None
        if isinstance(step, SendTurnOver):
            for key in [k for k in self.clicked if k[0] == delivery.game_id and k[1] < delivery.seq]:
                del self.clicked[key]  # a double move's earlier clicks: the same DM, or one already told
            clicked = self.clicked.pop((delivery.game_id, delivery.seq), None)
        sent = await self.dms.deliver(delivery, step, nonce=_nonce(delivery), clicked=clicked)
        if sent.turn_message is not None:
            self._posted_as[delivery.id] = sent.turn_message
        if sent.closed:
            self._closed[delivery.id] = list(sent.closed)
        return sent.reason


class _AccessInDoubt(Exception):
    """A post answered Missing Access while Discord still shows the bot the server: try it again once."""


class _ServerLeft(Exception):
    """A post answered Missing Access and Discord no longer shows the bot the server: give it up quietly."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _forbidden_code(exc: MissingPermission) -> int | None:
    """Discord's error code of the 403 behind a :class:`MissingPermission` (raised while handling it, so it is
    the exception's context), or ``None``."""
    forbidden = exc.__context__
    return forbidden.code if isinstance(forbidden, discord.Forbidden) else None


def _nonce(delivery: Delivery) -> str:
    """The same nonce each time a delivery is sent: sent again (this process or another could not mark it done,
    e.g. it died just after sending), Discord answers with the message already made instead of a second one. It holds
    the delivery's id and the millisecond it was written (hexadecimal; 25 characters while ids have 11 digits): a
    restored backup reuses the ids of deliveries sent after it, and Discord would answer a new post with an old one."""
    return f"sc{delivery.id}.{int(delivery.created_at * 1000):x}"


def _describe(exc: BaseException) -> str:
    """An error for the log and the ``last_error`` column: its type and status, never a message body."""
    status = getattr(exc, "status", None)
    code = getattr(exc, "code", None)
    return " ".join(str(p) for p in (type(exc).__name__, status, code) if p is not None)
