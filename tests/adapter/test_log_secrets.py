"""Logs never carry a seed, a hand, a deck, a face-down tile or a token, even at ``LOG_LEVEL=DEBUG``.

The three-player whole game of ``test_bot_game`` is played with logging set up as ``santacruz-bot`` does it
(:func:`bot.host.logs.setup_logging` at DEBUG, the ``debug_log`` fixture), then the whole log is searched with
:func:`tests.helpers.secrets.log_leaks` for every secret the game had: the seed's digits, each serialized state and
its deck, hands and face-down tiles, every line of every DM (where the hands are), every interaction token and the
bot's token. The unit tests here show that the search finds a planted secret and that the formatter blanks tokens in
URLs.
"""

from __future__ import annotations

import io
import json
import logging
from typing import Any

from bot.host.logs import HIDDEN, RedactingFormatter
from tests.helpers.secrets import SEED, leaks, state_secrets


def test_the_search_finds_what_debug_logging_would_write() -> None:
    """The search can fail: what aiosqlite and discord.py print at DEBUG is found."""
    state = json.dumps({"seed": SEED, "deck": ["gold6", "birds"], "tile_at": [3, 1], "hand_scoring": [["coast"]]},
                       separators=(",", ":"), sort_keys=True)
    secrets = {**state_secrets(state, "s"), "dm": "Scoring cards: Coast – 2 points per building on the coast"}
    sql_line = f"executing functools.partial(<built-in method execute>, 'UPDATE games SET state = ?', ({state!r},))"
    http_line = 'POST /channels/1/messages with {"content":"Scoring cards: Coast \\u2013 2 points per building ' \
                'on the coast"} has returned 200'
    assert sorted(leaks(sql_line, secrets)) == sorted(name for name in secrets if name != "dm")
    assert leaks(http_line, secrets) == ["dm"]


def test_third_party_loggers_stay_at_info_while_the_bot_logs_debug(debug_log: io.StringIO) -> None:
    for name in ("aiosqlite", "discord.http", "discord.gateway", "discord.webhook.async_"):
        assert not logging.getLogger(name).isEnabledFor(logging.DEBUG), name
        assert logging.getLogger(name).isEnabledFor(logging.INFO), name
    assert logging.getLogger("bot.host.host").isEnabledFor(logging.DEBUG)
    logging.getLogger("aiosqlite").debug("executing UPDATE games SET seed = %d", SEED)
    logging.getLogger("bot.adapter.cog").debug("a debug line of the bot")
    assert str(SEED) not in debug_log.getvalue() and "a debug line of the bot" in debug_log.getvalue()


def test_tokens_in_urls_and_given_secrets_are_blanked() -> None:
    formatter = RedactingFormatter(secrets=["my-bot-token"])
    lines: dict[str, Any] = {
        "We are being rate limited. POST https://discord.com/api/v10/interactions/123/aW50ZXJhY3Rpb24.x-y/callback":
            "/interactions/123/" + HIDDEN + "/callback",
        "PATCH https://discord.com/api/v10/webhooks/456/aW50ZXJhY3Rpb24-tok_en/messages/@original responded 429":
            "/webhooks/456/" + HIDDEN + "/messages/@original",
        "Authorization: Bot my-bot-token": "Authorization: Bot " + HIDDEN,
    }
    for line, expected in lines.items():
        record = logging.LogRecord("discord.http", logging.WARNING, __file__, 1, "%s", (line,), None)
        text = formatter.format(record)
        assert expected in text, text
        assert "aW50ZXJhY3Rpb24" not in text and "my-bot-token" not in text
