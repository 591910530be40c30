"""The schema, written once for both stores: each migration step in SQLite's words, turned into PostgreSQL's
by one dialect step (:func:`to_postgres`), with an override only where the two really differ.

:data:`STEPS` is a list of steps, step ``i`` taking the database from version ``i`` to ``i + 1`` in one
transaction; :data:`MIGRATIONS` (SQLite, ``PRAGMA user_version``, run by :func:`bot.host.store.migrate`) and
:data:`PG_MIGRATIONS` (PostgreSQL, table ``schema_version``, run by :func:`bot.host.postgres_store.migrate_pg`
under an advisory lock) are the same steps in each dialect. The dialect step: integers are 64-bit (``BIGINT``:
Discord ids), floats double precision, an ``AUTOINCREMENT`` key an identity column, no ``WITHOUT ROWID``; the
columns of steps 0-5 that PostgreSQL has always held as 32-bit (:data:`NARROW`) stay ``INTEGER``. The one
override is step 4 -> 5 (:data:`POSTGRES_OVERRIDES`): SQLite rebuilds ``games`` to widen its status CHECK,
PostgreSQL alters the constraint in place; step 12 -> 13 gives PostgreSQL alone the trigger that tells listeners of
every change to a game (:data:`POSTGRES_EXTRAS`). The resulting PostgreSQL schema is pinned by
``tests/host/test_schema.py``.
"""

from __future__ import annotations

import re
from typing import Final

from bot.host.history_store import TURN_TIMES_TABLE
from bot.host.user_settings import USER_SETTINGS_TABLE

HISTORY_TABLES: Final = (
    """CREATE TABLE results (
        game_id        INTEGER NOT NULL,
        seat           INTEGER NOT NULL,
        guild_id       INTEGER,
        user_id        INTEGER,
        name           TEXT NOT NULL,
        score          INTEGER NOT NULL,
        rank           INTEGER NOT NULL,
        players        INTEGER NOT NULL,
        with_computers INTEGER NOT NULL,
        scoring_cards  TEXT NOT NULL,
        bird_chips     INTEGER NOT NULL,
        finished_at    REAL NOT NULL,
        PRIMARY KEY (game_id, seat)
    )""",
    "CREATE INDEX results_by_user ON results (guild_id, user_id, finished_at, game_id)",
    "CREATE INDEX results_of_user ON results (user_id)",
    """CREATE TABLE ratings (
        guild_id   INTEGER NOT NULL,
        pool       TEXT NOT NULL CHECK (pool IN ('humans', 'mixed')),
        user_id    INTEGER NOT NULL,
        mu         REAL NOT NULL,
        sigma      REAL NOT NULL,
        ordinal    REAL NOT NULL,
        games      INTEGER NOT NULL,
        updated_at REAL NOT NULL,
        PRIMARY KEY (guild_id, pool, user_id)
    )""",
    "CREATE INDEX ratings_board ON ratings (guild_id, pool, ordinal DESC, user_id)",
    "CREATE INDEX ratings_by_user ON ratings (user_id)",
    """CREATE TABLE rating_history (
        guild_id INTEGER NOT NULL,
        pool     TEXT NOT NULL,
        user_id  INTEGER NOT NULL,
        game_id  INTEGER NOT NULL,
        mu       REAL NOT NULL,
        sigma    REAL NOT NULL,
        ordinal  REAL NOT NULL,
        at       REAL NOT NULL,
        PRIMARY KEY (guild_id, pool, user_id, game_id)
    )""",
    "CREATE INDEX rating_history_in_order ON rating_history (guild_id, pool, user_id, at, game_id)",
    "CREATE INDEX rating_history_by_user ON rating_history (user_id)",
    """CREATE TABLE standings (
        guild_id   INTEGER NOT NULL,
        user_id    INTEGER NOT NULL,
        name       TEXT NOT NULL,
        games      INTEGER NOT NULL,
        wins       INTEGER NOT NULL,
        updated_at REAL NOT NULL,
        PRIMARY KEY (guild_id, user_id)
    )""",
    "CREATE INDEX standings_by_wins ON standings (guild_id, wins DESC, user_id)",
    "CREATE INDEX standings_by_games ON standings (guild_id, games DESC, user_id)",
    "CREATE INDEX standings_by_user ON standings (user_id)",
)
"""Players' history (shared in form by both stores): ``results`` one row per seat of each finished game (the
scoring cards played with their points as JSON), ``ratings`` per (guild, pool, person) with the ordinal for the
leaderboard's index, ``rating_history`` a row per rated game, ``standings`` games and wins per (guild, person)."""

