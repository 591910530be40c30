"""The bot's buttons and menus as discord.py ``DynamicItem``s: each rebuilt from its ``custom_id``
(:mod:`bot.adapter.ids`) whatever message it sits on and however old, checked once, and handed to the command
feature it belongs to.

:class:`Checked` is the one check and the one error route of every item: before a click acts, a game's item reads the
game again when other processes share the database, refuses a click from outside the game's channel or its players'
DMs (a forged id), and an item that belongs to one person refuses everyone else; whatever a check or a handler raises
goes to the cog's one error handler (:meth:`Clicks.handle_error`), which words it. The items only parse and check;
the features (``bot.adapter.commands``) act, through :class:`Clicks`, which the cog implements.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import discord
from discord.ext import commands

from bot.adapter import ids
from bot.adapter.errors import Refusal
from bot.adapter.words.common import LABEL_MAX, clip

SELECT_MAX = 25
"""Options of one select menu."""


class Clicks(Protocol):
    """What the items hand a click to: the cog (its features act, the cog checks and words errors)."""

    async def handle_error(self, interaction: discord.Interaction, error: Exception) -> None: ...
    async def refresh_game(self, game_id: int) -> None: ...
    def check_origin(self, interaction: discord.Interaction, game_id: int) -> None: ...
    # the lobby (bot.adapter.commands.lobby)
    async def join_clicked(self, interaction: discord.Interaction, game_id: int) -> None: ...
    async def leave_clicked(self, interaction: discord.Interaction, game_id: int) -> None: ...
    async def addbot_clicked(self, interaction: discord.Interaction, game_id: int) -> None: ...
    async def removebot_clicked(self, interaction: discord.Interaction, game_id: int) -> None: ...
    async def start_clicked(self, interaction: discord.Interaction, game_id: int) -> None: ...
    # a turn (bot.adapter.commands.turn)
    async def move_clicked(self, interaction: discord.Interaction, game_id: int, seq: int, moves: tuple[str, ...], *,
                           confirmed: bool) -> None: ...
    async def controls_clicked(self, interaction: discord.Interaction, game_id: int) -> None: ...
    async def post_undo_clicked(self, interaction: discord.Interaction, game_id: int, seq: int | None) -> None: ...
    async def answer_undo_clicked(self, interaction: discord.Interaction, game_id: int, seq: int,
                                  count: int) -> None: ...
    async def hint_clicked(self, interaction: discord.Interaction, game_id: int, seq: int | None) -> None: ...
    # the table (bot.adapter.commands.table)
    async def hand_clicked(self, interaction: discord.Interaction, game_id: int) -> None: ...
    async def abandon_clicked(self, interaction: discord.Interaction, game_id: int) -> None: ...
    async def cancel_clicked(self, interaction: discord.Interaction, game_id: int) -> None: ...
    async def rematch_clicked(self, interaction: discord.Interaction, game_id: int) -> None: ...
    async def keep_open_clicked(self, interaction: discord.Interaction, game_id: int) -> None: ...
    async def vacation_voted(self, interaction: discord.Interaction, game_id: int, seat: int, choice: str) -> None: ...
    # someone new takes over a seat (bot.adapter.commands.takeover)
    def check_newcomer(self, interaction: discord.Interaction, game_id: int) -> None: ...
    def check_confirmer(self, interaction: discord.Interaction, game_id: int) -> None: ...
    async def take_seat_clicked(self, interaction: discord.Interaction, game_id: int, seat: int) -> None: ...
    async def takeover_confirmed(self, interaction: discord.Interaction, game_id: int, seat: int,
                                 user_id: int) -> None: ...
    # the archive and a person's own things (bot.adapter.commands.archive, .person)
    async def leaderboard_page(self, interaction: discord.Interaction, by: str, page: int) -> None: ...
    async def forget_asked(self, interaction: discord.Interaction, user_id: int) -> None: ...
    async def forget_confirmed(self, interaction: discord.Interaction, user_id: int) -> None: ...


def clicks(interaction: discord.Interaction) -> Clicks:
    """The loaded cog, which handles the clicks (registered under the name ``SantaCruz``)."""
    client = interaction.client
    cog = client.get_cog("SantaCruz") if isinstance(client, commands.Bot) else None
    if cog is None:  # pragma: no cover - the cog is added in setup_hook, before any interaction
        raise RuntimeError("the Santa Cruz cog is not loaded")
    return cog  # type: ignore[return-value]  # the cog implements Clicks; the items must not import the cog


def button(custom_id: str, label: str, style: discord.ButtonStyle, *, disabled: bool = False,
           emoji: discord.PartialEmoji | None = None) -> discord.ui.Button[Any]:
    return discord.ui.Button(label=clip(label, LABEL_MAX), style=style, custom_id=custom_id, disabled=disabled,
                             emoji=emoji)


class Checked:
    """The checks before a click acts, and the one route of its errors (mixed into every item below)."""

    checked_game: int | None = None
    """The game the item acts on (read again, and the click's origin checked), or ``None``."""
    owner: int | None = None
    """The only user who may press it, or ``None``: anyone the host lets."""
    thinking = False
    """Acknowledge first (ephemeral, "thinking"): the answer takes seconds."""

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        cog = clicks(interaction)
        try:
            if self.thinking:
                await interaction.response.defer(ephemeral=True, thinking=True)
            if self.checked_game is not None:
                await cog.refresh_game(self.checked_game)
                cog.check_origin(interaction, self.checked_game)
            if self.owner is not None and interaction.user.id != self.owner:
                raise Refusal("bot.forget.not_yours")
            self.check_clicker(cog, interaction)
        except Exception as exc:
            await cog.handle_error(interaction, exc)
            return False
        return True

    def check_clicker(self, cog: Clicks, interaction: discord.Interaction) -> None:
        """Who may press it besides its ``owner``: an item that only some may press refuses the others here (by
        raising the refusal that says why); by default anyone the host lets."""

    async def callback(self, interaction: discord.Interaction[Any], /) -> None:
        cog = clicks(interaction)
        try:
            await self.clicked(cog, interaction)
        except Exception as exc:
            await cog.handle_error(interaction, exc)

    async def clicked(self, cog: Clicks, interaction: discord.Interaction) -> None:
        """What the click does, once its checks passed: every item class says (each overrides this)."""
        raise TypeError(f"{type(self).__name__} does not say what its click does")


class GameButton(Checked, discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.GAME):
    """A button acting on a whole game: the lobby's, confirmations, rematch, "My cards", a post's *Undo*, *Hint*,
    *Back*. ``seq`` (optional) marks the position of the message it sits on."""

    def __init__(self, game_id: int, action: str, *, seq: int | None = None, label: str = "",
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary,
                 item: discord.ui.Button[Any] | None = None) -> None:
        self.game_id, self.action, self.seq = game_id, action, seq
        self.checked_game = game_id
        self.thinking = action == "hint"  # the coach thinks for seconds
        super().__init__(item or button(ids.game(game_id, action, seq), label, style))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> GameButton:
        assert isinstance(item, discord.ui.Button)
        return cls(int(match["game"]), match["action"], seq=int(match["seq"]) if match["seq"] else None, item=item)

    async def clicked(self, cog: Clicks, interaction: discord.Interaction) -> None:
        game_id = self.game_id
        if self.action == "hint":
            await cog.hint_clicked(interaction, game_id, self.seq)
        elif self.action == "undo":
            await cog.post_undo_clicked(interaction, game_id, self.seq)
        else:
            handler = {"join": cog.join_clicked, "leave": cog.leave_clicked, "addbot": cog.addbot_clicked,
                       "removebot": cog.removebot_clicked, "start": cog.start_clicked, "abandon": cog.abandon_clicked,
                       "cancel": cog.cancel_clicked, "rematch": cog.rematch_clicked, "hand": cog.hand_clicked,
                       "keepopen": cog.keep_open_clicked, "controls": cog.controls_clicked}[self.action]
            await handler(interaction, game_id)


class MoveButton(Checked, discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.MOVE):
    """One move as a button (``confirmed``: the one click after its question; ``then``: a double move's first build,
    asked and played with its card)."""

    def __init__(self, game_id: int, seq: int, move: str, *, then: str | None = None, confirmed: bool = False,
                 label: str = "", style: discord.ButtonStyle = discord.ButtonStyle.primary,
                 emoji: discord.PartialEmoji | None = None, item: discord.ui.Button[Any] | None = None) -> None:
        self.game_id, self.seq, self.move, self.then, self.confirmed = game_id, seq, move, then, confirmed
        self.checked_game = game_id
        super().__init__(item or button(ids.move(game_id, seq, move, then=then, confirmed=confirmed), label or move,
                                        style, emoji=emoji))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> MoveButton:
        assert isinstance(item, discord.ui.Button)
        then = ids.decode_move(match["then"]) if match["then"] else None
        return cls(int(match["game"]), int(match["seq"]), ids.decode_move(match["move"]), then=then,
                   confirmed=bool(match["ok"]), item=item)

    async def clicked(self, cog: Clicks, interaction: discord.Interaction) -> None:
        moves = (self.move, self.then) if self.then is not None and self.confirmed else (self.move,)
        await cog.move_clicked(interaction, self.game_id, self.seq, moves, confirmed=self.confirmed)


class MoveSelect(Checked, discord.ui.DynamicItem[discord.ui.Select[Any]], template=ids.PICK):
    """A menu of the moves of one group (the sites for a card, the scoring cards...)."""

    def __init__(self, game_id: int, seq: int, group: str, *, item: discord.ui.Select[Any]) -> None:
        self.game_id, self.seq, self.group = game_id, seq, group
        self.checked_game = game_id
        super().__init__(item)

    @classmethod
    def make(cls, game_id: int, seq: int, group: str, placeholder: str,
             options: list[discord.SelectOption]) -> MoveSelect:
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=ids.pick(game_id, seq, group), placeholder=clip(placeholder, 150),
            options=options[:SELECT_MAX], min_values=1, max_values=1)
        return cls(game_id, seq, group, item=select)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> MoveSelect:
        assert isinstance(item, discord.ui.Select)
        return cls(int(match["game"]), int(match["seq"]), match["group"], item=item)

    async def clicked(self, cog: Clicks, interaction: discord.Interaction) -> None:
        if self.item.values:
            await cog.move_clicked(interaction, self.game_id, self.seq, (self.item.values[0],), confirmed=False)


