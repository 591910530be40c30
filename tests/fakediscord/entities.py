"""The world the fake serves, as small dataclasses: users, roles, channels (guild channels, threads, DMs), guild
members and guilds, each with the JSON object Discord's API v10 sends for it (the shapes discord.py 2.7.1 parses).

The server (:class:`~tests.fakediscord.server.FakeDiscord`) owns them; tests get them from it (``fake.user("alice")``,
``fake.channel("games")``) rather than building them. Messages and attachments are in :mod:`.message`."""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field
from typing import Any

from .kinds import ALL_PERMISSIONS, ChannelType, iso_now, snowflake_time


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


UserRef = FakeUser | int | str
"""A user as tests name one: the object, its id or its name."""
ChannelRef = FakeChannel | int | str
"""A channel as tests name one: the object, its id or its name."""
GuildRef = FakeGuild | int | str
"""A guild as tests name one: the object, its id or its name."""
