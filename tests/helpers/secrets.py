"""The search of a log for a game's secrets (its seed, each serialized state with its deck, hands and face-down
tiles, every line of every DM, every interaction token, the bot's token), in every way a log line can write them; and
the scoring cards whose names give a hidden hand away wherever they appear (a message, a page)."""

from __future__ import annotations

import json

from tests.fakediscord import FakeDiscord
from tests.helpers.driver import Driver

SEED = 73_085_126_491
"""Distinctive digits, so that finding them in the log means the seed leaked."""
SECRET_KEYS = ("seed", "deck", "hand_scoring", "tile_at", "chips")
"""The parts of a game's state that are secret (the deck order, hands, face-down tiles, bird chips)."""
DISTINCT_CARDS = ("gold6", "gold10", "fish-sheep", "wood-sugar", "houses", "trio", "connected", "eruption")
"""Scoring cards whose names appear in no other text, so a name in a message means the card was shown."""


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


def log_leaks(log: str, driver: Driver, states: dict[str, str], players: list[str], turns: int) -> list[str]:
    """The secrets of a whole game of ``turns`` turns (its serialized ``states`` by label, the DMs of ``players``, the
    interaction tokens, the seed :data:`SEED` and the bot's token) that ``log`` shows, after checking that the log
    is the bot's whole life at DEBUG and that the secrets searched for are many."""
    assert "bot.host.host: loaded the 0 open games that owe work" in log, "the log was captured"
    assert "discord.client" in log and "logging in using static token" in log, "discord.py's INFO lines reach it"
    secrets: dict[str, str] = {"seed": str(SEED), "bot token": driver.fake.token}
    for label, state in states.items():
        secrets.update(state_secrets(state, label))
    secrets.update(dm_secrets(driver.fake, players))
    tokens = {f"token of interaction {i}": h.token for i, h in driver.fake.interactions.items()}
    assert len(tokens) > turns and len(secrets) > 4 * turns
    secrets.update(tokens)
    return leaks(log, secrets)
