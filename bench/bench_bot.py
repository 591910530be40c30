"""Benchmark of the Discord bot: ``.venv/bin/python bench/bench_bot.py [--games 8] [--moves 400]``.

Runs the real bot (``bot.create_bot``) against the fake Discord of the tests (``tests/fakediscord``,
REST and gateway on 127.0.0.1) and plays ``--games`` games at once, each in its own channel with three
people, until ``--moves`` moves were made in all (or the games end). Each person acts as soon as the
previous move was posted (or stored, when it is a double move's card or first build, whose turn is posted after
its last build): half the moves with slash commands in the channel, half with the buttons and menus of their turn
DM. Prints the moves per second, and the p50 / p99 time from sending an interaction
to the bot's acknowledgement (its first answer to Discord) and to the move's message in the channel.

The fake, the bot and this driver share one process and one event loop, so every figure includes the
fake's own work; a real deployment has the server elsewhere. Goal on the project's 2-core machine:
at least 20 moves/s with p99 acknowledgement under 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.adapter.client import SantaCruzBot, create_bot
from bot.host.settings import Settings
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, InteractionHandle, patch_discord, run_bot
from tests.fakediscord.remote import slash_for_move

TIMEOUT = 120.0
LOOK_AGAIN = 1.0
"""Seconds between two readings of a game by a person waiting for its post (:meth:`Table.wait_posted`)."""
LOAD_BEFORE = os.getloadavg()[0]


@dataclass
class Figures:
    acks: list[float] = field(default_factory=list)
    posts: list[float] = field(default_factory=list)
    """Seconds from each move sent to its post, for the moves that ended their turn (the others have no post)."""
    sent: list[float] = field(default_factory=list)
    """When each move of ``posts`` was sent (the event loop's clock), in the same order."""
    moves: int = 0
    open_turns: int = 0
    """Moves that left their turn open (a double move's card or first build): the turn's last move posts it."""
    elapsed: float = 0.0
    cpu: float = 0.0
    """CPU seconds of this process and its render processes while the moves were played."""


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


@dataclass(frozen=True)
class Turn:
    """What the person to move sees: the game, its position, who they are, their legal moves and their view."""

    game_id: int
    seq: int
    user: str
    legal: list[str]
    view: Any


class Table:
    """One game in one channel, played by three fake people. It reads the game from the bot's host (the bot runs
    in this process); :meth:`turn` and :meth:`game_id` are all a table of a bot elsewhere needs to change."""

    def __init__(self, fake: FakeDiscord, bot: SantaCruzBot | None, channel: FakeChannel, users: list[str],
                 seed: int) -> None:
        self.fake, self.bot, self.channel, self.users = fake, bot, channel, users
        self.rng = random.Random(seed)
        self.loop = asyncio.get_running_loop()

    @property
    def host(self) -> Any:
        assert self.bot is not None
        return self.bot.host

    def info(self) -> Any:
        return self.host.games.info(self.channel.id)

    async def game_id(self) -> int:
        """The id of the channel's game (once opened)."""
        return int(self.info().game_id)

    async def turn(self) -> Turn | None:
        """The person to move now, or ``None`` once the game is over."""
        info = self.info()
        if info.status != "running":
            return None
        seat = info.seats[info.to_move]
        return Turn(info.game_id, info.seq, self.fake.user(seat.user_id).name,
                    self.host.play.legal_moves(self.channel.id, seat.user_id),
                    self.host.play.view_for(self.channel.id, seat.user_id))

    async def acked(self, handle: InteractionHandle, figures: Figures) -> None:
        await handle.wait_for_callback(timeout=TIMEOUT)
        assert handle.dispatched_at is not None
        figures.acks.append(self.loop.time() - handle.dispatched_at)

    def posted(self, game_id: int, seq: int) -> bool:
        """Whether the channel has the post of position ``seq`` (checks only the newest messages)."""
        wanted = (f"sc:{game_id}:hand:{seq}", f"sc:{game_id}:rematch")
        ids = self.fake._channel_messages.get(self.channel.id, [])
        for message_id in reversed(ids[-6:]):
            message = self.fake._messages[message_id]
            if any(cid in wanted for cid in message.custom_ids):
                return True
        return False

    async def turn_open(self, seq: int | None = None) -> bool:
        """Whether move ``seq`` (``None``: the latest) was made and left its turn open (a double move's card or
        first build): its post comes after the turn's last build."""
        info = self.host.games.info(self.channel.id)
        return (info is not None and (seq is None or info.seq >= seq) and info.status == "running"
                and self.host.play.public_view(self.channel.id)["pending"] is not None)

    async def wait_posted(self, game_id: int, seq: int) -> bool:
        """Until the channel has the post of move ``seq`` (``True``), or that move left its turn open (``False``: its
        post comes with the turn's last move). The move was stored before its answer came, so the game is read once
        for that, and again only each :data:`LOOK_AGAIN` seconds (reading it at every change of the fake, as many
        people waiting at once did, cost the machine more than the bot's own work): a move confirmed with a second
        click may be found to have left its turn open only then, and is not counted as a post."""
        deadline = self.loop.time() + TIMEOUT
        if await self.turn_open(seq):
            return False
        looked = self.loop.time()
        while not self.posted(game_id, seq):
            now = self.loop.time()
            if now > deadline:
                raise TimeoutError(f"waited {TIMEOUT:.0f} s for the post of move {seq}")
            if now - looked >= LOOK_AGAIN:
                if await self.turn_open(seq):
                    return False
                looked = now
            await self.fake.wait_for_change(0.05)
        return True

    def turn_dm(self, user: str, game_id: int, seq: int) -> FakeMessage | None:
        prefix = f"sc:{game_id}:{seq}:"
        channel = self.fake._dm_channels.get(self.fake.user(user).id)
        ids = self.fake._channel_messages.get(channel.id, []) if channel is not None else []
        for message_id in reversed(ids[-4:]):
            message = self.fake._messages[message_id]
            if any(cid.startswith(prefix) for cid in message.custom_ids):
                return message
        return None

    async def answered(self, handle: InteractionHandle, figures: Figures) -> None:
        """Acknowledged (timed), then answered: the lobby commands defer first and answer once the host did."""
        await self.acked(handle, figures)
        await handle.wait_for_message(lambda m: not m.loading, timeout=TIMEOUT)

    async def open(self, figures: Figures) -> None:
        handle = await self.fake.slash_command("santacruz new", {"thread": False},  # played in its channel
                                               user=self.users[0], channel=self.channel)
        await self.answered(handle, figures)
        for user in self.users[1:]:
            handle = await self.fake.slash_command("santacruz join", {}, user=user, channel=self.channel)
            await self.answered(handle, figures)
        handle = await self.fake.slash_command("santacruz start", {}, user=self.users[0], channel=self.channel)
        await self.answered(handle, figures)
        game_id = await self.game_id()
        await self.fake.wait_until(lambda: self.posted(game_id, 0), timeout=TIMEOUT, description="the start")

    async def move(self, figures: Figures, via: str) -> bool:
        info = await self.turn()
        if info is None:
            return False
        user, legal = info.user, info.legal
        move = self.rng.choice(legal)
        started = self.loop.time()
        if via == "dm":
            dm = await self.fake.wait_until(lambda: self.turn_dm(user, info.game_id, info.seq), timeout=TIMEOUT,
                                            description=f"a turn DM for {user}")
            started = self.loop.time()
            select = next((s for s in dm.selects if any(o["value"] == move for o in s["options"])), None)
            if select is not None:
                handle = await self.fake.select(dm, select["custom_id"], [move], user=user)
            else:
                custom_id = f"sc:{info.game_id}:{info.seq}:{move.replace(' ', '_')}"
                handle = await self.fake.click_button(dm, custom_id, user=user)
        else:
            command, options = slash_for_move(move)
            handle = await self.fake.slash_command(f"santacruz {command}", options, user=user, channel=self.channel)
        await self.acked(handle, figures)
        # a DM click is acknowledged, then answered in place; a command in its answer
        answer = await handle.wait_for_message(lambda m: not m.loading, timeout=TIMEOUT)
        ok = next((b["custom_id"] for b in answer.buttons if b["custom_id"].endswith(":ok")), None)
        if ok is not None:  # a card that builds nothing, or a move that cannot be taken back: asked first
            click = await self.fake.click_button(answer, ok, user=user)
            await self.acked(click, figures)
        if await self.wait_posted(info.game_id, info.seq + 1):
            figures.posts.append(self.loop.time() - started)
            figures.sent.append(started)
        else:
            figures.open_turns += 1
        figures.moves += 1
        return True


async def play_all(tables: list[Table], moves: int, figures: Figures) -> None:
    """Every table plays at once, half the moves by slash command and half by DM, until ``moves`` moves were
    made in all (or the games ended); ``figures.elapsed`` is the time it took."""
    budget = [moves]
    begin = time.perf_counter()

    async def play(table: Table) -> None:
        turn, via = 0, "slash"
        while budget[0] > 0:
            budget[0] -= 1
            # the rest of a turn (a double move's builds) goes on where it began: a command's answer carries its
            # controls, and no new turn DM comes for it (the clicked DM is edited in place)
            if not (via == "slash" and await table.turn_open()):
                via = "dm" if turn % 2 else "slash"
            if not await table.move(figures, via):
                return
            turn += 1

    await asyncio.gather(*(play(table) for table in tables))
    figures.elapsed = time.perf_counter() - begin


async def run(games: int, moves: int, seed: int, workers: int) -> Figures:
    figures = Figures()
    async with FakeDiscord() as fake, patch_discord(fake):
        guild = fake.default_guild
        channels = [fake.add_text_channel(guild, f"table-{i}") for i in range(games)]
        users = [[f"p{i}-{j}" for j in range(3)] for i in range(games)]
        for row in users:
            for name in row:
                fake.add_member(guild, fake.add_user(name, locale=("en-US", "de", "fr")[len(name) % 3]))
        with tempfile.TemporaryDirectory() as folder:
            settings = Settings(database_path=str(Path(folder) / "bench.db"), ai_strength="random",
                                ai_seconds=0.05)
            pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) if workers else None
            bot = create_bot(settings, render_executor=pool)
            async with run_bot(bot, fake, ready_timeout=TIMEOUT, capture_loggers=("discord", "bot")):
                tables = [Table(fake, bot, channels[i], users[i], seed + i) for i in range(games)]
                await asyncio.gather(*(table.open(figures) for table in tables))
                figures.acks.clear()
                cpu_begin = time.process_time() + children_cpu(pool)
                await play_all(tables, moves, figures)
                figures.cpu = time.process_time() + children_cpu(pool) - cpu_begin
            if pool is not None:
                pool.shutdown()
    return figures


