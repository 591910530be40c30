"""The games' web pages over HTTP (aiohttp, which discord.py brings; this package never imports discord.py).

``WEB_PORT`` on ``WEB_HOST``; every decision is the host's part :class:`bot.host.web.Web` (which token is which game,
whether it is on the web, whether a seat's link holds, what each view shows), read through ``source`` (the running
bot's ``host.web``, or ``None`` while it starts). The routes:

* ``GET /g/<token>``: the game's page (HTML from ``templates/page.html``, Jinja2 with autoescape; Open Graph tags with
  the current board, so that a pasted link unfolds in Discord);
* ``GET /g/<token>/state.json[?at=N&lang=xx]``: the page's one JSON document (:mod:`bot.web.document`) of position
  ``N`` (default: now);
* ``GET /g/<token>/board/<N>.png?m=<mark>&lang=xx``: the board at position ``N`` (:mod:`bot.web.pictures`); ``mark``
  names the position for ever, so the picture may be kept by browsers for ever;
* ``GET /g/<token>/events``: Server-Sent Events, ``version`` each time the game changed (:mod:`bot.web.live`);
* ``GET /g/<token>/s/<claim>`` and ``…/state.json``, ``…/board.png``, ``POST …/hint.json``: a seat's own view behind
  its signed link (403 and nothing else for a link that does not hold);
* ``GET /static/page.js``, ``/static/page.css``, ``/static/icon.svg``: the page's script, style and icon, from a fixed
  list read at start (no other file is ever served).

Every answer carries a Content-Security-Policy without inline scripts (:data:`CSP`), ``nosniff``, no referrer and no
framing; a seat's answers are never cached. Each address is limited (:mod:`bot.web.limits`). ``/metrics`` is not
here: it stays on the private health port (``HTTP_PORT``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from importlib import resources
from typing import Any, Final
from urllib.parse import urlsplit

from aiohttp import web
from jinja2 import Environment, PackageLoader

from bot.host.errors import HostError, StorageFailed
from bot.host.settings import Settings
from bot.host.web import Forbidden, NotShown, Page, SeatPage, Web
from bot.host.workers import WorkerPool
from bot.web.document import isolated, labels, public_document, seat_block, viewer_locale
from bot.web.limits import Buckets, Streams, viewer_address
from bot.web.live import Changes
from bot.web.pictures import FULL_WIDTH, BoardPictures, png_size
from i18n import LOCALES, t
from i18n.coach import advice_text

log = logging.getLogger(__name__)

CSP: Final = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
              "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
"""The pages' Content-Security-Policy: their own script and style files only, nothing inline, nothing from
elsewhere, never in a frame."""
STATIC: Final = {"page.js": "text/javascript; charset=utf-8", "page.css": "text/css; charset=utf-8",
                  "icon.svg": "image/svg+xml"}
"""The only files served, from ``bot/web/static``."""
KEEPALIVE: Final = 15.0
"""Seconds between two comments on an idle live stream (proxies close silent connections)."""
STREAM_SECONDS: Final = 1800.0
"""A live stream ends after this long; the browser opens a new one at once (``retry``)."""
DOCUMENTS: Final = 512
"""Public documents kept (per game version, position and language)."""
PAGE_RATE, PAGE_BURST = 10.0, 60.0
"""Requests per second and at once one address may make (pages, documents, pictures already drawn)."""
DRAW_RATE, DRAW_BURST = 2.0, 24.0
"""Pictures to draw (and coach's hints) per second and at once one address may ask for."""
STREAMS_EACH: Final = 8
"""Live streams one address may hold open."""

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
ADDRESS: Final = web.RequestKey("address", str)
"""The viewer's address, as :func:`bot.web.limits.viewer_address` reads it (set on every request)."""


class _Refused(Exception):
    """An answer other than the page: ``status`` and the catalogue's ``key`` saying why."""

    def __init__(self, status: int, key: str) -> None:
        super().__init__(key)
        self.status, self.key = status, key


def json_for_html(data: Any) -> str:
    """JSON that may stand inside ``<script type="application/json">``: no ``<``, ``>`` or ``&`` that could close
    it, and no line separators JavaScript once choked on."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                          ("\u2029", "\\u2029")):
        text = text.replace(char, escaped)
    return text


def secure(headers: Any) -> None:
    """The headers every answer carries."""
    headers["Content-Security-Policy"] = CSP
    headers["X-Content-Type-Options"] = "nosniff"
    headers["Referrer-Policy"] = "no-referrer"
    headers["X-Frame-Options"] = "DENY"
    headers.setdefault("Cache-Control", "no-cache")


def templates() -> Environment:
    """The pages' templates, every value escaped for HTML unless marked safe."""
    return Environment(loader=PackageLoader("bot.web", "templates"), autoescape=True, trim_blocks=True,
                       lstrip_blocks=True)


def static_files() -> dict[str, bytes]:
    """The page's script and style, read once."""
    folder = resources.files("bot.web").joinpath("static")
    return {name: folder.joinpath(name).read_bytes() for name in STATIC}


class Paths:
    """Where the server's answers are, under ``PUBLIC_URL``'s path (a proxy may serve the pages below one)."""

    def __init__(self, prefix: str, token: str, claim: str | None = None) -> None:
        self.base = f"{prefix}/g/{token}"
        self.claim = claim

    def board(self, page: Page, at: int, locale: str) -> str:
        return f"{self.base}/board/{at}.png?m={page.key(at)[2]}&lang={locale}"

    def personal(self, page: Page, locale: str) -> str | None:
        if self.claim is None:
            return None
        return f"{self.base}/s/{self.claim}/board.png?m={page.key(page.positions)[2]}&lang={locale}"

    def state(self) -> str | None:
        return f"{self.base}/s/{self.claim}/state.json" if self.claim else f"{self.base}/state.json"

    def events(self) -> str | None:
        return f"{self.base}/events"

    def hint(self) -> str | None:
        return f"{self.base}/s/{self.claim}/hint.json" if self.claim else None


class WebServer:
    """The web pages' server of one bot process: :meth:`start`, then :meth:`stop` last."""

    def __init__(self, source: Callable[[], Web | None], settings: Settings,
                 executor: WorkerPool | Executor | None = None, *, host: str | None = None,
                 port: int | None = None, picture_width: int = FULL_WIDTH) -> None:
        self.source = source
        self.settings = settings
        self.host = host if host is not None else settings.web_host
        self.port = port if port is not None else settings.web_port or 0
        parts = urlsplit(settings.web_url)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.prefix = parts.path.rstrip("/")
        self.pictures = BoardPictures(executor, width=picture_width)
        self.changes = Changes(source)
        self.pages, self.draws, self.streams = (Buckets(PAGE_RATE, PAGE_BURST), Buckets(DRAW_RATE, DRAW_BURST),
                                                Streams(STREAMS_EACH))
        self.templates = templates()
        self.files = static_files()
        self.version = hashlib.sha256(b"".join(self.files.values())).hexdigest()[:12]
        self._documents: OrderedDict[tuple[Any, ...], bytes] = OrderedDict()
        self._closing = asyncio.Event()
        app = web.Application(middlewares=[self._guard])
        g = "/g/{token:[A-Za-z0-9_-]{1,64}}"
        s = g + "/s/{claim:[A-Za-z0-9._-]{1,80}}"
        app.router.add_get(g, self.public_page)
        app.router.add_get(g + "/state.json", self.public_state)
        app.router.add_get(g + "/board/{at:[0-9]{1,4}}.png", self.public_board)
        app.router.add_get(g + "/events", self.events)
        app.router.add_get(s, self.seat_page)
        app.router.add_get(s + "/state.json", self.seat_state)
        app.router.add_get(s + "/board.png", self.seat_board)
        app.router.add_post(s + "/hint.json", self.seat_hint)
        app.router.add_get("/static/{name}", self.static)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=2.0)
        self._site: web.TCPSite | None = None

    async def start(self) -> None:
        await self._runner.setup()
        self._site = web.TCPSite(self._runner, self.host, self.port)
        await self._site.start()
        server = self._site._server
        sockets = getattr(server, "sockets", None) or []
        if sockets:
            self.port = int(sockets[0].getsockname()[1])
        self.changes.start()
        log.info("the games' web pages on http://%s:%d (links: %s)", self.host, self.port,
                 self.settings.web_url or "none")
        if not self.settings.public_url:
            log.warning("PUBLIC_URL is not set: the posts link to %s, which only this machine reaches (set it to the "
                        "address players open, e.g. your reverse proxy's https://…)", self.settings.web_url)

    async def stop(self) -> None:
        self._closing.set()
        await self.changes.stop()
        await self._runner.cleanup()

    # ------------------------------------------------------------------ every request

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """The address's limit, the answer to a refusal or a failure, and the headers every answer carries."""
        address = viewer_address(request.remote, request.headers.get("X-Forwarded-For"))
        request[ADDRESS] = address
        wait = self.pages.take(address)
        try:
            if wait is not None:
                raise _Refused(429, "web.error.busy")
            response = await handler(request)
        except _Refused as refused:
            response = self._refusal(request, refused)
            if refused.status == 429:
                response.headers["Retry-After"] = str(max(1, round(wait or 1)))
        except (StorageFailed, HostError) as exc:
            if isinstance(exc, HostError) and exc.key != "host.error.storage":
                raise
            log.warning("a web page could not read the database: %s", exc)
            response = self._refusal(request, _Refused(503, "web.error.storage"))
        except web.HTTPException as exc:
            response = web.Response(status=exc.status, text=f"{exc.status}: {exc.reason}\n")
        if not response.prepared:
            secure(response.headers)
        return response

    def _refusal(self, request: web.Request, refused: _Refused) -> web.Response:
        """A refusal in the viewer's language: a small page for a page, JSON for the rest."""
        locale = self._locale(request)
        if refused.key in ("web.error.not_found", "web.error.forbidden") and request.path.count("/") <= 4 \
                and not request.path.endswith((".json", ".png", "/events")):
            html = self.templates.get_template("error.html").render(
                labels=labels(locale), title=t(f"{refused.key}.title", locale),
                text=t(f"{refused.key}.text", locale), static=self._static_path())
            response = web.Response(status=refused.status, text=html, content_type="text/html")
        else:
            key = f"{refused.key}.text" if refused.key in ("web.error.not_found", "web.error.forbidden") \
                else refused.key
            response = web.json_response({"error": t(key, locale)}, status=refused.status)
        response.headers["Cache-Control"] = "no-store"
        return response

    def _web(self) -> Web:
        web_part = self.source()
        if web_part is None:
            raise _Refused(503, "web.error.storage")
        return web_part

    def _locale(self, request: web.Request) -> str:
        asked = request.query.get("lang", "")
        return asked if asked in LOCALES else viewer_locale(request.headers.get("Accept-Language"))

    def _static_path(self) -> str:
        return f"{self.prefix}/static"

    async def _page(self, token: str) -> Page:
        try:
            return await self._web().page(token)
        except NotShown:
            raise _Refused(404, "web.error.not_found") from None

    async def _seat(self, request: web.Request) -> SeatPage:
        try:
            return await self._web().seat_page(request.match_info["token"], request.match_info["claim"])
        except Forbidden:
            raise _Refused(403, "web.error.forbidden") from None

    @staticmethod
    def _at(request: web.Request, page: Page) -> int:
        """The position asked for (``at``), the latest when none or one the game does not have."""
        asked = request.query.get("at", "")
        if asked.isascii() and asked.isdigit() and int(asked) <= page.positions:
            return int(asked)
        return page.positions

    # ------------------------------------------------------------------ the public page

    async def _public_document(self, page: Page, at: int, locale: str) -> bytes:
        """The public document of position ``at``, as JSON (kept per game version, position and language)."""
        key = (page.game_id, page.version, at, locale)
        kept = self._documents.get(key)
        if kept is not None:
            self._documents.move_to_end(key)
            return kept
        web_part = self._web()
        view = await web_part.view_at(page, at)
        last = await web_part.view_at(page) if at != page.positions else view
        data = json.dumps(public_document(page, view, at, locale, Paths(self.prefix, page.token), last=last),
                          ensure_ascii=False, separators=(",", ":")).encode()
        self._documents[key] = data
        while len(self._documents) > DOCUMENTS:
            self._documents.popitem(last=False)
        return data

    async def public_page(self, request: web.Request) -> web.StreamResponse:
        page = await self._page(request.match_info["token"])
        locale = self._locale(request)
        doc = json.loads(await self._public_document(page, page.positions, locale))
        return self._html("page.html", doc, page, locale, seat=False)

    async def public_state(self, request: web.Request) -> web.StreamResponse:
        page = await self._page(request.match_info["token"])
        body = await self._public_document(page, self._at(request, page), self._locale(request))
        return web.Response(body=body, content_type="application/json", charset="utf-8")

    async def public_board(self, request: web.Request) -> web.StreamResponse:
        page = await self._page(request.match_info["token"])
        at = int(request.match_info["at"])
        if at > page.positions or request.query.get("m") != str(page.key(at)[2]):
            raise _Refused(404, "web.error.not_found")  # a position an undo took away, or none at all
        locale = self._locale(request)
        key = (*page.key(at), locale, None)
        png = self.pictures.kept(key)
        if png is None:
            view = await self._web().view_at(page, at)
            if view is None:
                raise _Refused(404, "web.error.not_found")
            png = await self._draw(request, key, view, locale, personal=False)
        return web.Response(body=png, content_type="image/png",
                            headers={"Cache-Control": "public, max-age=31536000, immutable"})

    async def _draw(self, request: web.Request, key: tuple[Any, ...], view: Any, locale: str, *,
                    personal: bool) -> bytes:
        if self.draws.take(request[ADDRESS]) is not None:
            raise _Refused(429, "web.error.busy")
        try:
            return await self.pictures.png(key, view, locale, personal=personal)
        except Exception:
            log.exception("a web page's board could not be drawn")
            raise _Refused(503, "web.error.storage") from None

    def _html(self, template: str, doc: dict[str, Any], page: Page, locale: str, *, seat: bool) -> web.Response:
        """A page: the template with the document (also as JSON for the script), the Open Graph tags."""
        board = doc.get("board") or {}
        image = f"{self.origin}{board['src']}" if board.get("src") and self.origin != "://" else None
        size = None
        if board.get("src"):
            kept = self.pictures.kept((*page.key(doc["at"]), locale, None))
            size = png_size(kept) if kept is not None else None
        html = self.templates.get_template(template).render(
            doc=doc, doc_json=json_for_html(doc), labels=labels(locale), seat=seat, og_image=image, og_size=size,
            description=self._description(doc), static=self._static_path(), version=self.version)
        headers = {"Cache-Control": "private, no-store"} if seat else {"Cache-Control": "no-cache"}
        headers["Vary"] = "Accept-Language"
        return web.Response(text=html, content_type="text/html", headers=headers)

    @staticmethod
    def _description(doc: dict[str, Any]) -> str:
        parts = [part for part in (doc.get("turn"), doc.get("phase"), doc.get("scores")) if part]
        return " · ".join(parts)

    # ------------------------------------------------------------------ a seat's own view

    async def _seat_document(self, seat: SeatPage, at: int, locale: str) -> dict[str, Any]:
        web_part = self._web()
        page = seat.page
        doc: dict[str, Any] = json.loads(await self._public_document(page, at, locale))
        view = await web_part.seat_view(seat)
        paths = Paths(self.prefix, page.token, seat.claim)
        doc.update(view="seat", state=paths.state())
        if view is not None and "you" in view:
            may_ask = (page.hints and page.status == "running" and view["to_move"] == seat.seat
                       and not page.seats[seat.seat].away)
            doc["you"] = seat_block(page, view, seat.expires, locale, paths, may_ask=may_ask)
            if at == page.positions:  # now: the seat's own picture, its legal sites flagged
                doc["board"] = doc["you"]["board"]
        return doc

    async def seat_page(self, request: web.Request) -> web.StreamResponse:
        seat = await self._seat(request)
        locale = self._locale(request)
        doc = await self._seat_document(seat, seat.page.positions, locale)
        return self._html("page.html", doc, seat.page, locale, seat=True)

    async def seat_state(self, request: web.Request) -> web.StreamResponse:
        seat = await self._seat(request)
        doc = await self._seat_document(seat, self._at(request, seat.page), self._locale(request))
        return web.json_response(doc, dumps=lambda d: json.dumps(d, ensure_ascii=False),
                                 headers={"Cache-Control": "private, no-store"})

    async def seat_board(self, request: web.Request) -> web.StreamResponse:
        seat = await self._seat(request)
        page = seat.page
        if request.query.get("m") != str(page.key(page.positions)[2]):
            raise _Refused(404, "web.error.not_found")
        locale = self._locale(request)
        key = (*page.key(page.positions), locale, seat.seat)
        png = self.pictures.kept(key)
        if png is None:
            view = await self._web().seat_view(seat)
            if view is None:
                raise _Refused(404, "web.error.not_found")
            png = await self._draw(request, key, view, locale, personal=True)
        return web.Response(body=png, content_type="image/png", headers={"Cache-Control": "private, no-store"})

    async def seat_hint(self, request: web.Request) -> web.StreamResponse:
        seat = await self._seat(request)
        locale = self._locale(request)
        if self.draws.take(request[ADDRESS]) is not None:
            raise _Refused(429, "web.error.busy")
        try:
            answer = await self._web().hint(seat)
        except HostError as exc:
            if exc.key == "host.error.storage":
                raise
            return web.json_response({"error": t(exc.key, locale, **exc.params)}, status=409,
                                     dumps=lambda d: json.dumps(d, ensure_ascii=False),
                                     headers={"Cache-Control": "private, no-store"})
        text = advice_text(answer.advice, locale, [isolated(n) for n in answer.names], notation=False)
        return web.json_response({"lines": text.split("\n")}, dumps=lambda d: json.dumps(d, ensure_ascii=False),
                                 headers={"Cache-Control": "private, no-store"})

    # ------------------------------------------------------------------ live updates

    async def events(self, request: web.Request) -> web.StreamResponse:
        """Server-Sent Events: the game's version now, then again each time it changes; ``gone`` when it leaves the
        web. A comment every :data:`KEEPALIVE` seconds keeps proxies from closing the stream."""
        page = await self._page(request.match_info["token"])
        address = request[ADDRESS]
        if not self.streams.open(address):
            raise _Refused(429, "web.error.busy")
        try:
            response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store",
                                                   "X-Accel-Buffering": "no"})
            secure(response.headers)
            await response.prepare(request)
            await response.write(b"retry: 1000\n\n" + _event(page))
            with self.changes.watch(page.game_id, page.version) as watch, contextlib.suppress(ConnectionResetError):
                await self._stream(response, page, watch.changed)  # ends when the page is closed, too
        finally:
            self.streams.close(address)
        return response

    async def _stream(self, response: web.StreamResponse, page: Page, changed: asyncio.Event) -> None:
        ends = time.monotonic() + STREAM_SECONDS
        while not self._closing.is_set() and time.monotonic() < ends:
            try:
                await asyncio.wait_for(changed.wait(), KEEPALIVE)
            except TimeoutError:
                await response.write(b": still here\n\n")
                continue
            changed.clear()
            if self._closing.is_set():
                break
            try:
                now = await self._web().page(page.token)
            except NotShown:
                await response.write(b"event: gone\ndata: {}\n\n")
                break
            except (StorageFailed, HostError, _Refused):
                continue  # the next change (or the next check) tries again
            if now.version != page.version:
                page = now
                await response.write(_event(page))
        with contextlib.suppress(ConnectionResetError):
            await response.write_eof()

    # ------------------------------------------------------------------ the script and the style

    async def static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        body = self.files.get(name)
        if body is None:
            raise _Refused(404, "web.error.not_found")
        return web.Response(body=body, headers={"Content-Type": STATIC[name],
                                                "Cache-Control": "public, max-age=86400"})


def _event(page: Page) -> bytes:
    """One ``version`` event: the game's version, its positions and status."""
    data = json.dumps({"version": page.version, "positions": page.positions, "status": page.status})
    return f"event: version\ndata: {data}\n\n".encode()
