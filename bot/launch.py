"""The ``santacruz-bot`` command's entry point, light on purpose.

The bot's worker processes (pictures, computer players) are started with ``spawn``, and each imports its parent's
main module again: for the installed command that is the console script, and through it this module. So importing
this module imports nothing else (not discord.py, the adapter or the host); :func:`main` imports the command when it
runs. A worker that imported them all took twice the memory and the CPU time to start (62 MB against 33 MB, 0.5 s
against 0.2 s, measured on a worker that draws pictures).
"""

from __future__ import annotations


def main() -> int:
    """Run ``santacruz-bot`` (:func:`bot.adapter.main.main`: the bot, ``migrate`` or ``backup``)."""
    from bot.adapter.main import main as command

    return command()
