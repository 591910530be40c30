"""Slash commands and autocomplete as a person types them: the command (and its subcommand group and
subcommand) looked up among those the bot synced, each option typed and checked against the synced schema (names,
required options, choices), users, channels, roles and attachments resolved into ``data.resolved``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .entities import ChannelRef, FakeChannel, FakeGuild, FakeRole, FakeUser, UserRef
from .handles import InteractionHandle
from .kinds import InteractionType, OptionType
from .message import FakeAttachment

_OPTION_TYPES: tuple[tuple[type, OptionType], ...] = (
    (FakeUser, OptionType.USER), (FakeChannel, OptionType.CHANNEL), (FakeRole, OptionType.ROLE),
    (FakeAttachment, OptionType.ATTACHMENT), (bool, OptionType.BOOLEAN), (int, OptionType.INTEGER),
    (float, OptionType.NUMBER),
)
"""The option type of a value by its class, first match wins (anything else is a string)."""


class SlashCommands:
    """The part of :class:`~tests.fakediscord.server.FakeDiscord` that builds slash commands."""

    def _find_command(self, name: str, guild: FakeGuild | None) -> tuple[dict[str, Any] | None, int | None]:
        if guild is not None:
            for command in self._commands.get(guild.id, []):
                if command["name"] == name and command.get("type", 1) == 1:
                    return command, guild.id
        for command in self._commands.get(None, []):
            if command["name"] == name and command.get("type", 1) == 1:
                return command, None
        if self.require_synced_commands:
            known = sorted({c["name"] for cmds in self._commands.values() for c in cmds})
            raise LookupError(f"slash command {name!r} was not synced by the bot; synced: {known}")
        return None, guild.id if guild is not None else None

    def build_slash_command(self, command: str | Sequence[str], options: Mapping[str, Any] | None = None, *,
                            user: UserRef | None = None, channel: ChannelRef | None = None, locale: str | None = None,
                            guild_locale: str | None = None) -> InteractionHandle:
        """Build (not send) an APPLICATION_COMMAND interaction.

        :param command: ``"game new"`` or ``["game", "new"]``: the command, then the optional
            subcommand group and subcommand.
        :param options: option name -> value. With the command synced, option types come from
            the synced schema (and names, required options and choices are checked); without
            it they are inferred (bool, int, float, str, FakeUser, FakeChannel, FakeRole,
            FakeAttachment). Users, channels, roles and attachments fill ``data.resolved``.
        :param user: who runs it (default: the first user); ``locale`` defaults to theirs.
        :param channel: where (default: the default channel); pass ``fake.dm_channel(user)``
            for a DM. ``guild_locale`` defaults to the guild's ``preferred_locale``.
        """
        return self._build_command(InteractionType.APPLICATION_COMMAND, command, options, focused=None, current=None,
                                   user=user, channel=channel, locale=locale, guild_locale=guild_locale)

    def build_autocomplete(self, command: str | Sequence[str], focused: str, current: Any = "",
                           options: Mapping[str, Any] | None = None, *, user: UserRef | None = None,
                           channel: ChannelRef | None = None, locale: str | None = None,
                           guild_locale: str | None = None) -> InteractionHandle:
        """Build an APPLICATION_COMMAND_AUTOCOMPLETE interaction: the user is typing
        ``current`` into option ``focused``; ``options`` are the other options already filled."""
        return self._build_command(InteractionType.APPLICATION_COMMAND_AUTOCOMPLETE, command, options,
                                   focused=focused, current=current, user=user, channel=channel, locale=locale,
                                   guild_locale=guild_locale)

    def _build_command(
        self,
        interaction_type: InteractionType,
        command: str | Sequence[str],
        options: Mapping[str, Any] | None,
        *,
        focused: str | None,
        current: Any,
        user: UserRef | None,
        channel: ChannelRef | None,
        locale: str | None,
        guild_locale: str | None,
    ) -> InteractionHandle:
        path = command.split() if isinstance(command, str) else list(command)
        if not path:
            raise ValueError("empty command path")
        ch = self.channel(channel)
        guild = self.guilds.get(ch.guild_id) if ch.guild_id else None
        schema, scope = self._find_command(path[0], guild)
        data: dict[str, Any] = {
            "id": schema["id"] if schema else str(self.snowflakes.next()),
            "name": path[0],
            "type": 1,
        }
        if scope is not None and schema is not None:
            data["guild_id"] = str(scope)
        resolved: dict[str, dict[str, Any]] = {}
        opts = self._build_options(schema.get("options") if schema else None, path[1:], dict(options or {}), focused,
                                   current, resolved, guild, where=path[0])
        if opts:
            data["options"] = opts
        if resolved:
            data["resolved"] = resolved
        kind = "autocomplete" if focused else "/"
        return self._new_handle(interaction_type, data, user=user, channel=ch, locale=locale, guild_locale=guild_locale,
                                description=f"{kind}{' '.join(path)}")

    def _build_options(
        self,
        schema: list[dict[str, Any]] | None,
        subpath: list[str],
        values: dict[str, Any],
        focused: str | None,
        current: Any,
        resolved: dict[str, dict[str, Any]],
        guild: FakeGuild | None,
        *,
        where: str,
    ) -> list[dict[str, Any]]:
        if subpath:
            name = subpath[0]
            sub = next((o for o in schema or [] if o["name"] == name), None)
            if schema is not None and sub is None:
                raise ValueError(f"{where!r} has no subcommand {name!r}; has {[o['name'] for o in schema]}")
            if sub is not None:
                kind = sub["type"]
                if kind not in (OptionType.SUB_COMMAND, OptionType.SUB_COMMAND_GROUP):
                    raise ValueError(f"{where} {name} is an option, not a subcommand")
            else:
                kind = OptionType.SUB_COMMAND_GROUP if len(subpath) > 1 else OptionType.SUB_COMMAND
            inner = self._build_options(sub.get("options") if sub else None, subpath[1:], values, focused, current,
                                        resolved, guild, where=f"{where} {name}")
            return [{"type": int(kind), "name": name, "options": inner}]

        if schema is not None and any(o["type"] in (1, 2) for o in schema):
            raise ValueError(f"{where!r} needs a subcommand: {[o['name'] for o in schema]}")
        by_name = {o["name"]: o for o in schema or []}
        result: list[dict[str, Any]] = []
        if focused is not None and focused not in values:
            values = {**values, focused: current}
        for name, value in values.items():
            spec = by_name.get(name)
            if schema is not None and spec is None:
                raise ValueError(f"{where!r} has no option {name!r}; has {sorted(by_name)}")
            kind = spec["type"] if spec else self._infer_option_type(value)
            option: dict[str, Any] = {"name": name, "type": int(kind)}
            if name == focused:
                option["value"] = current
                option["focused"] = True
            else:
                option["value"] = self._option_value(kind, value, resolved, guild)
                choices = (spec or {}).get("choices")
                if choices and option["value"] not in [c["value"] for c in choices]:
                    raise ValueError(f"{value!r} is not a choice of {where} {name}: {choices}")
            result.append(option)
        if focused is None:
            missing = [o["name"] for o in schema or [] if o.get("required") and o["name"] not in values]
            if missing:
                raise ValueError(f"{where!r} requires options {missing}")
        return result

    @staticmethod
    def _infer_option_type(value: Any) -> OptionType:
        """The option type of a value given without a synced schema (a bool before an int: a bool is an int)."""
        return next((kind for cls, kind in _OPTION_TYPES if isinstance(value, cls)), OptionType.STRING)

    def _option_value(self, kind: int, value: Any, resolved: dict[str, dict[str, Any]], guild: FakeGuild | None) -> Any:
        if kind == OptionType.STRING:
            return str(value)
        if kind == OptionType.INTEGER:
            return int(value)
        if kind == OptionType.NUMBER:
            return float(value) if not isinstance(value, int) else value
        if kind == OptionType.BOOLEAN:
            return bool(value)
        if kind == OptionType.USER or (kind == OptionType.MENTIONABLE and not isinstance(value, FakeRole)):
            user = self.user(value)
            resolved.setdefault("users", {})[str(user.id)] = user.to_payload()
            if guild is not None and user.id in guild.members:
                member = guild.members[user.id].to_payload(with_user=False, permissions=guild.permissions_of(user.id))
                resolved.setdefault("members", {})[str(user.id)] = member
            return str(user.id)
        if kind in (OptionType.ROLE, OptionType.MENTIONABLE):
            role = value if isinstance(value, FakeRole) else self._find_role(int(value), guild)
            resolved.setdefault("roles", {})[str(role.id)] = role.to_payload()
            return str(role.id)
        if kind == OptionType.CHANNEL:
            channel = self.channel(value)
            perms = guild.permissions_of(self.bot_user.id) if guild is not None else 0
            resolved.setdefault("channels", {})[str(channel.id)] = channel.to_resolved_payload(perms)
            return str(channel.id)
        if kind == OptionType.ATTACHMENT:
            if not isinstance(value, FakeAttachment):
                raise TypeError("attachment options take a FakeAttachment (see fake.make_attachment)")
            resolved.setdefault("attachments", {})[str(value.id)] = value.to_payload()
            return str(value.id)
        return value

    def _find_role(self, role_id: int, guild: FakeGuild | None) -> FakeRole:
        for g in [guild] if guild is not None else list(self.guilds.values()):
            if g is not None and role_id in g.roles:
                return g.roles[role_id]
        raise KeyError(f"no role with id {role_id}")