SHARED_TABLES: Final = (
    "ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 0",
    """CREATE TABLE timers (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id     INTEGER NOT NULL,
        channel_id  INTEGER NOT NULL,
        kind        TEXT NOT NULL,
        seat        INTEGER,
        user_id     INTEGER,
        payload     TEXT NOT NULL,
        created_at  REAL NOT NULL,
        due_at      REAL NOT NULL,
        done_at     REAL,
        lease_owner TEXT,
        lease_until REAL
    )""",
    "CREATE INDEX timers_pending ON timers (due_at) WHERE done_at IS NULL",
    "CREATE INDEX timers_of_game ON timers (game_id, due_at) WHERE done_at IS NULL",
    """CREATE TABLE leases (
        name  TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        until REAL NOT NULL
    )""",
)
"""Schema step 8: ``games.version``, ``timers`` and ``leases``."""

HELD_INDEX: Final = "CREATE INDEX deliveries_of_user ON deliveries (user_id) WHERE done_at IS NULL"
"""A person's pending DMs (held for the end of their quiet hours, or collapsed into one)."""

LAST_POST_COLUMN: Final = "ALTER TABLE games ADD COLUMN last_message_id INTEGER"
"""Schema step 10: the id of the game's latest post in its channel (the start or a move)."""

THREAD_GAMES: Final = (
    "ALTER TABLE games ADD COLUMN parent_id INTEGER",
    """CREATE INDEX games_open_in_parent ON games (parent_id)
            WHERE parent_id IS NOT NULL AND status IN ('lobby', 'running')""",
)
"""Schema step 11 (with the turn times): the channel whose thread a game was opened in (its lobby message is
there), so that a command in that channel finds the games of its threads."""

TURN_DM_MESSAGES: Final = (
    "ALTER TABLE deliveries ADD COLUMN message_id INTEGER",
    "ALTER TABLE deliveries ADD COLUMN closed_at REAL",
    """CREATE INDEX deliveries_open_turn_dms ON deliveries (game_id, user_id)
            WHERE message_id IS NOT NULL AND closed_at IS NULL""",
)
"""Schema step 12: the message a DM carrying a player's turn controls went out as, and when it was edited to say
that the turn has passed (the open ones are found by game and person, whichever process sent them)."""

WEB_TABLES: Final = (
    """CREATE TABLE web_pages (
        game_id    INTEGER PRIMARY KEY REFERENCES games (id),
        token      TEXT NOT NULL UNIQUE,
        created_at REAL NOT NULL
    )""",
    """CREATE TABLE web_servers (
        guild_id   INTEGER PRIMARY KEY,
        shown      INTEGER NOT NULL,
        updated_at REAL NOT NULL
    )""",
    """CREATE TABLE web_revocations (
        user_id    INTEGER PRIMARY KEY,
        generation INTEGER NOT NULL
    )""",
)
"""Schema step 13: each game's web page (its random token, :mod:`bot.host.web`), the servers that keep their games off
the web, and how often each person's links to their own view were revoked (forget-me)."""
WAITS_FOR_COLUMN: Final = (
    "ALTER TABLE games ADD COLUMN waits_for TEXT",
    "CREATE INDEX games_waiting ON games (waits_for, id) WHERE status IN ('lobby', 'running')",
)
"""Schema step 14: whose move each open game waits for (``computer``, ``person``, ``nobody``; ``NULL``: stored before
this step), written with every change (:func:`bot.host.memory.waits_for`), so that start-up and the sweep find the games
that owe work without reading every game."""
SEAT_PEOPLE_FILL: Final = """INSERT INTO seat_people (user_id, game_id)
    SELECT DISTINCT json_extract(seat.value, '$.user_id'), games.id FROM games, json_each(games.seats) AS seat
    WHERE games.status IN ('lobby', 'running') AND json_extract(seat.value, '$.user_id') IS NOT NULL"""
