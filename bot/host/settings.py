"""The bot's settings: one frozen dataclass read from the environment or a ``.env`` file.

``Settings.load()`` reads ``.env`` (if present) and then the process environment, which wins.
``.env`` is read with python-dotenv's parser (the usual syntax: comments, ``export``, quotes)::

    # a comment
    KEY=value
    export KEY="value with spaces"   # quotes are removed; a comment after a space is dropped
    KEY='single-quoted # not a comment'

Every setting is listed with a comment in ``.env.example``. A bad value raises
:class:`SettingsError` naming the variable, so the bot stops at start-up instead of misbehaving later.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Final

from dotenv.parser import parse_stream

from engine.ai import OFFERED
from i18n import LOCALES
from render.theme import DEFAULT_THEME, WIDTHS

AI_STRENGTHS: Final = OFFERED
LOG_LEVELS: Final = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOG_FORMATS: Final = ("text", "json")
_POSITIVE_NUMBERS: Final = ("reminder_hours", "away_hours", "ai_seconds", "hint_seconds", "busy_timeout",
                            "retry_seconds", "sweep_seconds", "lease_seconds", "lobby_days", "stale_days",
                            "shutdown_grace", "game_memory_minutes")


WEB_SECRET_MIN: Final = 32
"""The fewest characters ``WEB_SECRET`` may have (a guessable key would let anyone sign a link to a player's cards)."""
_SECRET: Final = ("discord_token", "database_url", "web_secret")
"""Settings never shown (a URL may carry a password)."""


class SettingsError(ValueError):
    """A setting has a value the bot cannot use; the message names the variable."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the bot reads from its environment. Field ``x`` comes from variable ``X``."""

    discord_token: str = ""
    """DISCORD_TOKEN: the bot's token (secret; only ``bot.adapter.main`` needs it)."""
    database_path: str = "santacruz.db"
    """DATABASE_PATH: the SQLite file holding games and moves (used unless DATABASE_URL is set)."""
    database_url: str = ""
    """DATABASE_URL: ``postgresql://user:password@host:port/database`` to keep everything in PostgreSQL
    (secret, since it may carry a password); empty: the SQLite file."""
    shard_count: int | None = None
    """SHARD_COUNT: how many gateway shards the whole bot runs (all processes together); empty: no sharding."""
    shard_ids: tuple[int, ...] = ()
    """SHARD_IDS: the shards this process runs, e.g. ``0,1`` (needs SHARD_COUNT); empty with SHARD_COUNT: all."""
    dev_guild_id: int | None = None
    """DEV_GUILD_ID: a server to sync slash commands to at once while developing (empty: global sync)."""
    log_level: str = "INFO"
    """LOG_LEVEL: DEBUG, INFO, WARNING, ERROR or CRITICAL."""
    log_format: str = "text"
    """LOG_FORMAT: ``text`` (a line of words) or ``json`` (one JSON object per line, for a log collector)."""
    http_port: int | None = None
    """HTTP_PORT: the port of the health and metrics server (``/healthz``, ``/readyz``, ``/metrics``); empty: none."""
    http_host: str = "127.0.0.1"
    """HTTP_HOST: the address that server listens on (``0.0.0.0`` in a container)."""
    shutdown_grace: float = 10.0
    """SHUTDOWN_GRACE: seconds a stop (SIGTERM, SIGINT) gives the posts and DMs already owed to go out."""
    reminder_hours: float = 12.0
    """REMINDER_HOURS: how long a player may take before a DM reminds them (at most one a day)."""
    away_hours: float = 48.0
    """AWAY_HOURS: after this long without a move, the opener may hand a seat to the computer."""
    ai_strength: str = "greedy"
    """AI_STRENGTH: default strength of computer seats and of away or late players' stand-ins: one of
    :data:`AI_STRENGTHS` (``engine.ai.OFFERED``: random, greedy, expert or master)."""
    ai_seconds: float = 1.0
    """AI_SECONDS: thinking time budget of a computer player per move."""
    hint_seconds: float = 3.0
    """HINT_SECONDS: how long the coach thinks about a hint (``/santacruz hint``), its explanations included."""
    default_locale: str = "en"
    """DEFAULT_LOCALE: language of a new game when none is chosen: en, de or fr."""
    busy_timeout: float = 5.0
    """BUSY_TIMEOUT: seconds a write waits for another process's lock on the database before it fails (on
    PostgreSQL each statement's ``lock_timeout`` and ``statement_timeout``)."""
    retry_seconds: float = 1.0
    """RETRY_SECONDS: wait before a failed computer move is tried again (doubling each time, up to SWEEP_SECONDS)."""
    sweep_seconds: float = 60.0
    """SWEEP_SECONDS: how often due work is looked for: turn reminders, computers to move whose task ended."""
    lease_seconds: float = 30.0
    """LEASE_SECONDS: with a shared database (PostgreSQL), how long a process holds a channel's posts (renewed with
    each one) and, twice as long, its computers: a process that died holding them is relieved after that."""
    global_rate_limit: int = 50
    """GLOBAL_RATE_LIMIT: requests per second Discord allows the whole bot (every process together; 50 unless Discord
    raised it for this bot). The bot meters its requests under it, with PostgreSQL the processes together
    (:mod:`bot.host.rate_budget`)."""

    games_in_memory: int = 1000
    """GAMES_IN_MEMORY: the most games one process holds in memory; past it, the least recently touched leave (and
    are read again from the database when next touched). About 90 KB each for a running game."""
    game_memory_minutes: float = 30.0
    """GAME_MEMORY_MINUTES: how long a game nobody touched (no command, click, timer, post) stays in memory."""

    lobby_days: float = 7.0
    """LOBBY_DAYS: a lobby not started within this many days closes itself (with a message in its channel)."""
    stale_days: float = 14.0
    """STALE_DAYS: a running game without a move for this many days is announced to its players with a "Keep it
    open" button, and abandoned (not rated) three days later if nobody seated presses it."""
    picture_width: int = DEFAULT_THEME.width
    """PICTURE_WIDTH: the width in pixels of the board pictures (``render.theme.WIDTHS`` gives the range); narrower
    pictures are smaller to send and quicker to draw, wider ones sharper on large screens."""
    web_port: int | None = None
    """WEB_PORT: the port of the games' web pages (``/g/<token>``, :mod:`bot.web`); empty: this process serves none."""
    web_host: str = "127.0.0.1"
    """WEB_HOST: the address the web pages' server listens on (``0.0.0.0`` in a container, behind a reverse proxy)."""
    public_url: str = ""
    """PUBLIC_URL: the address players reach the web pages at (``https://santacruz.example.org``, the reverse proxy's);
    empty: ``http://WEB_HOST:WEB_PORT``. Set it in every process that posts (the links), even one serving no pages."""
    web_secret: str = ""
    """WEB_SECRET: the key that signs each player's link to their own view (secret; at least
    :data:`WEB_SECRET_MIN` characters); empty: the turn DMs carry no such link."""

    def __post_init__(self) -> None:
        if self.log_format not in LOG_FORMATS:
            raise SettingsError(f"LOG_FORMAT must be one of {', '.join(LOG_FORMATS)}, not {self.log_format!r}")
        if self.http_port is not None and not 1 <= self.http_port <= 65535:
            raise SettingsError("HTTP_PORT must be a port number from 1 to 65535")
        if self.log_level not in LOG_LEVELS:
            raise SettingsError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {self.log_level!r}")
        if self.ai_strength not in AI_STRENGTHS:
            raise SettingsError(f"AI_STRENGTH must be one of {', '.join(AI_STRENGTHS)}, not {self.ai_strength!r}")
        if self.default_locale not in LOCALES:
            raise SettingsError(f"DEFAULT_LOCALE must be one of {', '.join(LOCALES)}, not {self.default_locale!r}")
        for name in _POSITIVE_NUMBERS:
            if not getattr(self, name) > 0:
                raise SettingsError(f"{name.upper()} must be a number greater than 0")
        if self.games_in_memory < 1:
            raise SettingsError("GAMES_IN_MEMORY must be at least 1")
        if not WIDTHS[0] <= self.picture_width <= WIDTHS[1]:
            raise SettingsError(f"PICTURE_WIDTH must be a whole number from {WIDTHS[0]} to {WIDTHS[1]}")
        self._check_web()
        if self.global_rate_limit < 1:
            raise SettingsError("GLOBAL_RATE_LIMIT must be at least 1 (requests per second)")
        if not self.database_path:
            raise SettingsError("DATABASE_PATH must not be empty")
        if self.database_url and not self.database_url.startswith(("postgresql://", "postgres://")):
            raise SettingsError("DATABASE_URL must start with postgresql:// (or be empty for the SQLite file)")
        if self.shard_ids and self.shard_count is None:
            raise SettingsError("SHARD_IDS needs SHARD_COUNT (how many shards the whole bot runs)")
        if self.shard_count is not None:
            if self.shard_count < 1:
                raise SettingsError("SHARD_COUNT must be at least 1")
            bad = [i for i in self.shard_ids if not 0 <= i < self.shard_count]
            if bad or len(set(self.shard_ids)) != len(self.shard_ids):
                raise SettingsError(f"SHARD_IDS must be distinct numbers from 0 to {self.shard_count - 1}")

    def _check_web(self) -> None:
        if self.web_port is not None and not 1 <= self.web_port <= 65535:
            raise SettingsError("WEB_PORT must be a port number from 1 to 65535")
        if self.web_port is not None and self.web_port == self.http_port:
            raise SettingsError("WEB_PORT must differ from HTTP_PORT: /metrics stays on the private health port")
        if self.public_url and not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", self.public_url):
            raise SettingsError("PUBLIC_URL must be an http:// or https:// address without ? or #, e.g. "
                                f"https://santacruz.example.org, not {self.public_url!r}")
        if self.web_secret and len(self.web_secret) < WEB_SECRET_MIN:
            raise SettingsError(f"WEB_SECRET must be at least {WEB_SECRET_MIN} characters (e.g. the output of "
                                "python3 -c 'import secrets; print(secrets.token_urlsafe(32))')")

    @property
    def web_url(self) -> str:
        """Where players reach the web pages, without a trailing slash: ``PUBLIC_URL``, else this process's own
        server (on 127.0.0.1 when it listens on every address: only this machine reaches it then); "" when neither
        is set (the games are on no web page, the posts carry no link)."""
        if self.public_url:
            return self.public_url.rstrip("/")
        if self.web_port is not None:
            host = "127.0.0.1" if self.web_host in ("0.0.0.0", "::", "") else self.web_host
            return f"http://[{host}]:{self.web_port}" if ":" in host else f"http://{host}:{self.web_port}"
        return ""

    @classmethod
    def from_mapping(cls, values: Mapping[str, str]) -> Settings:
        """Settings from ``NAME -> text`` (unknown names are ignored, missing ones keep their default)."""
        kwargs: dict[str, object] = {}
        for f in fields(cls):
            raw = values.get(f.name.upper())
            if raw is None or raw.strip() == "":
                continue
            raw = raw.strip()
            kwargs[f.name] = _convert(f.name, raw)
        return cls(**kwargs)  # type: ignore[arg-type]  # _convert gave each value its field's type

    @classmethod
    def load(cls, env_file: str | Path | None = ".env", environ: Mapping[str, str] | None = None) -> Settings:
        """Settings from ``env_file`` (skipped if missing or ``None``) overridden by ``environ``
        (default: ``os.environ``)."""
        values: dict[str, str] = {}
        if env_file is not None and Path(env_file).is_file():
            values.update(read_env_file(env_file))
        values.update(os.environ if environ is None else environ)
        return cls.from_mapping(values)

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{f.name}={'***' if f.name in _SECRET and getattr(self, f.name) else getattr(self, f.name)!r}"
            for f in fields(self)
        )
        return f"Settings({shown})"


