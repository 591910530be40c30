"""The Discord side of Santa Cruz, in two rooms.

``bot.host`` makes every decision and holds all state that needs no discord.py: the host (one engine
instance per channel), its tables, the store, the settings and the pictures. ``bot.adapter`` is the
discord.py adapter: it translates Discord input into host calls and the host's answers into messages.
The offline front-ends (``santacruz demo`` / ``play``) live in the top-level ``play`` package.

``bot.create_bot(settings, **client_options)`` builds the bot without starting it; it is imported on
first use so that the host can be used without loading discord.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.adapter.client import SantaCruzBot
    from bot.host.settings import Settings


def create_bot(settings: Settings, **client_options: Any) -> SantaCruzBot:
    """The bot, not started (see :func:`bot.adapter.client.create_bot`)."""
    from bot.adapter.client import create_bot as _create_bot

    return _create_bot(settings, **client_options)


__all__ = ["create_bot"]
