"""The operator's window into a running bot: one small HTTP server (aiohttp, which discord.py brings), off unless
``HTTP_PORT`` is set, listening on ``HTTP_HOST`` (127.0.0.1 unless told otherwise).

* ``GET /healthz``: 200 ``ok`` while the event loop answers (a container's health check, a liveness probe);
* ``GET /readyz``: 200 ``ready`` when this process can play: its gateway shards are connected, the database
  answers within ``BUSY_TIMEOUT`` with this bot's schema, and it is not stopping; else 503 with the reason in words;
* ``GET /metrics``: the metrics of :mod:`bot.host.metrics` in Prometheus' text format, the database's figures
  (outbox backlog, games by status) and the gateway's (latency per shard, servers) read just before; while the
  server runs, the event loop's lag is measured (:func:`bot.adapter.telemetry.watch_loop`), and the garbage
  collections' pauses (:func:`bot.adapter.telemetry.watch_gc`).

``/healthz`` is the liveness a container's health check and a supervisor ask: it answers while the process works,
also while Discord is unreachable. Restarting the process would not bring Discord back: discord.py reconnects by
itself, and a restart would only add a stop and a start (the posts owed waiting meanwhile). Whether the process can
play is ``/readyz``'s question: alert on it (a gateway down for minutes), never restart on it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from aiohttp import web
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

from bot.adapter import telemetry
from bot.host import metrics

if TYPE_CHECKING:
    from bot.adapter.client import SantaCruzBot

log = logging.getLogger(__name__)


class HealthServer:
    """The HTTP server of one bot process; :meth:`start` after the bot is built, :meth:`stop` last."""

    def __init__(self, bot: SantaCruzBot, host: str, port: int) -> None:
        self.bot = bot
        self.host = host
        self.port = port
        app = web.Application()
        app.router.add_get("/healthz", self.healthz)
        app.router.add_get("/readyz", self.readyz)
        app.router.add_get("/metrics", self.metrics)
        self._runner = web.AppRunner(app, access_log=None)
        self._site: web.TCPSite | None = None
        self._lag: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self._runner.setup()
        self._site = web.TCPSite(self._runner, self.host, self.port)
        await self._site.start()
        self._lag = asyncio.get_running_loop().create_task(telemetry.watch_loop(), name="santacruz-loop-lag")
        telemetry.watch_gc()
        log.info("health and metrics on http://%s:%d (/healthz, /readyz, /metrics)", self.host, self.port)

    async def stop(self) -> None:
        if self._lag is not None:
            self._lag.cancel()
            await asyncio.wait({self._lag})
        await self._runner.cleanup()

    async def healthz(self, request: web.Request) -> web.Response:
        return web.Response(text="ok\n")

    async def readyz(self, request: web.Request) -> web.Response:
        reason = await self.unready()
        if reason is not None:
            return web.Response(status=503, text=f"not ready: {reason}\n")
        return web.Response(text="ready\n")

    async def unready(self) -> str | None:
        """Why this process cannot play now, in words; ``None`` when it can."""
        bot = self.bot
        if bot.stopping:
            return "the bot is stopping"
        if bot.host is None:
            return "starting: the database is not open yet"
        if not bot.is_ready() or bot.is_closed():
            return "not connected to Discord"
        down = bot.shards_down()
        if down:
            return f"gateway shard{'s' if len(down) > 1 else ''} {', '.join(map(str, down))} not connected"
        return await bot.host.readiness()

    async def metrics(self, request: web.Request) -> web.Response:
        host = self.bot.host
        if host is not None:
            try:
                metrics.observe_store(await host.figures())
            except Exception as exc:  # the database is down: the counters still answer, the figures keep theirs
                log.warning("the metrics could not read the database: %s", exc)
        telemetry.observe(self.bot)
        body = generate_latest(metrics.REGISTRY)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})
