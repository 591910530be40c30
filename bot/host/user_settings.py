"""Each person's own settings (time zone, quiet hours, reminders, turn DMs) and the games they sit in.

A person's settings are one row of ``user_settings`` (both stores, written by the SQL here through a
:class:`bot.host.history_store.Sql`, so SQLite and PostgreSQL do the same). Quiet hours are whole hours in the
person's own time zone (IANA name, standard library ``zoneinfo``), and may cross midnight (22 to 7). Inside the
window the bot sends them no DM, reminder or ping: a DM owed then is *held* (its delivery is due at the end of the
window, with ``held`` in its payload) and, once due, the held DMs of that person are sent as one. The window is
worked out at the moment it matters, in the zone the person has then, so daylight saving time and a change of
zone while DMs are held are both followed (:func:`quiet_until`).

:class:`OpenGame` is one line of ``/santacruz games``: an open game (lobby or running) read from the database
(:func:`open_game`), so games of other processes count too. Nothing here knows Discord.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime, time, timedelta
from functools import cache
from typing import Any, Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from bot.host.history_store import Sql
from engine import Game

DEFAULT_ZONE: Final = "UTC"
MAX_REMINDER_HOURS: Final = 168
"""The longest wait before a reminder a person may choose (a week)."""
HELD: Final = "held"
"""The payload key that marks a DM delivery held for the end of its player's quiet hours."""

USER_SETTINGS_TABLE: Final = (
    """CREATE TABLE user_settings (
        user_id        INTEGER PRIMARY KEY,
        time_zone      TEXT NOT NULL,
        quiet_from     INTEGER,
        quiet_to       INTEGER,
        reminders      INTEGER NOT NULL,
        reminder_hours REAL,
        turn_dms       INTEGER NOT NULL,
        updated_at     REAL NOT NULL
    )""",
)
"""Schema step of both stores (PostgreSQL with wider types): one row per person who changed a setting."""


@dataclass(frozen=True, slots=True)
class UserSettings:
    """One person's settings; the defaults are what someone who never changed anything gets."""

    time_zone: str = DEFAULT_ZONE
    """IANA name, e.g. ``Europe/Berlin``."""
    quiet_from: int | None = None
    """First quiet hour (0-23, local); ``None``: no quiet hours."""
    quiet_to: int | None = None
    """The hour (0-23, local) at which the quiet hours end; may be smaller than ``quiet_from`` (past midnight)."""
    reminders: bool = True
    reminder_hours: float | None = None
    """Remind after this many hours; ``None``: the game's (``REMINDER_HOURS``)."""
    turn_dms: bool = True
    """DM the move controls on this person's turn (the channel post mentions them either way)."""

    @property
    def has_quiet_hours(self) -> bool:
        return self.quiet_from is not None and self.quiet_to is not None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def known_time_zone(name: str) -> bool:
    """Whether ``name`` is a time zone of the standard library's database."""
    return name in time_zones()


@cache
def time_zones() -> tuple[str, ...]:
    """Every IANA time zone name the standard library knows, sorted (for autocomplete)."""
    return tuple(sorted(available_timezones()))


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):  # a zone removed from the system since it was chosen
        return ZoneInfo(DEFAULT_ZONE)


def quiet_until(settings: UserSettings, now: float) -> float | None:
    """The end of the quiet hours ``now`` falls in (seconds since the epoch), or ``None`` outside them.

    The window is read on the local clock of the person's zone at ``now``, so it follows daylight saving time;
    the end is the next local ``quiet_to`` o'clock (a wall time skipped by a clock change comes out as the
    instant the clocks jumped over it)."""
    if settings.quiet_from is None or settings.quiet_to is None or settings.quiet_from == settings.quiet_to:
        return None
    zone = _zone(settings.time_zone)
    local = datetime.fromtimestamp(now, zone)
    start, end = settings.quiet_from, settings.quiet_to
    inside = start <= local.hour < end if start < end else (local.hour >= start or local.hour < end)
    if not inside:
        return None
    day = local.date() if local.hour < end else local.date() + timedelta(days=1)
    return datetime.combine(day, time(end), tzinfo=zone).timestamp()


def quiet_windows(settings: UserSettings, start: float, end: float) -> list[tuple[float, float]]:
    """The person's quiet hours that overlap ``start`` to ``end`` (seconds since the epoch), each as ``(from, to)``
    on their local clock day by day (daylight saving time followed), clipped to the span."""
    if settings.quiet_from is None or settings.quiet_to is None or settings.quiet_from == settings.quiet_to:
        return []
    zone = _zone(settings.time_zone)
    first, to = settings.quiet_from, settings.quiet_to
    day = datetime.fromtimestamp(start, zone).date() - timedelta(days=1)  # a window from the evening before
    windows: list[tuple[float, float]] = []
    while True:
        opens = datetime.combine(day, time(first), tzinfo=zone).timestamp()
        if opens >= end:
            return windows
        closes = datetime.combine(day + timedelta(days=1 if to < first else 0), time(to), tzinfo=zone).timestamp()
        if closes > start:
            windows.append((max(opens, start), min(closes, end)))
        day += timedelta(days=1)


def local_time(settings: UserSettings, now: float) -> str:
    """The person's local time at ``now`` as ``HH:MM`` (shown on the settings panel)."""
    return datetime.fromtimestamp(now, _zone(settings.time_zone)).strftime("%H:%M")


