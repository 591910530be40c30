"""The ``/santacruz`` commands, the clicks on the bot's buttons, and the messages that follow moves.

Every handler parses Discord input, asks the host (``bot.host``), and turns its answer into messages;
the host makes every decision (seated? your turn? legal? stale button? same interaction twice?). What
goes where:

* **channel** (the game's language): the lobby message, ONE message per move (events in words, the
  public board picture, a mention of the player to move), seat changes, game over with the ranking;
* **DM** (the player's own language): the player's hand, bird chips and personal picture whenever they
  change, and, on their turn, controls for every legal move;
* **ephemeral replies** (the user's language): acknowledgements and refusals.

Slow work never blocks an acknowledgement: move commands ``defer()`` first, pictures are rendered off the
event loop (in a thread, or in the worker processes ``santacruz-bot`` gives the bot), computer moves come
from :meth:`Host.run_computers` (whose players run in an executor) in a task per channel, and everything a
move sends (channel post, then DMs) runs in a per-channel queue, so the messages of one channel keep the
order of the moves while other channels carry on.

A DM that cannot be delivered (the user does not accept DMs) is announced once per game in the channel
with a mention; the player then uses ``/santacruz hand``, whose ephemeral answer carries the same move
controls as the DM. After a restart, a recently played game whose last position was never posted (the
bot stopped between storing a move and posting it) gets that post and its player to move their DM.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

import discord
from discord import app_commands
from discord.app_commands import Choice, Range
from discord.ext import commands, tasks

import render
from bot import texts
from bot.host import Host, HostError
from bot.table import MoveResult, SeatChange, StartResult, TableInfo
from bot.translator import locale_text
from bot.views import abandon_view, confirm_view, controls_view, lobby_view, post_view, shows_position
from engine import BUILDING_CARDS, SCORING_CARD_IDS, IllegalMove, parse_move
from i18n import LOCALES, RULE_TOPICS, describe_move, normalize_locale, t

if TYPE_CHECKING:
    from bot.client import SantaCruzBot

log = logging.getLogger(__name__)

ALLOWED_MENTIONS: Final = discord.AllowedMentions(users=True, roles=False, everyone=False, replied_user=False)
"""Only ever ping users (the player to move, a player whose DMs are closed)."""
SHUTDOWN_GRACE: Final = 5.0
"""Seconds the queued channel posts and DMs get to go out when the bot closes."""
RENDER_CACHE_SIZE: Final = 64
SINGLE_CARDS: Final = ("ship", "river", "road")
RECOVER_WINDOW: Final = 3600.0
"""At start-up, games moved within this many seconds are checked for a move whose post was lost."""
RECOVER_HISTORY: Final = 10


class Refusal(Exception):
    """A refusal of the bot itself (not the host's): a ``bot.error.*`` key and its values."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params

    def text(self, locale: str) -> str:
        return t(self.key, locale, **self.params)


def _cmd(name: str) -> app_commands.locale_str:
    return locale_text(f"commands.{name}.description")


def _opt(command: str, option: str) -> app_commands.locale_str:
    return locale_text(f"commands.{command}.option.{option}")


def _choice(key: str, value: str) -> Choice[str]:
    return Choice(name=locale_text(key), value=value)


CARD_CHOICES: Final = [_choice(f"game.card.{c}.one", c) for c in BUILDING_CARDS]
KIND_CHOICES: Final = [_choice(f"game.card.{c}.short", c) for c in SINGLE_CARDS]
STRENGTH_CHOICES: Final = [_choice(f"commands.choice.strength.{s}", s) for s in ("random", "greedy", "expert")]
LANGUAGE_CHOICES: Final = [Choice(name=texts.LANGUAGE_NAMES[lang], value=lang) for lang in LOCALES]
TOPIC_CHOICES: Final = [_choice(f"rules.{topic}.title", topic) for topic in RULE_TOPICS]


def render_picture(view: dict[str, Any], locale: str, personal: bool, game_over: bool) -> bytes:
    """A picture of ``view`` (a module-level function, so that a process pool can run it)."""
    if game_over:
        return render.render_game_over(view, locale=locale)
    return render.render_board(view, locale=locale, personal=personal)


class Outbox:
    """The messages of one channel, sent one job at a time in the order they were queued."""

    def __init__(self, channel_id: int) -> None:
        self.channel_id = channel_id
        self._jobs: deque[Callable[[], Awaitable[None]]] = deque()
        self.task: asyncio.Task[None] | None = None

    def put(self, job: Callable[[], Awaitable[None]]) -> None:
        self._jobs.append(job)
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._run(), name=f"santacruz-outbox-{self.channel_id}")

    async def _run(self) -> None:
        while self._jobs:
            job = self._jobs.popleft()
            try:
                await job()
            except Exception:
                log.exception("channel %d: sending after a move failed", self.channel_id)


