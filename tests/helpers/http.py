"""The bot's own HTTP servers as the tests talk to them (its health and metrics server, its web pages): a free port
to give one, an answer read whole (:func:`get`, :func:`fetch`), the next event of a live stream, and a metrics page
read with prometheus-client's own parser."""

from __future__ import annotations

import asyncio
import socket

import aiohttp
from prometheus_client.parser import text_string_to_metric_families


def free_port() -> int:
    """A port of 127.0.0.1 nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def get(url: str) -> tuple[int, str]:
    """One GET in a session of its own: status and text."""
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.text()


async def fetch(http: aiohttp.ClientSession, url: str, *, method: str = "GET",
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """One answer: status, headers, body."""
    async with http.request(method, url, headers=headers or {}, allow_redirects=False) as answer:
        return answer.status, dict(answer.headers), await answer.read()


async def next_event(reader: aiohttp.StreamReader, timeout: float = 10.0) -> tuple[str, str]:
    """The next event of a Server-Sent Events stream: (event, data); comments skipped."""
    event, data = "message", ""
    while True:
        line = (await asyncio.wait_for(reader.readline(), timeout)).decode().rstrip("\n")
        if line == "":
            if data:
                return event, data
            continue
        if line.startswith(":") or line.startswith("retry:"):
            continue
        key, _, value = line.partition(": ")
        if key == "event":
            event = value
        elif key == "data":
            data = value


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a Prometheus exposition, parsed by prometheus-client: (name, labels) -> value."""
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def total(found: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str) -> float:
    """The sum of the samples of ``name`` that carry ``labels`` (among others)."""
    return sum(v for (n, ls), v in found.items() if n == name and all((k, labels[k]) in ls for k in labels))
