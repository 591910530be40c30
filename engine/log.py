"""What a logged move did, read from its events (``view["log"][i]["events"]`` or what ``Game.apply`` returned), and
who may see which part of an event (:func:`seen_by`, :func:`public_event`).

Every log entry of a view carries the events its move caused, as that view's seat may see them (see
:func:`engine.view.make_view`): the card played, the site built on and with what (beside another player's
building: the share right spent), the sites turned face up, the bird chip taken (its value to its owner, and to
everyone once the game is over), the buildings an eruption destroyed, and every seat's points with their reason.
Readers take those facts from here and never work them out again from scores or the board.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple, cast

from engine.types import Event


def seen_by(event: dict[str, Any], seat: int | None, over: bool) -> Event:
    """An event of the engine as ``seat`` may see it: its secret part (a bird chip's value, a drawn or discarded card)
    only for the seat it belongs to, and a bird chip's value for everyone once the game is over."""
    secret = event.get("secret")
    if secret is None:  # most events: a copy, so that nobody changes the game through a view
        return cast(Event, event.copy())
    out = {k: v for k, v in event.items() if k != "secret"}
    if (seat is not None and event.get("seat") == seat) or (over and event["type"] == "bird"):
        out.update(secret)
    return cast(Event, out)  # the engine's event dicts are made to these shapes (engine/types.py)


def public_event(event: dict[str, Any]) -> Event:
    """An event as everyone may see it: without its ``secret`` part."""
    return cast(Event, {k: v for k, v in event.items() if k != "secret"})


class Built(NamedTuple):
    """One build of a move: the building, the points its tile gave, and whether it stood beside another player's
    building (the mover spent their share right for the round)."""

    building: str
    points: int
    shared: bool


def built(events: Sequence[Event], seat: int, site: int | None = None) -> Built | None:
    """What ``seat`` built on ``site`` (``None``: wherever it built) in these events, e.g. a log entry's; ``None``
    when it built nothing there (a card without effect, a revealed tile whose building the supply lacks, a move
    without a site)."""
    for i, e in enumerate(events):
        if e["type"] == "build" and e["seat"] == seat and site in (None, e["site"]):
            after = events[i + 1] if i + 1 < len(events) else None  # a build's points follow it at once (no event: 0)
            points = after["delta"] if after is not None and after["type"] == "score" and after["reason"] == "build" \
                and after["seat"] == seat else 0
            return Built(e["building"], points, bool(e.get("shared")))
    return None


def points_won(events: Iterable[Event]) -> dict[int, dict[str, int]]:
    """Per seat, the points these events gave (or took), by reason: ``build``, ``bird_chips`` or a scoring card's id."""
    won: dict[int, dict[str, int]] = {}
    for e in events:
        if e["type"] == "score":
            reasons = won.setdefault(e["seat"], {})
            reasons[e["reason"]] = reasons.get(e["reason"], 0) + e["delta"]
    return won
