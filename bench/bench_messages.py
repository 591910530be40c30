"""What players meet on every move: ``.venv/bin/python bench/bench_messages.py [--transcript DIR]``.

Plays one seeded 4-player drafted game per language (English, German, French: the game's language and every
player's Discord locale) through the real bot (``bot.create_bot``) and the fake Discord of the tests
(``tests/fakediscord``), with four people named 王小明, たろう, 🦊 Fuchs and محمد and no computer. The players act
like people: on their turn they ask every autocomplete of the command their move needs (``land site``,
``build site`` with nothing, a card, or a double move's kind filled first, ``score card``, ``choose option``)
and play their move, every other turn with a slash command filled by picking an offered value as it is, every
other turn with the buttons and menus of their turn DM. Once in the game each runs ``status``, one runs
``games`` and ``log``, and one takes a move back with ``undo``. What a player decides is read from the host (as
``tests/helpers/driver.py``'s ``Driver`` does); every action goes through the fake Discord, and takes ten seconds
on the bot's clock (a person's quick move: a "your cards changed" DM waits a minute for the turn DM it is folded into).

Printed per language: moves, channel posts, pictures and pings, DMs per player (total, own actions, own turns, per
own turn, with pictures, with controls, and the DMs without controls that followed the player's own move), the DM
pictures' bytes and pixels, the autocomplete offers made / accepted / refused (each offer judged by what the command
means when it is picked as it is, ``tests/fakediscord/audit.offer_move``; up to ``--verify`` refused offers of each
autocomplete per turn are also sent to the bot, which must refuse them and change nothing), texts naming
``/santacruz <x>`` where ``x`` is no registered command, relative times after since/until words, plural slips, and
(from the catalogues, not the game) the catalogue entries naming a command that does not exist. ``--transcript DIR``
writes every message of each game (channel, replies, each DM; in order, with buttons, menus and attachments) to
``DIR/transcript-<lang>.txt``. The budget: at most one channel picture per move (plus the start and the game over),
at most one DM per own turn plus four per player, nothing refused, no unknown command, no relative time after
since/until, no plural slip.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.adapter.whole_game import DISCORD_LOCALES, run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7, help="the game's seed (and the players' choices)")
    parser.add_argument("--lang", choices=sorted(DISCORD_LOCALES), action="append",
                        help="only this language (repeatable; default all three)")
    parser.add_argument("--verify", type=int, default=3,
                        help="refused offers of each autocomplete per turn also sent to the bot (default 3)")
    parser.add_argument("--transcript", type=Path, metavar="DIR",
                        help="write every message of each game to DIR/transcript-<lang>.txt")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    for lang in args.lang or ["en", "de", "fr"]:
        figures = asyncio.run(run(lang, args.seed, args.verify))
        print(f"== {lang}")
        for row in figures.report:
            print("  " + row)
        if args.transcript is not None:
            args.transcript.mkdir(parents=True, exist_ok=True)
            path = args.transcript / f"transcript-{lang}.txt"
            path.write_text(figures.transcript, encoding="utf-8")
            print(f"  transcript: {path}")


if __name__ == "__main__":
    main()
