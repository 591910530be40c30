"""The ``/santacruz`` commands and the clicks on the bot's buttons: Discord input in, the host's answer out.

Every handler parses Discord input, asks the host (``bot.host.host``), and turns its answer into messages;
the host makes every decision (seated? your turn? legal? stale button? same interaction twice?). The
handlers answer the user ephemerally in the user's language and hand everything else on:

* ``bot.adapter.publish``: the channel's messages (lobby, one post per move, seat changes, game over), queued
  per channel so they keep the order of the moves; a move's DMs follow its post;
* ``bot.adapter.dms``: each player's hand, bird chips and personal picture by DM, with move controls on their
  turn, or as the ephemeral answer of ``/santacruz hand`` when their DMs are closed;
* ``bot.adapter.background``: computer moves, turn reminders, restart recovery and shutdown;
* ``bot.adapter.gone_channels``: a deleted channel or thread, or a server the bot left, ends its games (the
  listeners below); "Keep it open" under an idle game's notice is a game button like the lobby's;
* ``bot.adapter.errors``: the words for every refusal (:meth:`SantaCruzCog.handle_error` sends them);
* ``bot.adapter.options``: autocomplete and reading typed options; ``bot.host.pictures``: rendering off the event loop.

A move that cannot be taken back (the host's :meth:`~bot.host.host.Host.move_risk`) is asked first in one click
naming what it reveals or scores (on the clicked DM or hand itself, in place of its controls); any other is played
at once with *Undo* on its answer while :meth:`~bot.host.host.Host.undoable_by` names the user.

``hint`` (and the *Hint* button beside a turn's controls) asks the host for the coach's advice on the user's own
turn, in a table opened with ``hints:true``: deferred at once (the coach thinks for ``HINT_SECONDS`` in a worker),
answered to the user alone in their language (:func:`i18n.coach.advice_text`); nothing is posted or stored.

``stats`` shows a player's statistics, or with ``leaderboard:`` this server's leaderboard (once a command of its
own: Discord allows 25 subcommands in a group).

``games`` lists a person's open games on every server (from the database), ``settings`` shows and changes their
own settings (``bot.host.user_settings``) with the "Forget me…" button below (which asks to confirm).

``history``, ``game`` and ``export`` read the archive of this server's finished games (the host refuses to export a
game that is not over); ``log`` sends the whole log as a ``.txt`` file when it does not fit one message.

Slow work never blocks an acknowledgement: move commands ``defer()`` first, and pictures, computer
moves and everything a move sends run elsewhere.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Awaitable, Sequence
from concurrent.futures import Executor
from typing import Any, Final

import discord
from discord import app_commands
from discord.app_commands import Choice, Range
from discord.ext import commands

from bot.adapter import history_texts, options, settings_texts, texts, vacation_texts
from bot.adapter.background import SHUTDOWN_GRACE, Background
from bot.adapter.dms import DirectMessages
from bot.adapter.errors import ErrorTexts, Refusal
from bot.adapter.gone_channels import GoneChannels
from bot.adapter.idle_texts import kept_open_text
from bot.adapter.publish import Publisher
from bot.adapter.sending import ALLOWED_MENTIONS, files, reply
from bot.adapter.translator import locale_text
from bot.adapter.views import (
    abandon_view,
    confirm_view,
    controls_view,
    forget_view,
    leaderboard_view,
    lobby_view,
    rest_of_turn_view,
    settings_view,
    undo_view,
)
from bot.host.errors import HostError
from bot.host.host import Host
from bot.host.pictures import Pictures
from bot.host.ratings import BOARDS
from bot.host.settings import Settings
from bot.host.table import MoveResult, TableInfo
from bot.host.user_settings import MAX_REMINDER_HOURS
from bot.host.workers import WorkerPool
from engine import BUILDING_CARDS, SINGLE_BUILDS, View, parse_move, plan_build
from i18n import LOCALES, RULE_TOPICS, describe_move, t
from i18n.coach import advice_text
from render.legend import render_legend
from render.stats import render_stats

log = logging.getLogger(__name__)


def _cmd(name: str) -> app_commands.locale_str:
    return locale_text(f"commands.{name}.description")


def _opt(command: str, option: str) -> app_commands.locale_str:
    return locale_text(f"commands.{command}.option.{option}")


def _choice(key: str, value: str) -> Choice[str]:
    return Choice(name=locale_text(key), value=value)


def _undone(result: MoveResult, locale: str) -> str:
    """The answer to the player who took back their move, said to them ("Taken back: You land on site 10")."""
    return t("bot.reply.undone", locale, move=describe_move(result.move, locale, texts.names_of(result.view),
                                                            result.seat, you=True))


CARD_CHOICES: Final = [_choice(f"game.card.{c}.one", c) for c in BUILDING_CARDS]
KIND_CHOICES: Final = [_choice(f"game.card.{c}.short", c) for c in SINGLE_BUILDS]
STRENGTH_CHOICES: Final = [_choice(f"commands.choice.strength.{s}", s) for s in ("random", "greedy", "expert")]
LANGUAGE_CHOICES: Final = [Choice(name=texts.LANGUAGE_NAMES[lang], value=lang) for lang in LOCALES]
TOPIC_CHOICES: Final = [_choice(f"rules.{topic}.title", topic) for topic in RULE_TOPICS]
_BUILD_PROBLEMS: Final = {"need_card": "bot.error.need_card", "need_kind": "bot.error.need_kind",
                          "kind_only_double": "bot.error.kind_only_double"}
"""The refusal for each problem of :func:`engine.plan_build` (``need_site`` also lists the sites)."""
BOARD_CHOICES: Final = [_choice(f"commands.stats.choice.{by}", by) for by in BOARDS]
DEADLINE_CHOICES: Final = [_choice(f"commands.choice.deadline.{hours}", hours)
                           for hours in vacation_texts.DEADLINE_CHOICES]
CHANGE_WAIT: Final = 1.0
"""Seconds a command or a click waits for a change of its game under way in this process (another command's, or
the sweep reading what another process wrote) before it decides from the game: what it offers, asks and refuses
is then decided on the game as it is, not as it was (Discord takes the first answer within 3 s)."""
AUTOCOMPLETE_WAIT: Final = 2.0
"""Seconds autocomplete waits for the database (Discord takes its answer within 3 s): without the game as the
database has it, it suggests nothing rather than what a copy that may be behind would allow."""
UNKNOWN_INTERACTION: Final = 10062
"""Discord's code of a 404 for an interaction answered too late (after 3 s) or whose token expired."""
ALREADY_ACKNOWLEDGED: Final = 40060
"""Discord's code of a 400 for an interaction answered already: the same interaction delivered twice (its first
delivery answered it, and the host carries a move out once)."""
SITE_TEXT_MAX: Final = 20
"""The longest text ``/santacruz build site:`` takes (a number, or a site with its card: "river 12")."""
MAX_GAME_ID: Final = 2**53 - 1
"""The largest game number ``history id:`` takes: Discord's largest integer option (its API description's
``Int53Type``, JavaScript's largest safe integer); a command sync declaring more is refused whole."""


