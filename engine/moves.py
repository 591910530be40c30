"""Moves: small immutable values with a compact text notation that round-trips.

``str(move)`` gives the notation and :func:`parse_move` reads it back::

    set B          choose building-card set B (draft)
    land 12        the landing: a building on free coast site 12, no card played
    ship 7         a ship card, building on site 7 (also ``river 3``, ``road 9``)
    road           a road card played without effect (only when it cannot build)
    double road    the double move as two road builds, then ``build 9`` for each build
    pass           give up the rest of a double move (only when just a shared tile is left)
    score gold10   a scoring card
    pile 2         round 2: take the cards seat 2 played in round 1
    discard birds  round 2: put one scoring card back in the box, unseen

Moves are interned: equal moves are the same object, so they are cheap to make and compare.
"""

from __future__ import annotations

from typing import ClassVar

from engine.cards import BUILDING_SETS, SCORING_CARD_IDS, SINGLE_BUILDS


class IllegalMove(ValueError):
    """A move that is malformed or not allowed now; the message says why in plain words."""


_SITE_VERBS = ("land", "ship", "river", "road", "build")
_MAX_NUMBER = 999
_VERBS = ("set", *_SITE_VERBS, "double", "pass", "score", "pile", "discard")


class Move:
    """One move: a verb and an optional argument (a site or pile number, a card or set id)."""

    __slots__ = ("arg", "verb")
    _interned: ClassVar[dict[tuple[str, int | str | None], Move]] = {}
    verb: str
    arg: int | str | None

    def __new__(cls, verb: str, arg: int | str | None = None) -> Move:
        key = (verb, arg)
        move = cls._interned.get(key)
        if move is None:
            _check(verb, arg)
            move = object.__new__(cls)
            object.__setattr__(move, "verb", verb)
            object.__setattr__(move, "arg", arg)
            cls._interned[key] = move
        return move

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("moves are immutable")

    def __reduce__(self) -> tuple[type[Move], tuple[str, int | str | None]]:
        return (Move, (self.verb, self.arg))

    def __str__(self) -> str:
        return self.verb if self.arg is None else f"{self.verb} {self.arg}"

    def __repr__(self) -> str:
        return f"parse_move({str(self)!r})"

    @property
    def site(self) -> int | None:
        """The building site this move builds on, if any."""
        return self.arg if self.verb in _SITE_VERBS and isinstance(self.arg, int) else None

    @property
    def is_building_card(self) -> bool:
        return self.verb in ("ship", "river", "road", "double")


def _check(verb: str, arg: int | str | None) -> None:
    if verb not in _VERBS:
        raise IllegalMove(f"'{verb}' is not a move; moves start with one of: {', '.join(_VERBS)}")
    if verb in ("land", "build"):
        if not isinstance(arg, int) or isinstance(arg, bool):
            raise IllegalMove(f"'{verb}' needs a site number, e.g. '{verb} 12'")
        _check_site(arg)
    elif verb in ("ship", "river", "road"):
        if arg is not None and (not isinstance(arg, int) or isinstance(arg, bool)):
            raise IllegalMove(f"'{verb}' takes a site number, e.g. '{verb} 12', or nothing")
        if arg is not None:
            _check_site(arg)
    elif verb == "double":
        if arg not in SINGLE_BUILDS:
            raise IllegalMove("a double move names the kind of both builds: 'double ship', "
                              "'double river' or 'double road'")
    elif verb == "pass":
        if arg is not None:
            raise IllegalMove("'pass' takes nothing after it")
    elif verb in ("score", "discard"):
        if arg not in SCORING_CARD_IDS:
            raise IllegalMove(f"'{arg}' is not a scoring card; the scoring cards are: "
                              f"{', '.join(SCORING_CARD_IDS)}")
    elif verb == "set":
        if arg not in BUILDING_SETS:
            raise IllegalMove("choose a building-card set by its letter: A, B, C or D")
    elif verb == "pile":
        if not isinstance(arg, int) or isinstance(arg, bool):
            raise IllegalMove("'pile' needs the number of a pile, e.g. 'pile 2'")
        if not 0 <= arg <= 9:
            raise IllegalMove(f"There is no pile {arg}.")


def _check_site(site: int) -> None:
    if not 1 <= site <= _MAX_NUMBER:
        raise IllegalMove(f"There is no site {site}.")


def parse_move(text: str) -> Move:
    """Read a move from its notation (``str(move)``); raises :class:`IllegalMove` when malformed."""
    if not isinstance(text, str):
        raise IllegalMove("a move is written as text, e.g. 'ship 7'")
    parts = text.strip().split()
    if not parts:
        raise IllegalMove("no move given; write one like 'ship 7' or 'score gold10'")
    if len(parts) > 2:
        raise IllegalMove(f"'{text.strip()}' has too many words; a move is a verb and at most one argument")
    verb = parts[0].lower()
    if len(parts) == 1:
        return Move(verb)
    raw = parts[1]
    arg: int | str
    if verb in (*_SITE_VERBS, "pile"):
        if not (raw.isascii() and raw.isdigit()):  # "²" and "٣" are digits to str.isdigit, not to int()
            raise IllegalMove(f"'{raw}' is not a number; write e.g. '{verb} 12'")
        if len(raw) > 4:
            what = "pile" if verb == "pile" else "site"
            raise IllegalMove(f"There is no {what} {raw}.")
        arg = int(raw)
    elif verb == "set":
        arg = raw.upper()
    else:
        arg = raw.lower()
    return Move(verb, arg)
