"""Buttons and select menus whose ``custom_id`` says what they act on, so they work after a restart.

Every component is a :class:`discord.ui.DynamicItem` registered once in ``setup_hook``; discord.py
matches a click's ``custom_id`` against the templates and rebuilds the item from it, whatever message
it sits on and however old that message is. The ids::

    sc:<game_id>:<action>               join leave addbot removebot start abandon cancel rematch hand keepopen
                                        controls (back from a question asked in place to the move controls)
    sc:<game_id>:hand:<seq>             "My cards" under the post of position seq (seq marks the post)
    sc:<game_id>:undo:<seq>             "Undo" under the post of the mover's move seq (the host checks it is theirs,
                                        and refuses it once the game is no longer at seq)
    sc:<game_id>:hint:<seq>             "Hint" beside the move controls of position seq (a table with hints on):
                                        the coach's advice for the clicker alone, refused once the turn has passed
    sc:<game_id>:<seq>:<move>           a move in notation, spaces as "_" (land_12, double_road, score_gold10)
    sc:<game_id>:<seq>:<move>:ok        the same move, confirmed (a building card that builds nothing)
    sc:<game_id>:<seq>:pick:<group>     a select menu of moves; its option values are move notations
    sc:undo:<game_id>:<seq>:<count>     "Undo" on the answer to a move: take back its ``count`` moves (a double
                                        move and its first build are two) while the game is still at ``seq``
    sc:board:<by>:<page>                a leaderboard page (by rating, wins or games; pages from 0)
    sc:forget:<user_id>                 forget-me, confirmed by the user who asked
    sc:vac:<game_id>:<seat>:<choice>    a vote on the vacation of the seat: pause or computer
    sc:settings:forget:<user_id>        "Forget me…" on a person's settings panel (asks to confirm)

``game_id`` tells an old game's message apart from the channel's current game; ``seq`` is the number
of rows in the game's move log when the controls were made, and the host refuses a move whose
``seq`` is no longer current (``host.error.stale``): a double click or an old message cannot act twice.
The items only parse their id and hand the click to the cog, which asks the host.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any, Final, Protocol

import discord
from discord.ext import commands

from bot.adapter.texts import (
    LABEL_MAX,
    OPTION_MAX,
    clip,
    move_detail,
    move_label,
    needs_confirmation,
    score_label,
    scores_now,
)
from bot.host.ratings import BOARDS, Leaderboard
from bot.host.table import TableInfo
from engine import SINGLE_BUILDS, VERBS, View, parse_move
from i18n import t

GAME_ACTIONS: Final = ("join", "leave", "addbot", "removebot", "start", "abandon", "cancel", "rematch", "hand",
                       "keepopen", "undo", "controls", "hint")
PICK_GROUPS: Final = ("land", *SINGLE_BUILDS, "build", "score", "discard")
"""Moves offered in a select menu, one menu per group (each has at most 25 options on any island)."""
SELECT_MAX: Final = 25


def encode_move(move: str) -> str:
    return move.strip().replace(" ", "_")


def decode_move(text: str) -> str:
    return text.replace("_", " ")


class Clicks(Protocol):
    """Who handles the clicks (the cog): the items only parse their id and hand the click on."""

    async def on_game_button(self, interaction: discord.Interaction, game_id: int, action: str, *,
                             seq: int | None = None) -> None: ...

    async def on_move_component(self, interaction: discord.Interaction, game_id: int, seq: int, move: str, *,
                                confirmed: bool) -> None: ...

    async def on_leaderboard_page(self, interaction: discord.Interaction, by: str, page: int) -> None: ...

    async def on_forget_confirm(self, interaction: discord.Interaction, user_id: int) -> None: ...

    async def on_vacation_vote(self, interaction: discord.Interaction, game_id: int, seat: int,
                               choice: str) -> None: ...
    async def on_forget_ask(self, interaction: discord.Interaction, user_id: int) -> None: ...

    async def on_undo_button(self, interaction: discord.Interaction, game_id: int, seq: int, count: int) -> None: ...

    async def on_hint_button(self, interaction: discord.Interaction, game_id: int, seq: int | None) -> None: ...


def _cog(interaction: discord.Interaction) -> Clicks:
    """The loaded cog that handles the clicks (registered under the name ``SantaCruz``)."""
    client = interaction.client
    cog = client.get_cog("SantaCruz") if isinstance(client, commands.Bot) else None
    if cog is None:  # pragma: no cover - the cog is added in setup_hook, before any interaction
        raise RuntimeError("the Santa Cruz cog is not loaded")
    return cog  # type: ignore[return-value]  # the cog implements Clicks; views must not import the cog


class GameButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                 template=r"sc:(?P<game>[0-9]+):(?P<action>" + "|".join(GAME_ACTIONS) + ")(?::(?P<seq>[0-9]+))?"):
    """A button acting on a whole game: the lobby's buttons, confirmations, rematch, "my cards".

    ``seq`` (optional) only marks which position a message shows: a move message's "My cards" button
    carries it, so that after a crash the bot can tell whether the last move was posted.
    """

    def __init__(self, game_id: int, action: str, *, seq: int | None = None, label: str = "",
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary,
                 item: discord.ui.Button[Any] | None = None) -> None:
        self.game_id = game_id
        self.action = action
        self.seq = seq
        custom_id = f"sc:{game_id}:{action}" + (f":{seq}" if seq is not None else "")
        super().__init__(item or discord.ui.Button(label=clip(label, LABEL_MAX), style=style, custom_id=custom_id))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> GameButton:
        assert isinstance(item, discord.ui.Button)
        seq = int(match["seq"]) if match["seq"] else None
        return cls(int(match["game"]), match["action"], seq=seq, item=item)

    async def callback(self, interaction: discord.Interaction) -> None:
        if self.action == "hint":  # the position it was drawn at tells an outdated click apart
            await _cog(interaction).on_hint_button(interaction, self.game_id, self.seq)
            return
        await _cog(interaction).on_game_button(interaction, self.game_id, self.action, seq=self.seq)


class MoveButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                 template=r"sc:(?P<game>[0-9]+):(?P<seq>[0-9]+):(?P<move>(?:" + "|".join(VERBS)
                 + r")(?:_[A-Za-z0-9\-]+)?)(?P<ok>:ok)?"):
    """One move as a button (``ok``: already confirmed)."""

    def __init__(self, game_id: int, seq: int, move: str, *, confirmed: bool = False, label: str = "",
                 style: discord.ButtonStyle = discord.ButtonStyle.primary,
                 item: discord.ui.Button[Any] | None = None) -> None:
        self.game_id = game_id
        self.seq = seq
        self.move = move
        self.confirmed = confirmed
        custom_id = f"sc:{game_id}:{seq}:{encode_move(move)}" + (":ok" if confirmed else "")
        super().__init__(item or discord.ui.Button(label=clip(label or move, LABEL_MAX), style=style,
                                                   custom_id=custom_id))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> MoveButton:
        assert isinstance(item, discord.ui.Button)
        return cls(int(match["game"]), int(match["seq"]), decode_move(match["move"]),
                   confirmed=bool(match["ok"]), item=item)

    async def callback(self, interaction: discord.Interaction) -> None:
        await _cog(interaction).on_move_component(interaction, self.game_id, self.seq, self.move,
                                                  confirmed=self.confirmed)


class MoveSelect(discord.ui.DynamicItem[discord.ui.Select[Any]],
                 template=r"sc:(?P<game>[0-9]+):(?P<seq>[0-9]+):pick:(?P<group>[a-z]+)"):
    """A menu of moves of one kind (the sites for a card, the scoring cards...)."""

    def __init__(self, game_id: int, seq: int, group: str, *, item: discord.ui.Select[Any]) -> None:
        self.game_id = game_id
        self.seq = seq
        self.group = group
        super().__init__(item)

    @classmethod
    def make(cls, game_id: int, seq: int, group: str, placeholder: str,
             options: list[discord.SelectOption]) -> MoveSelect:
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"sc:{game_id}:{seq}:pick:{group}", placeholder=clip(placeholder, 150),
            options=options[:SELECT_MAX], min_values=1, max_values=1)
        return cls(game_id, seq, group, item=select)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> MoveSelect:
        assert isinstance(item, discord.ui.Select)
        return cls(int(match["game"]), int(match["seq"]), match["group"], item=item)

    async def callback(self, interaction: discord.Interaction) -> None:
        values = self.item.values
        if not values:
            return
        await _cog(interaction).on_move_component(interaction, self.game_id, self.seq, values[0], confirmed=False)


# ---------------------------------------------------------------------- ready-made views


def lobby_view(info: TableInfo, locale: str) -> discord.ui.View | None:
    """Join / Leave / Add computer / Remove computer / Start, while the game is in its lobby."""
    if info.status != "lobby":
        return None
    view = discord.ui.View(timeout=None)
    g = info.game_id
    view.add_item(GameButton(g, "join", label=t("bot.button.join", locale), style=discord.ButtonStyle.success))
    view.add_item(GameButton(g, "leave", label=t("bot.button.leave", locale)))
    view.add_item(GameButton(g, "addbot", label=t("bot.button.addbot", locale)))
    if any(s.is_computer for s in info.seats):
        view.add_item(GameButton(g, "removebot", label=t("bot.button.removebot", locale)))
    view.add_item(GameButton(g, "start", label=t("bot.button.start", locale), style=discord.ButtonStyle.primary))
    return view


def confirm_view(game_id: int, seq: int, move: str, locale: str, *, final: bool = False,
                 in_place: bool = False) -> discord.ui.View:
    """The one click that plays ``move`` after its question ("Play it anyway" for a card that builds nothing,
    "Play it" for a move that cannot be taken back), and Cancel; ``in_place`` (the question replaced the controls
    of the message clicked): *Back* to those controls instead."""
    view = discord.ui.View(timeout=None)
    label = t("bot.button.play_final" if final else "bot.button.play_anyway", locale)
    view.add_item(MoveButton(game_id, seq, move, confirmed=True, label=label, style=discord.ButtonStyle.danger))
    if in_place:
        view.add_item(GameButton(game_id, "controls", label=t("bot.button.back", locale)))
    else:
        view.add_item(GameButton(game_id, "cancel", label=t("bot.button.cancel", locale)))
    return view


class UndoButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                 template=r"sc:undo:(?P<game>[0-9]{1,20}):(?P<seq>[0-9]{1,9}):(?P<count>[12])"):
    """Takes back the ``count`` moves its answer played, while the game is still at ``seq`` (the host decides
    whether the clicker may: :meth:`bot.host.host.Host.undo`)."""

    def __init__(self, game_id: int, seq: int, count: int, *, label: str = "",
                 item: discord.ui.Button[Any] | None = None) -> None:
        self.game_id, self.seq, self.count = game_id, seq, count
        super().__init__(item or discord.ui.Button(label=clip(label, LABEL_MAX), style=discord.ButtonStyle.secondary,
                                                   custom_id=f"sc:undo:{game_id}:{seq}:{count}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> UndoButton:
        assert isinstance(item, discord.ui.Button)
        return cls(int(match["game"]), int(match["seq"]), int(match["count"]), item=item)

    async def callback(self, interaction: discord.Interaction) -> None:
        await _cog(interaction).on_undo_button(interaction, self.game_id, self.seq, self.count)


def undo_view(game_id: int, seq: int, count: int, locale: str) -> discord.ui.View:
    """"Undo" under the answer to a move that revealed nothing (the game is at ``seq`` after its ``count`` moves)."""
    view = discord.ui.View(timeout=None)
    view.add_item(UndoButton(game_id, seq, count, label=t("bot.button.undo", locale)))
    return view


def rest_of_turn_view(game_id: int, seq: int, view: View, locale: str, undo: int | None, *,
                      hints: bool = False) -> discord.ui.View | None:
    """The answer to a person's move that leaves them to move (a double move's card, its first build): the controls
    of the rest of their turn (:func:`controls_view`, the game at ``seq``, with *Hint* when ``hints``) and *Undo* for
    the ``undo`` moves just played (``None``: not allowed) where a row has room for it."""
    out = controls_view(game_id, seq, view, locale, hints=hints)
    if undo is None:
        return out
    if out is None:
        return undo_view(game_id, seq, undo, locale)
    with contextlib.suppress(ValueError):  # five full rows: the controls matter more, and /santacruz undo remains
        out.add_item(UndoButton(game_id, seq, undo, label=t("bot.button.undo", locale)))
    return out


def abandon_view(game_id: int, locale: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(GameButton(game_id, "abandon", label=t("bot.button.abandon", locale),
                             style=discord.ButtonStyle.danger))
    view.add_item(GameButton(game_id, "cancel", label=t("bot.button.cancel", locale)))
    return view


def keep_open_view(game_id: int, locale: str) -> discord.ui.View:
    """Under the notice of an idle game: "Keep it open" (anyone seated)."""
    view = discord.ui.View(timeout=None)
    view.add_item(GameButton(game_id, "keepopen", label=t("bot.button.keep_open", locale),
                             style=discord.ButtonStyle.primary))
    return view


def _group(move: str) -> str:
    m = parse_move(move)
    if m.verb in SINGLE_BUILDS and m.site is None:
        return "button"
    if m.verb in PICK_GROUPS:
        return m.verb
    return "button"


def controls_view(game_id: int, seq: int, view: View, locale: str, *, hints: bool = False) -> discord.ui.View | None:
    """Every legal move of the seat whose own ``view`` this is, as menus and buttons (None if none), and with
    ``hints`` (the table has hints on) a *Hint* button beside them (where a row has room for it).

    Sites come in one menu per card ("Ship card: choose a site"), scoring cards (with what each would score now for
    the seat and the best other seat) and discards in a menu with the card's text; sets (with their cards), piles,
    double moves, cards that cannot build and "pass" are buttons. At most five rows result on any island the engine
    allows (three card menus, the scoring menu and one row of buttons at most).
    """
    you = view.get("you")
    legal: list[str] = list(you["legal_moves"]) if you is not None else []
    if not legal:
        return None
    groups: dict[str, list[str]] = {}
    for move in legal:
        groups.setdefault(_group(move), []).append(move)
    out = discord.ui.View(timeout=None)
    now = scores_now(view) if "score" in groups else {}
    for group in PICK_GROUPS:
        moves = groups.get(group)
        if not moves:
            continue
        options = []
        for move in moves[:SELECT_MAX]:
            detail = move_detail(view, move, locale)
            m = parse_move(move)
            label = score_label(view, str(m.card), locale, now) if m.verb == "score" else move_label(view, move, locale)
            options.append(discord.SelectOption(label=clip(label, OPTION_MAX), value=move,
                                                description=clip(detail, OPTION_MAX) if detail else None))
        out.add_item(MoveSelect.make(game_id, seq, group, _placeholder(group, view, locale), options))
    for move in groups.get("button", []):
        style = discord.ButtonStyle.secondary if needs_confirmation(move, legal, view) else discord.ButtonStyle.primary
        out.add_item(MoveButton(game_id, seq, move, label=move_label(view, move, locale), style=style))
    if hints:
        with contextlib.suppress(ValueError):  # five full rows: the moves matter more, and /santacruz hint remains
            out.add_item(hint_button(game_id, seq, locale))
    return out


def hint_button(game_id: int, seq: int, locale: str) -> GameButton:
    """*Hint*: the coach's advice for the position ``seq``, for the clicker alone."""
    return GameButton(game_id, "hint", seq=seq, label=t("bot.button.hint", locale), style=discord.ButtonStyle.success)


