"""How the fake's REST routes are written and what every part of it shares about a request.

A part of :class:`~tests.fakediscord.server.FakeDiscord` marks each of its handlers with the routes it answers,
right above it: ``@route("GET", "/channels/{channel_id}/messages/{message_id}")`` (several may be stacked). In a
path, ``{name}`` is a snowflake (digits) and ``{name:regex}`` anything the regex matches; the handler is called with
the :class:`RecordedRequest` and the path's named parts, and returns the JSON answer (or :data:`NO_CONTENT` for a
204, :class:`Created` for a 201), or raises :class:`~tests.fakediscord.validation.ApiError`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from aiohttp import web

from .message import UploadedFile

T = TypeVar("T")

NO_CONTENT: Any = object()
"""What a handler returns for an answer without a body (204 No Content)."""


@dataclass(frozen=True)
class Created:
    """What a handler returns for a resource it created where Discord answers 201 Created (an application's emoji):
    the resource."""

    payload: Any


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


@dataclass(frozen=True)
class Route:
    """One REST route: its method, its path (as a regex), and whether it needs the bot's token (interaction callbacks
    and webhooks go by the interaction's token instead)."""

    method: str
    pattern: re.Pattern[str]
    auth: bool = True


@dataclass(frozen=True)
class BoundRoute:
    """A :class:`Route` with its handler, a method of one fake."""

    method: str
    pattern: re.Pattern[str]
    handler: Callable[..., Awaitable[Any]]
    auth: bool


_PLACEHOLDER = re.compile(r"\{(\w+)(?::([^}]+))?\}")
_SNOWFLAKE = r"\d+"
_ROUTES = "fake_discord_routes"
"""The attribute of a handler that lists its routes."""

Handler = TypeVar("Handler", bound=Callable[..., Awaitable[Any]])


def route(method: str, path: str, *, auth: bool = True) -> Callable[[Handler], Handler]:
    """Mark a handler as answering ``method path``; in the path, ``{name}`` is a snowflake and ``{name:regex}`` what
    the regex matches."""
    pattern = _PLACEHOLDER.sub(lambda m: f"(?P<{m[1]}>{m[2] or _SNOWFLAKE})", path)
    marked = Route(method, re.compile(pattern + "$"), auth)

    def mark(handler: Handler) -> Handler:
        setattr(handler, _ROUTES, (*getattr(handler, _ROUTES, ()), marked))
        return handler

    return mark


def routes_of(fake: object) -> list[BoundRoute]:
    """Every route the handlers of ``fake`` (an instance of a class composed of parts) are marked with."""
    found: list[BoundRoute] = []
    for name in dir(type(fake)):
        for marked in getattr(getattr(type(fake), name), _ROUTES, ()):
            found.append(BoundRoute(marked.method, marked.pattern, getattr(fake, name), marked.auth))
    return found


def copy_json(value: T) -> T:
    """A copy of JSON data (a request's body, a stored command) that shares nothing with it: the fake keeps what it
    received apart from the recorded request. A round trip through the C encoder, several times quicker than
    ``copy.deepcopy`` for the same data (a command sync is copied three times at every bot start)."""
    copied: T = json.loads(json.dumps(value))
    return copied


def json_response(body: Any, *, status: int = 200, headers: Mapping[str, str] | None = None) -> web.Response:
    """A JSON answer as Discord sends it (with ``headers`` besides its content type)."""
    # discord.py's json_or_text() only decodes when Content-Type is exactly "application/json"
    # (aiohttp's json_response would append "; charset=utf-8").
    data = json.dumps(body, separators=(",", ":")).encode()
    return web.Response(body=data, status=status, headers={**(headers or {}), "Content-Type": "application/json"})
