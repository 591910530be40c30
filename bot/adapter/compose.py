"""A delivery composed, not sent, as :class:`Composed`: its words, its components (classic buttons and menus, or a
Components V2 layout made for the pictures that go with it: a game's post, a player's hand), its pictures and whom it
may ping. A channel post of the outbox (:func:`compose_post`, every kind), and a player's hand (:func:`compose_hand`:
the turn DM, the hand DM, the hand of ``status``, one V2 panel of :mod:`bot.adapter.dm_layout`). The sending code
(:mod:`bot.adapter.delivery`, :mod:`bot.adapter.dms`) sends what this composes, and a test can read a post in another
language without sending it: which words, buttons and pictures each kind of delivery gets is said here once.

Pictures are drawn when a :class:`bot.host.pictures.Pictures` is given; without one their files are named but not
drawn (``None`` in place of their bytes), and a game over's replay is taken to fit in its post.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import discord

from bot.adapter import dm_layout, posts
from bot.adapter.emojis import NO_EMOJIS, Emojis
from bot.adapter.links import board_link, seat_link, view_button
from bot.adapter.sending import ALLOWED_MENTIONS, NO_PINGS
from bot.adapter.views import (
    confirm_takeover_view,
    controls_view,
    keep_open_view,
    lobby_view,
    take_seat_view,
    vacation_view,
)
from bot.adapter.words.common import esc, mention
from bot.adapter.words.dm import hand_words, others_waiting
from bot.adapter.words.lobby import lobby_text
from bot.adapter.words.notices import idle_text, notice_text, vacation_notes
from bot.adapter.words.posts import move_post, seat_change_post, start_post
from bot.host.deliveries import (
    ABANDONED_POST,
    IDLE_POST,
    LOBBY_EDIT,
    LOBBY_POST,
    MOVE_POST,
    NOTICE_POST,
    REPLAY_POST,
    SEAT_POST,
    START_POST,
    Delivery,
)
from bot.host.host import Host
from bot.host.idle import NOTICE
from bot.host.pictures import Pictures
from bot.host.table import MoveResult, StartResult, TableInfo
from engine import View
from i18n import t

Picture = tuple[bytes | None, str]
"""A picture's bytes (``None``: not drawn, or drawing it failed) and its file name."""
Layout = Callable[[Sequence[str]], discord.ui.LayoutView]
"""A Components V2 message drawn for the names of the picture files it carries."""
OVERVIEW_PICTURE = "overview.png"
"""The file name of a player's overview (:mod:`render.overview`), the picture the chat shows without a tap."""
HAND_PICTURE = "hand.png"
"""The file name of a player's own board, the picture a tap opens."""


@dataclass(frozen=True)
class Composed:
    """A message as the bot sends it: ``text``, then either a ``layout`` (a game's post or a player's hand,
    Components V2: the text is in it, as Discord shows it) or a ``view`` of classic buttons; ``pictures``; whom it may
    ping (``mentions``); ``then``: a message of its own that follows it (a game over's replay that does not fit in its
    post); ``controls``: a hand's layout carries the turn's move controls."""

    text: str
    pictures: tuple[Picture, ...] = ()
    view: discord.ui.View | None = None
    layout: Layout | None = None
    mentions: discord.AllowedMentions = ALLOWED_MENTIONS
    then: Composed | None = field(default=None)
    controls: bool = False

    @property
    def names(self) -> list[str]:
        """The file names of its pictures, drawn or not."""
        return [name for _, name in self.pictures]

    @property
    def drawn(self) -> list[str]:
        """The file names of its pictures that were drawn (those that go with it)."""
        return [name for png, name in self.pictures if png is not None]


async def compose_post(host: Host, delivery: Delivery, locale: str | None = None, *, pictures: Pictures | None = None,
                       quiet: frozenset[int] = frozenset()) -> Composed:
    """The channel post ``delivery`` owes, in ``locale`` (default: the game's language, as it is posted), naming
    without pinging the people in ``quiet`` (their quiet hours); pictures drawn with ``pictures``. A lobby message's
    post and redraw are drawn from its game as the host has it now."""
    payload = delivery.payload
    lang = locale or str(payload.get("locale", "en"))
    if delivery.kind == START_POST:
        return await _start(host, delivery.start(), locale or delivery.start().info.locale, pictures, quiet)
    if delivery.kind == MOVE_POST:
        result = delivery.move()
        return await _move(host, result, locale or result.locale, pictures, quiet)
    if delivery.kind == SEAT_POST:
        change = delivery.seat_change()
        lang = locale or change.info.locale
        # a seat handed to the computer may be taken over by someone new: its post carries the button
        view = take_seat_view(change.info.game_id, change.seat, lang) if change.away else None
        return Composed(seat_change_post(change, lang), view=view)
    if delivery.kind == REPLAY_POST:
        return await _replay(host, delivery.game_id, lang, pictures)
    if delivery.kind == IDLE_POST:
        awake = [discord.Object(int(u)) for u in payload.get("user_ids", ()) if int(u) not in quiet]
        view = keep_open_view(delivery.game_id, lang) if payload["what"] == NOTICE else None
        return Composed(idle_text(payload), view=view, mentions=discord.AllowedMentions(
            users=awake, roles=False, everyone=False, replied_user=False))
    if delivery.kind == NOTICE_POST:
        return _notice(host, delivery, lang)
    if delivery.kind == ABANDONED_POST:
        return Composed(t("bot.post.abandoned", lang, name=esc(str(payload["name"]))))
    if delivery.kind in (LOBBY_POST, LOBBY_EDIT):
        info = await host.outbox.game_of(delivery)
        if info is None:
            raise ValueError(f"delivery {delivery.id}: the lobby's game {delivery.game_id} is gone")
        return Composed(await lobby_content(host, info), view=lobby_view(info, locale or info.locale))
    raise ValueError(f"delivery {delivery.id}: unknown kind {delivery.kind!r}")


