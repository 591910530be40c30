"""The bot's settings: one frozen dataclass read from the environment or a ``.env`` file.

``Settings.load()`` reads ``.env`` (if present) and then the process environment, which wins.
The ``.env`` parser is deliberately small (no extra dependency)::

    # a comment
    KEY=value
    export KEY="value with spaces"   # quotes are removed; a comment after a space is dropped
    KEY='single-quoted # not a comment'

Every setting is listed with a comment in ``.env.example``. A bad value raises
:class:`SettingsError` naming the variable, so the bot stops at start-up instead of misbehaving later.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Final

from i18n import LOCALES

AI_STRENGTHS: Final = ("random", "greedy", "expert")
LOG_LEVELS: Final = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
_POSITIVE_NUMBERS: Final = ("reminder_hours", "away_hours", "ai_seconds", "busy_timeout", "retry_seconds",
                            "sweep_seconds")


class SettingsError(ValueError):
    """A setting has a value the bot cannot use; the message names the variable."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the bot reads from its environment. Field ``x`` comes from variable ``X``."""

    discord_token: str = ""
    """DISCORD_TOKEN: the bot's token (secret; only ``bot/main.py`` needs it)."""
    database_path: str = "santacruz.db"
    """DATABASE_PATH: the SQLite file holding games and moves."""
    dev_guild_id: int | None = None
    """DEV_GUILD_ID: a server to sync slash commands to at once while developing (empty: global sync)."""
    log_level: str = "INFO"
    """LOG_LEVEL: DEBUG, INFO, WARNING, ERROR or CRITICAL."""
    reminder_hours: float = 12.0
    """REMINDER_HOURS: how long a player may take before a DM reminds them (at most one a day)."""
    away_hours: float = 48.0
    """AWAY_HOURS: after this long without a move, the opener may hand a seat to the computer."""
    ai_strength: str = "greedy"
    """AI_STRENGTH: default strength of computer seats: random, greedy or expert."""
    ai_seconds: float = 1.0
    """AI_SECONDS: thinking time budget of a computer player per move."""
    default_locale: str = "en"
    """DEFAULT_LOCALE: language of a new game when none is chosen: en, de or fr."""
    busy_timeout: float = 5.0
    """BUSY_TIMEOUT: seconds a write waits for another process's lock on the database before it fails."""
    retry_seconds: float = 1.0
    """RETRY_SECONDS: wait before a failed computer move is tried again (doubling each time, up to SWEEP_SECONDS)."""
    sweep_seconds: float = 60.0
    """SWEEP_SECONDS: how often due work is looked for: turn reminders, computers to move whose task ended."""

    def __post_init__(self) -> None:
        if self.log_level not in LOG_LEVELS:
            raise SettingsError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {self.log_level!r}")
        if self.ai_strength not in AI_STRENGTHS:
            raise SettingsError(f"AI_STRENGTH must be one of {', '.join(AI_STRENGTHS)}, not {self.ai_strength!r}")
        if self.default_locale not in LOCALES:
            raise SettingsError(f"DEFAULT_LOCALE must be one of {', '.join(LOCALES)}, not {self.default_locale!r}")
        for name in _POSITIVE_NUMBERS:
            if not getattr(self, name) > 0:
                raise SettingsError(f"{name.upper()} must be a number greater than 0")
        if not self.database_path:
            raise SettingsError("DATABASE_PATH must not be empty")

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
            f"{f.name}={'***' if f.name == 'discord_token' and self.discord_token else getattr(self, f.name)!r}"
            for f in fields(self)
        )
        return f"Settings({shown})"


def _convert(name: str, raw: str) -> object:
    if name == "dev_guild_id":
        if not (raw.isascii() and raw.isdigit()):
            raise SettingsError(f"DEV_GUILD_ID must be a server id (digits only), not {raw!r}")
        return int(raw)
    if name in _POSITIVE_NUMBERS:
        try:
            return float(raw)
        except ValueError:
            raise SettingsError(f"{name.upper()} must be a number, not {raw!r}") from None
    if name == "log_level":
        return raw.upper()
    if name in ("ai_strength", "default_locale"):
        return raw.lower()
    return raw


def parse_env(text: str) -> dict[str, str]:
    """The ``KEY=value`` pairs of a ``.env`` text (see the module docstring for the syntax)."""
    values: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export "):].lstrip()
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not key.replace("_", "").isalnum():
            raise SettingsError(f".env line {number}: expected KEY=value")
        value = value.strip()
        if value[:1] in ("'", '"'):
            quote = value[0]
            end = value.find(quote, 1)
            if end < 0:
                raise SettingsError(f".env line {number}: the quote after {key}= is not closed")
            value = value[1:end]
        else:
            hash_at = value.find(" #")
            if hash_at >= 0:
                value = value[:hash_at].rstrip()
        values[key] = value
    return values


def read_env_file(path: str | Path) -> dict[str, str]:
    """The settings written in a ``.env`` file."""
    return parse_env(Path(path).read_text(encoding="utf-8"))
