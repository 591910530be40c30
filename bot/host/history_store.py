"""Players' history in the database, written and read the same way by both stores (SQLite and PostgreSQL).

The tables are :data:`bot.host.schema.HISTORY_TABLES`. Each store hands these functions a :class:`Sql`: its
connection, inside the store's transaction for writes, so that a game's results, its ratings and the final move
are ONE transaction (:func:`write_results` runs inside ``append_move``), and a rating is read and updated under
that transaction's lock (two games ending together in one server never lose an update).

How fast people move is kept apart: :data:`TURN_TIMES_TABLE`, one row per turn a person ended themselves (written
with the move, :mod:`bot.host.turn_times`), read as a :class:`TurnSpeed` by :func:`turn_speed`.

Every query the commands run is served by an index: ``results_by_user`` (a person's stats), ``ratings_board``
and ``standings_by_*`` (a leaderboard page and the count of the rows ahead of the caller's), ``turn_times_of_player``
(a person's turn speed).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from bot.host.ratings import (
    BOARDS,
    PAGE_SIZE,
    BoardRow,
    Leaderboard,
    Rating,
    SeatResult,
    displayed,
    new_rating,
    rate,
    rated_people,
)


class Sql(Protocol):
    """A connection as these functions use it: ``?`` placeholders, rows as dicts."""

    async def fetch(self, sql: str, *params: Any) -> list[dict[str, Any]]: ...

    async def execute(self, sql: str, *params: Any) -> int:
        """Run ``sql``; how many rows it changed."""
        ...


@dataclass(frozen=True, slots=True)
class Forgotten:
    """What ``forget-me`` removed or changed."""

    results: int
    ratings: int
    history: int
    games_renamed: int
    deliveries_scrubbed: int
    """Sent posts and DMs whose payload was emptied."""


# ---------------------------------------------------------------------- writing (with the final move)


async def write_results(db: Sql, results: Sequence[SeatResult], now: float) -> None:
    """Store a finished game's results, and update the standings and ratings of its people in its server (not for
    a game with hints on: its results are kept, counted apart by the statistics)."""
    for r in results:
        await db.execute(
            """
            INSERT INTO results (game_id, seat, guild_id, user_id, name, score, rank, players, with_computers,
                                 scoring_cards, bird_chips, finished_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            r.game_id, r.seat, r.guild_id, r.user_id, r.name, r.score, r.rank, r.players, int(r.with_computers),
            json.dumps(r.scoring_cards, sort_keys=True), r.bird_chips, r.finished_at)
    people = [r for r in results if r.user_id is not None]
    if not people or people[0].guild_id is None:
        return  # a game outside a server has results but no standings or ratings
    if any(r.hints for r in results):
        return  # players could ask the coach: neither standings nor ratings
    guild = people[0].guild_id
    for r in (r for r in people if not r.taken_over):  # a seat taken over is counted apart
        await db.execute(
            """
            INSERT INTO standings (guild_id, user_id, name, games, wins, updated_at)
            VALUES (?, ?, ?, 1, ?, ?)
            ON CONFLICT (guild_id, user_id) DO UPDATE
            SET name = excluded.name, games = standings.games + 1, wins = standings.wins + excluded.wins,
                updated_at = excluded.updated_at
            """,
            guild, r.user_id, r.name, int(r.rank == 1), now)
    rated = rated_people(results)
    if rated:
        await _rate(db, guild, rated[0].pool, rated, now)


