"""What a game's channel (and its players, by DM) is told after the host stored a change: the outbox dispatcher.

The host writes the posts and DMs a change owes (its deliveries) in the change's own transaction; here each
channel's :class:`Outbox` task delivers its pending rows in the order they were written (up to :data:`BATCH` from
one read), marks each done, and after a passing failure (5xx, timeout, connection error) tries it again with an
exponential backoff, without holding up any other channel. At start-up the outboxes simply resume from the database,
however long the bot was down. Each move gets its own post (its own events and the picture of its own position, both
from the delivery's payload); a DM reads the hand from the host when it is sent.

What a delivery becomes is the host's decision (``host.delivery_step``, :mod:`bot.host.outbox`): send it, skip it (a
turn that has passed, turn DMs turned off, a later DM showing the same hand), hold a DM for the end of its player's
quiet hours, or gather every DM held for a player into ONE DM (the games waiting for them, with the controls of the
latest standing turn); a post names the players in their quiet hours without pinging them. Here each step is drawn
and sent. The sweep (or a change of settings) wakes the channels whose held DMs are due.

The channel speaks the game's language: ONE message per turn, as the host wrote it (in Components V2,
``bot.adapter.posts``: events in words, the public board picture, a mention of the player to move, *My cards* and
*Undo*; the previous post loses its *Undo* when the next comes; an undo edits the post of the move it takes back,
whichever process sent that post, before a restart too: the latest post is looked up in the database),
the start, seat changes, an abandoned game, and the game over with the animated replay of the whole game in the same
gallery (drawn in the render worker pool; a message of its own only if it does not fit). The game-over post's
message id is recorded with its delivery, so that ``/santacruz history`` links to it. Without the Attach Files
permission a post goes without its picture, without Send Messages the players go on by DM; either way the opener is
told once. A post answered 404 Unknown Channel or Unknown Guild means the channel is gone: the delivery is given up
and :attr:`Publisher.on_channel_gone` ends the channel's game (``bot.adapter.gone_channels``). A post answered 403
Missing Access asks Discord whether the bot is still in the server: removed (Discord answers so before the gateway's
GUILD_DELETE arrives), the channel is gone as well, quietly; still there, the post is tried once more after the
backoff (GUILD_DELETE gives it up meanwhile) before the opener is asked for the permission. An idle table's post (a
closed lobby, the "Keep it open" notice, the abandonment) is a delivery like the others; a closed lobby's message
loses its buttons. The lobby message is kept up to date by the same task, coalesced: only the newest lobby state is
drawn, however many clicks came meanwhile. No acknowledgement waits for any of this: the ``queue_*`` methods are
synchronous and only wake the channel's task.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Final

import discord

from bot.adapter import posts, settings_texts, texts, vacation_texts
from bot.adapter.dms import DirectMessages
from bot.adapter.idle_texts import idle_text
from bot.adapter.sending import (
    ALLOWED_MENTIONS,
    NO_PINGS,
    SEND_MESSAGES,
    TRANSIENT_ERRORS,
    MissingPermission,
    deliver_post,
    files,
)
from bot.adapter.views import keep_open_view, lobby_view, vacation_view
from bot.host.errors import StorageFailed
from bot.host.host import Host
from bot.host.idle import LOBBY_CLOSED, NOTICE
from bot.host.outbox import Held, SendDm, SendGathered, SendNotice, SendPost, Skip, Step
from bot.host.pictures import Pictures
from bot.host.table import (
    ABANDONED_POST,
    MOVE_POST,
    NOTICE_POST,
    REPLAY_POST,
    SEAT_POST,
    STALE_POST,
    START_POST,
    Delivery,
    MoveResult,
    SeatChange,
    StartResult,
    TableInfo,
)
from i18n import t

log = logging.getLogger(__name__)

LEASE_RETRY: Final = 1.0
"""Seconds before a process looks again at a channel whose outbox another process holds."""
CHANNEL_GONE: Final = frozenset({10003, 10004})
"""Discord's codes of a 404 that means the channel (Unknown Channel) or its server (Unknown Guild) is gone."""
MISSING_ACCESS: Final = 50001
"""Discord's code of a 403 that means the bot cannot see the channel: not in its server any more, or no View
Channel (a 403 for a missing Send Messages is 50013 Missing Permissions)."""
BATCH: Final = 20
"""How many due deliveries of a channel are sent from one read of its outbox (after a long outage a channel may owe
a hundred posts, each with the public view in its payload: reading them all again for each would be quadratic)."""
LOBBY_SEARCH: Final = 50
"""How many of a channel's last messages are searched for a lobby message the bot no longer remembers."""
ChannelGone = Callable[[int, str], Awaitable[None]]
"""``(channel_id, reason)``: what to do when a post finds the channel gone (end its games)."""


