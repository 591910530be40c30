"""What a scoring card would score if played now: for the seat that holds it and for the best other seat.

One answer for every place that names it: the one-click question before a scoring card is played
(``bot.host.takeback``), the scoring cards offered in menus and autocomplete, and the coach's advice
(``engine.ai.coach``). The best other seat is the one the card gives the most (the first such in seat
order; with the eruption card, the one that loses the least); when that is nothing, nobody is named.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.ai.determinize import determinize
from engine.game import Game
from engine.island import Island
from engine.types import View


@dataclass(frozen=True, slots=True)
class CardNow:
    """A scoring card: what it would give ``seat``'s player now (``points``) and the best other seat."""

    card: str
    points: int
    other: int | None
    """The other seat the card gives the most, or ``None`` when that is 0 (nobody to name)."""
    other_points: int


def card_now(game: Game, seat: int, card: str) -> CardNow:
    """What ``card`` would give ``seat`` and the best other seat if it were played now in ``game``."""
    now = [game.card_points(p, card) for p in range(game.n)]
    others = [p for p in range(game.n) if p != seat]
    best = max(others, key=lambda p: (now[p], -p))  # the first of the best, in seat order
    return CardNow(card, now[seat], best if now[best] else None, now[best])


def cards_now(view: View, *, island: Island | None = None) -> tuple[CardNow, ...]:
    """:func:`card_now` for each scoring card in the hand of ``view``'s seat, from that view alone (a card counts
    buildings, tiles and bird chips on the board, all public, so whatever is hidden does not change it). Empty
    outside the landing and play phases; raises :class:`ValueError` for the public view."""
    you, seat = view.get("you"), view["seat"]
    if you is None or seat is None:
        raise ValueError("the points of a hand need a seat's view, not the public one")
    if view["phase"] not in ("land", "play") or not you["scoring_cards"]:
        return ()
    game = determinize(view, random.Random(0), island=island, keep_log=False)
    return tuple(card_now(game, seat, card) for card in you["scoring_cards"])
