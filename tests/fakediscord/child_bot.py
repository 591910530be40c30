"""Run the real Santa Cruz bot in a child process against a fake Discord served by the test process.

``python -P tests/fakediscord/child_bot.py`` with the bot's settings in the environment (``DISCORD_TOKEN``,
``DATABASE_URL`` or ``DATABASE_PATH``, ``SHARD_COUNT``, ``SHARD_IDS``, …) and ``FAKE_DISCORD_URL`` (the fake's
base URL, ``http://127.0.0.1:PORT``): discord.py is pointed at the fake as :func:`patch_discord` does, then the
bot runs exactly as ``santacruz-bot`` runs it (:func:`bot.adapter.main.run`: its worker processes, its signal
handlers, its health server), until it is stopped (SIGTERM: a clean stop; SIGKILL: a crash).
SIGUSR1 writes what the process is doing to its log (every thread's stack, and every asyncio task's), so that a
test that timed out waiting for the bot can say where it was (:meth:`ChildBot.dump`).
Tests use :class:`ChildBot` to start and stop such processes: several of them are the processes of a sharded bot.

The file runs as a script (``-P``: its own folder stays off ``sys.path``), not as ``-m tests.fakediscord.child_bot``,
which would first import the ``tests.fakediscord`` package (pytest, the fake server); and discord.py and the bot are
imported only when it runs as the process's main. The bot's worker processes run this file too (each imports its
parent's main module, as ``multiprocessing`` does), and a worker that draws pictures or thinks needs none of that.
"""

from __future__ import annotations

import asyncio
import faulthandler
import io
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[2]


def _point_discord_at(base_url: str) -> None:
    import discord.asset
    import discord.gateway
    import discord.http
    import yarl

    discord.http.Route.BASE = f"{base_url}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(base_url.replace("http://", "ws://") + "/gateway/")
    discord.asset.Asset.BASE = base_url


def _dump_tasks() -> None:
    """Every pending task of the event loop with its stack, to the log (stdout)."""
    out = io.StringIO()
    tasks = asyncio.all_tasks()
    out.write(f"--- {len(tasks)} asyncio tasks\n")
    for task in sorted(tasks, key=lambda t: t.get_name()):
        task.print_stack(limit=12, file=out)
    sys.stdout.write(out.getvalue())
    sys.stdout.flush()


async def _run() -> None:
    from bot.adapter.main import run
    from bot.host.logs import setup_logging
    from bot.host.settings import Settings

    settings = Settings.load(env_file=None)
    setup_logging(settings.log_level, secrets=[settings.discord_token], json_lines=settings.log_format == "json")
    loop = asyncio.get_running_loop()
    faulthandler.register(signal.SIGUSR2, all_threads=True)  # the threads' stacks even when the loop is stuck
    loop.add_signal_handler(signal.SIGUSR1, lambda: (os.kill(os.getpid(), signal.SIGUSR2), _dump_tasks()))
    await run(settings, guild_ready_timeout=0.2)  # santacruz-bot's own run, its signal handlers included


class ChildBot:
    """One bot process (``env``: its settings); ``start()``, then ``await stop()`` (or ``terminate()`` from a thread)
    or ``kill()``.

    With ``piped=True`` its output reaches the log through a pipe that every process it starts inherits (its worker
    processes, multiprocessing's resource tracker): :meth:`output_closed` tells when the last of them is gone, so that
    a test reads what they wrote on their way out."""

    def __init__(self, fake_base_url: str, env: dict[str, str], log_path: Path, *, piped: bool = False) -> None:
        self.env = {**os.environ, **env, "FAKE_DISCORD_URL": fake_base_url, "PYTHONPATH": str(ROOT)}
        self.log_path = log_path
        self.piped = piped
        self.process: subprocess.Popen[bytes] | None = None
        self._copying: threading.Thread | None = None

    def start(self) -> None:
        if self.piped:
            self.process = subprocess.Popen([sys.executable, "-P", __file__], cwd=ROOT, env=self.env,
                                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            self._copying = threading.Thread(target=self._copy, args=(self.process.stdout,), daemon=True)
            self._copying.start()
            return
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen([sys.executable, "-P", __file__], cwd=ROOT,
                                            env=self.env, stdout=log, stderr=subprocess.STDOUT)

    def _copy(self, output: IO[bytes]) -> None:
        with self.log_path.open("ab", buffering=0) as log:
            while chunk := output.read1(65536):
                log.write(chunk)
        output.close()

    def output_closed(self, timeout: float) -> bool:
        """Whether every process that holds the piped output has ended within ``timeout`` seconds."""
        if self._copying is None:
            raise RuntimeError("only a ChildBot started with piped=True knows when its output closed")
        self._copying.join(timeout)
        return not self._copying.is_alive()

    def kill(self) -> None:
        """SIGKILL: the process dies at once, mid-work, as in a crash."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=30)

    def terminate(self) -> int | None:
        """SIGTERM: the bot stops cleanly; its exit code (``None`` if it had to be killed after 30 s)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                return self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)
                return None
        return self.process.returncode if self.process is not None else None

    async def stop(self) -> int | None:
        """:meth:`terminate` without blocking the event loop: the fake Discord is served by the same loop, and a
        process that is stopping cleanly still sends what it owes to it (a blocked loop would leave those requests
        unanswered until the bot's stop grace ran out)."""
        return await asyncio.to_thread(self.terminate)

    def running(self) -> bool:
        """Whether the process was started and has not ended."""
        return self.process is not None and self.process.poll() is None

    def dump(self) -> None:
        """Ask a running process to write its threads' and tasks' stacks to its log (see the module docstring)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGUSR1)

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")


if __name__ == "__main__":
    _point_discord_at(os.environ["FAKE_DISCORD_URL"])
    asyncio.run(_run())
