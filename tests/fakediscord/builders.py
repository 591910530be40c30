"""Data models, JSON payload builders and payload validators for the fake Discord server.

Nothing in this module does I/O: it holds the *world* the fake serves (users, guilds,
channels, roles, messages, attachments) as small dataclasses, pure functions that turn
them into the JSON shapes Discord's API v10 uses (the shapes discord.py 2.7.1 parses), and
the checks of what Discord would reject with HTTP 400 (lengths, counts, locales...).

The server (:mod:`tests.fakediscord.server`) owns instances of these models; tests usually
get them from it (``fake.user("alice")``, ``fake.messages(channel)``) rather than building
them by hand.
"""

from __future__ import annotations

import datetime as dt
import math
import mimetypes
import re
import time
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

__all__ = [
    "ALL_PERMISSIONS",
    "DEFAULT_PERMISSIONS",
    "DISCORD_EPOCH_MS",
    "EPHEMERAL",
    "IS_COMPONENTS_V2",
    "LOADING",
    "TINY_PNG",
    "VALID_LOCALES",
    "ApiError",
    "CallbackType",
    "ChannelType",
    "ComponentType",
    "FakeAttachment",
    "FakeChannel",
    "FakeGuild",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "FormErrors",
    "InteractionType",
    "OptionType",
    "RateLimited",
    "SnowflakeGenerator",
    "UploadedFile",
    "guess_content_type",
    "iso_now",
    "snowflake_time",
    "validate_choices",
    "validate_command",
    "validate_commands",
    "validate_message",
    "validate_modal",
    "walk_components",
]

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


# --------------------------------------------------------------------------- world models


@dataclass(eq=False)
class FakeUser:
    """A Discord user (a person or the bot itself)."""

    id: int
    name: str
    global_name: str | None = None
    #: The client locale this user's interactions carry (``interaction.locale``).
    locale: str = "en-US"
    bot: bool = False
    #: When true, sending a message to this user's DM channel fails with 403 / code 50007.
    blocks_dms: bool = False

    @property
    def mention(self) -> str:
        """``<@id>``."""
        return f"<@{self.id}>"

    def to_payload(self) -> dict[str, Any]:
        """The user object."""
        return {
            "id": str(self.id),
            "username": self.name,
            "discriminator": "0",
            "global_name": self.global_name,
            "avatar": None,
            "banner": None,
            "accent_color": None,
            "bot": self.bot,
            "system": False,
            "public_flags": 0,
        }

    def to_client_user_payload(self) -> dict[str, Any]:
        """The user object as ``GET /users/@me`` and READY return it for the bot."""
        return {**self.to_payload(), "verified": True, "mfa_enabled": False, "flags": 0, "locale": self.locale}


@dataclass(eq=False)
class FakeRole:
    """A guild role. The ``@everyone`` role has the guild's id."""

    id: int
    name: str
    permissions: int = 0
    position: int = 0
    color: int = 0
    hoist: bool = False
    managed: bool = False
    mentionable: bool = False
    bot_id: int | None = None

    @property
    def mention(self) -> str:
        """``<@&id>``."""
        return f"<@&{self.id}>"

    def to_payload(self) -> dict[str, Any]:
        """The role object."""
        payload: dict[str, Any] = {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": self.color,
            "colors": {"primary_color": self.color, "secondary_color": None, "tertiary_color": None},
            "hoist": self.hoist,
            "managed": self.managed,
            "mentionable": self.mentionable,
            "icon": None,
            "unicode_emoji": None,
            "flags": 0,
        }
        if self.bot_id is not None:
            payload["tags"] = {"bot_id": str(self.bot_id)}
        return payload


