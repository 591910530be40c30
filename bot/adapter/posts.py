"""The channel's game posts in Components V2: one message per turn, drawn as a ``discord.ui.LayoutView``.

A post is one container whose accent is the colour of the player to move (at game over, the winner's), holding
the words of what happened with the mention of the next player (a text display: it pings as ``allowed_mentions``
let it, exactly as content did), the pictures (``attachment://`` names of the files sent with it), each alone in a
media gallery of its own: Discord crops the items of one gallery to fill a grid's cells, never a gallery's only one
(``render.inline``). First the overview, which the chat shows large without a tap, then the board a tap opens (at
game over also the chart and the replay). Last a row of buttons: *My cards* (answered to the clicker alone) and, on
a person's own move while it may be taken back, *Undo*; *Rematch* at game over; *Open board* (a link to the game's
web page) when it has one. The host decides what a post says and carries (which move, whether it may be undone,
whether the replay comes with the game over, whether the game has a web page); here it is only drawn.

Discord's limits for such a message (no ``content`` or embeds with the V2 flag, at most 40 components, 4,000
characters of text, 10 attachments, the upload size) are kept here: :func:`fits` says whether pictures go in
one message.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, Final, Protocol

import discord

from bot.adapter.items import GameButton
from bot.adapter.links import board_button
from bot.adapter.sending import ALLOWED_MENTIONS, SEND_MESSAGES, Attachments, MissingPermission, Posted, files
from bot.adapter.words.common import clip, lines_text, names_of
from bot.adapter.words.moves import public_move
from bot.adapter.words.posts import next_text
from bot.host.pictures import Pictures
from bot.host.table import MoveResult, StartResult
from engine import View
from i18n import describe_move, t
from render.theme import DEFAULT_THEME

TEXT_MAX: Final = 4000
"""Characters of text a Components V2 message may carry in all."""
GALLERY_MAX: Final = 10
"""Attachments of one message (and items of one media gallery)."""
UPLOAD_MAX: Final = 10 * 1024 * 1024
"""Bytes of attachments one message may carry (Discord's limit for a bot in any server)."""


def accent(seat: int | None) -> discord.Colour | None:
    """The colour the pictures give ``seat`` (``None``: no accent)."""
    return None if seat is None else discord.Colour.from_rgb(*DEFAULT_THEME.player(seat))


async def pictures(drawn: Pictures, view: View, locale: str,
                   key: tuple[int, int, None]) -> list[tuple[bytes | None, str]]:
    """A post's pictures, drawn side by side in the render pool: the overview, which the chat shows without a tap,
    then the board a tap opens."""
    overview, board = await asyncio.gather(drawn.png(view, locale, key=key, overview=True),
                                           drawn.png(view, locale, key=key))
    return [(overview, "overview.png"), (board, "board.png")]


def fits(sizes: Sequence[int]) -> bool:
    """Whether attachments of these sizes (bytes) go in one message."""
    return len(sizes) <= GALLERY_MAX and sum(sizes) <= UPLOAD_MAX


def layout(text: str, pictures: Sequence[str], buttons: Sequence[discord.ui.Item[Any]], *,
           colour: discord.Colour | None) -> discord.ui.LayoutView:
    """One container: ``text``, each of ``pictures`` (file names sent with the message) in a gallery of its own, so
    that none is cropped, and a row of ``buttons`` (none: no row)."""
    box: discord.ui.Container[discord.ui.LayoutView] = discord.ui.Container(accent_colour=colour)
    box.add_item(discord.ui.TextDisplay(clip(text, TEXT_MAX)))
    for name in pictures[:GALLERY_MAX]:
        box.add_item(discord.ui.MediaGallery(discord.MediaGalleryItem(f"attachment://{name}")))
    if buttons:
        row: discord.ui.ActionRow[discord.ui.LayoutView] = discord.ui.ActionRow()
        for button in buttons:
            row.add_item(button)
        box.add_item(row)
    view = discord.ui.LayoutView(timeout=None)
    view.add_item(box)
    return view


class PostOf(Protocol):
    """What a turn's post's buttons and colour are made of: a :class:`bot.host.table.MoveResult`, or
    :class:`bot.adapter.undo_marks.Marks`, that much of it kept for a later edit (without the move's public view)."""

    @property
    def game_id(self) -> int: ...
    @property
    def seq(self) -> int: ...
    @property
    def to_move(self) -> int | None: ...
    @property
    def game_over(self) -> bool: ...
    @property
    def ranking(self) -> tuple[int, ...] | None: ...


def move_buttons(result: PostOf, locale: str, *, undo: bool) -> list[discord.ui.Item[Any]]:
    """*Rematch* at game over; else *My cards*, and *Undo* when ``undo`` (the host allows it, the post is new)."""
    if result.game_over:
        return [GameButton(result.game_id, "rematch", label=t("bot.button.rematch", locale),
                           style=discord.ButtonStyle.success)]
    buttons: list[discord.ui.Item[Any]] = [
        GameButton(result.game_id, "hand", seq=result.seq, label=t("bot.button.hand", locale))]
    if undo:
        buttons.append(GameButton(result.game_id, "undo", seq=result.seq, label=t("bot.button.undo", locale)))
    return buttons


def move_layout(result: PostOf, text: str, pictures: Sequence[str], locale: str, *,
                undo: bool, link: str | None = None) -> discord.ui.LayoutView:
    """The post of a turn (or of the game over): ``text`` (``move_post``), its pictures and buttons (with ``link``,
    the game's web page: *Open board*)."""
    seat = result.ranking[0] if result.game_over and result.ranking else result.to_move
    return layout(text, pictures, [*move_buttons(result, locale, undo=undo), *_board(link, locale)],
                  colour=accent(seat))


def _board(link: str | None, locale: str) -> list[discord.ui.Item[Any]]:
    return [board_button(link, locale)] if link is not None else []


def taken_back_text(result: MoveResult, locale: str) -> str:
    """An undo's words, for the post of the move it takes back: that move struck through, and who moves now."""
    move = describe_move(public_move(result.move), locale, names_of(result.view), result.seat)
    lines = [t("bot.post.taken_back", locale, move=move)]
    if result.to_move is not None:
        lines.append(next_text(locale, user_id=result.to_move_user_id, name=result.to_move_name, view=result.view))
    return lines_text(lines)


def start_layout(start: StartResult, text: str, pictures: Sequence[str], locale: str, *,
                 link: str | None = None) -> discord.ui.LayoutView:
    """The start's post: who plays in which order, the board, *My cards* (and *Open board* with ``link``)."""
    info = start.info
    buttons: list[discord.ui.Item[Any]] = [
        GameButton(info.game_id, "hand", seq=info.seq, label=t("bot.button.hand", locale)), *_board(link, locale)]
    return layout(text, pictures, buttons, colour=accent(start.to_move))



async def deliver_layout(client: discord.Client, channel_id: int,
                         make: Callable[[Sequence[str]], discord.ui.LayoutView], *, pictures: Attachments = (),
                         mentions: discord.AllowedMentions = ALLOWED_MENTIONS, nonce: str | None = None) -> Posted:
    """A V2 post in a game's channel for the outbox, as ``sending.deliver_post`` does it for words: ``make`` draws
    the layout for the picture files it carries (none when the bot may not attach files there); raises as
    ``deliver_post`` does."""
    channel = client.get_partial_messageable(channel_id)
    attached = [(png, name) for png, name in pictures if png is not None]
    for shown in (attached, []):
        kwargs: dict[str, Any] = {"view": make([name for _, name in shown]), "files": files(*shown),
                                  "allowed_mentions": mentions}
        if nonce is not None:
            kwargs["nonce"] = nonce
        try:
            message = await channel.send(**kwargs)
        except discord.Forbidden:
            if not shown:
                raise MissingPermission(SEND_MESSAGES) from None
            continue  # perhaps only Attach Files is missing
        return Posted(message, without_pictures=len(shown) < len(attached))
    raise MissingPermission(SEND_MESSAGES)
