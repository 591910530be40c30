"""Players' memory across games: the results of a finished game, ratings (openskill, Plackett–Luce) and the
statistics built from them. Pure functions and values: no I/O (the stores write what these compute).

A finished game leaves one :class:`SeatResult` per seat (a person or a computer), computed from the final
game by :func:`game_results`. Ratings live per server (guild) and *pool*: ``humans`` for all-human games,
``mixed`` for games with computer seats, where only the people are rated, against each other, by their
places among themselves (the engine's ranking, ties already broken). A game with fewer than two people
rates nobody; an abandoned game never reaches here. A game with hints on (players could ask the coach) rates
nobody either and stays out of the standings: its results are kept and the statistics count it apart.

What is stored is openskill's ``mu`` and ``sigma`` and the ordinal ``mu − 3·sigma`` (a cautious estimate: the skill
is very likely at least that). Players see it on a familiar scale instead (:func:`displayed`): ``1000 + 40 ×
ordinal``, rounded and never below 0, so a newcomer starts at 1000; it is *provisional* until
:data:`PROVISIONAL_GAMES` rated games.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from openskill.models import PlackettLuce

from engine import Game
from engine.types import ScoreBreakdown

POOLS: Final = ("humans", "mixed")
"""``humans``: games of people only; ``mixed``: games with computer seats (shown apart)."""
BOARDS: Final = ("rating", "wins", "games")
"""What a leaderboard may be ordered by."""
PAGE_SIZE: Final = 10
"""Rows on one page of a leaderboard."""

_MODEL: Final = PlackettLuce()

DISPLAY_START: Final = 1000
"""The shown rating of a newcomer (ordinal 0: openskill's ``mu`` 25, ``sigma`` 25/3)."""
DISPLAY_SCALE: Final = 40
"""Shown points per unit of the ordinal (openskill's ``beta``, 25/6, is about 170 shown points)."""
PROVISIONAL_GAMES: Final = 5
"""A rating is shown as provisional until this many rated games."""


def displayed(ordinal: float) -> int:
    """The rating as players see it: ``1000 + 40 × ordinal``, rounded, never below 0."""
    return max(0, round(DISPLAY_START + DISPLAY_SCALE * ordinal))


def provisional(games: int) -> bool:
    """Whether a rating after ``games`` rated games is still provisional."""
    return games < PROVISIONAL_GAMES


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat of a finished game: who (``user_id`` ``None`` for a computer), how it ended, what it scored with."""

    guild_id: int | None
    game_id: int
    seat: int
    user_id: int | None
    name: str
    score: int
    rank: int
    """1 for the winner; the engine's ranking (ties broken)."""
    players: int
    with_computers: bool
    finished_at: float
    scoring_cards: dict[str, int] = field(default_factory=dict)
    """Each scoring card the seat played, with the points it brought the seat."""
    bird_chips: int = 0
    """The points of the seat's bird chips."""
    hints: bool = False
    """The game had hints on: not rated, not in the standings, counted apart in the statistics."""
    taken_over: bool = False
    """Someone new took this seat over during the game (:mod:`bot.host.takeover`): its result is not rated, not in
    the standings, and counted apart in the statistics; the game rates the people who played it whole."""

    @property
    def pool(self) -> str:
        return "mixed" if self.with_computers else "humans"

    @property
    def is_computer(self) -> bool:
        return self.user_id is None


@dataclass(frozen=True, slots=True)
class Rating:
    """A person's rating in one pool of one server after ``games`` rated games."""

    mu: float
    sigma: float
    games: int = 0

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def shown(self) -> int:
        """The rating as players see it (:func:`displayed`)."""
        return displayed(self.ordinal)

    @property
    def provisional(self) -> bool:
        return provisional(self.games)


def new_rating() -> Rating:
    start = _MODEL.rating()
    return Rating(start.mu, start.sigma, 0)


def game_results(game: Game, breakdown: Sequence[ScoreBreakdown], *, game_id: int, guild_id: int | None,
                 user_ids: Sequence[int | None], names: Sequence[str], finished_at: float,
                 hints: bool = False, taken_over: Sequence[bool] = ()) -> list[SeatResult]:
    """One result per seat of the finished ``game``; ``breakdown``: where each seat's points came from
    (:func:`engine.history.score_breakdown`: a scoring card scores for every seat, a seat's own card is what it
    brought to that seat); ``hints``: the game had hints on; ``taken_over``: per seat, whether someone new took it
    over (a seat the computer played part of the game: the game counts as one with computers)."""
    if not game.is_over():
        raise ValueError("a game has results only once it is over")
    view = game.view(None)
    rank_of = {seat: place for place, seat in enumerate(view["ranking"], start=1)}
    cards = [{card: parts["cards"].get(card, 0) for card in dict.fromkeys(view["players"][parts["seat"]]
                                                                          ["played_scoring_cards"])}
             for parts in breakdown]
    taken = [bool(t) for t in taken_over] or [False] * len(user_ids)
    with_computers = any(u is None for u in user_ids) or any(taken)
    return [SeatResult(guild_id=guild_id, game_id=game_id, seat=p["seat"], user_id=user_ids[p["seat"]],
                       name=names[p["seat"]], score=p["score"], rank=rank_of[p["seat"]], players=len(user_ids),
                       with_computers=with_computers, finished_at=finished_at,
                       scoring_cards=cards[p["seat"]], bird_chips=sum(p.get("bird_chips", [])), hints=hints,
                       taken_over=taken[p["seat"]])
            for p in view["players"]]


def rated_people(results: Sequence[SeatResult]) -> list[SeatResult]:
    """The people a finished game rates, best first: those who played it from its start to its end (not a seat
    taken over); nobody when fewer than two did, or when the game had hints on."""
    if any(r.hints for r in results):
        return []
    people = sorted((r for r in results if r.user_id is not None and not r.taken_over), key=lambda r: r.rank)
    return people if len(people) >= 2 else []


def rate(before: Sequence[Rating]) -> list[Rating]:
    """New ratings of people who finished in the order of ``before`` (best first, no ties: the engine broke them)."""
    teams = [[_MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    after = _MODEL.rate(teams, ranks=[float(i) for i in range(1, len(teams) + 1)])
    return [Rating(team[0].mu, team[0].sigma, r.games + 1) for team, r in zip(after, before, strict=True)]


# ---------------------------------------------------------------------- statistics


@dataclass(frozen=True, slots=True)
class ShareByPlayers:
    players: int
    games: int
    wins: int

    @property
    def share(self) -> float:
        return self.wins / self.games if self.games else 0.0


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """What ``/santacruz stats`` shows of one person in one server: the record of the games without hints and not
    taken over (every figure but the last four), and the games with hints on and those taken over counted apart."""

    user_id: int
    name: str
    games: int
    wins: int
    by_players: list[ShareByPlayers]
    average_score: float
    best_score: int
    average_rank: float
    favourite_card: str | None
    profitable_card: str | None
    bird_chips: int
    games_with_computers: int
    ratings: dict[str, Rating]
    """Pool -> the current rating (pools the person has no rated game in are missing)."""
    rating_history: list[float]
    """The shown rating (:func:`displayed`) after each rated all-human game (else mixed), oldest first: the
    picture's line."""
    scores: list[int]
    """The score of each game (without hints), oldest first."""
    games_with_hints: int = 0
    """Games with hints on: not rated, and not in any figure above."""
    wins_with_hints: int = 0
    games_taken_over: int = 0
    """Games in which the person took over someone's seat: not rated, and not in any figure above."""
    wins_taken_over: int = 0


def player_stats(user_id: int, rows: Sequence[dict[str, Any]], ratings: dict[str, Rating],
                 history: Sequence[float]) -> PlayerStats | None:
    """The statistics of one person from their ``rows`` of results (oldest first, as the stores return them; a row's
    ``hints`` is true for a game with hints on, ``taken_over`` for a seat taken over) and ``history``, the stored
    ordinal after each rated game; ``None`` when they have finished no game here. Games with hints on and seats taken
    over are counted apart, outside the record."""
    if not rows:
        return None
    coached = [r for r in rows if r.get("hints")]
    taken = [r for r in rows if r.get("taken_over") and not r.get("hints")]
    name = str(rows[-1]["name"])
    rows = [r for r in rows if not r.get("hints") and not r.get("taken_over")]
    apart = {"games_with_hints": len(coached), "wins_with_hints": sum(r["rank"] == 1 for r in coached),
             "games_taken_over": len(taken), "wins_taken_over": sum(r["rank"] == 1 for r in taken)}
    if not rows:
        return PlayerStats(user_id=user_id, name=name, games=0, wins=0, by_players=[], average_score=0.0,
                           best_score=0, average_rank=0.0, favourite_card=None, profitable_card=None, bird_chips=0,
                           games_with_computers=0, ratings=ratings, rating_history=[], scores=[], **apart)
    played: Counter[str] = Counter()
    points: Counter[str] = Counter()
    for row in rows:
        for card, delta in row["scoring_cards"].items():
            played[card] += 1
            points[card] += delta
    counts = sorted({int(r["players"]) for r in rows})
    return PlayerStats(
        user_id=user_id, name=name, games=len(rows),
        wins=sum(r["rank"] == 1 for r in rows),
        by_players=[ShareByPlayers(n, sum(r["players"] == n for r in rows),
                                   sum(r["players"] == n and r["rank"] == 1 for r in rows)) for n in counts],
        average_score=sum(r["score"] for r in rows) / len(rows), best_score=max(r["score"] for r in rows),
        average_rank=sum(r["rank"] for r in rows) / len(rows),
        favourite_card=_top(played), profitable_card=_top(points),
        bird_chips=sum(r["bird_chips"] for r in rows),
        games_with_computers=sum(bool(r["with_computers"]) for r in rows),
        ratings=ratings, rating_history=[float(displayed(o)) for o in history], scores=[int(r["score"]) for r in rows],
        **apart)


def _top(counter: Counter[str]) -> str | None:
    """The most frequent (or profitable) card; a tie goes to the card first in the alphabet."""
    if not counter:
        return None
    return min(counter, key=lambda card: (-counter[card], card))


@dataclass(frozen=True, slots=True)
class BoardRow:
    """One row of a leaderboard: ``place`` 1 is the top."""

    place: int
    user_id: int
    name: str
    rating: int | None
    """The shown rating (:func:`displayed`), ``None`` without a rated game."""
    rated_games: int
    wins: int
    games: int


@dataclass(frozen=True, slots=True)
class Leaderboard:
    """One page of a server's leaderboard, and the caller's own row when it is not on the page."""

    by: str
    page: int
    pages: int
    rows: list[BoardRow]
    own: BoardRow | None
