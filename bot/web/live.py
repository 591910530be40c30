"""Live updates: which games changed, told to the open pages that watch them (Server-Sent Events, ``bot.web.server``).

Any process may change a game (several bot processes share a PostgreSQL database), so a page learns of a move from
the database, never from the process that made it. On PostgreSQL the database itself tells: every committed change
to a game notifies ``santacruz_game`` with its id (a trigger, ``bot.host.schema.GAME_NOTICES``), which
:meth:`bot.host.web.Web.listen` hands on at once; the games watched are also compared with their versions every
:data:`CHECK_SECONDS`, a net under a notice lost with a connection. SQLite has one process and no notices: the
versions of the games watched are read every :data:`POLL_SECONDS` (one indexed query for all of them, only while a
page is open). Either way a move shows on an open page well within two seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterator
from typing import Final

from bot.host.errors import StorageFailed
from bot.host.web import Web

log = logging.getLogger(__name__)

POLL_SECONDS: Final = 0.5
"""How often the watched games' versions are read where the database sends no notices (SQLite)."""
CHECK_SECONDS: Final = 10.0
"""How often they are read anyway where it does (PostgreSQL)."""


class Watch:
    """One open page's interest in one game: :attr:`changed` is set when the game may have changed."""

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        self.changed = asyncio.Event()


class Changes:
    """Tells the watches of each game when it changed; :meth:`start` once the server starts, :meth:`stop` last."""

    def __init__(self, source: Callable[[], Web | None], *, poll: float = POLL_SECONDS,
                 check: float = CHECK_SECONDS) -> None:
        self._source = source
        self._poll, self._check = poll, check
        self._watches: dict[int, set[Watch]] = {}
        self._versions: dict[int, int] = {}
        self._listening = False
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def listening(self) -> bool:
        """Whether the database tells of changes itself (PostgreSQL)."""
        return self._listening

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="santacruz-web-changes")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for watches in self._watches.values():
            for watch in watches:
                watch.changed.set()

    @contextlib.contextmanager
    def watch(self, game_id: int, version: int) -> Iterator[Watch]:
        """Watch the game (at ``version``, as the page has it) while inside."""
        watch = Watch(game_id)
        self._watches.setdefault(game_id, set()).add(watch)
        self._versions.setdefault(game_id, version)
        self._wake.set()
        try:
            yield watch
        finally:
            watches = self._watches.get(game_id, set())
            watches.discard(watch)
            if not watches:
                self._watches.pop(game_id, None)
                self._versions.pop(game_id, None)

    def notified(self, game_id: int) -> None:
        """A notice that the game changed (from the database's listener)."""
        for watch in self._watches.get(game_id, ()):
            watch.changed.set()

    async def _run(self) -> None:
        while True:
            web = self._source()
            if web is None:  # the bot is still starting: its host is not there yet
                await asyncio.sleep(self._poll)
                continue
            if not self._listening:
                try:
                    self._listening = await web.listen(self.notified)
                except StorageFailed as exc:
                    log.warning("the web pages poll for changes: %s", exc)
                    self._listening = False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self._check if self._listening else self._poll)
            self._wake.clear()
            await self._compare(web)

    async def _compare(self, web: Web) -> None:
        """Read the watched games' versions and wake the watches of those that changed."""
        if not self._watches:
            return
        try:
            versions = await web.versions(list(self._watches))
        except StorageFailed as exc:
            log.info("the web pages could not read the games' versions: %s", exc)
            return
        for game_id, version in versions.items():
            if self._versions.get(game_id) != version and game_id in self._watches:
                self._versions[game_id] = version
                self.notified(game_id)
