"""The gateway: the websocket discord.py connects to (HELLO, IDENTIFY -> READY and a GUILD_CREATE per guild,
heartbeats, RESUME with the events missed replayed, member chunk requests), in plain JSON or ``zlib-stream`` as the
client asks; sessions and shards (a guild's events go to its shard, DMs to shard 0; an IDENTIFY too soon after its
``shard_id % max_concurrency`` key's last answered with an Invalid Session, as :mod:`.rate_limits` says); dispatching
events to the bot; and what a test does to the connection (drop it, ask for a reconnect, end the sessions)."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import traceback
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

from .routing import RecordedRequest, route

_log = logging.getLogger(__name__)


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


def guild_of(data: Mapping[str, Any]) -> int | None:
    """The guild id a dispatch payload belongs to (``None`` for DMs and guild-less events)."""
    guild_id = data.get("guild_id")
    if guild_id is None and isinstance(data.get("guild"), Mapping):
        guild_id = data["guild"].get("id")
    return int(guild_id) if guild_id is not None else None


class Gateway:
    """The part of :class:`~tests.fakediscord.server.FakeDiscord` that speaks the gateway."""


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
        shard = data.get("shard") or (0, 1)
        if not self.rate_limits.identify(int(shard[0])):  # too soon after its key's last IDENTIFY (.rate_limits)
            await conn.send({"op": OP_INVALID_SESSION, "d": False})
            self.notify()
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

    async def dispatch(self, event: str, data: dict[str, Any]) -> int:
        """Send a DISPATCH (op 0) event to the connected bot; return its sequence number.

        If the bot is momentarily disconnected (reconnecting), the event is kept and replayed
        when it RESUMEs.
        """
        guild_id = int(data["id"]) if event.startswith("GUILD_") and "guild_id" not in data else guild_of(data)
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
        session = self.session_for(guild_of(data))
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

    async def request_reconnect(self) -> None:
        """Send op 7 RECONNECT: the bot closes and RESUMEs."""
        session = self.session
        if session is None or session.connection is None:
            raise RuntimeError("no connected bot")
        await session.connection.send({"op": OP_RECONNECT, "d": None})

    def end_sessions(self, shard_ids: Iterable[int] | None = None) -> None:
        """Forget the gateway sessions (of ``shard_ids`` only, if given), as after a logout: :meth:`dispatch`
        then fails until a bot IDENTIFIES again (``run_bot`` calls this when it stops the bot)."""
        shards = None if shard_ids is None else set(shard_ids)
        for session in self.sessions:
            if shards is None or session.shard[0] in shards:
                session.ended = True
        self.notify()

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

    @route("GET", "/gateway", auth=False)
    async def _r_gateway(self, rec: RecordedRequest) -> Any:
        return {"url": self.gateway_url}

    @route("GET", "/gateway/bot")
    async def _r_gateway_bot(self, rec: RecordedRequest) -> Any:
        limit = self.rate_limits.session_start_limit()
        return {"url": self.gateway_url, "shards": self.shard_count, "session_start_limit": limit}