def _placeholder(group: str, view: View, locale: str) -> str:
    if group in SINGLE_BUILDS:
        return t("bot.controls.card", locale, card=t(f"game.card.{group}.one", locale))
    if group == "build":
        pending = view["pending"]
        card = pending["card"] if pending is not None else "road"
        return t("bot.controls.build", locale, kind=t(f"game.card.{card}.short", locale))
    return t(f"bot.controls.{group}", locale)


# ---------------------------------------------------------------------- players' history


class LeaderboardButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                        template=r"sc:board:(?P<by>" + "|".join(BOARDS) + r"):(?P<page>[0-9]{1,6})"):
    """Turns a leaderboard to page ``page`` (the clicker's own row is theirs)."""

    def __init__(self, by: str, page: int, *, label: str = "", disabled: bool = False,
                 item: discord.ui.Button[Any] | None = None) -> None:
        self.by = by
        self.page = page
        super().__init__(item or discord.ui.Button(label=clip(label, LABEL_MAX), style=discord.ButtonStyle.secondary,
                                                   custom_id=f"sc:board:{by}:{page}", disabled=disabled))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> LeaderboardButton:
        assert isinstance(item, discord.ui.Button)
        return cls(match["by"], int(match["page"]), item=item)

    async def callback(self, interaction: discord.Interaction) -> None:
        await _cog(interaction).on_leaderboard_page(interaction, self.by, self.page)


class ForgetButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"sc:forget:(?P<user>[0-9]{1,20})"):
    """Confirms "Forget me" of ``/santacruz settings`` (only for the user who asked)."""

    def __init__(self, user_id: int, *, label: str = "", item: discord.ui.Button[Any] | None = None) -> None:
        self.user_id = user_id
        super().__init__(item or discord.ui.Button(label=clip(label, LABEL_MAX), style=discord.ButtonStyle.danger,
                                                   custom_id=f"sc:forget:{user_id}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ForgetButton:
        assert isinstance(item, discord.ui.Button)
        return cls(int(match["user"]), item=item)

    async def callback(self, interaction: discord.Interaction) -> None:
        await _cog(interaction).on_forget_confirm(interaction, self.user_id)


def leaderboard_view(board: Leaderboard, locale: str) -> discord.ui.View | None:
    """Previous and next buttons of a leaderboard page (none when it has one page)."""
    if board.pages <= 1:
        return None
    view = discord.ui.View(timeout=None)
    view.add_item(LeaderboardButton(board.by, max(0, board.page - 1), label=t("bot.leaderboard.previous", locale),
                                    disabled=board.page == 0))
    view.add_item(LeaderboardButton(board.by, min(board.pages - 1, board.page + 1),
                                    label=t("bot.leaderboard.next", locale), disabled=board.page >= board.pages - 1))
    return view


def forget_view(user_id: int, locale: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ForgetButton(user_id, label=t("bot.forget.button", locale)))
    view.add_item(GameButton(0, "cancel", label=t("bot.button.cancel", locale)))
    return view


class VacationButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                     template=r"sc:vac:(?P<game>[0-9]{1,20}):(?P<seat>[0-3]):(?P<choice>pause|computer)"):
    """A vote on a player's vacation, under the channel's post that announced it: pause the game, or let the
    computer play the seat."""

    def __init__(self, game_id: int, seat: int, choice: str, *, label: str = "",
                 item: discord.ui.Button[Any] | None = None) -> None:
        self.game_id, self.seat, self.choice = game_id, seat, choice
        style = discord.ButtonStyle.primary if choice == "pause" else discord.ButtonStyle.secondary
        super().__init__(item or discord.ui.Button(label=clip(label, LABEL_MAX), style=style,
                                                   custom_id=f"sc:vac:{game_id}:{seat}:{choice}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> VacationButton:
        assert isinstance(item, discord.ui.Button)
        return cls(int(match["game"]), int(match["seat"]), match["choice"], item=item)

    async def callback(self, interaction: discord.Interaction) -> None:
        await _cog(interaction).on_vacation_vote(interaction, self.game_id, self.seat, self.choice)


def vacation_view(game_id: int, seat: int, name: str, locale: str) -> discord.ui.View:
    """The two vote buttons under a vacation's post: "Pause the game" / "Let the computer play <name>"."""
    view = discord.ui.View(timeout=None)
    view.add_item(VacationButton(game_id, seat, "pause", label=t("bot.vacation.button.pause", locale)))
    view.add_item(VacationButton(game_id, seat, "computer", label=t("bot.vacation.button.computer", locale,
                                                                       name=name)))
    return view


class ForgetAskButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                      template=r"sc:settings:forget:(?P<user>[0-9]{1,20})"):
    """"Forget me…" on the ``/santacruz settings`` panel: asks the confirm question (only for its owner)."""

    def __init__(self, user_id: int, *, label: str = "", item: discord.ui.Button[Any] | None = None) -> None:
        self.user_id = user_id
        super().__init__(item or discord.ui.Button(label=clip(label, LABEL_MAX), style=discord.ButtonStyle.danger,
                                                   custom_id=f"sc:settings:forget:{user_id}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ForgetAskButton:
        assert isinstance(item, discord.ui.Button)
        return cls(int(match["user"]), item=item)

    async def callback(self, interaction: discord.Interaction) -> None:
        await _cog(interaction).on_forget_ask(interaction, self.user_id)


def settings_view(user_id: int, locale: str) -> discord.ui.View:
    """The settings panel's button: "Forget me…" (which asks to confirm, as ``forget_view``)."""
    view = discord.ui.View(timeout=None)
    view.add_item(ForgetAskButton(user_id, label=t("bot.settings.forget_button", locale)))
    return view
