"""``santacruz-bot``: run the Discord bot with the settings from the environment or ``.env``.

Logging goes through :func:`bot.host.logs.setup_logging` at ``LOG_LEVEL``, as text or (``LOG_FORMAT=json``) one JSON
object per line: no token, seed, hand or deck reaches the log at any level. The database is opened once before
logging in, so a file that cannot be opened or written is said at once, plainly (the file and the likely cause),
with no traceback. Computer players think and pictures are drawn in worker processes, so neither holds up the bot's
answers; a pool whose worker died is replaced (``bot.host.workers``). The garbage collector looks through the
objects that live on seldom (:func:`collect_seldom`).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import multiprocessing.util
import os
import signal
import sys
from typing import Any, Final

import discord

from bot.adapter.client import SantaCruzBot, create_bot
from bot.adapter.health import HealthServer
from bot.host.backup import BackupError, backup_sqlite
from bot.host.errors import StoreError
from bot.host.logs import setup_logging
from bot.host.migrate import copy_database
from bot.host.pictures import warm_workers
from bot.host.settings import Settings, SettingsError
from bot.host.stores import open_store
from bot.host.workers import SPARE_NICE, WorkerPool, process_pool_factory
from bot.web.server import WebServer

log = logging.getLogger("bot")

RENDER_NICE: Final = 10
"""How much lower the render workers' scheduling priority is than the bot's: on cores full of pictures, the bot's
own event loop (answers within Discord's 3 seconds, posts, the rate budget) still gets the core it asks for, and a
picture waits a little instead (measured with ``bench/bench_scale.py``, see the README's "How far it scales"). The
render pool keeps one job more than it has workers, so that none idles between two pictures."""

GC_THRESHOLDS: Final = (20_000, 20, 10)
"""The garbage collector's thresholds in the bot's process (Python's are 700, 10, 10): what a move holds while it
waits for the database, a picture or Discord (its game read, its views) lives a second or two, and at Python's it
outlived two young collections and was looked through again by a full one, every five seconds at ten moves a
second, 0.1 to 0.35 s each with a thousand games in memory, during which no request goes out (measured with
``bench/bench_scale.py`` and ``santacruz_gc_pause_seconds``)."""

NO_TOKEN = """santacruz-bot: no Discord token.
Set DISCORD_TOKEN in the environment or in a .env file in this folder (see .env.example):
  1. https://discord.com/developers/applications -> New Application -> Bot -> Reset Token, copy it;
  2. put DISCORD_TOKEN=<the token> into .env (and keep that file private);
  3. invite the bot with the scopes "bot" and "applications.commands" and the permissions
     View Channels, Send Messages, Attach Files, Embed Links and Read Message History."""


async def run(settings: Settings, **client_options: Any) -> None:
    """Start the bot and run it until it is stopped: SIGTERM (``docker stop``, ``systemctl stop``) or SIGINT
    (Ctrl-C) stops it cleanly (:meth:`bot.adapter.client.SantaCruzBot.stop`), a second signal at once.

    Computer players and pictures run in worker processes: both are pure CPU work, and in threads they
    would hold the interpreter lock that the bot needs to answer within Discord's 3 seconds. With ``HTTP_PORT``
    set, the health and metrics server runs beside the bot (:mod:`bot.adapter.health`); with ``WEB_PORT``, the games'
    web pages (:mod:`bot.web.server`, drawing their boards in the same render pool). The render workers draw their
    first pictures while the bot logs in (:func:`bot.host.pictures.warm_workers`). ``client_options`` go to
    :func:`bot.adapter.client.create_bot` (tests).
    """
    await (await open_store(settings)).close()  # a bad path or URL fails here, before logging in
    collect_seldom()
    cores = os.cpu_count() or 2
    computers = WorkerPool(process_pool_factory(max(1, cores - 1)), name="computers")
    pictures = WorkerPool(process_pool_factory(cores, nice=RENDER_NICE), name="render", slots=cores + 1,
                          spare=process_pool_factory(1, nice=SPARE_NICE))
    warming = asyncio.create_task(warm_workers(pictures, cores, settings.picture_width), name="santacruz-warm-up")
    health: HealthServer | None = None
    pages: WebServer | None = None
    try:
        bot = create_bot(settings, computer_executor=computers, render_executor=pictures, **client_options)
        _stop_on_signals(bot, (computers, pictures))
        if settings.http_port is not None:
            health = HealthServer(bot, settings.http_host, settings.http_port)
            await health.start()
        if settings.web_port is not None:
            pages = WebServer(lambda: bot.host.web if bot.host is not None else None, settings, pictures)
            await pages.start()
        async with bot:
            await bot.start(settings.discord_token)
        log.info("stopped cleanly")
    finally:
        warming.cancel()
        if pages is not None:
            await pages.stop()
        if health is not None:
            await health.stop()
        computers.shutdown(stop_workers=True)
        pictures.shutdown(stop_workers=True)


def collect_seldom() -> None:
    """Set aside what every process holds for good (the modules, the islands, discord.py's own objects: collected
    now, then frozen, never looked through again), and look through the rest seldom (:data:`GC_THRESHOLDS`): a
    collection holds up the event loop, and a full one of a bot with many games in memory holds it up for a good part
    of a second."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def _stop_on_signals(bot: SantaCruzBot, pools: tuple[WorkerPool, ...]) -> None:
    """SIGTERM and SIGINT stop the bot cleanly; a second one stops the process at once (everything stored stays:
    each change is one transaction, and what is owed is sent at the next start)."""
    loop = asyncio.get_running_loop()
    received: list[int] = []

    def stop(signum: int) -> None:
        received.append(signum)
        name = signal.Signals(signum).name
        if len(received) == 1:
            log.info("%s: stopping cleanly (SHUTDOWN_GRACE %g s; a second signal stops at once)", name,
                     bot.settings.shutdown_grace)
            bot.stop()
        else:
            log.warning("%s again: stopping at once", name)
            _exit_at_once(128 + signum, pools)

    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop, signum)


def _exit_at_once(code: int, pools: tuple[WorkerPool, ...]) -> None:
    """End the process now with ``code``, cleanly: the worker processes are ended first, then multiprocessing's own
    exit handlers run, as at a normal exit (and as multiprocessing runs them in each of its child processes before
    their ``os._exit``). They remove the pools' named semaphores, which multiprocessing's resource tracker would
    otherwise find left behind and report as "leaked semaphore objects"."""
    for pool in pools:
        pool.shutdown(wait=False, stop_workers=True)
    multiprocessing.util._exit_function()  # type: ignore[attr-defined]  # not in typeshed: the handler atexit runs
    logging.shutdown()
    os._exit(code)


def migrate_main(argv: list[str]) -> int:
    """``santacruz-bot migrate --from sqlite:PATH --to postgresql://…``: copy every game, move and user (and the
    players' history) from a SQLite file to PostgreSQL, check each game by replay; safe to run twice."""
    parser = argparse.ArgumentParser(prog="santacruz-bot migrate", description=migrate_main.__doc__)
    parser.add_argument("--from", dest="source", required=True, help="sqlite:PATH of the SQLite database")
    parser.add_argument("--to", dest="target", required=True, help="postgresql://… URL of the PostgreSQL database")
    args = parser.parse_args(argv)
    try:
        report = asyncio.run(copy_database(args.source, args.target))
    except StoreError as exc:
        print(f"santacruz-bot migrate: {exc}", file=sys.stderr)
        return 3
    for line in report.lines():
        print(line)
    return 1 if report.problems else 0


def backup_main(argv: list[str]) -> int:
    """``santacruz-bot backup FILE``: a consistent copy of the SQLite database (``DATABASE_PATH``) while the bot
    runs; with ``DATABASE_URL`` set, use PostgreSQL's ``pg_dump`` instead (see the README)."""
    parser = argparse.ArgumentParser(prog="santacruz-bot backup", description=backup_main.__doc__)
    parser.add_argument("file", help="the new file to write the copy to (it must not exist)")
    args = parser.parse_args(argv)
    try:
        settings = Settings.load(".env")
    except SettingsError as exc:
        print(f"santacruz-bot: {exc}", file=sys.stderr)
        return 2
    if settings.database_url:
        print("santacruz-bot backup: the games are in PostgreSQL (DATABASE_URL): back them up with pg_dump, "
              "as the README says", file=sys.stderr)
        return 2
    try:
        report = backup_sqlite(settings.database_path, args.file)
    except BackupError as exc:
        print(f"santacruz-bot backup: {exc}", file=sys.stderr)
        return 3
    print(report.line())
    return 0


def main(argv: list[str] | None = None) -> int:
    """The console script: 0 after a clean stop, 2 for a settings problem, 3 if the database cannot be opened,
    1 if login failed. ``santacruz-bot migrate …`` copies a SQLite database to PostgreSQL instead, ``santacruz-bot
    backup FILE`` makes a consistent copy of the SQLite database."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["migrate"]:
        return migrate_main(argv[1:])
    if argv[:1] == ["backup"]:
        return backup_main(argv[1:])
    try:
        settings = Settings.load(".env")
    except SettingsError as exc:
        print(f"santacruz-bot: {exc}", file=sys.stderr)
        return 2
    if not settings.discord_token.strip():
        print(NO_TOKEN, file=sys.stderr)
        return 2
    setup_logging(settings.log_level, secrets=[settings.discord_token, settings.web_secret],
                  json_lines=settings.log_format == "json",
                  shard=",".join(map(str, settings.shard_ids)) or None)
    log.info("starting with %r", settings)
    try:
        asyncio.run(run(settings))
    except StoreError as exc:
        print(f"santacruz-bot: {exc}", file=sys.stderr)
        return 3
    except discord.LoginFailure:
        log.error("Discord refused the token: check DISCORD_TOKEN")
        return 1
    except KeyboardInterrupt:
        log.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
