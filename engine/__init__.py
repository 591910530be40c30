"""Santa Cruz rules engine: pure Python, no I/O.

Public API::

    game = engine.new_game(["Ada", "Bo"], seed=7)      # draft=True to choose building sets
    game.to_move, game.phase, game.legal_moves()
    events = game.apply("land 12")                     # or a Move; raises engine.IllegalMove
    game.view(seat)                                    # what a seat may know (None: public): a View
    game.clone(), game.ranking(), game.to_json(), engine.Game.from_json(text)
    setup = game.setup_record()                        # before the first move: the deal, no seed
    engine.from_record(setup, moves)                   # the same game again, without the seed
"""

from engine.cards import (
    BUILDING_CARDS,
    BUILDING_SETS,
    BUILDINGS,
    RESOURCES,
    SCORING_CARD_IDS,
    SCORING_CARDS,
    SITE_KINDS,
)
from engine.game import PHASES, Game, from_record, new_game, public_event, replay
from engine.island import Island, Tile, default_island
from engine.moves import IllegalMove, Move, parse_move
from engine.types import (
    BirdEvent,
    BirdsEvent,
    BoardView,
    BuildEvent,
    BuildingView,
    CardEvent,
    DestroyEvent,
    DiscardEvent,
    DrawEvent,
    Event,
    GameOverEvent,
    IslandShape,
    LogEntry,
    NoBuildEvent,
    PassEvent,
    Pending,
    PileEvent,
    PileView,
    PlayerView,
    RevealEvent,
    RiverView,
    RoundEndEvent,
    ScoreEvent,
    SetChoice,
    SetEvent,
    SiteView,
    TileView,
    View,
    VolcanoShape,
    YouView,
)

__all__ = [
    "BUILDINGS",
    "BUILDING_CARDS",
    "BUILDING_SETS",
    "PHASES",
    "RESOURCES",
    "SCORING_CARDS",
    "SCORING_CARD_IDS",
    "SITE_KINDS",
    "BirdEvent",
    "BirdsEvent",
    "BoardView",
    "BuildEvent",
    "BuildingView",
    "CardEvent",
    "DestroyEvent",
    "DiscardEvent",
    "DrawEvent",
    "Event",
    "Game",
    "GameOverEvent",
    "IllegalMove",
    "Island",
    "IslandShape",
    "LogEntry",
    "Move",
    "NoBuildEvent",
    "PassEvent",
    "Pending",
    "PileEvent",
    "PileView",
    "PlayerView",
    "RevealEvent",
    "RiverView",
    "RoundEndEvent",
    "ScoreEvent",
    "SetChoice",
    "SetEvent",
    "SiteView",
    "Tile",
    "TileView",
    "View",
    "VolcanoShape",
    "YouView",
    "default_island",
    "from_record",
    "new_game",
    "parse_move",
    "public_event",
    "replay",
]