async def _rate(db: Sql, guild: int, pool: str, rated: Sequence[SeatResult], now: float) -> None:
    before = [await _rating(db, guild, pool, r.user_id) or new_rating() for r in rated]
    for r, after in zip(rated, rate(before), strict=True):
        await db.execute(
            """
            INSERT INTO ratings (guild_id, pool, user_id, mu, sigma, ordinal, games, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (guild_id, pool, user_id) DO UPDATE
            SET mu = excluded.mu, sigma = excluded.sigma, ordinal = excluded.ordinal, games = excluded.games,
                updated_at = excluded.updated_at
            """,
            guild, pool, r.user_id, after.mu, after.sigma, after.ordinal, after.games, now)
        await db.execute(
            """
            INSERT INTO rating_history (guild_id, pool, user_id, game_id, mu, sigma, ordinal, at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            guild, pool, r.user_id, r.game_id, after.mu, after.sigma, after.ordinal, now)


async def _rating(db: Sql, guild: int, pool: str, user_id: int | None) -> Rating | None:
    rows = await db.fetch("SELECT mu, sigma, games FROM ratings WHERE guild_id = ? AND pool = ? AND user_id = ?",
                          guild, pool, user_id)
    return Rating(float(rows[0]["mu"]), float(rows[0]["sigma"]), int(rows[0]["games"])) if rows else None


# ---------------------------------------------------------------------- reading


async def results_of(db: Sql, guild: int, user_id: int) -> list[dict[str, Any]]:
    """A person's results in a server, oldest first (``scoring_cards`` decoded; ``hints``: the game had hints on,
    read from its options in ``games``, whose row the result names; ``taken_over``: they took the seat over, read
    from its seats)."""
    rows = await db.fetch(
        """
        SELECT r.game_id, r.seat, r.name, r.score, r.rank, r.players, r.with_computers, r.scoring_cards,
               r.bird_chips, r.finished_at, g.options, g.seats
        FROM results r LEFT JOIN games g ON g.id = r.game_id
        WHERE r.guild_id = ? AND r.user_id = ?
        ORDER BY r.finished_at, r.game_id
        """,
        guild, user_id)
    return [{**{k: v for k, v in row.items() if k not in ("options", "seats")},
             "scoring_cards": json.loads(row["scoring_cards"]), "hints": _hints_on(row["options"]),
             "taken_over": _taken_over(row["seats"], int(row["seat"]))} for row in rows]


def _taken_over(seats: str | None, seat: int) -> bool:
    """Whether a game's stored seats (JSON) say that ``seat`` was taken over (someone played it before)."""
    data = _readable(seats)
    return isinstance(data, list) and 0 <= seat < len(data) and isinstance(data[seat], dict) \
        and bool(data[seat].get("former"))


def _hints_on(options: str | None) -> bool:
    """Whether a game's stored options (JSON; ``None`` without its row) had hints on."""
    data = _readable(options)
    return isinstance(data, dict) and data.get("hints") is True


def _readable(text: str | None) -> Any:
    """``text`` read as JSON, or ``None`` when there is none or it cannot be read (a damaged game's)."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


async def ratings_of(db: Sql, guild: int, user_id: int) -> dict[str, Rating]:
    """A person's ratings in a server by pool."""
    rows = await db.fetch("SELECT pool, mu, sigma, games FROM ratings WHERE guild_id = ? AND user_id = ?",
                          guild, user_id)
    return {str(r["pool"]): Rating(float(r["mu"]), float(r["sigma"]), int(r["games"])) for r in rows}


async def rating_history(db: Sql, guild: int, user_id: int, pool: str) -> list[float]:
    """The ordinal after each rated game of a pool, oldest first."""
    rows = await db.fetch(
        """
        SELECT ordinal
        FROM rating_history
        WHERE guild_id = ? AND pool = ? AND user_id = ?
        ORDER BY at, game_id
        """,
        guild, pool, user_id)
    return [float(r["ordinal"]) for r in rows]


_WITH_RATING: Final = ("standings s LEFT JOIN ratings r ON r.guild_id = s.guild_id AND r.user_id = s.user_id"
                       " AND r.pool = 'humans' WHERE s.guild_id = ?")
_RATED: Final = ("ratings r JOIN standings s ON s.guild_id = r.guild_id AND s.user_id = r.user_id"
                 " WHERE r.guild_id = ? AND r.pool = 'humans'")
_ORDER: Final[Mapping[str, tuple[str, str, str]]] = {
    # by -> (the ordering column, the tie-break (the lower user id first) and the FROM clause, each in the order
    # of its index; the rating board lists rated people only)
    "rating": ("r.ordinal", "r.user_id", _RATED),
    "wins": ("s.wins", "s.user_id", _WITH_RATING),
    "games": ("s.games", "s.user_id", _WITH_RATING),
}
_COLUMNS: Final = "s.user_id, s.name, s.wins, s.games, r.ordinal, r.games AS rated_games"


