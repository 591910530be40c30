"""REST: what the bot answers to an interaction: the callback (a message, a deferral, an update of the clicked
message, autocomplete choices, a modal), checked as Discord checks it (once only, the types each interaction
allows, within the deadline if one is set), then the interaction's webhook (followups, reading, editing and
deleting ``@original`` and the followups)."""

from __future__ import annotations

import asyncio
from typing import Any

from .handles import InteractionCallback, InteractionHandle
from .kinds import EPHEMERAL, IS_COMPONENTS_V2, LOADING, CallbackType, InteractionType
from .message import FakeMessage
from .routing import NO_CONTENT, RecordedRequest, copy_json, route
from .validation import ApiError, FormErrors, validate_choices, validate_message, validate_modal


class InteractionResponses:
    """The part of :class:`~tests.fakediscord.server.FakeDiscord` that takes the bot's answers to interactions."""


    @route("POST", "/interactions/{interaction_id}/{token:[^/]+}/callback", auth=False)
    async def _r_callback(self, rec: RecordedRequest, interaction_id: str, token: str) -> Any:
        handle = self._tokens.get(token)
        if handle is None or handle.id != int(interaction_id):
            raise ApiError(404, 10062, "Unknown interaction")
        handle.requests.append(rec)
        body = rec.json or {}
        callback = InteractionCallback(type=int(body.get("type", 0)), data=body.get("data"), files=rec.files)
        try:
            message = await self._accept_callback(handle, callback, rec)
        except ApiError as exc:
            handle.rejected_callbacks.append((callback, exc))
            raise
        self.notify()
        if rec.query.get("with_response", "").lower() not in ("1", "true"):
            return NO_CONTENT
        interaction_info: dict[str, Any] = {"id": str(handle.id), "type": int(handle.type)}
        resource: dict[str, Any] = {"type": callback.type}
        if message is not None:
            interaction_info.update(
                response_message_id=str(message.id),
                response_message_loading=message.loading,
                response_message_ephemeral=message.ephemeral,
            )
            resource["message"] = message.to_payload()
        return {"interaction": interaction_info, "resource": resource}

    async def _accept_callback(
        self, handle: InteractionHandle, callback: InteractionCallback, rec: RecordedRequest
    ) -> FakeMessage | None:
        """Validate and apply a callback; return the message it created or updated."""
        if self.callback_deadline is not None and handle.dispatched_at is not None:
            late = asyncio.get_running_loop().time() - handle.dispatched_at
            if late > self.callback_deadline:
                raise ApiError(404, 10062, "Unknown interaction")
        if handle.callback is not None:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        allowed = {
            InteractionType.APPLICATION_COMMAND: {4, 5, 9, 10, 12},
            InteractionType.MESSAGE_COMPONENT: {4, 5, 6, 7, 9, 10, 12},
            InteractionType.APPLICATION_COMMAND_AUTOCOMPLETE: {8},
            InteractionType.MODAL_SUBMIT: {4, 5, 6, 7, 10},
        }[handle.type]
        if callback.type not in allowed or (callback.type in (6, 7) and handle.source_message_id is None):
            raise ApiError(400, 50035, f"Invalid interaction response type {callback.type} for {handle.type.name}")
        data = callback.data or {}
        if self.validate:
            errors = FormErrors()
            if callback.type in (4, 7):
                source = self._messages.get(handle.source_message_id or 0) if callback.type == 7 else None
                validate_message(data, callback.files, errors, partial=callback.type == 7, prefix="data.",
                                 was_v2=source is not None and bool(source.flags & IS_COMPONENTS_V2))
            elif callback.type == 8:
                validate_choices(data.get("choices"), errors)
            elif callback.type == 9:
                validate_modal(data, errors)
            errors.raise_if_any()

        channel = handle.channel
        if channel.is_dm and channel.recipient is None:  # pragma: no cover - defensive
            raise ApiError(400, 50007, "Cannot send messages to this user")
        handle.callback = callback
        if callback.type == CallbackType.CHANNEL_MESSAGE_WITH_SOURCE:
            flags = int(data.get("flags") or 0)
            msg = self._new_message(channel, data, callback.files, flags=flags, handle=handle)
            handle.original_message_id = msg.id
            await self._message_event("MESSAGE_CREATE", msg)
            return msg
        if callback.type == CallbackType.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE:
            flags = LOADING | (int(data.get("flags") or 0) & EPHEMERAL)
            msg = self._new_message(channel, {}, [], flags=flags, handle=handle)
            handle.original_message_id = msg.id
            handle._first_followup_fills_original = True
            await self._message_event("MESSAGE_CREATE", msg)
            return msg
        if callback.type == CallbackType.UPDATE_MESSAGE:
            msg = self._messages[handle.source_message_id or 0]
            self._apply_edit(msg, data, callback.files)
            await self._message_event("MESSAGE_UPDATE", msg)
            return msg
        return None

    def _webhook_handle(self, app_id: str, token: str, rec: RecordedRequest) -> InteractionHandle:
        handle = self._tokens.get(token)
        if int(app_id) != self.application_id or handle is None:
            raise ApiError(404, 10015, "Unknown Webhook")
        handle.requests.append(rec)
        if handle.callback is None or handle.type == InteractionType.APPLICATION_COMMAND_AUTOCOMPLETE:
            # Discord only accepts the interaction webhook once the interaction was acknowledged.
            raise ApiError(404, 10015, "Unknown Webhook")
        return handle

    def _webhook_message(self, handle: InteractionHandle, message_id: str) -> FakeMessage:
        if message_id == "@original":
            mid = handle._original_id()
        else:
            mid = int(message_id)
            if mid != handle._original_id() and mid not in handle.followup_ids:
                mid = None
        msg = self._messages.get(mid) if mid is not None else None
        if msg is None or msg.deleted:
            raise ApiError(404, 10008, "Unknown Message")
        return msg

    @route("POST", "/webhooks/{app_id}/{token:[^/]+}", auth=False)
    async def _r_webhook_execute(self, rec: RecordedRequest, app_id: str, token: str) -> Any:
        handle = self._webhook_handle(app_id, token, rec)
        body = rec.json or {}
        if self.validate:
            errors = FormErrors()
            validate_message(body, rec.files, errors, partial=False)
            errors.raise_if_any()
        original = self._messages.get(handle.original_message_id or 0)
        if handle._first_followup_fills_original and original is not None and original.loading:
            # After a type 5 deferral the first followup replaces the "thinking..." message
            # (and keeps the deferral's ephemerality, whatever flags the followup asked for).
            handle._first_followup_fills_original = False
            self._apply_edit(original, body, rec.files)
            msg = original
            await self._message_event("MESSAGE_UPDATE", msg)
        else:
            msg = self._new_message(handle.channel, body, rec.files, flags=int(body.get("flags") or 0), handle=handle)
            await self._message_event("MESSAGE_CREATE", msg)
        handle.followup_ids.append(msg.id)
        if rec.query.get("wait", "").lower() in ("1", "true"):
            return msg.to_payload()
        return NO_CONTENT

    @route("GET", r"/webhooks/{app_id}/{token:[^/]+}/messages/{message_id:@original|\d+}", auth=False)
    async def _r_webhook_get(self, rec: RecordedRequest, app_id: str, token: str, message_id: str) -> Any:
        handle = self._webhook_handle(app_id, token, rec)
        return self._webhook_message(handle, message_id).to_payload()

    @route("PATCH", r"/webhooks/{app_id}/{token:[^/]+}/messages/{message_id:@original|\d+}", auth=False)
    async def _r_webhook_edit(self, rec: RecordedRequest, app_id: str, token: str, message_id: str) -> Any:
        handle = self._webhook_handle(app_id, token, rec)
        msg = self._webhook_message(handle, message_id)
        body = rec.json or {}
        if self.validate:
            errors = FormErrors()
            validate_message(body, rec.files, errors, partial=True, was_v2=bool(msg.flags & IS_COMPONENTS_V2))
            errors.raise_if_any()
        self._apply_edit(msg, body, rec.files)
        if msg.id == handle._original_id():
            handle.original_edits.append(copy_json(body))
            handle._first_followup_fills_original = False
        await self._message_event("MESSAGE_UPDATE", msg)
        return msg.to_payload()

    @route("DELETE", r"/webhooks/{app_id}/{token:[^/]+}/messages/{message_id:@original|\d+}", auth=False)
    async def _r_webhook_delete(self, rec: RecordedRequest, app_id: str, token: str, message_id: str) -> Any:
        handle = self._webhook_handle(app_id, token, rec)
        msg = self._webhook_message(handle, message_id)
        await self._delete(msg)
        return NO_CONTENT
