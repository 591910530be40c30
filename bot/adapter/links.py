"""The link buttons to the games' web pages: *Open board* on a game's posts and ``/santacruz history id``, *Open your
view* on a player's turn DM. The host decides whether a game has a page and signs a player's link
(:mod:`bot.host.web`); here the addresses become buttons. A link the host cannot give (the database is busy) is left
out: the post or the DM goes without it, never fails for it.
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.host.errors import HostError
from bot.host.host import Host
from i18n import t

log = logging.getLogger(__name__)


async def board_link(host: Host, game_id: int) -> str | None:
    """The address of the game's page, or ``None`` (no page, or the database cannot say now)."""
    try:
        return await host.web.link(game_id)
    except HostError as exc:
        log.info("game %d: its web page's link is left out (%s)", game_id, exc.key)
        return None


async def seat_link(host: Host, game_id: int, user_id: int) -> str | None:
    """The signed address of the player's own view of the game, or ``None``."""
    try:
        return await host.web.seat_link(game_id, user_id)
    except HostError as exc:
        log.info("game %d: the link to a player's view is left out (%s)", game_id, exc.key)
        return None


def board_button(url: str, locale: str) -> discord.ui.Button[Any]:
    """*Open board*: the game's page in the browser."""
    return discord.ui.Button(style=discord.ButtonStyle.link, url=url, label=t("bot.button.open_board", locale))


def view_button(url: str, locale: str) -> discord.ui.Button[Any]:
    """*Open your view*: the player's own view of the game (their cards), in the browser."""
    return discord.ui.Button(style=discord.ButtonStyle.link, url=url, label=t("bot.button.open_view", locale))


