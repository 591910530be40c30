"""Every ``custom_id`` the bot puts on a button or a menu, written and read here alone.

A custom id says what the component acts on, so that a click works after a restart and a click on an old message
can be told apart (``game`` tells an old game's message from the channel's current game; ``seq``, the number of moves
in the game's log when the message was drawn, tells an outdated one). Each id has a builder below and a template
(a regular expression with named groups) that :mod:`bot.adapter.items` registers with discord.py, which matches a
click's id against the templates and rebuilds the item from the groups. Every id ever posted stays valid::

    sc:<game>:<action>                 join leave addbot removebot start abandon cancel rematch hand keepopen controls
    sc:<game>:hand:<seq>               "My cards" under the post of position seq (seq marks the post)
    sc:<game>:undo:<seq>               "Undo" under the post of the mover's move seq
    sc:<game>:hint:<seq>               "Hint" beside the move controls of position seq
    sc:<game>:<seq>:<move>[:ok]        a move in notation, spaces as "_" (land_12, double_road); ok: confirmed
    sc:<game>:<seq>:<move>+<build>:ok  a double move's card and its first build confirmed together: double_road+build_49
    sc:<game>:<seq>:pick:<group>       a menu of moves of one group; its option values are move notations
    sc:undo:<game>:<seq>:<count>       "Undo" on the answer to a move: take back its count moves while at seq
    sc:board:<by>:<page>               a leaderboard page (by rating, wins or games; pages from 0)
    sc:forget:<user>                   forget-me, confirmed by the user who asked
    sc:settings:forget:<user>          "Forget me…" on a person's settings panel (asks to confirm)
    sc:vac:<game>:<seat>:<choice>      a vote on the vacation of the seat: pause or computer
    sc:seat:<game>:<seat>              "Take this seat" under the post that handed the seat to the computer
    sc:seat:<game>:<seat>:<user>       the opener's "Confirm" under the user's offer to take the seat
"""

from __future__ import annotations

import re
from typing import Final

from bot.host.ratings import BOARDS
from engine import SINGLE_BUILDS, VERBS

LOBBY_ACTIONS: Final = ("join", "leave", "addbot", "removebot", "start")
"""The lobby message's buttons."""
GAME_ACTIONS: Final = (*LOBBY_ACTIONS, "abandon", "cancel", "rematch", "hand", "keepopen", "undo", "controls", "hint")
"""Every action of a ``sc:<game>:<action>`` id."""
PICK_GROUPS: Final = ("land", *SINGLE_BUILDS, "build", "score", "discard")
"""The groups of moves offered in a menu, one menu per group."""
VOTES: Final = ("pause", "computer")

GAME: Final = r"sc:(?P<game>[0-9]+):(?P<action>" + "|".join(GAME_ACTIONS) + ")(?::(?P<seq>[0-9]+))?"
MOVE: Final = (r"sc:(?P<game>[0-9]+):(?P<seq>[0-9]+):(?P<move>(?:" + "|".join(VERBS)
               + r")(?:_[A-Za-z0-9\-]+)?)(?:\+(?P<then>build_[0-9]{1,4}))?(?P<ok>:ok)?")
PICK: Final = r"sc:(?P<game>[0-9]+):(?P<seq>[0-9]+):pick:(?P<group>[a-z]+)"
ANSWER_UNDO: Final = r"sc:undo:(?P<game>[0-9]{1,20}):(?P<seq>[0-9]{1,9}):(?P<count>[12])"
LEADERBOARD: Final = r"sc:board:(?P<by>" + "|".join(BOARDS) + r"):(?P<page>[0-9]{1,6})"
FORGET: Final = r"sc:forget:(?P<user>[0-9]{1,20})"
FORGET_ASK: Final = r"sc:settings:forget:(?P<user>[0-9]{1,20})"
VACATION: Final = r"sc:vac:(?P<game>[0-9]{1,20}):(?P<seat>[0-3]):(?P<choice>" + "|".join(VOTES) + ")"
TAKE_SEAT: Final = r"sc:seat:(?P<game>[0-9]{1,20}):(?P<seat>[0-3])"
CONFIRM_TAKEOVER: Final = r"sc:seat:(?P<game>[0-9]{1,20}):(?P<seat>[0-3]):(?P<user>[0-9]{1,20})"


def game(game_id: int, action: str, seq: int | None = None) -> str:
    """A button acting on a whole game (``seq``: the position of the message it sits on)."""
    return f"sc:{game_id}:{action}" + (f":{seq}" if seq is not None else "")


def move(game_id: int, seq: int, notation: str, *, then: str | None = None, confirmed: bool = False) -> str:
    """A move's button at position ``seq`` (``then``: a double move's first build, played right after it)."""
    second = f"+{encode_move(then)}" if then is not None else ""
    return f"sc:{game_id}:{seq}:{encode_move(notation)}{second}" + (":ok" if confirmed else "")


def pick(game_id: int, seq: int, group: str) -> str:
    """A menu of the moves of ``group`` at position ``seq``."""
    return f"sc:{game_id}:{seq}:pick:{group}"


def answer_undo(game_id: int, seq: int, count: int) -> str:
    """*Undo* on the answer to a move: its ``count`` moves, while the game is at ``seq``."""
    return f"sc:undo:{game_id}:{seq}:{count}"


def leaderboard(by: str, page: int) -> str:
    return f"sc:board:{by}:{page}"


def forget(user_id: int) -> str:
    return f"sc:forget:{user_id}"


def forget_ask(user_id: int) -> str:
    return f"sc:settings:forget:{user_id}"


def vacation(game_id: int, seat: int, choice: str) -> str:
    return f"sc:vac:{game_id}:{seat}:{choice}"


def take_seat(game_id: int, seat: int) -> str:
    return f"sc:seat:{game_id}:{seat}"


def confirm_takeover(game_id: int, seat: int, user_id: int) -> str:
    return f"sc:seat:{game_id}:{seat}:{user_id}"


def encode_move(notation: str) -> str:
    """A move's notation as it stands in an id: spaces as ``_``."""
    return notation.strip().replace(" ", "_")


def decode_move(text: str) -> str:
    return text.replace("_", " ")


def is_turn_control(custom_id: str, game_id: int, seq: int) -> bool:
    """Whether ``custom_id`` is a move control (a move's button, a menu of moves) of the game at position ``seq``."""
    found = re.fullmatch(MOVE, custom_id) or re.fullmatch(PICK, custom_id)
    return found is not None and int(found["game"]) == game_id and int(found["seq"]) == seq
