"""Benchmark of the bot as one process or several: ``.venv/bin/python bench/bench_shards.py [--games 8] [--moves 300]``.

In one run, the same load against three set-ups, each bot process a child process (``ChildBot`` of
``tests/fakediscord/child_bot.py``) talking to one fake Discord served by this process:

* 1 process on SQLite (one gateway connection, as today);
* 1 process on PostgreSQL (the same, ``DATABASE_URL`` on a throwaway local cluster, see ``tests/pgcluster.py``);
* 2 processes on PostgreSQL, shards 0 and 1 of 2, each serving one of the two servers.

The load is ``bench/bench_bot.py``'s (its :class:`Table` and :func:`play_all`): ``--games`` games at once, spread
over two servers (one per shard), three people each, every move made as soon as the previous one was posted,
alternately with a slash command and with the controls of the turn DM. The people read their game from the
database (the bot runs elsewhere), so the figures include one read of the game per move. Printed: moves per
second, p50 / p99 of the time from an interaction to the bot's acknowledgement and to the move's post, and,
for each store, the per-move store latency p50 / p99 (``bench/bench_store.py``'s appends). PostgreSQL cases are
left out, with one line saying why, when its server binaries are not installed.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import logging
import statistics
import sys
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_bot import TIMEOUT, Figures, Table, Turn, percentile, play_all
from bench.bench_store import append_latencies
from bot.host.postgres_store import PostgresStore
from bot.host.store import Store
from engine import Game
from tests import pgcluster
from tests.fakediscord import FakeChannel, FakeDiscord
from tests.fakediscord.child_bot import ChildBot
from tests.fakediscord.remote import Position, poll

SHARDS = 2
"""The fake world always has two servers, one on each of two shards; the one-process bots serve both."""


@dataclass(frozen=True)
class Case:
    name: str
    store: str
    """``sqlite`` or ``postgres``."""
    processes: int


CASES = (Case("1 process, SQLite", "sqlite", 1), Case("1 process, PostgreSQL", "postgres", 1),
         Case("2 processes, PostgreSQL", "postgres", 2))


class StoreTable(Table):
    """A :class:`Table` whose people read their game from the database (the bot is another process)."""

    def __init__(self, fake: FakeDiscord, store: Any, channel: FakeChannel, users: list[str], seed: int) -> None:
        super().__init__(fake, None, channel, users, seed)
        self.store = store
        self._game_id: int | None = None

    async def game_id(self) -> int:
        if self._game_id is None:
            async def opened() -> tuple[int, int] | None:
                return await self.store.open_game_version(self.channel.id)
            self._game_id = (await poll(opened, timeout=TIMEOUT, description="the game to open"))[0]
        return self._game_id

    async def position(self) -> Position:
        """The game as the database has it now."""
        row = await self.store.get_game(await self.game_id())
        return Position(row, Game.from_json(row.state) if row.state is not None else None)

    async def turn_open(self, seq: int | None = None) -> bool:
        position = await self.position()
        return (position.running and (seq is None or position.seq >= seq) and position.game is not None
                and position.game.pending is not None)

    async def turn(self) -> Turn | None:
        position = await self.position()
        user_id = position.to_move_user()
        if user_id is None:
            return None
        game = position.game
        assert game is not None and game.to_move is not None
        return Turn(position.row.id, position.seq, self.fake.user(user_id).name, [str(m) for m in game.legal_moves()],
                    game.view(game.to_move))


def bot_env(case: Case, database: str, token: str) -> list[dict[str, str]]:
    """Each bot process's settings."""
    base = {"DISCORD_TOKEN": token, "LOG_LEVEL": "WARNING",
            ("DATABASE_PATH" if case.store == "sqlite" else "DATABASE_URL"): database}
    if case.processes == 1:
        return [base]
    return [{**base, "SHARD_COUNT": str(SHARDS), "SHARD_IDS": str(shard)} for shard in range(case.processes)]