class SantaCruzCog(commands.GroupCog, name="SantaCruz", group_name="santacruz",
                   group_description=_cmd("santacruz")):
    """``/santacruz …``: thin commands over the host, their autocomplete, and the clicks on the bot's buttons."""

    def __init__(self, bot: commands.Bot, host: Host, settings: Settings, *,
                 render_executor: WorkerPool | Executor | None = None, loaded_games: Sequence[TableInfo] = ()) -> None:
        """``loaded_games``: what ``host.load()`` found at start-up (recovered and resumed in ``cog_load``)."""
        self.bot = bot
        self.host = host
        self.settings = settings
        self.loaded_games = list(loaded_games)
        self.pictures = Pictures(render_executor, width=settings.picture_width)
        self.dms = DirectMessages(bot, self.host, self.pictures)
        self.publisher = Publisher(bot, self.host, self.pictures, self.dms)
        self.background = Background(bot, self.host, self.publisher, self.dms,
                                     retry_seconds=settings.retry_seconds, sweep_seconds=settings.sweep_seconds)
        self.errors = ErrorTexts(self.host, self._channel_for)
        self.gone = GoneChannels(self.host, self.publisher, self.background)
        self.publisher.on_channel_gone = self.gone.channel_gone

    # ------------------------------------------------------------------ life cycle

    async def cog_load(self) -> None:
        self.background.start(self.loaded_games)

    async def cog_unload(self) -> None:
        self.background.stop()

    async def shutdown(self, grace: float = SHUTDOWN_GRACE) -> None:
        """Stop the computer players, give queued messages ``grace`` seconds, then cancel what is left."""
        await self.background.shutdown(grace)

    async def send_reminders(self, now: float | None = None) -> int:
        """DM every player whose reminder is due; returns how many were due."""
        return await self.background.send_reminders(now)

    # ------------------------------------------------------------------ channels and servers that are gone

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        await self.gone.channel_gone(channel.id, "channel deleted")

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        await self.gone.channel_gone(payload.thread_id, "thread deleted")

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        await self.gone.guild_gone(guild.id, "the bot left the server")

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        await self.gone.guilds_left_while_offline(self.bot)

    # ------------------------------------------------------------------ several processes over one database

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        """Before every command: with a database other processes share, the channel's game as it is now (another
        process may have changed it, or this one may never have held it). A command that touches several games
        (``vacation``, ``back``) has the host check each game again under its lock."""
        if self.host.shared:
            await self._refresh(self._read_again(interaction))
        return True

    def _read_again(self, interaction: discord.Interaction) -> Awaitable[object]:
        """The host's reading of what ``interaction`` acts on as the database has it: the channel's game, or in a
        DM the user's open games (any process may have changed or opened them). One indexed read per game when
        this process's copies are current."""
        if interaction.guild_id is not None and interaction.channel_id is not None:
            return self.host.refresh(interaction.channel_id, wait=CHANGE_WAIT)
        return self.host.refresh_games_of(interaction.user.id, wait=CHANGE_WAIT)

    async def _refresh_game(self, game_id: int) -> None:
        """Before a click on a game's button (a DM's arrive at shard 0's process, whatever the game's server)."""
        if self.host.shared:
            await self._refresh(self.host.refresh_game(game_id, wait=CHANGE_WAIT))

    @staticmethod
    async def _refresh(reading: Awaitable[object]) -> None:
        try:
            await reading
        except HostError as exc:  # the change itself checks again (and says so) if the database is refusing
            log.warning("could not read the game from the database before an interaction: %s", exc.key)

    # ------------------------------------------------------------------ small helpers

    async def _locale(self, interaction: discord.Interaction) -> str:
        """The user's language (remembered for the DMs they will get later, after a restart too)."""
        return await self.dms.locale(interaction)

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
        return str(self.settings.default_locale)

    @staticmethod
    def _chosen(value: str | None, choices: Sequence[Choice[str]]) -> str | None:
        """``value`` if it is one of an option's ``choices``: Discord offers only those, a forged request may not."""
        if value is None or any(choice.value == value for choice in choices):
            return value
        raise Refusal("bot.error.bad_value", value=texts.esc(value))

    def _check_origin(self, interaction: discord.Interaction, game_id: int) -> None:
        """A click acts on a game only from the game's channel or from the DM of one of its players, so that the
        permissions it carries (Manage Channels) are those of the game's channel: a forged id is refused."""
        info = self.host.find_game(game_id)
        if info is None or interaction.channel_id == info.channel_id:
            return  # a game the host forgot: the handler says it is stale (a rematch opens here)
        if interaction.guild_id is None and self.host.seat_of(info.channel_id, interaction.user.id) is not None:
            return
        raise Refusal("bot.error.wrong_channel", channel=texts.channel_link(info.channel_id))

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

    # ------------------------------------------------------------------ errors

    async def cog_app_command_error(self, interaction: discord.Interaction,
                                    error: app_commands.AppCommandError) -> None:
        await self.handle_error(interaction, error)

    async def handle_error(self, interaction: discord.Interaction, error: Exception) -> None:
        """The one place refusals become short ephemeral replies; anything unexpected is logged."""
        original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        if self.bot.is_closed():
            log.info("the bot closed while handling an interaction: %r", original)
            return
        # name the command or the component, never the values chosen (a discard is secret)
        what = (interaction.command.qualified_name if interaction.command
                else dict(interaction.data or {}).get("custom_id", "?"))
        if isinstance(original, discord.NotFound) and original.code == UNKNOWN_INTERACTION:
            # it reached the bot after Discord's 3 s (a slow moment): expected, and nothing can answer it any more
            log.warning("%s came too late to be answered (10062 Unknown interaction)", what)
            return
        if isinstance(original, discord.HTTPException) and original.code == ALREADY_ACKNOWLEDGED:
            # Discord delivered the same interaction twice: the first delivery answered it, nothing is left to say
            log.warning("%s was delivered twice; the first delivery answered it (40060 already acknowledged)", what)
            return
        locale = await self._locale(interaction)
        text = self.errors.text(interaction, original, locale)
        if text is None:
            log.error("unexpected error while handling %s", what, exc_info=original)
            text = t("bot.error.unexpected", locale)
        try:
            await reply(interaction, text)
        except discord.HTTPException as exc:
            log.warning("could not send an error reply (%s %s)", exc.status, exc.text)

    # ------------------------------------------------------------------ moves (shared by commands and clicks)

    async def _play_command(self, interaction: discord.Interaction, moves: Sequence[str]) -> None:
        """Play ``moves`` (one, or a double move and its first build) for the user, answering ephemerally.

        The host says what cannot be taken back (:meth:`bot.host.host.Host.move_risk`): the moves before the first
        such move are played at once, and that move is asked as a one-click question naming what it reveals or
        scores; an answer that played everything carries *Undo* while the user may take it back."""
        channel_id = self._channel_for(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        locale = await self._locale(interaction)
        risk = self.host.move_risk(channel_id, interaction.user.id, moves)
        now = list(moves) if risk.first_final is None else list(moves[:risk.first_final])
        lines: list[str] = []
        result: MoveResult | None = None
        played: list[MoveResult] = []
        try:
            for i, move in enumerate(now):
                try:
                    result = await self.host.play(channel_id, interaction.user.id, move,
                                                  interaction_id=interaction.id if i == 0 else None)
                except HostError as exc:
                    if not lines:
                        raise
                    lines.append(self.errors.host_error_text(interaction, exc, locale))
                    await reply(interaction, "\n".join(lines))
                    return
                played.append(result)
                lines.append(texts.played_text(result.move, locale, texts.names_of(result.view), result.seat,
                                               result.view))
        finally:
            # delivered once every move of the command is stored, in order: the turn DM owed after a double move's
            # card is then of a turn already passed (its build came in the same command) and is not sent
            for done in played:
                self.background.after_move(done)
        if risk.first_final is not None:
            final = moves[risk.first_final]
            info = self.host.info(channel_id)
            assert info is not None
            view = self.host.view_for(channel_id, interaction.user.id)
            lines.append(texts.final_question(final, risk, locale, texts.names_of(view)))
            await reply(interaction, "\n".join(lines),
                        view=confirm_view(info.game_id, info.seq, final, locale, final=True))
            return
        undo = self._undo_view(interaction, result, len(now), locale)
        if result is not None and self._still_to_move(interaction, result):
            lines.append(texts.turn_prompt(self.host.view_for(channel_id, interaction.user.id), locale))
        await reply(interaction, "\n".join(lines), **({"view": undo} if undo is not None else {}))

    def _undo_view(self, interaction: discord.Interaction, result: MoveResult | None, count: int,
                   locale: str) -> discord.ui.View | None:
        """*Undo* for the ``count`` moves that ended in ``result``, while the host lets the user take them back; when
        they leave the user to move (no turn DM follows: :mod:`bot.host.play`), the controls of the rest of the turn
        with it."""
        if result is None:
            return None
        count_or_none = count if self.host.undoable_by(result.channel_id) == interaction.user.id else None
        if self._still_to_move(interaction, result):
            view = self.host.view_for(result.channel_id, interaction.user.id)
            return rest_of_turn_view(result.game_id, result.seq, view, locale, count_or_none, hints=result.hints)
        return None if count_or_none is None else undo_view(result.game_id, result.seq, count_or_none, locale)

    def _still_to_move(self, interaction: discord.Interaction, result: MoveResult) -> bool:
        """Whether ``result`` (the user's own move) leaves the user to move in a game still at that move."""
        info = self.host.info(result.channel_id)
        return (not result.game_over and result.to_move_user_id == interaction.user.id and info is not None
                and info.game_id == result.game_id and info.seq == result.seq)

    def _confirm_or_play(self, interaction: discord.Interaction, channel_id: int, move: str) -> bool:
        """Whether ``move`` must be confirmed first (a card that builds nothing, giving up a double move)."""
        legal = self.host.legal_moves(channel_id, interaction.user.id)
        view = self.host.view_for(channel_id, interaction.user.id)
        return move in legal and texts.needs_confirmation(move, legal, view)

    async def _ask_confirmation(self, interaction: discord.Interaction, channel_id: int, move: str) -> None:
        locale = await self._locale(interaction)
        info = self.host.info(channel_id)
        assert info is not None
        await reply(interaction, self._question(interaction, channel_id, move, locale, builds_nothing=True),
                    view=confirm_view(info.game_id, info.seq, move, locale,
                                      final=self.host.move_risk(channel_id, interaction.user.id, [move]).final))

    def _question(self, interaction: discord.Interaction, channel_id: int, move: str, locale: str, *,
                  builds_nothing: bool) -> str:
        """The question before ``move``: it builds nothing, and/or it cannot be taken back (and what it reveals)."""
        risk = self.host.move_risk(channel_id, interaction.user.id, [move])
        if not risk.final:
            return texts.confirm_question(move, locale)
        names = texts.names_of(self.host.view_for(channel_id, interaction.user.id))
        return texts.final_question(move, risk, locale, names, builds_nothing=builds_nothing)

    async def on_move_component(self, interaction: discord.Interaction, game_id: int, seq: int, move: str, *,
                                confirmed: bool) -> None:
        """A move button or menu (in a DM, an ephemeral hand or a confirmation): the same in a DM and the channel.

        A card that builds nothing, or a move that cannot be taken back, is asked first (one click plays it);
        any other is played at once, and its answer carries *Undo* while the user may take it back."""
        try:
            await self._refresh_game(game_id)
            self._check_origin(interaction, game_id)
            locale = await self._locale(interaction)
            info = self._game(game_id)
            legal = self.host.legal_moves(info.channel_id, interaction.user.id)
            view = self.host.view_for(info.channel_id, interaction.user.id)
            if not confirmed and move in legal:
                builds_nothing = texts.needs_confirmation(move, legal, view)
                final = self.host.move_risk(info.channel_id, interaction.user.id, [move]).final
                if builds_nothing or final:
                    await self._ask_in_place(interaction, game_id, seq, move, locale, builds_nothing=builds_nothing,
                                             final=final)
                    return
            await interaction.response.defer()
            result = await self.host.play(info.channel_id, interaction.user.id, move, interaction_id=interaction.id,
                                          game_id=game_id, expected_seq=seq)
            message = interaction.message
            self.background.after_move(result, clicked=message.id if message is not None else None)
            played = texts.played_text(result.move, locale, texts.names_of(result.view), result.seat,
                                       result.view)
            undo = self._undo_view(interaction, result, 1, locale)
            if self._still_to_move(interaction, result):
                rest = self.host.view_for(info.channel_id, interaction.user.id)
                played = f"{played}\n{texts.turn_prompt(rest, locale)}"
            base, asked = texts.split_question(message.content) if message is not None else ("", False)
            if message is None or (confirmed and not asked):  # a question of its own (a command's answer)
                await interaction.edit_original_response(content=played, view=undo)
            else:  # the controls clicked, or the question they asked in place
                content = texts.clip(f"{base}\n**{played}**", texts.MESSAGE_MAX)
                await interaction.edit_original_response(content=content, view=undo)
        except Exception as exc:
            await self.handle_error(interaction, exc)

    async def _ask_in_place(self, interaction: discord.Interaction, game_id: int, seq: int, move: str, locale: str,
                            *, builds_nothing: bool, final: bool) -> None:
        """Ask before ``move`` on the message whose controls were clicked (a turn DM, or the hand of ``status``):
        its question in place of the controls, *Play it* and *Back* (no second message)."""
        info = self._game(game_id)
        question = self._question(interaction, info.channel_id, move, locale, builds_nothing=builds_nothing)
        message = interaction.message
        if message is None:
            await reply(interaction, question, view=confirm_view(game_id, seq, move, locale, final=final))
            return
        await interaction.response.edit_message(content=texts.with_question(message.content, question),
                                                view=confirm_view(game_id, seq, move, locale, final=final,
                                                                  in_place=True),
                                                allowed_mentions=ALLOWED_MENTIONS)

    async def _button_controls(self, interaction: discord.Interaction, game_id: int) -> None:
        """*Back* from a question asked in place: the message's own text and the move controls of now again."""
        locale = await self._locale(interaction)
        info = self._game(game_id)
        controls = None
        if info.status == "running" and self.host.seat_of(info.channel_id, interaction.user.id) is not None:
            view = self.host.view_for(info.channel_id, interaction.user.id)
            controls = controls_view(info.game_id, info.seq, view, locale, hints=info.hints)
        content = texts.split_question(interaction.message.content)[0] if interaction.message is not None else ""
        await interaction.response.edit_message(content=content, view=controls, allowed_mentions=ALLOWED_MENTIONS)

    async def on_undo_button(self, interaction: discord.Interaction, game_id: int, seq: int, count: int) -> None:
        """*Undo* on the answer to a move: take back its ``count`` moves while the game is still where the move
        left it (the host refuses a stale button, someone else's, or a move that revealed something)."""
        try:
            await self._refresh_game(game_id)
            self._check_origin(interaction, game_id)
            locale = await self._locale(interaction)
            info = self._game(game_id)
            await interaction.response.defer()
            lines: list[str] = []
            for i in range(count):
                try:
                    result = await self.host.undo(info.channel_id, interaction.user.id,
                                                  interaction_id=interaction.id if i == 0 else None, game_id=game_id,
                                                  expected_seq=seq + i)
                except HostError as exc:
                    if not lines:
                        raise
                    lines.append(self.errors.host_error_text(interaction, exc, locale))
                    break
                self.background.after_move(result)
                lines.append(_undone(result, locale))
            await interaction.edit_original_response(content="\n".join(lines), view=None)
        except Exception as exc:
            await self.handle_error(interaction, exc)

    # ------------------------------------------------------------------ the coach: /santacruz hint, the Hint button

    async def _hint(self, interaction: discord.Interaction, channel_id: int, *, game_id: int | None = None,
                    seq: int | None = None) -> None:
        """The coach's advice for the user's own seat, for them alone (the interaction is deferred already); the
        host decides whether they may ask now (:meth:`bot.host.host.Host.hint`)."""
        locale = await self._locale(interaction)
        answer = await self.host.hint(channel_id, interaction.user.id, game_id=game_id, expected_seq=seq)
        await reply(interaction, advice_text(answer.advice, locale, answer.names, escape=texts.esc, notation=False),
                    allowed_mentions=discord.AllowedMentions.none())

    async def on_hint_button(self, interaction: discord.Interaction, game_id: int, seq: int | None) -> None:
        """*Hint* beside a turn's controls: the same answer as ``/santacruz hint``, refused once that turn passed."""
        try:
            await interaction.response.defer(ephemeral=True, thinking=True)  # the coach thinks for seconds
            await self._refresh_game(game_id)
            self._check_origin(interaction, game_id)
            if seq is None:  # every Hint button carries its position: without one it is not ours
                raise HostError("host.error.stale")
            await self._hint(interaction, self._game(game_id).channel_id, game_id=game_id, seq=seq)
        except Exception as exc:
            await self.handle_error(interaction, exc)

    # ------------------------------------------------------------------ lobby buttons and confirmations

    async def on_game_button(self, interaction: discord.Interaction, game_id: int, action: str, *,
                             seq: int | None = None) -> None:
        try:
            await self._refresh_game(game_id)
            self._check_origin(interaction, game_id)
            if action == "undo":  # the post's Undo names the position its move left
                await self._button_undo(interaction, game_id, seq)
                return
            await getattr(self, f"_button_{action}")(interaction, game_id)
        except Exception as exc:
            await self.handle_error(interaction, exc)

    async def _button_join(self, interaction: discord.Interaction, game_id: int) -> None:
        locale = await self._locale(interaction)
        current = self._current(game_id)
        info = await self.host.join(current.channel_id, interaction.user.id, interaction.user.display_name)
        await self._redraw_lobby(interaction, info)
        await self.dms.welcome(interaction, info, locale)

    @staticmethod
    async def _redraw_lobby(interaction: discord.Interaction, info: TableInfo) -> None:
        """Answer a lobby button by redrawing the lobby message it sits on."""
        await interaction.response.edit_message(content=texts.lobby_text(info, info.locale),
                                                view=lobby_view(info, info.locale), allowed_mentions=ALLOWED_MENTIONS)

    async def _button_leave(self, interaction: discord.Interaction, game_id: int) -> None:
        current = self._current(game_id)
        info = await self.host.leave(current.channel_id, interaction.user.id)
        await self._redraw_lobby(interaction, info)

    async def _button_addbot(self, interaction: discord.Interaction, game_id: int) -> None:
        current = self._current(game_id)
        info = await self.host.add_computer(current.channel_id, interaction.user.id,
                                            can_manage=self._can_manage(interaction))
        await self._redraw_lobby(interaction, info)

    async def _button_removebot(self, interaction: discord.Interaction, game_id: int) -> None:
        current = self._current(game_id)
        info = await self.host.remove_computer(current.channel_id, interaction.user.id,
                                               can_manage=self._can_manage(interaction))
        await self._redraw_lobby(interaction, info)

    async def _button_start(self, interaction: discord.Interaction, game_id: int) -> None:
        current = self._current(game_id)
        start = await self.host.start(current.channel_id, interaction.user.id, can_manage=self._can_manage(interaction))
        self.background.after_start(start)
        await interaction.response.edit_message(content=texts.lobby_text(start.info, start.info.locale), view=None,
                                                allowed_mentions=ALLOWED_MENTIONS)

    async def _button_abandon(self, interaction: discord.Interaction, game_id: int) -> None:
        locale = await self._locale(interaction)
        current = self._current(game_id)
        info = await self.host.abandon(current.channel_id, interaction.user.id,
                                       can_manage=self._can_manage(interaction), name=interaction.user.display_name)
        await interaction.response.edit_message(content=t("bot.reply.abandoned", locale), view=None)
        self.publisher.queue_abandoned(info)

    async def _button_keepopen(self, interaction: discord.Interaction, game_id: int) -> None:
        """Under an idle game's notice: anyone seated keeps the game open (the notice loses its button)."""
        info = self._game(game_id)
        await self.host.stale.keep_open(info.channel_id, interaction.user.id, game_id)
        await interaction.response.edit_message(
            content=kept_open_text(interaction.user.display_name, self.settings.stale_days, info.locale), view=None,
            allowed_mentions=ALLOWED_MENTIONS)

    async def _button_cancel(self, interaction: discord.Interaction, game_id: int) -> None:
        locale = await self._locale(interaction)
        await interaction.response.edit_message(content=t("bot.reply.cancelled", locale), view=None)

    async def _button_rematch(self, interaction: discord.Interaction, game_id: int) -> None:
        """Under a game-over message (whose game the host may have forgotten after a restart)."""
        info = self.host.find_game(game_id)
        channel_id = info.channel_id if info is not None else self._guild_only(interaction)
        await self._rematch(interaction, channel_id)

    async def _button_hand(self, interaction: discord.Interaction, game_id: int) -> None:
        info = self._game(game_id)
        await self.dms.show_hand(interaction, info.channel_id)

    async def _button_undo(self, interaction: discord.Interaction, game_id: int, seq: int | None) -> None:
        """*Undo* under a move's post: as ``/santacruz undo`` (the post itself is edited, not posted again), while
        the game is still at the position ``seq`` the post's move left (else refused as outdated: a click on an
        older post, or a forged one, takes nothing back)."""
        info = self._game(game_id)
        await interaction.response.defer(ephemeral=True, thinking=True)
        if seq is None:  # every post's Undo carries its position: without one it is not ours
            raise HostError("host.error.stale")
        locale = await self._locale(interaction)
        result = await self.host.undo(info.channel_id, interaction.user.id, interaction_id=interaction.id,
                                      game_id=game_id, expected_seq=seq)
        self.background.after_move(result)
        await reply(interaction, _undone(result, locale))

    # ------------------------------------------------------------------ shared by commands and buttons

    async def _open_lobby(self, interaction: discord.Interaction, info: TableInfo) -> None:
        """Post the lobby message as the answer to ``interaction`` and check the opener's DMs."""
        locale = await self._locale(interaction)
        response = await interaction.response.send_message(
            texts.lobby_text(info, info.locale), view=lobby_view(info, info.locale) or discord.utils.MISSING,
            allowed_mentions=ALLOWED_MENTIONS)
        if response.message_id is not None:
            self.publisher.lobby_posted(info, response.message_id)
        if interaction.user.id in info.humans:
            await self.dms.welcome(interaction, info, locale)

    async def _rematch(self, interaction: discord.Interaction, channel_id: int) -> None:
        info = await self.host.rematch(channel_id, interaction.user.id, can_manage=self._can_manage(interaction))
        await self._open_lobby(interaction, info)

    # ================================================================== the commands

    @app_commands.command(name="new", description=_cmd("new"))
    @app_commands.describe(draft=_opt("new", "draft"), language=_opt("new", "language"),
                           computers=_opt("new", "computers"), strength=_opt("new", "strength"),
                           replay=_opt("new", "replay"), deadline=_opt("new", "deadline"), hints=_opt("new", "hints"))
    @app_commands.choices(language=LANGUAGE_CHOICES, strength=STRENGTH_CHOICES, deadline=DEADLINE_CHOICES)
    async def new(self, interaction: discord.Interaction, draft: bool = False, language: str | None = None,
                  computers: Range[int, 0, 3] = 0, strength: str | None = None, replay: bool = True,
                  deadline: str | None = None, hints: bool = False) -> None:
        channel_id = self._guild_only(interaction)
        language, strength = self._chosen(language, LANGUAGE_CHOICES), self._chosen(strength, STRENGTH_CHOICES)
        hours = vacation_texts.deadline_hours(self._chosen(deadline, DEADLINE_CHOICES))
        info = await self.host.open(channel_id, interaction.guild_id, interaction.user.id,
                                    interaction.user.display_name, draft=draft,
                                    locale=self._new_game_locale(interaction, language),
                                    computers=computers, strength=strength, replay=replay, deadline_hours=hours,
                                    hints=hints)
        await self._open_lobby(interaction, info)

    @app_commands.command(name="join", description=_cmd("join"))
    async def join(self, interaction: discord.Interaction) -> None:
        channel_id = self._guild_only(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)  # the host may wait for the database
        locale = await self._locale(interaction)
        info = await self.host.join(channel_id, interaction.user.id, interaction.user.display_name)
        await reply(interaction, t("bot.reply.joined", locale, count=len(info.seats)))
        self.publisher.queue_lobby(info)
        await self.dms.welcome(interaction, info, locale)

    @app_commands.command(name="leave", description=_cmd("leave"))
    async def leave(self, interaction: discord.Interaction) -> None:
        channel_id = self._guild_only(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)  # the host may wait for the database
        info = await self.host.leave(channel_id, interaction.user.id)
        await reply(interaction, t("bot.reply.left", await self._locale(interaction)))
        self.publisher.queue_lobby(info)

    @app_commands.command(name="start", description=_cmd("start"))
    async def start(self, interaction: discord.Interaction) -> None:
        channel_id = self._guild_only(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)  # the host may wait for the database
        start = await self.host.start(channel_id, interaction.user.id, can_manage=self._can_manage(interaction))
        self.background.after_start(start)
        await reply(interaction, t("bot.reply.started", await self._locale(interaction)))

    @app_commands.command(name="addbot", description=_cmd("addbot"))
    @app_commands.describe(strength=_opt("addbot", "strength"))
    @app_commands.choices(strength=STRENGTH_CHOICES)
    async def addbot(self, interaction: discord.Interaction, strength: str | None = None) -> None:
        channel_id = self._guild_only(interaction)
        strength = self._chosen(strength, STRENGTH_CHOICES)
        await interaction.response.defer(ephemeral=True, thinking=True)  # the host may wait for the database
        info = await self.host.add_computer(channel_id, interaction.user.id, strength,
                                            can_manage=self._can_manage(interaction))
        await reply(interaction, t("bot.reply.computer_added", await self._locale(interaction),
                                   name=texts.esc(info.seats[-1].name)))
        self.publisher.queue_lobby(info)

    @app_commands.command(name="kick", description=_cmd("kick"))
    @app_commands.describe(player=_opt("kick", "player"))
    async def kick(self, interaction: discord.Interaction, player: discord.User) -> None:
        """In the lobby: remove a player (opener). Running: hand an absent player's seat to the computer."""
        channel_id = self._guild_only(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)  # the host may wait for a computer's move
        locale = await self._locale(interaction)
        outcome = await self.host.kick(channel_id, interaction.user.id, player.id, player.display_name,
                                       can_manage=self._can_manage(interaction))
        if isinstance(outcome, TableInfo):  # removed from the lobby
            await reply(interaction, t("bot.reply.kicked", locale, name=texts.esc(player.display_name)))
            self.publisher.queue_lobby(outcome)
            return
        self.background.after_seat_change(outcome)
        await reply(interaction, t("bot.reply.handed_over", locale, name=texts.esc(outcome.name)))

    @app_commands.command(name="land", description=_cmd("land"))
    @app_commands.describe(site=_opt("land", "site"))
    async def land(self, interaction: discord.Interaction, site: Range[int, 1, 999]) -> None:
        await self._play_command(interaction, [f"land {site}"])

    @app_commands.command(name="build", description=_cmd("build"))
    @app_commands.describe(card=_opt("build", "card"), site=_opt("build", "site"), kind=_opt("build", "kind"))
    @app_commands.choices(card=CARD_CHOICES, kind=KIND_CHOICES)
    async def build(self, interaction: discord.Interaction, card: str | None = None,
                    site: Range[str, 1, SITE_TEXT_MAX] | None = None, kind: str | None = None) -> None:
        """``site`` is text: a site's number, or what autocomplete offers with no card chosen, a site that carries
        its card ("ship 12", :func:`bot.adapter.options.build_site`), so that every offer is played as picked."""
        card, kind = self._chosen(card, CARD_CHOICES), self._chosen(kind, KIND_CHOICES)
        card, site_number = options.build_site(site, card, await self._locale(interaction))
        channel_id = self._channel_for(interaction)
        legal = [parse_move(m) for m in self.host.legal_moves(channel_id, interaction.user.id)]
        you = self.host.view_for(channel_id, interaction.user.id).get("you") if legal else None
        plan = plan_build(legal, you.get("build_sites") if you is not None else None, card, site_number, kind)
        if plan.problem == "need_site":
            raise Refusal("bot.error.need_site", sites=", ".join(map(str, plan.sites)))
        if plan.problem is not None:
            raise Refusal(_BUILD_PROBLEMS[plan.problem])
        if plan.confirm:
            await self._ask_confirmation(interaction, channel_id, str(plan.moves[0]))
            return
        await self._play_command(interaction, [str(m) for m in plan.moves])

    @app_commands.command(name="score", description=_cmd("score"))
    @app_commands.describe(card=_opt("score", "card"))
    async def score(self, interaction: discord.Interaction, card: str) -> None:
        card_id = options.scoring_card_id(card, await self._locale(interaction))
        await self._play_command(interaction, [f"score {card_id}"])

    @app_commands.command(name="choose", description=_cmd("choose"))
    @app_commands.describe(option=_opt("choose", "option"))
    async def choose(self, interaction: discord.Interaction, option: str) -> None:
        locale = await self._locale(interaction)
        channel_id = self._channel_for(interaction)
        move = options.choice_move(option, self.host.legal_moves(channel_id, interaction.user.id), locale)
        if self._confirm_or_play(interaction, channel_id, move):
            await self._ask_confirmation(interaction, channel_id, move)
            return
        await self._play_command(interaction, [move])

    @app_commands.command(name="hint", description=_cmd("hint"))
    async def hint(self, interaction: discord.Interaction) -> None:
        """The coach's advice on the user's turn (only they see it), in a table opened with ``hints:true``."""
        channel_id = self._channel_for(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)  # the coach thinks for seconds
        await self._hint(interaction, channel_id)

    @app_commands.command(name="undo", description=_cmd("undo"))
    async def undo(self, interaction: discord.Interaction) -> None:
        channel_id = self._channel_for(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        locale = await self._locale(interaction)
        result = await self.host.undo(channel_id, interaction.user.id, interaction_id=interaction.id)
        self.background.after_move(result)
        await reply(interaction, _undone(result, locale))

    @app_commands.command(name="board", description=_cmd("board"))
    async def board(self, interaction: discord.Interaction) -> None:
        channel_id = self._channel_for(interaction)
        info = self.host.info(channel_id)
        view = self.host.public_view(channel_id)
        assert info is not None
        in_channel = interaction.guild_id is not None
        locale = info.locale if in_channel else await self._locale(interaction)
        await interaction.response.defer(ephemeral=not in_channel, thinking=True)
        png = await self.pictures.png(view, locale, key=(info.game_id, info.seq, None))
        content = texts.status_text(info, view, locale)
        await interaction.followup.send(content, files=files((png, "board.png")), ephemeral=not in_channel,
                                        allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name="status", description=_cmd("status"))
    async def status(self, interaction: discord.Interaction) -> None:
        locale = await self._locale(interaction)
        channel_id = self._channel_for(interaction)
        info = self.host.info(channel_id)
        if info is None or info.status == "abandoned":
            raise HostError("host.error.no_game")
        if info.status == "lobby":
            await reply(interaction, texts.lobby_text(info, locale))
            return
        deadline = await self.host.turn_deadline(info.game_id) if info.deadline_hours else None
        status = texts.status_text(info, self.host.public_view(channel_id), locale, deadline=deadline)
        if self.host.seat_of(channel_id, interaction.user.id) is not None:
            # a player also sees their own hand (and the move buttons on their turn); only they see it
            await self.dms.show_hand(interaction, channel_id, heading=status)
            return
        await reply(interaction, status, allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name="log", description=_cmd("log"))
    async def log_(self, interaction: discord.Interaction) -> None:
        locale = await self._locale(interaction)
        channel_id = self._channel_for(interaction)
        lines = texts.log_lines(self.host.view_for(channel_id, interaction.user.id), locale)
        if texts.log_fits(lines):
            await reply(interaction, "\n".join(lines))
            return
        await reply(interaction, t("bot.log.attached", locale),
                    file=discord.File(io.BytesIO(texts.log_file(lines).encode()), filename="santacruz-log.txt"))

    @app_commands.command(name="abandon", description=_cmd("abandon"))
    async def abandon(self, interaction: discord.Interaction) -> None:
        channel_id = self._guild_only(interaction)
        locale = await self._locale(interaction)
        info = self.host.may_abandon(channel_id, interaction.user.id, can_manage=self._can_manage(interaction))
        await reply(interaction, t("bot.confirm.abandon", locale), view=abandon_view(info.game_id, locale))

    @app_commands.command(name="rematch", description=_cmd("rematch"))
    async def rematch(self, interaction: discord.Interaction) -> None:
        await self._rematch(interaction, self._guild_only(interaction))

    @app_commands.command(name="away", description=_cmd("away"))
    async def away(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)  # the host may wait for a computer's move
        change = await self.host.away(self._channel_for(interaction), interaction.user.id)
        self.background.after_seat_change(change)
        await reply(interaction, t("bot.reply.away", await self._locale(interaction)))

    @app_commands.command(name="back", description=_cmd("back"))
    async def back(self, interaction: discord.Interaction) -> None:
        """Back from a vacation (in every game, also from a DM), or else from ``away`` in this channel's game."""
        await interaction.response.defer(ephemeral=True, thinking=True)  # the host may wait for a computer's move
        ended = await self.host.vacations.end(interaction.user.id)
        if ended:
            for ending in ended:
                self.background.after_vacation(ending)
            await reply(interaction, t("bot.reply.vacation_over", await self._locale(interaction), count=len(ended)))
            return
        change = await self.host.back(self._channel_for(interaction), interaction.user.id)
        self.background.after_seat_change(change)
        await reply(interaction, t("bot.reply.back", await self._locale(interaction)))

    @app_commands.command(name="vacation", description=_cmd("vacation"))
    @app_commands.describe(days=_opt("vacation", "days"))
    async def vacation(self, interaction: discord.Interaction, days: Range[int, 1, 30]) -> None:
        """Go on vacation in every running game the user sits in (works in DMs too): the others vote."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        changes = await self.host.vacations.start(interaction.user.id, days)
        for change in changes:
            self.background.after_vacation(change)
        await reply(interaction, t("bot.reply.vacation", await self._locale(interaction), count=len(changes),
                                   until=int(changes[0].until)))

    async def on_vacation_vote(self, interaction: discord.Interaction, game_id: int, seat: int, choice: str) -> None:
        """A vote button under a vacation's post: only the game's other players vote (the host decides)."""
        try:
            await self._refresh_game(game_id)  # the vacation may have been started by another process
            self._check_origin(interaction, game_id)
            await interaction.response.defer(ephemeral=True, thinking=True)
            change = await self.host.vacations.vote(game_id, interaction.user.id, seat, choice)
            self.background.after_vacation(change)
            await reply(interaction, t(f"bot.vacation.voted.{choice}", await self._locale(interaction)))
        except Exception as exc:
            await self.handle_error(interaction, exc)

    @app_commands.command(name="rules", description=_cmd("rules"))
    @app_commands.describe(topic=_opt("rules", "topic"))
    @app_commands.choices(topic=TOPIC_CHOICES)
    async def rules(self, interaction: discord.Interaction, topic: str | None = None) -> None:
        locale = await self._locale(interaction)
        topic = self._chosen(topic, TOPIC_CHOICES) or "overview"
        embed = discord.Embed(title=t(f"rules.{topic}.title", locale), description=t(f"rules.{topic}.text", locale))
        embed.set_author(name=t("rules.title", locale))
        embed.set_footer(text=t("rules.choose", locale, topics=t("rules.topics", locale)).replace("`", ""))
        if topic != "pictures":
            await interaction.response.send_message(embed=embed, ephemeral=True)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)  # the legend is drawn off the event loop
        png = await asyncio.to_thread(render_legend, locale=locale)
        embed.set_image(url="attachment://legend.png")
        await interaction.followup.send(embed=embed, file=discord.File(io.BytesIO(png), "legend.png"), ephemeral=True)

    # ------------------------------------------------------------------ the archive: history, past games, export

    def _jump_url(self, guild_id: int | None, channel_id: int, message_id: int | None) -> str | None:
        """The link to a message (a game-over post), or ``None`` while it is not known."""
        if message_id is None:
            return None
        channel = self.bot.get_partial_messageable(channel_id, guild_id=guild_id)
        return channel.get_partial_message(message_id).jump_url

    @app_commands.command(name="history", description=_cmd("history"))
    @app_commands.rename(game_id="id")
    @app_commands.describe(game_id=_opt("history", "id"), export=_opt("history", "export"))
    async def history(self, interaction: discord.Interaction, game_id: Range[int, 1, MAX_GAME_ID] | None = None,
                      export: bool = False) -> None:
        """This server's last finished games; with ``id``, that one game again (board, ranking, chart); with
        ``export``, a game's record as a JSON file (that game, or this channel's last one).

        One command for the archive: Discord allows 25 subcommands in a group (see the README's command list). An
        ``id`` outside the range Discord was told (a forged or outdated client sends any number; one of 2^63 or
        more fits no database integer) is refused in words before anything is read."""
        channel_id = self._guild_only(interaction)
        if game_id is not None and not 1 <= game_id <= MAX_GAME_ID:
            raise Refusal("bot.history.bad_id", id=game_id, most=MAX_GAME_ID)
        await interaction.response.defer(ephemeral=True, thinking=True)  # the host reads the database
        locale = await self._locale(interaction)
        if export:
            await self._export(interaction, channel_id, game_id, locale)
            return
        if game_id is not None:
            await self._past_game(interaction, game_id, locale)
            return
        games = await self.host.history(interaction.guild_id)
        links = [self._jump_url(g.guild_id, g.channel_id, g.over_message_id) for g in games]
        await reply(interaction, texts.history_text(games, links, locale),
                    allowed_mentions=discord.AllowedMentions.none())

    async def _past_game(self, interaction: discord.Interaction, game_id: int, locale: str) -> None:
        """One finished game of this server again: its final board, ranking and game-over chart."""
        past = await self.host.past_game(interaction.guild_id, game_id)
        assert past.view is not None
        board = await self.pictures.png(past.view, locale, key=(past.game_id, "final", None))
        chart = await self.pictures.png(past.view, locale, key=(past.game_id, "final", None), game_over=True)
        url = self._jump_url(past.guild_id, past.channel_id, past.over_message_id)
        await interaction.followup.send(texts.past_game_text(past, url, locale), ephemeral=True,
                                        files=files((board, "board.png"), (chart, "game-over.png")),
                                        allowed_mentions=discord.AllowedMentions.none())

    async def _export(self, interaction: discord.Interaction, channel_id: int, game_id: int | None,
                      locale: str) -> None:
        """A finished game's record (deal without the seed, and the moves) as a JSON file."""
        record = await self.host.game_record(interaction.guild_id, channel_id, game_id)
        name = f"santacruz-game-{record['game_id']}.json"
        data = json.dumps(record, ensure_ascii=False, indent=1).encode()
        await reply(interaction, t("bot.export.sent", locale, id=record["game_id"], file=name),
                    file=discord.File(io.BytesIO(data), filename=name))

    # ------------------------------------------------------------------ players' history: stats, leaderboard, forget

    @app_commands.command(name="stats", description=_cmd("stats"))
    @app_commands.describe(player=_opt("stats", "player"), leaderboard=_opt("stats", "leaderboard"))
    @app_commands.choices(leaderboard=BOARD_CHOICES)
    async def stats(self, interaction: discord.Interaction, player: discord.User | None = None,
                    leaderboard: str | None = None) -> None:
        """A player's statistics on this server; with ``leaderboard``, this server's leaderboard ordered that way
        (this was ``/santacruz leaderboard``: one command, as Discord allows 25 subcommands in a group)."""
        self._guild_only(interaction)
        assert interaction.guild_id is not None
        by = self._chosen(leaderboard, BOARD_CHOICES)
        if by is not None and player is not None:
            raise Refusal("bot.stats.player_or_leaderboard")
        locale = await self._locale(interaction)
        if by is not None:
            await self._leaderboard(interaction, interaction.guild_id, by, locale)
            return
        who = player or interaction.user
        await interaction.response.defer(ephemeral=True, thinking=True)
        stats = await self.host.stats(interaction.guild_id, who.id)
        if stats is None:
            await reply(interaction, t("bot.stats.none", locale, name=texts.esc(who.display_name)))
            return
        if not stats.games:  # only games with hints: no record to draw
            await reply(interaction, history_texts.stats_text(stats, locale))
            return
        titles = (t("bot.stats.chart_rating", locale), t("bot.stats.chart_score", locale))
        png = await asyncio.to_thread(render_stats, stats.rating_history, stats.scores, titles=titles)
        await reply(interaction, history_texts.stats_text(stats, locale), files=files((png, "stats.png")))

    async def _leaderboard(self, interaction: discord.Interaction, guild_id: int, by: str, locale: str) -> None:
        """One page of this server's leaderboard ordered ``by``, with the pages' buttons (``stats leaderboard:``)."""
        board = await self.host.leaderboard(guild_id, interaction.user.id, by)
        await reply(interaction, history_texts.leaderboard_text(board, interaction.user.id, locale),
                    view=leaderboard_view(board, locale) or discord.utils.MISSING)

    async def on_leaderboard_page(self, interaction: discord.Interaction, by: str, page: int) -> None:
        """A leaderboard's previous/next button (the page is in its custom id: it works after a restart)."""
        try:
            self._guild_only(interaction)
            assert interaction.guild_id is not None
            locale = await self._locale(interaction)
            board = await self.host.leaderboard(interaction.guild_id, interaction.user.id, by, page)
            await interaction.response.edit_message(
                content=history_texts.leaderboard_text(board, interaction.user.id, locale),
                view=leaderboard_view(board, locale), allowed_mentions=ALLOWED_MENTIONS)
        except Exception as exc:
            await self.handle_error(interaction, exc)

    async def on_forget_ask(self, interaction: discord.Interaction, user_id: int) -> None:
        """"Forget me…" on a settings panel: the confirm question (only its owner may go on)."""
        try:
            locale = await self._locale(interaction)
            if interaction.user.id != user_id:
                raise Refusal("bot.forget.not_yours")
            await reply(interaction, t("bot.forget.question", locale), view=forget_view(user_id, locale))
        except Exception as exc:
            await self.handle_error(interaction, exc)

    async def on_forget_confirm(self, interaction: discord.Interaction, user_id: int) -> None:
        """The confirm button of forget-me: only its asker may press it."""
        try:
            locale = await self._locale(interaction)
            if interaction.user.id != user_id:
                raise Refusal("bot.forget.not_yours")
            forgotten = await self.host.forget_me(user_id)
            await interaction.response.edit_message(
                content=t("bot.forget.done", locale, results=forgotten.results, ratings=forgotten.ratings,
                          games=forgotten.games_renamed), view=None)
        except Exception as exc:
            await self.handle_error(interaction, exc)


    # ------------------------------------------------------------------ a person's own games and settings

    @app_commands.command(name="games", description=_cmd("games"))
    async def games(self, interaction: discord.Interaction) -> None:
        """Every open game the user sits in, on every server (read from the database), theirs to move first."""
        await interaction.response.defer(ephemeral=True, thinking=True)  # the host reads the database
        locale = await self._locale(interaction)
        games = await self.host.open_games_for(interaction.user.id)
        deadlines = {g.game_id: until for g in games if g.status == "running"
                     and (until := await self.host.turn_deadline(g.game_id)) is not None}
        await reply(interaction, settings_texts.games_text(games, locale, deadlines),
                    allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name="settings", description=_cmd("settings"))
    @app_commands.describe(time_zone=_opt("settings", "time_zone"), quiet_from=_opt("settings", "quiet_from"),
                           quiet_to=_opt("settings", "quiet_to"), quiet_off=_opt("settings", "quiet_off"),
                           reminders=_opt("settings", "reminders"), reminder_hours=_opt("settings", "reminder_hours"),
                           turn_dms=_opt("settings", "turn_dms"))
    async def settings_(self, interaction: discord.Interaction, time_zone: str | None = None,
                        quiet_from: Range[int, 0, 23] | None = None, quiet_to: Range[int, 0, 23] | None = None,
                        quiet_off: bool = False, reminders: bool | None = None,
                        reminder_hours: Range[int, 1, MAX_REMINDER_HOURS] | None = None,
                        turn_dms: bool | None = None) -> None:
        """The user's own settings: shown as they are, or changed (then shown), with "Forget me…" below."""
        locale = await self._locale(interaction)
        user_id = interaction.user.id
        await self.host.refresh_settings()  # another process may have changed them since its last sweep
        if (quiet_from is None) != (quiet_to is None) and not quiet_off:
            raise Refusal("bot.settings.quiet_both")
        quiet = (quiet_from, quiet_to) if quiet_from is not None and quiet_to is not None else None
        asked = (time_zone, quiet, reminders, reminder_hours, turn_dms)
        changing = quiet_off or any(value is not None for value in asked)
        if changing:
            await self.host.change_settings(user_id, time_zone=time_zone, quiet=quiet, quiet_off=quiet_off,
                                            reminders=reminders, reminder_hours=reminder_hours, turn_dms=turn_dms)
            await self.publisher.release_held()  # held DMs the change made due go out now
        text = settings_texts.settings_text(self.host.settings_of(user_id), locale, now=self.host.now(),
                                            default_hours=self.settings.reminder_hours, saved=changing)
        await reply(interaction, text, view=settings_view(user_id, locale))

    @settings_.autocomplete("time_zone")
    async def _time_zones(self, interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        return options.time_zones(current)

    # ------------------------------------------------------------------ autocomplete

    async def _autocomplete_context(self, interaction: discord.Interaction) -> tuple[View, list[str]] | None:
        """The user's own view and legal moves, or ``None`` if they play no game here (nothing to suggest).

        Discord sends autocomplete past :meth:`interaction_check`, so the game is read again here first (with a
        shared database): another process may have stored a move since this one last looked. If the database does
        not answer within :data:`AUTOCOMPLETE_WAIT`, nothing is suggested rather than what an old copy allows."""
        if self.host.shared:
            try:
                await asyncio.wait_for(self._read_again(interaction), AUTOCOMPLETE_WAIT)
            except (HostError, TimeoutError) as exc:
                log.warning("autocomplete without the game as the database has it (%s): nothing suggested",
                            exc.key if isinstance(exc, HostError) else "no answer in time")
                return None
        try:
            channel_id = self._channel_for(interaction)
            if self.host.seat_of(channel_id, interaction.user.id) is None:
                return None
            return (self.host.view_for(channel_id, interaction.user.id),
                    self.host.legal_moves(channel_id, interaction.user.id))
        except (HostError, Refusal):
            return None

    @land.autocomplete("site")
    async def _land_sites(self, interaction: discord.Interaction, current: Any) -> list[Choice[int]]:
        context = await self._autocomplete_context(interaction)
        if context is None:
            return []
        view, legal = context
        return options.land_sites(view, legal, current, await self._locale(interaction))

    @build.autocomplete("site")
    async def _build_sites(self, interaction: discord.Interaction, current: Any) -> list[Choice[str]]:
        context = await self._autocomplete_context(interaction)
        if context is None:
            return []
        view, legal = context
        locale = await self._locale(interaction)
        card = getattr(interaction.namespace, "card", None)
        kind = getattr(interaction.namespace, "kind", None)
        return options.build_sites(view, legal, current, locale, card, kind)

    @score.autocomplete("card")
    async def _score_cards(self, interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        context = await self._autocomplete_context(interaction)
        if context is None:
            return []
        view, legal = context
        return options.score_cards(view, legal, current, await self._locale(interaction))

    @choose.autocomplete("option")
    async def _choose_options(self, interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        context = await self._autocomplete_context(interaction)
        if context is None:
            return []
        view, legal = context
        return options.choose_options(view, legal, current, await self._locale(interaction))
