"""Santa Cruz rules engine: pure Python, no I/O.

Public API::

    game = engine.new_game(["Ada", "Bo"], seed=7)      # draft=True to choose building sets
    game.to_move, game.phase, game.legal_moves()
    events = game.apply("land 12")                     # or a Move; raises engine.IllegalMove(code, **params)
    move = engine.parse_move("ship 7"); move.verb, move.site, move.card, move.kind
    game.view(seat)                                    # what a seat may know (None: public): a View
    game.card_now(seat, "gold")                        # what a scoring card scores now: a CardNow (also in a view)
    game.clone(), game.ranking(), game.to_json(), engine.Game.from_json(text)
    game.refusal(move)                                 # why not (an IllegalMove), or None when legal
    engine.Game.restore(players, to_move=..., **fields)  # one PlayerRecord per seat, see game.STATE_FIELDS
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
    SINGLE_BUILDS,
    SITE_KINDS,
)
from engine.game import PHASES, Game, PlayerRecord, from_record, new_game, replay
from engine.island import Island, Tile, default_island
from engine.log import public_event
from engine.moves import (
    REASONS,
    SITE_VERBS,
    VERBS,
    BuildPlan,
    IllegalMove,
    Move,
    builds_nothing,
    parse_move,
    plan_build,
)
from engine.types import (
    BirdEvent,
    BirdsEvent,
    BoardView,
    BuildEvent,
    BuildingView,
    CardEvent,
    CardNow,
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
    "REASONS",
    "RESOURCES",
    "SCORING_CARDS",
    "SCORING_CARD_IDS",
    "SINGLE_BUILDS",
    "SITE_KINDS",
    "SITE_VERBS",
    "VERBS",
    "BirdEvent",
    "BirdsEvent",
    "BoardView",
    "BuildEvent",
    "BuildPlan",
    "BuildingView",
    "CardEvent",
    "CardNow",
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
    "PlayerRecord",
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
    "builds_nothing",
    "default_island",
    "from_record",
    "new_game",
    "parse_move",
    "plan_build",
    "public_event",
    "replay",
]
