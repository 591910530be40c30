"""Open games by the thousand for ``bench/bench_scale.py``, written through the store's own write path.

Each game is played forward by the engine (random legal moves, to a random stage of either round; never past its
end, and on until a person is to move: a stored game does not wait for a computer) and written as the host writes
it: ``insert_game``, its move log (``append_moves``, many games' in one transaction), then one ``Change`` with the
game's columns (its snapshot, last move, whose move it waits for) and the timers the host would have set by then,
many games to a transaction (``apply_all``). What the games hold, by share:

* lobbies (8 %), with their expiry timer; every other game running: 2 to 4 seats, a computer seat in a quarter of
  them, a person away (the computer plays them) in a few, drafted card sets in a fifth;
* a turn deadline (24 or 48 hours) in a fifth, its warning and its run-out timers counted from the last move (some
  due during the run: the computer then makes that move);
* each turn's reminder, due between a minute ago and a day from now (some fire during the run), and each game's idle
  timer (``STALE_DAYS`` after its last move);
* vacations: a few people go on vacation through the host itself (``vacation.start``), in every game they sit in:
  those games owe their notices at the bot's start, as a restart finds them.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import random
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from bot.host.change import Change
from bot.host.deadlines import turn_timers
from bot.host.errors import HostError
from bot.host.host import Host
from bot.host.idle import idle_timer, lobby_timer
from bot.host.memory import waits_for
from bot.host.model import MoveRow, NewTimer
from bot.host.settings import Settings
from bot.host.table import HOUR, Options, Seat
from bot.host.timers import REMINDER
from engine import new_game

BATCH = 200
"""Games written per transaction."""
DAY = 24 * HOUR
LOCALES = ("en", "de", "fr")


@dataclass(frozen=True)
class Place:
    """Where a game is played: its server, its channel, and the people of that server (id, name)."""

    guild_id: int
    channel_id: int
    people: Sequence[tuple[int, str]]


@dataclass(frozen=True)
class Stored:
    """A game as it was written: its id, channel, server and status."""

    game_id: int
    channel_id: int
    guild_id: int
    status: str


@dataclass
class Planned:
    """A game played forward, ready to be written (its snapshot as JSON: light to keep and to send between
    processes)."""

    place: Place
    status: str
    seats: list[Seat]
    options: Options
    seed: int
    created_at: float
    last_move_at: float | None
    state: str | None
    waits: str
    moves: list[MoveRow]
    timers: list[NewTimer]


def _seats(rng: random.Random, place: Place) -> list[Seat]:
    players = rng.choice((2, 3, 3, 4))
    computers = rng.choice((1, 1, 2)) if rng.random() < 0.25 else 0
    people = rng.sample(list(place.people), players - min(computers, players - 1))
    seats = [Seat(user_id, name) for user_id, name in people]
    seats += [Seat(None, f"Bot {n + 1}", strength="random") for n in range(players - len(seats))]
    rng.shuffle(seats)
    humans = [i for i, s in enumerate(seats) if s.user_id is not None]
    if len(humans) > 1 and rng.random() < 0.03:  # a person who went away: the computer plays their seat
        seats[humans[0]].away = True
    return seats


def _played(rng: random.Random, place: Place, seed: int, now: float, settings: Settings) -> Planned:
    """A running game at a random stage, a person to move."""
    seats = _seats(rng, place)
    options = Options(draft=rng.random() < 0.2, locale=rng.choice(LOCALES),
                      deadline_hours=rng.choice((24, 48)) if rng.random() < 0.2 else 0)
    length = rng.randrange(0, 90)
    while True:
        game = new_game([s.name for s in seats], seed, draft=options.draft)
        played: list[tuple[int, str]] = []
        while game.to_move is not None and (len(played) < length or seats[game.to_move].computer_plays):
            played.append((game.to_move, move := str(rng.choice(game.legal_moves()))))
            game.apply(move)
        if game.to_move is not None:
            break
        length = len(played) // 2  # it ended: fewer moves, played afresh
    if options.deadline_hours:  # the turn began within its deadline
        last = now - rng.uniform(60.0, options.deadline_hours * HOUR - 60.0)
    else:
        last = now - rng.uniform(60.0, 10 * DAY)
    created = last - rng.uniform(600.0, 3 * DAY)
    step = (last - created) / max(1, len(played))
    moves = [MoveRow(0, seq, seat, seats[seat].user_id, move, None, created + seq * step)
             for seq, (seat, move) in enumerate(played, start=1)]
    to_move = game.to_move
    timers = [t for t in turn_timers(options, seats, game, len(played), last) if t.due_at > now]
    timers.append(NewTimer(REMINDER, now + rng.uniform(-60.0, DAY), to_move, seats[to_move].user_id,
                           {"seq": len(played)}))
    timers.append(idle_timer(settings, last))
    return Planned(place, "running", seats, options, seed, created, last if played else None, game.to_json(),
                   waits_for("running", seats, game), moves, timers)


def _lobby(rng: random.Random, place: Place, seed: int, now: float, settings: Settings) -> Planned:
    people = rng.sample(list(place.people), rng.choice((1, 2, 3)))
    created = now - rng.uniform(60.0, 6 * DAY)
    seats = [Seat(user_id, name) for user_id, name in people]
    return Planned(place, "lobby", seats, Options(locale=rng.choice(LOCALES)), seed, created, None, None,
                   waits_for("lobby", seats, None), [], [lobby_timer(settings, created)])


def plan(places: Sequence[Place], seed: int, now: float) -> list[Planned]:
    """One open game for each of ``places`` (see the module docstring), the same for the same ``seed``."""
    rng, settings = random.Random(seed), Settings()
    return [(_lobby if rng.random() < 0.08 else _played)(rng, place, seed * 100_003 + number, now, settings)
            for number, place in enumerate(places)]


def plan_all(places: Sequence[Place], *, seed: int, processes: int = 2) -> list[Planned]:
    """:func:`plan` of every place, :data:`BATCH` at a time in ``processes`` worker processes (the engine's part of
    the fill), in the order of ``places``."""
    now = time.time()
    chunks = [places[start:start + BATCH] for start in range(0, len(places), BATCH)]
    with ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn")) as pool:
        done = pool.map(plan, chunks, [seed * 1000 + n for n in range(len(chunks))], [now] * len(chunks))
        return [game for chunk in done for game in chunk]


async def _write(store: Any, games: Sequence[Planned], now: float) -> list[Stored]:
    """Write ``games``: each game stored, then every move log in one transaction (``append_moves``), then each
    game's columns and timers (``apply_all``, one transaction for all)."""
    stored, moves, changes = [], [], []
    for g in games:
        game_id = await store.insert_game(
            channel_id=g.place.channel_id, guild_id=g.place.guild_id, opener_id=next(
                s.user_id for s in g.seats if s.user_id is not None), seats=[s.to_dict() for s in g.seats],
            options=g.options.to_dict(), seed=g.seed, status=g.status, locale=g.options.locale, now=g.created_at,
            waits_for=g.waits)
        stored.append(Stored(game_id, g.place.channel_id, g.place.guild_id, g.status))
        moves += [MoveRow(game_id, m.seq, m.seat, m.user_id, m.move, None, m.created_at) for m in g.moves]
        columns: dict[str, Any] = {"waits_for": g.waits}
        if g.state is not None:
            columns |= {"state": g.state, "last_move_at": g.last_move_at,
                        "next_reminder_at": next((t.due_at for t in g.timers if t.kind == REMINDER), None)}
        changes.append((game_id, Change(columns, timers=g.timers), None))
    if moves:
        await store.append_moves(moves)
    await store.apply_all(changes, now=now)
    return stored


async def write(store: Any, games: Sequence[Planned], *, seed: int, vacations: int = 0,
                at_once: int = 4) -> list[Stored]:
    """Write the planned ``games`` to ``store``, :data:`BATCH` games to a transaction, ``at_once`` transactions at
    a time (PostgreSQL runs them side by side; SQLite one after the other); then ``vacations`` people go on vacation
    in every game they sit in. The games as stored, in the order of ``games``."""
    now = time.time()
    batches = [games[start:start + BATCH] for start in range(0, len(games), BATCH)]
    stored: list[Stored] = []
    for first in range(0, len(batches), at_once):
        for written in await asyncio.gather(*(_write(store, batch, now) for batch in batches[first:first + at_once])):
            stored += written
    if vacations:
        rng = random.Random(seed)
        host = Host(store, Settings())
        people = sorted({person for game in games for person in game.place.people})
        for user_id, _ in rng.sample(people, min(vacations, len(people))):
            with contextlib.suppress(HostError):  # sits in no running game
                await host.vacation.start(user_id, rng.choice((3, 7)))
    return stored
