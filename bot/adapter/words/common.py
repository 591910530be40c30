"""The pieces every message is made of: Discord's limits, escaped names, links, timestamps, signed numbers, lines
that fit one message, a scoring card's and a phase's words.

Nothing under ``bot.adapter.words`` talks to Discord; every text comes from the message catalogues (``bot.*`` keys in
``i18n/locales/<lang>/bot.json`` and the game's own ``game.*`` words), and player names are escaped so that a name can
neither ping anyone nor break the markdown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

import discord

from engine import (
    View,
)
from i18n import t
from render.script import letters_within

SEP: Final = " · "
"""Between the parts of a label ("12 · Church · 3 points · Sugar")."""


MESSAGE_MAX: Final = 2000


LABEL_MAX: Final = 80
"""Discord's limit for button labels."""


OPTION_MAX: Final = 100
"""Discord's limit for select option labels and descriptions, and autocomplete choice names."""


_MENTION_OPEN = re.compile(r"<(?=[@#])")
"""The opening of a user, role or channel mention (``<@1>``, ``<@!1>``, ``<@&1>``, ``<#1>``), whatever its digits:
``discord.utils.escape_mentions`` knows ids of 17-20 digits only."""


def esc(name: str) -> str:
    """A player name made harmless for a message: no mention (``@everyone``, ``@here``, and every ``<@…>``,
    ``<@&…>``, ``<#…>`` whatever its digits, broken by a zero-width space after the ``<``), no markdown."""
    text = _MENTION_OPEN.sub("<\u200b", discord.utils.escape_mentions(str(name)))
    return discord.utils.escape_markdown(text)


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters (with an ellipsis when cut), between two letters."""
    return text if len(text) <= limit else letters_within(text, limit - 1).rstrip() + "…"


def mention(user_id: int) -> str:
    return f"<@{user_id}>"


def channel_link(channel_id: int) -> str:
    return f"<#{channel_id}>"


def timestamp(seconds: float, style: str = "R") -> str:
    """A Discord timestamp: every reader sees it in their own language and time zone."""
    return f"<t:{int(seconds)}:{style}>"


def signed(number: int) -> str:
    """A change of points with its sign: "+6", "0", "−2" (a true minus sign)."""
    return f"+{number}" if number > 0 else f"−{-number}" if number < 0 else "0"


def names_of(view: View) -> list[str]:
    """The escaped names of a view's seats, in seat order."""
    return [esc(p["name"]) for p in view["players"]]


def message_link(guild_id: int | None, channel_id: int, message_id: int) -> str:
    """The link that jumps to a message (as discord.py's ``jump_url`` writes it; ``@me`` outside a server)."""
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}/{message_id}"


def lines_text(lines: Iterable[str], limit: int = MESSAGE_MAX) -> str:
    """Lines joined by newlines, dropping the oldest ones (after the first) if they do not fit."""
    items = [line for line in lines if line]
    text = "\n".join(items)
    if len(text) <= limit or len(items) < 2:
        return clip(text, limit)
    head, rest = items[0], items[1:]
    while rest and len(head) + 3 + sum(len(r) + 1 for r in rest) > limit:
        rest.pop(0)
    return "\n".join([head, "…", *rest])


def scoring_name(card: str, locale: str) -> str:
    return t(f"game.scoring.{card}.name", locale)


def scoring_text(card: str, locale: str) -> str:
    return t(f"game.scoring.{card}.text", locale)


def phase_text(view: View, locale: str) -> str:
    return SEP.join([t("game.round", locale, round=view["round"]), t(f"game.phase.{view['phase']}", locale)])
