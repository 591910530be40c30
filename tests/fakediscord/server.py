"""An in-process fake of Discord's REST API v10 and gateway, for end-to-end bot tests.

:class:`FakeDiscord` runs an aiohttp server on ``127.0.0.1`` (random free port) that serves

* the REST API under ``/api/v10/...`` (users, applications and their commands, interaction
  callbacks, interaction webhooks, channels, messages, DMs, guilds, members, threads), and
* the gateway websocket (HELLO, IDENTIFY -> READY + GUILD_CREATE, heartbeats, RESUME,
  member chunk requests), speaking plain JSON or ``zlib-stream`` as the client asks.

Unmodified discord.py is pointed at it with :func:`tests.fakediscord.fixtures.patch_discord`.
Tests then drive the bot by dispatching interactions (``await fake.slash_command(...)``,
``fake.click_button(...)``...) and inspect what the bot did through the recorded requests,
stored messages, synced commands and per-interaction :class:`InteractionHandle` objects.

Everything runs on the test's event loop; every wait is event driven (no sleeps) with a
generous timeout, and a timeout raises :class:`FakeDiscordTimeout` with a diagnostic dump.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import secrets
import socket
import time
import traceback
import zlib
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar
from urllib.parse import unquote

import aiohttp
from aiohttp import web

from . import audit, openapi
from .builders import (
    DEFAULT_PERMISSIONS,
    EPHEMERAL,
    IS_COMPONENTS_V2,
    LOADING,
    TINY_PNG,
    VALID_LOCALES,
    ApiError,
    CallbackType,
    ChannelType,
    ComponentType,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    FormErrors,
    InteractionType,
    OptionType,
    RateLimited,
    SnowflakeGenerator,
    UploadedFile,
    guess_content_type,
    interaction_payload,
    iso_now,
    validate_choices,
    validate_command,
    validate_commands,
    validate_message,
    validate_modal,
)
from .emojis import Answer, ApplicationEmojis

__all__ = [
    "DEFAULT_TIMEOUT",
    "ApiError",
    "FakeDiscord",
    "FakeDiscordTimeout",
    "GatewayConnection",
    "GatewaySession",
    "InteractionCallback",
    "InteractionHandle",
    "RecordedRequest",
    "UploadedFile",
]

_log = logging.getLogger(__name__)

#: Default timeout (seconds) of every ``wait_*`` helper: generous, for slow CI machines.
DEFAULT_TIMEOUT = 15.0
POLL_CAP = 0.005
"""The longest pause between two looks at a condition given a ``poll`` to :meth:`FakeDiscord.wait_until` (on state
the fake does not see, e.g. the bot's database): such a look is cheap, and each pause the condition was already true
in is time the test waits for nothing, a few thousand times a run."""

T = TypeVar("T")

REFUSED_BODIES: list[str] = []
"""Every request body that Discord's API description refuses, from every fake of this process, as "METHOD path:
where: why" (also in the fake's :attr:`FakeDiscord.refused_bodies`). The ``fake_discord`` plugin fails the test in
which one appears (:func:`tests.fakediscord.fixtures.no_body_discord_refuses`): the fake answered it as Discord
would (400, 50035), and a bot that sends it has a bug, even where it copes with the refusal."""

BROKEN_PICTURES: list[str] = []
"""Every file the bot uploaded that Discord shows as a picture but that holds none (:func:`audit.broken_picture`:
an empty ``board.png``, say), from every fake of this process, as "METHOD path: filename (N bytes)" (also in the
fake's :attr:`FakeDiscord.broken_pictures`). Discord takes it as it takes any file and players see a broken picture;
the ``fake_discord`` plugin fails the test in which one appears (:func:`tests.fakediscord.fixtures.no_broken_picture`).
"""


def _copy(value: T) -> T:
    """A copy of JSON data (a request's body, a stored command) that shares nothing with it: the fake keeps what it
    received apart from the recorded request. A round trip through the C encoder, several times quicker than
    ``copy.deepcopy`` for the same data (a command sync is copied three times at every bot start)."""
    copied: T = json.loads(json.dumps(value))
    return copied


_FORM_ERROR_CODES = {
    "maxLength": "BASE_TYPE_BAD_LENGTH", "minLength": "BASE_TYPE_BAD_LENGTH", "maxItems": "BASE_TYPE_BAD_LENGTH",
    "minItems": "BASE_TYPE_BAD_LENGTH", "maximum": "NUMBER_TYPE_MAX", "minimum": "NUMBER_TYPE_MIN",
    "required": "BASE_TYPE_REQUIRED", "enum": "BASE_TYPE_CHOICES", "type": "BASE_TYPE_INVALID",
}
"""Discord's error code in an "Invalid Form Body" answer for the keyword of the description a body breaks."""

UserRef = FakeUser | int | str
ChannelRef = FakeChannel | int | str
GuildRef = FakeGuild | int | str
MessageRef = FakeMessage | int

# Gateway opcodes.
OP_DISPATCH = 0
OP_HEARTBEAT = 1
OP_IDENTIFY = 2
OP_PRESENCE = 3
OP_VOICE_STATE = 4
OP_RESUME = 6
OP_RECONNECT = 7
OP_REQUEST_MEMBERS = 8
OP_INVALID_SESSION = 9
OP_HELLO = 10
OP_HEARTBEAT_ACK = 11

INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_PRESENCES = 1 << 8
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15
PRIVILEGED_INTENTS = INTENT_GUILD_MEMBERS | INTENT_GUILD_PRESENCES | INTENT_MESSAGE_CONTENT


_DENIABLE: Final = {"send_messages": 1 << 11, "attach_files": 1 << 15, "send_messages_in_threads": 1 << 38,
                    "create_public_threads": 1 << 35, "manage_threads": 1 << 34}
"""The permissions :meth:`FakeDiscord.deny_permission` can take from the bot in a channel, with their bits (Discord's
permissions topic): an interaction's ``app_permissions`` lack the bits denied in its channel."""


class FakeDiscordTimeout(AssertionError):
    """A ``wait_*`` helper timed out; the message explains what was awaited and what happened."""


_NO_CONTENT = object()


@dataclass
class RecordedRequest:
    """One REST request the fake received, with what it answered."""

    method: str
    #: Path below the API prefix, e.g. ``/channels/123/messages``.
    path: str
    query: dict[str, str]
    #: Decoded JSON body, or the decoded ``payload_json`` part of a multipart body.
    json: Any
    files: list[UploadedFile]
    headers: dict[str, str]
    #: Whether a route matched (unknown routes answer 404 and are listed in ``unknown_requests``).
    known: bool = True
    status: int | None = None
    response: Any = None
    response_headers: dict[str, str] = field(default_factory=dict)
    """Headers the answer carried besides its content type (a rate limit's)."""

    @property
    def route(self) -> str:
        """``"METHOD /path"``."""
        return f"{self.method} {self.path}"

    def __str__(self) -> str:
        extra = f" files={[f.filename for f in self.files]}" if self.files else ""
        return f"{self.method} {self.path} -> {self.status}{extra}"


@dataclass
class InteractionCallback:
    """What the bot answered to ``POST /interactions/{id}/{token}/callback``."""

    type: int
    data: dict[str, Any] | None
    files: list[UploadedFile] = field(default_factory=list)

    @property
    def kind(self) -> CallbackType | int:
        """The type as a :class:`CallbackType` when known."""
        try:
            return CallbackType(self.type)
        except ValueError:
            return self.type

    @property
    def flags(self) -> int:
        """``data.flags`` (0 if absent)."""
        return int((self.data or {}).get("flags") or 0)

    @property
    def ephemeral(self) -> bool:
        """Whether the answer (message or deferral) is ephemeral."""
        return bool(self.flags & EPHEMERAL)

    @property
    def content(self) -> str | None:
        """``data.content``."""
        return (self.data or {}).get("content")

    @property
    def embeds(self) -> list[dict[str, Any]]:
        """``data.embeds``."""
        return list((self.data or {}).get("embeds") or [])

    @property
    def components(self) -> list[dict[str, Any]]:
        """``data.components``."""
        return list((self.data or {}).get("components") or [])

    @property
    def choices(self) -> list[dict[str, Any]]:
        """Autocomplete choices (type 8)."""
        return list((self.data or {}).get("choices") or [])


@dataclass
class GatewaySession:
    """A gateway session (created by IDENTIFY, continued by RESUME)."""

    id: str
    identify: dict[str, Any]
    seq: int = 0
    #: Every dispatch sent in this session (for RESUME replays and for inspection).
    events: list[dict[str, Any]] = field(default_factory=list)
    connection: GatewayConnection | None = None
    #: True once the session cannot be resumed any more: the bot closed with 1000/1001, a new
    #: IDENTIFY replaced it, or :meth:`FakeDiscord.end_sessions` was called. (discord.py's
    #: ``close()`` actually closes with 4000, so ``run_bot`` ends the session explicitly.)
    ended: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def intents(self) -> int:
        """The intents the bot identified with."""
        return int(self.identify.get("intents") or 0)

    @property
    def shard(self) -> tuple[int, int]:
        """``(shard_id, shard_count)`` the bot identified with; ``(0, 1)`` without sharding."""
        shard = self.identify.get("shard") or (0, 1)
        return int(shard[0]), int(shard[1])

    def serves(self, guild_id: int | None) -> bool:
        """Whether Discord would send this guild's events on this session: ``(guild_id >> 22) % shard_count``
        is its shard; events without a guild (DMs) go to shard 0."""
        shard_id, count = self.shard
        return shard_id == (0 if guild_id is None else shard_of(guild_id, count))


def shard_of(guild_id: int, shard_count: int) -> int:
    """The shard that receives a guild's events (Discord's formula)."""
    return (guild_id >> 22) % shard_count


class GatewayConnection:
    """One websocket connection to the fake gateway."""

    def __init__(self, ws: web.WebSocketResponse, query: Mapping[str, str], compress: bool) -> None:
        self.ws = ws
        self.query = dict(query)
        #: Whether frames are sent as zlib-stream binary frames (else JSON text frames).
        self.compressed = compress
        self._compressor = zlib.compressobj() if compress else None
        self._lock = asyncio.Lock()
        self.session: GatewaySession | None = None
        self.closed = False
        self.close_code: int | None = None
        #: Every frame sent, decoded (in order).
        self.sent: list[dict[str, Any]] = []
        #: Every frame received from the client, decoded (in order).
        self.received: list[dict[str, Any]] = []

    async def send(self, payload: dict[str, Any]) -> None:
        """Send one gateway frame (ignored if the socket is already closed)."""
        text = json.dumps(payload, separators=(",", ":"))
        async with self._lock:
            if self.closed or self.ws.closed:
                return
            self.sent.append(payload)
            try:
                if self._compressor is not None:
                    data = self._compressor.compress(text.encode()) + self._compressor.flush(zlib.Z_SYNC_FLUSH)
                    await self.ws.send_bytes(data)
                else:
                    await self.ws.send_str(text)
            except (ConnectionError, RuntimeError) as exc:  # peer vanished mid-send
                _log.debug("gateway send failed: %s", exc)


class InteractionHandle:
    """One interaction the test dispatched, and everything the bot did with its token.

    Created by the ``fake.build_*`` methods (not yet sent) or returned by the sending helpers
    (``await fake.slash_command(...)``). Await the bot's reaction with the ``wait_for_*``
    methods; plain attributes give the state right now.
    """

    def __init__(
        self,
        fake: FakeDiscord,
        *,
        payload: dict[str, Any],
        user: FakeUser,
        channel: FakeChannel,
        guild: FakeGuild | None,
        source_message_id: int | None = None,
        description: str = "",
    ) -> None:
        self.fake = fake
        #: The INTERACTION_CREATE ``d`` payload.
        self.payload = payload
        self.id = int(payload["id"])
        self.token: str = payload["token"]
        self.type = InteractionType(payload["type"])
        self.user = user
        self.channel = channel
        self.guild = guild
        #: For component / modal interactions: the message the component is on.
        self.source_message_id = source_message_id
        self.description = description or f"{self.type.name} interaction {self.id}"
        #: Loop time when the INTERACTION_CREATE frame was sent (None until dispatched).
        self.dispatched_at: float | None = None
        #: The accepted callback (``None`` until the bot answered).
        self.callback: InteractionCallback | None = None
        #: Callbacks the fake rejected (e.g. a second acknowledgement, a validation error).
        self.rejected_callbacks: list[tuple[InteractionCallback, ApiError]] = []
        #: Id of the message created by a type 4/5 callback.
        self.original_message_id: int | None = None
        #: Ids of messages created (or filled, after a type 5 deferral) through the followup webhook.
        self.followup_ids: list[int] = []
        #: JSON bodies of every edit of the original response (``PATCH .../messages/@original``).
        self.original_edits: list[dict[str, Any]] = []
        #: Every REST request made with this interaction's id or token.
        self.requests: list[RecordedRequest] = []
        self._first_followup_fills_original = False

    def __repr__(self) -> str:
        state = self.callback.kind if self.callback else "pending"
        return f"<InteractionHandle {self.description} id={self.id} callback={state}>"

    # -- state ----------------------------------------------------------------------

    @property
    def data(self) -> dict[str, Any]:
        """The interaction's ``data`` object."""
        return self.payload.get("data") or {}

    @property
    def acknowledged(self) -> bool:
        """Whether the bot answered the interaction."""
        return self.callback is not None

    @property
    def original_message(self) -> FakeMessage | None:
        """The message the interaction's ``@original`` refers to right now.

        That is the message of a type 4/5 callback, else (for component interactions answered
        with type 6/7) the message the component is on.
        """
        mid = self._original_id()
        return self.fake._messages.get(mid) if mid is not None else None

    @property
    def followups(self) -> list[FakeMessage]:
        """Messages sent through the followup webhook, in order (current state)."""
        return [self.fake._messages[mid] for mid in self.followup_ids]

    @property
    def messages(self) -> list[FakeMessage]:
        """The original response (unless still loading) followed by the followups, deduplicated."""
        result: list[FakeMessage] = []
        original = self.original_message
        # a component's message counts once this interaction changed it (type 7, or an edit)
        changed = (
            self.original_message_id is not None
            or self.original_edits
            or (self.callback is not None and self.callback.type == CallbackType.UPDATE_MESSAGE)
        )
        if original is not None and changed and not original.loading and not original.deleted:
            result.append(original)
        for msg in self.followups:
            if msg not in result and not msg.deleted:
                result.append(msg)
        return result

    def _original_id(self) -> int | None:
        if self.original_message_id is not None:
            return self.original_message_id
        if self.callback is not None and self.callback.type in (
            CallbackType.DEFERRED_UPDATE_MESSAGE,
            CallbackType.UPDATE_MESSAGE,
        ):
            return self.source_message_id
        return None

    # -- waiting --------------------------------------------------------------------

    async def wait_until(
        self, predicate: Callable[[InteractionHandle], T], *, timeout: float = DEFAULT_TIMEOUT, what: str = ""
    ) -> T:
        """Wait until ``predicate(self)`` is truthy and return its value."""
        return await self.fake.wait_until(
            lambda: predicate(self), timeout=timeout, description=f"{what or 'condition'} for {self!r}"
        )

    async def wait_for_callback(self, *, timeout: float = DEFAULT_TIMEOUT) -> InteractionCallback:
        """Wait for the bot's interaction callback (its first answer) and return it."""
        return await self.wait_until(lambda h: h.callback, timeout=timeout, what="the interaction callback")

    async def wait_for_followup(self, count: int = 1, *, timeout: float = DEFAULT_TIMEOUT) -> FakeMessage:
        """Wait until at least ``count`` followups were sent; return the ``count``-th one."""

        def check(h: InteractionHandle) -> FakeMessage | None:
            return h.followups[count - 1] if len(h.followup_ids) >= count else None

        return await self.wait_until(check, timeout=timeout, what=f"followup #{count}")

    async def wait_for_original_edit(self, count: int = 1, *, timeout: float = DEFAULT_TIMEOUT) -> FakeMessage:
        """Wait until the original response was edited ``count`` times; return the message."""

        def check(h: InteractionHandle) -> FakeMessage | None:
            return h.original_message if len(h.original_edits) >= count else None

        return await self.wait_until(check, timeout=timeout, what=f"edit #{count} of the original response")

    async def wait_for_message(
        self, predicate: Callable[[FakeMessage], object] | None = None, *, timeout: float = DEFAULT_TIMEOUT
    ) -> FakeMessage:
        """Wait for a visible answer (original response or followup) matching ``predicate``.

        Works whatever way the bot answered: direct reply, deferral then edit, deferral then
        followup, or (for components) updating the clicked message.
        """

        def check(h: InteractionHandle) -> FakeMessage | None:
            for msg in h.messages:
                if predicate is None or predicate(msg):
                    return msg
            return None

        return await self.wait_until(check, timeout=timeout, what="an answer message")


@dataclass(eq=False)
class _InjectedError:
    method: str
    pattern: re.Pattern[str]
    error: ApiError
    remaining: int | None
    after: bool = False
    """Carry the request out first, then answer with the error (the answer is what got lost)."""


@dataclass(eq=False)
class Stall:
    """A request held on its way, as a slow network or a busy Discord holds it: :attr:`arrived` is set when the
    matching request comes; it is carried out once :meth:`release` is called."""

    method: str
    pattern: re.Pattern[str]
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    released: asyncio.Event = field(default_factory=asyncio.Event)

    def release(self) -> None:
        self.released.set()


@dataclass(eq=False)
class _Route:
    method: str
    pattern: re.Pattern[str]
    handler: Callable[..., Awaitable[Any]]
    auth: bool = True


class FakeDiscord:
    """A fake Discord (REST + gateway) on 127.0.0.1 for driving a discord.py bot in tests.

    Typical use (see :mod:`tests.fakediscord.fixtures` for the pytest glue)::

        async with FakeDiscord() as fake, patch_discord(fake), run_bot(bot, fake):
            handle = await fake.slash_command("game new", {"players": 3}, user="alice")
            msg = await handle.wait_for_message()

    The world (users, guilds, channels) can be changed before the bot connects; with
    ``populate=True`` (default) it starts with one guild ("Fake Guild", channels #general and
    #games) and the users alice (en-US), bob (de) and carol (fr), all guild members.
    """

    def __init__(
        self,
        *,
        token: str = "fake-bot-token",
        bot_name: str = "FakeBot",
        application_id: int | None = None,
        application_flags: int = 0,
        populate: bool = True,
        gateway_compression: bool = True,
        heartbeat_interval_ms: int = 41_250,
        dispatch_message_events: bool = True,
        validate: bool = True,
        require_synced_commands: bool = True,
        allow_privileged_intents: bool = True,
        callback_deadline: float | None = None,
        shard_count: int = 1,
    ) -> None:
        """Create the fake (call :meth:`start`, or use ``async with``, to serve it).

        :param token: the bot token REST calls and IDENTIFY must carry.
        :param application_id: defaults to the bot user's id, as for any modern Discord app.
        :param gateway_compression: honour ``compress=zlib-stream`` (binary frames); when
            false, or for ``zstd-stream``, JSON text frames are sent (discord.py accepts both).
        :param dispatch_message_events: send MESSAGE_CREATE/UPDATE/DELETE for messages (as
            Discord does, when the bot's intents ask for them).
        :param validate: reject payloads Discord would reject (lengths, counts, locales,
            empty messages...) with HTTP 400 / code 50035.
        :param require_synced_commands: the slash/autocomplete builders refuse commands the
            bot did not sync (Discord could not send them either).
        :param allow_privileged_intents: when false, IDENTIFY with a privileged intent is
            closed with 4014, like an app without those intents enabled.
        :param callback_deadline: if set, interaction callbacks arriving later than this many
            seconds after the dispatch fail with 404 / 10062 "Unknown interaction" (Discord's
            limit is 3 s); off by default because test machines can be slow.
        :param shard_count: what ``GET /gateway/bot`` recommends. Sessions that IDENTIFY with
            ``shard: [id, count]`` get only their guilds (``(guild_id >> 22) % count == id``) and
            their guilds' events; DMs go to shard 0, as on Discord.
        """
        self.token = token
        self.snowflakes = SnowflakeGenerator()
        self.bot_user = FakeUser(id=self.snowflakes.next(), name=bot_name, bot=True)
        self.application_id = application_id or self.bot_user.id
        self.application_flags = application_flags
        self.gateway_compression = gateway_compression
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.dispatch_message_events = dispatch_message_events
        self.validate = validate
        self.require_synced_commands = require_synced_commands
        self.allow_privileged_intents = allow_privileged_intents
        self.callback_deadline = callback_deadline
        self.shard_count = shard_count

        # world
        self.users: dict[int, FakeUser] = {self.bot_user.id: self.bot_user}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self._dm_channels: dict[int, FakeChannel] = {}
        self._messages: dict[int, FakeMessage] = {}
        self._channel_messages: dict[int, list[int]] = {}
        self._loose_attachments: dict[int, FakeAttachment] = {}
        self._nonces: dict[tuple[int, str], int] = {}
        """(channel id, nonce) -> the message created with it (the bot is the only author). Discord remembers a nonce
        for "the past few minutes"; the fake until a test lets those minutes pass (:meth:`expire_nonces`)."""

        # application commands: scope (None = global, else guild id) -> commands
        self._commands: dict[int | None, list[dict[str, Any]]] = {}
        #: History of bulk overwrites: (guild id or None, the JSON list the bot sent).
        self.command_syncs: list[tuple[int | None, list[dict[str, Any]]]] = []

        # records
        #: Every REST request, in arrival order.
        self.requests: list[RecordedRequest] = []
        #: Every interaction dispatched, by id.
        self.interactions: dict[int, InteractionHandle] = {}
        self._tokens: dict[str, InteractionHandle] = {}
        #: Why the fake answered 400 to the bot, for debugging ("path: message; ...").
        self.validation_failures: list[str] = []
        #: The request bodies Discord's API description refuses (see :data:`REFUSED_BODIES`).
        self.refused_bodies: list[str] = []
        #: The files uploaded that Discord shows as pictures but that hold none (see :data:`BROKEN_PICTURES`).
        self.broken_pictures: list[str] = []
        #: ERROR log records of the bot (filled by ``run_bot``), shown in timeout reports.
        self.bot_errors: list[str] = []
        #: Exceptions raised inside the fake itself (bugs of the fake), as formatted tracebacks.
        self.server_errors: list[str] = []
        #: Presence updates (op 3) the bot sent.
        self.presence_updates: list[dict[str, Any]] = []

        # gateway
        #: Every websocket connection, in order.
        self.connections: list[GatewayConnection] = []
        #: Every session (IDENTIFY), in order.
        self.sessions: list[GatewaySession] = []
        #: Number of RESUMEs accepted.
        self.resumes = 0
        #: Number of heartbeats received.
        self.heartbeats = 0

        self._injected: list[_InjectedError] = []
        self._stalls: list[Stall] = []
        self._denied: dict[int, set[str]] = {}
        """Channel id -> the bot permissions denied there (``"send_messages"``, ``"attach_files"``)."""
        self._changed = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self._site: web.TCPSite | None = None
        self._unreachable: list[socket.socket] = []
        """While Discord is away with its packets dropped (:meth:`go_away`): the listener and the connection that
        fills its queue."""
        self.port: int | None = None
        self.application_emojis = ApplicationEmojis(lambda: self.application_id, lambda: self.bot_user.to_payload(),
                                                     self.snowflakes)
        self._routes = self._build_routes()
        self._routes += [_Route(m, re.compile(p + "$"), h, a) for m, p, h, a in self.application_emojis.routes()]

        if populate:
            self.populate_defaults()

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> FakeDiscord:
        """Start serving on 127.0.0.1 (random free port)."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway_handler)
        app.router.add_get("/gateway/", self._gateway_handler)
        app.router.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self._attachment_handler)
        for cdn_path in ("/embed/avatars/{name}", "/avatars/{user_id}/{name}", "/icons/{guild_id}/{name}"):
            app.router.add_get(cdn_path, self._cdn_handler)
        app.router.add_route("*", r"/api/v{version:\d+}/{tail:.*}", self._api_handler)
        app.router.add_route("*", "/{tail:.*}", self._fallback_handler)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self._site = site
        server = site._server
        assert server is not None and server.sockets
        self.port = server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        """Close every gateway connection and stop the server."""
        self._end_outage()
        for conn in list(self.connections):
            if not conn.ws.closed:
                conn.closed = True
                with contextlib.suppress(TimeoutError, ConnectionError, RuntimeError):
                    await asyncio.wait_for(conn.ws.close(code=1001, message=b"fake shutting down"), 5)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def go_away(self) -> None:
        """Discord becomes unreachable, as when the network between it and the bot fails: every open connection (the
        gateway's, and the REST API's kept alive) breaks off without a close frame, and a new connection goes
        unanswered: its packets are lost, as behind a firewall or a dead route (a listening socket whose queue is full
        and that never accepts drops every further connection request on Linux), and the client waits for its own
        timeout. It lasts until the fake stops."""
        if self._runner is None or self.port is None:
            raise RuntimeError("FakeDiscord is not started")
        if self._site is not None:
            site, self._site = self._site, None
            await site.stop()
        server = self._runner.server
        for handler in server.connections if server is not None else ():
            if handler.transport is not None:
                handler.transport.abort()
        for conn in self.connections:
            conn.closed = True  # the fake's gateway sends nothing more on it
        self._end_outage()
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(0)
        filler = socket.create_connection(("127.0.0.1", self.port))  # the one place in the queue, never accepted
        self._unreachable = [listener, filler]
        self.notify()

    def _end_outage(self) -> None:
        for sock in self._unreachable:
            sock.close()
        self._unreachable = []

    async def __aenter__(self) -> FakeDiscord:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        if self.port is None:
            raise RuntimeError("FakeDiscord is not started")
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        """What ``discord.http.Route.BASE`` must be: ``http://127.0.0.1:PORT/api/v10``."""
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        """The websocket URL (``ws://127.0.0.1:PORT/gateway/``)."""
        return f"ws://127.0.0.1:{self.port}/gateway/"

    # ------------------------------------------------------------------ world building

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

        ``everyone_permissions`` defaults to :data:`~tests.fakediscord.builders.DEFAULT_PERMISSIONS`;
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

    # -- lookups --------------------------------------------------------------------

    def user(self, ref: UserRef) -> FakeUser:
        """A user by object, id or name."""
        if isinstance(ref, FakeUser):
            return ref
        if isinstance(ref, int):
            try:
                return self.users[ref]
            except KeyError:
                raise KeyError(f"no user with id {ref}") from None
        for user in self.users.values():
            if user.name == ref:
                return user
        raise KeyError(f"no user named {ref!r}; users: {[u.name for u in self.users.values()]}")

    def guild(self, ref: GuildRef | None = None) -> FakeGuild:
        """A guild by object, id or name; ``None`` gives :attr:`default_guild`."""
        if ref is None:
            return self.default_guild
        if isinstance(ref, FakeGuild):
            return ref
        if isinstance(ref, int):
            return self.guilds[ref]
        for guild in self.guilds.values():
            if guild.name == ref:
                return guild
        raise KeyError(f"no guild named {ref!r}")

    def channel(self, ref: ChannelRef | None = None) -> FakeChannel:
        """A channel by object, id, or name (searched in the default guild first, then all);
        ``None`` gives :attr:`default_channel`."""
        if ref is None:
            return self.default_channel
        if isinstance(ref, FakeChannel):
            return ref
        if isinstance(ref, int):
            try:
                return self.channels[ref]
            except KeyError:
                raise KeyError(f"no channel with id {ref}") from None
        guilds = list(self.guilds.values())
        for guild in guilds:
            for channel in guild.channels.values():
                if channel.name == ref:
                    return channel
        raise KeyError(f"no channel named {ref!r}")

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

    # ------------------------------------------------------------------ inspection

    def messages(
        self, channel: ChannelRef | None = None, *, ephemeral: bool | None = None, include_deleted: bool = False
    ) -> list[FakeMessage]:
        """Messages of a channel, oldest first (``ephemeral=False`` hides ephemeral ones)."""
        ch = self.channel(channel)
        result = []
        for mid in self._channel_messages.get(ch.id, []):
            msg = self._messages[mid]
            if msg.deleted and not include_deleted:
                continue
            if ephemeral is not None and msg.ephemeral != ephemeral:
                continue
            result.append(msg)
        return result

    def dm_messages(self, user: UserRef) -> list[FakeMessage]:
        """Messages in the DM channel with ``user``, oldest first."""
        u = self.user(user)
        channel = self._dm_channels.get(u.id)
        return [] if channel is None else self.messages(channel)

    def all_messages(self) -> list[FakeMessage]:
        """Every stored message (all channels, including deleted), in creation order."""
        return list(self._messages.values())

    @property
    def unknown_requests(self) -> list[RecordedRequest]:
        """Requests no route matched (answered 404)."""
        return [r for r in self.requests if not r.known]

    def requests_to(
        self, method: str | None = None, path: str | re.Pattern[str] | None = None
    ) -> list[RecordedRequest]:
        """Recorded requests filtered by method and by a path regex (``re.fullmatch``)."""
        pattern = re.compile(path) if isinstance(path, str) else path
        return [
            r
            for r in self.requests
            if (method is None or r.method == method.upper())
            and (pattern is None or pattern.fullmatch(r.path) is not None)
        ]

    def assert_no_unknown_requests(self) -> None:
        """Fail if the bot called a route the fake does not implement."""
        unknown = self.unknown_requests
        assert not unknown, "unknown routes called: " + ", ".join(r.route for r in unknown)

    def inject_error(
        self,
        method: str,
        path: str,
        *,
        status: int = 403,
        code: int = 50013,
        message: str = "Missing Permissions",
        times: int | None = 1,
        after: bool = False,
    ) -> None:
        """Make the next ``times`` requests (``None``: all) matching ``method`` (or ``"*"``) and the
        path regex ``path`` (``re.fullmatch`` on e.g. ``/channels/123/messages``) fail with this
        Discord error. discord.py retries 500, 502, 504 and 524 itself with sleeps of 1, 3, 5... s
        (five times, then raises); a 503 it raises at once: use :meth:`fail_route` for that.
        ``after=True``: the request is carried out (a message is created), only its answer is the error."""
        error = ApiError(status, code, message)
        self._injected.append(_InjectedError(method.upper(), re.compile(path), error, times, after))

    def stall(self, method: str, path: str) -> Stall:
        """Hold the next request matching ``method`` and the path regex ``path`` on its way (not answered, not
        carried out) until the returned stall is released: what the bot does meanwhile meets a Discord that has
        not seen the request yet."""
        held = Stall(method.upper(), re.compile(path))
        self._stalls.append(held)
        return held

    def clear_errors(self) -> None:
        """Forget every injected error (from :meth:`inject_error` and :meth:`fail_route`)."""
        self._injected.clear()

    def fail_route(self, method: str, path: str, *, status: int = 503, times: int | None = 1,
                   after: bool = False) -> None:
        """Answer the next ``times`` requests matching ``method`` and ``path`` (as :meth:`inject_error`)
        with a server error, as Discord does when it has trouble (default 503 Service Unavailable);
        ``after=True``: when the work was done all the same (the bot cannot tell)."""
        message = {500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable",
                   504: "Gateway Timeout"}.get(status, "Server Error")
        self.inject_error(method, path, status=status, code=0, message=message, times=times, after=after)

    def rate_limit(self, method: str, path: str, *, scope: str = "user", retry_after: float = 0.05,
                   times: int = 1) -> None:
        """Answer the next ``times`` requests matching ``method`` and the path regex ``path`` 429 Too Many Requests,
        as Discord does past a rate limit of ``scope`` (user, shared or global; see
        :class:`~tests.fakediscord.builders.RateLimited`): the request is not carried out, and discord.py waits
        ``retry_after`` seconds and sends it again."""
        self._injected.append(_InjectedError(method.upper(), re.compile(path), RateLimited(scope, retry_after), times))

    def expire_nonces(self) -> None:
        """Let the few minutes pass for which Discord remembers a message's nonce: a message sent with a nonce seen
        before is a new message from now on."""
        self._nonces.clear()

    def deny_permission(self, channel: ChannelRef, permission: str, denied: bool = True) -> None:
        """Deny the bot ``permission`` in ``channel`` (or allow it again), as a channel overwrite would: a message
        (with files; in a thread: ``send_messages_in_threads``) there then fails with 403 / 50013, and so do
        creating a thread under it (``create_public_threads``) and unarchiving a thread a moderator locked that the
        bot did not start (``manage_threads``). A thread has its channel's permissions (denied in a channel, denied in
        its threads); an interaction's ``app_permissions`` there lack what is denied."""
        if permission not in _DENIABLE:
            raise ValueError(f"the fake denies {', '.join(_DENIABLE)}, not {permission!r}")
        denied_here = self._denied.setdefault(self.channel(channel).id, set())
        if denied:
            denied_here.add(permission)
        else:
            denied_here.discard(permission)

    def end_sessions(self, shard_ids: Iterable[int] | None = None) -> None:
        """Forget the gateway sessions (of ``shard_ids`` only, if given), as after a logout: :meth:`dispatch`
        then fails until a bot IDENTIFIES again (``run_bot`` calls this when it stops the bot)."""
        shards = None if shard_ids is None else set(shard_ids)
        for session in self.sessions:
            if shards is None or session.shard[0] in shards:
                session.ended = True
        self.notify()

    def synced_commands(self, guild: GuildRef | None = None) -> list[dict[str, Any]]:
        """The application commands as stored after the bot's syncs (global, or for a guild)."""
        scope = None if guild is None else self.guild(guild).id
        return _copy(self._commands.get(scope, []))

    def synced_command(self, name: str, guild: GuildRef | None = None) -> dict[str, Any]:
        """One stored command by name (``KeyError`` if not synced)."""
        for command in self.synced_commands(guild):
            if command["name"] == name:
                return command
        raise KeyError(f"command {name!r} not synced (scope {guild!r})")

    @property
    def session(self) -> GatewaySession | None:
        """The current gateway session (the latest that is not ended), if any."""
        for session in reversed(self.sessions):
            if not session.ended:
                return session
        return None

    def session_for(self, guild_id: int | None) -> GatewaySession | None:
        """The live session that receives events of ``guild_id`` (``None``: a DM, shard 0); without a
        session for that shard, the current one (:attr:`session`)."""
        for session in reversed(self.sessions):
            if not session.ended and session.serves(guild_id):
                return session
        return self.session

    def shard_sessions(self) -> dict[int, GatewaySession]:
        """The live session of each shard id."""
        live: dict[int, GatewaySession] = {}
        for session in self.sessions:
            if not session.ended:
                live[session.shard[0]] = session
        return live

    @property
    def is_connected(self) -> bool:
        """Whether a bot is connected with a live session."""
        s = self.session
        return s is not None and s.connection is not None and not s.connection.closed

    def dispatched_events(self, name: str | None = None) -> list[dict[str, Any]]:
        """Dispatch frames sent in all sessions (optionally only event ``name``)."""
        return [e for s in self.sessions for e in s.events if name is None or e["t"] == name]

    # ------------------------------------------------------------------ waiting

    def notify(self) -> None:
        """Wake every ``wait_*`` call so it re-checks its condition. The fake calls this on each
        change of its own state; call it yourself if a condition depends on outside state."""
        event, self._changed = self._changed, asyncio.Event()
        event.set()

    async def wait_for_change(self, timeout: float) -> bool:
        """Wait until the fake's state changes (a request, a gateway frame, a bot error log...) or ``timeout``
        seconds pass; whether it changed. For a condition on state the fake does not see, looked at again after
        each change: what the bot does usually shows here right after it did it."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), timeout)
            return True
        return False

    async def wait_until(
        self,
        predicate: Callable[[], T],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        description: str = "condition",
        poll: float | None = None,
    ) -> T:
        """Wait until ``predicate()`` is truthy and return its value.

        The predicate is re-checked whenever the fake's state changes (a request, a gateway
        frame, a bot error log...). If it also depends on state the fake does not see (the
        bot's database, its cache), pass ``poll`` to re-check every ``poll`` seconds as well (at most
        :data:`POLL_CAP`: a look is cheap, a pause after the condition came true is waiting for nothing).
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            changed = self._changed
            result = predicate()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise FakeDiscordTimeout(self.diagnostics(f"timed out after {timeout}s waiting for {description}"))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), remaining if poll is None else min(poll, POLL_CAP, remaining))

    async def wait_for_message(
        self,
        channel: ChannelRef | None = None,
        predicate: Callable[[FakeMessage], object] | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        after: FakeMessage | int | None = None,
    ) -> FakeMessage:
        """Wait for a message in ``channel`` matching ``predicate`` (already-present ones count
        unless older than or equal to ``after``)."""
        ch = self.channel(channel)
        after_id = after.id if isinstance(after, FakeMessage) else (after or 0)

        def check() -> FakeMessage | None:
            for msg in self.messages(ch):
                if msg.id > after_id and (predicate is None or predicate(msg)):
                    return msg
            return None

        return await self.wait_until(check, timeout=timeout, description=f"a message in channel {ch.name or ch.id}")

    async def wait_for_dm(
        self,
        user: UserRef,
        predicate: Callable[[FakeMessage], object] | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> FakeMessage:
        """Wait for a DM to ``user`` matching ``predicate``."""
        u = self.user(user)

        def check() -> FakeMessage | None:
            for msg in self.dm_messages(u):
                if predicate is None or predicate(msg):
                    return msg
            return None

        return await self.wait_until(check, timeout=timeout, description=f"a DM to {u.name}")

    async def wait_for_request(
        self, method: str | None = None, path: str | None = None, *, count: int = 1, timeout: float = DEFAULT_TIMEOUT
    ) -> RecordedRequest:
        """Wait until ``count`` requests match (see :meth:`requests_to`); return the last of them."""

        def check() -> RecordedRequest | None:
            found = self.requests_to(method, path)
            return found[count - 1] if len(found) >= count and found[count - 1].status is not None else None

        return await self.wait_until(check, timeout=timeout, description=f"request {method} {path} x{count}")

    async def wait_for_connection(self, *, timeout: float = DEFAULT_TIMEOUT) -> GatewaySession:
        """Wait until a bot is connected (identified or resumed)."""

        def check() -> GatewaySession | None:
            return self.session if self.is_connected else None

        return await self.wait_until(check, timeout=timeout, description="a gateway connection")

    def diagnostics(self, headline: str = "fake discord state") -> str:
        """A multi-line report of recent activity (used in timeout errors)."""
        lines = [headline, f"gateway connected: {self.is_connected}; sessions: {len(self.sessions)}"]
        if self.server_errors:
            lines.append("ERRORS INSIDE THE FAKE (please fix tests/fakediscord):")
            lines.extend("  " + e.replace("\n", "\n  ") for e in self.server_errors[-3:])
        if self.bot_errors:
            lines.append("bot errors:")
            lines.extend("  " + e.replace("\n", "\n  ") for e in self.bot_errors[-5:])
        if self.validation_failures:
            lines.append("rejected payloads: " + " | ".join(self.validation_failures[-5:]))
        if self.unknown_requests:
            lines.append("unknown routes: " + ", ".join(r.route for r in self.unknown_requests))
        lines.append("last requests:")
        lines.extend(f"  {r}" for r in self.requests[-12:])
        return "\n".join(lines)

    # ------------------------------------------------------------------ gateway: dispatching

    async def dispatch(self, event: str, data: dict[str, Any]) -> int:
        """Send a DISPATCH (op 0) event to the connected bot; return its sequence number.

        If the bot is momentarily disconnected (reconnecting), the event is kept and replayed
        when it RESUMEs.
        """
        guild_id = int(data["id"]) if event.startswith("GUILD_") and "guild_id" not in data else _guild_of(data)
        session = self.session_for(guild_id)
        if session is None:
            raise RuntimeError("no bot session on the fake gateway (is the bot running?)")
        return (await self._dispatch_many(session, [(event, data)]))[0]

    async def _dispatch_many(self, session: GatewaySession, events: Sequence[tuple[str, dict[str, Any]]]) -> list[int]:
        async with session.lock:
            frames = []
            for name, data in events:
                session.seq += 1
                frame = {"op": OP_DISPATCH, "t": name, "s": session.seq, "d": data}
                session.events.append(frame)
                frames.append(frame)
            conn = session.connection
            if conn is not None and not conn.closed:
                for frame in frames:
                    await conn.send(frame)
        return [f["s"] for f in frames]

    async def _dispatch_if_listening(self, event: str, data: dict[str, Any], intent: int) -> None:
        session = self.session_for(_guild_of(data))
        if session is None or not self.dispatch_message_events or not session.intents & intent:
            return
        await self._dispatch_many(session, [(event, data)])

    async def disconnect(self, code: int = 4000) -> None:
        """Drop the bot's websocket (resumable close code by default): discord.py reconnects and
        RESUMEs; events dispatched meanwhile are replayed."""
        session = self.session
        if session is None or session.connection is None:
            raise RuntimeError("no connected bot")
        conn = session.connection
        conn.closed = True
        session.connection = None
        await conn.ws.close(code=code, message=b"fake disconnect")
        self.notify()

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

    async def remove_guild(self, guild: GuildRef) -> None:
        """Remove the bot from a guild (kicked, or the guild deleted): a connected bot gets GUILD_DELETE without
        ``unavailable`` (one not connected finds the guild missing from its next READY); its later requests to the
        guild's channels answer 403 / 50001 Missing Access."""
        g = self.guild(guild)
        if self.is_connected:
            await self.dispatch("GUILD_DELETE", {"id": str(g.id)})
        g.members.pop(self.bot_user.id, None)
        self.notify()

    async def request_reconnect(self) -> None:
        """Send op 7 RECONNECT: the bot closes and RESUMEs."""
        session = self.session
        if session is None or session.connection is None:
            raise RuntimeError("no connected bot")
        await session.connection.send({"op": OP_RECONNECT, "d": None})

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

    # ------------------------------------------------------------------ interactions: building

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
            app_perms &= ~_DENIABLE[denied]
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

    def build_slash_command(
        self,
        command: str | Sequence[str],
        options: Mapping[str, Any] | None = None,
        *,
        user: UserRef | None = None,
        channel: ChannelRef | None = None,
        locale: str | None = None,
        guild_locale: str | None = None,
    ) -> InteractionHandle:
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
        return self._build_command(
            InteractionType.APPLICATION_COMMAND,
            command,
            options,
            focused=None,
            current=None,
            user=user,
            channel=channel,
            locale=locale,
            guild_locale=guild_locale,
        )

    def build_autocomplete(
        self,
        command: str | Sequence[str],
        focused: str,
        current: Any = "",
        options: Mapping[str, Any] | None = None,
        *,
        user: UserRef | None = None,
        channel: ChannelRef | None = None,
        locale: str | None = None,
        guild_locale: str | None = None,
    ) -> InteractionHandle:
        """Build an APPLICATION_COMMAND_AUTOCOMPLETE interaction: the user is typing
        ``current`` into option ``focused``; ``options`` are the other options already filled."""
        return self._build_command(
            InteractionType.APPLICATION_COMMAND_AUTOCOMPLETE,
            command,
            options,
            focused=focused,
            current=current,
            user=user,
            channel=channel,
            locale=locale,
            guild_locale=guild_locale,
        )

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
        opts = self._build_options(
            schema.get("options") if schema else None,
            path[1:],
            dict(options or {}),
            focused,
            current,
            resolved,
            guild,
            where=path[0],
        )
        if opts:
            data["options"] = opts
        if resolved:
            data["resolved"] = resolved
        kind = "autocomplete" if focused else "/"
        return self._new_handle(
            interaction_type,
            data,
            user=user,
            channel=ch,
            locale=locale,
            guild_locale=guild_locale,
            description=f"{kind}{' '.join(path)}",
        )

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
            inner = self._build_options(
                sub.get("options") if sub else None,
                subpath[1:],
                values,
                focused,
                current,
                resolved,
                guild,
                where=f"{where} {name}",
            )
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
        if isinstance(value, FakeUser):
            return OptionType.USER
        if isinstance(value, FakeChannel):
            return OptionType.CHANNEL
        if isinstance(value, FakeRole):
            return OptionType.ROLE
        if isinstance(value, FakeAttachment):
            return OptionType.ATTACHMENT
        if isinstance(value, bool):
            return OptionType.BOOLEAN
        if isinstance(value, int):
            return OptionType.INTEGER
        if isinstance(value, float):
            return OptionType.NUMBER
        return OptionType.STRING

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

    def make_attachment(self, filename: str, data: bytes, *, content_type: str | None = None) -> FakeAttachment:
        """A user-uploaded attachment (for ATTACHMENT options); served at its ``url``."""
        aid = self.snowflakes.next()
        attachment = FakeAttachment(
            id=aid,
            filename=filename,
            data=data,
            url=f"{self.base_url}/attachments/0/{aid}/{filename}",
            content_type=content_type or guess_content_type(filename, data),
        )
        self._loose_attachments[aid] = attachment
        return attachment

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
        return self._new_handle(
            InteractionType.MESSAGE_COMPONENT,
            data,
            user=user,
            channel=None,
            locale=locale,
            guild_locale=None,
            message=msg,
            description=f"click {component['custom_id']!r}",
        )

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
        return self._new_handle(
            InteractionType.MESSAGE_COMPONENT,
            data,
            user=user,
            channel=None,
            locale=locale,
            guild_locale=None,
            message=msg,
            description=f"select {custom_id!r}={list(values)!r}",
        )

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
        return self._new_handle(
            InteractionType.MESSAGE_COMPONENT,
            data,
            user=user,
            channel=channel,
            locale=locale,
            guild_locale=None,
            message=msg,
            description=f"component {custom_id!r}",
        )

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

    # ------------------------------------------------------------------ interactions: sending

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
            session = self.session_for(_guild_of(handle.payload))
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

    # ------------------------------------------------------------------ HTTP plumbing

    def _build_routes(self) -> list[_Route]:
        sf = r"(?P<{}>\d+)"
        tok = r"(?P<token>[^/]+)"
        app = sf.format("app_id")
        guild = sf.format("guild_id")
        chan = sf.format("channel_id")
        msg = sf.format("message_id")
        cmd = sf.format("command_id")
        table: list[tuple[str, str, Callable[..., Awaitable[Any]], bool]] = [
            ("GET", "/users/@me", self._r_get_me, True),
            ("GET", "/users/" + sf.format("user_id"), self._r_get_user, True),
            ("POST", "/users/@me/channels", self._r_create_dm, True),
            ("GET", "/oauth2/applications/@me", self._r_get_application, True),
            ("GET", "/applications/@me", self._r_get_application, True),
            ("GET", "/gateway", self._r_gateway, False),
            ("GET", "/gateway/bot", self._r_gateway_bot, True),
            ("GET", f"/applications/{app}/commands", self._r_get_commands, True),
            ("PUT", f"/applications/{app}/commands", self._r_put_commands, True),
            ("POST", f"/applications/{app}/commands", self._r_post_command, True),
            ("GET", f"/applications/{app}/commands/{cmd}", self._r_get_command, True),
            ("PATCH", f"/applications/{app}/commands/{cmd}", self._r_patch_command, True),
            ("DELETE", f"/applications/{app}/commands/{cmd}", self._r_delete_command, True),
            ("GET", f"/applications/{app}/guilds/{guild}/commands", self._r_get_commands, True),
            ("PUT", f"/applications/{app}/guilds/{guild}/commands", self._r_put_commands, True),
            ("POST", f"/applications/{app}/guilds/{guild}/commands", self._r_post_command, True),
            ("GET", f"/applications/{app}/guilds/{guild}/commands/permissions", self._r_empty_list, True),
            ("GET", f"/applications/{app}/guilds/{guild}/commands/{cmd}", self._r_get_command, True),
            ("PATCH", f"/applications/{app}/guilds/{guild}/commands/{cmd}", self._r_patch_command, True),
            ("DELETE", f"/applications/{app}/guilds/{guild}/commands/{cmd}", self._r_delete_command, True),
            ("POST", f"/interactions/{sf.format('interaction_id')}/{tok}/callback", self._r_callback, False),
            ("POST", f"/webhooks/{app}/{tok}", self._r_webhook_execute, False),
            ("GET", f"/webhooks/{app}/{tok}/messages/(?P<message_id>@original|\\d+)", self._r_webhook_get, False),
            ("PATCH", f"/webhooks/{app}/{tok}/messages/(?P<message_id>@original|\\d+)", self._r_webhook_edit, False),
            ("DELETE", f"/webhooks/{app}/{tok}/messages/(?P<message_id>@original|\\d+)", self._r_webhook_delete, False),
            ("GET", f"/channels/{chan}", self._r_get_channel, True),
            ("PATCH", f"/channels/{chan}", self._r_patch_channel, True),
            ("GET", f"/channels/{chan}/messages", self._r_list_messages, True),
            ("POST", f"/channels/{chan}/messages", self._r_create_message, True),
            ("GET", f"/channels/{chan}/messages/{msg}", self._r_get_message, True),
            ("PATCH", f"/channels/{chan}/messages/{msg}", self._r_edit_message, True),
            ("DELETE", f"/channels/{chan}/messages/{msg}", self._r_delete_message, True),
            ("PUT", f"/channels/{chan}/messages/{msg}/reactions/(?P<emoji>[^/]+)/@me", self._r_react, True),
            ("DELETE", f"/channels/{chan}/messages/{msg}/reactions/(?P<emoji>[^/]+)/@me", self._r_unreact, True),
            ("POST", f"/channels/{chan}/typing", self._r_no_content, True),
            ("POST", f"/channels/{chan}/threads", self._r_create_thread, True),
            ("POST", f"/channels/{chan}/messages/{msg}/threads", self._r_create_thread, True),
            ("PUT", f"/channels/{chan}/thread-members/(?P<member>@me|\\d+)", self._r_no_content, True),
            ("DELETE", f"/channels/{chan}/thread-members/(?P<member>@me|\\d+)", self._r_no_content, True),
            ("GET", f"/guilds/{guild}", self._r_get_guild, True),
            ("GET", f"/guilds/{guild}/channels", self._r_get_guild_channels, True),
            ("GET", f"/guilds/{guild}/roles", self._r_get_guild_roles, True),
            ("GET", f"/guilds/{guild}/members", self._r_list_members, True),
            ("GET", f"/guilds/{guild}/members/search", self._r_search_members, True),
            ("GET", f"/guilds/{guild}/members/{sf.format('user_id')}", self._r_get_member, True),
        ]
        return [_Route(m, re.compile(p + "$"), h, a) for m, p, h, a in table]

    async def _read_body(self, request: web.Request) -> tuple[Any, list[UploadedFile]]:
        if request.content_type.startswith("multipart/"):
            payload: Any = None
            files: list[UploadedFile] = []
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                if not isinstance(part, aiohttp.BodyPartReader):
                    continue
                raw = await part.read(decode=True)
                if part.name == "payload_json":
                    payload = json.loads(raw.decode())
                else:
                    files.append(
                        UploadedFile(
                            field_name=part.name or "",
                            filename=part.filename or "",
                            content_type=part.headers.get("Content-Type"),
                            data=bytes(raw),
                        )
                    )
            return payload, files
        raw = await request.read()
        if not raw:
            return None, []
        try:
            return json.loads(raw.decode()), []
        except (UnicodeDecodeError, json.JSONDecodeError):
            return raw, []

    async def _api_handler(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        body, files = await self._read_body(request)
        rec = RecordedRequest(
            method=request.method,
            path=path,
            query=dict(request.query),
            json=body,
            files=files,
            headers=dict(request.headers),
        )
        self.requests.append(rec)
        broken = [f"{rec.route}: {f.filename} ({len(f.data)} bytes)" for f in files
                  if audit.broken_picture(f.filename, f.data, f.content_type)]
        self.broken_pictures += broken
        BROKEN_PICTURES.extend(broken)
        status, answer = await self._route(request, rec)
        rec.status = status
        rec.response = None if answer is _NO_CONTENT else answer
        self.notify()
        if answer is _NO_CONTENT:
            return web.Response(status=204)
        return _json_response(answer, status=status, headers=rec.response_headers)

    def take_refused_bodies(self) -> list[str]:
        """The bodies Discord's description refused so far, forgotten (for a test that sends one on purpose)."""
        taken, self.refused_bodies = self.refused_bodies, []
        REFUSED_BODIES[:] = [r for r in REFUSED_BODIES if not any(r is t for t in taken)]
        return taken

    def _check_body(self, rec: RecordedRequest) -> ApiError | None:
        """Discord's answer to a body its API description refuses (400, 50035 "Invalid Form Body", with where and
        why), recorded in :attr:`refused_bodies`; None for a body it accepts (or no body)."""
        found = openapi.body_errors(rec.method, rec.path, rec.json)
        if not found:
            return None
        errors = FormErrors()
        for where, why, keyword in found:
            errors.add(where, why, _FORM_ERROR_CODES.get(keyword, "BASE_TYPE_INVALID"))
        refused = f"{rec.route}: " + errors.summary()
        self.refused_bodies.append(refused)
        self.validation_failures.append(refused)
        REFUSED_BODIES.append(refused)
        _log.warning("fake discord: Discord's API description refuses the body of %s", refused)
        return errors.error()

    async def _route(self, request: web.Request, rec: RecordedRequest) -> tuple[int, Any]:
        refused = self._check_body(rec) if self.validate else None
        if refused is None and self.validate:
            refused = self.application_emojis.refused_components(rec.json)
            if refused is not None:
                self.validation_failures.append(f"{rec.route}: {refused.message} {refused.errors}")
        if refused is not None:
            return refused.status, refused.body()
        held = next((h for h in self._stalls if h.method == rec.method and h.pattern.fullmatch(rec.path)), None)
        if held is not None:
            self._stalls.remove(held)
            held.arrived.set()
            await held.released.wait()
        lost_answer: ApiError | None = None
        for injected in self._injected:
            if injected.method in ("*", rec.method) and injected.pattern.fullmatch(rec.path):
                if injected.remaining is not None:
                    injected.remaining -= 1
                    if injected.remaining <= 0:
                        self._injected.remove(injected)
                if not injected.after:
                    rec.response_headers.update(injected.error.headers)
                    return injected.error.status, injected.error.body()
                lost_answer = injected.error
                break
        path_matched = False
        for route in self._routes:
            match = route.pattern.match(rec.path)
            if match is None:
                continue
            path_matched = True
            if route.method != rec.method:
                continue
            if route.auth and request.headers.get("Authorization") != f"Bot {self.token}":
                return 401, {"message": "401: Unauthorized", "code": 0}
            try:
                answer = await route.handler(rec, **match.groupdict())
            except ApiError as exc:
                if exc.code == 50035 or exc.status == 400:
                    self.validation_failures.append(f"{rec.route}: {exc.message} {exc.errors or ''}")
                return exc.status, exc.body()
            except Exception as exc:
                # A bug of the fake. Not a 5xx: discord.py would retry it for ~25 s.
                self.server_errors.append(f"{rec.route}:\n{traceback.format_exc()}")
                _log.exception("fake discord: error handling %s", rec.route)
                return 400, {"message": f"fake discord internal error: {exc!r}", "code": 0}
            if lost_answer is not None:
                return lost_answer.status, lost_answer.body()
            if isinstance(answer, Answer):
                return answer.status, _NO_CONTENT if answer.payload is None else answer.payload
            return 200, answer
        rec.known = False
        _log.warning("fake discord: unknown route %s %s", rec.method, rec.path)
        if path_matched:
            return 405, {"message": "405: Method Not Allowed", "code": 0}
        return 404, {"message": "404: Not Found", "code": 0}

    async def _fallback_handler(self, request: web.Request) -> web.StreamResponse:
        rec = RecordedRequest(
            method=request.method,
            path=request.path,
            query=dict(request.query),
            json=None,
            files=[],
            headers=dict(request.headers),
            known=False,
            status=404,
        )
        self.requests.append(rec)
        self.notify()
        return _json_response({"message": "404: Not Found", "code": 0}, status=404)

    async def _attachment_handler(self, request: web.Request) -> web.StreamResponse:
        aid = int(request.match_info["attachment_id"])
        for attachment in self._iter_attachments():
            if attachment.id == aid:
                return web.Response(
                    body=attachment.data, content_type=attachment.content_type or "application/octet-stream"
                )
        return web.Response(status=404)

    async def _cdn_handler(self, request: web.Request) -> web.StreamResponse:
        # Avatars and icons (discord.Asset URLs, pointed here by patch_discord): a 1x1 PNG.
        return web.Response(body=TINY_PNG, content_type="image/png")

    def _iter_attachments(self) -> Iterable[FakeAttachment]:
        yield from self._loose_attachments.values()
        for msg in self._messages.values():
            yield from msg.attachments

    # ------------------------------------------------------------------ gateway handler

    async def _gateway_handler(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoclose=True, autoping=True)
        await ws.prepare(request)
        wants = request.query.get("compress")
        conn = GatewayConnection(ws, request.query, compress=self.gateway_compression and wants == "zlib-stream")
        self.connections.append(conn)
        self.notify()
        try:
            if request.query.get("encoding", "json") != "json":
                await ws.close(code=4002, message=b"fake discord speaks json only")
                return ws
            await conn.send(
                {"op": OP_HELLO, "d": {"heartbeat_interval": self.heartbeat_interval_ms}, "s": None, "t": None}
            )
            while True:
                msg = await ws.receive()
                if msg.type == aiohttp.WSMsgType.TEXT:
                    payload = json.loads(msg.data)
                    conn.received.append(payload)
                    try:
                        await self._on_gateway_frame(conn, payload)
                    except Exception:
                        self.server_errors.append(f"gateway op {payload.get('op')}:\n{traceback.format_exc()}")
                        _log.exception("fake discord: error handling gateway frame %s", payload.get("op"))
                elif msg.type == aiohttp.WSMsgType.CLOSE:
                    conn.close_code = int(msg.data)
                    break
                elif msg.type in (aiohttp.WSMsgType.CLOSING, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                    break
        finally:
            conn.closed = True
            if conn.close_code is None:
                conn.close_code = ws.close_code
            session = conn.session
            if session is not None and session.connection is conn:
                session.connection = None
                if conn.close_code in (1000, 1001):
                    session.ended = True
            self.notify()
        return ws

    async def _on_gateway_frame(self, conn: GatewayConnection, frame: dict[str, Any]) -> None:
        op = frame.get("op")
        data = frame.get("d")
        if op == OP_HEARTBEAT:
            self.heartbeats += 1
            await conn.send({"op": OP_HEARTBEAT_ACK})
        elif op == OP_IDENTIFY:
            await self._on_identify(conn, data or {})
        elif op == OP_RESUME:
            await self._on_resume(conn, data or {})
        elif op == OP_REQUEST_MEMBERS:
            await self._on_request_members(conn, data or {})
        elif op == OP_PRESENCE:
            self.presence_updates.append(data or {})
            self.notify()
        elif op == OP_VOICE_STATE:
            pass
        else:
            _log.warning("fake discord: unexpected gateway op %s", op)

    async def _on_identify(self, conn: GatewayConnection, data: dict[str, Any]) -> None:
        if data.get("token") != self.token:
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            return
        intents = int(data.get("intents") or 0)
        if intents & PRIVILEGED_INTENTS and not self.allow_privileged_intents:
            await conn.ws.close(code=4014, message=b"Disallowed intent(s).")
            return
        session = GatewaySession(id=secrets.token_hex(16), identify=data)
        for old in self.sessions:
            if old.shard[0] == session.shard[0]:
                old.ended = True
        self.sessions.append(session)
        conn.session = session
        session.connection = conn
        guilds = [g for g in self.guilds.values() if self.bot_user.id in g.members and session.serves(g.id)]
        ready = {
            "v": 10,
            "user": self.bot_user.to_client_user_payload(),
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.application_id), "flags": self.application_flags},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "user_settings": {},
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "auth": {},
            "_trace": ["fake-discord"],
        }
        if "shard" in data:
            ready["shard"] = data["shard"]
        events = [("READY", ready)] + [("GUILD_CREATE", g.to_payload(gateway=True)) for g in guilds]
        await self._dispatch_many(session, events)
        self.notify()

    async def _on_resume(self, conn: GatewayConnection, data: dict[str, Any]) -> None:
        session = next((s for s in self.sessions if s.id == data.get("session_id")), None)
        if session is None or session.ended or data.get("token") != self.token:
            await conn.send({"op": OP_INVALID_SESSION, "d": False})
            return
        async with session.lock:
            old = session.connection
            if old is not None and old is not conn:
                old.closed = True
            session.connection = conn
            conn.session = session
            last = int(data.get("seq") or 0)
            for frame in session.events:
                if frame["s"] > last:
                    await conn.send(frame)
            session.seq += 1
            resumed = {"op": OP_DISPATCH, "t": "RESUMED", "s": session.seq, "d": {"_trace": ["fake-discord"]}}
            session.events.append(resumed)
            await conn.send(resumed)
        self.resumes += 1
        self.notify()

    async def _on_request_members(self, conn: GatewayConnection, data: dict[str, Any]) -> None:
        guild = self.guilds.get(int(data.get("guild_id") or 0))
        if guild is None or conn.session is None:
            return
        members = list(guild.members.values())
        user_ids = data.get("user_ids")
        if user_ids:
            wanted = {int(u) for u in user_ids}
            members = [m for m in members if m.user.id in wanted]
        query = data.get("query")
        if query:
            members = [m for m in members if m.user.name.lower().startswith(str(query).lower())]
        limit = int(data.get("limit") or 0)
        if limit:
            members = members[:limit]
        chunk: dict[str, Any] = {
            "guild_id": str(guild.id),
            "members": [m.to_payload() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("nonce"):
            chunk["nonce"] = data["nonce"]
        await self._dispatch_many(conn.session, [("GUILD_MEMBERS_CHUNK", chunk)])

    # ------------------------------------------------------------------ REST: users, app, gateway

    async def _r_get_me(self, rec: RecordedRequest) -> Any:
        return self.bot_user.to_client_user_payload()

    async def _r_get_user(self, rec: RecordedRequest, user_id: str) -> Any:
        user = self.users.get(int(user_id))
        if user is None:
            raise ApiError(404, 10013, "Unknown User")
        return user.to_payload()

    async def _r_create_dm(self, rec: RecordedRequest) -> Any:
        body = rec.json or {}
        user = self.users.get(int(body.get("recipient_id") or 0))
        if user is None:
            raise ApiError(404, 10013, "Unknown User")
        return self.dm_channel(user).to_payload()

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

    async def _r_gateway(self, rec: RecordedRequest) -> Any:
        return {"url": self.gateway_url}

    async def _r_gateway_bot(self, rec: RecordedRequest) -> Any:
        limit = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 16}
        return {"url": self.gateway_url, "shards": self.shard_count, "session_start_limit": limit}

    async def _r_empty_list(self, rec: RecordedRequest, **_: str) -> Any:
        return []

    async def _r_no_content(self, rec: RecordedRequest, **_: str) -> Any:
        return _NO_CONTENT

    # ------------------------------------------------------------------ REST: application commands

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
        command = _copy(body)
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

    async def _r_get_commands(self, rec: RecordedRequest, app_id: str, guild_id: str | None = None) -> Any:
        self._check_app(app_id)
        return _copy(self._commands.get(self._scope(guild_id), []))

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
        self.command_syncs.append((scope, _copy(body)))
        return _copy(stored)

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
        return _copy(command)

    def _command_by_id(self, scope: int | None, command_id: str) -> dict[str, Any]:
        for command in self._commands.get(scope, []):
            if command["id"] == command_id:
                return command
        raise ApiError(404, 10063, "Unknown application command")

    async def _r_get_command(
        self, rec: RecordedRequest, app_id: str, command_id: str, guild_id: str | None = None
    ) -> Any:
        self._check_app(app_id)
        return _copy(self._command_by_id(self._scope(guild_id), command_id))

    async def _r_patch_command(
        self, rec: RecordedRequest, app_id: str, command_id: str, guild_id: str | None = None
    ) -> Any:
        self._check_app(app_id)
        command = self._command_by_id(self._scope(guild_id), command_id)
        command.update(_copy(rec.json or {}))
        command["version"] = str(self.snowflakes.next())
        return _copy(command)

    async def _r_delete_command(
        self, rec: RecordedRequest, app_id: str, command_id: str, guild_id: str | None = None
    ) -> Any:
        self._check_app(app_id)
        scope = self._scope(guild_id)
        command = self._command_by_id(scope, command_id)
        self._commands[scope].remove(command)
        return _NO_CONTENT

    # ------------------------------------------------------------------ REST: interactions

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
            return _NO_CONTENT
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
        return _NO_CONTENT

    async def _r_webhook_get(self, rec: RecordedRequest, app_id: str, token: str, message_id: str) -> Any:
        handle = self._webhook_handle(app_id, token, rec)
        return self._webhook_message(handle, message_id).to_payload()

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
            handle.original_edits.append(_copy(body))
            handle._first_followup_fills_original = False
        await self._message_event("MESSAGE_UPDATE", msg)
        return msg.to_payload()

    async def _r_webhook_delete(self, rec: RecordedRequest, app_id: str, token: str, message_id: str) -> Any:
        handle = self._webhook_handle(app_id, token, rec)
        msg = self._webhook_message(handle, message_id)
        await self._delete(msg)
        return _NO_CONTENT

    # ------------------------------------------------------------------ REST: channels & messages

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

    async def _r_get_channel(self, rec: RecordedRequest, channel_id: str) -> Any:
        return self._channel_or_404(channel_id).to_payload()

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

    async def _r_get_message(self, rec: RecordedRequest, channel_id: str, message_id: str) -> Any:
        return self._message_or_404(self._channel_or_404(channel_id), message_id).to_payload()

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

    async def _r_delete_message(self, rec: RecordedRequest, channel_id: str, message_id: str) -> Any:
        msg = self._message_or_404(self._channel_or_404(channel_id), message_id)
        await self._delete(msg)
        return _NO_CONTENT

    async def _r_react(self, rec: RecordedRequest, channel_id: str, message_id: str, emoji: str) -> Any:
        msg = self._message_or_404(self._channel_or_404(channel_id), message_id)
        reaction = unquote(emoji)
        if reaction not in msg.reactions:
            msg.reactions.append(reaction)
        return _NO_CONTENT

    async def _r_unreact(self, rec: RecordedRequest, channel_id: str, message_id: str, emoji: str) -> Any:
        msg = self._message_or_404(self._channel_or_404(channel_id), message_id)
        reaction = unquote(emoji)
        if reaction in msg.reactions:
            msg.reactions.remove(reaction)
        return _NO_CONTENT

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

    def _denied_in(self, channel: FakeChannel) -> set[str]:
        """The bot's permissions denied in ``channel``: its own overwrites', and a thread's parent's (a thread has the
        permissions of its channel, Discord's threads topic says)."""
        denied = set(self._denied.get(channel.id, set()))
        if channel.is_thread and channel.parent_id is not None:
            denied |= self._denied.get(channel.parent_id, set())
        return denied

    # ------------------------------------------------------------------ REST: guilds

    def _guild_or_404(self, guild_id: str) -> FakeGuild:
        guild = self.guilds.get(int(guild_id))
        if guild is None or self.bot_user.id not in guild.members:
            raise ApiError(404, 10004, "Unknown Guild")
        return guild

    async def _r_get_guild(self, rec: RecordedRequest, guild_id: str) -> Any:
        guild = self._guild_or_404(guild_id)
        payload = guild.to_payload()
        if rec.query.get("with_counts", "").lower() in ("1", "true"):
            payload.update(approximate_member_count=len(guild.members), approximate_presence_count=0)
        return payload

    async def _r_get_guild_channels(self, rec: RecordedRequest, guild_id: str) -> Any:
        guild = self._guild_or_404(guild_id)
        return [c.to_payload() for c in guild.channels.values() if not c.is_thread]

    async def _r_get_guild_roles(self, rec: RecordedRequest, guild_id: str) -> Any:
        return [r.to_payload() for r in self._guild_or_404(guild_id).roles.values()]

    async def _r_list_members(self, rec: RecordedRequest, guild_id: str) -> Any:
        guild = self._guild_or_404(guild_id)
        after = int(rec.query.get("after", 0))
        limit = int(rec.query.get("limit", 1))
        members = sorted((m for m in guild.members.values() if m.user.id > after), key=lambda m: m.user.id)
        return [m.to_payload() for m in members[:limit]]

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

    async def _r_get_member(self, rec: RecordedRequest, guild_id: str, user_id: str) -> Any:
        member = self._guild_or_404(guild_id).members.get(int(user_id))
        if member is None:
            raise ApiError(404, 10007, "Unknown Member")
        return member.to_payload()

    # ------------------------------------------------------------------ message storage

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
            embeds=_copy(body.get("embeds") or []),
            components=_copy(body.get("components") or []),
            allowed_mentions=_copy(body.get("allowed_mentions")),
            flags=flags,
            tts=bool(body.get("tts", False)),
            nonce=body.get("nonce"),
            message_reference=_copy(body.get("message_reference")),
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
            msg.embeds = _copy(body["embeds"] or [])
        if "components" in body:
            msg.components = _copy(body["components"] or [])
        if "allowed_mentions" in body:
            msg.allowed_mentions = _copy(body["allowed_mentions"])
        if body.get("flags") is not None:
            keep = msg.flags & EPHEMERAL
            msg.flags = keep | (int(body["flags"]) & ~(EPHEMERAL | LOADING))
        if "attachments" in body or files:
            msg.attachments = self._attachments(body, files, msg.channel_id, msg.attachments)
        msg.flags &= ~LOADING
        msg.edited_timestamp = iso_now()

    def _attachments(
        self, body: dict[str, Any], files: list[UploadedFile], channel_id: int, existing: list[FakeAttachment]
    ) -> list[FakeAttachment]:
        by_field = {f.field_name: f for f in files}
        used: set[str] = set()
        listed = body.get("attachments")
        result: list[FakeAttachment] = []
        if listed is None:
            result = list(existing)
        else:
            kept = {a.id: a for a in existing}
            for entry in listed:
                try:
                    aid = int(entry.get("id"))
                except (TypeError, ValueError):
                    continue
                upload = by_field.get(f"files[{aid}]")
                if upload is not None and aid not in kept:
                    used.add(upload.field_name)
                    result.append(self._new_attachment(upload, channel_id, entry))
                elif aid in kept:
                    result.append(kept[aid])
        for upload in files:
            if upload.field_name not in used:
                result.append(self._new_attachment(upload, channel_id, {}))
        return result

    def _new_attachment(self, upload: UploadedFile, channel_id: int, entry: dict[str, Any]) -> FakeAttachment:
        aid = self.snowflakes.next()
        filename = str(entry.get("filename") or upload.filename)
        return FakeAttachment(
            id=aid,
            filename=filename,
            data=upload.data,
            url=f"{self.base_url}/attachments/{channel_id}/{aid}/{filename}",
            content_type=guess_content_type(filename, upload.data),
            description=entry.get("description"),
        )

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


def _json_response(body: Any, *, status: int = 200, headers: Mapping[str, str] | None = None) -> web.Response:
    # discord.py's json_or_text() only decodes when Content-Type is exactly "application/json"
    # (aiohttp's json_response would append "; charset=utf-8").
    data = json.dumps(body, separators=(",", ":")).encode()
    return web.Response(body=data, status=status, headers={**(headers or {}), "Content-Type": "application/json"})


def _guild_of(data: Mapping[str, Any]) -> int | None:
    """The guild id a dispatch payload belongs to (``None`` for DMs and guild-less events)."""
    guild_id = data.get("guild_id")
    if guild_id is None and isinstance(data.get("guild"), Mapping):
        guild_id = data["guild"].get("id")
    return int(guild_id) if guild_id is not None else None
