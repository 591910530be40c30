"""How much one address may ask of the web pages: token buckets per address, and who the address is.

Each address has a bucket per kind of request (:class:`Buckets`): pages and their documents, pictures that must be
drawn (the costly ones: a picture already kept costs nothing), and open live streams (counted while open, not
refilled). An address over its limit is answered 429 with ``Retry-After``; its other requests go on.

The address is the connection's. Behind a reverse proxy on this machine or on a private network (a container's
bridge), the connection's address is the proxy's, and the viewer's is the last one the proxy added to
``X-Forwarded-For``: that is the one used then (a viewer may write earlier ones themselves, never the last).
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

MAX_ADDRESSES: Final = 20_000
"""Buckets kept at most; past that the full ones (addresses that asked nothing for a while) are let go."""


@dataclass(slots=True)
class _Bucket:
    tokens: float
    at: float


class Buckets:
    """One token bucket per address: ``burst`` requests at once, ``rate`` more each second."""

    def __init__(self, rate: float, burst: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst = rate, burst
        self._clock = clock
        self._buckets: dict[str, _Bucket] = {}

    def take(self, address: str) -> float | None:
        """Take one request for ``address``: ``None`` when allowed, else the seconds until it would be."""
        now = self._clock()
        bucket = self._buckets.get(address)
        if bucket is None:
            if len(self._buckets) >= MAX_ADDRESSES:
                self._forget_full(now)
            bucket = self._buckets[address] = _Bucket(self.burst, now)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.at) * self.rate)
        bucket.at = now
        if bucket.tokens < 1:
            return (1 - bucket.tokens) / self.rate
        bucket.tokens -= 1
        return None

    def _forget_full(self, now: float) -> None:
        for address, bucket in list(self._buckets.items()):
            if bucket.tokens + (now - bucket.at) * self.rate >= self.burst:
                del self._buckets[address]


class Streams:
    """Open live streams per address, at most ``most`` at once."""

    def __init__(self, most: int) -> None:
        self.most = most
        self._open: dict[str, int] = {}

    def open(self, address: str) -> bool:
        """Count one more stream for ``address``; ``False`` (nothing counted) when it has ``most`` open."""
        if self._open.get(address, 0) >= self.most:
            return False
        self._open[address] = self._open.get(address, 0) + 1
        return True

    def close(self, address: str) -> None:
        left = self._open.get(address, 1) - 1
        if left > 0:
            self._open[address] = left
        else:
            self._open.pop(address, None)

    @property
    def total(self) -> int:
        return sum(self._open.values())


def viewer_address(peer: str | None, forwarded_for: str | None) -> str:
    """The viewer's address: the connection's, or behind a proxy on a loopback or private address, the last one
    of its ``X-Forwarded-For``."""
    peer = peer or "unknown"
    if not forwarded_for:
        return peer
    try:
        proxy = ipaddress.ip_address(peer)
    except ValueError:
        return peer
    if not (proxy.is_loopback or proxy.is_private):
        return peer
    last = forwarded_for.split(",")[-1].strip()
    try:
        return str(ipaddress.ip_address(last))
    except ValueError:
        return peer