async def _start(host: Host, start: StartResult, locale: str, pictures: Pictures | None,
                 quiet: frozenset[int]) -> Composed:
    """The start's post: who plays in which order, the overview and the board, *My cards* (and *Open board*, the
    game's web page), pinging the first to move."""
    info = start.info
    drawn = await _post_pictures(pictures, start.view, locale, (info.game_id, info.seq, None))
    text, link = start_post(start, locale), await board_link(host, info.game_id)

    def make(names: Sequence[str]) -> discord.ui.LayoutView:
        return posts.start_layout(start, text, names, locale, link=link)

    return Composed(text, tuple(drawn), layout=make, mentions=_mentions(start.to_move_user_id, quiet))


async def _move(host: Host, result: MoveResult, locale: str, pictures: Pictures | None,
                quiet: frozenset[int]) -> Composed:
    """A turn's post: words with the next player's mention, the overview and the board, *My cards* and *Undo* (while
    it may be taken back), *Open board* (the game's web page); the game over's with the ranking, the final overview,
    the chart, the board and the replay (a message of its own only when it does not fit); an undo's words and the
    pictures as they are now, which ping nobody."""
    drawn = await _post_pictures(pictures, result.view, locale, (result.game_id, result.seq, None))
    link = await board_link(host, result.game_id)
    if result.undo:
        text = posts.taken_back_text(result, locale)
        return Composed(text, tuple(drawn), layout=_move_layout(result, text, locale, undo=False, link=link),
                        mentions=NO_PINGS)
    text = move_post(result, locale, await _usual(host, result) if result.game_over else ())
    then: Composed | None = None
    if result.game_over:  # the chart after the overview: both tell the end without a tap
        chart = await pictures.png(result.view, locale, game_over=True) if pictures else None
        drawn.insert(1, (chart, "game-over.png"))
        if result.replay:
            replay = await _replay(host, result.game_id, locale, pictures)
            gif = replay.pictures[0][0]
            if gif is None or posts.fits([len(p) for p, _ in drawn if p is not None] + [len(gif)]):
                drawn.append((gif, "replay.gif"))
            else:
                then = replay
    return Composed(text, tuple(drawn), layout=_move_layout(result, text, locale, undo=result.undoable, link=link),
                    mentions=_mentions(result.to_move_user_id, quiet), then=then)


async def _post_pictures(pictures: Pictures | None, view: View, locale: str,
                         key: tuple[int, int, None]) -> list[Picture]:
    """A game's post's pictures (:func:`bot.adapter.posts.pictures`: the overview, then the board), or their names
    alone without ``pictures``."""
    if pictures is None:
        return [(None, "overview.png"), (None, "board.png")]
    return await posts.pictures(pictures, view, locale, key)


def _move_layout(result: MoveResult, text: str, locale: str, *, undo: bool, link: str | None) -> Layout:
    def make(names: Sequence[str]) -> discord.ui.LayoutView:
        return posts.move_layout(result, text, names, locale, undo=undo, link=link)

    return make


async def _replay(host: Host, game_id: int, locale: str, pictures: Pictures | None) -> Composed:
    """The animated replay of a finished game (made in the render pool; left out if that failed)."""
    gif = await pictures.replay_gif(await host.archive.replay_record(game_id), locale) if pictures else None
    return Composed(t("bot.replay.post", locale), ((gif, "replay.gif"),))


