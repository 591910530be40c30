"""Discord's numbers, as the fake serves them: message flags, permission bits, the locales Discord accepts, the
types of interactions, callbacks, channels, components and command options, and snowflakes (ids that carry their
creation time). No state, no I/O."""

from __future__ import annotations

import datetime as dt
import time
from enum import IntEnum

#: Milliseconds of the Discord epoch (2015-01-01T00:00:00Z).
DISCORD_EPOCH_MS = 1_420_070_400_000

#: Message flag: only the invoking user sees the message.
EPHEMERAL = 1 << 6

#: Message flag: the message is a deferred "Bot is thinking..." placeholder.
LOADING = 1 << 7

#: Message flag: the message uses components v2 (layout components, no ``content``).
IS_COMPONENTS_V2 = 1 << 15

#: Every permission bit Discord currently defines (an owner or administrator has these).
ALL_PERMISSIONS = (1 << 51) - 1

#: What the fake's ``@everyone`` role grants by default: view, send, embed, attach, history,
#: reactions, external emoji, application commands, threads.
DEFAULT_PERMISSIONS = (
    (1 << 6)  # ADD_REACTIONS
    | (1 << 10)  # VIEW_CHANNEL
    | (1 << 11)  # SEND_MESSAGES
    | (1 << 14)  # EMBED_LINKS
    | (1 << 15)  # ATTACH_FILES
    | (1 << 16)  # READ_MESSAGE_HISTORY
    | (1 << 18)  # USE_EXTERNAL_EMOJIS
    | (1 << 31)  # USE_APPLICATION_COMMANDS
    | (1 << 35)  # CREATE_PUBLIC_THREADS
    | (1 << 38)  # SEND_MESSAGES_IN_THREADS
)

#: The locale codes Discord accepts (``locale``, ``guild_locale``, ``*_localizations`` keys).
VALID_LOCALES: frozenset[str] = frozenset(
    {
        "id",
        "da",
        "de",
        "en-GB",
        "en-US",
        "es-ES",
        "es-419",
        "fr",
        "hr",
        "it",
        "lt",
        "hu",
        "nl",
        "no",
        "pl",
        "pt-BR",
        "ro",
        "fi",
        "sv-SE",
        "vi",
        "tr",
        "cs",
        "el",
        "bg",
        "ru",
        "uk",
        "hi",
        "th",
        "zh-CN",
        "ja",
        "zh-TW",
        "ko",
    }
)


class InteractionType(IntEnum):
    """``type`` of an interaction payload."""

    PING = 1
    APPLICATION_COMMAND = 2
    MESSAGE_COMPONENT = 3
    APPLICATION_COMMAND_AUTOCOMPLETE = 4
    MODAL_SUBMIT = 5


class CallbackType(IntEnum):
    """``type`` of an interaction callback (the bot's answer to an interaction)."""

    PONG = 1
    CHANNEL_MESSAGE_WITH_SOURCE = 4
    DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE = 5
    DEFERRED_UPDATE_MESSAGE = 6
    UPDATE_MESSAGE = 7
    APPLICATION_COMMAND_AUTOCOMPLETE_RESULT = 8
    MODAL = 9
    PREMIUM_REQUIRED = 10
    LAUNCH_ACTIVITY = 12


class ChannelType(IntEnum):
    """The channel types the fake knows."""

    GUILD_TEXT = 0
    DM = 1
    GUILD_VOICE = 2
    GUILD_CATEGORY = 4
    PUBLIC_THREAD = 11
    PRIVATE_THREAD = 12


class ComponentType(IntEnum):
    """Message component types."""

    ACTION_ROW = 1
    BUTTON = 2
    STRING_SELECT = 3
    TEXT_INPUT = 4
    USER_SELECT = 5
    ROLE_SELECT = 6
    MENTIONABLE_SELECT = 7
    CHANNEL_SELECT = 8
    SECTION = 9
    TEXT_DISPLAY = 10
    THUMBNAIL = 11
    MEDIA_GALLERY = 12
    FILE = 13
    SEPARATOR = 14
    CONTAINER = 17
    LABEL = 18


class OptionType(IntEnum):
    """Application command option types."""

    SUB_COMMAND = 1
    SUB_COMMAND_GROUP = 2
    STRING = 3
    INTEGER = 4
    BOOLEAN = 5
    USER = 6
    CHANNEL = 7
    ROLE = 8
    MENTIONABLE = 9
    NUMBER = 10
    ATTACHMENT = 11


class SnowflakeGenerator:
    """Makes strictly increasing snowflakes whose timestamp part is *now*.

    Real-looking timestamps matter: discord.py derives ``created_at`` (and so
    ``Interaction.is_expired()``) from the id.
    """

    def __init__(self) -> None:
        self._last = 0

    def next(self) -> int:
        """Return a new snowflake, greater than every one returned before."""
        candidate = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        if candidate <= self._last:
            candidate = self._last + 1
        self._last = candidate
        return candidate

    def next_on_shard(self, shard_id: int, shard_count: int) -> int:
        """A new snowflake whose guild shard (``(id >> 22) % shard_count``) is ``shard_id``: the timestamp
        part moves on by at most ``shard_count - 1`` milliseconds."""
        candidate = self.next()
        while (candidate >> 22) % shard_count != shard_id:
            candidate = ((candidate >> 22) + 1) << 22
        self._last = candidate
        return candidate


def snowflake_time(snowflake: int) -> dt.datetime:
    """The UTC creation time encoded in a snowflake."""
    ms = (snowflake >> 22) + DISCORD_EPOCH_MS
    return dt.datetime.fromtimestamp(ms / 1000, tz=dt.UTC)


def iso_now() -> str:
    """The current UTC time as Discord's ISO-8601 timestamp string."""
    return dt.datetime.now(dt.UTC).isoformat()
