"""Which channel posts carry buttons that stop acting, and which later post takes them off (a part of the outbox).

A button that no longer acts would only be refused when pressed, so its post loses it when the post that ends it goes
out. The outbox keeps the message of every post whose buttons end (:func:`buttons_of`, on its delivery, whichever
process sent it); the adapter, before it sends a post, takes the buttons off the posts that this one ends
(:func:`ends`, :meth:`bot.host.outbox.Outbox.ended_by`) and records them closed with it. So a busy channel, a restart
or another process makes no difference: the posts are found by their messages, not by a search of the channel.

==================  ===================================  ===========================================================
buttons             carried by                           taken off by
==================  ===================================  ===========================================================
``confirm:<seat>``  an offer to take the seat            its decision: taken over, lapsed, withdrawn
``take:<seat>``     the seat handed to the computer      the seat taken over, or its person back
``vote:<seat>``     a vacation's vote                    its decision (paused, computer plays), or the vacation over
every one of them                                        the game's end (game over, abandoned)
==================  ===================================  ===========================================================
"""

from __future__ import annotations

from typing import Final

from bot.host.deliveries import ABANDONED_POST, MOVE_POST, NOTICE_POST, SEAT_POST, Delivery

EVERY: Final = "*"
"""In :func:`ends`: every post of the game whose buttons end."""

TAKEOVER_ENDS: Final = {"bot.takeover.taken": ("confirm", "take"), "bot.takeover.lapsed": ("confirm",),
                        "bot.takeover.withdrawn": ("confirm",)}
"""A take-over notice's key -> the buttons of its seat it ends."""
VACATION_ENDS: Final = frozenset({"bot.vacation.paused", "bot.vacation.computer_plays", "bot.vacation.over"})
"""The vacation notices that end their seat's vote."""


def buttons_of(delivery: Delivery) -> str | None:
    """The buttons ``delivery``'s post carries that a later post ends (``confirm:1``, ``take:1``, ``vote:1``), or
    ``None``."""
    payload = delivery.payload
    if delivery.kind == SEAT_POST:
        return f"take:{payload['seat']}" if payload.get("away") else None
    if delivery.kind != NOTICE_POST:
        return None
    if payload.get("takeover") is not None:
        return f"confirm:{payload['takeover']['seat']}"
    if payload.get("takeable") is not None:
        return f"take:{payload['takeable']}"
    if payload.get("vote") is not None:
        return f"vote:{payload['vote']}"
    return None


def ends(delivery: Delivery) -> frozenset[str]:
    """The buttons (:func:`buttons_of`) whose posts lose them when ``delivery``'s post goes out (:data:`EVERY`: all of
    the game's)."""
    payload = delivery.payload
    if delivery.kind == ABANDONED_POST or (delivery.kind == MOVE_POST and payload.get("game_over")):
        return frozenset({EVERY})
    if delivery.kind == SEAT_POST:  # a seat's person back (a forgotten post keeps no payload: nothing)
        return frozenset() if payload.get("away") or "seat" not in payload else frozenset({f"take:{payload['seat']}"})
    if delivery.kind != NOTICE_POST or payload.get("seat") is None:
        return frozenset()
    key, seat = str(payload.get("key")), int(payload["seat"])
    if key in TAKEOVER_ENDS:
        return frozenset(f"{what}:{seat}" for what in TAKEOVER_ENDS[key])
    return frozenset({f"vote:{seat}"}) if key in VACATION_ENDS else frozenset()
