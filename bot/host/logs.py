"""The bot's logging: one handler on the root logger, and nothing secret in what it writes.

Logs never carry a seed, a hand, a deck, a face-down tile or a token, at any ``LOG_LEVEL``. The bot's own
loggers say only ids, counts and statuses; two libraries say more at DEBUG: aiosqlite logs every SQL call
with its parameters (a game's seed, its whole state with the deck), discord.py logs every request and
answer with its body (a DM with a hand) and its URL (an interaction's token). So :func:`setup_logging`
keeps :data:`LIBRARY_LOGGERS` at INFO or above whatever the level, and :class:`RedactingFormatter` blanks
interaction and webhook tokens in URLs and any given secret (the bot's token) in every line it writes, a
traceback included (a rate-limit warning names the URL it retries).

With ``LOG_FORMAT=json`` each record is one JSON object on one line (:class:`JsonFormatter`): ``time`` (UTC,
ISO 8601), ``level``, ``logger``, ``message`` (a traceback in ``exception``), ``game`` (the game id a message names as
``game N``, the bot's own way of naming one) and ``shard`` (this process's shards), blanked the same way.

Logger names are plain strings here: nothing under ``bot/host`` imports discord.py.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Final, TextIO

LIBRARY_LOGGERS: Final = ("aiosqlite", "discord", "aiohttp", "asyncio", "PIL")
"""Third-party loggers that never go below INFO: at DEBUG they print SQL parameters and request bodies."""
LIBRARY_FLOOR: Final = logging.INFO
FORMAT: Final = "%(asctime)s %(levelname)-8s %(name)s: %(message)s"
HIDDEN: Final = "***"

_TOKEN_URLS: Final = re.compile(r"(/(?:webhooks|interactions)/\d+/)[^/\s'\"?]+")
"""An interaction's or webhook's token in a URL: ``/webhooks/<application>/<token>``,
``/interactions/<id>/<token>/callback``."""


class RedactingFormatter(logging.Formatter):
    """A formatter that blanks tokens in URLs and the given ``secrets`` in the whole formatted record."""

    def __init__(self, fmt: str = FORMAT, secrets: Iterable[str] = ()) -> None:
        super().__init__(fmt)
        self.secrets = [s for s in secrets if s and s.strip()]

    def format(self, record: logging.LogRecord) -> str:
        return self.redact(super().format(record))

    def redact(self, text: str) -> str:
        text = _TOKEN_URLS.sub(rf"\g<1>{HIDDEN}", text)
        for secret in self.secrets:
            text = text.replace(secret, HIDDEN)
        return text


class JsonFormatter(RedactingFormatter):
    """One JSON object per record, on one line, with the same blanking (see the module docstring)."""

    def __init__(self, secrets: Iterable[str] = (), shard: str | None = None) -> None:
        super().__init__(FORMAT, secrets)
        self.shard = shard

    def format(self, record: logging.LogRecord) -> str:
        message = self.redact(record.getMessage())
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname, "logger": record.name, "message": message}
        game = _GAME.search(message)
        if game is not None:
            line["game"] = int(game.group(1))
        if self.shard is not None:
            line["shard"] = self.shard
        if record.exc_info:
            line["exception"] = self.redact(self.formatException(record.exc_info))
        return json.dumps(line, ensure_ascii=False)


_GAME: Final = re.compile(r"game (\d+)\b")
"""How the bot's own log lines name a game (``game 12: ...``)."""


def library_level(level: int) -> int:
    """The level of a third-party logger when the bot logs at ``level``: never below INFO."""
    return max(level, LIBRARY_FLOOR)


def setup_logging(level: int | str, *, stream: TextIO | None = None, secrets: Iterable[str] = (),
                  json_lines: bool = False, shard: str | None = None) -> logging.Handler:
    """Log at ``level`` (a number or a name such as ``"DEBUG"``) to ``stream`` (default: stderr), third-party
    loggers at INFO at least, ``secrets`` blanked, as text or (``json_lines``) one JSON object per line naming
    ``shard``; returns the handler added to the root logger."""
    number = logging.getLevelName(level.upper()) if isinstance(level, str) else level
    if not isinstance(number, int):
        raise ValueError(f"unknown log level {level!r}")
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(JsonFormatter(secrets, shard) if json_lines else RedactingFormatter(FORMAT, secrets))
    root = logging.getLogger()
    root.setLevel(number)
    root.addHandler(handler)
    for name in LIBRARY_LOGGERS:
        logging.getLogger(name).setLevel(library_level(number))
    return handler
