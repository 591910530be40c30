"""The bot's buttons and menus as tests read them: an id is built with :mod:`bot.adapter.ids` (never typed), and
recognised with its templates, which say what it acts on (which game, which position); and the message that carries
a person's controls of a position."""

from __future__ import annotations

import re

from bot.adapter import ids
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage


def is_game_button(custom_id: str, action: str) -> bool:
    """Whether the button acts on a whole game with ``action`` (``join``, ``start``: :func:`bot.adapter.ids.game`)."""
    found = re.fullmatch(ids.GAME, custom_id)
    return found is not None and found["action"] == action


def game_of(custom_id: str) -> int:
    """The game a button of a whole game acts on (:func:`bot.adapter.ids.game`)."""
    found = re.fullmatch(ids.GAME, custom_id)
    assert found is not None, f"{custom_id!r} is no button of a game"
    return int(found["game"])


def game_button_seq(custom_id: str, game_id: int, action: str) -> int | None:
    """The position of ``game_id``'s ``action`` button (``hand``, ``undo``, ``hint``: ``sc:<game>:<action>:<seq>``),
    or None if ``custom_id`` is another id."""
    found = re.fullmatch(ids.GAME, custom_id)
    if found is None or int(found["game"]) != game_id or found["action"] != action or found["seq"] is None:
        return None
    return int(found["seq"])


def move_of(custom_id: str) -> str | None:
    """The move a move button plays, in notation (``set A``, ``land 12``), or None if ``custom_id`` is another id."""
    found = re.fullmatch(ids.MOVE, custom_id)
    return ids.decode_move(found["move"]) if found is not None else None


def move_control_seq(custom_id: str, game_id: int) -> int | None:
    """The position a move button or menu of ``game_id`` plays at, or None if ``custom_id`` is another id."""
    found = re.fullmatch(ids.MOVE, custom_id) or re.fullmatch(ids.PICK, custom_id)
    return int(found["seq"]) if found is not None and int(found["game"]) == game_id else None


def is_pick(custom_id: str, group: str) -> bool:
    """Whether the menu offers the moves of ``group`` (``land``, ``ship``, ``score``: :func:`bot.adapter.ids.pick`)."""
    found = re.fullmatch(ids.PICK, custom_id)
    return found is not None and found["group"] == group


def is_confirm(custom_id: str) -> bool:
    """Whether the button plays a move confirmed (*Play it anyway*, *Play it*: the bot asked first)."""
    found = re.fullmatch(ids.MOVE, custom_id)
    return found is not None and found["ok"] is not None


def is_answer_undo(custom_id: str) -> bool:
    """Whether the button is *Undo* on the answer to a move (:func:`bot.adapter.ids.answer_undo`)."""
    return re.fullmatch(ids.ANSWER_UNDO, custom_id) is not None


def is_take_seat(custom_id: str, game_id: int | None = None) -> bool:
    """Whether the button is *Take this seat* or the opener's *Confirm* of a take-over (of ``game_id``, if given)."""
    found = re.fullmatch(ids.TAKE_SEAT, custom_id) or re.fullmatch(ids.CONFIRM_TAKEOVER, custom_id)
    return found is not None and (game_id is None or int(found["game"]) == game_id)


def controls_of(fake: FakeDiscord, channel: FakeChannel, user: str, game_id: int, seq: int) -> FakeMessage | None:
    """The user's newest DM with move controls of position ``seq`` of the game, else (the rest of a turn begun by a
    slash command: no turn DM follows one's own move) the user's own answer in ``channel`` that carries them."""
    def carries(message: FakeMessage) -> bool:
        return any(move_control_seq(c, game_id) == seq for c in message.custom_ids)

    for message in reversed(fake.dm_messages(user)):
        if carries(message):
            return message
    user_id = str(fake.user(user).id)
    for message in reversed(fake.messages(channel, ephemeral=True)):
        meta = message.interaction_metadata or {}
        if meta.get("user", {}).get("id") == user_id and carries(message):
            return message
    return None
