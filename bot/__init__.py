"""The Discord side of Santa Cruz.

``bot.host`` makes every decision about games in channels and knows nothing of Discord;
``bot.store`` keeps games and their move log in SQLite; ``bot.settings`` reads the environment;
``bot.table`` holds the host's data and answer types. The cog (``bot.cog``, Discord commands, and the
buttons of ``bot.views``) calls the host and hands its answers on: ``bot.publish`` posts in the channel,
``bot.dms`` sends each player their hand, ``bot.background`` runs computer moves, reminders and restart
recovery, ``bot.errors`` words the refusals. ``bot.client.create_bot`` puts it together, ``bot.main`` runs
it and ``bot.cli`` is the offline front-end (``santacruz demo`` / ``play``).

``bot.create_bot(settings, **client_options)`` builds the bot without starting it; it is imported on
first use so that the host can be used without loading discord.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.client import SantaCruzBot
    from bot.settings import Settings


def create_bot(settings: Settings, **client_options: Any) -> SantaCruzBot:
    """The bot, not started (see :func:`bot.client.create_bot`)."""
    from bot.client import create_bot as _create_bot

    return _create_bot(settings, **client_options)


__all__ = ["create_bot"]