class UndoButton(Checked, discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.ANSWER_UNDO):
    """*Undo* on the answer to a move: takes back the ``count`` moves it played while the game is still at ``seq``
    (the host decides whether the clicker may)."""

    def __init__(self, game_id: int, seq: int, count: int, *, label: str = "",
                 item: discord.ui.Button[Any] | None = None) -> None:
        self.game_id, self.seq, self.count = game_id, seq, count
        self.checked_game = game_id
        super().__init__(item or button(ids.answer_undo(game_id, seq, count), label, discord.ButtonStyle.secondary))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> UndoButton:
        assert isinstance(item, discord.ui.Button)
        return cls(int(match["game"]), int(match["seq"]), int(match["count"]), item=item)

    async def clicked(self, cog: Clicks, interaction: discord.Interaction) -> None:
        await cog.answer_undo_clicked(interaction, self.game_id, self.seq, self.count)


class VacationButton(Checked, discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.VACATION):
    """A vote on a player's vacation, under the post that announced it: pause the game, or let the computer play."""

    def __init__(self, game_id: int, seat: int, choice: str, *, label: str = "",
                 item: discord.ui.Button[Any] | None = None) -> None:
        self.game_id, self.seat, self.choice = game_id, seat, choice
        self.checked_game = game_id
        style = discord.ButtonStyle.primary if choice == "pause" else discord.ButtonStyle.secondary
        super().__init__(item or button(ids.vacation(game_id, seat, choice), label, style))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> VacationButton:
        assert isinstance(item, discord.ui.Button)
        return cls(int(match["game"]), int(match["seat"]), match["choice"], item=item)

    async def clicked(self, cog: Clicks, interaction: discord.Interaction) -> None:
        await cog.vacation_voted(interaction, self.game_id, self.seat, self.choice)


