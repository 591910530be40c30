"""A player's private side: their hand by DM (with move controls on their turn) or as an ephemeral answer.

DMs go out in the player's own language, the one of their last interaction with the bot: remembered here, and by
the host in the database (so that it survives a restart); the game's language for a player the bot has never seen
interact. The DM carrying a player's move controls is recorded by the host with its delivery (whichever process sent
it, it survives a restart): a newer one of the same turn takes its controls off (unless the player moved with them
while it was sent: then its own are outdated), and once the turn has passed it is edited to say so
(:meth:`DirectMessages.close_turn_dms`: no new DM; one this process sent is edited from what it sent, without reading
it from Discord first). At game over each player gets one DM with their result
(:meth:`DirectMessages.send_game_over`). A DM that cannot be delivered (the user does not accept DMs) is announced
once per game in the channel with a mention (a post the host owes); the player then uses ``/santacruz status`` (or
*My cards*), whose ephemeral answer (:meth:`DirectMessages.show_hand`) carries the same controls. A turn DM of a game
with a web page carries *Open your view*: the player's own view of it, behind a link signed for them.
A DM that fails for a passing reason (5xx, timeout) raises, so that the outbox dispatcher tries it again.
When the bot lacks a permission in a game's channel, the host owes the game's opener a DM saying so, once per game
(:meth:`DirectMessages.tell_missing_permission`; the outbox sends it like any notice).
"""

from __future__ import annotations

import contextlib
import logging
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import discord

from bot.adapter import dm_layout
from bot.adapter.compose import Composed, compose_hand
from bot.adapter.emojis import NO_EMOJIS, Emojis
from bot.adapter.sending import TRANSIENT_ERRORS, Attachments, files, message_options, reply, reply_layout
from bot.adapter.words.common import MESSAGE_MAX, channel_link, clip, message_link
from bot.adapter.words.dm import game_over_text, held_text, turn_over_text
from bot.adapter.words.moves import split_question
from bot.adapter.words.notices import notice_text
from bot.host.deliveries import Delivery
from bot.host.errors import HostError, StorageFailed
from bot.host.host import Host
from bot.host.outbox import SendDm, SendGameOver, SendGathered, SendNotice, SendTurnOver, Skip, Step
from bot.host.pictures import Pictures
from bot.host.priority import cosmetic
from bot.host.table import TableInfo
from i18n import normalize_locale, t

log = logging.getLogger(__name__)

MOVE_WAIT = 2.0
"""Seconds a turn DM just sent waits for a move under way in this process before it takes the controls off the
player's older DMs of the turn (the move's answer may be putting the next controls on one of them)."""


@dataclass(frozen=True, slots=True)
class HandDm:
    """A player's hand DM as it would go out now: its game as it is, and the DM composed (its V2 panel, its words as
    Discord shows them, its picture; ``hand.controls``: it carries the turn's controls)."""

    info: TableInfo
    hand: Composed


@dataclass(frozen=True, slots=True)
class Sent:
    """What a DM delivery came to: why it was not sent (a skip's reason), the message with a turn's controls it went
    out as, the turn DMs (their deliveries) it told that their turn passed."""

    reason: str | None = None
    turn_message: int | None = None
    closed: tuple[int, ...] = ()


