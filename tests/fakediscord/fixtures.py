"""pytest fixtures and helpers that run a real discord.py bot against :class:`FakeDiscord`.

Use from a test module (or a ``conftest.py``) with::

    pytest_plugins = ["tests.fakediscord.fixtures"]  # in the root conftest.py

    async def test_something(fake_discord):
        bot = make_my_bot()
        async with run_bot(bot, fake_discord) as runner:
            handle = await fake_discord.slash_command("game new", {"players": 3})
            ...

* :func:`patch_discord` points discord.py at the fake (``Route.BASE`` and the gateway URL).
* :func:`run_bot` starts ``bot.start(token)`` in a task, waits until the bot is ready and has
  every guild in its cache, and on exit closes it cleanly; it also collects the bot's ERROR
  log records and (by default) fails the test if there were any.
* :class:`BotRunner` is the object behind it, for restart tests: ``await runner.stop()``, then
  run a *new* bot object against the same fake.
* :func:`no_body_discord_refuses` (autouse) fails every test in which a fake received a request body that
  Discord's own API description refuses (the fake answers it 400 / 50035, as Discord does).
* :func:`no_broken_picture` (autouse) fails every test in which the bot uploaded a file Discord shows as a picture
  but that holds none (an empty ``board.png``: Discord takes it, and shows a broken picture).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import traceback
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any, Final

import discord
import discord.asset
import discord.gateway
import discord.http
import pytest
import pytest_asyncio
import yarl

from .gateway import shard_of
from .inspection import DEFAULT_TIMEOUT, FakeDiscordTimeout
from .server import BROKEN_PICTURES, REFUSED_BODIES, FakeDiscord

__all__ = ["BotRunner", "fake_discord", "no_body_discord_refuses", "patch_discord", "run_bot"]

GUILD_READY = 0.01
"""Seconds discord.py waits after the last GUILD_CREATE before ``on_ready`` (its own default: 2 s). The fake writes
READY and every GUILD_CREATE back to back in one go, so the bot reads them all within a few turns of the event loop,
and this wait is paid at every bot start (a few hundred times a run: 0.05 s was a third of a start). Should a guild
come after ``on_ready`` on a stalled machine, discord.py announces it as available, as it does after a reconnect, and
:meth:`BotRunner.start` still waits until every guild is cached."""

_running: set[BotRunner] = set()
"""Runners whose bot is running in this process (several, for shards run like separate processes)."""


class patch_discord:
    """Point discord.py's REST base URL and default gateway URL at ``fake`` (restored on exit).

    Usable as ``with patch_discord(fake):`` or ``async with patch_discord(fake):``.
    discord.py 2.7 never asks ``GET /gateway/bot`` in a non-sharded client: it connects
    straight to ``DiscordWebSocket.DEFAULT_GATEWAY``, so both are patched. Webhook and
    interaction requests use the same ``Route`` class and follow. ``discord.Asset.BASE`` (the
    CDN of avatars and icons) is pointed at the fake as well, so nothing leaves 127.0.0.1.
    """

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self._saved: tuple[str, yarl.URL, str] | None = None

    def __enter__(self) -> FakeDiscord:
        ws = discord.gateway.DiscordWebSocket
        self._saved = (discord.http.Route.BASE, ws.DEFAULT_GATEWAY, discord.asset.Asset.BASE)
        discord.http.Route.BASE = self.fake.api_base
        ws.DEFAULT_GATEWAY = yarl.URL(self.fake.gateway_url)
        discord.asset.Asset.BASE = self.fake.base_url  # avatars/icons: served by the fake too
        return self.fake

    def __exit__(self, *exc: object) -> None:
        assert self._saved is not None
        ws = discord.gateway.DiscordWebSocket
        discord.http.Route.BASE, ws.DEFAULT_GATEWAY, discord.asset.Asset.BASE = self._saved
        self._saved = None

    async def __aenter__(self) -> FakeDiscord:
        return self.__enter__()

    async def __aexit__(self, *exc: object) -> None:
        self.__exit__(*exc)


class _ErrorCollector(logging.Handler):
    """Keeps ERROR records of the captured loggers (unhandled errors in commands, views...) and
    wakes the fake's waiters, so ``fake.wait_until(lambda: runner.errors)`` works."""

    def __init__(self, fake: FakeDiscord, *sinks: list[str]) -> None:
        super().__init__(level=logging.ERROR)
        self.fake = fake
        self.sinks = sinks
        self.loop: asyncio.AbstractEventLoop | None = None

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            text += "\n" + "".join(traceback.format_exception(*record.exc_info)).rstrip()
        for sink in self.sinks:
            sink.append(f"{record.name}: {text}")
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self.fake.notify()
        else:  # logged from another thread (discord.py's heartbeat thread)
            loop.call_soon_threadsafe(self.fake.notify)