_WHOLE_NUMBERS: Final = {"dev_guild_id": "a server id (digits only)", "shard_count": "a whole number",
                         "picture_width": "a whole number", "http_port": "a port number", "web_port": "a port number",
                         "global_rate_limit": "a whole number",
                         "games_in_memory": "a whole number"}
"""The settings read as whole numbers, with what their refusal says each must be."""


def _convert(name: str, raw: str) -> object:
    if name in _WHOLE_NUMBERS:
        if not (raw.isascii() and raw.isdigit()):
            raise SettingsError(f"{name.upper()} must be {_WHOLE_NUMBERS[name]}, not {raw!r}")
        return int(raw)
    if name == "shard_ids":
        parts = [part.strip() for part in raw.split(",")]
        if not all(part.isascii() and part.isdigit() for part in parts):
            raise SettingsError(f"SHARD_IDS must be shard numbers separated by commas (e.g. 0,1), not {raw!r}")
        return tuple(int(part) for part in parts)
    if name in _POSITIVE_NUMBERS:
        try:
            return float(raw)
        except ValueError:
            raise SettingsError(f"{name.upper()} must be a number, not {raw!r}") from None
    if name == "log_level":
        return raw.upper()
    if name in ("ai_strength", "default_locale", "log_format"):
        return raw.lower()
    return raw


def parse_env(text: str) -> dict[str, str]:
    """The ``KEY=value`` pairs of a ``.env`` text (python-dotenv's syntax); a line it cannot read is a
    :class:`SettingsError` naming the line, rather than a setting silently left out."""
    values: dict[str, str] = {}
    for binding in parse_stream(io.StringIO(text)):
        if binding.error:
            line = binding.original.line
            said = binding.original.string.strip()
            if "=" in said and said.partition("=")[2].strip()[:1] in ("'", '"'):
                raise SettingsError(f".env line {line}: the quote after {said.partition('=')[0].strip()}= is not "
                                    "closed")
            raise SettingsError(f".env line {line}: expected KEY=value")
        if binding.key is not None:
            values[binding.key] = binding.value or ""
    return values


def read_env_file(path: str | Path) -> dict[str, str]:
    """The settings written in a ``.env`` file."""
    return parse_env(Path(path).read_text(encoding="utf-8"))
