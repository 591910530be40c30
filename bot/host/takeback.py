"""What a mis-tap costs: whether a move is asked first, whether it can be taken back, what it would reveal, and who
may undo now.

A person's move is asked first, in one click, when it builds nothing (:func:`engine.builds_nothing`: a building card
played without effect, giving up the rest of a double move, a double move of a kind that has no site now) or when it
cannot be taken back (:func:`asks_first`, which the host's ``play.ask_or_play`` answers with). The engine says which
moves are final (:meth:`engine.Game.can_undo`: a move that turns up a face-down tile,
draws a bird chip or a card, ends the game, or scores a scoring card). Before a person's move the host tries it on
a copy of the game (:func:`move_risk`) and answers with a :class:`Risk`: the adapter asks a one-click confirmation
naming what cannot be taken back when ``final``, and otherwise plays at once with an *Undo* button while
:func:`undo_refusal` finds nothing against it. Only what everyone may know goes into a :class:`Risk`: the sites
turned face up (their state is public), a bird chip drawn from a tile already face up, the round or the game
ending, the scoring card played and its points for the mover (who holds it) and for the best other seat, the share
right spent; never what a hidden tile holds. A :class:`Risk` is shown to the mover alone, so it also names the bird
chips the mover holds, which a last move reveals (never the value of one the move itself draws).

Pure functions of the game and its move log; :class:`bot.host.play.Play` calls them under the channel's lock
(``ask_or_play``, ``undoable_by``, ``undo``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.host.model import MoveRow, effective_moves
from engine import SINGLE_BUILDS, Game, IllegalMove, builds_nothing, parse_move


@dataclass(frozen=True)
class Risk:
    """What playing ``moves`` (in order) would do that cannot be taken back."""

    moves: tuple[str, ...]
    final: bool = False
    """Some move cannot be taken back (the engine's fact); the player confirms it first."""
    first_final: int | None = None
    """The index in ``moves`` of the first move that cannot be taken back (the ones before it can be)."""
    revealed: tuple[int, ...] = ()
    """Sites turned face up, in the order the moves turn them."""
    bird: bool = False
    """A bird chip is drawn from a tile that was face up already (a hidden tile's bird is part of ``revealed``)."""
    scores: str | None = None
    """The scoring card played."""
    points: int = 0
    """What ``scores`` gives the mover now."""
    other: int | None = None
    """The other seat ``scores`` gives the most, unless that is nothing (:meth:`engine.Game.card_now`, as the
    card's menu option and the coach name it from the view)."""
    other_points: int = 0
    """What ``scores`` gives ``other`` (below 0 for the eruption card)."""
    ends_round: bool = False
    """The first round ends: everyone draws a scoring card for the second."""
    ends_game: bool = False
    """The game ends: the bird chips are revealed and counted."""
    chips: tuple[int, ...] = ()
    """With ``ends_game``: the bird chips the mover holds before the move (their own secret), whose values then count
    for them; a chip the move draws is not among them (its value is not known before: ``bird`` or ``revealed``)."""
    shares: int | None = None
    """The seat beside whose building a move builds: the mover spends the share right for the round."""


def asks_first(game: Game, moves: Sequence[str]) -> tuple[bool, Risk] | None:
    """Whether ``moves`` (the seat to move's next, in order) are asked first, and what the question names: whether
    the first builds nothing, and what they would do that cannot be taken back (``risk.final``); ``None``: they are
    played at once. A first move that is not legal now is not asked (playing it is refused with its reason)."""
    try:
        first = parse_move(moves[0]) if moves else None
    except IllegalMove:
        return None
    legal = game.legal_moves()
    if first is None or first not in legal:
        return None
    nothing = builds_nothing(first, legal, _build_sites(game))
    risk = move_risk(game, moves)
    return (nothing, risk) if nothing or risk.final else None


def _build_sites(game: Game) -> dict[str, list[int]] | None:
    """Where each kind of build could go now for the seat to move (as its view's ``you.build_sites`` says), while it
    plays a card of its turn; else ``None``."""
    seat = game.to_move
    if seat is None or game.phase != "play" or game.pending is not None:
        return None
    sites = {}
    for kind in SINGLE_BUILDS:
        free, share = game.targets(seat, kind)
        sites[kind] = sorted(free + share)
    return sites


def move_risk(game: Game, moves: Sequence[str]) -> Risk:
    """Try ``moves`` on a copy of ``game`` for the seat to move. An illegal move stops the trial without being
    final: playing it is refused with its reason."""
    trial = game.clone()
    seat = trial.to_move
    held = tuple(game.birds[seat]) if seat is not None else ()
    first_final: int | None = None
    revealed: list[int] = []
    bird = ends_round = ends_game = False
    scores: str | None = None
    points = other_points = 0
    other = shares = None
    for index, text in enumerate(moves):
        try:
            move = parse_move(text)
            face_up = move.site is not None and 0 < move.site < len(trial.revealed) and trial.revealed[move.site]
            beside = list(trial.occupants[move.site]) if face_up and move.site is not None else []
            if move.verb == "score" and seat is not None and move.card is not None:
                now = trial.card_now(seat, str(move.card))  # as the view tells the menus and the coach
                scores, points, other, other_points = now["card"], now["points"], now["other"], now["other_points"]
            events = trial.apply(move)
        except IllegalMove:
            break
        if not trial.can_undo() and first_final is None:
            first_final = index
        for event in events:
            if event["type"] == "build" and event.get("shared") and beside:
                shares = beside[0][0]
            elif event["type"] == "reveal":
                revealed.append(int(event["site"]))
            elif event["type"] == "bird" and face_up:
                bird = True
            elif event["type"] == "round_end":
                ends_round = True
            elif event["type"] == "game_over":
                ends_game = True
    return Risk(tuple(moves), final=first_final is not None, first_final=first_final, revealed=tuple(revealed),
                bird=bird, scores=scores, points=points, other=other, other_points=other_points,
                ends_round=ends_round and not ends_game, ends_game=ends_game,
                chips=held if ends_game else (), shares=shares)


def undo_refusal(log: Sequence[MoveRow], game: Game, user_id: int) -> str | None:
    """Why ``user_id`` may not take the last move back now (a refusal key), or ``None`` if they may: it is their
    move, nobody acted since, and it revealed nothing (the engine's :meth:`~engine.Game.can_undo`)."""
    standing = effective_moves(log)
    if not standing:
        return "host.error.undo_nothing"
    last = standing[-1]
    if last.user_id != user_id or any(r.user_id != user_id for r in log[last.seq:]):
        return "host.error.undo_not_last"
    if not game.can_undo():
        return "host.error.undo_hidden"
    return None


def undo_owner(log: Sequence[MoveRow], game: Game) -> int | None:
    """The person who may take the last move back now, or ``None`` (nobody: a computer's move, a final one, or
    nothing to take back)."""
    standing = effective_moves(log)
    if not standing or standing[-1].user_id is None:
        return None
    user_id = standing[-1].user_id
    return user_id if undo_refusal(log, game, user_id) is None else None
