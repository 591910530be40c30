"""The bot's ready-made sets of buttons and menus: the lobby's, a turn's move controls (what a turn DM and the hand
of ``/santacruz status`` carry), the one-click question before a move, *Undo*, the leaderboard's pages, a vacation's
vote, *Take this seat* and the opener's *Confirm* of a take-over, the settings panel's "Forget me…".

The items and their ids are in :mod:`bot.adapter.items` and :mod:`bot.adapter.ids`; here they are put together. Which
move is asked first is the host's answer (``play.ask_or_play``); the controls only show the moves that build nothing,
which the host will ask about, as secondary buttons (the engine's :func:`engine.builds_nothing`, as the host asks it).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

import discord

from bot.adapter.emojis import NO_EMOJIS, Emojis, move_icon
from bot.adapter.ids import PICK_GROUPS
from bot.adapter.items import (
    SELECT_MAX,
    ConfirmTakeoverButton,
    ForgetAskButton,
    ForgetButton,
    GameButton,
    LeaderboardButton,
    MoveButton,
    MoveSelect,
    TakeSeatButton,
    UndoButton,
    VacationButton,
)
from bot.adapter.words.common import OPTION_MAX, clip
from bot.adapter.words.moves import move_detail, move_label, score_label, scores_now
from bot.host.ratings import Leaderboard
from bot.host.table import TableInfo
from engine import SINGLE_BUILDS, View, builds_nothing, parse_move
from i18n import t


def _looks_secondary(move: str, legal: Sequence[str], view: View) -> bool:
    """Whether ``move`` (one of the ``legal`` moves of the seat whose ``view`` this is) builds nothing, so that its
    button looks secondary: the host asks before playing it (:func:`engine.builds_nothing`, with the view's
    ``you.build_sites``, as the host's :func:`bot.host.takeback.asks_first` reads them from the game)."""
    you = view.get("you")
    build_sites = you.get("build_sites") if you is not None else None
    return builds_nothing(parse_move(move), [parse_move(m) for m in legal], build_sites)


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
                 in_place: bool = False, then: str | None = None) -> discord.ui.View:
    """The one click that plays ``move`` (and ``then``: a double move's first build after its card) after its
    question ("Play it anyway" for a card that builds nothing, "Play it" for a move that cannot be taken back), and
    Cancel; ``in_place`` (the question replaced the controls of the message clicked): *Back* to those controls
    instead."""
    view = discord.ui.View(timeout=None)
    label = t("bot.button.play_final" if final else "bot.button.play_anyway", locale)
    view.add_item(MoveButton(game_id, seq, move, then=then, confirmed=True, label=label,
                             style=discord.ButtonStyle.danger))
    if in_place:
        view.add_item(GameButton(game_id, "controls", label=t("bot.button.back", locale)))
    else:
        view.add_item(GameButton(game_id, "cancel", label=t("bot.button.cancel", locale)))
    return view


def undo_view(game_id: int, seq: int, count: int, locale: str) -> discord.ui.View:
    """"Undo" under the answer to a move that revealed nothing (the game is at ``seq`` after its ``count`` moves)."""
    view = discord.ui.View(timeout=None)
    view.add_item(UndoButton(game_id, seq, count, label=t("bot.button.undo", locale)))
    return view


def rest_of_turn_view(game_id: int, seq: int, view: View, locale: str, undo: int | None, *,
                      hints: bool = False, emojis: Emojis = NO_EMOJIS) -> discord.ui.View | None:
    """The answer to a person's move that leaves them to move (a double move's card, its first build): the controls
    of the rest of their turn (:func:`controls_view`, the game at ``seq``, with *Hint* when ``hints``) and *Undo* for
    the ``undo`` moves just played (``None``: not allowed) where a row has room for it."""
    out = controls_view(game_id, seq, view, locale, hints=hints, emojis=emojis)
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


def controls_view(game_id: int, seq: int, view: View, locale: str, *, hints: bool = False,
                  emojis: Emojis = NO_EMOJIS) -> discord.ui.View | None:
    """Every legal move of the seat whose own ``view`` this is, as menus and buttons (None if none), and with
    ``hints`` (the table has hints on) a *Hint* button beside them (where a row has room for it); each option and
    button with the emoji of its building, card or set beside its words (:func:`bot.adapter.emojis.move_icon`) when
    the bot has ``emojis``.

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
                                                description=clip(detail, OPTION_MAX) if detail else None,
                                                emoji=emojis.get(move_icon(view, m))))
        out.add_item(MoveSelect.make(game_id, seq, group, _placeholder(group, view, locale), options))
    for move in groups.get("button", []):
        style = discord.ButtonStyle.secondary if _looks_secondary(move, legal, view) else discord.ButtonStyle.primary
        out.add_item(MoveButton(game_id, seq, move, label=move_label(view, move, locale), style=style,
                                emoji=emojis.get(move_icon(view, move))))
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


def vacation_view(game_id: int, seat: int, name: str, locale: str) -> discord.ui.View:
    """The two vote buttons under a vacation's post: "Pause the game" / "Let the computer play <name>"."""
    view = discord.ui.View(timeout=None)
    view.add_item(VacationButton(game_id, seat, "pause", label=t("bot.vacation.button.pause", locale)))
    view.add_item(VacationButton(game_id, seat, "computer", label=t("bot.vacation.button.computer", locale,
                                                                       name=name)))
    return view


def take_seat_view(game_id: int, seat: int, locale: str) -> discord.ui.View:
    """*Take this seat* under the post that handed a person's seat to the computer."""
    view = discord.ui.View(timeout=None)
    view.add_item(TakeSeatButton(game_id, seat, label=t("bot.takeover.button.take", locale)))
    return view


def confirm_takeover_view(game_id: int, seat: int, user_id: int, newcomer: str, locale: str) -> discord.ui.View:
    """The opener's *Confirm* under an offer to take a seat ("Let <newcomer> play it")."""
    view = discord.ui.View(timeout=None)
    view.add_item(ConfirmTakeoverButton(game_id, seat, user_id,
                                        label=t("bot.takeover.button.confirm", locale, newcomer=newcomer)))
    return view


def settings_view(user_id: int, locale: str) -> discord.ui.View:
    """The settings panel's button: "Forget me…" (which asks to confirm, as ``forget_view``)."""
    view = discord.ui.View(timeout=None)
    view.add_item(ForgetAskButton(user_id, label=t("bot.settings.forget_button", locale)))
    return view
