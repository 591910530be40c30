"""The engine's one vocabulary for what leaves it: views and events, declared as ``TypedDict``\\ s.

Views and events stay plain JSON-ready dicts (they are stored, sent to picture workers and compared with
golden files), but every key is declared here, so that adding a field touches this module and a type
checker finds every reader. :func:`engine.view.make_view` builds a :class:`View`; ``Game.apply`` returns
public :data:`Event`\\ s. An event's ``type`` tells which of the event dicts it is, so ``if e["type"] ==
"build":`` narrows ``e`` to :class:`BuildEvent`.

The keys marked ``NotRequired`` are present only sometimes: a seat's own view adds the secret parts of
its events (a bird chip's value, a drawn or discarded card); ``View.sets``/``piles``/``choosing_order``/
``discarded`` belong to the phases that choose; ``View.you`` is there for a seat's view only.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

# ---------------------------------------------------------------------- events


class SetEvent(TypedDict):
    """A seat took a building-card set in the draft (``forced``: the last one left)."""

    type: Literal["set"]
    seat: int
    set: str
    forced: NotRequired[bool]


class PileEvent(TypedDict):
    """A seat took the round-1 cards of seat ``pile`` for round 2 (``forced``: the last pile left)."""

    type: Literal["pile"]
    seat: int
    pile: int
    forced: NotRequired[bool]


class CardEvent(TypedDict):
    """A seat played a building card (``kind`` for a double move) or a scoring card (``scoring``)."""

    type: Literal["card"]
    seat: int
    card: str
    kind: NotRequired[str]
    scoring: NotRequired[bool]


class BuildEvent(TypedDict):
    """A seat built on a site (``shared``: next to another seat's building)."""

    type: Literal["build"]
    seat: int
    site: int
    building: str
    shared: NotRequired[bool]


class NoBuildEvent(TypedDict):
    """A card built nothing: no legal site, or (``supply``) the revealed tile's building is used up."""

    type: Literal["no_build"]
    seat: int
    reason: Literal["no_site", "supply"]
    site: NotRequired[int]
    building: NotRequired[str]


class PassEvent(TypedDict):
    """A seat gave up the second build of a double move."""

    type: Literal["pass"]
    seat: int


class RevealEvent(TypedDict):
    """A face-down tile was turned up."""

    type: Literal["reveal"]
    site: int


class BirdEvent(TypedDict):
    """A seat took a bird chip; ``value`` only in that seat's own view."""

    type: Literal["bird"]
    seat: int
    value: NotRequired[int]


class DestroyEvent(TypedDict):
    """The eruption destroyed a seat's building on a volcano site."""

    type: Literal["destroy"]
    seat: int
    site: int
    building: str


class ScoreEvent(TypedDict):
    """A seat's marker moved by ``delta``; ``reason`` is ``build``, ``bird_chips`` (revealed at the end) or a scoring
    card's id (the card ``birds`` among them)."""

    type: Literal["score"]
    seat: int
    delta: int
    reason: str


class DiscardEvent(TypedDict):
    """A seat put a scoring card back in the box; ``card`` only in that seat's own view."""

    type: Literal["discard"]
    seat: int
    card: NotRequired[str]


class DrawEvent(TypedDict):
    """A seat drew a scoring card for round 2; ``card`` only in that seat's own view."""

    type: Literal["draw"]
    seat: int
    card: NotRequired[str]


class RoundEndEvent(TypedDict):
    type: Literal["round_end"]
    round: int


class BirdsEvent(TypedDict):
    """At the end, a seat's bird chips are shown (and scored by the following score event)."""

    type: Literal["birds"]
    seat: int
    chips: list[int]


class GameOverEvent(TypedDict):
    type: Literal["game_over"]
    ranking: list[int]


Event = (SetEvent | PileEvent | CardEvent | BuildEvent | NoBuildEvent | PassEvent | RevealEvent | BirdEvent
         | DestroyEvent | ScoreEvent | DiscardEvent | DrawEvent | RoundEndEvent | BirdsEvent | GameOverEvent)
"""One thing that happened, as a seat (or everyone) may see it."""

# ---------------------------------------------------------------------- the board


class VolcanoShape(TypedDict):
    center: list[int]
    radius: int


class IslandShape(TypedDict):
    """One island's outline (board coordinates) and its volcano, if any."""

    id: str
    outline: list[list[int]]
    volcano: VolcanoShape | None


class TileView(TypedDict):
    """A face-up tile."""

    building: str
    points: int
    resources: list[str]
    fish_bonus: int
    bird: bool


class BuildingView(TypedDict):
    seat: int
    type: str


class SiteView(TypedDict):
    """A building site: where it is, what joins it, its tile (``None`` while face down) and who built there."""

    id: int
    kind: str
    island: str
    pos: list[float]
    roads: list[int]
    rivers: list[int]
    tile: TileView | None
    buildings: list[BuildingView]


class RiverView(TypedDict):
    id: int
    name: str
    edges: list[list[int]]
    source: Any
    """Where the river starts, as the island data draws it (a point or absent)."""
    mouth: Any


class BoardView(TypedDict):
    """The static board (``Island.public_dict``) with its rivers and sites."""

    name: str
    size: list[int]
    islands: list[IslandShape]
    roads: list[list[int]]
    rivers: list[RiverView]
    sites: list[SiteView]


# ---------------------------------------------------------------------- players and the seat's own part


class PlayerView(TypedDict):
    """What everyone knows about one seat (``bird_chips`` once the game is over)."""

    seat: int
    name: str
    score: int
    laps: int
    track: int
    rank: int
    supply: dict[str, int]
    destroyed: dict[str, int]
    building_set: str | None
    building_cards: dict[str, int]
    scoring_cards_in_hand: int
    played_building_cards: list[str]
    played_scoring_cards: list[str]
    birds: int
    can_share: bool
    resources: list[str]
    buildings_on_board: int
    bird_chips: NotRequired[list[int]]


class SinceTurn(TypedDict):
    """One turn of another seat (or a round's deal) since the viewing seat's last move: its moves in notation
    (another seat's discard hidden) and their events as the viewing seat may know them."""

    seat: int
    moves: list[str]
    events: list[Event]


class TakenSite(TypedDict):
    """A site another seat (``seat``) built on since the viewing seat's last move, which one of the viewing seat's
    building cards (``cards``: ship, river, road) could use then and cannot now."""

    site: int
    seat: int
    cards: list[str]


class CardChange(TypedDict):
    """A scoring card of the viewing seat's hand whose points for it changed since its last move."""

    card: str
    before: int
    now: int


class Since(TypedDict):
    """What happened since a seat's own last move, and what it changed for that seat (``engine.history``)."""

    turns: list[SinceTurn]
    taken: list[TakenSite]
    cards: list[CardChange]


class ScoreBreakdown(TypedDict):
    """Where a seat's points came from: its start, its buildings, each scoring card that moved its marker (by card:
    its own and the others', a loss below 0), its bird chips (``engine.history.score_breakdown``)."""

    seat: int
    start: int
    buildings: int
    cards: dict[str, int]
    birds: int


class CardNow(TypedDict):
    """What a scoring card would score if played now (``Game.card_now``): for the seat that holds it (``points``)
    and for the other seat it gives the most (``other``: the first such in seat order; with the eruption card, the
    one that loses the least), or ``None`` when that is 0 (nobody to name)."""

    card: str
    points: int
    other: int | None
    other_points: int


class YouView(TypedDict):
    """A seat's own secrets and options: its scoring cards (with what each scores now), bird chips, legal moves (on
    its turn)."""

    seat: int
    scoring_cards: list[str]
    cards_now: list[CardNow]
    """What each of ``scoring_cards`` would score now, in their order (during the landing and play phases; else
    empty): one count of the public board, the same in the menus, the question before playing it and the coach."""
    bird_chips: list[int]
    legal_moves: list[str]
    build_sites: NotRequired[dict[str, list[int]]]
    """Per kind of build, the sites it could go to now (on the seat's turn in the play phase)."""
    discarded: NotRequired[str]
    since: NotRequired[Since]
    """What happened since the seat's own last move (asked for: ``game.view(seat, since=True)``)."""


class Pending(TypedDict):
    """A double move half done."""

    kind: str
    card: str
    builds_left: int


class SetChoice(TypedDict):
    set: str
    building_cards: dict[str, int]
    taken: bool


class PileView(TypedDict):
    id: int
    set: str
    building_cards: dict[str, int]
    scoring_cards: list[str]
    taken_by: int | None


class LogEntry(TypedDict):
    """One move made: by whom, its notation (a discard's card hidden from others), the round after it, the scores
    after it, and what it did: its events, as the view's seat may see them (see :func:`engine.log.built`)."""

    seat: int
    move: str
    round: int
    scores: list[int]
    events: list[Event]


class View(TypedDict):
    """What one seat (``seat``) or everyone (``seat`` is ``None``) may know about a game."""

    version: int
    seat: int | None
    round: int
    phase: str
    to_move: int | None
    turn_order: list[int]
    pending: Pending | None
    board: BoardView
    players: list[PlayerView]
    ranking: list[int]
    scoring_deck: int
    bird_chips_left: int
    events: list[Event]
    log: list[LogEntry]
    winner: int | None
    sets: NotRequired[list[SetChoice]]
    choosing_order: NotRequired[list[int]]
    piles: NotRequired[list[PileView]]
    discarded: NotRequired[list[int]]
    you: NotRequired[YouView]