@dataclass(eq=False)
class FakeChannel:
    """A guild channel, a thread, or a DM channel (``type`` = 1, with ``recipient``)."""

    id: int
    type: int = ChannelType.GUILD_TEXT
    name: str | None = None
    guild_id: int | None = None
    position: int = 0
    topic: str | None = None
    parent_id: int | None = None
    nsfw: bool = False
    #: The other user of a DM channel.
    recipient: FakeUser | None = None
    #: Thread-only fields.
    owner_id: int | None = None
    archived: bool = False
    locked: bool = False
    #: Minutes of inactivity after which Discord archives the thread (60, 1440, 4320 or 10080).
    auto_archive_duration: int = 4320
    #: When the thread was created, archived or unarchived, or its duration changed (seconds since the epoch).
    archive_timestamp: float = field(default_factory=time.time)
    #: The thread's last activity, as Discord counts it: created, a message sent, unarchived, duration changed.
    active_at: float = field(default_factory=time.time)
    last_message_id: int | None = None

    @property
    def is_dm(self) -> bool:
        """Whether this is a DM channel."""
        return self.type == ChannelType.DM

    @property
    def is_thread(self) -> bool:
        """Whether this is a thread."""
        return self.type in (ChannelType.PUBLIC_THREAD, ChannelType.PRIVATE_THREAD)

    @property
    def mention(self) -> str:
        """``<#id>``."""
        return f"<#{self.id}>"

    def to_payload(self) -> dict[str, Any]:
        """The channel object."""
        last = str(self.last_message_id) if self.last_message_id else None
        if self.is_dm:
            recipients = [self.recipient.to_payload()] if self.recipient else []
            return {
                "id": str(self.id),
                "type": int(self.type),
                "recipients": recipients,
                "last_message_id": last,
                "flags": 0,
            }
        payload: dict[str, Any] = {
            "id": str(self.id),
            "type": int(self.type),
            "guild_id": str(self.guild_id) if self.guild_id else None,
            "name": self.name,
            "position": self.position,
            "permission_overwrites": [],
            "parent_id": str(self.parent_id) if self.parent_id else None,
            "nsfw": self.nsfw,
            "topic": self.topic,
            "rate_limit_per_user": 0,
            "last_message_id": last,
            "flags": 0,
        }
        if self.is_thread:
            payload.update(
                owner_id=str(self.owner_id) if self.owner_id else None,
                member_count=1,
                message_count=0,
                total_message_sent=0,
                thread_metadata={
                    "archived": self.archived,
                    "auto_archive_duration": self.auto_archive_duration,
                    "archive_timestamp": dt.datetime.fromtimestamp(self.archive_timestamp, dt.UTC).isoformat(),
                    "locked": self.locked,
                    "invitable": True,
                    "create_timestamp": snowflake_time(self.id).isoformat(),
                },
            )
        return payload

    def to_resolved_payload(self, permissions: int) -> dict[str, Any]:
        """The partial channel object of an interaction's ``resolved.channels``."""
        return {**self.to_payload(), "permissions": str(permissions)}


@dataclass(eq=False)
class FakeMember:
    """A user's membership in a guild."""

    user: FakeUser
    role_ids: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = field(default_factory=iso_now)

    def to_payload(self, *, with_user: bool = True, permissions: int | None = None) -> dict[str, Any]:
        """The guild member object (``permissions`` is added for interaction payloads)."""
        payload: dict[str, Any] = {
            "roles": [str(r) for r in self.role_ids],
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }
        if with_user:
            payload["user"] = self.user.to_payload()
        if permissions is not None:
            payload["permissions"] = str(permissions)
        return payload


