"""A fake Discord server (REST API v10 + gateway) on 127.0.0.1 for end-to-end bot tests.

The real, unmodified discord.py talks to it over HTTP and a websocket, so a bot is tested
exactly as it runs, without the internet. Main entry points:

* :class:`FakeDiscord` (``server.py``): the server, its world (users, guilds, channels), the
  interaction builders/dispatchers and the inspection API;
* :class:`InteractionHandle`: what one dispatched interaction led to (callback, original
  response, edits, followups), with ``wait_for_*`` helpers;
* :func:`patch_discord`, :func:`run_bot`, :class:`BotRunner` and the ``fake_discord`` pytest
  fixture (``fixtures.py``; enable with ``pytest_plugins = ["tests.fakediscord.fixtures"]``);
* the data models and payload builders (``builders.py``).
"""

import pytest

# Let pytest rewrite asserts in the submodules (and not warn that the fixtures plugin was
# imported before it could be rewritten, when a test module imports it directly).
pytest.register_assert_rewrite("tests.fakediscord.builders", "tests.fakediscord.fixtures", "tests.fakediscord.server")

from .builders import (  # noqa: E402
    EPHEMERAL,
    LOADING,
    TINY_PNG,
    CallbackType,
    ChannelType,
    ComponentType,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    InteractionType,
    OptionType,
)
from .fixtures import BotRunner, patch_discord, run_bot  # noqa: E402
from .server import (  # noqa: E402
    DEFAULT_TIMEOUT,
    ApiError,
    FakeDiscord,
    FakeDiscordTimeout,
    InteractionCallback,
    InteractionHandle,
    RecordedRequest,
    UploadedFile,
)

__all__ = [
    "DEFAULT_TIMEOUT",
    "EPHEMERAL",
    "LOADING",
    "TINY_PNG",
    "ApiError",
    "BotRunner",
    "CallbackType",
    "ChannelType",
    "ComponentType",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeDiscordTimeout",
    "FakeGuild",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "InteractionCallback",
    "InteractionHandle",
    "InteractionType",
    "OptionType",
    "RecordedRequest",
    "UploadedFile",
    "patch_discord",
    "run_bot",
]