class BotRunner:
    """Runs one discord.py client against a fake: ``await start()`` ... ``await stop()``."""

    def __init__(
        self,
        bot: discord.Client,
        fake: FakeDiscord,
        *,
        token: str | None = None,
        guild_ready_timeout: float | None = GUILD_READY,
        ready_timeout: float = DEFAULT_TIMEOUT,
        capture_loggers: Sequence[str] = ("discord",),
    ) -> None:
        """
        :param token: defaults to ``fake.token``.
        :param guild_ready_timeout: discord.py waits this long after the last GUILD_CREATE
            before firing ``on_ready`` (2 s by default). The fake sends all GUILD_CREATEs right
            after READY, so a short value (:data:`GUILD_READY`) keeps tests fast; ``start()`` anyway
            waits until every guild is cached. ``None`` keeps the bot's own setting.
        :param capture_loggers: loggers whose ERROR records are collected into :attr:`errors`
            (discord.py logs unhandled exceptions of commands, views and events on ``discord``;
            add your bot's own logger names if it logs errors itself).
        """
        self.bot = bot
        self.fake = fake
        self.token = token if token is not None else fake.token
        self.guild_ready_timeout = guild_ready_timeout
        self.ready_timeout = ready_timeout
        #: ERROR log records of the captured loggers while the bot ran (formatted, with traceback).
        self.errors: list[str] = []
        self.task: asyncio.Task[None] | None = None
        self.capture_loggers = tuple(capture_loggers)
        self._collector = _ErrorCollector(fake, self.errors, fake.bot_errors)
        self._patch: contextlib.ExitStack | None = None

    def _serves(self, guild_id: int) -> bool:
        """Whether this bot's shards receive ``guild_id`` (every guild, without sharding)."""
        shard_ids = getattr(self.bot, "shard_ids", None)
        count = getattr(self.bot, "shard_count", None)
        if not shard_ids or not count:
            return True
        return shard_of(guild_id, count) in shard_ids

    async def start(self) -> None:
        """Start the bot and wait until it is ready with all its guilds (of its shards) cached."""
        if self.task is not None:
            raise RuntimeError("this runner already started its bot; use a new BotRunner (and a new bot)")
        if self.fake.api_base != discord.http.Route.BASE:
            self._patch = contextlib.ExitStack()
            self._patch.enter_context(patch_discord(self.fake))
        if self.guild_ready_timeout is not None:
            self.bot._connection.guild_ready_timeout = self.guild_ready_timeout
        self._collector.loop = asyncio.get_running_loop()
        for name in self.capture_loggers:
            logging.getLogger(name).addHandler(self._collector)
        self.task = asyncio.create_task(self.bot.start(self.token), name="fakediscord-bot")
        _running.add(self)
        expected = [g.id for g in self.fake.guilds.values()
                    if self.fake.bot_user.id in g.members and self._serves(g.id)]

        def ready() -> bool:
            if not self.bot.is_ready():
                return False
            for guild_id in expected:
                guild = self.bot.get_guild(guild_id)
                if guild is None or guild.unavailable:
                    return False
            return True

        try:
            await self._poll(ready, "the bot to be ready")
        except BaseException:
            await self.stop()
            raise

    async def _poll(self, condition: Any, what: str) -> None:
        # The bot's own state has no change notification usable before login, so poll it
        # (this is a state check with a deadline, not a sleep used for ordering).
        assert self.task is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.ready_timeout
        while not condition():
            if self.task.done():
                exc = self.task.exception() if not self.task.cancelled() else None
                raise RuntimeError(f"the bot stopped while waiting for {what}") from exc
            if loop.time() > deadline:
                raise FakeDiscordTimeout(self.fake.diagnostics(f"timed out waiting for {what}"))
            await asyncio.sleep(0.005)

    async def stop(self, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Close the bot, wait for ``bot.start()`` to return, then tidy discord.py's leftover
        tasks so no "Task was destroyed" warnings follow: waiting ones (view timeouts,
        ``ext.tasks`` loops) are cancelled at once, running ones (a command still busy) get
        1 s to finish before being cancelled. Tasks your bot created itself are its own
        business: cancel them in its ``close()``. Finally the gateway session is ended, so
        ``fake.dispatch`` fails until a new bot connects."""
        try:
            if not self.bot.is_closed():
                await asyncio.wait_for(self.bot.close(), timeout)
            if self.task is not None:
                try:
                    await asyncio.wait_for(asyncio.shield(self.task), timeout)
                except TimeoutError:
                    self.task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await self.task
                except Exception:
                    self.errors.append("bot.start() raised:\n" + traceback.format_exc())
            _running.discard(self)
            if not _running:  # the tasks of a bot still running in this process (another shard) stay
                await _drain_discord_tasks(timeout)
        finally:
            _running.discard(self)
            shard_ids = getattr(self.bot, "shard_ids", None)
            self.fake.end_sessions(shard_ids if _running and shard_ids else None)
            for name in self.capture_loggers:
                logging.getLogger(name).removeHandler(self._collector)
            if self._patch is not None:
                self._patch.close()
                self._patch = None

    def assert_no_errors(self) -> None:
        """Fail if the bot logged an ERROR (an unhandled exception in a command, view, event...)."""
        assert not self.errors, "the bot logged errors:\n" + "\n".join(self.errors)


def _coro_names(task: asyncio.Task[Any]) -> tuple[str, str]:
    coro = task.get_coro()
    filename = getattr(getattr(coro, "cr_code", None), "co_filename", "") or ""
    return filename, getattr(coro, "__qualname__", "") or ""


def _is_discord_task(task: asyncio.Task[Any]) -> bool:
    filename, _ = _coro_names(task)
    return "/discord/" in filename or task.get_name().startswith(("discord", "CommandTree"))


def _is_sleeper(task: asyncio.Task[Any]) -> bool:
    """discord.py tasks that only wait (view timeouts, ready delays, ext.tasks loops)."""
    _, qualname = _coro_names(task)
    return qualname.endswith(("__timeout_task_impl", "._delay_ready", "._delay_shard_ready")) or qualname.startswith(
        "Loop."
    )


async def _drain_discord_tasks(timeout: float, grace: float = 1.0) -> None:
    """Cancel discord.py's waiting tasks; give the others (command handlers, view callbacks,
    event handlers still running after close()) ``grace`` seconds to finish, then cancel them."""
    current = asyncio.current_task()
    pending = [t for t in asyncio.all_tasks() if t is not current and not t.done() and _is_discord_task(t)]
    for task in pending:
        if _is_sleeper(task):
            task.cancel()
    if not pending:
        return
    _, still = await asyncio.wait(pending, timeout=min(timeout, grace))
    for task in still:
        task.cancel()
    if still:
        await asyncio.wait(still, timeout=timeout)


@contextlib.asynccontextmanager
async def run_bot(
    bot: discord.Client,
    fake: FakeDiscord,
    *,
    token: str | None = None,
    guild_ready_timeout: float | None = GUILD_READY,
    ready_timeout: float = DEFAULT_TIMEOUT,
    fail_on_errors: bool = True,
    capture_loggers: Sequence[str] = ("discord",),
) -> AsyncIterator[BotRunner]:
    """Run ``bot`` against ``fake`` for the duration of the block.

    On entry the bot is logged in (its ``setup_hook`` ran, so commands it syncs there are
    synced), connected, ready, and has every guild cached. On exit it is closed and its
    ``start()`` task awaited. With ``fail_on_errors`` (default) an AssertionError lists any
    ERROR the bot logged, unless the block itself raised.
    """
    runner = BotRunner(
        bot,
        fake,
        token=token,
        guild_ready_timeout=guild_ready_timeout,
        ready_timeout=ready_timeout,
        capture_loggers=capture_loggers,
    )
    await runner.start()
    failed = False
    try:
        yield runner
    except BaseException:
        failed = True
        raise
    finally:
        await runner.stop()
        if fail_on_errors and not failed:
            runner.assert_no_errors()


FIXTURE_GLOBAL_LIMIT: Final = 250
"""The ``fake_discord`` fixture's global limit (requests per second), and the bot's ``GLOBAL_RATE_LIMIT`` in the
adapter tests' settings (``tests/adapter/conftest.py``): five times Discord's 50."""
FIXTURE_LIMITS: dict[str, Any] = {"identify_spacing": 0.0, "route_limits": (), "global_limit": FIXTURE_GLOBAL_LIMIT}
"""How the ``fake_discord`` fixture's Discord differs from Discord's rate limits (:mod:`tests.fakediscord.rate_limits`;
the count of invalid requests is Discord's): a test's people act at machine speed, so neither the per-route limits
nor the IDENTIFY spacing are enforced, and the global limit is :data:`FIXTURE_GLOBAL_LIMIT`. A test's players and
computers post and edit in one channel far faster than people do, which Discord's 5 posts (and 5 edits) per 5 s per
channel would hold for seconds to a minute a test (a third of the adapter tests waited, 90 s of the suite on two
workers); a whole game played at that speed sends more than the 40 requests a second the bot's own budget grants
under Discord's global limit (a whole game's test took half as long again); and a test restarts its bot within a
second, which Discord answers with an Invalid Session and discord.py waits 5 s out. Each has tests of its own
(``tests/fakediscord/test_rate_limits.py``; a bot under Discord's per-route limits, one process and two under a lowered
global limit, two processes starting their shards: ``tests/adapter/test_rate_budget.py``, with the
``discord_limits`` marker); a test that constructs :class:`FakeDiscord` itself gets every limit as Discord has it."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "discord_limits(**options): the ``fake_discord`` fixture's rate limits (FakeDiscord's keyword "
        "arguments, e.g. route_limits=DISCORD_ROUTES for a test of the bot under Discord's per-route limits)")