# ---------------------------------------------------------------------- the games a person sits in


@dataclass(frozen=True, slots=True)
class OpenGame:
    """An open game as ``/santacruz games`` lists it: public facts only."""

    game_id: int
    channel_id: int
    guild_id: int | None
    status: str
    """``lobby`` or ``running``."""
    to_move_user_id: int | None
    to_move_name: str | None
    """Whose turn it is (``None`` in a lobby)."""
    computer_to_move: bool
    since: float
    """The time of the last move (or of the start; of the opening for a lobby)."""
    yours: bool
    """Whether it is this person's turn."""
    last_message_id: int | None = None
    """The game's latest post in its channel (a link to it), once delivered."""
    people: tuple[tuple[int, str], ...] = ()
    """The people seated in it (user id, name), in seat order (how fast each usually moves is shown with it)."""


def seats_name(user_id: int) -> str:
    """The text of ``user_id`` in a game's seats JSON (a LIKE prefilter; :func:`open_game` checks exactly)."""
    return f'%"user_id":{int(user_id)}%'


def open_game(row: Any, user_id: int, to_move: Callable[[Any], int | None] | None = None) -> OpenGame | None:
    """The line of a ``games`` row (a :class:`bot.host.model.GameRow`) for ``user_id``, or ``None`` when they do
    not sit in it (the LIKE prefilter matched a longer id). ``to_move``: the seat to move in a running game's row
    (default: read from its state)."""
    seats: list[dict[str, Any]] = row.seats
    if not any(s.get("user_id") == user_id for s in seats):
        return None
    since = row.last_move_at if row.last_move_at is not None else row.created_at
    people = tuple((int(s["user_id"]), str(s.get("name"))) for s in seats if s.get("user_id") is not None)
    if row.status != "running" or row.state is None:
        return OpenGame(row.id, row.channel_id, row.guild_id, row.status, None, None, False, since, False,
                        people=people)
    seat_to_move = to_move(row) if to_move is not None else Game.from_json(row.state).to_move
    seat = seats[seat_to_move] if seat_to_move is not None and seat_to_move < len(seats) else None
    if seat is None:
        return OpenGame(row.id, row.channel_id, row.guild_id, row.status, None, None, False, since, False,
                        row.last_message_id, people)
    computer = seat.get("user_id") is None or bool(seat.get("away"))
    return OpenGame(row.id, row.channel_id, row.guild_id, row.status, seat.get("user_id"), str(seat.get("name")),
                    computer, since, seat.get("user_id") == user_id and not computer, row.last_message_id, people)


def in_order(games: list[OpenGame]) -> list[OpenGame]:
    """Yours to move first (longest waiting first), then the other running games, then lobbies."""
    return sorted(games, key=lambda g: (not g.yours, g.status != "running", g.since, g.game_id))


# ---------------------------------------------------------------------- SQL shared by both stores


async def read_all(db: Sql) -> dict[int, UserSettings]:
    """Every stored person's settings."""
    rows = await db.fetch(
        """
        SELECT user_id, time_zone, quiet_from, quiet_to, reminders, reminder_hours, turn_dms
        FROM user_settings
        """)
    return {int(r["user_id"]): UserSettings(
        time_zone=str(r["time_zone"]), quiet_from=_int(r["quiet_from"]), quiet_to=_int(r["quiet_to"]),
        reminders=bool(r["reminders"]), reminder_hours=_float(r["reminder_hours"]),
        turn_dms=bool(r["turn_dms"])) for r in rows}


async def write(db: Sql, user_id: int, settings: UserSettings, *, now: float, held_due_at: float) -> int:
    """Store a person's settings and make their held DMs due at ``held_due_at`` (the end of the quiet hours as
    the new settings have them, or now); how many held DMs were moved. Call inside the store's transaction."""
    await db.execute(
        """
        INSERT INTO user_settings (user_id, time_zone, quiet_from, quiet_to, reminders, reminder_hours, turn_dms,
                                   updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (user_id) DO UPDATE
        SET time_zone = excluded.time_zone, quiet_from = excluded.quiet_from, quiet_to = excluded.quiet_to,
            reminders = excluded.reminders, reminder_hours = excluded.reminder_hours, turn_dms = excluded.turn_dms,
            updated_at = excluded.updated_at
        """,
        user_id, settings.time_zone, settings.quiet_from, settings.quiet_to, int(settings.reminders),
        settings.reminder_hours, int(settings.turn_dms), now)
    return await db.execute(
        "UPDATE deliveries SET due_at = ? WHERE user_id = ? AND done_at IS NULL AND payload LIKE ?",
        held_due_at, user_id, HELD_PATTERN)


async def hold(db: Sql, holds: list[tuple[int, dict[str, Any]]], due_at: float) -> None:
    """Hold DM deliveries (id, payload) until ``due_at``: marked ``held`` in their payload, due then."""
    for delivery_id, payload in holds:
        await db.execute("UPDATE deliveries SET due_at = ?, payload = ? WHERE id = ? AND done_at IS NULL",
                         due_at, _dumps({**payload, HELD: True}), delivery_id)


HELD_PATTERN: Final = f'%"{HELD}":true%'
"""A held delivery's payload in SQL ``LIKE`` (payloads are stored as compact JSON with sorted keys)."""


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)
