"""Computer players for Santa Cruz: ``random``, ``greedy``, ``expert`` and ``master`` (no Discord, no I/O).

Every player's only input is a seat's view (``game.view(seat)``)::

    from engine.ai import choose_move
    move = choose_move(game.view(seat), strength="expert", seed=1, budget=1.0)
    game.apply(move)

- ``random``: a legal move uniformly at random.
- ``greedy``: the move with the best immediate value (:mod:`engine.ai.greedy`).
- ``expert``: determinized Monte Carlo search over the greedy player's best candidates
  (:mod:`engine.ai.expert`), sampling the hidden information with :mod:`engine.ai.determinize`.
- ``master``: in 2 players the expert's playouts allocated by sequential halving, with the end of round 1 judged by
  a learned chance to win; the expert's own search in 3 and 4 (:mod:`engine.ai.master`).

Players and operators choose from :data:`OFFERED`; the strongest of them (:data:`STRONGEST`, the last) is the one
the coach thinks as (:data:`engine.ai.coach.STRONGEST`). ``engine/AI.md`` says how strong each one is.

Moves are deterministic for a given seed; for the searching players (:data:`SEARCHING`) pass ``iterations=``
(and ``budget=None``) to make them independent of the machine's speed.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from engine.ai.determinize import determinize
from engine.ai.expert import ExpertPlayer, search
from engine.ai.greedy import greedy_move, move_values
from engine.ai.master import MasterPlayer, master_search
from engine.ai.players import GreedyPlayer, Player, RandomPlayer
from engine.island import Island
from engine.types import View

__all__ = [
    "OFFERED",
    "SEARCHING",
    "STRENGTHS",
    "STRONGEST",
    "ExpertPlayer",
    "GreedyPlayer",
    "MasterPlayer",
    "Player",
    "RandomPlayer",
    "choose_move",
    "determinize",
    "greedy_move",
    "make_player",
    "master_search",
    "move_values",
    "search",
]

STRENGTHS = ("random", "greedy", "expert", "master")
"""Every strength the engine has, weakest first (the arena, the bench and the terminal game take them all)."""
OFFERED = ("random", "greedy", "expert", "master")
"""The strengths players and operators choose from (``new``, ``addbot``, ``AI_STRENGTH``, away and deadline stand-ins),
weakest first: each after the first is measurably stronger than the one before it (``engine/AI.md``), and the
last is the coach's player."""
SEARCHING = ("expert", "master")
"""The strengths that search (they take ``budget`` and ``iterations``)."""
STRONGEST = OFFERED[-1]
"""The strongest strength on offer (the coach thinks as it does: :data:`engine.ai.coach.STRONGEST`)."""


def make_player(strength: str, *, seed: int = 0, budget: float | None = 1.0, iterations: int | None = None,
                island: Island | None = None, clock: Callable[[], float] = time.perf_counter) -> Player:
    """A player of the given strength (see :data:`STRENGTHS`). A searching player reads ``budget`` on ``clock``
    (the wall clock; ``time.process_time`` makes a budget the process's CPU seconds, which a busy machine does not
    shorten)."""
    if strength == "random":
        return RandomPlayer(seed)
    if strength == "greedy":
        return GreedyPlayer(seed, island=island)
    if strength == "expert":
        return ExpertPlayer(seed, budget=budget, iterations=iterations, island=island, clock=clock)
    if strength == "master":
        return MasterPlayer(seed, budget=budget, iterations=iterations, island=island, clock=clock)
    raise ValueError(f"unknown strength {strength!r}; choose one of {', '.join(STRENGTHS)}")


def choose_move(view: View, *, strength: str = "greedy", seed: int = 0, budget: float | None = 1.0,
                iterations: int | None = None, island: Island | None = None) -> str:
    """The notation of a legal move for the seat whose view this is (it must be that seat's turn).

    ``budget`` is a searching player's thinking time in seconds, ``iterations`` its number of playouts (whichever
    ends first; give ``iterations`` and ``budget=None`` for a result that does not depend on timing).
    ``island`` is the board when it is not the project's island (tests).
    """
    return make_player(strength, seed=seed, budget=budget, iterations=iterations, island=island).choose(view)