@pytest_asyncio.fixture
async def fake_discord(request: pytest.FixtureRequest) -> AsyncIterator[FakeDiscord]:
    """A started :class:`FakeDiscord` with the default world, with discord.py patched to use it; its rate limits are
    Discord's (but :data:`FIXTURE_LIMITS`), unless the test's ``discord_limits`` marker says otherwise.

    At teardown it fails the test if the fake itself crashed on a request (a bug of the fake).
    """
    marker = request.node.get_closest_marker("discord_limits")
    async with FakeDiscord(**{**FIXTURE_LIMITS, **(marker.kwargs if marker is not None else {})}) as fake:
        with patch_discord(fake):
            yield fake
    assert not fake.server_errors, "the fake Discord server crashed:\n" + "\n".join(fake.server_errors)


@pytest.fixture(autouse=True)
def no_body_discord_refuses() -> Iterator[None]:
    """Fail the test if any fake Discord of it (a fixture's or the test's own) received a request body that Discord's
    API description refuses (:data:`tests.fakediscord.server.REFUSED_BODIES`): Discord would answer it 400, so the
    bot would fail there in production, whether or not the test looked at that request. A test that sends such a body
    on purpose takes it back with :meth:`FakeDiscord.take_refused_bodies`."""
    REFUSED_BODIES.clear()
    yield
    refused = list(REFUSED_BODIES)
    REFUSED_BODIES.clear()
    assert not refused, "Discord's API description refuses these request bodies:\n" + "\n".join(refused)


@pytest.fixture(autouse=True)
def no_broken_picture() -> Iterator[None]:
    """Fail the test if the bot uploaded, to any fake Discord of it, a file that Discord shows as a picture but that
    holds none (:data:`tests.fakediscord.server.BROKEN_PICTURES`): Discord takes it, and players see a broken picture
    where the board should be, whether or not the test looked at that message."""
    BROKEN_PICTURES.clear()
    yield
    broken = list(BROKEN_PICTURES)
    BROKEN_PICTURES.clear()
    assert not broken, "the bot uploaded pictures that hold no picture:\n" + "\n".join(broken)
