"""The game host: every decision and all state that needs no discord.py.

``host`` (:class:`Host`, one engine instance per channel, and :class:`HostError`, every refusal),
``table`` (a game at its table and the frozen answers the host gives), ``store`` (games and their
append-only move log), ``settings`` (the environment), ``pictures`` (pictures rendered off the event
loop). Nothing under this package imports discord.py (a test checks it), so the host can be driven
by any front-end: the Discord adapter (``bot.adapter``), the tests, a benchmark.
"""

from bot.host.errors import HostError
from bot.host.host import Host

__all__ = ["Host", "HostError"]