PEOPLE_TABLES: Final = (
    """CREATE TABLE dm_channels (
        user_id    INTEGER PRIMARY KEY,
        channel_id INTEGER NOT NULL
    )""",
    """CREATE TABLE seat_people (
        user_id INTEGER NOT NULL,
        game_id INTEGER NOT NULL,
        PRIMARY KEY (user_id, game_id)
    ) WITHOUT ROWID""",
    "CREATE INDEX seat_people_of_game ON seat_people (game_id)",
    SEAT_PEOPLE_FILL,
)
"""Schema step 15: each person's DM channel with the bot (Discord's id for it never changes), so that a DM after a
start goes out in one request instead of first asking Discord for the channel again; and who sits in each open game
(written with its seats, :func:`bot.host.sql.games.seat_people`), so that a person's open games are found without
reading every open game (filled from the open games' seats)."""
GAME_DELIVERIES_INDEX: Final = "CREATE INDEX deliveries_of_game ON deliveries (game_id, id)"
"""Schema step 16: a game's deliveries by game, in order (its latest post, the message its latest delivery of a kind
went out as, all of them): each such read scanned the whole table before, every post and DM ever owed, and grew slower
with every move (at 10,000 open games, five minutes of moves tripled the bot's reading time)."""
GAME_NOTICES: Final = (
    """CREATE FUNCTION santacruz_game_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('santacruz_game', NEW.id::text);
            RETURN NULL;
        END $$""",
    """CREATE TRIGGER games_changed AFTER INSERT OR UPDATE ON games
        FOR EACH ROW EXECUTE FUNCTION santacruz_game_changed()""",
)
"""Schema step 13 on PostgreSQL alone: every write of a game notifies channel ``santacruz_game`` with its id when it
commits (whichever process wrote it), so that an open web page shows the move within a moment
(:meth:`bot.host.postgres_store.PostgresStore.listen_games`); SQLite has one process, whose pages poll."""


GAMES_COLUMNS: Final = """
            id               INTEGER PRIMARY KEY AUTOINCREMENT,
            channel_id       INTEGER NOT NULL,
            guild_id         INTEGER,
            opener_id        INTEGER NOT NULL,
            seats            TEXT NOT NULL,
            options          TEXT NOT NULL,
            seed             INTEGER NOT NULL,
            status           TEXT NOT NULL CHECK (status IN ({statuses})),
            locale           TEXT NOT NULL,
            created_at       REAL NOT NULL,
            updated_at       REAL NOT NULL,
            last_move_at     REAL,
            state            TEXT"""
"""The columns ``games`` was created with (step 0), ``{statuses}`` the statuses its CHECK allows."""
V4_COLUMNS: Final = """,
            next_reminder_at REAL,
            damage_reason    TEXT,
            damage_detail    TEXT,
            damage_told      INTEGER NOT NULL DEFAULT 0"""
"""The columns steps 1 and 4 added, in the order SQLite's rebuild of ``games`` (step 4) puts them."""
GAMES_INDEXES: Final = (
    """CREATE UNIQUE INDEX games_one_open_per_channel ON games (channel_id)
            WHERE status IN ('lobby', 'running')""",
    "CREATE INDEX games_by_channel ON games (channel_id, id)",
)
REMINDERS_INDEX: Final = "CREATE INDEX games_reminders ON games (next_reminder_at) WHERE next_reminder_at IS NOT NULL"


def games_table(name: str, statuses: tuple[str, ...], more: str = "") -> str:
    """``CREATE TABLE`` of ``games`` (as ``name``) with its first columns, the ``statuses`` its CHECK allows,
    and ``more`` columns."""
    allowed = ", ".join(f"'{status}'" for status in statuses)
    return f"CREATE TABLE {name} ({GAMES_COLUMNS.format(statuses=allowed)}{more}\n        )"


