"""REST: the bot's own user and application, other users, opening a DM channel, and guilds with their channels,
roles and members, read from the world (:mod:`.world`)."""

from __future__ import annotations

from typing import Any

from .entities import FakeGuild
from .routing import RecordedRequest, route
from .validation import ApiError


class Guilds:
    """The part of :class:`~tests.fakediscord.server.FakeDiscord` that answers about users and guilds."""


    @route("GET", "/users/@me")
    async def _r_get_me(self, rec: RecordedRequest) -> Any:
        return self.bot_user.to_client_user_payload()

    @route("GET", "/users/{user_id}")
    async def _r_get_user(self, rec: RecordedRequest, user_id: str) -> Any:
        user = self.users.get(int(user_id))
        if user is None:
            raise ApiError(404, 10013, "Unknown User")
        return user.to_payload()

    @route("POST", "/users/@me/channels")
    async def _r_create_dm(self, rec: RecordedRequest) -> Any:
        body = rec.json or {}
        user = self.users.get(int(body.get("recipient_id") or 0))
        if user is None:
            raise ApiError(404, 10013, "Unknown User")
        return self.dm_channel(user).to_payload()

    @route("GET", "/oauth2/applications/@me")
    @route("GET", "/applications/@me")
    async def _r_get_application(self, rec: RecordedRequest) -> Any:
        owner = next((u for u in self.users.values() if not u.bot), self.bot_user)
        return {
            "id": str(self.application_id),
            "name": self.bot_user.name,
            "icon": None,
            "description": "",
            "summary": "",
            "type": None,
            "bot": self.bot_user.to_payload(),
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": owner.to_payload(),
            "team": None,
            "verify_key": "0" * 64,
            "flags": self.application_flags,
            "rpc_origins": [],
            "tags": [],
            "redirect_uris": [],
            "interactions_endpoint_url": None,
            "approximate_guild_count": len(self.guilds),
        }

    def _guild_or_404(self, guild_id: str) -> FakeGuild:
        guild = self.guilds.get(int(guild_id))
        if guild is None or self.bot_user.id not in guild.members:
            raise ApiError(404, 10004, "Unknown Guild")
        return guild

    @route("GET", "/guilds/{guild_id}")
    async def _r_get_guild(self, rec: RecordedRequest, guild_id: str) -> Any:
        guild = self._guild_or_404(guild_id)
        payload = guild.to_payload()
        if rec.query.get("with_counts", "").lower() in ("1", "true"):
            payload.update(approximate_member_count=len(guild.members), approximate_presence_count=0)
        return payload

    @route("GET", "/guilds/{guild_id}/channels")
    async def _r_get_guild_channels(self, rec: RecordedRequest, guild_id: str) -> Any:
        guild = self._guild_or_404(guild_id)
        return [c.to_payload() for c in guild.channels.values() if not c.is_thread]

    @route("GET", "/guilds/{guild_id}/roles")
    async def _r_get_guild_roles(self, rec: RecordedRequest, guild_id: str) -> Any:
        return [r.to_payload() for r in self._guild_or_404(guild_id).roles.values()]

    @route("GET", "/guilds/{guild_id}/members")
    async def _r_list_members(self, rec: RecordedRequest, guild_id: str) -> Any:
        guild = self._guild_or_404(guild_id)
        after = int(rec.query.get("after", 0))
        limit = int(rec.query.get("limit", 1))
        members = sorted((m for m in guild.members.values() if m.user.id > after), key=lambda m: m.user.id)
        return [m.to_payload() for m in members[:limit]]

    @route("GET", "/guilds/{guild_id}/members/search")
    async def _r_search_members(self, rec: RecordedRequest, guild_id: str) -> Any:
        guild = self._guild_or_404(guild_id)
        query = rec.query.get("query", "").lower()
        limit = int(rec.query.get("limit", 1))
        found = [
            m
            for m in guild.members.values()
            if m.user.name.lower().startswith(query) or (m.nick or "").lower().startswith(query)
        ]
        return [m.to_payload() for m in found[:limit]]

    @route("GET", "/guilds/{guild_id}/members/{user_id}")
    async def _r_get_member(self, rec: RecordedRequest, guild_id: str, user_id: str) -> Any:
        member = self._guild_or_404(guild_id).members.get(int(user_id))
        if member is None:
            raise ApiError(404, 10007, "Unknown Member")
        return member.to_payload()