@dataclass(eq=False)
class FakeGuild:
    """A guild with its channels, roles and members."""

    id: int
    name: str
    owner_id: int
    preferred_locale: str = "en-US"
    channels: dict[int, FakeChannel] = field(default_factory=dict)
    roles: dict[int, FakeRole] = field(default_factory=dict)
    members: dict[int, FakeMember] = field(default_factory=dict)

    @property
    def everyone_role(self) -> FakeRole:
        """The ``@everyone`` role (its id is the guild id)."""
        return self.roles[self.id]

    def channel(self, name: str) -> FakeChannel:
        """The channel (or thread) called ``name``; ``KeyError`` if there is none."""
        for channel in self.channels.values():
            if channel.name == name:
                return channel
        raise KeyError(f"no channel named {name!r} in guild {self.name!r}")

    def permissions_of(self, user_id: int) -> int:
        """Guild-level permissions of a member (no channel overwrites in the fake)."""
        if user_id == self.owner_id:
            return ALL_PERMISSIONS
        member = self.members.get(user_id)
        value = self.everyone_role.permissions
        if member is not None:
            for role_id in member.role_ids:
                role = self.roles.get(role_id)
                if role is not None:
                    value |= role.permissions
        if value & (1 << 3):  # ADMINISTRATOR
            return ALL_PERMISSIONS
        return value

    def to_payload(self, *, gateway: bool = False) -> dict[str, Any]:
        """The guild object; with ``gateway=True`` the GUILD_CREATE shape (channels, members...)."""
        payload: dict[str, Any] = {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [r.to_payload() for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": self.preferred_locale,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
        }
        if gateway:
            payload.update(
                unavailable=False,
                large=False,
                member_count=len(self.members),
                joined_at=iso_now(),
                channels=[c.to_payload() for c in self.channels.values() if not c.is_thread],
                threads=[c.to_payload() for c in self.channels.values() if c.is_thread],
                members=[m.to_payload() for m in self.members.values()],
                presences=[],
                voice_states=[],
                stage_instances=[],
                guild_scheduled_events=[],
                soundboard_sounds=[],
            )
        return payload


@dataclass
class UploadedFile:
    """One file part of a multipart request (``files[n]``)."""

    field_name: str
    filename: str
    content_type: str | None
    data: bytes


@dataclass(eq=False)
class FakeAttachment:
    """A file attached to a message; ``data`` keeps the uploaded bytes for assertions."""

    id: int
    filename: str
    data: bytes
    url: str
    content_type: str | None = None
    description: str | None = None

    @property
    def size(self) -> int:
        """Size of the file in bytes."""
        return len(self.data)

    def to_payload(self) -> dict[str, Any]:
        """The attachment object."""
        payload: dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": self.size,
            "url": self.url,
            "proxy_url": self.url,
        }
        if self.content_type:
            payload["content_type"] = self.content_type
        if self.description is not None:
            payload["description"] = self.description
        if self.content_type and self.content_type.startswith("image/"):
            size = _image_size(self.data)
            if size:
                payload["width"], payload["height"] = size
        return payload


def _png(width: int, height: int, rgba: tuple[int, int, int, int]) -> bytes:
    """A solid-colour RGBA PNG, without Pillow."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")

    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 6, 0, 0, 0])
    row = b"\x00" + bytes(rgba) * width
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )


#: A 1x1 grey PNG: what the fake serves for avatars and guild icons.
TINY_PNG = _png(1, 1, (128, 128, 128, 255))


def _image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height of a PNG from its IHDR chunk, else ``None``."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    return None


def walk_components(components: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Yield every component in a component tree, depth first (rows, containers, sections...)."""
    for component in components:
        yield component
        children = list(component.get("components") or [])
        if isinstance(component.get("component"), dict):  # label
            children.append(component["component"])
        if isinstance(component.get("accessory"), dict):  # section
            children.append(component["accessory"])
        yield from walk_components(children)