class TakeSeatButton(Checked, discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.TAKE_SEAT):
    """*Take this seat* under the post that handed a seat to the computer: anyone in the channel who is not seated
    offers to take it over (the opener confirms)."""

    def __init__(self, game_id: int, seat: int, *, label: str = "",
                 item: discord.ui.Button[Any] | None = None) -> None:
        self.game_id, self.seat = game_id, seat
        self.checked_game = game_id
        super().__init__(item or button(ids.take_seat(game_id, seat), label, discord.ButtonStyle.primary))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> TakeSeatButton:
        assert isinstance(item, discord.ui.Button)
        return cls(int(match["game"]), int(match["seat"]), item=item)

    def check_clicker(self, cog: Clicks, interaction: discord.Interaction) -> None:
        cog.check_newcomer(interaction, self.game_id)

    async def clicked(self, cog: Clicks, interaction: discord.Interaction) -> None:
        await cog.take_seat_clicked(interaction, self.game_id, self.seat)


class ConfirmTakeoverButton(Checked, discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.CONFIRM_TAKEOVER):
    """*Confirm* under an offer to take a seat: only whoever opened the game (or may manage the channel) presses
    it; the seat and the newcomer are in its id, and the host confirms only the offer that stands."""

    def __init__(self, game_id: int, seat: int, user_id: int, *, label: str = "",
                 item: discord.ui.Button[Any] | None = None) -> None:
        self.game_id, self.seat, self.user_id = game_id, seat, user_id
        self.checked_game = game_id
        super().__init__(item or button(ids.confirm_takeover(game_id, seat, user_id), label,
                                        discord.ButtonStyle.success))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ConfirmTakeoverButton:
        assert isinstance(item, discord.ui.Button)
        return cls(int(match["game"]), int(match["seat"]), int(match["user"]), item=item)

    def check_clicker(self, cog: Clicks, interaction: discord.Interaction) -> None:
        cog.check_confirmer(interaction, self.game_id)

    async def clicked(self, cog: Clicks, interaction: discord.Interaction) -> None:
        await cog.takeover_confirmed(interaction, self.game_id, self.seat, self.user_id)


