"""Which posts carry buttons that stop acting and which later post takes them off (``bot.host.buttons``), row by row
of the module's table; the whole way through the host is in ``tests/host/test_takeover.py`` and through Discord in
``tests/adapter/test_takeover.py`` and ``tests/adapter/test_vacation_deadline.py``."""

from __future__ import annotations

import json
from typing import Any

from bot.host.buttons import EVERY, buttons_of, ends
from bot.host.deliveries import ABANDONED_POST, MOVE_POST, NOTICE_DM, NOTICE_POST, SEAT_POST, START_POST, Delivery


def post(kind: str, **payload: Any) -> Delivery:
    return Delivery(1, 2, 3, 4, kind, 5 if kind == NOTICE_DM else None, json.dumps(payload), 0.0, 0.0, 0, None, None)


def test_each_post_with_buttons_and_the_posts_that_end_them() -> None:
    carried = [
        (post(NOTICE_POST, key="bot.takeover.offered", takeover={"seat": 2, "user_id": 9}), "confirm:2"),
        (post(SEAT_POST, seat=1, away=True), "take:1"),
        (post(NOTICE_POST, key="bot.deadline.handed_over", takeable=3), "take:3"),
        (post(NOTICE_POST, key="bot.vacation.vote", vote=0), "vote:0"),
    ]
    assert [(buttons_of(p), ends(p)) for p, _ in carried] == [(b, frozenset()) for _, b in carried]
    ending = [
        (post(NOTICE_POST, key="bot.takeover.taken", seat=2), {"confirm:2", "take:2"}),
        (post(NOTICE_POST, key="bot.takeover.lapsed", seat=2), {"confirm:2"}),
        (post(NOTICE_POST, key="bot.takeover.withdrawn", seat=2), {"confirm:2"}),
        (post(SEAT_POST, seat=1, away=False), {"take:1"}),
        (post(NOTICE_POST, key="bot.vacation.paused", seat=0), {"vote:0"}),
        (post(NOTICE_POST, key="bot.vacation.computer_plays", seat=0), {"vote:0"}),
        (post(NOTICE_POST, key="bot.vacation.over", seat=0), {"vote:0"}),
        (post(MOVE_POST, game_over=True), {EVERY}),
        (post(ABANDONED_POST, name="x", locale="en"), {EVERY}),
    ]
    for p, wanted in ending:
        assert (buttons_of(p), ends(p)) == (None, wanted), p.payload
    nothing = [post(MOVE_POST, game_over=False), post(START_POST), post(NOTICE_DM, key="bot.deadline.warning"),
               post(NOTICE_POST, key="bot.vacation.computer_plays"),  # no vote came before it: no seat named
               post(NOTICE_POST, key="bot.idle.notice", seat=1), post(SEAT_POST)]  # a forgotten post: no payload
    assert [(buttons_of(p), ends(p)) for p in nothing] == [(None, frozenset())] * len(nothing)
