"""The fake Discord itself: :class:`FakeDiscord`, an aiohttp server on ``127.0.0.1`` (a free port) serving the REST
API under ``/api/v10/...``, the gateway websocket, attachment URLs and the CDN, composed of one part per topic (see
the package's docstring for which part holds what).

Here is what is common to every request: it is recorded (:class:`~tests.fakediscord.routing.RecordedRequest`), held
to Discord's rate limits (:mod:`.rate_limits`: a request over one is answered 429 and goes no further), its body
checked against Discord's own API description (:mod:`.openapi`; a refused body is answered 400 / 50035, as
Discord does, and listed in :data:`REFUSED_BODIES`), its buttons and menu options checked for custom emojis the bot
may not use (:mod:`.emojis`), its files checked for pictures that hold none (:data:`BROKEN_PICTURES`), held or failed
on a test's request (:mod:`.faults`), checked for the bot's token, and handed to the route of the part that serves
it.

Unmodified discord.py is pointed at it with :func:`tests.fakediscord.fixtures.patch_discord`. Everything runs on the
test's event loop; every wait is event driven (no sleeps) with a generous timeout, and a timeout raises
:class:`~tests.fakediscord.inspection.FakeDiscordTimeout` with a report of recent activity.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import traceback
from collections.abc import Sequence
from typing import Any

import aiohttp
from aiohttp import web

from . import audit, openapi
from .app_commands import AppCommands
from .channels import Channels
from .emojis import AppEmojis, ApplicationEmojis
from .entities import FakeChannel, FakeGuild, FakeUser
from .faults import Faults, InjectedError, Stall
from .gateway import Gateway, GatewayConnection, GatewaySession
from .guilds import Guilds
from .handles import InteractionHandle
from .inspection import Inspection
from .interactions import Interactions
from .kinds import SnowflakeGenerator
from .message import FakeAttachment, FakeMessage
from .rate_limits import DISCORD_ROUTES, GLOBAL_LIMIT, IDENTIFY_SPACING, RateLimits, RouteLimit
from .responses import InteractionResponses
from .routing import NO_CONTENT, Created, RecordedRequest, json_response, routes_of
from .slash import SlashCommands
from .threads import Threads
from .uploads import Uploads
from .validation import ApiError, FormErrors
from .world import World

_log = logging.getLogger(__name__)


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


_FORM_ERROR_CODES = {
    "maxLength": "BASE_TYPE_BAD_LENGTH", "minLength": "BASE_TYPE_BAD_LENGTH", "maxItems": "BASE_TYPE_BAD_LENGTH",
    "minItems": "BASE_TYPE_BAD_LENGTH", "maximum": "NUMBER_TYPE_MAX", "minimum": "NUMBER_TYPE_MIN",
    "required": "BASE_TYPE_REQUIRED", "enum": "BASE_TYPE_CHOICES", "type": "BASE_TYPE_INVALID",
}
"""Discord's error code in an "Invalid Form Body" answer for the keyword of the description a body breaks."""


class FakeDiscord(World, Guilds, Channels, Threads, Uploads, AppCommands, AppEmojis, SlashCommands, Interactions,
                  InteractionResponses, Gateway, Faults, Inspection):
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
        global_limit: int = GLOBAL_LIMIT,
        route_limits: Sequence[RouteLimit] = DISCORD_ROUTES,
        max_concurrency: int = 1,
        identify_spacing: float = IDENTIFY_SPACING,
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
        :param global_limit: requests per second the bot may make (Discord's global limit, 50);
            ``route_limits``: the per-route limits (:data:`tests.fakediscord.rate_limits.DISCORD_ROUTES`);
            ``max_concurrency``: the IDENTIFYs allowed per ``identify_spacing`` (Discord: 5) seconds per
            ``shard_id % max_concurrency`` (what ``GET /gateway/bot`` reports). :attr:`rate_limits` enforces them
            and counts what they refused (all as Discord has them unless a test says otherwise).
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
        #: Discord's rate limits, enforced (:mod:`.rate_limits`), with what they refused.
        self.rate_limits = RateLimits(self.application_id, routes=route_limits, global_limit=global_limit,
                                      max_concurrency=max_concurrency, identify_spacing=identify_spacing)

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
        #: The application's own emojis (:mod:`.emojis`).
        self.application_emojis = ApplicationEmojis(self.snowflakes)

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

        self._injected: list[InjectedError] = []
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
        self._routes = routes_of(self)

        if populate:
            self.populate_defaults()

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

    async def request_as_bot(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        """Send ``body`` (JSON) to ``path`` below the API prefix with the bot's token, bypassing discord.py (for
        tests of what the fake answers); the status and the decoded answer."""
        headers = {"Authorization": f"Bot {self.token}"}
        async with aiohttp.ClientSession() as http, http.request(
                method, self.api_base + path, json=body, headers=headers) as resp:
            return resp.status, await resp.json()

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
        verdict = self.rate_limits.admit(rec.method, path, request.headers.get("Authorization"))
        status, answer = verdict.refusal or await self._route(request, rec)
        headers = rec.response_headers = {**verdict.headers, **rec.response_headers}
        self.rate_limits.answered(verdict, status, headers.get("X-RateLimit-Scope"))
        rec.status = status
        rec.response = None if answer is NO_CONTENT else answer
        self.notify()
        if answer is NO_CONTENT:
            return web.Response(status=204, headers=headers)
        if isinstance(answer, str):  # a Cloudflare ban: plain text, no Via header
            return web.Response(status=status, text=answer, headers=headers)
        return json_response(answer, status=status, headers=headers)

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
        answer_now, lost_answer = await self._fault_for(rec)
        if answer_now is not None:
            rec.response_headers.update(answer_now.headers)
            return answer_now.status, answer_now.body()
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
            if isinstance(answer, Created):
                return 201, answer.payload
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
        return json_response({"message": "404: Not Found", "code": 0}, status=404)