class LeaderboardButton(Checked, discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.LEADERBOARD):
    """Turns a leaderboard to page ``page`` (the clicker's own row is theirs)."""

    def __init__(self, by: str, page: int, *, label: str = "", disabled: bool = False,
                 item: discord.ui.Button[Any] | None = None) -> None:
        self.by, self.page = by, page
        super().__init__(item or button(ids.leaderboard(by, page), label, discord.ButtonStyle.secondary,
                                        disabled=disabled))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> LeaderboardButton:
        assert isinstance(item, discord.ui.Button)
        return cls(match["by"], int(match["page"]), item=item)

    async def clicked(self, cog: Clicks, interaction: discord.Interaction) -> None:
        await cog.leaderboard_page(interaction, self.by, self.page)


class ForgetAskButton(Checked, discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.FORGET_ASK):
    """"Forget me…" on the ``/santacruz settings`` panel: asks the confirm question (its owner alone)."""

    def __init__(self, user_id: int, *, label: str = "", item: discord.ui.Button[Any] | None = None) -> None:
        self.owner = user_id
        super().__init__(item or button(ids.forget_ask(user_id), label, discord.ButtonStyle.danger))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ForgetAskButton:
        assert isinstance(item, discord.ui.Button)
        return cls(int(match["user"]), item=item)

    async def clicked(self, cog: Clicks, interaction: discord.Interaction) -> None:
        assert self.owner is not None
        await cog.forget_asked(interaction, self.owner)


class ForgetButton(Checked, discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.FORGET):
    """Confirms "Forget me" (only for the user who asked)."""

    def __init__(self, user_id: int, *, label: str = "", item: discord.ui.Button[Any] | None = None) -> None:
        self.owner = user_id
        super().__init__(item or button(ids.forget(user_id), label, discord.ButtonStyle.danger))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ForgetButton:
        assert isinstance(item, discord.ui.Button)
        return cls(int(match["user"]), item=item)

    async def clicked(self, cog: Clicks, interaction: discord.Interaction) -> None:
        assert self.owner is not None
        await cog.forget_confirmed(interaction, self.owner)


ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    GameButton, MoveButton, MoveSelect, UndoButton, VacationButton, TakeSeatButton, ConfirmTakeoverButton,
    LeaderboardButton, ForgetAskButton, ForgetButton)
"""Every item class, registered once at start-up (``client.setup_hook``)."""
