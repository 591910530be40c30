"""The world a test sets up and looks things up in: users, guilds, text channels, roles, members, DM channels
(the default world: one guild "Fake Guild" with #general and #games, and alice (en-US), bob (de) and carol (fr)
in it), and taking the bot out of a guild. Threads are made in :mod:`.threads`; the REST routes that read this
world in :mod:`.guilds`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

from .entities import ChannelRef, FakeChannel, FakeGuild, FakeMember, FakeRole, FakeUser, GuildRef, UserRef
from .kinds import DEFAULT_PERMISSIONS, ChannelType
from .message import FakeMessage


class World:
    """The part of :class:`~tests.fakediscord.server.FakeDiscord` that holds the world."""

    def populate_defaults(self) -> None:
        """Create the default world: one guild, two text channels, three users."""
        alice = self.add_user("alice", locale="en-US", global_name="Alice")
        bob = self.add_user("bob", locale="de", global_name="Bob")
        carol = self.add_user("carol", locale="fr", global_name="Carol")
        guild = self.add_guild("Fake Guild", owner=alice, channels=("general", "games"))
        for user in (bob, carol):
            self.add_member(guild, user)

    def add_user(
        self,
        name: str,
        *,
        locale: str = "en-US",
        global_name: str | None = None,
        blocks_dms: bool = False,
        bot: bool = False,
    ) -> FakeUser:
        """Create a user (not yet a member of any guild; see :meth:`add_member`)."""
        user = FakeUser(
            id=self.snowflakes.next(),
            name=name,
            global_name=global_name,
            locale=locale,
            blocks_dms=blocks_dms,
            bot=bot,
        )
        self.users[user.id] = user
        return user

    def add_guild(
        self,
        name: str,
        *,
        owner: UserRef | None = None,
        preferred_locale: str = "en-US",
        channels: Sequence[str] = ("general",),
        everyone_permissions: int | None = None,
        bot_permissions: int | None = None,
        shard: tuple[int, int] | None = None,
    ) -> FakeGuild:
        """Create a guild with text channels; the owner and the bot become members.

        ``shard=(shard_id, shard_count)`` gives it an id that Discord would route to that shard.

        ``everyone_permissions`` defaults to :data:`~tests.fakediscord.kinds.DEFAULT_PERMISSIONS`;
        the bot gets a managed role with ``bot_permissions`` (same default).
        """
        owner_user = self.user(owner) if owner is not None else None
        guild_id = self.snowflakes.next() if shard is None else self.snowflakes.next_on_shard(*shard)
        guild = FakeGuild(
            id=guild_id,
            name=name,
            owner_id=owner_user.id if owner_user else self.bot_user.id,
            preferred_locale=preferred_locale,
        )
        perms = DEFAULT_PERMISSIONS if everyone_permissions is None else everyone_permissions
        guild.roles[guild_id] = FakeRole(id=guild_id, name="@everyone", permissions=perms)
        self.guilds[guild_id] = guild
        bot_role = self.add_role(
            guild, self.bot_user.name, permissions=DEFAULT_PERMISSIONS if bot_permissions is None else bot_permissions
        )
        bot_role.managed = True
        bot_role.bot_id = self.bot_user.id
        self.add_member(guild, self.bot_user, roles=[bot_role])
        if owner_user is not None:
            self.add_member(guild, owner_user)
        for channel_name in channels:
            self.add_text_channel(guild, channel_name)
        return guild

    def add_text_channel(self, guild: GuildRef, name: str, *, topic: str | None = None) -> FakeChannel:
        """Create a text channel in a guild."""
        g = self.guild(guild)
        channel = FakeChannel(
            id=self.snowflakes.next(),
            type=ChannelType.GUILD_TEXT,
            name=name,
            guild_id=g.id,
            position=len(g.channels),
            topic=topic,
        )
        g.channels[channel.id] = channel
        self.channels[channel.id] = channel
        return channel

    def add_role(self, guild: GuildRef, name: str, *, permissions: int = 0) -> FakeRole:
        """Create a role in a guild."""
        g = self.guild(guild)
        role = FakeRole(id=self.snowflakes.next(), name=name, permissions=permissions, position=len(g.roles))
        g.roles[role.id] = role
        return role

    def add_member(
        self, guild: GuildRef, user: UserRef, *, nick: str | None = None, roles: Iterable[FakeRole | int] = ()
    ) -> FakeMember:
        """Make a user a member of a guild (call before the bot connects, or dispatch yourself)."""
        g = self.guild(guild)
        u = self.user(user)
        role_ids = [r.id if isinstance(r, FakeRole) else int(r) for r in roles]
        member = FakeMember(user=u, role_ids=role_ids, nick=nick)
        g.members[u.id] = member
        return member

    def block_dms(self, user: UserRef, blocked: bool = True) -> None:
        """Make sending to this user's DM channel fail with 403 / 50007 (or stop failing)."""
        self.user(user).blocks_dms = blocked

    def dm_channel(self, user: UserRef) -> FakeChannel:
        """The DM channel between the bot and ``user`` (created on first use, stable after)."""
        u = self.user(user)
        channel = self._dm_channels.get(u.id)
        if channel is None:
            channel = FakeChannel(id=self.snowflakes.next(), type=ChannelType.DM, recipient=u)
            self._dm_channels[u.id] = channel
            self.channels[channel.id] = channel
        return channel

    def user(self, ref: UserRef) -> FakeUser:
        """A user by object, id or name."""
        return _look_up(ref, FakeUser, self.users, lambda: list(self.users.values()), "user")

    def guild(self, ref: GuildRef | None = None) -> FakeGuild:
        """A guild by object, id or name; ``None`` gives :attr:`default_guild`."""
        if ref is None:
            return self.default_guild
        return _look_up(ref, FakeGuild, self.guilds, lambda: list(self.guilds.values()), "guild")

    def channel(self, ref: ChannelRef | None = None) -> FakeChannel:
        """A channel by object, id, or name (searched in the default guild first, then all);
        ``None`` gives :attr:`default_channel`."""
        if ref is None:
            return self.default_channel
        return _look_up(ref, FakeChannel, self.channels,
                        lambda: [channel for guild in self.guilds.values() for channel in guild.channels.values()],
                        "channel")

    @property
    def default_guild(self) -> FakeGuild:
        """The first guild created."""
        if not self.guilds:
            raise LookupError("the fake has no guild; call add_guild()")
        return next(iter(self.guilds.values()))

    @property
    def default_channel(self) -> FakeChannel:
        """The first text channel of the default guild."""
        for channel in self.default_guild.channels.values():
            if channel.type == ChannelType.GUILD_TEXT:
                return channel
        raise LookupError("the default guild has no text channel")

    @property
    def default_user(self) -> FakeUser:
        """The first non-bot user created."""
        for user in self.users.values():
            if not user.bot:
                return user
        raise LookupError("the fake has no user; call add_user()")

    def message(self, message_id: int) -> FakeMessage:
        """A stored message by id."""
        try:
            return self._messages[message_id]
        except KeyError:
            raise KeyError(f"no message with id {message_id}") from None

    async def remove_guild(self, guild: GuildRef) -> None:
        """Remove the bot from a guild (kicked, or the guild deleted): a connected bot gets GUILD_DELETE without
        ``unavailable`` (one not connected finds the guild missing from its next READY); its later requests to the
        guild's channels answer 403 / 50001 Missing Access."""
        g = self.guild(guild)
        if self.is_connected:
            await self.dispatch("GUILD_DELETE", {"id": str(g.id)})
        g.members.pop(self.bot_user.id, None)
        self.notify()


Named = TypeVar("Named", FakeUser, FakeGuild, FakeChannel)


def _look_up(ref: Named | int | str, kind: type[Named], by_id: Mapping[int, Named],
             listed: Callable[[], Sequence[Named]], what: str) -> Named:
    """``ref`` itself, the one of ``by_id`` with that id, or the first of ``listed()`` with that name (listed only
    for a name: a fake of 10,000 channels is asked by id many times a second)."""
    if isinstance(ref, kind):
        return ref
    if isinstance(ref, int):
        try:
            return by_id[ref]
        except KeyError:
            raise KeyError(f"no {what} with id {ref}") from None
    named = listed()
    found = next((x for x in named if x.name == ref), None)
    if found is None:
        raise KeyError(f"no {what} named {ref!r}; {what}s: {[x.name for x in named]}")
    return found
