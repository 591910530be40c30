"""A person's turn: ``/santacruz land``, ``build``, ``score``, ``choose``, ``undo``, ``hint``, their autocomplete, and
the move controls' buttons and menus (in a turn DM or the hand of ``status``), *Undo* and *Hint*.

A move, by command or by click, is one host call (:meth:`bot.host.play.Play.ask_or_play`), which answers either
"ask first" (a card that builds nothing, or a move that cannot be taken back: the question, in one click naming what
it reveals or scores, is asked on the clicked message itself, in place of its controls, with *Back*) or "played" (the
answer carries *Undo* while the host lets the user take the moves back, and the rest of the turn's controls while
the user is still to move). One *Undo* (:meth:`TurnCommands._take_back`) for the command, the post's button and the
answer's button; the host decides who may undo.
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
from bot.adapter.views import confirm_view, controls_view, rest_of_turn_view, undo_view
from bot.adapter.words.common import OPTION_MAX, clip, esc, names_of
from bot.adapter.words.dm import turn_over_text, turn_prompt
from bot.adapter.words.moves import asked_question, played_text
from bot.host.deliveries import turn_over_payload
from bot.host.errors import HostError
from bot.host.play import Asked, Played
from bot.host.table import MoveResult
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
        await self._play_command(interaction, [str(m) for m in plan.moves])  # a card that builds nothing: asked

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
        await self._play_command(interaction, [options.choice_move(option, legal, locale)])

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

        When the host asks first, none is played yet: the answer is the one-click question naming what they reveal
        or score, whose click plays them all (a double move's card is not spent before its build is confirmed, so
        Cancel leaves the hand as it was); an answer that played everything carries *Undo* while the user may take
        it back, and the rest of the turn's controls while the user is still to move."""
        channel_id = self._channel_for(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        locale = await self._locale(interaction)
        answer = await self.host.play.ask_or_play(channel_id, interaction.user.id, moves, interaction_id=interaction.id)
        if isinstance(answer, Asked):
            await reply(interaction, asked_question(answer, locale), view=self._confirm_view(answer, locale))
            return
        # delivered once every move is stored, in order: the turn DM owed after a double move's card is then of a turn
        # already passed (its build came with it) and is not sent
        for result in answer.results:
            self.background.after_move(result)
        lines = self._played_lines(interaction, answer, locale)
        if answer.refused is not None:  # a later move was refused: its reason ends the answer
            await reply(interaction, "\n".join(lines))
            return
        after = self._after_move_view(answer, locale)
        await reply(interaction, "\n".join(lines), **({"view": after} if after is not None else {}))

    def _played_lines(self, interaction: discord.Interaction, answer: Played, locale: str) -> list[str]:
        """The mover's words for each move played, a later move's refusal, and the turn's prompt while the user is
        still to move."""
        lines = [played_text(r.move, locale, names_of(r.view), r.seat, r.view) for r in answer.results]
        if answer.refused is not None:
            lines.append(self.errors.host_error_text(interaction, answer.refused, locale))
        elif answer.view is not None:
            lines.append(turn_prompt(answer.view, locale))
        return lines

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

    @staticmethod
    def _confirm_view(asked: Asked, locale: str, *, in_place: bool = False) -> discord.ui.View:
        """The one click that plays what the host asked about (a double move's card with its first build), and
        Cancel, or *Back* to the controls when the question took their place (``in_place``)."""
        then = asked.moves[1] if len(asked.moves) > 1 else None
        return confirm_view(asked.game_id, asked.seq, asked.moves[0], locale, final=asked.risk.final, then=then,
                            in_place=in_place)

    async def move_clicked(self, interaction: discord.Interaction, game_id: int, seq: int, moves: tuple[str, ...], *,
                           confirmed: bool) -> None:
        """A move button or menu (in a DM, an ephemeral hand or a confirmation; ``moves``: the move, or after a
        question a double move's card and its first build): the same in a DM and the channel. What the host asks
        first is asked on the clicked message itself, in place of its controls."""
        locale = await self._locale(interaction)
        info = self._game(game_id)
        user_id = interaction.user.id
        await interaction.response.defer()  # the host may wait for the database
        answer = await self.host.play.ask_or_play(info.channel_id, user_id, moves, confirmed=confirmed,
                                                  interaction_id=interaction.id, game_id=game_id, expected_seq=seq)
        message = interaction.message
        if isinstance(answer, Asked):
            await self._ask_in_place(interaction, answer, locale)
            return
        for result in answer.results:  # delivered once every move is stored, in order
            clicked_id = message.id if message is not None and len(moves) == 1 else None
            self.background.after_move(result, clicked=clicked_id)
        last = answer.results[-1]
        over = (turn_over_text(answer.info, turn_over_payload(last), locale)
                if len(moves) == 1 and last.passed_user_id == user_id else None)  # the turn's controls: as its turn DM
        # the click under a question asked before a double move and its build answers that question (its own message)
        await clicked.played(interaction, message, "\n".join(self._played_lines(interaction, answer, locale)),
                             over=over, after=self._after_move_view(answer, locale),
                             own_question=confirmed or len(moves) > 1)

    async def _ask_in_place(self, interaction: discord.Interaction, asked: Asked, locale: str) -> None:
        """Ask before a move on the message whose controls were clicked (a turn DM, or the hand of ``status``): its
        question in place of the controls, *Play it* and *Back* (no second message)."""
        question = asked_question(asked, locale)
        message = interaction.message
        if message is None:
            await reply(interaction, question, view=self._confirm_view(asked, locale))
            return
        await clicked.ask(interaction, message, question, self._confirm_view(asked, locale, in_place=True))

    async def controls_clicked(self, interaction: discord.Interaction, game_id: int) -> None:
        """*Back* from a question asked in place: the message's own text and the move controls of now again."""
        locale = await self._locale(interaction)
        info = self._game(game_id)
        controls = None
        if info.status == "running" and self.host.games.seat_of(info.channel_id, interaction.user.id) is not None:
            view = self.host.play.view_for(info.channel_id, interaction.user.id)
            controls = controls_view(info.game_id, info.seq, view, locale, hints=info.hints, emojis=self.emojis)
        await clicked.back(interaction, interaction.message, controls)

    def _after_move_view(self, answer: Played, locale: str) -> discord.ui.View | None:
        """*Undo* for the moves just played while the host lets the user take them back; while they leave the user
        to move (no turn DM follows), the controls of the rest of the turn with it."""
        result = answer.results[-1]
        if answer.view is not None:
            return rest_of_turn_view(result.game_id, result.seq, answer.view, locale, answer.undo, hints=result.hints,
                                     emojis=self.emojis)
        return None if answer.undo is None else undo_view(result.game_id, result.seq, answer.undo, locale)

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
