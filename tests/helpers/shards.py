"""Two bot processes (shards 0 and 1 of 2) over one PostgreSQL against the fake Discord: the scaffolding the
multi-process tests share (their settings, starting a process, the bots' logs checked for errors, waiting for their
deliveries)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from bot.host.postgres_store import PostgresStore
from tests.fakediscord import FakeDiscord
from tests.fakediscord.child_bot import ChildBot
from tests.fakediscord.remote import poll

TIMEOUT = 90.0
"""Generous: two bot processes, a database server and the test share a slow, busy machine."""
LEASE_SECONDS = 4.0
"""How soon the shard-0 process takes over the posts of a dead one (and twice that, its computers). Not shorter: the
processes also wait up to half of it for each other's changes, which a busy machine can take (at 2 s the Undo test
failed two runs in nine)."""


def bot_env(database_url: str, shard: int, token: str, **extra: str) -> dict[str, str]:
    """A bot process's settings for ``shard`` of 2 (``extra`` overrides, e.g. ``SWEEP_SECONDS``)."""
    return {"DISCORD_TOKEN": token, "DATABASE_URL": database_url, "SHARD_COUNT": "2", "SHARD_IDS": str(shard),
            "AI_STRENGTH": "random", "AI_SECONDS": "0.05", "SWEEP_SECONDS": "1", "REMINDER_HOURS": "0.0003",
            "LEASE_SECONDS": str(LEASE_SECONDS), "LOG_LEVEL": "INFO", "PICTURE_WIDTH": "800", **extra}


async def start_process(fake: FakeDiscord, bot: ChildBot, shard: int) -> None:
    """Start a bot process and wait until its gateway session for ``shard`` is live (commands synced)."""
    old = fake.shard_sessions().get(shard)
    bot.start()

    def connected() -> bool:
        assert bot.running(), f"the shard-{shard} process ended before it connected:\n{bot.log()[-3000:]}"
        s = fake.shard_sessions().get(shard)
        return s is not None and s is not old and s.connection is not None and bool(fake.synced_commands())

    await fake.wait_until(connected, timeout=TIMEOUT, poll=0.5, description=f"the shard-{shard} process to connect")


@asynccontextmanager
async def two_shard_bots(fake: FakeDiscord, database_url: str, logs: Path, *, each: Sequence[dict[str, str]] = ({}, {}),
                         **extra: str) -> AsyncIterator[Sequence[ChildBot]]:
    """Both processes started side by side and yielded (``extra``: settings of both, ``each``: of each one, e.g. its
    own ``WEB_PORT``); afterwards they are stopped and neither may have logged an error or a traceback. When the body
    fails, each live process first writes its threads' and tasks' stacks to its log (:meth:`ChildBot.dump`), then the
    end of each log is printed to explain it."""
    bots = [ChildBot(fake.base_url, bot_env(database_url, shard, fake.token, **extra, **each[shard]),
                     logs / f"shard{shard}.log") for shard in (0, 1)]
    try:
        await asyncio.gather(*(start_process(fake, bot, shard) for shard, bot in enumerate(bots)))
        yield bots
    except BaseException:
        for bot in bots:
            bot.dump()
        await asyncio.sleep(2)  # the dumps are written from the processes' own loops
        for bot in bots:
            print(f"--- {bot.log_path.name}\n{bot.log()[-30000:]}")
        raise
    finally:
        await asyncio.gather(*(bot.stop() for bot in bots))
    for bot in bots:
        errors = [line for line in bot.log().splitlines() if " ERROR " in line or "Traceback" in line]
        assert not errors, f"{bot.log_path.name} logged errors: {errors}"


async def wait_deliveries_done(store: PostgresStore) -> None:
    """Wait until the processes have delivered every post and DM the database holds."""
    async def done() -> bool:
        return not await store.pending_deliveries()
    await poll(done, timeout=TIMEOUT, description="every delivery to be done")