async def run_case(case: Case, database: str, games: int, moves: int, seed: int, folder: Path) -> Figures:
    """The load against ``case``'s bot processes on ``database`` (a SQLite path or a PostgreSQL URL)."""
    figures = Figures()
    async with FakeDiscord(shard_count=SHARDS, populate=False) as fake:
        servers = [fake.add_guild(f"server-{shard}", shard=(shard, SHARDS), channels=()) for shard in range(SHARDS)]
        channels, users = [], []
        for number in range(games):
            server = servers[number % SHARDS]
            channels.append(fake.add_text_channel(server, f"table-{number}"))
            users.append([f"p{number}-{seat}" for seat in range(3)])
            for name in users[-1]:
                fake.add_member(server, fake.add_user(name, locale=("en-US", "de", "fr")[len(name) % 3]))
        logs = folder / case.name.replace(" ", "_").replace(",", "")
        bots = [ChildBot(fake.base_url, env, Path(f"{logs}-{n}.log"))
                for n, env in enumerate(bot_env(case, database, fake.token))]
        try:
            for bot in bots:
                bot.start()
            await fake.wait_until(lambda: len(fake.shard_sessions()) == len(bots) and fake.synced_commands(),
                                  timeout=TIMEOUT, description="the bot processes to connect")
            store: Any = await (Store.open(database) if case.store == "sqlite" else PostgresStore.open(database))
            try:
                tables = [StoreTable(fake, store, channels[i], users[i], seed + i) for i in range(games)]
                await asyncio.gather(*(table.open(figures) for table in tables))
                figures.acks.clear()
                await play_all(tables, moves, figures)
            finally:
                await store.close()
        finally:
            for bot in bots:
                bot.terminate()
    return figures


async def store_latencies(kind: str, database: str, appends: int) -> list[float]:
    store: Any = await (Store.open(database) if kind == "sqlite" else PostgresStore.open(database))
    try:
        return await append_latencies(store, appends)
    finally:
        await store.close()


async def run(games: int, moves: int, seed: int, appends: int) -> None:
    ms = 1000.0
    names = itertools.count()
    with tempfile.TemporaryDirectory() as temp, ExitStack() as stack:
        folder = Path(temp)
        cluster = None if pgcluster.missing_binaries() else stack.enter_context(pgcluster.cluster())

        def database(kind: str) -> str:
            number = next(names)
            if kind == "sqlite":
                return str(folder / f"bench-{number}.db")
            assert cluster is not None
            pgcluster.sql(cluster, f"CREATE DATABASE bench{number}")
            return cluster.rsplit("/", 1)[0] + f"/bench{number}"

        print(f"{games} games at once, {moves} moves per case, people by slash command and DM in turn")
        print(f"{'case':<24} {'moves':>5} {'moves/s':>8} {'ack p50':>8} {'ack p99':>8} {'post p50':>9} "
              f"{'post p99':>9}  (ms)")
        for case in CASES:
            if case.store == "postgres" and cluster is None:
                print(f"{case.name:<24} skipped: {pgcluster.INSTALL_HINT}")
                continue
            f = await run_case(case, database(case.store), games, moves, seed, folder)
            print(f"{case.name:<24} {f.moves:>5} {f.moves / f.elapsed:>8.1f} {percentile(f.acks, 50) * ms:>8.1f} "
                  f"{percentile(f.acks, 99) * ms:>8.1f} {percentile(f.posts, 50) * ms:>9.1f} "
                  f"{percentile(f.posts, 99) * ms:>9.1f}")
        print(f"\n{'store':<24} {'appends':>7} {'p50 ms':>8} {'p99 ms':>8}   (one move and its state, one transaction)")
        for kind in ("sqlite", "postgres"):
            if kind == "postgres" and cluster is None:
                continue
            latencies = await store_latencies(kind, database(kind), appends)
            cuts = statistics.quantiles(latencies, n=100)
            print(f"{kind:<24} {len(latencies):>7} {cuts[49] * ms:>8.2f} {cuts[98] * ms:>8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="games at once, over two servers (default 8)")
    parser.add_argument("--moves", type=int, default=300, help="moves in all, per case (default 300)")
    parser.add_argument("--appends", type=int, default=400, help="moves stored for the store latency (default 400)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    asyncio.run(run(args.games, args.moves, args.seed, args.appends))


if __name__ == "__main__":
    main()
