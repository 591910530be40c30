"""The custom ids of the bot's buttons and menus (``bot/adapter/ids.py``), the one place where tests spell an id out:
each builder writes the id exactly as the messages already posted carry it (a change of format would break every old
message's buttons), each id is matched by its own template alone and read back into the builder's arguments, and the
longest stays within Discord's 100 characters. Every other test builds its ids with the builders."""

from __future__ import annotations

import re

from bot.adapter import ids

WIRE = [
    (ids.game(12, "join"), "sc:12:join"),
    (ids.game(12, "hand", 7), "sc:12:hand:7"),
    (ids.move(12, 7, "land 12"), "sc:12:7:land_12"),
    (ids.move(12, 7, "double road", then="build 49", confirmed=True), "sc:12:7:double_road+build_49:ok"),
    (ids.pick(12, 7, "ship"), "sc:12:7:pick:ship"),
    (ids.answer_undo(12, 7, 2), "sc:undo:12:7:2"),
    (ids.leaderboard("wins", 3), "sc:board:wins:3"),
    (ids.forget(99), "sc:forget:99"),
    (ids.forget_ask(99), "sc:settings:forget:99"),
    (ids.vacation(12, 1, "pause"), "sc:vac:12:1:pause"),
    (ids.take_seat(12, 1), "sc:seat:12:1"),
    (ids.confirm_takeover(12, 1, 99), "sc:seat:12:1:99"),
]
"""Each builder's id, as the messages posted so far carry it."""

TEMPLATES = {name: getattr(ids, name) for name in ("GAME", "MOVE", "PICK", "ANSWER_UNDO", "LEADERBOARD", "FORGET",
                                                    "FORGET_ASK", "VACATION", "TAKE_SEAT", "CONFIRM_TAKEOVER")}


def test_each_builder_writes_the_id_the_posted_messages_carry() -> None:
    assert [built for built, _ in WIRE] == [wire for _, wire in WIRE]


def test_each_id_is_matched_by_its_own_template_alone_and_read_back() -> None:
    read = [
        (ids.game(12, "join"), "GAME", {"game": "12", "action": "join", "seq": None}),
        (ids.game(12, "undo", 7), "GAME", {"game": "12", "action": "undo", "seq": "7"}),
        (ids.move(12, 7, "land 12"), "MOVE", {"game": "12", "seq": "7", "move": "land_12", "then": None, "ok": None}),
        (ids.move(12, 7, "double road", then="build 49", confirmed=True), "MOVE",
         {"game": "12", "seq": "7", "move": "double_road", "then": "build_49", "ok": ":ok"}),
        (ids.pick(12, 7, "ship"), "PICK", {"game": "12", "seq": "7", "group": "ship"}),
        (ids.answer_undo(12, 7, 2), "ANSWER_UNDO", {"game": "12", "seq": "7", "count": "2"}),
        (ids.leaderboard("wins", 3), "LEADERBOARD", {"by": "wins", "page": "3"}),
        (ids.forget(99), "FORGET", {"user": "99"}),
        (ids.forget_ask(99), "FORGET_ASK", {"user": "99"}),
        (ids.vacation(12, 1, "pause"), "VACATION", {"game": "12", "seat": "1", "choice": "pause"}),
        (ids.take_seat(12, 1), "TAKE_SEAT", {"game": "12", "seat": "1"}),
        (ids.confirm_takeover(12, 1, 99), "CONFIRM_TAKEOVER", {"game": "12", "seat": "1", "user": "99"}),
    ]
    assert {name for _, name, _ in read} == set(TEMPLATES)
    for custom_id, name, groups in read:
        matching = {n: found.groupdict() for n, template in TEMPLATES.items()
                    if (found := re.fullmatch(template, custom_id))}
        assert matching == {name: groups}, custom_id
    assert ids.decode_move(ids.encode_move(" double road ")) == "double road"


def test_the_longest_ids_stay_within_discords_100_characters() -> None:
    big = 10**19  # a snowflake's size
    longest = [ids.confirm_takeover(big, 3, big), ids.forget_ask(big),
               ids.move(big, 10**6, "double road", then="build 1234", confirmed=True), ids.answer_undo(big, 10**6, 2)]
    assert all(len(custom_id) <= 100 for custom_id in longest), [len(c) for c in longest]
