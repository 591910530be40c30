"""REST: the application commands the bot syncs (global and per guild: bulk overwrite, create, read, edit,
delete), checked against Discord's limits, and what tests read of them (:meth:`AppCommands.synced_commands`)."""

from __future__ import annotations

from typing import Any

from .entities import GuildRef
from .routing import NO_CONTENT, RecordedRequest, copy_json, route
from .validation import ApiError, FormErrors, validate_command, validate_commands


class AppCommands:
    """The part of :class:`~tests.fakediscord.server.FakeDiscord` that stores application commands."""


    def synced_commands(self, guild: GuildRef | None = None) -> list[dict[str, Any]]:
        """The application commands as stored after the bot's syncs (global, or for a guild)."""
        scope = None if guild is None else self.guild(guild).id
        return copy_json(self._commands.get(scope, []))

    def synced_command(self, name: str, guild: GuildRef | None = None) -> dict[str, Any]:
        """One stored command by name (``KeyError`` if not synced)."""
        for command in self.synced_commands(guild):
            if command["name"] == name:
                return command
        raise KeyError(f"command {name!r} not synced (scope {guild!r})")

    def _check_app(self, app_id: str) -> None:
        if int(app_id) != self.application_id:
            raise ApiError(403, 50001, "Missing Access")

    def _scope(self, guild_id: str | None) -> int | None:
        if guild_id is None:
            return None
        scope = int(guild_id)
        if scope not in self.guilds:
            raise ApiError(404, 10004, "Unknown Guild")
        return scope

    def _store_command(self, scope: int | None, body: dict[str, Any], existing: list[dict[str, Any]]) -> dict[str, Any]:
        kind = int(body.get("type", 1))
        previous = next((c for c in existing if c["name"] == body.get("name") and c.get("type", 1) == kind), None)
        command = copy_json(body)
        command.update(
            id=previous["id"] if previous else str(self.snowflakes.next()),
            application_id=str(self.application_id),
            version=str(self.snowflakes.next()),
            type=kind,
        )
        command.setdefault("description", "")
        command.setdefault("default_member_permissions", None)
        command.setdefault("nsfw", False)
        command.setdefault("name_localizations", None)
        command.setdefault("description_localizations", None)
        if scope is not None:
            command["guild_id"] = str(scope)
        return command

    @route("GET", "/applications/{app_id}/commands")
    @route("GET", "/applications/{app_id}/guilds/{guild_id}/commands")
    async def _r_get_commands(self, rec: RecordedRequest, app_id: str, guild_id: str | None = None) -> Any:
        self._check_app(app_id)
        return copy_json(self._commands.get(self._scope(guild_id), []))

    @route("PUT", "/applications/{app_id}/commands")
    @route("PUT", "/applications/{app_id}/guilds/{guild_id}/commands")
    async def _r_put_commands(self, rec: RecordedRequest, app_id: str, guild_id: str | None = None) -> Any:
        self._check_app(app_id)
        scope = self._scope(guild_id)
        body = rec.json if isinstance(rec.json, list) else []
        if self.validate:
            errors = FormErrors()
            validate_commands(body, errors)
            errors.raise_if_any()
        existing = self._commands.get(scope, [])
        stored = [self._store_command(scope, c, existing) for c in body]
        self._commands[scope] = stored
        self.command_syncs.append((scope, copy_json(body)))
        return copy_json(stored)

    @route("POST", "/applications/{app_id}/commands")
    @route("POST", "/applications/{app_id}/guilds/{guild_id}/commands")
    async def _r_post_command(self, rec: RecordedRequest, app_id: str, guild_id: str | None = None) -> Any:
        self._check_app(app_id)
        scope = self._scope(guild_id)
        body = rec.json or {}
        if self.validate:
            errors = FormErrors()
            validate_command(body, "", errors)
            errors.raise_if_any()
        existing = self._commands.setdefault(scope, [])
        command = self._store_command(scope, body, existing)
        existing[:] = [c for c in existing if c["id"] != command["id"]] + [command]
        return copy_json(command)

    @route("GET", "/applications/{app_id}/guilds/{guild_id}/commands/permissions")
    async def _r_command_permissions(self, rec: RecordedRequest, app_id: str, guild_id: str) -> Any:
        """The commands' permissions in a guild: none set (the fake has no way to set them)."""
        return []

    def _command_by_id(self, scope: int | None, command_id: str) -> dict[str, Any]:
        for command in self._commands.get(scope, []):
            if command["id"] == command_id:
                return command
        raise ApiError(404, 10063, "Unknown application command")

    @route("GET", "/applications/{app_id}/commands/{command_id}")
    @route("GET", "/applications/{app_id}/guilds/{guild_id}/commands/{command_id}")
    async def _r_get_command(
        self, rec: RecordedRequest, app_id: str, command_id: str, guild_id: str | None = None
    ) -> Any:
        self._check_app(app_id)
        return copy_json(self._command_by_id(self._scope(guild_id), command_id))

    @route("PATCH", "/applications/{app_id}/commands/{command_id}")
    @route("PATCH", "/applications/{app_id}/guilds/{guild_id}/commands/{command_id}")
    async def _r_patch_command(
        self, rec: RecordedRequest, app_id: str, command_id: str, guild_id: str | None = None
    ) -> Any:
        self._check_app(app_id)
        command = self._command_by_id(self._scope(guild_id), command_id)
        command.update(copy_json(rec.json or {}))
        command["version"] = str(self.snowflakes.next())
        return copy_json(command)

    @route("DELETE", "/applications/{app_id}/commands/{command_id}")
    @route("DELETE", "/applications/{app_id}/guilds/{guild_id}/commands/{command_id}")
    async def _r_delete_command(
        self, rec: RecordedRequest, app_id: str, command_id: str, guild_id: str | None = None
    ) -> Any:
        self._check_app(app_id)
        scope = self._scope(guild_id)
        command = self._command_by_id(scope, command_id)
        self._commands[scope].remove(command)
        return NO_CONTENT
