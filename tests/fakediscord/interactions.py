"""Interactions a test sends as a person would: clicking a button, picking in a select menu, submitting a modal,
or a raw component interaction for edge cases (stale ids, messages the fake never stored); the INTERACTION_CREATE
payload they carry; and dispatching them, one by one or several in one burst. Slash commands and autocomplete are
built in :mod:`.slash`; what the bot answers is served by :mod:`.responses` and read on the returned
:class:`~tests.fakediscord.handles.InteractionHandle`."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from .entities import ChannelRef, FakeChannel, FakeGuild, FakeMember, FakeUser, UserRef
from .faults import DENIABLE
from .gateway import GatewaySession, guild_of
from .handles import InteractionHandle
from .kinds import VALID_LOCALES, CallbackType, ComponentType, InteractionType, OptionType
from .message import FakeMessage, MessageRef


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


class Interactions:
    """The part of :class:`~tests.fakediscord.server.FakeDiscord` that sends interactions."""

    def _new_handle(
        self,
        interaction_type: InteractionType,
        data: dict[str, Any] | None,
        *,
        user: UserRef | None,
        channel: ChannelRef | None,
        locale: str | None,
        guild_locale: str | None,
        message: FakeMessage | None = None,
        description: str = "",
    ) -> InteractionHandle:
        u = self.user(user) if user is not None else self.default_user
        ch = self.channel(message.channel_id if message is not None and channel is None else channel)
        guild = self.guilds.get(ch.guild_id) if ch.guild_id else None
        iid = self.snowflakes.next()
        app_perms = guild.permissions_of(self.bot_user.id) if guild is not None else 0
        for denied in self._denied_in(ch):
            app_perms &= ~DENIABLE[denied]
        if ch.archived and interaction_type == InteractionType.APPLICATION_COMMAND:
            raise ValueError("nobody can use application commands in an archived thread (Discord's threads topic)")
        if ch.is_dm and ch.recipient is not None and ch.recipient.id != u.id:
            raise ValueError(f"{u.name} cannot act in the DM channel of {ch.recipient.name}")
        loc = locale or u.locale
        for value in (loc, guild_locale):
            if value is not None and value not in VALID_LOCALES:
                raise ValueError(f"{value!r} is not a Discord locale; valid: {sorted(VALID_LOCALES)}")
        payload = interaction_payload(
            interaction_id=iid,
            application_id=self.application_id,
            token=f"fake-{iid}-{secrets.token_urlsafe(24)}",
            interaction_type=interaction_type,
            data=data,
            user=u,
            channel=ch,
            guild=guild,
            locale=loc,
            guild_locale=(guild_locale or guild.preferred_locale) if guild is not None else None,
            app_permissions=app_perms,
            message=message.to_payload() if message is not None else None,
        )
        handle = InteractionHandle(
            self,
            payload=payload,
            user=u,
            channel=ch,
            guild=guild,
            source_message_id=message.id if message is not None else None,
            description=description,
        )
        self.interactions[handle.id] = handle
        self._tokens[handle.token] = handle
        return handle

    def _resolve_message(self, message: MessageRef) -> FakeMessage:
        return message if isinstance(message, FakeMessage) else self.message(int(message))

    def build_button_click(
        self,
        message: MessageRef,
        custom_id: str | None = None,
        *,
        label: str | None = None,
        user: UserRef | None = None,
        locale: str | None = None,
    ) -> InteractionHandle:
        """Build a MESSAGE_COMPONENT interaction: ``user`` clicks a button of ``message``
        (found by ``custom_id`` or by ``label``). The message's channel (guild or DM) is used."""
        msg = self._resolve_message(message)
        if custom_id is None and label is None:
            raise ValueError("give custom_id or label")
        component = msg.component(custom_id, label=label)
        if component.get("type") != ComponentType.BUTTON:
            raise ValueError(f"component {component.get('custom_id')!r} is not a button")
        if component.get("disabled"):
            raise ValueError(f"button {component.get('custom_id')!r} is disabled; Discord would not send a click")
        if "custom_id" not in component:
            raise ValueError("link/premium buttons do not send interactions")
        data = {"custom_id": component["custom_id"], "component_type": int(ComponentType.BUTTON)}
        return self._component_handle(data, message=msg, user=user, locale=locale,
                                      description=f"click {component['custom_id']!r}")

    def build_select(
        self,
        message: MessageRef,
        custom_id: str,
        values: Sequence[Any],
        *,
        user: UserRef | None = None,
        locale: str | None = None,
    ) -> InteractionHandle:
        """Build a MESSAGE_COMPONENT interaction: ``user`` picks ``values`` in a select menu.

        For string selects the values must be option values of the menu and respect
        ``min_values``/``max_values``; user/role/channel selects take objects or ids and fill
        ``data.resolved``.
        """
        msg = self._resolve_message(message)
        component = msg.component(custom_id)
        kind = int(component.get("type", 0))
        if kind not in (3, 5, 6, 7, 8):
            raise ValueError(f"component {custom_id!r} is not a select menu")
        if component.get("disabled"):
            raise ValueError(f"select {custom_id!r} is disabled")
        lo, hi = int(component.get("min_values", 1)), int(component.get("max_values", 1))
        if not lo <= len(values) <= hi:
            raise ValueError(f"select {custom_id!r} takes {lo}..{hi} values, got {len(values)}")
        guild = self.guilds.get(msg.guild_id) if msg.guild_id else None
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": kind}
        if kind == ComponentType.STRING_SELECT:
            allowed = [o["value"] for o in component.get("options", [])]
            for value in values:
                if value not in allowed:
                    raise ValueError(f"{value!r} is not an option of select {custom_id!r}: {allowed}")
            data["values"] = list(values)
        else:
            resolved: dict[str, dict[str, Any]] = {}
            type_for = {5: OptionType.USER, 6: OptionType.ROLE, 8: OptionType.CHANNEL}
            data["values"] = [
                self._option_value(type_for.get(kind) or self._infer_option_type(v), v, resolved, guild) for v in values
            ]
            data["resolved"] = resolved
        return self._component_handle(data, message=msg, user=user, locale=locale,
                                      description=f"select {custom_id!r}={list(values)!r}")

    def build_component_interaction(
        self,
        custom_id: str,
        component_type: int = ComponentType.BUTTON,
        *,
        values: Sequence[str] | None = None,
        message: MessageRef | None = None,
        channel: ChannelRef | None = None,
        user: UserRef | None = None,
        locale: str | None = None,
    ) -> InteractionHandle:
        """Build a raw MESSAGE_COMPONENT interaction without checking the message's components
        (for edge cases: stale custom ids, messages the fake never stored...)."""
        msg = self._resolve_message(message) if message is not None else None
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": int(component_type)}
        if values is not None:
            data["values"] = list(values)
        return self._component_handle(data, message=msg, channel=channel, user=user, locale=locale,
                                      description=f"component {custom_id!r}")

    def _component_handle(self, data: dict[str, Any], *, message: FakeMessage | None, user: UserRef | None,
                          locale: str | None, description: str, channel: ChannelRef | None = None
                          ) -> InteractionHandle:
        """A MESSAGE_COMPONENT interaction carrying ``data``, on ``message`` (in its channel unless ``channel``
        says)."""
        return self._new_handle(InteractionType.MESSAGE_COMPONENT, data, user=user, channel=channel, locale=locale,
                                guild_locale=None, message=message, description=description)

    def build_modal_submit(
        self,
        modal_from: InteractionHandle,
        values: Mapping[str, str],
        *,
        user: UserRef | None = None,
        locale: str | None = None,
    ) -> InteractionHandle:
        """Build a MODAL_SUBMIT for the modal the bot opened (type 9 callback) on ``modal_from``.

        ``values`` maps each text input's ``custom_id`` (or its label) to the text typed.
        """
        callback = modal_from.callback
        if callback is None or callback.type != CallbackType.MODAL:
            raise ValueError(f"{modal_from!r} was not answered with a modal")
        modal = callback.data or {}
        remaining = dict(values)

        def value_for(component: dict[str, Any], label: str | None) -> str:
            for key in (component.get("custom_id"), label, component.get("label")):
                if key is not None and key in remaining:
                    return remaining.pop(key)
            return str(component.get("value") or "")

        def convert(component: dict[str, Any], label: str | None = None) -> dict[str, Any]:
            kind = component.get("type")
            if kind == ComponentType.ACTION_ROW:
                return {"type": 1, "components": [convert(c) for c in component.get("components", [])]}
            if kind == ComponentType.LABEL:
                return {"type": 18, "component": convert(component["component"], component.get("label"))}
            if kind == ComponentType.TEXT_INPUT:
                return {"type": 4, "custom_id": component["custom_id"], "value": value_for(component, label)}
            return {"type": kind, "custom_id": component.get("custom_id"), "values": []}

        components = [convert(c) for c in modal.get("components", [])]
        if remaining:
            raise ValueError(f"modal {modal.get('custom_id')!r} has no inputs {sorted(remaining)}")
        message = self._messages.get(modal_from.source_message_id) if modal_from.source_message_id else None
        data = {"custom_id": modal["custom_id"], "components": components}
        return self._new_handle(
            InteractionType.MODAL_SUBMIT,
            data,
            user=user or modal_from.user,
            channel=modal_from.channel,
            locale=locale or modal_from.payload.get("locale"),
            guild_locale=None,
            message=message,
            description=f"modal submit {modal['custom_id']!r}",
        )

    async def dispatch_interactions(self, *handles: InteractionHandle) -> list[InteractionHandle]:
        """Send INTERACTION_CREATE for each handle, back to back in one burst (no waiting for
        the bot in between: use it to simulate simultaneous clicks/commands)."""
        if self.session is None:
            raise RuntimeError("no bot session on the fake gateway (is the bot running?)")
        now = asyncio.get_running_loop().time()
        for handle in handles:
            handle.dispatched_at = now
        by_session: dict[str, tuple[GatewaySession, list[tuple[str, dict[str, Any]]]]] = {}
        for handle in handles:
            session = self.session_for(guild_of(handle.payload))
            assert session is not None
            by_session.setdefault(session.id, (session, []))[1].append(("INTERACTION_CREATE", handle.payload))
        for session, events in by_session.values():
            await self._dispatch_many(session, events)
        return list(handles)

    async def slash_command(
        self,
        command: str | Sequence[str],
        options: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> InteractionHandle:
        """Build and send a slash command (arguments of :meth:`build_slash_command`)."""
        return (await self.dispatch_interactions(self.build_slash_command(command, options, **kwargs)))[0]

    async def autocomplete(
        self,
        command: str | Sequence[str],
        focused: str,
        current: Any = "",
        options: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> InteractionHandle:
        """Build and send an autocomplete request (arguments of :meth:`build_autocomplete`)."""
        handle = self.build_autocomplete(command, focused, current, options, **kwargs)
        return (await self.dispatch_interactions(handle))[0]

    async def click_button(self, message: MessageRef, custom_id: str | None = None, **kwargs: Any) -> InteractionHandle:
        """Build and send a button click (arguments of :meth:`build_button_click`)."""
        return (await self.dispatch_interactions(self.build_button_click(message, custom_id, **kwargs)))[0]

    async def select(
        self, message: MessageRef, custom_id: str, values: Sequence[Any], **kwargs: Any
    ) -> InteractionHandle:
        """Build and send a select-menu choice (arguments of :meth:`build_select`)."""
        return (await self.dispatch_interactions(self.build_select(message, custom_id, values, **kwargs)))[0]

    async def submit_modal(
        self, modal_from: InteractionHandle, values: Mapping[str, str], **kwargs: Any
    ) -> InteractionHandle:
        """Build and send a modal submission (arguments of :meth:`build_modal_submit`)."""
        return (await self.dispatch_interactions(self.build_modal_submit(modal_from, values, **kwargs)))[0]