STEPS: Final[tuple[tuple[str, ...], ...]] = (
    # 0 -> 1: games and the move log
    (
        games_table("games", ("lobby", "running", "over", "abandoned")),
        *GAMES_INDEXES,
        """CREATE TABLE moves (
            game_id        INTEGER NOT NULL REFERENCES games (id),
            seq            INTEGER NOT NULL CHECK (seq >= 1),
            seat           INTEGER NOT NULL,
            user_id        INTEGER,
            move           TEXT NOT NULL,
            interaction_id INTEGER UNIQUE,
            created_at     REAL NOT NULL,
            PRIMARY KEY (game_id, seq)
        ) WITHOUT ROWID""",
    ),
    # 1 -> 2: turn reminders driven from the database
    (
        "ALTER TABLE games ADD COLUMN next_reminder_at REAL",
        REMINDERS_INDEX,
    ),
    # 2 -> 3: each user's language, for the DMs they get after a restart
    (
        """CREATE TABLE users (
            user_id    INTEGER PRIMARY KEY,
            locale     TEXT NOT NULL,
            updated_at REAL NOT NULL
        )""",
    ),
    # 3 -> 4: the deliveries each change owes (channel posts and DMs), written with the change
    (
        """CREATE TABLE deliveries (
            id         INTEGER PRIMARY KEY AUTOINCREMENT,
            game_id    INTEGER NOT NULL REFERENCES games (id),
            channel_id INTEGER NOT NULL,
            seq        INTEGER NOT NULL,
            kind       TEXT NOT NULL,
            user_id    INTEGER,
            payload    TEXT NOT NULL,
            created_at REAL NOT NULL,
            due_at     REAL NOT NULL,
            attempts   INTEGER NOT NULL DEFAULT 0,
            done_at    REAL,
            last_error TEXT
        )""",
        "CREATE INDEX deliveries_pending ON deliveries (channel_id, id) WHERE done_at IS NULL",
    ),
    # 4 -> 5: quarantine of a game whose rows cannot be played on (status 'damaged', why, channel told).
    # SQLite cannot alter a CHECK: the table is rebuilt (its migrate() turns foreign keys off meanwhile);
    # PostgreSQL alters it in place (:data:`POSTGRES_OVERRIDES`).
    (
        games_table("games_v4", ("lobby", "running", "over", "abandoned", "damaged"), V4_COLUMNS),
        """INSERT INTO games_v4 (id, channel_id, guild_id, opener_id, seats, options, seed, status, locale,
               created_at, updated_at, last_move_at, state, next_reminder_at)
           SELECT id, channel_id, guild_id, opener_id, seats, options, seed, status, locale,
               created_at, updated_at, last_move_at, state, next_reminder_at FROM games""",
        """UPDATE sqlite_sequence SET seq = (SELECT seq FROM sqlite_sequence WHERE name = 'games')
           WHERE name = 'games_v4' AND EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'games')""",
        "DROP TABLE games",
        "ALTER TABLE games_v4 RENAME TO games",
        *GAMES_INDEXES,
        REMINDERS_INDEX,
        "CREATE INDEX games_damaged_untold ON games (id) WHERE status = 'damaged' AND damage_told = 0",
    ),
    # 5 -> 6: the archive of finished games: where each game-over message is, and a server's games newest first
    (
        "ALTER TABLE games ADD COLUMN over_message_id INTEGER",
        "CREATE INDEX games_finished_by_guild ON games (guild_id, id) WHERE status = 'over'",
    ),
    # 6 -> 7: players' history: results of finished games, ratings and their history, standings
    HISTORY_TABLES,
    # 7 -> 8: several processes over one database: a game's version (every write bumps it), timers, leases
    SHARED_TABLES,
    # 8 -> 9: each person's own settings (time zone, quiet hours, reminders, turn DMs), and their held DMs
    (*USER_SETTINGS_TABLE, HELD_INDEX),
    # 9 -> 10: where a game's last post is (the link of /santacruz games)
    (LAST_POST_COLUMN,),
    # 10 -> 11: how long each person took for each turn they ended themselves; a game in a thread of its own
    (*TURN_TIMES_TABLE, *THREAD_GAMES),
    # 11 -> 12: the message each turn DM went out as, and whether it was told that its turn passed
    TURN_DM_MESSAGES,
    # 12 -> 13: the games' web pages, the servers that keep theirs off the web, revoked links to a player's view
    WEB_TABLES,
    # 13 -> 14: whose move each game waits for, so that start-up reads only the games that owe work
    WAITS_FOR_COLUMN,
    # 14 -> 15: each person's DM channel and the open games each person sits in
    PEOPLE_TABLES,
    # 15 -> 16: a game's deliveries found by game
    (GAME_DELIVERIES_INDEX,),
)
SCHEMA_VERSION: Final = len(STEPS)

