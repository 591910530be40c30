"""Logs never carry a seed, a hand, a deck, a face-down tile or a token, even at ``LOG_LEVEL=DEBUG``.

A whole game is played through the fake Discord with logging set up as ``santacruz-bot`` does it
(:func:`bot.host.logs.setup_logging` at DEBUG), then the whole log is searched for every secret the game
had: the seed's digits, each serialized state and its deck, hands and face-down tiles, every line of every
DM (where the hands are), every interaction token and the bot's token. Unit tests show that the search
finds a planted secret and that the formatter blanks tokens in URLs.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import pytest_asyncio

from bot.host.logs import HIDDEN, LIBRARY_LOGGERS, RedactingFormatter, setup_logging
from bot.host.settings import Settings
from tests.adapter.conftest import Driver
from tests.fakediscord import FakeDiscord

SEED = 73_085_126_491
"""Distinctive digits, so that finding them in the log means the seed leaked."""
SECRET_KEYS = ("seed", "deck", "hand_scoring", "tile_at", "chips")
"""The parts of a game's state that are secret (the deck order, hands, face-down tiles, bird chips)."""


@pytest.fixture
def debug_log() -> Iterator[io.StringIO]:
    """Logging as ``santacruz-bot`` sets it up at ``LOG_LEVEL=DEBUG``, into a string; restored afterwards."""
    names = ("", *LIBRARY_LOGGERS)
    levels = {name: logging.getLogger(name).level for name in names}
    stream = io.StringIO()
    handler = setup_logging("DEBUG", stream=stream, secrets=["fake-bot-token"])
    try:
        yield stream
    finally:
        logging.getLogger().removeHandler(handler)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


@pytest_asyncio.fixture
async def driver(debug_log: io.StringIO, fake_discord: FakeDiscord, settings: Settings) -> AsyncIterator[Driver]:
    """A bot started after logging was set up, so that its whole life is in the log."""
    assert fake_discord.token == "fake-bot-token"
    d = Driver(fake_discord, settings, channel="games", seed=SEED)
    await d.start()
    try:
        yield d
    finally:
        await d.stop()


def variants(secret: str) -> set[str]:
    """The ways a string can be written into a log line: as is, JSON-escaped, in a Python repr."""
    return {secret, json.dumps(secret)[1:-1], repr(secret)[1:-1]}


def leaks(log: str, secrets: dict[str, str]) -> list[str]:
    """The names of the ``secrets`` (name -> text) found in ``log``."""
    return [name for name, secret in secrets.items() if any(v in log for v in variants(secret))]


def state_secrets(state: str, label: str) -> dict[str, str]:
    """The whole serialized state and each of its secret parts exactly as the state JSON writes them."""
    data = json.loads(state)
    found = {f"{label} state": state}
    for key in SECRET_KEYS:
        if data.get(key):
            found[f"{label} {key}"] = f'"{key}":' + json.dumps(data[key], separators=(",", ":"), sort_keys=True)
    return found


def dm_secrets(fake: FakeDiscord, users: list[str]) -> dict[str, str]:
    """Every line of every DM (hands, chips, turn prompts) long enough not to occur by chance."""
    found: dict[str, str] = {}
    for user in users:
        for message in fake.dm_messages(user):
            for number, line in enumerate(message.text.splitlines()):
                if len(line.strip()) >= 12:
                    found[f"DM {message.id} line {number} to {user}"] = line.strip()
    return found


async def test_a_whole_game_at_debug_logs_no_secret(driver: Driver, debug_log: io.StringIO) -> None:
    players = ["alice", "bob"]
    states: dict[str, str] = {}

    def remember_state(label: str) -> None:
        game = driver.host._tables[driver.channel.id].current_game()  # a finished game is kept packed
        states[label] = game.to_json()

    await driver.open_game(players)
    await driver.settle()
    assert driver.host._tables[driver.channel.id].game.seed == SEED
    remember_state("start")
    turns = 0
    while driver.info().status == "running":
        await driver.play_turn("dm" if turns % 2 else "slash")
        turns += 1
        await driver.settle()
        remember_state(f"after move {turns}")
    await driver.answer(await driver.slash("status", user="alice"))
    await driver.stop()

    log = debug_log.getvalue()
    assert "bot.host.host: loaded 0 open games" in log, "the log was captured"
    assert "discord.client" in log and "logging in using static token" in log, "discord.py's INFO lines reach it"
    secrets: dict[str, str] = {"seed": str(SEED), "bot token": driver.fake.token}
    for label, state in states.items():
        secrets.update(state_secrets(state, label))
    secrets.update(dm_secrets(driver.fake, players))
    tokens = {f"token of interaction {i}": h.token for i, h in driver.fake.interactions.items()}
    assert len(tokens) > turns and len(secrets) > 4 * turns
    secrets.update(tokens)
    assert leaks(log, secrets) == []


def test_the_search_finds_what_debug_logging_would_write() -> None:
    """The check above can fail: what aiosqlite and discord.py print at DEBUG is found."""
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
