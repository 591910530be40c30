"""Card, building and resource data of Santa Cruz: the building-card sets, the 16 scoring cards, supplies.

Everything here is plain data taken from the official rules (``shared/rules``); the rules engine reads it,
nothing in it decides anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

BUILDINGS: Final = ("house", "church", "lighthouse")
"""Building types, in supply order."""

SUPPLY: Final[dict[str, int]] = {"house": 8, "church": 3, "lighthouse": 2}
"""Each player's buildings at the start of each round."""

RESOURCES: Final = ("fish", "sheep", "wood", "sugar", "gold")
SITE_KINDS: Final = ("coast", "land", "volcano")

BUILDING_CARDS: Final = ("ship", "river", "road", "double")
"""Building-card kinds; ``double`` is the double move."""

SINGLE_BUILDS: Final = ("ship", "river", "road")
"""The kinds a double move can repeat."""

BUILDING_SETS: Final[dict[str, dict[str, int]]] = {
    "A": {"ship": 1, "river": 3, "road": 2, "double": 1},  # Fluss-Set
    "B": {"ship": 1, "river": 1, "road": 4, "double": 1},  # Weg-Set
    "C": {"ship": 3, "river": 1, "road": 2, "double": 1},  # Schiff-Set
    "D": {"ship": 2, "river": 2, "road": 2, "double": 1},  # ausgeglichen
}
"""The four building-card sets of seven cards (official rules, setup step 6)."""

SCORING_CARDS_DEALT: Final[dict[int, int]] = {2: 4, 3: 3, 4: 2}
"""Scoring cards each player gets in round 1, by number of players."""

START_SCORES: Final = (0, 1, 2, 3)
"""Score-track start values in turn order (start player first)."""


@dataclass(frozen=True, slots=True)
class ScoringCard:
    """One scoring card: ``rule`` names how it scores, ``points`` its value."""

    id: str
    rule: str
    points: int
    partial: int = 0
    """Points for only one of two resources (the two-resource cards)."""
    resources: tuple[str, ...] = ()
    fish_bonus: bool = False
    """The card shows a fish: every building on a fish tile adds the tile's fish bonus."""


SCORING_CARDS: Final[dict[str, ScoringCard]] = {
    c.id: c
    for c in (
        ScoringCard("sheep", "resource", 7, resources=("sheep",)),
        ScoringCard("fish", "resource", 5, resources=("fish",), fish_bonus=True),
        ScoringCard("wood", "resource", 6, resources=("wood",)),
        ScoringCard("sugar", "resource", 7, resources=("sugar",)),
        ScoringCard("gold6", "resource", 6, resources=("gold",)),
        ScoringCard("gold10", "resource", 10, resources=("gold",)),
        ScoringCard("fish-sheep", "pair", 7, partial=3, resources=("fish", "sheep"), fish_bonus=True),
        ScoringCard("wood-sugar", "pair", 7, partial=3, resources=("wood", "sugar")),
        ScoringCard("houses", "houses", 6),
        ScoringCard("trio", "trio", 6),
        ScoringCard("connected", "connected", 7),
        ScoringCard("coast", "per_coast", 3),
        ScoringCard("river", "per_river", 3),
        ScoringCard("volcano", "per_volcano", 3),
        ScoringCard("eruption", "eruption", -2),
        ScoringCard("birds", "per_bird", 2),
    )
}
"""The 16 scoring cards, by id."""

SCORING_CARD_IDS: Final = tuple(SCORING_CARDS)

HOUSES_NEEDED: Final = 4
CONNECTED_NEEDED: Final = 4