def children_cpu(pool: ProcessPoolExecutor | None) -> float:
    """CPU seconds used so far by the pool's worker processes (Linux /proc), 0 without a pool."""
    if pool is None:
        return 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in list(getattr(pool, "_processes", {}) or {}):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks  # utime + stime
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="games played at once (default 8)")
    parser.add_argument("--moves", type=int, default=400, help="moves in all (default 400)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--render-processes", type=int, default=2,
                        help="render pictures in this many processes, as santacruz-bot does (0: in threads)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    figures = asyncio.run(run(args.games, args.moves, args.seed, args.render_processes))
    elapsed = figures.elapsed
    ms = 1000.0
    cores = os.cpu_count() or 1
    per_move = figures.cpu / max(1, figures.moves)
    print(f"{args.games} games at once, {figures.moves} moves in {elapsed:.1f} s: "
          f"{figures.moves / elapsed:.1f} moves/s")
    print(f"CPU per move (bot, fake and renders): {per_move * ms:.1f} ms, so at most "
          f"{cores / per_move:.1f} moves/s on {cores} idle cores (load average before the run: {LOAD_BEFORE:.1f})")
    print(f"acknowledgement  p50 {percentile(figures.acks, 50) * ms:7.1f} ms   "
          f"p99 {percentile(figures.acks, 99) * ms:7.1f} ms   ({len(figures.acks)} interactions)")
    print(f"channel post     p50 {percentile(figures.posts, 50) * ms:7.1f} ms   "
          f"p99 {percentile(figures.posts, 99) * ms:7.1f} ms   ({len(figures.posts)} moves)")
    print(f"mean post {statistics.fmean(figures.posts) * ms:.1f} ms")


if __name__ == "__main__":
    main()