@dataclass(frozen=True, slots=True)
class Backoff:
    """How long to wait before trying a delivery again: ``first`` seconds, doubling, at most ``limit``."""

    first: float = 2.0
    limit: float = 300.0

    def delay(self, attempts: int) -> float:
        """The wait after the ``attempts``-th failure in a row (1 for the first)."""
        return min(self.limit, self.first * 2.0 ** max(0, attempts - 1))


class Outbox:
    """One channel's dispatcher task: the newest lobby state, then the channel's due deliveries in order."""

    def __init__(self, channel_id: int, publisher: Publisher) -> None:
        self.channel_id = channel_id
        self._publisher = publisher
        self._wake = asyncio.Event()
        self.lobby: TableInfo | None = None
        """A lobby whose message should be redrawn (with the newest state of its game)."""
        self.task: asyncio.Task[None] | None = None

    def kick(self) -> None:
        """Look for work now (a new delivery was stored, or a lobby changed); after the bot began to shut down, no
        new task starts (what is stored goes out at the next start)."""
        self._wake.set()
        if self._publisher.closing:
            return
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._run(), name=f"santacruz-outbox-{self.channel_id}")

    async def _run(self) -> None:
        """Deliver until nothing is pending; wait out a backoff, or until woken."""
        failures = 0
        while True:
            self._wake.clear()
            try:
                more = await self._step()
                failures = 0
            except Exception as exc:  # e.g. the database is locked: try again later, never die
                failures += 1
                delay = self._publisher.backoff.delay(failures)
                if isinstance(exc, StorageFailed):
                    log.warning("channel %d: the outbox could not read or write the database (%s); trying again "
                                "in %.1f s", self.channel_id, exc, delay)
                else:
                    log.exception("channel %d: the outbox failed; trying again in %.1f s", self.channel_id, delay)
                await self._sleep(delay)
                continue
            if not more and self.lobby is None and not self._wake.is_set():
                await self._publisher.host.let_go(self.lease)
                if self._wake.is_set() or self.lobby is not None:
                    continue  # woken while letting go (this task still ran, so no new one was started): look again
                return

    @property
    def lease(self) -> str:
        """The name of the lease that lets one process deliver this channel's posts (a shared database)."""
        return f"outbox:{self.channel_id}"

    async def _step(self) -> bool:
        """Redraw the lobby if asked, then deliver the pending deliveries that are due, in order, up to
        :data:`BATCH` of them from one read of the outbox (else wait for the first); whether anything may still be
        pending. With a shared database only the process holding the channel's lease delivers (so the posts keep
        their order); the others look again shortly, in case it let go."""
        if self.lobby is not None:
            lobby, self.lobby = self.lobby, None
            await self._publisher.update_lobby(lobby)
        host = self._publisher.host
        pending = await host.pending_deliveries(self.channel_id)
        ready = host.ready_deliveries(pending)
        if not ready:  # only DMs held for the end of quiet hours: the sweep wakes the channel when they are due
            return False
        lease = host.settings.lease_seconds  # renewed with every delivery
        for done, i in enumerate(ready[:BATCH]):
            if done and self.lobby is not None:
                break  # the lobby is redrawn first, then the outbox is read again
            if not await host.hold(self.lease, lease):
                await self._sleep(LEASE_RETRY)
                break
            delivery = pending[i]
            wait = delivery.due_at - host.now()
            if wait > 0:
                if not done:
                    await self._sleep(min(wait, lease / 2))
                break
            if host.shared:  # the game may have moved in another process since this one last looked (a change under
                # way here, the sweep's reading of it, is waited for: a copy from before it would call the turn passed)
                await host.refresh_game(delivery.game_id, wait=lease / 2)
            if not await self._publisher.deliver(delivery, pending[i + 1:]):
                break  # due again later, or the channel is gone: what was read is out of date
        return True

    async def _sleep(self, seconds: float) -> None:
        """Wait ``seconds``, or less if woken (a lobby to redraw, a new delivery)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), timeout=seconds)


class Publisher:
    """The channels' outboxes: they deliver what the host stored, and keep the lobby messages up to date."""

    def __init__(self, client: discord.Client, host: Host, pictures: Pictures, dms: DirectMessages, *,
                 backoff: Backoff | None = None) -> None:
        self.client = client
        self.host = host
        self.pictures = pictures
        self.dms = dms
        self.backoff = backoff or Backoff()
        """Waits between tries of a delivery that failed for a passing reason (tests make them short)."""
        self._unmarked: dict[int, str | None] = {}
        """Deliveries sent (or given up) whose outcome the database has not taken yet: id -> error."""
        self.outboxes: dict[int, Outbox] = {}
        self._lobby_messages: dict[int, tuple[int, int]] = {}
        """Game id -> (channel id, message id) of its lobby message, to keep it up to date."""
        self._clicked: dict[tuple[int, int], int] = {}
        """(game id, seq) -> the DM whose controls made that move (its controls are left as they are)."""
        self._latest: dict[int, _Latest] = {}
        """Game id -> its latest turn post sent by this process."""
        self._posted: dict[int, int] = {}
        """Delivery id -> the id of the message it was sent as (a game-over post's is kept for the history)."""
        self.on_channel_gone: ChannelGone | None = None
        """Called when a post finds its channel gone (404 Unknown Channel or Unknown Guild), after giving it up."""
        self.closing = False
        """The bot is shutting down: the outboxes at work may finish, no new one starts (:meth:`close`)."""

    def close(self) -> None:
        """Start no outbox task from now on (the bot is shutting down; the database keeps what is still owed, and the
        next start delivers it): a change that wakes a channel later, e.g. a server's removal arriving while the
        gateway closes, cannot start a task that would outlive the database."""
        self.closing = True

    # ------------------------------------------------------------------ waking the outboxes

    def outbox(self, channel_id: int) -> Outbox:
        box = self.outboxes.get(channel_id)
        if box is None:
            box = self.outboxes[channel_id] = Outbox(channel_id, self)
        return box

    def wake(self, channel_id: int) -> None:
        """Deliver what the host stored for ``channel_id`` (after everything stored before it)."""
        self.outbox(channel_id).kick()

    async def resume(self) -> int:
        """At start-up: wake every channel with pending deliveries (due now); returns how many there are."""
        pending = await self.host.resume_deliveries()
        for channel_id in dict.fromkeys(d.channel_id for d in pending):
            self.wake(channel_id)
        if pending:
            log.info("resuming %d deliveries left from before the start", len(pending))
        return len(pending)

    async def release_held(self) -> list[int]:
        """Wake the channels whose held DMs are due (quiet hours over, or re-timed by a change of settings): the
        sweep calls it; returns those channels."""
        channels = await self.host.held_channels_due()
        for channel_id in channels:
            self.wake(channel_id)
        return channels

    async def sweep(self) -> int:
        """Wake every channel with deliveries due (a safety net; with a shared database also those of a
        process that died holding their outbox); returns how many channels."""
        now = self.host.now()
        due = {d.channel_id for d in await self.host.pending_deliveries() if d.due_at <= now}
        for channel_id in due:
            box = self.outboxes.get(channel_id)
            if box is None or box.task is None or box.task.done():
                self.wake(channel_id)
        return len(due)

    def pending(self) -> list[asyncio.Task[None]]:
        """The outbox tasks still sending."""
        return [box.task for box in self.outboxes.values() if box.task is not None and not box.task.done()]

    def queue_move(self, result: MoveResult, *, clicked: int | None = None) -> None:
        """Deliver the post and DMs of a stored move (``clicked``: the DM whose controls were used, left as it is)."""
        if clicked is not None:
            self._clicked[(result.game_id, result.seq)] = clicked
        self.wake(result.channel_id)

    def queue_start(self, start: StartResult) -> None:
        self.wake(start.info.channel_id)
        if start.info.game_id in self._lobby_messages:
            self.queue_lobby(start.info)

    def queue_seat_change(self, change: SeatChange) -> None:
        self.wake(change.info.channel_id)

    def queue_abandoned(self, info: TableInfo) -> None:
        self.wake(info.channel_id)
        if info.game_id in self._lobby_messages:
            self.queue_lobby(info)

    def lobby_posted(self, info: TableInfo, message_id: int) -> None:
        """Remember the lobby message of ``info``'s game, to keep it up to date."""
        self._lobby_messages[info.game_id] = (info.channel_id, message_id)

    def forget_channel(self, channel_id: int) -> None:
        """The channel is gone and its deliveries were given up: no lobby message to redraw there; the outbox
        (if running) finds nothing pending and ends."""
        self._lobby_messages = {g: m for g, m in self._lobby_messages.items() if m[0] != channel_id}
        box = self.outboxes.get(channel_id)
        if box is not None:
            box.lobby = None
            box.kick()

    def queue_lobby(self, info: TableInfo) -> None:
        """Bring the game's lobby message up to date (if the bot knows it by then): once, with the newest state."""
        box = self.outbox(info.channel_id)
        box.lobby = info
        box.kick()

    # ------------------------------------------------------------------ delivering

    async def deliver(self, delivery: Delivery, later: list[Delivery]) -> bool:
        """Send one delivery and record the outcome: done, given up, held, or due again after a backoff; whether
        the channel's next delivery may follow now (not after a backoff, nor when the channel is gone).

        A delivery that was sent but could not be marked done (the database refused the write) is only
        marked when the outbox tries again, never sent twice by this process."""
        if delivery.id in self._unmarked:
            await self.host.delivered(delivery, self._unmarked[delivery.id], message_id=self._posted.get(delivery.id))
            del self._unmarked[delivery.id]
            self._posted.pop(delivery.id, None)
            return True
        gone: str | None = None
        try:
            async with self.host.delivery_step(delivery, later) as step:
                if isinstance(step, Held):
                    return True
                error = await self._send(delivery, step)
        except _AccessInDoubt:
            delay = self.backoff.delay(delivery.attempts + 1)
            log.info("game %d: %s %d answered Missing Access; trying again in %.1f s (the bot may have been removed "
                     "from the server)", delivery.game_id, delivery.kind, delivery.id, delay)
            await self.host.retry_delivery(delivery, delay, "missing access")
            return False
        except _ServerLeft as left:
            log.info("game %d: %s %d given up: %s", delivery.game_id, delivery.kind, delivery.id, left.reason)
            error = gone = left.reason
        except TRANSIENT_ERRORS as exc:
            delay = self.backoff.delay(delivery.attempts + 1)
            log.warning("game %d: %s %d failed (%s); trying again in %.1f s", delivery.game_id, delivery.kind,
                        delivery.id, _describe(exc), delay)
            await self.host.retry_delivery(delivery, delay, _describe(exc))
            return False
        except StorageFailed:  # e.g. gathering held DMs could not read them: the outbox tries again later
            raise
        except discord.HTTPException as exc:
            log.warning("game %d: %s %d cannot be delivered (%s); giving up", delivery.game_id, delivery.kind,
                        delivery.id, _describe(exc))
            error = _describe(exc)
            if delivery.is_post and isinstance(exc, discord.NotFound) and exc.code in CHANNEL_GONE:
                gone = f"channel gone: {error}"
        except Exception as exc:  # a broken delivery is isolated: reported, given up, the others go on
            log.exception("game %d: %s %d failed; giving up", delivery.game_id, delivery.kind, delivery.id)
            error = _describe(exc)
        self._unmarked[delivery.id] = error
        await self.host.delivered(delivery, error, message_id=self._posted.get(delivery.id))
        del self._unmarked[delivery.id]
        self._posted.pop(delivery.id, None)
        if gone is not None and self.on_channel_gone is not None:
            await self.on_channel_gone(delivery.channel_id, gone)
        return gone is None

    async def _send(self, delivery: Delivery, step: Step) -> str | None:
        """Carry out the host's ``step`` for ``delivery``; the reason it was not sent (skipped, permission
        missing), or ``None``."""
        if not isinstance(step, SendPost):
            return await self._send_dm(delivery, step)
        try:
            missing = await self._post(delivery, step.quiet)
        except MissingPermission as exc:
            if _forbidden_code(exc) == MISSING_ACCESS:
                await self._check_access(delivery)
            missing = exc.permission
        if missing is None:
            return None
        info = self.host.find_game(delivery.game_id)
        if info is not None:
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
        info = self.host.find_game(delivery.game_id)
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

    async def _post(self, delivery: Delivery, quiet: frozenset[int]) -> str | None:
        """Draw and send a channel post; ``quiet``: the people it names without pinging them."""
        nonce = _nonce(delivery)
        if delivery.kind == MOVE_POST:
            sent: list[discord.Message] = []
            try:
                return await self._post_move(delivery.move(), sent=sent, nonce=nonce, quiet=quiet,
                                             clicked=self._clicked.pop((delivery.game_id, delivery.seq), None))
            finally:
                if sent:
                    self._posted[delivery.id] = sent[0].id
        if delivery.kind == REPLAY_POST:
            return await self._post_replay(delivery, nonce)
        if delivery.kind == START_POST:
            started: list[discord.Message] = []
            try:
                return await self._post_start(delivery.start(), nonce, sent=started, quiet=quiet)
            finally:
                if started:
                    self._posted[delivery.id] = started[0].id
        if delivery.kind == SEAT_POST:
            return await self._post_seat_change(delivery.seat_change(), nonce)
        if delivery.kind == STALE_POST:
            return await self._post_stale(delivery, quiet, nonce)
        if delivery.kind == NOTICE_POST:
            return await self._post_notice(delivery, nonce)
        if delivery.kind == ABANDONED_POST:
            locale = str(delivery.payload["locale"])
            text = t("bot.post.abandoned", locale, name=texts.esc(str(delivery.payload["name"])))
            return await deliver_post(self.client, delivery.channel_id, text, nonce=nonce)
        raise ValueError(f"delivery {delivery.id}: unknown kind {delivery.kind!r}")

    async def _post_stale(self, delivery: Delivery, quiet: frozenset[int], nonce: str | None = None) -> str | None:
        """An idle table's post: the notice with its "Keep it open" button, pinging the players not in their quiet
        hours (the others are named); a closed lobby's message loses its buttons."""
        what, locale = delivery.payload["what"], str(delivery.payload["locale"])
        view = keep_open_view(delivery.game_id, locale) if what == NOTICE else None
        awake = [discord.Object(int(u)) for u in delivery.payload.get("user_ids", ()) if int(u) not in quiet]
        mentions = discord.AllowedMentions(users=awake, roles=False, everyone=False, replied_user=False)
        missing = await deliver_post(self.client, delivery.channel_id, idle_text(delivery.payload), view=view,
                                     mentions=mentions, nonce=nonce)
        if what == LOBBY_CLOSED:
            await self._close_lobby_message(delivery)
        return missing

    async def _close_lobby_message(self, delivery: Delivery) -> None:
        """Redraw a closed lobby's message without its buttons: the one this process posted, else (after a
        restart) the bot's message among the channel's last ones that carries the lobby's join button."""
        info = self.host.find_game(delivery.game_id)
        if info is None:
            return
        known = self._lobby_messages.pop(delivery.game_id, None)
        channel = self.client.get_partial_messageable(delivery.channel_id)
        try:
            if known is not None:
                message: discord.PartialMessage | discord.Message = channel.get_partial_message(known[1])
            else:
                found = await self._find_lobby_message(channel, delivery.game_id)
                if found is None:
                    return
                message = found
            await message.edit(content=texts.lobby_text(info, info.locale), view=None,
                               allowed_mentions=ALLOWED_MENTIONS)
        except discord.HTTPException as exc:
            log.warning("game %d: could not close the lobby message (%s)", delivery.game_id, exc.status)

    async def _find_lobby_message(self, channel: discord.PartialMessageable, game_id: int) -> discord.Message | None:
        join = f"sc:{game_id}:join"
        me = self.client.user
        async for message in channel.history(limit=LOBBY_SEARCH):
            if me is not None and message.author.id == me.id and any(
                    getattr(item, "custom_id", None) == join for row in message.components
                    for item in getattr(row, "children", ())):
                return message
        return None

    async def _post_notice(self, delivery: Delivery, nonce: str | None = None) -> str | None:
        """A vacation's or a deadline's post in the game's language; a vacation's vote carries its buttons."""
        locale = str(delivery.payload["locale"])
        seat = delivery.payload.get("vote")
        view = None
        if seat is not None:
            name = str(delivery.payload["params"]["name"])
            view = vacation_view(delivery.game_id, int(seat), name, locale)
        return await deliver_post(self.client, delivery.channel_id,
                                  vacation_texts.notice_text(delivery.payload, locale), view=view, nonce=nonce)

    async def _post_replay(self, delivery: Delivery, nonce: str | None = None) -> str | None:
        """The animated replay of a finished game, made in the render pool (left out if that failed)."""
        locale = str(delivery.payload["locale"])
        gif = await self.pictures.replay_gif(await self.host.replay_record(delivery.game_id), locale)
        return await deliver_post(self.client, delivery.channel_id, t("bot.replay.post", locale),
                                  pictures=[(gif, "replay.gif")], nonce=nonce)

    async def _post_move(self, result: MoveResult, *, clicked: int | None, quiet: frozenset[int],
                         sent: list[discord.Message] | None = None, nonce: str | None = None) -> str | None:
        """A turn's post (Components V2: words with the next player's mention, the board, *My cards* and *Undo*);
        the game over's with the ranking, the board, the chart and the replay in one gallery (the replay as a
        message of its own only when it does not fit); an undo edits the post of the move it takes back."""
        locale = result.locale
        board = await self.pictures.png(result.view, locale, key=(result.game_id, result.seq, None))
        try:
            if result.undo:
                return await self._post_undo(result, board, nonce=nonce, sent=sent)
            pictures: list[tuple[bytes | None, str]] = [(board, "board.png")]
            gif: bytes | None = None
            if result.game_over:
                pictures.append((await self.pictures.png(result.view, locale, game_over=True), "game-over.png"))
                if result.replay:
                    gif = await self.pictures.replay_gif(await self.host.replay_record(result.game_id), locale)
                    if gif is not None and posts.fits([len(p) for p, _ in pictures if p is not None] + [len(gif)]):
                        pictures.append((gif, "replay.gif"))
                        gif = None
            text = texts.move_post(result, locale)
            undo = result.undoable

            def make(names: Sequence[str]) -> discord.ui.LayoutView:
                return posts.move_layout(result, text, names, locale, undo=undo)

            await self._strip_undo(result.game_id)
            posted: list[discord.Message] = []
            mentions = _mentions(result.to_move_user_id, quiet)
            missing = await posts.deliver_layout(self.client, result.channel_id, make, pictures=pictures, sent=posted,
                                                 mentions=mentions, nonce=nonce)
            if sent is not None:
                sent.extend(posted)
            if posted:
                names = [name for png, name in pictures if png is not None and missing is None]
                self._latest[result.game_id] = _Latest(result.channel_id, posted[0].id, text, names, result, undo,
                                                       mentions)
            if gif is not None:
                await deliver_post(self.client, result.channel_id, t("bot.replay.post", locale),
                                   pictures=[(gif, "replay.gif")], nonce=f"{nonce}r" if nonce else None)
            return missing
        finally:
            if result.user_id is not None:
                await self.dms.strip_turn_dm(result.game_id, result.user_id, keep=clicked)
            if result.undo:  # the turn is the mover's again: the next player's turn DM is out of date
                await self.dms.strip_others_turn_dms(result.game_id, result.to_move_user_id)

    async def _post_undo(self, result: MoveResult, board: bytes | None, *, nonce: str | None,
                         sent: list[discord.Message] | None) -> str | None:
        """An undo: the post of the move taken back is edited (that move struck through, the board as it is now,
        no new ping), whichever process sent it and when; only when that post is gone or cannot be found, a new post
        that pings nobody."""
        locale = result.locale
        text = posts.taken_back_text(result, locale)
        latest = self._latest.pop(result.game_id, None)
        message_id, had_pictures = (latest.message_id, bool(latest.pictures)) if latest is not None else (None, False)
        theirs = await self._theirs(result.game_id, latest)  # sent by another process, or before a restart
        if theirs is not None:  # a later post than this process knows: the move's if it is of the seq taken back
            message_id, had_pictures = ((theirs.message.id, bool(theirs.message.attachments))
                                        if theirs.result.seq == result.seq - 1 else (None, False))
        if message_id is not None:
            names = ["board.png"] if board is not None and had_pictures else []
            layout = posts.move_layout(result, text, names, locale, undo=False)
            channel = self.client.get_partial_messageable(result.channel_id)
            try:
                await channel.get_partial_message(message_id).edit(
                    view=layout, attachments=files(*((board, n) for n in names)), allowed_mentions=NO_PINGS)
                self._latest[result.game_id] = _Latest(result.channel_id, message_id, text, names, result, False,
                                                       NO_PINGS)
                return None
            except discord.NotFound:
                log.info("game %d: the post of the move taken back is gone; posting the undo", result.game_id)

        def make(names: Sequence[str]) -> discord.ui.LayoutView:
            return posts.move_layout(result, text, names, locale, undo=False)

        return await posts.deliver_layout(self.client, result.channel_id, make, pictures=[(board, "board.png")],
                                          sent=sent, mentions=NO_PINGS, nonce=nonce)

    async def _strip_undo(self, game_id: int) -> None:
        """The game's previous post loses its *Undo* once a newer post comes (an edit pings nobody): the one this
        process sent, and the one another process sent after it (or this one before a restart)."""
        latest = self._latest.pop(game_id, None)
        theirs = await self._theirs(game_id, latest)
        if theirs is not None and f"sc:{game_id}:undo:{theirs.result.seq}" in theirs.custom_ids:
            message, result = theirs.message, theirs.result
            names = [a.filename for a in message.attachments]
            await self._take_undo_off(game_id, message.channel.id, message.id, posts.move_layout(
                result, texts.move_post(result, result.locale), names, result.locale, undo=False), NO_PINGS)
        if latest is not None and latest.undo:
            await self._take_undo_off(game_id, latest.channel_id, latest.message_id, posts.move_layout(
                latest.result, latest.text, latest.pictures, latest.result.locale, undo=False), latest.mentions)

    async def _take_undo_off(self, game_id: int, channel_id: int, message_id: int, layout: discord.ui.LayoutView,
                             mentions: discord.AllowedMentions) -> None:
        channel = self.client.get_partial_messageable(channel_id)
        try:
            await channel.get_partial_message(message_id).edit(view=layout, allowed_mentions=mentions)
        except discord.HTTPException as exc:
            log.info("game %d: could not take Undo off the previous post (%s)", game_id, exc.status)

    async def _theirs(self, game_id: int, latest: _Latest | None) -> _Theirs | None:
        """The game's latest post when this process does not know it as ``latest`` (another process sharing the
        database sent it, or this one before a restart), as Discord has it; ``None`` when it is ``latest``, a start,
        or cannot be read (then nothing is edited that might be another post)."""
        try:
            found = await self.host.last_post(game_id)
            if found is None or found[1].kind != MOVE_POST or (latest is not None and latest.message_id == found[0]):
                return None
            message_id, delivery = found
            result = delivery.move()  # a payload it cannot read fails here, not in the middle of an edit
            message = await self.client.get_partial_messageable(delivery.channel_id).fetch_message(message_id)
            custom_ids = {i for item in discord.ui.LayoutView.from_message(message, timeout=None).walk_children()
                          if isinstance(i := getattr(item, "custom_id", None), str)}
        except discord.HTTPException as exc:
            log.info("game %d: the latest post could not be read from Discord (%s)", game_id, exc.status)
            return None
        except Exception as exc:  # taking Undo off is a nicety: it never costs the post it comes with
            log.warning("game %d: the latest post could not be looked up (%s: %s)", game_id, type(exc).__name__, exc)
            return None
        if f"sc:{game_id}:hand:{result.seq}" not in custom_ids:
            return None  # not that move's post (it was given up, and an older one is the latest that went out)
        return _Theirs(message, result, frozenset(custom_ids))

    async def _post_start(self, start: StartResult, nonce: str | None = None,
                          sent: list[discord.Message] | None = None,
                          quiet: frozenset[int] = frozenset()) -> str | None:
        info = start.info
        board = await self.pictures.png(start.view, info.locale, key=(info.game_id, info.seq, None))
        text = texts.start_post(start, info.locale)

        def make(names: Sequence[str]) -> discord.ui.LayoutView:
            return posts.start_layout(start, text, names, info.locale)

        return await posts.deliver_layout(self.client, info.channel_id, make, pictures=[(board, "board.png")],
                                          mentions=_mentions(start.to_move_user_id, quiet), nonce=nonce, sent=sent)

    async def _post_seat_change(self, change: SeatChange, nonce: str | None = None) -> str | None:
        info = change.info
        try:
            return await deliver_post(self.client, info.channel_id, texts.seat_change_post(change, info.locale),
                                      nonce=nonce)
        finally:
            if change.away:
                await self.dms.strip_turn_dm(info.game_id, change.user_id)

    async def _send_dm(self, delivery: Delivery, step: Step) -> str | None:
        """A DM as the host decided it: the hand as it is now (with the turn's controls), a notice, or the DMs held
        for a player gathered into one; a skip is only recorded."""
        assert delivery.user_id is not None
        user_id, nonce = delivery.user_id, _nonce(delivery)
        if isinstance(step, Skip):
            return step.reason
        if isinstance(step, SendNotice):
            await self.dms.send_notice(step.info, user_id, delivery.payload, nonce=nonce)
        elif isinstance(step, SendDm):
            await self.dms.send_hand(step.info, user_id, turn=step.turn, start=step.start, reminder=step.reminder,
                                     nonce=nonce)
        elif isinstance(step, SendGathered):
            locale = self.dms.locale_of(user_id, step.locale)
            heading = settings_texts.held_text(step.waiting, step.changed, locale)
            if step.turn is not None:
                await self.dms.send_hand(step.turn, user_id, turn=True, heading=heading, nonce=nonce)
            else:
                await self.dms.send_note(user_id, heading, nonce=nonce)
        return None

    async def update_lobby(self, info: TableInfo) -> None:
        """Redraw the lobby message of ``info``'s game with the newest state the host has of it."""
        known = self._lobby_messages.get(info.game_id)
        if known is None:
            return
        info = self.host.find_game(info.game_id) or info
        if info.status != "lobby":
            self._lobby_messages.pop(info.game_id, None)
        channel = self.client.get_partial_messageable(known[0])
        try:
            await channel.get_partial_message(known[1]).edit(
                content=texts.lobby_text(info, info.locale), view=lobby_view(info, info.locale),
                allowed_mentions=ALLOWED_MENTIONS)
        except discord.HTTPException as exc:
            log.warning("game %d: could not update the lobby message (%s)", info.game_id, exc.status)