class SantaCruzCog(commands.GroupCog, name="SantaCruz", group_name="santacruz",
                   group_description=_cmd("santacruz")):
    """``/santacruz …``: thin commands over the host, plus the component callbacks and the post-move messages."""

    def __init__(self, bot: SantaCruzBot) -> None:
        self.bot = bot
        self._outboxes: dict[int, Outbox] = {}
        self._computers: dict[int, asyncio.Task[None]] = {}
        self._computers_again: set[int] = set()
        self._locales: dict[int, str] = {}
        """User id -> the language of their last interaction (for DMs they did not ask for)."""
        self._dm_channels: dict[int, int] = {}
        self._dm_blocked: set[tuple[int, int]] = set()
        """(game id, user id) whose last DM failed: the channel was told once."""
        self._turn_dms: dict[tuple[int, int], tuple[int, int]] = {}
        """(game id, user id) -> (DM channel id, message id) of the DM carrying their move controls."""
        self._lobby_messages: dict[int, tuple[int, int]] = {}
        """Game id -> (channel id, message id) of its lobby message, to keep it up to date."""
        self._renders: OrderedDict[tuple[Any, ...], bytes] = OrderedDict()
        self.reminder_interval = 60.0

    @property
    def host(self) -> Host:
        host = self.bot.host
        assert host is not None, "the host is opened in setup_hook"
        return host

    # ------------------------------------------------------------------ life cycle

    async def cog_load(self) -> None:
        self.reminder_loop.change_interval(seconds=self.reminder_interval)
        self.reminder_loop.start()
        now = time.time()
        for info in self.bot.loaded_games:
            if info.status != "running":
                continue
            if info.last_move_at is not None and now - info.last_move_at < RECOVER_WINDOW:
                self._outbox(info.channel_id).put(functools.partial(self._recover, info))
            if info.to_move is not None:
                seat = info.seats[info.to_move]
                if seat.is_computer or seat.away:
                    self._start_computers(info.channel_id)

    async def cog_unload(self) -> None:
        self.reminder_loop.cancel()

    async def shutdown(self, grace: float = SHUTDOWN_GRACE) -> None:
        """Stop the computer players, give queued messages ``grace`` seconds, then cancel what is left."""
        self.reminder_loop.cancel()
        tasks_ = [task for task in self._computers.values() if not task.done()]
        for task in tasks_:
            task.cancel()
        pending = [box.task for box in self._outboxes.values() if box.task is not None and not box.task.done()]
        if pending:
            _, still = await asyncio.wait(pending, timeout=grace)
            for task in still:
                task.cancel()
            tasks_ += list(still)
        if tasks_:
            await asyncio.wait(tasks_, timeout=grace)

    # ------------------------------------------------------------------ small helpers

    def _locale(self, interaction: discord.Interaction) -> str:
        """The user's language (remembered for the DMs they will get later)."""
        locale = normalize_locale(interaction.locale)
        self._locales[interaction.user.id] = locale
        return locale

    def _user_locale(self, user_id: int, fallback: str) -> str:
        return self._locales.get(user_id, fallback)

    @staticmethod
    def _can_manage(interaction: discord.Interaction) -> bool:
        return interaction.guild_id is not None and interaction.permissions.manage_channels

    @staticmethod
    def _guild_only(interaction: discord.Interaction) -> int:
        if interaction.guild_id is None or interaction.channel_id is None:
            raise Refusal("bot.error.guild_only")
        return interaction.channel_id

    def _channel_for(self, interaction: discord.Interaction) -> int:
        """The game's channel: this channel, or in a DM the one running game the user plays in."""
        if interaction.guild_id is not None and interaction.channel_id is not None:
            return interaction.channel_id
        games = self.host.games_of(interaction.user.id)
        if len(games) == 1:
            return int(games[0].channel_id)
        if not games:
            raise Refusal("bot.error.dm_no_game")
        raise Refusal("bot.error.dm_many_games",
                      channels=", ".join(texts.channel_link(g.channel_id) for g in games))

    def _new_game_locale(self, interaction: discord.Interaction, language: str | None) -> str:
        if language:
            return language
        guild_locale = interaction.guild_locale
        if guild_locale is not None:
            lang = str(guild_locale.value).split("-", 1)[0].lower()
            if lang in LOCALES:
                return lang
        return str(self.bot.settings.default_locale)

    def _game(self, game_id: int) -> TableInfo:
        info = self.host.find_game(game_id)
        if info is None:
            raise HostError("host.error.stale")
        return info

    def _current(self, game_id: int) -> TableInfo:
        """The game of a lobby button, refused if the channel has moved on to another game."""
        info = self._game(game_id)
        current = self.host.info(info.channel_id)
        if current is None or current.game_id != game_id:
            raise HostError("host.error.stale")
        return current

    def _outbox(self, channel_id: int) -> Outbox:
        box = self._outboxes.get(channel_id)
        if box is None:
            box = self._outboxes[channel_id] = Outbox(channel_id)
        return box

    async def _reply(self, interaction: discord.Interaction, content: str, **kwargs: Any) -> None:
        """An ephemeral answer, whether or not the interaction was acknowledged already."""
        kwargs.setdefault("allowed_mentions", ALLOWED_MENTIONS)
        if interaction.response.is_done():
            await interaction.followup.send(texts.clip(content, texts.MESSAGE_MAX), ephemeral=True, **kwargs)
        else:
            await interaction.response.send_message(texts.clip(content, texts.MESSAGE_MAX), ephemeral=True, **kwargs)

    # ------------------------------------------------------------------ pictures

    async def _png(self, view: dict[str, Any], locale: str, *, key: tuple[Any, ...] | None = None,
                   personal: bool = False, game_over: bool = False) -> bytes | None:
        """A picture of ``view``, rendered in a thread (cached by ``key``); ``None`` if rendering failed."""
        cache_key = (*key, locale, personal, game_over) if key is not None else None
        if cache_key is not None and cache_key in self._renders:
            self._renders.move_to_end(cache_key)
            return self._renders[cache_key]
        try:
            png = await self._render_off_loop(view, locale, personal=personal, game_over=game_over)
        except Exception:
            log.exception("rendering a picture failed; sending the words alone")
            return None
        if cache_key is not None:
            self._renders[cache_key] = png
            while len(self._renders) > RENDER_CACHE_SIZE:
                self._renders.popitem(last=False)
        return png

    async def _render_off_loop(self, view: dict[str, Any], locale: str, *, personal: bool,
                               game_over: bool) -> bytes:
        """Render in the bot's render executor (a process pool in production), else in a thread."""
        executor = self.bot.render_executor
        if executor is None:
            if game_over:
                return await asyncio.to_thread(render.render_game_over, view, locale=locale)
            return await asyncio.to_thread(render.render_board, view, locale=locale, personal=personal)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(executor, render_picture, view, locale, personal, game_over)

    @staticmethod
    def _files(*pictures: tuple[bytes | None, str]) -> list[discord.File]:
        return [discord.File(io.BytesIO(png), filename=name) for png, name in pictures if png is not None]

    # ------------------------------------------------------------------ sending

    async def _post(self, channel_id: int, content: str, *, pictures: Sequence[tuple[bytes | None, str]] = (),
                    view: discord.ui.View | None = None) -> discord.Message | None:
        """A message in a game's channel; a failure is logged, never raised (the game goes on)."""
        channel = self.bot.get_partial_messageable(channel_id)
        kwargs: dict[str, Any] = {"allowed_mentions": ALLOWED_MENTIONS, "files": self._files(*pictures)}
        if view is not None:
            kwargs["view"] = view
        try:
            return await channel.send(texts.clip(content, texts.MESSAGE_MAX), **kwargs)
        except discord.HTTPException as exc:
            log.warning("channel %d: could not post (%s %s)", channel_id, exc.status, exc.text)
            return None

    async def _dm_channel(self, user_id: int) -> discord.abc.Messageable:
        known = self._dm_channels.get(user_id)
        if known is not None:
            return self.bot.get_partial_messageable(known, type=discord.ChannelType.private)
        user = self.bot.get_user(user_id) or await self.bot.fetch_user(user_id)
        channel = user.dm_channel or await user.create_dm()
        self._dm_channels[user_id] = channel.id
        return channel

    async def _dm(self, user_id: int, content: str, *, pictures: Sequence[tuple[bytes | None, str]] = (),
                  view: discord.ui.View | None = None) -> discord.Message:
        """A DM; raises :class:`discord.Forbidden` when the user does not accept DMs from the bot."""
        channel = await self._dm_channel(user_id)
        kwargs: dict[str, Any] = {"allowed_mentions": ALLOWED_MENTIONS, "files": self._files(*pictures)}
        if view is not None:
            kwargs["view"] = view
        return await channel.send(texts.clip(content, texts.MESSAGE_MAX), **kwargs)

    async def _dm_player(self, info: TableInfo, user_id: int, content: str, *,
                         pictures: Sequence[tuple[bytes | None, str]] = (),
                         view: discord.ui.View | None = None) -> discord.Message | None:
        """A DM to a seated player; if it cannot be delivered the channel says so (once) with a mention."""
        try:
            message = await self._dm(user_id, content, pictures=pictures, view=view)
        except discord.Forbidden:
            if (info.game_id, user_id) not in self._dm_blocked:
                self._dm_blocked.add((info.game_id, user_id))
                await self._post(info.channel_id, t("bot.post.dm_failed", info.locale,
                                                    mention=texts.mention(user_id)))
            return None
        except discord.HTTPException as exc:
            log.warning("game %d: could not DM a player (%s %s)", info.game_id, exc.status, exc.text)
            return None
        self._dm_blocked.discard((info.game_id, user_id))
        return message

    async def _welcome(self, interaction: discord.Interaction, info: TableInfo, locale: str) -> None:
        """Check at once that the player can get their cards by DM, and tell them how to allow it if not."""
        try:
            where = texts.channel_link(info.channel_id)
            await self._dm(interaction.user.id, t("bot.dm.welcome", locale, channel=where))
        except discord.HTTPException:
            await self._reply(interaction, t("bot.reply.dm_blocked", locale))

    async def _send_hand(self, info: TableInfo, user_id: int, *, turn: bool, reminder: bool = False,
                         start: bool = False) -> None:
        """DM a player their own view: hand, bird chips, personal picture, and on their turn the controls."""
        current = self.host.info(info.channel_id)
        if current is None or current.game_id != info.game_id or current.status != "running":
            return
        view = self.host.view_for(current.channel_id, user_id)
        seq = current.seq
        locale = self._user_locale(user_id, current.locale)
        controls = controls_view(current.game_id, seq, view, locale) if turn else None
        png = await self._png(view, locale, key=(current.game_id, seq, user_id), personal=True)
        content = texts.dm_text(current, view, locale, turn=turn and controls is not None, reminder=reminder,
                                start=start)
        message = await self._dm_player(current, user_id, content, pictures=[(png, "hand.png")], view=controls)
        if message is not None and controls is not None:
            await self._strip_turn_dm(current.game_id, user_id)
            self._turn_dms[(current.game_id, user_id)] = (message.channel.id, message.id)

    async def _strip_turn_dm(self, game_id: int, user_id: int, *, keep: int | None = None) -> None:
        """Take the controls off a player's previous turn DM (they moved, or a newer one came)."""
        known = self._turn_dms.pop((game_id, user_id), None)
        if known is None or known[1] == keep:
            return
        channel = self.bot.get_partial_messageable(known[0], type=discord.ChannelType.private)
        with contextlib.suppress(discord.HTTPException):
            await channel.get_partial_message(known[1]).edit(view=None)

    async def _update_lobby(self, info: TableInfo) -> None:
        known = self._lobby_messages.get(info.game_id)
        if known is None:
            return
        if info.status != "lobby":
            self._lobby_messages.pop(info.game_id, None)
        channel = self.bot.get_partial_messageable(known[0])
        try:
            await channel.get_partial_message(known[1]).edit(
                content=texts.lobby_text(info, info.locale), view=lobby_view(info, info.locale),
                allowed_mentions=ALLOWED_MENTIONS)
        except discord.HTTPException as exc:
            log.warning("game %d: could not update the lobby message (%s)", info.game_id, exc.status)

    # ------------------------------------------------------------------ after the host answered

    def _after_move(self, result: MoveResult, *, clicked: int | None = None) -> None:
        """Queue the channel post and DMs of a stored move; let the computers play if it is their turn.

        Synchronous on purpose: called right after the host answers, so posts keep the moves' order.
        """
        self._outbox(result.channel_id).put(lambda: self._publish_move(result, clicked=clicked))
        if result.computer_to_move:
            self._start_computers(result.channel_id)

    def _start_computers(self, channel_id: int) -> None:
        task = self._computers.get(channel_id)
        if task is not None and not task.done():
            self._computers_again.add(channel_id)
            return
        self._computers[channel_id] = asyncio.create_task(self._run_computers(channel_id),
                                                          name=f"santacruz-computers-{channel_id}")

    async def _run_computers(self, channel_id: int) -> None:
        """Post each computer move as it comes (the host chooses them off the event loop)."""
        try:
            while True:
                self._computers_again.discard(channel_id)
                async for result in self.host.run_computers(channel_id):
                    self._after_move(result)
                if channel_id not in self._computers_again:
                    return
        except Exception:
            log.exception("channel %d: the computer players stopped", channel_id)

    async def _publish_move(self, result: MoveResult, *, clicked: int | None = None) -> None:
        locale = result.locale
        board = await self._png(result.view, locale, key=(result.game_id, result.seq, None))
        pictures: list[tuple[bytes | None, str]] = [(board, "board.png")]
        if result.game_over:
            pictures.append((await self._png(result.view, locale, game_over=True), "game-over.png"))
        await self._post(result.channel_id, texts.move_post(result, locale), pictures=pictures,
                         view=post_view(result.game_id, result.seq, locale, game_over=result.game_over))
        if result.user_id is not None:
            await self._strip_turn_dm(result.game_id, result.user_id, keep=clicked)
        if result.game_over:
            return
        info = self.host.info(result.channel_id)
        if info is None or info.game_id != result.game_id:
            return
        for user_id in result.dm_user_ids:
            if user_id != result.to_move_user_id:
                await self._send_hand(info, user_id, turn=False)
        if result.to_move_user_id is not None and info.seq == result.seq:
            await self._send_hand(info, result.to_move_user_id, turn=True)
        elif result.to_move_user_id is not None and result.to_move_user_id in result.dm_user_ids:
            await self._send_hand(info, result.to_move_user_id, turn=False)

    async def _recover(self, info: TableInfo) -> None:
        """After a restart: if the last position of a recently played game was never posted (the bot
        stopped between storing a move and posting it), post it now and send the player to move their DM."""
        current = self.host.info(info.channel_id)
        if current is None or current.game_id != info.game_id or current.seq != info.seq:
            return  # the game moved on since start-up: that move's post shows the position
        channel = self.bot.get_partial_messageable(info.channel_id)
        try:
            async for message in channel.history(limit=RECOVER_HISTORY):
                if shows_position(message, info.game_id, info.seq):
                    return
        except discord.HTTPException as exc:
            log.warning("game %d: cannot read the channel to check the last post (%s)", info.game_id, exc.status)
            return
        log.info("game %d: position %d was not posted before the restart; posting it", info.game_id, info.seq)
        view = self.host.public_view(info.channel_id)
        board = await self._png(view, info.locale, key=(info.game_id, info.seq, None))
        seat = info.seats[info.to_move] if info.to_move is not None else None
        user_id = seat.user_id if seat is not None and not seat.is_computer and not seat.away else None
        await self._post(info.channel_id, texts.recovered_post(view, info.locale, user_id=user_id,
                                                               name=seat.name if seat else None),
                         pictures=[(board, "board.png")], view=post_view(info.game_id, info.seq, info.locale))
        if user_id is not None:
            await self._send_hand(info, user_id, turn=True)

    async def _publish_start(self, start: StartResult) -> None:
        info = start.info
        board = await self._png(start.view, info.locale, key=(info.game_id, info.seq, None))
        await self._post(info.channel_id, texts.start_post(start, info.locale), pictures=[(board, "board.png")],
                         view=post_view(info.game_id, info.seq, info.locale))
        for user_id in start.dm_user_ids:
            await self._send_hand(info, user_id, turn=user_id == start.to_move_user_id, start=True)

    async def _publish_seat_change(self, change: SeatChange) -> None:
        info = change.info
        await self._post(info.channel_id, texts.seat_change_post(change, info.locale))
        if change.away:
            await self._strip_turn_dm(info.game_id, change.user_id)
        elif info.to_move == change.seat:
            await self._send_hand(info, change.user_id, turn=True)

    def _seat_changed(self, change: SeatChange) -> None:
        self._outbox(change.info.channel_id).put(lambda: self._publish_seat_change(change))
        if change.computer_to_move:
            self._start_computers(change.info.channel_id)

    # ------------------------------------------------------------------ errors

    async def cog_app_command_error(self, interaction: discord.Interaction,  # type: ignore[override]
                                    error: app_commands.AppCommandError) -> None:
        await self.handle_error(interaction, error)

    async def handle_error(self, interaction: discord.Interaction, error: Exception) -> None:
        """The one place refusals become short ephemeral replies; anything unexpected is logged."""
        original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        if self.bot.is_closed():
            log.info("the bot closed while handling an interaction: %r", original)
            return
        locale = self._locale(interaction)
        if isinstance(original, HostError):
            text = self._host_error_text(interaction, original, locale)
        elif isinstance(original, Refusal):
            text = original.text(locale)
        elif isinstance(original, (app_commands.CommandNotFound, app_commands.CommandSignatureMismatch)):
            text = t("bot.error.outdated", locale)
        elif isinstance(original, app_commands.TransformerError):
            text = t("bot.error.bad_value", locale, value=texts.esc(str(original.value)))
        elif isinstance(original, app_commands.CheckFailure):
            text = t("bot.error.not_allowed", locale)
        else:
            # name the command or the component, never the values chosen (a discard is secret)
            what = (interaction.command.qualified_name if interaction.command
                    else (interaction.data or {}).get("custom_id", "?"))
            log.error("unexpected error while handling %s", what, exc_info=original)
            text = t("bot.error.unexpected", locale)
        try:
            await self._reply(interaction, text)
        except discord.HTTPException as exc:
            log.warning("could not send an error reply (%s %s)", exc.status, exc.text)

    def _host_error_text(self, interaction: discord.Interaction, error: HostError, locale: str) -> str:
        if error.key != "host.error.illegal_move":
            return error.text(locale)
        try:
            channel_id = self._channel_for(interaction)
        except Refusal:
            return t("bot.error.illegal", locale, move=texts.esc(str(error.params.get("move", ""))))
        move = str(error.params.get("move", ""))
        try:
            return self._explain_illegal(channel_id, interaction.user.id, move, locale)
        except HostError:
            return t("bot.error.illegal", locale, move=texts.esc(move))

    def _explain_illegal(self, channel_id: int, user_id: int, move: str, locale: str) -> str:
        """Why a move is refused, in the user's words, and what they can do instead."""
        verb, _, arg = move.partition(" ")
        view = self.host.view_for(channel_id, user_id)
        legal: list[str] = self.host.legal_moves(channel_id, user_id)
        you = view.get("you")
        if you is not None and verb == "score" and arg not in you["scoring_cards"]:
            cards = (", ".join(texts.scoring_name(c, locale) for c in you["scoring_cards"])
                     or t("bot.hand.no_cards", locale))
            name = texts.scoring_name(arg, locale) if arg in SCORING_CARD_IDS else texts.esc(arg)
            return t("bot.error.no_scoring_card", locale, card=name, cards=cards)
        if you is not None and verb in BUILDING_CARDS and not view["players"][you["seat"]]["building_cards"][verb]:
            return t("bot.error.no_building_card", locale, card=t(f"game.card.{verb}.one", locale))
        if verb in texts.SITE_VERBS and arg:
            sites = [m.partition(" ")[2] for m in legal if m.partition(" ")[0] == verb and m.partition(" ")[2]]
            if sites:
                return t("bot.error.bad_site", locale, site=texts.esc(arg), sites=", ".join(sites))
        lines = [t("bot.error.illegal", locale, move=texts.esc(move))]
        if legal:
            lines.append(t("bot.error.possible", locale, moves=self._legal_summary(view, legal, locale)))
        return "\n".join(lines)

    @staticmethod
    def _legal_summary(view: dict[str, Any], legal: list[str], locale: str) -> str:
        groups: dict[str, list[str]] = {}
        for move in legal:
            verb, _, arg = move.partition(" ")
            if verb in texts.SITE_VERBS and arg:
                groups.setdefault(verb, []).append(arg)
            else:
                groups.setdefault(move, [])
        parts = []
        for key, sites in groups.items():
            if sites:
                label = (t(f"game.card.{key}.short", locale) if key in SINGLE_CARDS
                         else t(f"bot.verb.{key}", locale))
                parts.append(f"{label} → {', '.join(sites)}")
            else:
                parts.append(texts.move_label(view, key, locale))
        return texts.clip("; ".join(parts), 1500)

    # ------------------------------------------------------------------ moves (shared by commands and clicks)

    async def _play_command(self, interaction: discord.Interaction, moves: Sequence[str]) -> None:
        """Play ``moves`` (one, or a double move and its first build) for the user, answering ephemerally."""
        locale = self._locale(interaction)
        channel_id = self._channel_for(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        lines: list[str] = []
        for i, move in enumerate(moves):
            try:
                result = await self.host.play(channel_id, interaction.user.id, move,
                                              interaction_id=interaction.id if i == 0 else None)
            except HostError as exc:
                if not lines:
                    raise
                lines.append(self._host_error_text(interaction, exc, locale))
                break
            self._after_move(result)
            lines.append(texts.played_text(result.move, locale, texts.names_of(result.view), result.seat))
        await self._reply(interaction, "\n".join(lines))

    def _confirm_or_play(self, interaction: discord.Interaction, channel_id: int, move: str) -> bool:
        """Whether ``move`` must be confirmed first (a card that builds nothing, giving up a double move)."""
        legal = self.host.legal_moves(channel_id, interaction.user.id)
        return move in legal and texts.needs_confirmation(move, legal)

    async def _ask_confirmation(self, interaction: discord.Interaction, channel_id: int, move: str) -> None:
        locale = self._locale(interaction)
        info = self.host.info(channel_id)
        assert info is not None
        await self._reply(interaction, texts.confirm_question(move, locale),
                          view=confirm_view(info.game_id, info.seq, move, locale))

    async def on_move_component(self, interaction: discord.Interaction, game_id: int, seq: int, move: str, *,
                                confirmed: bool) -> None:
        """A move button or menu (in a DM, an ephemeral hand or a confirmation)."""
        try:
            locale = self._locale(interaction)
            info = self._game(game_id)
            legal = self.host.legal_moves(info.channel_id, interaction.user.id)
            if not confirmed and move in legal and texts.needs_confirmation(move, legal):
                await self._reply(interaction, texts.confirm_question(move, locale),
                                  view=confirm_view(game_id, seq, move, locale))
                return
            await interaction.response.defer()
            result = await self.host.play(info.channel_id, interaction.user.id, move, interaction_id=interaction.id,
                                          game_id=game_id, expected_seq=seq)
            message = interaction.message
            self._after_move(result, clicked=message.id if message is not None and not confirmed else None)
            played = texts.played_text(result.move, locale, texts.names_of(result.view), result.seat)
            if confirmed or message is None:
                await interaction.edit_original_response(content=played, view=None)
            else:
                content = texts.clip(f"{message.content}\n**{played}**", texts.MESSAGE_MAX)
                await interaction.edit_original_response(content=content, view=None)
        except Exception as exc:
            await self.handle_error(interaction, exc)

    # ------------------------------------------------------------------ lobby buttons and confirmations

    async def on_game_button(self, interaction: discord.Interaction, game_id: int, action: str) -> None:
        try:
            await getattr(self, f"_button_{action}")(interaction, game_id)
        except Exception as exc:
            await self.handle_error(interaction, exc)

    async def _button_join(self, interaction: discord.Interaction, game_id: int) -> None:
        locale = self._locale(interaction)
        current = self._current(game_id)
        info = await self.host.join(current.channel_id, interaction.user.id, interaction.user.display_name)
        await interaction.response.edit_message(content=texts.lobby_text(info, info.locale),
                                                view=lobby_view(info, info.locale), allowed_mentions=ALLOWED_MENTIONS)
        await self._welcome(interaction, info, locale)

    async def _button_leave(self, interaction: discord.Interaction, game_id: int) -> None:
        current = self._current(game_id)
        info = await self.host.leave(current.channel_id, interaction.user.id)
        await interaction.response.edit_message(content=texts.lobby_text(info, info.locale),
                                                view=lobby_view(info, info.locale), allowed_mentions=ALLOWED_MENTIONS)

    async def _button_addbot(self, interaction: discord.Interaction, game_id: int) -> None:
        current = self._current(game_id)
        info = await self.host.add_computer(current.channel_id, interaction.user.id,
                                            can_manage=self._can_manage(interaction))
        await interaction.response.edit_message(content=texts.lobby_text(info, info.locale),
                                                view=lobby_view(info, info.locale), allowed_mentions=ALLOWED_MENTIONS)

    async def _button_removebot(self, interaction: discord.Interaction, game_id: int) -> None:
        current = self._current(game_id)
        info = await self.host.remove_computer(current.channel_id, interaction.user.id,
                                               can_manage=self._can_manage(interaction))
        await interaction.response.edit_message(content=texts.lobby_text(info, info.locale),
                                                view=lobby_view(info, info.locale), allowed_mentions=ALLOWED_MENTIONS)

    async def _button_start(self, interaction: discord.Interaction, game_id: int) -> None:
        current = self._current(game_id)
        start = await self.host.start(current.channel_id, interaction.user.id, can_manage=self._can_manage(interaction))
        self._started(start)
        await interaction.response.edit_message(content=texts.lobby_text(start.info, start.info.locale), view=None,
                                                allowed_mentions=ALLOWED_MENTIONS)

    async def _button_abandon(self, interaction: discord.Interaction, game_id: int) -> None:
        locale = self._locale(interaction)
        current = self._current(game_id)
        info = await self.host.abandon(current.channel_id, interaction.user.id,
                                       can_manage=self._can_manage(interaction))
        await interaction.response.edit_message(content=t("bot.reply.abandoned", locale), view=None)
        self._abandoned(info, interaction.user.display_name)

    async def _button_cancel(self, interaction: discord.Interaction, game_id: int) -> None:
        await interaction.response.edit_message(content=t("bot.reply.cancelled", self._locale(interaction)), view=None)

    async def _button_rematch(self, interaction: discord.Interaction, game_id: int) -> None:
        """Under a game-over message (whose game the host may have forgotten after a restart)."""
        info = self.host.find_game(game_id)
        channel_id = info.channel_id if info is not None else self._guild_only(interaction)
        await self._rematch(interaction, channel_id)

    async def _button_hand(self, interaction: discord.Interaction, game_id: int) -> None:
        info = self._game(game_id)
        await self._show_hand(interaction, info.channel_id)

    # ------------------------------------------------------------------ shared by commands and buttons

    def _started(self, start: StartResult) -> None:
        info = start.info
        self._outbox(info.channel_id).put(lambda: self._publish_start(start))
        if info.game_id in self._lobby_messages:
            self._outbox(info.channel_id).put(lambda: self._update_lobby(info))
        if start.computer_to_move:
            self._start_computers(info.channel_id)

    def _abandoned(self, info: TableInfo, by: str) -> None:
        text = t("bot.post.abandoned", info.locale, name=texts.esc(by))

        async def post() -> None:
            await self._post(info.channel_id, text)

        self._outbox(info.channel_id).put(post)
        if info.game_id in self._lobby_messages:
            self._outbox(info.channel_id).put(lambda: self._update_lobby(info))

    async def _open_lobby(self, interaction: discord.Interaction, info: TableInfo) -> None:
        """Post the lobby message as the answer to ``interaction`` and check the opener's DMs."""
        locale = self._locale(interaction)
        response = await interaction.response.send_message(
            texts.lobby_text(info, info.locale), view=lobby_view(info, info.locale), allowed_mentions=ALLOWED_MENTIONS)
        if response.message_id is not None:
            self._lobby_messages[info.game_id] = (info.channel_id, response.message_id)
        if interaction.user.id in info.humans:
            await self._welcome(interaction, info, locale)

    async def _rematch(self, interaction: discord.Interaction, channel_id: int) -> None:
        info = await self.host.rematch(channel_id, interaction.user.id, can_manage=self._can_manage(interaction))
        await self._open_lobby(interaction, info)

    async def _show_hand(self, interaction: discord.Interaction, channel_id: int) -> None:
        """The user's own cards, chips and personal picture, with the move controls on their turn (ephemeral)."""
        locale = self._locale(interaction)
        if self.host.seat_of(channel_id, interaction.user.id) is None:
            raise HostError("host.error.not_seated")
        view = self.host.view_for(channel_id, interaction.user.id)
        info = self.host.info(channel_id)
        assert info is not None
        await interaction.response.defer(ephemeral=True, thinking=True)
        controls = controls_view(info.game_id, info.seq, view, locale) if info.status == "running" else None
        png = await self._png(view, locale, key=(info.game_id, info.seq, interaction.user.id), personal=True)
        content = texts.dm_text(info, view, locale, turn=controls is not None)
        kwargs: dict[str, Any] = {"files": self._files((png, "hand.png"))}
        if controls is not None:
            kwargs["view"] = controls
        await self._reply(interaction, content, **kwargs)

    # ------------------------------------------------------------------ reminders

    @tasks.loop(seconds=60.0)
    async def reminder_loop(self) -> None:
        try:
            await self.send_reminders()
        except Exception:
            log.exception("sending turn reminders failed")

    @reminder_loop.before_loop
    async def _before_reminders(self) -> None:
        await self.bot.wait_until_ready()

    async def send_reminders(self, now: float | None = None) -> int:
        """DM every player whose reminder is due (driven from the database); returns how many were due."""
        due = await self.host.due_reminders(now)
        for reminder in due:
            info = self.host.info(reminder.channel_id)
            try:
                if info is not None:
                    await self._send_hand(info, reminder.user_id, turn=True, reminder=True)
            finally:
                await self.host.mark_reminded(reminder, now)
        return len(due)

    # ================================================================== the commands

    @app_commands.command(name="new", description=_cmd("new"))
    @app_commands.describe(draft=_opt("new", "draft"), language=_opt("new", "language"),
                           computers=_opt("new", "computers"), strength=_opt("new", "strength"))
    @app_commands.choices(language=LANGUAGE_CHOICES, strength=STRENGTH_CHOICES)
    async def new(self, interaction: discord.Interaction, draft: bool = False, language: str | None = None,
                  computers: Range[int, 0, 3] = 0, strength: str | None = None) -> None:
        channel_id = self._guild_only(interaction)
        info = await self.host.open(channel_id, interaction.guild_id, interaction.user.id,
                                    interaction.user.display_name, draft=draft,
                                    locale=self._new_game_locale(interaction, language),
                                    computers=computers, strength=strength)
        await self._open_lobby(interaction, info)

    @app_commands.command(name="join", description=_cmd("join"))
    async def join(self, interaction: discord.Interaction) -> None:
        channel_id = self._guild_only(interaction)
        locale = self._locale(interaction)
        info = await self.host.join(channel_id, interaction.user.id, interaction.user.display_name)
        await self._reply(interaction, t("bot.reply.joined", locale, count=len(info.seats)))
        self._outbox(channel_id).put(lambda: self._update_lobby(info))
        await self._welcome(interaction, info, locale)

    @app_commands.command(name="leave", description=_cmd("leave"))
    async def leave(self, interaction: discord.Interaction) -> None:
        channel_id = self._guild_only(interaction)
        info = await self.host.leave(channel_id, interaction.user.id)
        await self._reply(interaction, t("bot.reply.left", self._locale(interaction)))
        self._outbox(channel_id).put(lambda: self._update_lobby(info))

    @app_commands.command(name="start", description=_cmd("start"))
    async def start(self, interaction: discord.Interaction) -> None:
        channel_id = self._guild_only(interaction)
        start = await self.host.start(channel_id, interaction.user.id, can_manage=self._can_manage(interaction))
        self._started(start)
        await self._reply(interaction, t("bot.reply.started", self._locale(interaction)))

    @app_commands.command(name="addbot", description=_cmd("addbot"))
    @app_commands.describe(strength=_opt("addbot", "strength"))
    @app_commands.choices(strength=STRENGTH_CHOICES)
    async def addbot(self, interaction: discord.Interaction, strength: str | None = None) -> None:
        channel_id = self._guild_only(interaction)
        info = await self.host.add_computer(channel_id, interaction.user.id, strength,
                                            can_manage=self._can_manage(interaction))
        await self._reply(interaction, t("bot.reply.computer_added", self._locale(interaction),
                                         name=texts.esc(info.seats[-1].name)))
        self._outbox(channel_id).put(lambda: self._update_lobby(info))

    @app_commands.command(name="kick", description=_cmd("kick"))
    @app_commands.describe(player=_opt("kick", "player"))
    async def kick(self, interaction: discord.Interaction, player: discord.User) -> None:
        """In the lobby: remove a player (opener). Running: hand an absent player's seat to the computer."""
        channel_id = self._guild_only(interaction)
        locale = self._locale(interaction)
        info = self.host.info(channel_id)
        seated = self.host.seat_of(channel_id, player.id) is not None
        if info is not None and info.status in ("lobby", "running") and not seated:
            raise Refusal("bot.error.not_a_player", name=texts.esc(player.display_name))
        if info is not None and info.status == "lobby":
            if interaction.user.id != info.opener_id and not self._can_manage(interaction):
                raise HostError("host.error.not_opener", opener=texts.esc(info.opener_name))
            if player.id == interaction.user.id:
                raise Refusal("bot.error.kick_self")
            info = await self.host.leave(channel_id, player.id)
            await self._reply(interaction, t("bot.reply.kicked", locale, name=texts.esc(player.display_name)))
            self._outbox(channel_id).put(lambda: self._update_lobby(info))
            return
        change = await self.host.hand_over(channel_id, interaction.user.id, player.id,
                                           can_manage=self._can_manage(interaction))
        await self._reply(interaction, t("bot.reply.handed_over", locale, name=texts.esc(change.name)))
        self._seat_changed(change)

    @app_commands.command(name="land", description=_cmd("land"))
    @app_commands.describe(site=_opt("land", "site"))
    async def land(self, interaction: discord.Interaction, site: Range[int, 1, 999]) -> None:
        await self._play_command(interaction, [f"land {site}"])

    @app_commands.command(name="build", description=_cmd("build"))
    @app_commands.describe(card=_opt("build", "card"), site=_opt("build", "site"), kind=_opt("build", "kind"))
    @app_commands.choices(card=CARD_CHOICES, kind=KIND_CHOICES)
    async def build(self, interaction: discord.Interaction, card: str | None = None,
                    site: Range[int, 1, 999] | None = None, kind: str | None = None) -> None:
        channel_id = self._channel_for(interaction)
        legal = self.host.legal_moves(channel_id, interaction.user.id)
        pending = any(m.startswith("build ") for m in legal) or "pass" in legal
        if pending and card in (None, "double"):
            if site is None:
                if self._confirm_or_play(interaction, channel_id, "pass"):
                    await self._ask_confirmation(interaction, channel_id, "pass")
                    return
                raise Refusal("bot.error.need_site", sites=", ".join(m.split()[1] for m in legal if " " in m))
            await self._play_command(interaction, [f"build {site}"])
            return
        if card is None:
            raise Refusal("bot.error.need_card")
        if card == "double":
            if kind is None:
                raise Refusal("bot.error.need_kind")
            if self._confirm_or_play(interaction, channel_id, f"double {kind}"):
                await self._ask_confirmation(interaction, channel_id, f"double {kind}")
                return
            await self._play_command(interaction, [f"double {kind}"] + ([f"build {site}"] if site else []))
            return
        if kind is not None:
            raise Refusal("bot.error.kind_only_double")
        if site is None:
            if self._confirm_or_play(interaction, channel_id, card):
                await self._ask_confirmation(interaction, channel_id, card)
                return
            sites = [m.split()[1] for m in legal if m.startswith(f"{card} ")]
            if sites:
                raise Refusal("bot.error.need_site", sites=", ".join(sites))
            await self._play_command(interaction, [card])
            return
        await self._play_command(interaction, [f"{card} {site}"])

    @app_commands.command(name="score", description=_cmd("score"))
    @app_commands.describe(card=_opt("score", "card"))
    async def score(self, interaction: discord.Interaction, card: str) -> None:
        card_id = self._scoring_card_id(card, self._locale(interaction))
        await self._play_command(interaction, [f"score {card_id}"])

    @app_commands.command(name="choose", description=_cmd("choose"))
    @app_commands.describe(option=_opt("choose", "option"))
    async def choose(self, interaction: discord.Interaction, option: str) -> None:
        locale = self._locale(interaction)
        channel_id = self._channel_for(interaction)
        move = self._choice_move(channel_id, interaction.user.id, option, locale)
        if self._confirm_or_play(interaction, channel_id, move):
            await self._ask_confirmation(interaction, channel_id, move)
            return
        await self._play_command(interaction, [move])

    @app_commands.command(name="undo", description=_cmd("undo"))
    async def undo(self, interaction: discord.Interaction) -> None:
        locale = self._locale(interaction)
        channel_id = self._channel_for(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        result = await self.host.undo(channel_id, interaction.user.id, interaction_id=interaction.id)
        self._after_move(result)
        names = texts.names_of(result.view)
        await self._reply(interaction, t("bot.reply.undone", locale,
                                         move=describe_move(result.move, locale, names, result.seat)))

    @app_commands.command(name="hand", description=_cmd("hand"))
    async def hand(self, interaction: discord.Interaction) -> None:
        await self._show_hand(interaction, self._channel_for(interaction))

    @app_commands.command(name="board", description=_cmd("board"))
    async def board(self, interaction: discord.Interaction) -> None:
        channel_id = self._channel_for(interaction)
        info = self.host.info(channel_id)
        view = self.host.public_view(channel_id)
        assert info is not None
        in_channel = interaction.guild_id is not None
        locale = info.locale if in_channel else self._locale(interaction)
        await interaction.response.defer(ephemeral=not in_channel, thinking=True)
        png = await self._png(view, locale, key=(info.game_id, info.seq, None))
        content = texts.status_text(info, view, locale)
        await interaction.followup.send(content, files=self._files((png, "board.png")), ephemeral=not in_channel,
                                        allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name="status", description=_cmd("status"))
    async def status(self, interaction: discord.Interaction) -> None:
        locale = self._locale(interaction)
        channel_id = self._channel_for(interaction)
        info = self.host.info(channel_id)
        if info is None or info.status == "abandoned":
            raise HostError("host.error.no_game")
        if info.status == "lobby":
            await self._reply(interaction, texts.lobby_text(info, locale))
            return
        await self._reply(interaction, texts.status_text(info, self.host.public_view(channel_id), locale),
                          allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name="log", description=_cmd("log"))
    async def log_(self, interaction: discord.Interaction) -> None:
        locale = self._locale(interaction)
        channel_id = self._channel_for(interaction)
        await self._reply(interaction, texts.log_text(self.host.view_for(channel_id, interaction.user.id), locale))

    @app_commands.command(name="abandon", description=_cmd("abandon"))
    async def abandon(self, interaction: discord.Interaction) -> None:
        channel_id = self._guild_only(interaction)
        locale = self._locale(interaction)
        info = self.host.info(channel_id)
        if info is None or info.status not in ("lobby", "running"):
            raise HostError("host.error.no_game")
        if interaction.user.id != info.opener_id and not self._can_manage(interaction):
            raise HostError("host.error.not_opener", opener=texts.esc(info.opener_name))
        await self._reply(interaction, t("bot.confirm.abandon", locale), view=abandon_view(info.game_id, locale))

    @app_commands.command(name="rematch", description=_cmd("rematch"))
    async def rematch(self, interaction: discord.Interaction) -> None:
        await self._rematch(interaction, self._guild_only(interaction))

    @app_commands.command(name="away", description=_cmd("away"))
    async def away(self, interaction: discord.Interaction) -> None:
        change = await self.host.away(self._channel_for(interaction), interaction.user.id)
        await self._reply(interaction, t("bot.reply.away", self._locale(interaction)))
        self._seat_changed(change)

    @app_commands.command(name="back", description=_cmd("back"))
    async def back(self, interaction: discord.Interaction) -> None:
        change = await self.host.back(self._channel_for(interaction), interaction.user.id)
        await self._reply(interaction, t("bot.reply.back", self._locale(interaction)))
        self._seat_changed(change)

    @app_commands.command(name="rules", description=_cmd("rules"))
    @app_commands.describe(topic=_opt("rules", "topic"))
    @app_commands.choices(topic=TOPIC_CHOICES)
    async def rules(self, interaction: discord.Interaction, topic: str | None = None) -> None:
        locale = self._locale(interaction)
        topic = topic or "overview"
        embed = discord.Embed(title=t(f"rules.{topic}.title", locale), description=t(f"rules.{topic}.text", locale))
        embed.set_author(name=t("rules.title", locale))
        embed.set_footer(text=t("rules.choose", locale, topics=t("rules.topics", locale)).replace("`", ""))
        await interaction.response.send_message(embed=embed, ephemeral=True)

    # ------------------------------------------------------------------ parsing helpers

    @staticmethod
    def _scoring_card_id(card: str, locale: str) -> str:
        """A scoring card's id from what the user typed: the id, or its name in any language."""
        text = card.strip().lower()
        if text in SCORING_CARD_IDS:
            return text
        for card_id in SCORING_CARD_IDS:
            if any(t(f"game.scoring.{card_id}.name", lang).lower() == text for lang in (locale, *LOCALES)):
                return card_id
        raise Refusal("bot.error.unknown_card", card=texts.esc(card),
                      cards=", ".join(t(f"game.scoring.{c}.name", locale) for c in SCORING_CARD_IDS))

    def _choice_move(self, channel_id: int, user_id: int, option: str, locale: str) -> str:
        """The move meant by ``/santacruz choose option:…``: a set, a pile, a discard, or pass."""
        text = option.strip()
        legal = self.host.legal_moves(channel_id, user_id)
        verb = text.partition(" ")[0].lower()
        if verb in ("set", "pile", "discard", "pass"):
            move = text
        else:
            phase_verb = next((m.partition(" ")[0] for m in legal if m.partition(" ")[0] in ("set", "pile", "discard")),
                              None)
            if phase_verb is None:
                if not legal:
                    return f"set {text}"  # not their turn (or no game): the host says why
                raise Refusal("bot.error.nothing_to_choose")
            arg = text.upper() if phase_verb == "set" else text
            if phase_verb == "discard":
                arg = self._scoring_card_id(text, locale)
            move = f"{phase_verb} {arg}"
        try:
            return str(parse_move(move))
        except IllegalMove:
            choices = [m for m in legal if m.partition(" ")[0] in ("set", "pile", "discard", "pass")]
            raise Refusal("bot.error.bad_option", option=texts.esc(option),
                          choices=", ".join(choices) or "—") from None

    # ------------------------------------------------------------------ autocomplete

    def _autocomplete_context(self, interaction: discord.Interaction) -> tuple[int, dict[str, Any], list[str]] | None:
        try:
            channel_id = self._channel_for(interaction)
            if self.host.seat_of(channel_id, interaction.user.id) is None:
                return None
            return (channel_id, self.host.view_for(channel_id, interaction.user.id),
                    self.host.legal_moves(channel_id, interaction.user.id))
        except (HostError, Refusal):
            return None

    @staticmethod
    def _site_choices(view: dict[str, Any], moves: list[str], current: Any, locale: str,
                      prefix: str = "") -> list[Choice[int]]:
        typed = str(current or "").strip().lower()
        seen: set[int] = set()
        choices: list[Choice[int]] = []
        for move in moves:
            arg = move.partition(" ")[2]
            if not arg.isdigit() or int(arg) in seen:
                continue
            label = prefix + texts.site_label(view, int(arg), locale)
            if typed and not (arg.startswith(typed) or typed in label.lower()):
                continue
            seen.add(int(arg))
            choices.append(Choice(name=texts.clip(label, texts.OPTION_MAX), value=int(arg)))
        return choices[:25]

    @land.autocomplete("site")
    async def _land_sites(self, interaction: discord.Interaction, current: Any) -> list[Choice[int]]:
        context = self._autocomplete_context(interaction)
        if context is None:
            return []
        _, view, legal = context
        return self._site_choices(view, [m for m in legal if m.startswith("land ")], current,
                                  self._locale(interaction))

    @build.autocomplete("site")
    async def _build_sites(self, interaction: discord.Interaction, current: Any) -> list[Choice[int]]:
        context = self._autocomplete_context(interaction)
        if context is None:
            return []
        _, view, legal = context
        locale = self._locale(interaction)
        card = getattr(interaction.namespace, "card", None)
        kind = getattr(interaction.namespace, "kind", None)
        builds = [m for m in legal if m.startswith("build ")]
        if builds:
            return self._site_choices(view, builds, current, locale)
        if card == "double":
            card = kind
        if card in SINGLE_CARDS:
            return self._site_choices(view, [m for m in legal if m.startswith(f"{card} ")], current, locale)
        choices: list[Choice[int]] = []
        for single in SINGLE_CARDS:
            prefix = t(f"game.card.{single}.short", locale) + texts.SEP
            choices += self._site_choices(view, [m for m in legal if m.startswith(f"{single} ")], current, locale,
                                          prefix)
        return choices[:25]

    @score.autocomplete("card")
    async def _score_cards(self, interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        context = self._autocomplete_context(interaction)
        if context is None:
            return []
        _, view, _ = context
        locale = self._locale(interaction)
        typed = (current or "").strip().lower()
        choices = []
        for card in dict.fromkeys(view["you"]["scoring_cards"]):
            label = f"{texts.scoring_name(card, locale)} — {texts.scoring_text(card, locale)}"
            if typed and typed not in label.lower() and not card.startswith(typed):
                continue
            choices.append(Choice(name=texts.clip(label, texts.OPTION_MAX), value=card))
        return choices[:25]

    @choose.autocomplete("option")
    async def _choose_options(self, interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        context = self._autocomplete_context(interaction)
        if context is None:
            return []
        _, view, legal = context
        locale = self._locale(interaction)
        typed = (current or "").strip().lower()
        choices = []
        for move in legal:
            if move.partition(" ")[0] not in ("set", "pile", "discard", "pass"):
                continue
            label = texts.move_label(view, move, locale)
            detail = texts.move_detail(view, move, locale)
            if detail:
                label = f"{label} — {detail}"
            if typed and typed not in label.lower() and not move.startswith(typed):
                continue
            choices.append(Choice(name=texts.clip(label, texts.OPTION_MAX), value=move))
        return choices[:25]
