"""The game host: every decision and all state that needs no discord.py.

``host`` (:class:`bot.host.host.Host`, one engine instance per channel; refusals are
:class:`bot.host.errors.HostError`), ``table`` (a game at its table and the frozen answers the host gives), ``store``
(games and their append-only move log), ``settings`` (the environment), ``pictures`` (pictures rendered off the event
loop). Nothing under this package imports discord.py (a test checks it), so the host can be driven by any front-end:
the Discord adapter (``bot.adapter``), the tests, a benchmark. The package itself imports none of its parts: a worker
process that only draws pictures or thinks for a computer loads what it runs, not the whole host.
"""