@dataclass(eq=False)
class FakeMessage:
    """A message stored by the fake, as the bot (or a simulated user) created it.

    Fields keep the JSON shapes the bot sent (``embeds``, ``components``,
    ``allowed_mentions``); edits update them in place and push the previous state onto
    ``history``.
    """

    id: int
    channel_id: int
    author: dict[str, Any]
    guild_id: int | None = None
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[FakeAttachment] = field(default_factory=list)
    allowed_mentions: dict[str, Any] | None = None
    flags: int = 0
    tts: bool = False
    type: int = 0
    timestamp: str = field(default_factory=iso_now)
    edited_timestamp: str | None = None
    webhook_id: int | None = None
    application_id: int | None = None
    interaction_metadata: dict[str, Any] | None = None
    message_reference: dict[str, Any] | None = None
    nonce: str | int | None = None
    deleted: bool = False
    #: Unicode emoji (or ``name:id``) the bot reacted with.
    reactions: list[str] = field(default_factory=list)
    #: Snapshots (``to_payload()``) of the message before each edit, oldest first.
    history: list[dict[str, Any]] = field(default_factory=list)

    @property
    def author_id(self) -> int:
        """Id of the author."""
        return int(self.author["id"])

    @property
    def ephemeral(self) -> bool:
        """Whether only the invoking user can see it (flag 64)."""
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        """Whether it is still a deferred "thinking..." placeholder (flag 128)."""
        return bool(self.flags & LOADING)

    @property
    def edited(self) -> bool:
        """Whether the message was edited at least once."""
        return bool(self.history)

    @property
    def text(self) -> str:
        """Content plus the visible text of embeds and text-display components, newline joined.

        Handy for "does the answer mention X" assertions that should not care whether the
        bot used plain content or an embed.
        """
        parts = [self.content] if self.content else []
        for embed in self.embeds:
            for key in ("title", "description"):
                if embed.get(key):
                    parts.append(str(embed[key]))
            for fld in embed.get("fields") or []:
                parts.extend([str(fld.get("name", "")), str(fld.get("value", ""))])
            if (embed.get("footer") or {}).get("text"):
                parts.append(str(embed["footer"]["text"]))
            if (embed.get("author") or {}).get("name"):
                parts.append(str(embed["author"]["name"]))
        for component in walk_components(self.components):
            if component.get("type") == ComponentType.TEXT_DISPLAY and component.get("content"):
                parts.append(str(component["content"]))
        return "\n".join(parts)

    # -- components -------------------------------------------------------------------

    def iter_components(self) -> Iterator[dict[str, Any]]:
        """Every component of the message, depth first."""
        return walk_components(self.components)

    @property
    def buttons(self) -> list[dict[str, Any]]:
        """All button components."""
        return [c for c in self.iter_components() if c.get("type") == ComponentType.BUTTON]

    @property
    def selects(self) -> list[dict[str, Any]]:
        """All select menu components (string, user, role, mentionable, channel)."""
        kinds = {3, 5, 6, 7, 8}
        return [c for c in self.iter_components() if c.get("type") in kinds]

    @property
    def custom_ids(self) -> list[str]:
        """The ``custom_id`` of every interactive component, in order."""
        return [c["custom_id"] for c in self.iter_components() if c.get("custom_id")]

    def component(self, custom_id: str | None = None, *, label: str | None = None) -> dict[str, Any]:
        """The component with this ``custom_id`` or (for buttons) this ``label``; ``KeyError`` if none."""
        for comp in self.iter_components():
            if custom_id is not None and comp.get("custom_id") == custom_id:
                return comp
            if label is not None and comp.get("label") == label:
                return comp
        raise KeyError(
            f"message {self.id} has no component with custom_id={custom_id!r} label={label!r}; "
            f"custom_ids: {self.custom_ids}"
        )

    # -- payload ----------------------------------------------------------------------

    def to_payload(self, *, created: bool = False) -> dict[str, Any]:
        """The message object; its nonce only as the answer to its creation and in its MESSAGE_CREATE (``created``):
        Discord does not store nonces, so a message read later has none."""
        payload: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "author": self.author,
            "content": self.content,
            "timestamp": self.timestamp,
            "edited_timestamp": self.edited_timestamp,
            "tts": self.tts,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [a.to_payload() for a in self.attachments],
            "embeds": self.embeds,
            "components": self.components,
            "pinned": False,
            "type": self.type,
            "flags": self.flags,
        }
        if self.guild_id is not None:
            payload["guild_id"] = str(self.guild_id)
        if self.webhook_id is not None:
            payload["webhook_id"] = str(self.webhook_id)
        if self.application_id is not None:
            payload["application_id"] = str(self.application_id)
        if self.interaction_metadata is not None:
            payload["interaction_metadata"] = self.interaction_metadata
        if self.message_reference is not None:
            payload["message_reference"] = self.message_reference
        if created and self.nonce is not None:
            payload["nonce"] = self.nonce
        return payload


# ------------------------------------------------------------------- interaction payloads


