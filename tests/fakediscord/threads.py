"""Threads: made by a test or by the bot (``POST .../threads``), archived after their inactivity or by a moderator
(locked), unarchived by a message sent to them, as Discord's threads topic describes. Editing a thread (archiving,
its duration) goes through ``PATCH /channels/{id}`` in :mod:`.channels`."""

from __future__ import annotations

import time
from typing import Any

from .entities import ChannelRef, FakeChannel
from .kinds import ChannelType
from .routing import NO_CONTENT, RecordedRequest, route
from .validation import ApiError, FormErrors


class Threads:
    """The part of :class:`~tests.fakediscord.server.FakeDiscord` that serves threads."""


    def add_thread(self, parent: ChannelRef, name: str) -> FakeChannel:
        """Create a public thread under a guild text channel (call before the bot connects)."""
        p = self.channel(parent)
        if p.guild_id is None or p.is_thread:
            raise ValueError("a thread needs a guild text channel as its parent")
        thread = FakeChannel(id=self.snowflakes.next(), type=ChannelType.PUBLIC_THREAD, name=name,
                             guild_id=p.guild_id, parent_id=p.id, owner_id=self.bot_user.id)
        self.guilds[p.guild_id].channels[thread.id] = thread
        self.channels[thread.id] = thread
        return thread

    async def archive_thread(self, thread: ChannelRef, *, locked: bool = False) -> None:
        """Archive a thread as Discord does after its inactivity (or a moderator, ``locked``: only Manage Threads may
        unarchive it then): the bot gets THREAD_UPDATE. Sending a message to it unarchives it unless it is locked;
        editing a message in it answers 400 / 50083 until then."""
        c = self.channel(thread)
        if not c.is_thread:
            raise ValueError("only a thread can be archived")
        c.archived, c.locked, c.archive_timestamp = True, locked, time.time()
        await self._dispatch_if_listening("THREAD_UPDATE", c.to_payload(), 1 << 0)
        self.notify()

    async def archive_inactive_threads(self, now: float | None = None) -> list[FakeChannel]:
        """Archive every active thread without activity (created, a message sent, unarchived, its duration changed)
        for its ``auto_archive_duration`` minutes at ``now`` (default: the time now), as Discord does; the threads
        archived."""
        now = time.time() if now is None else now
        idle = [c for c in list(self.channels.values())
                if c.is_thread and not c.archived and c.active_at + c.auto_archive_duration * 60 <= now]
        for thread in idle:
            await self.archive_thread(thread)
        return idle

    @route("PUT", "/channels/{channel_id}/thread-members/{member:@me|\\d+}")
    @route("DELETE", "/channels/{channel_id}/thread-members/{member:@me|\\d+}")
    async def _r_thread_member(self, rec: RecordedRequest, channel_id: str, member: str) -> Any:
        """Joining or leaving a thread: nothing the fake keeps."""
        return NO_CONTENT

    @route("POST", "/channels/{channel_id}/threads")
    @route("POST", "/channels/{channel_id}/messages/{message_id}/threads")
    async def _r_create_thread(self, rec: RecordedRequest, channel_id: str, message_id: str | None = None) -> Any:
        parent = self._channel_or_404(channel_id)
        if parent.guild_id is None or parent.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        if message_id is not None:
            self._message_or_404(parent, message_id)
        if "create_public_threads" in self._denied_in(parent):
            raise ApiError(403, 50013, "Missing Permissions")
        body = rec.json or {}
        name = str(body.get("name") or "")
        if self.validate and not 1 <= len(name) <= 100:
            errors = FormErrors()
            errors.add("name", "Must be between 1 and 100 in length.", "BASE_TYPE_BAD_LENGTH")
            errors.raise_if_any()
        duration = self._archive_duration(body) if "auto_archive_duration" in body else 4320
        kind = int(body.get("type") or ChannelType.PUBLIC_THREAD) if message_id is None else ChannelType.PUBLIC_THREAD
        thread = FakeChannel(
            id=int(message_id) if message_id is not None else self.snowflakes.next(),
            type=kind,
            name=name,
            guild_id=parent.guild_id,
            parent_id=parent.id,
            owner_id=self.bot_user.id,
            auto_archive_duration=duration,
        )
        self.guilds[parent.guild_id].channels[thread.id] = thread
        self.channels[thread.id] = thread
        payload = thread.to_payload()
        await self._dispatch_if_listening("THREAD_CREATE", {**payload, "newly_created": True}, 1 << 0)
        return payload

    @staticmethod
    def _archive_duration(body: dict[str, Any]) -> int:
        """A thread's ``auto_archive_duration`` as Discord takes it (minutes: 60, 1440, 4320 or 10080)."""
        duration = body.get("auto_archive_duration")
        if duration not in (60, 1440, 4320, 10080):
            errors = FormErrors()
            errors.add("auto_archive_duration", "Value must be one of {60, 1440, 4320, 10080}.", "BASE_TYPE_CHOICES")
            errors.raise_if_any()
        return int(duration)

    async def _thread_activity(self, thread: FakeChannel) -> None:
        """A message sent to ``thread``: its activity; an archived thread is unarchived first (THREAD_UPDATE), as
        Discord does, unless a moderator locked it (400 / 160005 Thread is locked)."""
        if thread.archived:
            if thread.locked:
                raise ApiError(400, 160005, "Thread is locked")
            thread.archived, thread.archive_timestamp = False, time.time()
            await self._dispatch_if_listening("THREAD_UPDATE", thread.to_payload(), 1 << 0)
        thread.active_at = time.time()