async def leaderboard(db: Sql, guild: int, by: str, page: int, user_id: int) -> Leaderboard:
    """Page ``page`` (from 0; clamped to the last page) of a server's leaderboard ordered ``by`` rating, wins
    or games (ties: the lower user id first), and the caller's own row when not on that page."""
    if by not in BOARDS:
        raise ValueError(f"a leaderboard is by one of {BOARDS}, not {by!r}")
    column, tie, source = _ORDER[by]
    total = int((await db.fetch(f"SELECT count(*) AS n FROM {source}", guild))[0]["n"])
    pages = max(1, -(-total // PAGE_SIZE))
    page = min(max(page, 0), pages - 1)
    rows = await db.fetch(f"SELECT {_COLUMNS} FROM {source} ORDER BY {column} DESC, {tie} LIMIT ? OFFSET ?",
                          guild, PAGE_SIZE, page * PAGE_SIZE)
    shown = [_board_row(page * PAGE_SIZE + i, row) for i, row in enumerate(rows, start=1)]
    own = None
    if all(row.user_id != user_id for row in shown):
        own = await _own_row(db, guild, column, tie, source, user_id)
    return Leaderboard(by=by, page=page, pages=pages, rows=shown, own=own)


async def _own_row(db: Sql, guild: int, column: str, tie: str, source: str, user_id: int) -> BoardRow | None:
    mine = await db.fetch(f"SELECT {_COLUMNS}, {column} AS key FROM {source} AND {tie} = ?", guild, user_id)
    if not mine:
        return None
    key = mine[0]["key"]
    ahead = await db.fetch(f"SELECT count(*) AS n FROM {source} AND ({column} > ? OR ({column} = ? AND {tie} < ?))",
                           guild, key, key, user_id)
    return _board_row(int(ahead[0]["n"]) + 1, mine[0])


def _board_row(place: int, row: Mapping[str, Any]) -> BoardRow:
    ordinal = row["ordinal"]
    return BoardRow(place=place, user_id=int(row["user_id"]), name=str(row["name"]),
                    rating=displayed(float(ordinal)) if ordinal is not None else None,
                    rated_games=int(row["rated_games"] or 0), wins=int(row["wins"]), games=int(row["games"]))


# ---------------------------------------------------------------------- forgetting


async def forget(db: Sql, user_id: int, former_player: Mapping[str, str]) -> Forgotten:
    """Forget a person everywhere but in the games they still sit in (a lobby or a running game).

    Deleted: their results, standings, ratings, rating history and turns' times. Revoked: every link to their own
    view on the web made so far (:func:`revoke_links`). Renamed ``former_player[game's
    locale]``: their seats and their name in the saved state of every game no longer open (over, abandoned, damaged),
    and in the posts such a game still owes. Emptied: the payload of every delivery already sent (a post or a DM)
    that was for them, of one of their games, or carries one of their names or their id. Kept: their moves (so the
    others' histories stay whole), their language and settings, and the games they still sit in."""
    names = {str(r["name"]) for r in await db.fetch(
        "SELECT name FROM results WHERE user_id = ? UNION SELECT name FROM standings WHERE user_id = ?",
        user_id, user_id)}
    results = await db.execute("DELETE FROM results WHERE user_id = ?", user_id)
    ratings = await db.execute("DELETE FROM ratings WHERE user_id = ?", user_id)
    history = await db.execute("DELETE FROM rating_history WHERE user_id = ?", user_id)
    await db.execute("DELETE FROM standings WHERE user_id = ?", user_id)
    await db.execute("DELETE FROM turn_times WHERE user_id = ?", user_id)
    await db.execute("DELETE FROM dm_channels WHERE user_id = ?", user_id)
    await revoke_links(db, user_id)  # the links to their own view made so far stop working
    renamed = 0
    game_ids: list[int] = []
    games = await db.fetch("SELECT id, seats, locale, status, state FROM games WHERE seats LIKE ?",
                           f'%"user_id":{user_id}%')
    for game in games:
        seats = json.loads(game["seats"])
        mine = [i for i, s in enumerate(seats) if s.get("user_id") == user_id]
        name = former_player.get(str(game["locale"]), former_player["en"])
        left = [f for s in seats for f in s.get("former", ()) if f.get("user_id") == user_id]
        if not mine and not left:
            continue  # another id that starts with the same digits
        game_ids.append(int(game["id"]))
        names.update(str(seats[i].get("name", "")) for i in mine)
        names.update(str(f.get("name", "")) for f in left)
        for f in left:  # a seat they left to someone new: they sit there no longer, in a game open or not
            f["name"] = name
        if left and (mine == [] or game["status"] in _OPEN):
            await db.execute("UPDATE games SET seats = ? WHERE id = ?", _dumps(seats), game["id"])
        if game["status"] in _OPEN or not mine:
            continue  # a game they still sit in keeps their name while it runs
        own = {str(seats[i].get("name", "")) for i in mine} - {str(s.get("name", "")) for s in seats
                                                                 if s.get("user_id") != user_id}
        for i in mine:
            seats[i]["name"] = name
        await db.execute("UPDATE games SET seats = ?, state = ? WHERE id = ?", _dumps(seats),
                         _renamed_state(game["state"], mine, own, name), game["id"])
        for row in await db.fetch("SELECT id, payload FROM deliveries WHERE game_id = ? AND done_at IS NULL",
                                  game["id"]):
            payload = _dumps(_renamed(json.loads(row["payload"]), user_id, own, name))
            if payload != row["payload"]:
                await db.execute("UPDATE deliveries SET payload = ? WHERE id = ?", payload, row["id"])
        renamed += 1
    scrubbed = await _scrub_sent(db, user_id, names - {""}, game_ids)
    return Forgotten(results=results, ratings=ratings, history=history, games_renamed=renamed,
                     deliveries_scrubbed=scrubbed)


_OPEN: Final = ("lobby", "running")
_EMPTY: Final = "{}"
_CHUNK: Final = 500
"""Game ids per ``IN (...)`` list (both databases cap the parameters of one statement)."""


async def revoke_links(db: Sql, user_id: int) -> None:
    """Refuse every link to the person's own view on the web made so far (inside forget-me's transaction): their
    generation in ``web_revocations`` goes up, and a link signed with an older one is refused (``bot.host.web``)."""
    await db.execute(
        """
        INSERT INTO web_revocations (user_id, generation)
        VALUES (?, 1)
        ON CONFLICT (user_id) DO UPDATE
        SET generation = web_revocations.generation + 1
        """,
        user_id)


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _renamed(value: Any, user_id: int, names: set[str], former: str, key: str = "") -> Any:
    """``value`` (a payload) with the person called ``former``: a ``name`` next to their ``user_id``, and a name
    (under a key ending in ``name``: a seat's, a view's player, ``to_move_name``) that is one of ``names`` (the
    names they had in that game and no other player had)."""
    if isinstance(value, dict):
        out = {k: _renamed(v, user_id, names, former, k) for k, v in value.items()}
        if out.get("user_id") == user_id and "name" in out:
            out["name"] = former
        return out
    if isinstance(value, list):
        return [_renamed(v, user_id, names, former, key) for v in value]
    if isinstance(value, str) and key.endswith("name") and value in names:
        return former
    return value


def _renamed_state(state: str | None, seats: Sequence[int], names: set[str], former: str) -> str | None:
    """A game's saved state (engine JSON, whose ``names`` are the players' in seat order) with ``former`` as the
    name of ``seats``; a state that cannot be read (a damaged game's) gets those names replaced as text."""
    if state is None:
        return None
    data = _readable(state)
    if isinstance(data, dict) and isinstance(data.get("names"), list):
        for i in seats:
            if i < len(data["names"]):
                data["names"][i] = former
        return _dumps(data)
    for name in names:
        state = state.replace(json.dumps(name), json.dumps(former))
    return state


def _like(text: str) -> str:
    """``text`` anywhere, as a ``LIKE ... ESCAPE '!'`` pattern."""
    return "%" + text.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%"


async def _scrub_sent(db: Sql, user_id: int, names: set[str], game_ids: Sequence[int]) -> int:
    """Empty the payload of every sent delivery that was for the person, of one of their games, or names them
    (by a name they had, written as in the JSON, or by their id as a seat's ``user_id``)."""
    patterns = [_like(json.dumps(n)) for n in sorted(names)]
    patterns += [_like(f'"user_id":{user_id}{end}') for end in (",", "}")]
    mentions = " OR ".join("payload LIKE ? ESCAPE '!'" for _ in patterns)
    scrubbed = await db.execute(
        f"""
        UPDATE deliveries
        SET payload = ?
        WHERE done_at IS NOT NULL AND payload <> ? AND (user_id = ? OR {mentions})
        """,
        _EMPTY, _EMPTY, user_id, *patterns)
    for at in range(0, len(game_ids), _CHUNK):
        chunk = game_ids[at:at + _CHUNK]
        scrubbed += await db.execute(
            f"""
            UPDATE deliveries
            SET payload = ?
            WHERE done_at IS NOT NULL AND payload <> ? AND game_id IN ({', '.join('?' * len(chunk))})
            """,
            _EMPTY, _EMPTY, *chunk)
    return scrubbed


# ---------------------------------------------------------------------- how fast people move


TURN_TIMES_TABLE: Final = (
    """CREATE TABLE turn_times (
        game_id  INTEGER NOT NULL,
        seq      INTEGER NOT NULL,
        guild_id INTEGER,
        user_id  INTEGER NOT NULL,
        seconds  REAL NOT NULL,
        moved_at REAL NOT NULL,
        PRIMARY KEY (game_id, seq)
    )""",
    "CREATE INDEX turn_times_of_player ON turn_times (guild_id, user_id, seconds)",
    "CREATE INDEX turn_times_by_user ON turn_times (user_id)",
)
"""Schema step of both stores: one row per turn a person ended themselves; the index serves the percentiles."""


@dataclass(frozen=True, slots=True)
class TurnSpeed:
    """A person's turns on a server: how many were measured, and the median and 90th percentile in seconds
    (``None`` without any)."""

    turns: int
    median: float | None
    p90: float | None


def percentile(ordered: Sequence[float], share: float) -> float:
    """The ``share`` quantile of sorted values, linear between the nearest two (the usual definition, numpy's
    default)."""
    at = share * (len(ordered) - 1)
    low = int(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


async def turn_speed(db: Sql, guild_id: int | None, user_id: int) -> TurnSpeed:
    """A person's measured turns on a server (``guild_id``; ``None``: games outside servers): their count, median
    and 90th percentile. The index ``turn_times_of_player`` serves the count and each value read at its rank, so a
    person with many turns costs a few index steps, not a sort."""
    where = "guild_id IS NULL" if guild_id is None else "guild_id = ?"
    params: tuple[int, ...] = (user_id,) if guild_id is None else (guild_id, user_id)
    rows = await db.fetch(f"SELECT COUNT(*) AS n FROM turn_times WHERE {where} AND user_id = ?", *params)
    count = int(rows[0]["n"])
    if not count:
        return TurnSpeed(0, None, None)

    async def ranked(shares: tuple[float, ...]) -> list[float]:
        """The ``shares`` quantiles, each from the one or two values around its rank."""
        values = []
        for share in shares:
            at = share * (count - 1)
            low = int(at)
            pair = await db.fetch(f"SELECT seconds FROM turn_times WHERE {where} AND user_id = ?"
                                  " ORDER BY seconds LIMIT 2 OFFSET ?", *params, low)
            near = [float(r["seconds"]) for r in pair]
            values.append(percentile(near, at - low) if len(near) == 2 else near[0])
        return values

    median, p90 = await ranked((0.5, 0.9))
    return TurnSpeed(count, median, p90)
