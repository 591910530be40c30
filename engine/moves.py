"""Moves: small immutable values with a compact text notation that round-trips, and why a move is refused.

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

Readers never take the notation apart themselves: ``parse_move(text)`` gives a :class:`Move` whose typed
attributes (``verb``, ``site``, ``card``, ``kind``, ``letter``, ``pile``) say what it is. :data:`VERBS`
is the one list of verbs (in canonical order); the building kinds are :data:`engine.cards.SINGLE_BUILDS`.

Moves are interned: equal moves are the same object, so they are cheap to make and compare.

A refused move raises :class:`IllegalMove` with a machine-readable ``code`` and ``params`` (see
:data:`REASONS`); ``i18n.illegal_text`` words it in each language, ``str(exc)`` is English for logs.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final, TypeGuard

from engine.cards import BUILDING_CARDS, BUILDING_SETS, SCORING_CARD_IDS, SINGLE_BUILDS

VERBS: Final = ("set", "land", "ship", "river", "road", "double", "build", "pass", "score", "pile", "discard")
"""Every verb of the notation, in the canonical order of legal moves."""
SITE_VERBS: Final = ("land", *SINGLE_BUILDS, "build")
"""The verbs whose argument is a building site."""
CARD_VERBS: Final = (*BUILDING_CARDS, "score")
"""The verbs that play a card from the hand."""
_MAX_NUMBER = 999
_VERB_RANK = {v: i for i, v in enumerate(VERBS)}

REASONS: Final[Mapping[str, str]] = {
    # the notation
    "not_text": "a move is written as text, e.g. 'ship 7'",
    "no_move": "no move given; write one like 'ship 7' or 'score gold10'",
    "too_many_words": "'{text}' has too many words; a move is a verb and at most one argument",
    "unknown_verb": "'{verb}' is not a move; moves start with one of: {verbs}",
    "needs_site": "'{verb}' needs a site number, e.g. '{verb} 12'",
    "site_or_nothing": "'{verb}' takes a site number, e.g. '{verb} 12', or nothing",
    "not_a_number": "'{text}' is not a number; write e.g. '{verb} 12'",
    "double_needs_kind": "a double move names the kind of both builds: 'double ship', 'double river' or 'double road'",
    "pass_takes_nothing": "'pass' takes nothing after it",
    "unknown_scoring_card": "'{card}' is not a scoring card; the scoring cards are: {cards}",
    "unknown_set": "choose a building-card set by its letter: {sets}",
    "needs_pile": "'pile' needs the number of a pile, e.g. 'pile 2'",
    "no_such_site": "There is no site {site}.",
    "no_such_pile": "There is no pile {pile}.",
    # the game
    "game_over": "The game is over.",
    "phase_choose_set": "First each player chooses a building-card set, e.g. 'set B'.",
    "phase_land": "Each player first lands: a building on a free coast site, e.g. 'land 12'.",
    "phase_choose_pile": "Round 2 starts with choosing a pile of cards, e.g. 'pile 1'.",
    "phase_discard": "Each player now discards one scoring card, e.g. 'discard birds'.",
    "sets_only_at_start": "Building-card sets are chosen only at the start of the game.",
    "landing_only_at_start": "The landing is only at the start of a round.",
    "piles_only_in_round_two": "Piles are chosen only at the start of round 2.",
    "discard_only_in_round_two": "Scoring cards are discarded only at the start of round 2.",
    "set_taken": "Set {letter} has already been taken.",
    "pile_not_in_game": "There is no pile {pile}; the piles are numbered 0 to {last}.",
    "pile_taken": "Pile {pile} has already been taken.",
    "scoring_card_not_held": "You do not hold the scoring card '{card}'.",
    "finish_double": "Finish your double move first: build with 'build <site>' "
                     "({builds_left} build(s) of kind {kind} left).",
    "must_build": "You can still build on a free site, so you must (double move).",
    "build_only_in_double": "'build' is only for the builds of a double move; play a card such as 'road 9'.",
    "nothing_to_pass": "There is nothing to pass: play one of your cards.",
    "no_double_card": "You have no double-move card left.",
    "no_building_card": "You have no {kind} card left.",
    "must_choose_site": "You can build with this {kind} card, so you must: choose a site "
                        "(e.g. '{kind} {site}'; possible: {sites}).",
    "site_not_on_island": "There is no site {site}; the sites are numbered 1 to {last}.",
    "landing_not_coast": "Site {site} is not on the coast. The landing builds on a free coast site.",
    "ship_not_coast": "Site {site} is not on the coast. A ship card builds on a free coast site.",
    "own_site": "You already have a building on site {site}.",
    "landing_site_taken": "Site {site} is already taken; the landing needs a free coast site.",
    "share_used": "Site {site} is already taken, and you have used your right to build beside another "
                  "player's building this round.",
    "share_last_only": "Site {site} is already taken. Only the round's last player may, once per round, "
                       "build beside another player's building.",
    "site_full": "Site {site} already holds two buildings.",
    "road_too_far": "Site {site} is not one road segment away from any of your buildings.",
    "not_on_river": "Site {site} is not on a river.",
    "river_not_yours": "Site {site} is on a river where you have no building yet.",
    "no_building_in_supply": "Site {site} needs a {building} and you have none left in your supply.",
    "cannot_build_there": "You cannot build on site {site}.",
    "cannot_undo": "the last move cannot be taken back: it revealed something hidden",
}
"""Every reason code of :class:`IllegalMove` with its English words (placeholders: the ``params``)."""


class IllegalMove(ValueError):
    """A move that is malformed or not allowed now: ``code`` (a key of :data:`REASONS`) and ``params``.

    ``params`` hold plain values (numbers, ids; ``sites`` a list of site numbers) for the presentation
    layer to word; ``str(exc)`` is the English sentence, for logs and the engine's own tests. A notation
    that names a verb but is malformed has that ``verb`` among its ``params``.
    """

    def __init__(self, code: str, **params: Any) -> None:
        if code not in REASONS:
            raise ValueError(f"unknown reason code {code!r}")
        self.code = code
        self.params = params
        super().__init__(REASONS[code].format(**{k: _english(v) for k, v in params.items()}))


def _english(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        shown = ", ".join(str(v) for v in value[:12])
        return shown + (" …" if len(value) > 12 else "")
    return value


class Move:
    """One move: a verb and an optional argument, with typed views of that argument.

    ``site``: the building site (``land``, ``ship``/``river``/``road`` with a site, ``build``);
    ``card``: the card played or named (a building card for ``ship``/``river``/``road``/``double``, a
    scoring card id for ``score``/``discard``); ``kind``: the kind of build a card makes (``ship``,
    ``river`` or ``road``; a double move's kind); ``letter``: a chosen set; ``pile``: a chosen pile.
    """

    __slots__ = ("arg", "card", "kind", "letter", "pile", "site", "sort_key", "text", "verb")
    _interned: ClassVar[dict[tuple[str, int | str | None], Move]] = {}
    verb: str
    arg: int | str | None
    site: int | None
    card: str | None
    kind: str | None
    letter: str | None
    pile: int | None
    sort_key: tuple[int, int, int | str]
    """Canonical order of moves: verb order of :data:`VERBS`, then argument (a bare card first)."""
    text: str
    """The notation, ``str(move)`` (made once: the move log writes it for every move)."""

    def __new__(cls, verb: str, arg: int | str | None = None) -> Move:
        key = (verb, arg)
        move = cls._interned.get(key)
        if move is None:
            _check(verb, arg)
            move = object.__new__(cls)
            fields = _fields(verb, arg)
            for name, value in fields.items():
                object.__setattr__(move, name, value)
            cls._interned[key] = move
        return move

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("moves are immutable")

    def __reduce__(self) -> tuple[type[Move], tuple[str, int | str | None]]:
        return (Move, (self.verb, self.arg))

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"parse_move({str(self)!r})"

    @property
    def is_building_card(self) -> bool:
        return self.verb in BUILDING_CARDS

    @property
    def plays_card(self) -> bool:
        """Whether the move plays a card from the hand (a building card or a scoring card)."""
        return self.verb in CARD_VERBS


def _fields(verb: str, arg: int | str | None) -> dict[str, Any]:
    site = arg if verb in SITE_VERBS and isinstance(arg, int) else None
    kind = verb if verb in SINGLE_BUILDS else (str(arg) if verb == "double" else None)
    card = verb if verb in BUILDING_CARDS else (str(arg) if verb in ("score", "discard") else None)
    if arg is None:
        sort_key: tuple[int, int, int | str] = (_VERB_RANK[verb], 0, 0)
    elif verb == "double":
        sort_key = (_VERB_RANK[verb], 1, SINGLE_BUILDS.index(str(arg)))
    else:
        sort_key = (_VERB_RANK[verb], 1, arg)
    text = verb if arg is None else f"{verb} {arg}"
    return {"verb": verb, "arg": arg, "site": site, "card": card, "kind": kind, "sort_key": sort_key, "text": text,
            "letter": str(arg) if verb == "set" else None, "pile": arg if verb == "pile" else None}


def _is_int(arg: object) -> TypeGuard[int]:
    return isinstance(arg, int) and not isinstance(arg, bool)


def _check(verb: str, arg: int | str | None) -> None:
    if verb not in VERBS:
        raise IllegalMove("unknown_verb", verb=verb, verbs=list(VERBS))
    if verb in ("land", "build"):
        if not _is_int(arg):
            raise IllegalMove("needs_site", verb=verb)
        _check_site(verb, arg)
    elif verb in SINGLE_BUILDS:
        if arg is not None:
            if not _is_int(arg):
                raise IllegalMove("site_or_nothing", verb=verb)
            _check_site(verb, arg)
    elif verb == "double":
        if arg not in SINGLE_BUILDS:
            raise IllegalMove("double_needs_kind", verb=verb)
    elif verb == "pass":
        if arg is not None:
            raise IllegalMove("pass_takes_nothing", verb=verb)
    elif verb in ("score", "discard"):
        if arg not in SCORING_CARD_IDS:
            raise IllegalMove("unknown_scoring_card", verb=verb, card=str(arg), cards=list(SCORING_CARD_IDS))
    elif verb == "set":
        if arg not in BUILDING_SETS:
            raise IllegalMove("unknown_set", verb=verb, sets=sorted(BUILDING_SETS))
    elif verb == "pile":
        if not _is_int(arg):
            raise IllegalMove("needs_pile", verb=verb)
        if not 0 <= arg <= 9:
            raise IllegalMove("no_such_pile", verb=verb, pile=arg)


def _check_site(verb: str, site: int) -> None:
    if not 1 <= site <= _MAX_NUMBER:
        raise IllegalMove("no_such_site", verb=verb, site=site)


_parsed: dict[str, Move] = {}
"""Notation already read (only canonical texts, so the cache stays as small as the set of moves)."""


def parse_move(text: str) -> Move:
    """Read a move from its notation (``str(move)``); raises :class:`IllegalMove` when malformed."""
    move = _parsed.get(text) if isinstance(text, str) else None
    if move is not None:
        return move
    move = _parse(text)
    if str(move) == text:
        _parsed[text] = move
    return move


def _parse(text: str) -> Move:
    if not isinstance(text, str):
        raise IllegalMove("not_text")
    parts = text.strip().split()
    if not parts:
        raise IllegalMove("no_move")
    if len(parts) > 2:
        raise IllegalMove("too_many_words", verb=parts[0].lower(), text=text.strip())
    verb = parts[0].lower()
    if len(parts) == 1:
        return Move(verb)
    raw = parts[1]
    arg: int | str
    if verb in (*SITE_VERBS, "pile"):
        if not (raw.isascii() and raw.isdigit()):  # "²" and "٣" are digits to str.isdigit, not to int()
            raise IllegalMove("not_a_number", text=raw, verb=verb)
        if len(raw) > 4:
            if verb == "pile":
                raise IllegalMove("no_such_pile", verb=verb, pile=int(raw))
            raise IllegalMove("no_such_site", verb=verb, site=int(raw))
        arg = int(raw)
    elif verb == "set":
        arg = raw.upper()
    else:
        arg = raw.lower()
    return Move(verb, arg)


# ---------------------------------------------------------------------- what a build command means


def builds_nothing(move: Move, legal: Collection[Move], build_sites: Mapping[str, Sequence[int]] | None) -> bool:
    """Whether ``move`` (one of the ``legal`` moves) builds nothing, so that a player confirms it first:
    a building card played without effect, giving up a double move, or a double move of a kind that has
    no site now (``build_sites``: the seat's view's ``you.build_sites``)."""
    if move.verb == "pass" or (move.verb in SINGLE_BUILDS and move.site is None):
        return True
    if move.verb != "double":
        return False
    if build_sites is not None:
        return not build_sites.get(str(move.kind))
    return Move(str(move.kind)) in legal


@dataclass(frozen=True, slots=True)
class BuildPlan:
    """What "build with this card (kind) on this site" means now for the seat to move; see :func:`plan_build`."""

    moves: tuple[Move, ...] = ()
    """The moves to play in order (a double move and its first build are two)."""
    confirm: bool = False
    """The move builds nothing: ask the player to confirm it first."""
    problem: str | None = None
    """Why nothing is played: ``need_site``, ``need_card``, ``need_kind`` or ``kind_only_double``."""
    sites: tuple[int, ...] = ()
    """With ``need_site``: the possible sites."""


def plan_build(legal: Collection[Move], build_sites: Mapping[str, Sequence[int]] | None, card: str | None,
               site: int | None, kind: str | None) -> BuildPlan:
    """The moves a build command means: ``card`` (a building card or none), ``site`` and a double move's ``kind``.

    During a double move the command builds (or, without a site, gives up the rest); a card without a site
    that could build asks for a site; one that cannot is played without effect after a confirmation. A move
    that is not legal is still planned, so that applying it explains why not.
    """
    pending = any(m.verb in ("build", "pass") for m in legal)
    if pending and card in (None, "double"):
        if site is not None:
            return BuildPlan((Move("build", site),))
        give_up = Move("pass")
        if give_up in legal:
            return BuildPlan((give_up,), confirm=True)
        return BuildPlan(problem="need_site", sites=tuple(m.site for m in legal if m.site is not None))
    if card is None:
        return BuildPlan(problem="need_card")
    if card == "double":
        if kind is None:
            return BuildPlan(problem="need_kind")
        double = Move("double", kind)
        if double in legal and builds_nothing(double, legal, build_sites):
            return BuildPlan((double,), confirm=True)
        return BuildPlan((double,) if site is None else (double, Move("build", site)))
    if kind is not None:
        return BuildPlan(problem="kind_only_double")
    if site is not None:
        return BuildPlan((Move(card, site),))
    bare = Move(card)
    if bare in legal:
        return BuildPlan((bare,), confirm=True)
    sites = tuple(m.site for m in legal if m.verb == card and m.site is not None)
    return BuildPlan(problem="need_site", sites=sites) if sites else BuildPlan((bare,))
