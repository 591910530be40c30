"""A person's turn: ``/santacruz land``, ``build``, ``score``, ``choose``, ``undo``, ``hint``, their autocomplete, and
the move controls' buttons and menus (in a turn DM or the hand of ``status``), *Undo* and *Hint*.

One confirmation flow: a card that builds nothing, or a move that cannot be taken back (the host's
:meth:`bot.host.play.Play.move_risk`), is asked first in one click naming what it reveals or scores (on the clicked
message itself, in place of its controls, with *Back*); any other move is played at once, and its answer carries
*Undo* while :meth:`bot.host.play.Play.undoable_by` names the user. One *Undo* (:meth:`TurnCommands._take_back`)
for the command, the post's button and the answer's button; the host decides who may undo.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, TypeVar

import discord
from discord import app_commands
from discord.app_commands import Choice, Range

from bot.adapter import clicked, options
from bot.adapter.commands.base import Feature, choice, chosen, describe, option
from bot.adapter.errors import Refusal
from bot.adapter.sending import reply
from bot.adapter.threads import thread_name
from bot.adapter.views import confirm_view, controls_view, needs_confirmation, rest_of_turn_view, undo_view
from bot.adapter.words.common import OPTION_MAX, clip, esc, names_of
from bot.adapter.words.dm import turn_over_text, turn_prompt
from bot.adapter.words.moves import confirm_question, final_question, played_text
from bot.host.errors import HostError
from bot.host.outbox import turn_over_payload
from bot.host.table import MoveResult, TableInfo
from engine import BUILDING_CARDS, SINGLE_BUILDS, View, parse_move, plan_build
from i18n import describe_move, t
from i18n.coach import advice_text

log = logging.getLogger(__name__)
T = TypeVar("T", int, str)

CARD_CHOICES: Final = [choice(f"game.card.{c}.one", c) for c in BUILDING_CARDS]
KIND_CHOICES: Final = [choice(f"game.card.{c}.short", c) for c in SINGLE_BUILDS]
BUILD_PROBLEMS: Final = {"need_card": "bot.error.need_card", "need_kind": "bot.error.need_kind",
                         "kind_only_double": "bot.error.kind_only_double"}
"""The refusal for each problem of :func:`engine.plan_build` (``need_site`` also lists the sites)."""
SITE_TEXT_MAX: Final = 20
"""The longest text ``/santacruz build site:`` takes (a number, or a site with its card: "river 12")."""
AUTOCOMPLETE_WAIT: Final = 2.0
"""Seconds autocomplete waits for the database (Discord takes its answer within 3 s): without the game as the
database has it, it suggests nothing rather than what a copy that may be behind would allow."""


def undone_text(result: MoveResult, locale: str) -> str:
    """The answer to the player who took back their move, said to them ("Taken back: You land on site 10")."""
    return t("bot.reply.undone", locale, move=describe_move(result.move, locale, names_of(result.view), result.seat,
                                                            you=True))


class TurnCommands(Feature):
    """Moves by command and by click, the questions before them, *Undo* and *Hint*."""

    # ------------------------------------------------------------------ the commands

    @app_commands.command(name="land", description=describe("land"))
    @app_commands.describe(site=option("land", "site"))
    async def land(self, interaction: discord.Interaction, site: Range[int, 1, 999]) -> None:
        await self._play_command(interaction, [f"land {site}"])

    @app_commands.command(name="build", description=describe("build"))
    @app_commands.describe(card=option("build", "card"), site=option("build", "site"), kind=option("build", "kind"))
    @app_commands.choices(card=CARD_CHOICES, kind=KIND_CHOICES)
    async def build(self, interaction: discord.Interaction, card: str | None = None,
                    site: Range[str, 1, SITE_TEXT_MAX] | None = None, kind: str | None = None) -> None:
        """``site`` is text: a site's number, or what autocomplete offers with no card chosen, a site that carries
        its card ("ship 12", :func:`bot.adapter.options.build_site`), so that every offer is played as picked."""
        card, kind = chosen(card, CARD_CHOICES), chosen(kind, KIND_CHOICES)
        channel_id = self._channel_for(interaction)  # first: which game (several in the channel's threads: refused)
        card, site_number = options.build_site(site, card, await self._locale(interaction))
        legal = [parse_move(m) for m in self.host.play.legal_moves(channel_id, interaction.user.id)]
        you = self.host.play.view_for(channel_id, interaction.user.id).get("you") if legal else None
        plan = plan_build(legal, you.get("build_sites") if you is not None else None, card, site_number, kind)
        if plan.problem == "need_site":
            raise Refusal("bot.error.need_site", sites=", ".join(map(str, plan.sites)))
        if plan.problem is not None:
            raise Refusal(BUILD_PROBLEMS[plan.problem])
        if plan.confirm:
            await self._ask(interaction, channel_id, str(plan.moves[0]))
            return
        await self._play_command(interaction, [str(m) for m in plan.moves])

    @app_commands.command(name="score", description=describe("score"))
    @app_commands.describe(card=option("score", "card"))
    async def score(self, interaction: discord.Interaction, card: str) -> None:
        self._channel_for(interaction)  # first: which game (several in the channel's threads: refused)
        card_id = options.scoring_card_id(card, await self._locale(interaction))
        await self._play_command(interaction, [f"score {card_id}"])

    @app_commands.command(name="choose", description=describe("choose"))
    @app_commands.describe(option=option("choose", "option"))
    async def choose(self, interaction: discord.Interaction, option: str) -> None:
        locale = await self._locale(interaction)
        channel_id = self._channel_for(interaction)
        legal = self.host.play.legal_moves(channel_id, interaction.user.id)
        move = options.choice_move(option, legal, locale)
        if move in legal and needs_confirmation(move, legal, self.host.play.view_for(channel_id, interaction.user.id)):
            await self._ask(interaction, channel_id, move)
            return
        await self._play_command(interaction, [move])

    @app_commands.command(name="hint", description=describe("hint"))
    async def hint(self, interaction: discord.Interaction) -> None:
        """The coach's advice on the user's turn (only they see it), in a table opened with ``hints:true``."""
        channel_id = self._channel_for(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)  # the coach thinks for seconds
        await self._hint(interaction, channel_id)

    @app_commands.command(name="undo", description=describe("undo"))
    async def undo(self, interaction: discord.Interaction) -> None:
        channel_id = self._channel_for(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        await reply(interaction, await self._take_back(interaction, channel_id))

    # ------------------------------------------------------------------ playing, and asking first

    async def _play_command(self, interaction: discord.Interaction, moves: Sequence[str]) -> None:
        """Play ``moves`` (one, or a double move and its first build) for the user, answering ephemerally.

        When one of them cannot be taken back, none is played yet: the answer is a one-click question naming what
        it reveals or scores, whose click plays them all (a double move's card is not spent before its build is
        confirmed, so Cancel leaves the hand as it was); an answer that played everything carries *Undo* while the
        user may take it back."""
        channel_id = self._channel_for(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        locale = await self._locale(interaction)
        risk = self.host.play.move_risk(channel_id, interaction.user.id, moves)
        if risk.first_final is not None:
            info = self._table(channel_id)
            view = self.host.play.view_for(channel_id, interaction.user.id)
            question = final_question(moves[risk.first_final], risk, locale, names_of(view), seat=view["seat"])
            then = moves[1] if len(moves) > 1 else None
            await reply(interaction, question,
                        view=confirm_view(info.game_id, info.seq, moves[0], locale, final=True, then=then))
            return
        lines, played = await self._play_moves(interaction, channel_id, moves, locale)
        if len(played) < len(moves):  # a later move was refused: its reason ends the answer
            await reply(interaction, "\n".join(lines))
            return
        undo = self._after_move_view(interaction, played[-1], len(played), locale)
        if self._still_to_move(interaction, played[-1]):
            lines.append(turn_prompt(self.host.play.view_for(channel_id, interaction.user.id), locale))
        await reply(interaction, "\n".join(lines), **({"view": undo} if undo is not None else {}))

    async def _play_moves(self, interaction: discord.Interaction, channel_id: int, moves: Sequence[str], locale: str,
                          *, game_id: int | None = None,
                          seq: int | None = None) -> tuple[list[str], list[MoveResult]]:
        """Play ``moves`` in order for the user (``game_id`` and ``seq``: a button's game and position, each move at
        the next); the mover's words for each, and the results of those played. A refusal of the first move is
        raised; of a later one, its reason ends the words (the moves before it stand)."""
        played: list[MoveResult] = []

        async def play(i: int) -> str:
            result = await self.host.play.move(channel_id, interaction.user.id, moves[i],
                                               interaction_id=interaction.id if i == 0 else None, game_id=game_id,
                                               expected_seq=None if seq is None else seq + i)
            played.append(result)
            return played_text(result.move, locale, names_of(result.view), result.seat, result.view)

        try:
            lines = await self._in_order(interaction, locale, len(moves), play)
        finally:
            # delivered once every move is stored, in order: the turn DM owed after a double move's card is then of
            # a turn already passed (its build came with it) and is not sent
            for done in played:
                self.background.after_move(done)
        return lines, played

    async def _in_order(self, interaction: discord.Interaction, locale: str, count: int,
                        step: Callable[[int], Awaitable[str]]) -> list[str]:
        """The words of ``step(0)``, ``step(1)``… up to ``count`` steps (each a host call for the user): a refusal of
        the first is raised; of a later one, its reason ends the words (the steps before it stand)."""
        lines: list[str] = []
        for i in range(count):
            try:
                lines.append(await step(i))
            except HostError as exc:
                if not lines:
                    raise
                lines.append(self.errors.host_error_text(interaction, exc, locale))
                break
        return lines

    async def moves_confirmed(self, interaction: discord.Interaction, game_id: int, seq: int,
                              moves: tuple[str, ...]) -> None:
        """*Play it* under the question asked before a double move's card and its first build (neither played yet):
        both, in order, while the game is still where the question was asked."""
        locale = await self._locale(interaction)
        info = self._game(game_id)
        await interaction.response.defer()
        lines, played = await self._play_moves(interaction, info.channel_id, moves, locale, game_id=game_id, seq=seq)
        undo = self._after_move_view(interaction, played[-1], len(played), locale)
        if len(played) == len(moves) and self._still_to_move(interaction, played[-1]):
            lines.append(turn_prompt(self.host.play.view_for(info.channel_id, interaction.user.id), locale))
        await interaction.edit_original_response(content="\n".join(lines), view=undo)

    def _table(self, channel_id: int) -> TableInfo:
        info = self.host.games.info(channel_id)
        if info is None:
            raise HostError("host.error.no_game")
        return info

    def _question(self, interaction: discord.Interaction, channel_id: int, move: str, locale: str, *,
                  builds_nothing: bool) -> tuple[str, bool]:
        """The question before ``move`` (it builds nothing, and/or it cannot be taken back, naming what it reveals or
        scores) and whether it cannot be taken back."""
        risk = self.host.play.move_risk(channel_id, interaction.user.id, [move])
        if not risk.final:
            return confirm_question(move, locale), False
        view = self.host.play.view_for(channel_id, interaction.user.id)
        question = final_question(move, risk, locale, names_of(view), seat=view["seat"], builds_nothing=builds_nothing)
        return question, True

    async def _ask(self, interaction: discord.Interaction, channel_id: int, move: str) -> None:
        """A command's move that builds nothing: the question as its answer, with the one click that plays it."""
        locale = await self._locale(interaction)
        info = self._table(channel_id)
        question, final = self._question(interaction, channel_id, move, locale, builds_nothing=True)
        await reply(interaction, question, view=confirm_view(info.game_id, info.seq, move, locale, final=final))

    async def move_clicked(self, interaction: discord.Interaction, game_id: int, seq: int, move: str, *,
                           confirmed: bool) -> None:
        """A move button or menu (in a DM, an ephemeral hand or a confirmation): the same in a DM and the channel.
        A move that builds nothing or cannot be taken back is asked first, on the clicked message itself."""
        locale = await self._locale(interaction)
        info = self._game(game_id)
        user_id = interaction.user.id
        legal = self.host.play.legal_moves(info.channel_id, user_id)
        if not confirmed and move in legal:
            builds_nothing = needs_confirmation(move, legal, self.host.play.view_for(info.channel_id, user_id))
            if builds_nothing or self.host.play.move_risk(info.channel_id, user_id, [move]).final:
                await self._ask_in_place(interaction, game_id, seq, move, locale, builds_nothing=builds_nothing)
                return
        await interaction.response.defer()
        result = await self.host.play.move(info.channel_id, user_id, move, interaction_id=interaction.id,
                                           game_id=game_id, expected_seq=seq)
        message = interaction.message
        self.background.after_move(result, clicked=message.id if message is not None else None)
        played = played_text(result.move, locale, names_of(result.view), result.seat, result.view)
        undo = self._after_move_view(interaction, result, 1, locale)
        if self._still_to_move(interaction, result):
            played = f"{played}\n{turn_prompt(self.host.play.view_for(info.channel_id, user_id), locale)}"
        over = (turn_over_text(self._game(game_id), turn_over_payload(result), locale)
                if result.passed_user_id == user_id else None)  # the turn's controls, whose turn is over
        await clicked.played(interaction, message, played, over=over, after=undo, own_question=confirmed)

    async def _ask_in_place(self, interaction: discord.Interaction, game_id: int, seq: int, move: str, locale: str,
                            *, builds_nothing: bool) -> None:
        """Ask before ``move`` on the message whose controls were clicked (a turn DM, or the hand of ``status``):
        its question in place of the controls, *Play it* and *Back* (no second message)."""
        info = self._game(game_id)
        question, final = self._question(interaction, info.channel_id, move, locale, builds_nothing=builds_nothing)
        message = interaction.message
        if message is None:
            await reply(interaction, question, view=confirm_view(game_id, seq, move, locale, final=final))
            return
        await clicked.ask(interaction, message, question,
                          confirm_view(game_id, seq, move, locale, final=final, in_place=True))

    async def controls_clicked(self, interaction: discord.Interaction, game_id: int) -> None:
        """*Back* from a question asked in place: the message's own text and the move controls of now again."""
        locale = await self._locale(interaction)
        info = self._game(game_id)
        controls = None
        if info.status == "running" and self.host.games.seat_of(info.channel_id, interaction.user.id) is not None:
            view = self.host.play.view_for(info.channel_id, interaction.user.id)
            controls = controls_view(info.game_id, info.seq, view, locale, hints=info.hints, emojis=self.emojis)
        await clicked.back(interaction, interaction.message, controls)

    def _after_move_view(self, interaction: discord.Interaction, result: MoveResult | None, count: int,
                         locale: str) -> discord.ui.View | None:
        """*Undo* for the ``count`` moves that ended in ``result``, while the host lets the user take them back; when
        they leave the user to move (no turn DM follows), the controls of the rest of the turn with it."""
        if result is None:
            return None
        count_or_none = count if self.host.play.undoable_by(result.channel_id) == interaction.user.id else None
        if self._still_to_move(interaction, result):
            view = self.host.play.view_for(result.channel_id, interaction.user.id)
            return rest_of_turn_view(result.game_id, result.seq, view, locale, count_or_none, hints=result.hints,
                                     emojis=self.emojis)
        return None if count_or_none is None else undo_view(result.game_id, result.seq, count_or_none, locale)

    def _still_to_move(self, interaction: discord.Interaction, result: MoveResult) -> bool:
        """Whether ``result`` (the user's own move) leaves the user to move in a game still at that move."""
        info = self.host.games.info(result.channel_id)
        return (not result.game_over and result.to_move_user_id == interaction.user.id and info is not None
                and info.game_id == result.game_id and info.seq == result.seq)

    # ------------------------------------------------------------------ Undo

    async def _take_back(self, interaction: discord.Interaction, channel_id: int, *, game_id: int | None = None,
                         seq: int | None = None, count: int = 1) -> str:
        """Take back the user's last ``count`` moves (the host decides whether they may: their move, nobody acted
        since, nothing revealed; ``game_id`` and ``seq``: a button's game and position, refused once outdated); the
        answer in words. A second move that may not be taken back is said after the first that was."""
        locale = await self._locale(interaction)

        async def undo(i: int) -> str:
            result = await self.host.play.undo(channel_id, interaction.user.id,
                                               interaction_id=interaction.id if i == 0 else None, game_id=game_id,
                                               expected_seq=None if seq is None else seq + i)
            self.background.after_move(result)
            return undone_text(result, locale)

        return "\n".join(await self._in_order(interaction, locale, count, undo))

    async def post_undo_clicked(self, interaction: discord.Interaction, game_id: int, seq: int | None) -> None:
        """*Undo* under a move's post: as ``/santacruz undo`` (the post itself is edited, not posted again), while
        the game is still at the position ``seq`` the post's move left (else refused as outdated: a click on an
        older post, or a forged one, takes nothing back)."""
        info = self._game(game_id)
        await interaction.response.defer(ephemeral=True, thinking=True)
        if seq is None:  # every post's Undo carries its position: without one it is not ours
            raise HostError("host.error.stale")
        await reply(interaction, await self._take_back(interaction, info.channel_id, game_id=game_id, seq=seq))

    async def answer_undo_clicked(self, interaction: discord.Interaction, game_id: int, seq: int, count: int) -> None:
        """*Undo* on the answer to a move (or on the turn DM whose controls made it): its ``count`` moves, while the
        game is still where they left it; the message then says what was taken back, and nothing else."""
        info = self._game(game_id)
        await interaction.response.defer()
        text = await self._take_back(interaction, info.channel_id, game_id=game_id, seq=seq, count=count)
        await clicked.taken_back(interaction, interaction.message, text)

    # ------------------------------------------------------------------ the coach

    async def _hint(self, interaction: discord.Interaction, channel_id: int, *, game_id: int | None = None,
                    seq: int | None = None) -> None:
        """The coach's advice for the user's own seat, for them alone (the interaction is deferred already); the
        host decides whether they may ask now (:meth:`bot.host.hints.Hints.hint`)."""
        locale = await self._locale(interaction)
        answer = await self.host.hints.hint(channel_id, interaction.user.id, game_id=game_id, expected_seq=seq)
        await reply(interaction, advice_text(answer.advice, locale, answer.names, escape=esc, notation=False),
                    allowed_mentions=discord.AllowedMentions.none())

    async def hint_clicked(self, interaction: discord.Interaction, game_id: int, seq: int | None) -> None:
        """*Hint* beside a turn's controls: the same answer as ``/santacruz hint``, refused once that turn passed."""
        if seq is None:  # every Hint button carries its position: without one it is not ours
            raise HostError("host.error.stale")
        await self._hint(interaction, self._game(game_id).channel_id, game_id=game_id, seq=seq)

    # ------------------------------------------------------------------ autocomplete

    async def _autocomplete_context(self,
                                    interaction: discord.Interaction) -> tuple[View, list[str]] | list[int] | None:
        """The user's own view and legal moves, or ``None`` if they play no game here (nothing to suggest); in a
        channel whose threads hold several of the user's games, those threads (each is offered, to go there).

        Discord sends autocomplete past the cog's ``interaction_check``, so the game is read again here first (with a
        shared database): another process may have stored a move since this one last looked. If the database does
        not answer within :data:`AUTOCOMPLETE_WAIT`, nothing is suggested rather than what an old copy allows."""
        try:
            await asyncio.wait_for(self._reading_for_autocomplete(interaction), AUTOCOMPLETE_WAIT)
        except (HostError, TimeoutError) as exc:
            log.warning("autocomplete without the game as the database has it (%s): nothing suggested",
                        exc.key if isinstance(exc, HostError) else "no answer in time")
            return None
        try:
            channel_id = self._channel_for(interaction)
            if self.host.games.seat_of(channel_id, interaction.user.id) is None:
                return None
            return (self.host.play.view_for(channel_id, interaction.user.id),
                    self.host.play.legal_moves(channel_id, interaction.user.id))
        except HostError as exc:
            return list(exc.params["channels"]) if exc.key == "host.error.which_game" else None
        except Refusal:
            return None

    async def _reading_for_autocomplete(self, interaction: discord.Interaction) -> None:
        if self.host.shared:
            await self._read_again(interaction)
        await self._find_game_here(interaction)

    async def _suggest(self, interaction: discord.Interaction, offer: Callable[..., list[Choice[T]]],
                       current: Any, *more: str | None, nothing: T) -> list[Choice[T]]:
        """What autocomplete offers: ``offer(view, legal, current, locale, *more)`` of the user's own view and legal
        moves, in their language; nothing outside the user's game. Typed in a channel whose threads hold several of
        the user's games: those games, each named with what to do (type the command in its thread), with the value
        ``nothing`` (never a move: picked, the command names the threads)."""
        context = await self._autocomplete_context(interaction)
        if context is None:
            return []
        locale = await self._locale(interaction)
        if isinstance(context, list):
            games = [info for channel_id in context if (info := self.host.games.info(channel_id)) is not None]
            return [Choice(name=clip(t("bot.autocomplete.in_thread", locale, game=thread_name(info)), OPTION_MAX),
                           value=nothing) for info in games][:25]
        view, legal = context
        return offer(view, legal, current, locale, *more)

    @land.autocomplete("site")
    async def _land_sites(self, interaction: discord.Interaction, current: Any) -> list[Choice[int]]:
        return await self._suggest(interaction, options.land_sites, current, nothing=0)

    @build.autocomplete("site")
    async def _build_sites(self, interaction: discord.Interaction, current: Any) -> list[Choice[str]]:
        """The sites of the card (and kind) chosen so far in the same command."""
        namespace = interaction.namespace
        return await self._suggest(interaction, options.build_sites, current, getattr(namespace, "card", None),
                                   getattr(namespace, "kind", None), nothing="0")

    @score.autocomplete("card")
    async def _score_cards(self, interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        return await self._suggest(interaction, options.score_cards, current, nothing="0")

    @choose.autocomplete("option")
    async def _choose_options(self, interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        return await self._suggest(interaction, options.choose_options, current, nothing="0")