def interaction_payload(
    *,
    interaction_id: int,
    application_id: int,
    token: str,
    interaction_type: int,
    data: dict[str, Any] | None,
    user: FakeUser,
    channel: FakeChannel,
    guild: FakeGuild | None,
    locale: str,
    guild_locale: str | None,
    app_permissions: int,
    message: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The INTERACTION_CREATE payload for a user acting in a guild channel or a DM."""
    payload: dict[str, Any] = {
        "id": str(interaction_id),
        "application_id": str(application_id),
        "type": int(interaction_type),
        "token": token,
        "version": 1,
        "channel_id": str(channel.id),
        "channel": channel.to_payload(),
        "locale": locale,
        "app_permissions": str(app_permissions),
        "entitlements": [],
        "attachment_size_limit": 10 * 1024 * 1024,
    }
    if data is not None:
        payload["data"] = data
    if message is not None:
        payload["message"] = message
    if guild is not None:
        member = guild.members.get(user.id) or FakeMember(user=user)
        payload.update(
            guild_id=str(guild.id),
            guild={"id": str(guild.id), "locale": guild.preferred_locale, "features": []},
            member=member.to_payload(permissions=guild.permissions_of(user.id)),
            context=0,
            authorizing_integration_owners={"0": str(guild.id)},
        )
        if guild_locale is not None:
            payload["guild_locale"] = guild_locale
    else:
        payload.update(user=user.to_payload(), context=1, authorizing_integration_owners={"0": "0"})
    return payload


_NAME_RE = re.compile(r"^[-_'\w]{1,32}$", re.UNICODE)


def valid_command_name(name: str) -> bool:
    """Discord's rule for chat-input command and option names: 1-32 word chars, ``-``, ``_``,
    ``'``, no spaces, and lowercase where a letter has a lowercase form."""
    return bool(_NAME_RE.match(name)) and name == name.lower()


class ApiError(Exception):
    """Raised by a route handler to answer with a Discord-shaped JSON error."""

    def __init__(self, status: int, code: int, message: str, errors: dict[str, Any] | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors
        self.headers = dict(headers or {})
        """Headers Discord sends with this answer (a rate limit's)."""

    def body(self) -> dict[str, Any]:
        """The JSON error body Discord sends."""
        body: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            body["errors"] = self.errors
        return body


class RateLimited(ApiError):
    """Discord's 429 Too Many Requests: the body says when to try again (``retry_after``, seconds) and whether the
    limit is the global one; the headers say the limit's scope (``X-RateLimit-Scope``: user, shared or global),
    ``Retry-After`` and, as on every answer of Discord's edge, ``Via`` (discord.py takes a 429 without it for
    Cloudflare's ban and gives up)."""

    def __init__(self, scope: str, retry_after: float) -> None:
        headers = {"X-RateLimit-Scope": scope, "Retry-After": str(max(1, math.ceil(retry_after))), "Via": "1.1 google",
                   "X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset-After": str(retry_after)}
        if scope == "global":
            headers["X-RateLimit-Global"] = "true"
        super().__init__(429, 0, "You are being rate limited.", headers=headers)
        self.retry_after = retry_after
        self.scope = scope

    def body(self) -> dict[str, Any]:
        return {"message": self.message, "retry_after": self.retry_after, "global": self.scope == "global"}


class FormErrors:
    """Collects "Invalid Form Body" errors by dotted path and renders Discord's nested shape."""

    def __init__(self) -> None:
        self.items: list[tuple[str, str, str]] = []

    def add(self, path: str, message: str, code: str = "BASE_TYPE_INVALID") -> None:
        self.items.append((path, code, message))

    def raise_if_any(self) -> None:
        error = self.error()
        if error is not None:
            raise error

    def error(self) -> ApiError | None:
        """Discord's "Invalid Form Body" answer for the errors collected (an empty path: the body itself), or None."""
        if not self.items:
            return None
        nested: dict[str, Any] = {}
        for path, code, message in self.items:
            node = nested
            for part in path.split(".") if path else ():
                node = node.setdefault(part, {})
            node.setdefault("_errors", []).append({"code": code, "message": message})
        return ApiError(400, 50035, "Invalid Form Body", nested)

    def summary(self) -> str:
        return "; ".join(f"{path}: {message}" for path, _, message in self.items)


# ------------------------------------------------------------------------- validation
# What Discord rejects with HTTP 400 (code 50035 "Invalid Form Body" or 50006): the fake
# answers the same so that a bot bug shows up in tests rather than in production.


def guess_content_type(filename: str, data: bytes) -> str | None:
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "image/png"
    return mimetypes.guess_type(filename)[0]


def check_length(errors: FormErrors, path: str, value: Any, low: int, high: int) -> None:
    if value is None:
        return
    text = str(value)
    if not low <= len(text) <= high:
        errors.add(path, f"Must be between {low} and {high} in length.", "BASE_TYPE_BAD_LENGTH")


def validate_message(
    body: dict[str, Any], files: Sequence[UploadedFile], errors: FormErrors, *, partial: bool, prefix: str = "",
    was_v2: bool = False,
) -> None:
    """The message limits Discord enforces (content, embeds, components, emptiness). ``was_v2``: an edit of a message
    sent with IS_COMPONENTS_V2, which keeps the flag (Discord: "Once a message has been sent with this flag, it can't
    be removed from that message"), so that the edit may carry neither content nor embeds either."""
    content = body.get("content")
    if content is not None and len(str(content)) > 2000:
        errors.add(prefix + "content", "Must be 2000 or fewer in length.", "BASE_TYPE_MAX_LENGTH")
    flags = int(body.get("flags") or 0)
    if was_v2:
        if body.get("flags") is not None and not flags & IS_COMPONENTS_V2:
            errors.add(prefix + "flags", "The IS_COMPONENTS_V2 flag cannot be removed from a message sent with it")
        flags |= IS_COMPONENTS_V2
    embeds = body.get("embeds") or []
    if len(embeds) > 10:
        errors.add(prefix + "embeds", "Must be 10 or fewer in length.", "BASE_TYPE_MAX_LENGTH")
    total = 0
    for i, embed in enumerate(embeds):
        p = f"{prefix}embeds.{i}."
        for key, limit in (("title", 256), ("description", 4096)):
            if embed.get(key) is not None:
                check_length(errors, p + key, embed[key], 0, limit)
                total += len(str(embed[key]))
        fields = embed.get("fields") or []
        if len(fields) > 25:
            errors.add(p + "fields", "Must be 25 or fewer in length.", "BASE_TYPE_MAX_LENGTH")
        for j, fld in enumerate(fields):
            check_length(errors, f"{p}fields.{j}.name", fld.get("name", ""), 1, 256)
            check_length(errors, f"{p}fields.{j}.value", fld.get("value", ""), 1, 1024)
            total += len(str(fld.get("name", ""))) + len(str(fld.get("value", "")))
        footer = (embed.get("footer") or {}).get("text")
        if footer is not None:
            check_length(errors, p + "footer.text", footer, 0, 2048)
            total += len(str(footer))
        author = (embed.get("author") or {}).get("name")
        if author is not None:
            check_length(errors, p + "author.name", author, 0, 256)
            total += len(str(author))
    if total > 6000:
        errors.add(prefix + "embeds", "Embed size exceeds maximum size of 6000", "MAX_EMBED_SIZE_EXCEEDED")
    components = body.get("components") or []
    validate_components(components, errors, v2=bool(flags & IS_COMPONENTS_V2), prefix=prefix)
    if flags & IS_COMPONENTS_V2:
        for field_name in ("content", "embeds"):
            if body.get(field_name):
                errors.add(prefix + field_name,
                           f"The '{field_name}' field cannot be used when using MessageFlags.IS_COMPONENTS_V2")
        validate_v2(components, files, body, errors, partial=partial, prefix=prefix)
    if not partial and not (
        content
        or embeds
        or components
        or files
        or body.get("sticker_ids")
        or body.get("poll")
        or body.get("attachments")
    ):
        raise ApiError(400, 50006, "Cannot send an empty message")


V2_COMPONENTS_MAX = 40
"""Components of one Components V2 message, nested ones included."""
V2_TEXT_MAX = 4000
"""Characters of all text displays of one Components V2 message."""


def validate_v2(components: list[dict[str, Any]], files: Sequence[UploadedFile], body: dict[str, Any],
                errors: FormErrors, *, partial: bool, prefix: str) -> None:
    """Discord's limits of a Components V2 message: 40 components in all, 4,000 characters of text, galleries of
    1-10 items, and every ``attachment://`` a gallery names sent with the message (on an edit, also one it kept)."""
    every = list(walk_components(components))
    if len(every) > V2_COMPONENTS_MAX:
        errors.add(prefix + "components", f"Must be {V2_COMPONENTS_MAX} or fewer in total.", "BASE_TYPE_MAX_LENGTH")
    text = sum(len(str(c.get("content") or "")) for c in every if c.get("type") == ComponentType.TEXT_DISPLAY)
    if text > V2_TEXT_MAX:
        errors.add(prefix + "components", f"Text displays must be {V2_TEXT_MAX} or fewer characters in total.",
                   "BASE_TYPE_MAX_LENGTH")
    names = {f.filename for f in files} | {str(a.get("filename")) for a in body.get("attachments") or []}
    for gallery in (c for c in every if c.get("type") == ComponentType.MEDIA_GALLERY):
        items = gallery.get("items") or []
        if not 1 <= len(items) <= 10:
            errors.add(prefix + "components.items", "A media gallery holds 1-10 items")
        for item in items:
            url = str((item.get("media") or {}).get("url") or "")
            if url.startswith("attachment://") and url.removeprefix("attachment://") not in names and not partial:
                errors.add(prefix + "components.items.media.url", f"{url} names no attachment of the message")


def validate_components(components: list[dict[str, Any]], errors: FormErrors, *, v2: bool, prefix: str) -> None:
    if not v2:
        if len(components) > 5:
            errors.add(prefix + "components", "Must be 5 or fewer in length.", "BASE_TYPE_MAX_LENGTH")
        for i, row in enumerate(components):
            if row.get("type") != ComponentType.ACTION_ROW:
                errors.add(
                    f"{prefix}components.{i}.type", "Top-level components must be action rows without the v2 flag"
                )
                continue
            children = row.get("components") or []
            buttons = [c for c in children if c.get("type") == ComponentType.BUTTON]
            if not 1 <= len(children) <= 5 or (len(buttons) != len(children) and len(children) != 1):
                errors.add(f"{prefix}components.{i}.components", "An action row holds 1-5 buttons or one select menu")
    seen: set[str] = set()
    for comp in walk_components(components):
        cid = comp.get("custom_id")
        if cid is not None:
            check_length(errors, prefix + "components.custom_id", cid, 1, 100)
            if cid in seen:
                errors.add(prefix + "components.custom_id", f"Component custom id cannot be duplicated ({cid!r})")
            seen.add(cid)
        kind = comp.get("type")
        if kind == ComponentType.BUTTON:
            check_length(errors, prefix + "components.label", comp.get("label"), 0, 80)
            if comp.get("style") == 5:
                if not comp.get("url") or cid is not None:
                    errors.add(prefix + "components.url", "Link buttons need a url and no custom_id")
            elif comp.get("style") != 6 and cid is None:
                errors.add(prefix + "components.custom_id", "Buttons need a custom_id")
        elif kind in (3, 5, 6, 7, 8):
            check_length(errors, prefix + "components.placeholder", comp.get("placeholder"), 0, 150)
            lo, hi = int(comp.get("min_values", 1)), int(comp.get("max_values", 1))
            if not (0 <= lo <= 25 and 1 <= hi <= 25 and lo <= hi):
                errors.add(prefix + "components.min_values", "min_values/max_values out of range")
            if kind == ComponentType.STRING_SELECT:
                options = comp.get("options") or []
                if not 1 <= len(options) <= 25:
                    errors.add(prefix + "components.options", "A select menu needs 1-25 options")
                if hi > len(options):
                    errors.add(prefix + "components.max_values", "max_values exceeds the number of options")
                values = [o.get("value") for o in options]
                if len(set(values)) != len(values):
                    errors.add(prefix + "components.options", "Select option values must be unique")
                for o in options:
                    check_length(errors, prefix + "components.options.label", o.get("label"), 1, 100)
                    check_length(errors, prefix + "components.options.value", o.get("value"), 1, 100)
                    check_length(errors, prefix + "components.options.description", o.get("description"), 0, 100)


def validate_choices(choices: Any, errors: FormErrors) -> None:
    if not isinstance(choices, list):
        errors.add("data.choices", "choices must be a list")
        return
    if len(choices) > 25:
        errors.add("data.choices", "Must be 25 or fewer in length.", "BASE_TYPE_MAX_LENGTH")
    for i, choice in enumerate(choices):
        check_length(errors, f"data.choices.{i}.name", choice.get("name"), 1, 100)
        if isinstance(choice.get("value"), str):
            check_length(errors, f"data.choices.{i}.value", choice["value"], 0, 100)
        validate_localizations(choice.get("name_localizations"), f"data.choices.{i}.name_localizations", errors, 1, 100)


def validate_modal(data: dict[str, Any], errors: FormErrors) -> None:
    check_length(errors, "data.custom_id", data.get("custom_id"), 1, 100)
    check_length(errors, "data.title", data.get("title"), 1, 45)
    components = data.get("components") or []
    if not 1 <= len(components) <= 5:
        errors.add("data.components", "A modal needs 1-5 components")


def validate_localizations(
    value: Any, path: str, errors: FormErrors, low: int, high: int, *, name_rule: bool = False
) -> None:
    if not value:
        return
    for locale, text in value.items():
        if locale not in VALID_LOCALES:
            errors.add(f"{path}.{locale}", f"Invalid locale {locale!r}", "LOCALE_INVALID")
            continue
        check_length(errors, f"{path}.{locale}", text, low, high)
        if name_rule and not valid_command_name(str(text)):
            errors.add(f"{path}.{locale}", f"Invalid command name {text!r}", "APPLICATION_COMMAND_INVALID_NAME")


def validate_commands(commands: list[dict[str, Any]], errors: FormErrors) -> None:
    counts: dict[int, int] = {}
    names: set[tuple[int, str]] = set()
    for i, command in enumerate(commands):
        kind = int(command.get("type", 1))
        counts[kind] = counts.get(kind, 0) + 1
        key = (kind, str(command.get("name")))
        if key in names:
            errors.add(
                f"{i}.name",
                f"Application command names must be unique ({key[1]!r})",
                "APPLICATION_COMMANDS_DUPLICATE_NAME",
            )
        names.add(key)
        validate_command(command, f"{i}.", errors)
    if counts.get(1, 0) > 100:
        errors.add("_", "Maximum number of chat input commands reached (100)")
    for kind in (2, 3):
        if counts.get(kind, 0) > 5:
            errors.add("_", f"Maximum number of context menu commands of type {kind} reached (5)")


def validate_command(command: dict[str, Any], p: str, errors: FormErrors) -> None:
    kind = int(command.get("type", 1))
    name = str(command.get("name") or "")
    if kind == 1:
        if not valid_command_name(name):
            errors.add(p + "name", f"Invalid chat input command name {name!r}", "APPLICATION_COMMAND_INVALID_NAME")
        check_length(errors, p + "description", command.get("description") or "", 1, 100)
        validate_localizations(
            command.get("name_localizations"), p + "name_localizations", errors, 1, 32, name_rule=True
        )
        validate_localizations(
            command.get("description_localizations"), p + "description_localizations", errors, 1, 100
        )
        validate_options(command.get("options") or [], p + "options", errors, depth=0)
    else:
        check_length(errors, p + "name", name, 1, 32)
        if command.get("description"):
            errors.add(p + "description", "Context menu commands cannot have a description")


def validate_options(options: list[dict[str, Any]], path: str, errors: FormErrors, *, depth: int) -> None:
    if len(options) > 25:
        errors.add(path, "Must be 25 or fewer in length.", "BASE_TYPE_MAX_LENGTH")
    seen: set[str] = set()
    optional_seen = False
    for i, option in enumerate(options):
        p = f"{path}.{i}."
        kind = int(option.get("type", 0))
        name = str(option.get("name") or "")
        if not valid_command_name(name):
            errors.add(p + "name", f"Invalid option name {name!r}", "APPLICATION_COMMAND_INVALID_NAME")
        if name in seen:
            errors.add(
                p + "name", f"Option names must be unique ({name!r})", "APPLICATION_COMMAND_OPTIONS_DUPLICATE_NAME"
            )
        seen.add(name)
        check_length(errors, p + "description", option.get("description") or "", 1, 100)
        validate_localizations(
            option.get("name_localizations"), p + "name_localizations", errors, 1, 32, name_rule=True
        )
        validate_localizations(option.get("description_localizations"), p + "description_localizations", errors, 1, 100)
        if kind in (OptionType.SUB_COMMAND, OptionType.SUB_COMMAND_GROUP):
            if kind == OptionType.SUB_COMMAND_GROUP and depth > 0:
                errors.add(p + "type", "Subcommand groups cannot be nested")
            if kind == OptionType.SUB_COMMAND_GROUP and any(
                int(o.get("type", 0)) != OptionType.SUB_COMMAND for o in option.get("options") or []
            ):
                errors.add(p + "options", "Subcommand groups can only contain subcommands")
            validate_options(option.get("options") or [], p + "options", errors, depth=depth + 1)
            continue
        if option.get("required"):
            if optional_seen:
                errors.add(p + "required", "Required options must be placed before non-required options")
        else:
            optional_seen = True
        choices = option.get("choices") or []
        if len(choices) > 25:
            errors.add(p + "choices", "Must be 25 or fewer in length.", "BASE_TYPE_MAX_LENGTH")
        if choices and option.get("autocomplete"):
            errors.add(p + "autocomplete", "Autocomplete cannot be set with choices")
        for j, choice in enumerate(choices):
            check_length(errors, f"{p}choices.{j}.name", choice.get("name"), 1, 100)
            validate_localizations(
                choice.get("name_localizations"), f"{p}choices.{j}.name_localizations", errors, 1, 100
            )