class DirectMessages:
    """Everything the bot sends one player alone, and the languages and DM channels it remembers for that."""

    def __init__(self, client: discord.Client, host: Host, pictures: Pictures, emojis: Emojis = NO_EMOJIS) -> None:
        self.client = client
        self.host = host
        self.pictures = pictures
        self.emojis = emojis
        """The application's emojis beside the words of a hand and its controls."""
        self._locales: dict[int, str] = {}
        """User id -> the language of their last interaction (for DMs they did not ask for)."""
        self._dm_channels: dict[int, int] = {}
        self._turn_dms: OrderedDict[int, dm_layout.Panel] = OrderedDict()
        """Message id -> a turn DM as this process sent it (what its edit once its turn passed keeps: its pictures and
        colour), until that edit, for as many turns as the games a process holds in memory (``GAMES_IN_MEMORY``): a
        DM left out, sent by another process or before a restart, is read from Discord first."""

    async def locale(self, interaction: discord.Interaction) -> str:
        """The user's language (remembered for the DMs they will get later, by the host too)."""
        user_id = interaction.user.id
        locale = normalize_locale(interaction.locale)
        self._locales[user_id] = locale
        try:
            await self.host.people.remember_locale(user_id, locale)  # writes only when it changed
        except Exception:  # the language is a nicety: never fail the interaction for it
            log.warning("could not store the language of a user", exc_info=True)
        return locale

    def locale_of(self, user_id: int, default: str) -> str:
        """The language of the user's DMs: their last interaction's (since start-up, else as the host
        stored it), else ``default`` (the game's)."""
        return self._locales.get(user_id) or self.host.people.locale_of(user_id) or default

    async def _dm_channel(self, user_id: int) -> discord.abc.Messageable:
        """The user's DM channel: known since the start, else as stored (by any process, before any restart), else
        opened with Discord (one request) and stored."""
        known = self._dm_channels.get(user_id)
        if known is None:
            try:
                known = await self.host.people.dm_channel(user_id)
            except Exception:  # a nicety: Discord tells it again
                log.warning("could not read the DM channel of a user", exc_info=True)
        if known is not None:
            self._dm_channels[user_id] = known
            return self.client.get_partial_messageable(known, type=discord.ChannelType.private)
        channel = await self.client.create_dm(discord.Object(user_id))
        self._dm_channels[user_id] = channel.id
        try:
            await self.host.people.remember_dm_channel(user_id, channel.id)
        except Exception:
            log.warning("could not store the DM channel of a user", exc_info=True)
        return channel

    async def _dm_message(self, user_id: int, message_id: int) -> discord.PartialMessage:
        """A DM the bot sent the user, to edit (no request made until then, beyond opening the DM channel)."""
        await self._dm_channel(user_id)
        channel = self.client.get_partial_messageable(self._dm_channels[user_id], type=discord.ChannelType.private)
        return channel.get_partial_message(message_id)

    async def _dm(self, user_id: int, content: str, *, pictures: Attachments = (),
                  view: discord.ui.View | discord.ui.LayoutView | None = None,
                  nonce: str | None = None) -> discord.Message:
        """A DM (words, or with a V2 ``view`` no words: its layout holds them); raises :class:`discord.Forbidden`
        when the user does not accept DMs from the bot. ``nonce`` (a delivery's): sent again, Discord answers with
        the DM already made instead of a second one."""
        channel = await self._dm_channel(user_id)
        options = message_options(pictures, view, nonce=nonce)
        if isinstance(view, discord.ui.LayoutView):
            return await channel.send(**options)
        return await channel.send(clip(content, MESSAGE_MAX), **options)

    async def _dm_player(self, info: TableInfo, user_id: int, content: str, *, pictures: Attachments = (),
                         view: discord.ui.View | discord.ui.LayoutView | None = None,
                         nonce: str | None = None) -> discord.Message | None:
        """A DM to a seated player; if it cannot be delivered the host owes the channel a post that says so.

        A passing failure (:data:`TRANSIENT_ERRORS`) is raised for the caller to try again."""
        try:
            message = await self._dm(user_id, content, pictures=pictures, view=view, nonce=nonce)
        except TRANSIENT_ERRORS:
            raise
        except discord.Forbidden:  # the host owes the channel a post that tells them, once per game
            try:
                await self.host.outbox.dm_failed(info.channel_id, user_id)
            except HostError as exc:
                log.warning("game %d: could not owe the channel a post about a DM refused (%s)", info.game_id, exc.key)
            return None
        except discord.HTTPException as exc:
            log.warning("game %d: could not DM a player (%s %s)", info.game_id, exc.status, exc.text)
            return None
        return message

    async def welcome(self, interaction: discord.Interaction, info: TableInfo, locale: str) -> None:
        """Check at once that the player can get their cards by DM, and tell them how to allow it if not. Within
        the player's quiet hours their quiet wins: no DM (Discord can only tell whether a DM goes through by sending
        one, which would ring), and the join's own answer, for them alone, says that their cards come by DM once
        the quiet hours end (a DM that fails then is said in the channel, as for everyone)."""
        quiet = self.host.people.quiet_until(interaction.user.id)
        if quiet is not None:
            await reply(interaction, t("bot.reply.welcome_quiet", locale, until=int(quiet)))
            return
        try:
            where = channel_link(info.channel_id)
            await self._dm(interaction.user.id, t("bot.dm.welcome", locale, channel=where))
        except discord.HTTPException:
            await reply(interaction, t("bot.reply.dm_blocked", locale))

    async def deliver(self, delivery: Delivery, step: Step, *, nonce: str, clicked: int | None = None) -> Sent:
        """A DM delivery as the host decided it (``step``): the hand as it is now (with the turn's controls), a
        notice, the DMs held for a player gathered into one, the edit of a passed turn's DMs (``clicked``: the one
        whose controls made the move, whose *Undo* stays), the result at game over; a skip is only recorded."""
        user_id = delivery.user_id
        assert user_id is not None
        if isinstance(step, Skip):
            return Sent(step.reason)
        if isinstance(step, SendNotice):
            await self.send_notice(step.info, user_id, delivery.payload, nonce=nonce)
        elif isinstance(step, SendDm):
            return Sent(turn_message=await self.send_hand(step.info, user_id, turn=step.turn, start=step.start,
                                                          reminder=step.reminder, nonce=nonce))
        elif isinstance(step, SendGathered):
            heading = self.gathered_words(user_id, step)
            if step.turn is None:
                await self.send_note(user_id, heading, nonce=nonce)
                return Sent()
            sent = await self.send_hand(step.turn, user_id, turn=True, heading=heading, nonce=nonce)
            return Sent(turn_message=sent if step.turn.game_id == delivery.game_id else None)
        elif isinstance(step, SendTurnOver):
            return Sent(closed=tuple(await self.close_turn_dms(step.info, user_id, delivery.payload,
                                                               clicked=clicked)))
        elif isinstance(step, SendGameOver):
            await self.send_game_over(step.info, user_id, nonce=nonce)
        return Sent()

    async def hand_dm(self, info: TableInfo, user_id: int, *, turn: bool, reminder: bool = False,
                      start: bool = False, heading: str = "", draw: bool = False) -> HandDm | None:
        """A player's own view by DM as it would go out now (:func:`bot.adapter.compose.compose_hand`, with the link
        to their own view on the web beside the turn's controls; its picture drawn with ``draw``), nothing sent;
        ``None`` when ``info``'s game is not running here any more."""
        current = self.host.games.info(info.channel_id)
        if current is None or current.game_id != info.game_id or current.status != "running":
            return None
        hand = await compose_hand(self.host, self.pictures if draw else None, current, user_id,
                                  self.locale_of(user_id, current.locale), controls=turn, reminder=reminder,
                                  start=start, heading=heading, waiting=True, own_view=True, emojis=self.emojis)
        return HandDm(current, hand)

    async def send_hand(self, info: TableInfo, user_id: int, *, turn: bool, reminder: bool = False,
                        start: bool = False, heading: str = "", nonce: str | None = None) -> int | None:
        """DM a player their own view (:func:`bot.adapter.compose.compose_hand`): what happened since their last
        move, hand, bird chips, personal picture, and on their turn the controls and how many other games wait for
        them. ``heading`` goes above (the DM that ends quiet hours). Returns the message id of a DM that carries the
        turn's controls (the host records it)."""
        found = await self.hand_dm(info, user_id, turn=turn, reminder=reminder, start=start, heading=heading,
                                   draw=True)
        if found is None:
            return None
        current, hand, seq = found.info, found.hand, found.info.seq
        assert hand.layout is not None
        message = await self._dm_player(current, user_id, "", pictures=hand.pictures, view=hand.layout(hand.drawn),
                                        nonce=nonce)
        if message is None or not hand.controls:
            return None
        self._sent_turn_dm(message)
        if await self._moved_since(current, seq):
            # the player moved meanwhile with an older DM's controls, whose answer carries the next ones: this DM's
            # controls are outdated, and the older DM's must stay
            sent = dm_layout.read(message)
            with contextlib.suppress(discord.NotFound, discord.Forbidden), cosmetic():
                await message.edit(view=dm_layout.layout(sent) if sent is not None else None)
            return message.id
        await self.strip_turn_dm(current.game_id, user_id, keep=message.id)  # a newer DM of the turn came
        return message.id

    def _sent_turn_dm(self, message: discord.Message) -> None:
        """Remember the turn DM ``message`` as Discord answered its sending (:attr:`_turn_dms`)."""
        sent = dm_layout.read(message)
        if sent is None:
            return
        self._turn_dms[message.id] = dm_layout.Panel((), sent.pictures, sent.colour)
        while len(self._turn_dms) > self.host.settings.games_in_memory:
            self._turn_dms.popitem(last=False)

    async def _moved_since(self, info: TableInfo, seq: int) -> bool:
        """Whether the game is past position ``seq`` now, as the database has it (a move made in another process
        counts; one under way in this one is waited for briefly); when the database cannot say, it has."""
        try:
            now = await self.host.refresh.channel(info.channel_id, wait=MOVE_WAIT)
        except StorageFailed:
            return True
        return now is None or now.game_id != info.game_id or now.seq != seq

    async def send_note(self, user_id: int, content: str, *, nonce: str | None = None) -> bool:
        """A DM of words alone (e.g. what waited during quiet hours); whether it went out. A passing failure
        (:data:`TRANSIENT_ERRORS`) is raised for the caller to try again."""
        try:
            await self._dm(user_id, content, nonce=nonce)
        except TRANSIENT_ERRORS:
            raise
        except discord.HTTPException as exc:
            log.warning("could not DM a player a note (%s)", exc.status)
            return False
        return True

    async def tell_missing_permission(self, info: TableInfo, permission: str) -> None:
        """The bot lacks ``permission`` in the game's channel (``attach_files``: posts go without pictures;
        ``send_messages``: the game goes on by DM only): the host owes the opener a DM saying so, once per game
        (:meth:`bot.host.outbox.Outbox.missing_permission`). A refusal to record it costs only that DM."""
        try:
            await self.host.outbox.missing_permission(info.channel_id, permission)
        except HostError as exc:
            log.warning("game %d: could not owe the opener a DM about a missing permission (%s)", info.game_id,
                        exc.key)

    async def send_notice(self, info: TableInfo, user_id: int, payload: dict[str, Any], *,
                          nonce: str | None = None) -> None:
        """A notice the host owes a player by DM (a deadline's warning), in the player's language."""
        await self._dm_player(info, user_id, self.notice_words(info, user_id, payload), nonce=nonce)

    def notice_words(self, info: TableInfo, user_id: int, payload: dict[str, Any]) -> str:
        """The words of a notice DM (:meth:`send_notice`)."""
        locale = self.locale_of(user_id, str(payload.get("locale", info.locale)))
        return clip(notice_text(payload, locale), MESSAGE_MAX)

    def gathered_words(self, user_id: int, step: SendGathered) -> str:
        """The words of the one DM that gathers a person's held DMs when none of them is a turn still standing."""
        return clip(held_text(step.waiting, step.changed, self.locale_of(user_id, step.locale)), MESSAGE_MAX)

    async def strip_turn_dm(self, game_id: int, user_id: int, *, keep: int | None = None) -> None:
        """Take the controls off a player's turn DMs of the game (a newer one came, or the computer plays their
        seat now) but ``keep``; their words stay until the turn has passed (:meth:`close_turn_dms`).

        A newer DM (``keep``: a reminder, say) leaves alone a DM that shows a question asked in place: the player
        is answering it right now, and its *Play it* still plays their move (once the turn has passed, that DM is
        told so like the others)."""
        for _, message_id in await self.host.outbox.open_turn_dms(game_id, user_id):
            if message_id == keep:
                continue
            message = await self._dm_message(user_id, message_id)
            with contextlib.suppress(discord.NotFound, discord.Forbidden), cosmetic():
                found = await message.fetch()
                dm = dm_layout.read(found)
                if dm is None:  # a DM of words (sent before the turn DMs were V2 layouts)
                    if keep is None or not split_question(found.content)[1]:
                        await message.edit(view=None)
                elif keep is None or not dm.asked:
                    await message.edit(view=dm_layout.layout(dm))

    async def close_turn_dms(self, info: TableInfo, user_id: int, payload: dict[str, Any], *,
                             clicked: int | None = None) -> list[int]:
        """A player's turn has passed: each of their DMs still showing that turn is edited to say how it passed (no
        new DM), in place of its words (its picture stays), its controls taken off, except those of ``clicked``,
        the DM whose controls made the move (its *Undo* stays). Returns the deliveries of the DMs told (a passing
        failure raises, to be tried again)."""
        told: list[int] = []
        opened = await self.host.outbox.open_turn_dms(info.game_id, user_id)
        if not opened:
            return told
        text = turn_over_text(info, payload, self.locale_of(user_id, info.locale))
        for delivery_id, message_id in opened:
            message = await self._dm_message(user_id, message_id)
            sent = self._turn_dms.pop(message_id, None)
            try:
                with cosmetic():  # what a turn DM says once its turn passed: posts and new DMs go first
                    if sent is not None and message_id != clicked:  # as this process sent it: not read again
                        await message.edit(view=dm_layout.turn_over_layout(sent, text))
                    else:
                        await self._close_as_found(message, text, clicked=message_id == clicked)
            except TRANSIENT_ERRORS:
                if sent is not None:
                    self._turn_dms[message_id] = sent
                raise
            except discord.HTTPException as exc:  # deleted, or DMs closed since: nothing left to say it in
                log.info("game %d: could not edit a passed turn's DM (%s %s)", info.game_id, exc.status, exc.code)
            told.append(delivery_id)
        return told

    @staticmethod
    async def _close_as_found(message: discord.PartialMessage, text: str, *, clicked: bool) -> None:
        """A passed turn's DM read from Discord first, edited to say ``text`` (:meth:`close_turn_dms`); ``clicked``:
        the DM whose controls made the move keeps its rows (its *Undo*)."""
        found = await message.fetch()
        dm = dm_layout.read(found)
        if dm is None:  # a DM of words (sent before the turn DMs were V2 layouts)
            words = clip(text, MESSAGE_MAX)
            await (message.edit(content=words) if clicked else message.edit(content=words, view=None))
        else:
            await message.edit(view=dm_layout.turn_over_layout(dm, text, dm_layout.kept_rows(found) if clicked else []))

    async def send_game_over(self, info: TableInfo, user_id: int, *, nonce: str | None = None) -> None:
        """The one DM a player gets at game over: their place and score, broken down, against the winner's, and
        the link to the game-over post."""
        text = await self.game_over_words(info, user_id)
        if text is not None:
            await self._dm_player(info, user_id, text, nonce=nonce)

    async def game_over_words(self, info: TableInfo, user_id: int) -> str | None:
        """The words of a player's game-over DM (:meth:`send_game_over`); ``None`` for someone not seated."""
        game = await self.host.archive.past_game(info.guild_id, info.game_id)
        seat = next((s.seat for s in info.seats if s.user_id == user_id), None)
        if seat is None or game.view is None:
            return None
        link = (message_link(info.guild_id, info.channel_id, game.over_message_id)
                if game.over_message_id is not None else None)
        return clip(game_over_text(game, seat, self.locale_of(user_id, info.locale), link), MESSAGE_MAX)

    async def dm_channel_id(self, user_id: int) -> int:
        """The id of the bot's DM channel with the user (opened if this process has not yet)."""
        await self._dm_channel(user_id)
        return self._dm_channels[user_id]

    async def show_hand(self, interaction: discord.Interaction, channel_id: int, *, heading: str = "") -> None:
        """The user's own cards, chips and personal picture, with the move controls on their turn (ephemeral, the
        layout of a turn DM); ``heading`` (the game's status) goes above."""
        locale = await self.locale(interaction)
        if self.host.games.seat_of(channel_id, interaction.user.id) is None:
            raise HostError("host.error.not_seated")
        info = self.host.games.info(channel_id)
        assert info is not None
        self.host.games.started(channel_id)  # a game with no board yet (a lobby) is refused before the answer
        await interaction.response.defer(ephemeral=True, thinking=True)
        hand = await compose_hand(self.host, self.pictures, info, interaction.user.id, locale, asked=True,
                                  controls=info.status == "running", heading=heading, emojis=self.emojis,
                                  deadline=not heading)  # the game's status above says when the turn runs out
        assert hand.layout is not None
        await reply_layout(interaction, hand.layout(hand.drawn), files=files(*hand.pictures))
