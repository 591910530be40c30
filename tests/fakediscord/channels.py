"""REST: channels and their messages (read, post, edit, delete, react; a nonce sent twice posts once, until a test
lets the minutes pass that Discord remembers it for), how the fake stores a message and tells the bot of it
(MESSAGE_CREATE, UPDATE, DELETE as the bot's intents ask; a message's nonce only in its creation's answer and its
MESSAGE_CREATE), and what a test does in a channel: a person posting, an old bot message, deleting a channel.
Threads: :mod:`.threads`; files: :mod:`.uploads`; interaction answers: :mod:`.responses`."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import unquote

from .entities import ChannelRef, FakeChannel, UserRef
from .gateway import INTENT_DIRECT_MESSAGES, INTENT_GUILD_MESSAGES
from .handles import InteractionHandle
from .kinds import EPHEMERAL, IS_COMPONENTS_V2, LOADING, InteractionType, iso_now
from .message import FakeMessage, UploadedFile
from .routing import NO_CONTENT, RecordedRequest, copy_json, route
from .validation import ApiError, FormErrors, validate_message


class Channels:
    """The part of :class:`~tests.fakediscord.server.FakeDiscord` that serves channels and messages."""


    async def send_user_message(
        self,
        channel: ChannelRef,
        user: UserRef,
        content: str,
        *,
        embeds: list[dict[str, Any]] | None = None,
    ) -> FakeMessage:
        """Simulate a user posting a message (dispatches MESSAGE_CREATE to the bot)."""
        ch = self.channel(channel)
        u = self.user(user)
        msg = self._store_message(
            FakeMessage(
                id=self.snowflakes.next(),
                channel_id=ch.id,
                guild_id=ch.guild_id,
                author=u.to_payload(),
                content=content,
                embeds=embeds or [],
            )
        )
        await self._message_event("MESSAGE_CREATE", msg)
        self.notify()
        return msg

    def add_bot_message(self, channel: ChannelRef, content: str, *, buttons: Sequence[str] = ()) -> FakeMessage:
        """Store a message as if the bot had posted it, with a button per custom id (no event is sent): a message
        from before the test, or one a forged click claims to come from."""
        components = [{"type": 1, "components": [{"type": 2, "style": 2, "label": custom_id, "custom_id": custom_id}
                                                 for custom_id in buttons]}] if buttons else []
        msg = self._new_message(self.channel(channel), {"content": content, "components": components}, [], flags=0)
        self.notify()
        return msg

    def expire_nonces(self) -> None:
        """Let the few minutes pass for which Discord remembers a message's nonce: a message sent with a nonce seen
        before is a new message from now on."""
        self._nonces.clear()

    async def delete_channel(self, channel: ChannelRef) -> None:
        """Delete a guild channel or thread (its messages go with it): later requests to it answer 404 / 10003
        Unknown Channel, and the bot gets CHANNEL_DELETE (THREAD_DELETE for a thread), as on Discord. A channel's
        threads go with it, with no event of their own (the bot hears of the channel only)."""
        c = self.channel(channel)
        if c.guild_id is None:
            raise ValueError("only a guild channel or thread can be deleted")
        for gone in [c, *(t for t in self.channels.values() if t.is_thread and t.parent_id == c.id)]:
            del self.channels[gone.id]
            self.guilds[c.guild_id].channels.pop(gone.id, None)
        if c.is_thread:
            data = {"id": str(c.id), "guild_id": str(c.guild_id), "parent_id": str(c.parent_id), "type": int(c.type)}
            await self.dispatch("THREAD_DELETE", data)
        else:
            await self.dispatch("CHANNEL_DELETE", c.to_payload())
        self.notify()

    def _channel_or_404(self, channel_id: str) -> FakeChannel:
        channel = self.channels.get(int(channel_id))
        if channel is None:
            raise ApiError(404, 10003, "Unknown Channel")
        return channel

    def _message_or_404(self, channel: FakeChannel, message_id: str, *, allow_ephemeral: bool = False) -> FakeMessage:
        msg = self._messages.get(int(message_id))
        if msg is None or msg.channel_id != channel.id or msg.deleted or (msg.ephemeral and not allow_ephemeral):
            raise ApiError(404, 10008, "Unknown Message")
        return msg

    @route("GET", "/channels/{channel_id}")
    async def _r_get_channel(self, rec: RecordedRequest, channel_id: str) -> Any:
        return self._channel_or_404(channel_id).to_payload()

    @route("PATCH", "/channels/{channel_id}")
    async def _r_patch_channel(self, rec: RecordedRequest, channel_id: str) -> Any:
        channel = self._channel_or_404(channel_id)
        body = rec.json or {}
        if channel.is_thread:
            if channel.archived and channel.locked and body.get("archived") is False \
                    and channel.owner_id != self.bot_user.id and "manage_threads" in self._denied_in(channel):
                raise ApiError(403, 50013, "Missing Permissions")
            if "auto_archive_duration" in body:
                channel.auto_archive_duration = self._archive_duration(body)
            if {"archived", "auto_archive_duration"} & set(body):
                channel.archive_timestamp = channel.active_at = time.time()
        for key in ("name", "topic", "archived", "locked", "nsfw"):
            if key in body:
                setattr(channel, key, body[key])
        payload = channel.to_payload()
        if channel.guild_id is not None:
            event = "THREAD_UPDATE" if channel.is_thread else "CHANNEL_UPDATE"
            await self._dispatch_if_listening(event, payload, 1 << 0)
        return payload

    @route("GET", "/channels/{channel_id}/messages")
    async def _r_list_messages(self, rec: RecordedRequest, channel_id: str) -> Any:
        channel = self._channel_or_404(channel_id)
        limit = max(1, min(100, int(rec.query.get("limit", 50))))
        msgs = [m for m in self.messages(channel) if not m.ephemeral]
        before, after, around = (rec.query.get(k) for k in ("before", "after", "around"))
        if before:
            msgs = [m for m in msgs if m.id < int(before)]
        if after:
            msgs = [m for m in msgs if m.id > int(after)][:limit]
        if around:
            ids = [m.id for m in msgs]
            pivot = min(range(len(ids)), key=lambda i: abs(ids[i] - int(around)), default=0)
            msgs = msgs[max(0, pivot - limit // 2) : pivot + (limit + 1) // 2]
        return [m.to_payload() for m in reversed(msgs[-limit:])]

    @route("GET", "/channels/{channel_id}/messages/{message_id}")
    async def _r_get_message(self, rec: RecordedRequest, channel_id: str, message_id: str) -> Any:
        return self._message_or_404(self._channel_or_404(channel_id), message_id).to_payload()

    @route("POST", "/channels/{channel_id}/messages")
    async def _r_create_message(self, rec: RecordedRequest, channel_id: str) -> Any:
        channel = self._channel_or_404(channel_id)
        if channel.guild_id is not None and self.bot_user.id not in self.guilds[channel.guild_id].members:
            raise ApiError(403, 50001, "Missing Access")
        if channel.is_dm and channel.recipient is not None and channel.recipient.blocks_dms:
            raise ApiError(403, 50007, "Cannot send messages to this user")
        denied = self._denied_in(channel)
        sending = "send_messages_in_threads" if channel.is_thread else "send_messages"
        if sending in denied or (rec.files and "attach_files" in denied):
            raise ApiError(403, 50013, "Missing Permissions")
        body = rec.json or {}
        if self.validate:
            errors = FormErrors()
            validate_message(body, rec.files, errors, partial=False)
            errors.raise_if_any()
        if channel.is_thread:
            await self._thread_activity(channel)
        nonce = body.get("nonce")
        if nonce is not None and body.get("enforce_nonce") and (channel.id, str(nonce)) in self._nonces:
            # Discord: a nonce seen in the last few minutes returns that message, and none is created
            return self._messages[self._nonces[(channel.id, str(nonce))]].to_payload(created=True)
        flags = int(body.get("flags") or 0) & ~(EPHEMERAL | LOADING)
        msg = self._new_message(channel, body, rec.files, flags=flags)
        if nonce is not None:
            self._nonces[(channel.id, str(nonce))] = msg.id
        await self._message_event("MESSAGE_CREATE", msg)
        return msg.to_payload(created=True)

    @route("PATCH", "/channels/{channel_id}/messages/{message_id}")
    async def _r_edit_message(self, rec: RecordedRequest, channel_id: str, message_id: str) -> Any:
        channel = self._channel_or_404(channel_id)
        msg = self._message_or_404(channel, message_id)
        body = rec.json or {}
        if channel.archived:
            raise ApiError(400, 50083, "Thread is archived")
        if msg.author_id != self.bot_user.id and set(body) - {"flags"}:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        if self.validate:
            errors = FormErrors()
            validate_message(body, rec.files, errors, partial=True, was_v2=bool(msg.flags & IS_COMPONENTS_V2))
            errors.raise_if_any()
        self._apply_edit(msg, body, rec.files)
        await self._message_event("MESSAGE_UPDATE", msg)
        return msg.to_payload()

    @route("DELETE", "/channels/{channel_id}/messages/{message_id}")
    async def _r_delete_message(self, rec: RecordedRequest, channel_id: str, message_id: str) -> Any:
        msg = self._message_or_404(self._channel_or_404(channel_id), message_id)
        await self._delete(msg)
        return NO_CONTENT

    @route("PUT", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji:[^/]+}/@me")
    async def _r_react(self, rec: RecordedRequest, channel_id: str, message_id: str, emoji: str) -> Any:
        msg = self._message_or_404(self._channel_or_404(channel_id), message_id)
        reaction = unquote(emoji)
        if reaction not in msg.reactions:
            msg.reactions.append(reaction)
        return NO_CONTENT

    @route("DELETE", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji:[^/]+}/@me")
    async def _r_unreact(self, rec: RecordedRequest, channel_id: str, message_id: str, emoji: str) -> Any:
        msg = self._message_or_404(self._channel_or_404(channel_id), message_id)
        reaction = unquote(emoji)
        if reaction in msg.reactions:
            msg.reactions.remove(reaction)
        return NO_CONTENT

    @route("POST", "/channels/{channel_id}/typing")
    async def _r_typing(self, rec: RecordedRequest, channel_id: str) -> Any:
        """"Bot is typing…": nothing the fake keeps."""
        return NO_CONTENT

    def _store_message(self, msg: FakeMessage) -> FakeMessage:
        self._messages[msg.id] = msg
        self._channel_messages.setdefault(msg.channel_id, []).append(msg.id)
        if not msg.ephemeral:
            channel = self.channels.get(msg.channel_id)
            if channel is not None:
                channel.last_message_id = msg.id
        return msg

    def _new_message(
        self,
        channel: FakeChannel,
        body: dict[str, Any],
        files: list[UploadedFile],
        *,
        flags: int,
        handle: InteractionHandle | None = None,
    ) -> FakeMessage:
        msg = FakeMessage(
            id=self.snowflakes.next(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=self.bot_user.to_payload(),
            content=str(body.get("content") or ""),
            embeds=copy_json(body.get("embeds") or []),
            components=copy_json(body.get("components") or []),
            allowed_mentions=copy_json(body.get("allowed_mentions")),
            flags=flags,
            tts=bool(body.get("tts", False)),
            nonce=body.get("nonce"),
            message_reference=copy_json(body.get("message_reference")),
        )
        msg.attachments = self._attachments(body, files, channel.id, [])
        if handle is not None:
            msg.webhook_id = self.application_id
            msg.application_id = self.application_id
            msg.type = 20 if handle.type == InteractionType.APPLICATION_COMMAND else 0
            msg.interaction_metadata = {
                "id": str(handle.id),
                "type": int(handle.type),
                "user": handle.user.to_payload(),
                "authorizing_integration_owners": handle.payload.get("authorizing_integration_owners", {}),
            }
        return self._store_message(msg)

    def _apply_edit(self, msg: FakeMessage, body: dict[str, Any], files: list[UploadedFile]) -> None:
        msg.history.append(msg.to_payload())
        if "content" in body:
            msg.content = str(body["content"] or "")
        if "embeds" in body:
            msg.embeds = copy_json(body["embeds"] or [])
        if "components" in body:
            msg.components = copy_json(body["components"] or [])
        if "allowed_mentions" in body:
            msg.allowed_mentions = copy_json(body["allowed_mentions"])
        if body.get("flags") is not None:
            keep = msg.flags & EPHEMERAL
            msg.flags = keep | (int(body["flags"]) & ~(EPHEMERAL | LOADING))
        if "attachments" in body or files:
            msg.attachments = self._attachments(body, files, msg.channel_id, msg.attachments)
        msg.flags &= ~LOADING
        msg.edited_timestamp = iso_now()

    async def _delete(self, msg: FakeMessage) -> None:
        msg.deleted = True
        if not msg.ephemeral:
            data: dict[str, Any] = {"id": str(msg.id), "channel_id": str(msg.channel_id)}
            if msg.guild_id is not None:
                data["guild_id"] = str(msg.guild_id)
            await self._dispatch_if_listening("MESSAGE_DELETE", data, self._message_intent(msg))
        self.notify()

    def _message_intent(self, msg: FakeMessage) -> int:
        return INTENT_GUILD_MESSAGES if msg.guild_id is not None else INTENT_DIRECT_MESSAGES

    async def _message_event(self, event: str, msg: FakeMessage) -> None:
        if msg.ephemeral:
            return
        data = msg.to_payload(created=event == "MESSAGE_CREATE")
        if msg.guild_id is not None:
            guild = self.guilds.get(msg.guild_id)
            member = guild.members.get(msg.author_id) if guild else None
            if member is not None and msg.webhook_id is None:
                data["member"] = member.to_payload(with_user=False)
        await self._dispatch_if_listening(event, data, self._message_intent(msg))