NARROW: Final = frozenset({"seq", "seat", "attempts"})
"""Columns of steps 0-5 that PostgreSQL keeps as 32-bit ``INTEGER`` (the later steps widen every integer)."""
_NARROW_UNTIL: Final = 6

POSTGRES_OVERRIDES: Final[dict[int, tuple[str, ...]]] = {
    4: (
        "ALTER TABLE games DROP CONSTRAINT games_status_check",
        """ALTER TABLE games ADD CONSTRAINT games_status_check
            CHECK (status IN ('lobby', 'running', 'over', 'abandoned', 'damaged'))""",
        "ALTER TABLE games ADD COLUMN damage_reason TEXT",
        "ALTER TABLE games ADD COLUMN damage_detail TEXT",
        "ALTER TABLE games ADD COLUMN damage_told INTEGER NOT NULL DEFAULT 0",
        "CREATE INDEX games_damaged_untold ON games (id) WHERE status = 'damaged' AND damage_told = 0",
    ),
}
"""Steps PostgreSQL takes in words of its own (already in its dialect)."""
POSTGRES_EXTRAS: Final[dict[int, tuple[str, ...]]] = {12: GAME_NOTICES}
"""What PostgreSQL adds to a step after it (already in its dialect): what SQLite has no use for."""
POSTGRES_WORDS: Final[dict[str, str]] = {
    SEAT_PEOPLE_FILL: """INSERT INTO seat_people (user_id, game_id)
    SELECT DISTINCT (seat ->> 'user_id')::BIGINT, games.id FROM games, jsonb_array_elements(games.seats::jsonb) AS seat
    WHERE games.status IN ('lobby', 'running') AND seat ->> 'user_id' IS NOT NULL""",
}
"""A statement whose PostgreSQL words the dialect step cannot make (SQLite's JSON functions), by its SQLite words."""

_NARROW_COLUMN: Final = re.compile(rf"^(\s*(?:{'|'.join(sorted(NARROW))})\s+)INTEGER\b", re.M)


def to_postgres(sql: str, *, narrow: bool = False) -> str:
    """A schema statement in PostgreSQL's words; ``narrow``: the :data:`NARROW` columns stay 32-bit."""
    sql = sql.replace("INTEGER PRIMARY KEY AUTOINCREMENT", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")
    sql = sql.replace(" WITHOUT ROWID", "")
    if narrow:
        sql = _NARROW_COLUMN.sub(r"\1INT4", sql)
    sql = re.sub(r"\bREAL\b", "DOUBLE PRECISION", re.sub(r"\bINTEGER\b", "BIGINT", sql))
    return sql.replace("INT4", "INTEGER")


MIGRATIONS: Final = STEPS
"""The steps on SQLite (its own words)."""
PG_MIGRATIONS: Final[tuple[tuple[str, ...], ...]] = tuple(
    POSTGRES_OVERRIDES.get(step)
    or (*(POSTGRES_WORDS.get(sql) or to_postgres(sql, narrow=step < _NARROW_UNTIL) for sql in statements),
        *POSTGRES_EXTRAS.get(step, ()))
    for step, statements in enumerate(STEPS))
"""The same steps on PostgreSQL."""
