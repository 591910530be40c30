"""The simple players and what all players share: a player turns a seat's view into a move's notation."""

from __future__ import annotations

import random
from typing import Protocol

from engine.ai.determinize import determinize
from engine.ai.greedy import greedy_move
from engine.island import Island
from engine.types import View, YouView

__all__ = ["GreedyPlayer", "Player", "RandomPlayer", "mix_seed"]


def mix_seed(*parts: int) -> int:
    """A 32-bit seed from a few integers (stable across runs, unlike ``hash`` of strings)."""
    h = 0x345678
    for part in parts:
        h = (h * 1_000_003 ^ (part & 0xFFFFFFFF)) & 0xFFFFFFFFFFFF
    return h & 0xFFFFFFFF


class Player(Protocol):
    """Anything that picks a move (its notation) from a seat's view."""

    def choose(self, view: View) -> str: ...


def own_part(view: View) -> YouView:
    """The seat's own part of a seat's view (``view["you"]``); a public view has none: ``ValueError``."""
    you = view.get("you")
    if you is None:
        raise ValueError("a computer player needs a seat's view (game.view(seat)), not the public view")
    return you


class RandomPlayer:
    """A legal move uniformly at random."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose(self, view: View) -> str:
        you = own_part(view)
        legal = you["legal_moves"]
        if not legal:
            raise ValueError("the seat has no move to make in this view")
        rng = random.Random(mix_seed(self.seed, len(view["log"]), you["seat"]))
        return str(rng.choice(legal))


class GreedyPlayer:
    """The best immediate value (see :mod:`engine.ai.greedy`)."""

    def __init__(self, seed: int = 0, *, island: Island | None = None) -> None:
        self.seed = seed
        self.island = island

    def choose(self, view: View) -> str:
        legal = own_part(view)["legal_moves"]
        if not legal:
            raise ValueError("the seat has no move to make in this view")
        if len(legal) == 1:
            return str(legal[0])
        # The greedy evaluation reads only public and own information, so any consistent game will do.
        game = determinize(view, random.Random(mix_seed(self.seed, len(view["log"]))), island=self.island,
                           keep_log=False)
        return str(greedy_move(game))