@dataclass(frozen=True, slots=True)
class _Theirs:
    """A game's latest post that this process did not send (or sent before a restart), as Discord has it."""

    message: discord.Message
    result: MoveResult
    """The move it is the post of (its delivery's payload)."""
    custom_ids: frozenset[str]


@dataclass(frozen=True, slots=True)
class _Latest:
    """A game's latest turn post as this process sent it: to take its *Undo* off, or to edit it for an undo."""

    channel_id: int
    message_id: int
    text: str
    pictures: list[str]
    result: MoveResult
    undo: bool
    """It carries *Undo*."""
    mentions: discord.AllowedMentions
    """Whom it was sent to ping (kept by an edit that only takes *Undo* off: an edit pings nobody anyway)."""


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
    e.g. it died just after sending), Discord answers with the message already made instead of a second one."""
    return f"sc{delivery.id}"


def _mentions(user_id: int | None, quiet: frozenset[int]) -> discord.AllowedMentions:
    """Whom a post may ping: not the player to move while they are in their quiet hours (they are named)."""
    return NO_PINGS if user_id is not None and user_id in quiet else ALLOWED_MENTIONS


def _describe(exc: BaseException) -> str:
    """An error for the log and the ``last_error`` column: its type and status, never a message body."""
    status = getattr(exc, "status", None)
    code = getattr(exc, "code", None)
    return " ".join(str(p) for p in (type(exc).__name__, status, code) if p is not None)