def _notice(host: Host, delivery: Delivery, locale: str) -> Composed:
    """A vacation's, a deadline's or a take-over's post: a vacation's vote carries its buttons, a seat handed to the
    computer *Take this seat*, an offer to take a seat the opener's *Confirm* (and pings the opener)."""
    payload = delivery.payload
    text = notice_text(payload, locale)
    if payload.get("vote") is not None:
        return Composed(text, view=vacation_view(delivery.game_id, int(payload["vote"]),
                                                 str(payload["params"]["name"]), locale))
    if payload.get("takeable") is not None:
        return Composed(text, view=take_seat_view(delivery.game_id, int(payload["takeable"]), locale))
    if payload.get("takeover") is None:
        return Composed(text)
    offer = payload["takeover"]
    view = confirm_takeover_view(delivery.game_id, int(offer["seat"]), int(offer["user_id"]),
                                 str(payload["params"]["newcomer"]), locale)
    info = host.games.find_game(delivery.game_id)
    if info is None:
        return Composed(text, view=view)
    # the opener is asked: pinged (nobody else is)
    return Composed(f"{mention(info.opener_id)} {text}", view=view, mentions=discord.AllowedMentions(
        users=[discord.Object(info.opener_id)], roles=False, everyone=False, replied_user=False))


async def _usual(host: Host, result: MoveResult) -> list[tuple[str, float]]:
    """How fast each person of a finished game usually moves in its server (name, median seconds), for those
    with enough timed turns there."""
    info = host.games.find_game(result.game_id)
    if info is None:
        return []
    speeds = await host.archive.usual_speeds(info.guild_id, info.humans)
    return [(s.name, speeds[s.user_id]) for s in info.seats if s.user_id is not None and s.user_id in speeds]


async def compose_hand(host: Host, pictures: Pictures | None, info: TableInfo, user_id: int, locale: str, *,
                       controls: bool, asked: bool = False, reminder: bool = False, start: bool = False,
                       heading: str = "", deadline: bool = True, waiting: bool = False, own_view: bool = False,
                       emojis: Emojis = NO_EMOJIS) -> Composed:
    """A player's own side of ``info``'s game (their view, with what happened since their last move), as one V2
    panel in their colour (:mod:`bot.adapter.dm_layout`): their hand and bird chips in words, their picture (drawn
    with ``pictures``), and with ``controls`` the move controls (and the coach's *Hint* in a game with hints; with
    ``own_view``, the signed link to their own view on the web). ``asked``: the answer to ``status`` or *My cards*, not
    a DM; ``reminder``: a turn's reminder (with its vacation notes); ``start``: the game's first DM; ``heading``:
    above it; ``deadline``: when the turn runs out, in a game with turn deadlines; ``waiting``: how many of their
    other games wait for them; ``emojis``: those the bot has, beside the words of cards and buildings."""
    view = host.play.view_for(info.channel_id, user_id, since=True)
    shown = controls_view(info.game_id, info.seq, view, locale, hints=info.hints, emojis=emojis) if controls else None
    if shown is not None and own_view and (own := await seat_link(host, info.game_id, user_id)) is not None:
        with contextlib.suppress(ValueError):  # five full rows: the moves matter more
            shown.add_item(view_button(own, locale))  # their own view on the web, signed for them
    key = (info.game_id, info.seq, user_id)
    overview, board = (await asyncio.gather(pictures.png(view, locale, key=key, personal=True, overview=True),
                                            pictures.png(view, locale, key=key, personal=True))
                       if pictures is not None else (None, None))
    notes = vacation_notes(info, user_id, locale) if reminder else []
    ends = (await host.deadlines.turn_deadline(info.game_id)
            if shown is not None and info.deadline_hours and deadline else None)
    words = hand_words(info, view, locale, turn=shown is not None, asked=asked, reminder=reminder, start=start,
                       notes=notes, deadline=ends, emojis=emojis)
    others = (others_waiting(await host.people.games_waiting(user_id, besides=info.game_id), locale)
              if shown is not None and waiting else "")
    panel = dm_layout.hand_panel(view, words, heading=heading, waiting=others, pictures=())
    items: list[discord.ui.Item[Any]] = list(shown.children) if shown is not None else []

    def make(names: Sequence[str]) -> discord.ui.LayoutView:
        sent = tuple(name for name in (OVERVIEW_PICTURE, HAND_PICTURE) if name in names)
        return dm_layout.layout(replace(panel, pictures=sent), dm_layout.action_rows(items))

    return Composed(dm_layout.words(panel), ((overview, OVERVIEW_PICTURE), (board, HAND_PICTURE)), layout=make,
                    controls=shown is not None)


async def lobby_content(host: Host, info: TableInfo) -> str:
    """The lobby message's text in the game's language, with how fast each of its people usually moves in the
    server (read from the database)."""
    return lobby_text(info, info.locale, await host.archive.usual_speeds(info.guild_id, info.humans))


def _mentions(user_id: int | None, quiet: frozenset[int]) -> discord.AllowedMentions:
    """Whom a post may ping: not the player to move while they are in their quiet hours (they are named)."""
    return NO_PINGS if user_id is not None and user_id in quiet else ALLOWED_MENTIONS
