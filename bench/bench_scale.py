"""Benchmark of the bot with many open games: ``.venv/bin/python bench/bench_scale.py [--games 10000] [--rate 10]
[--seconds 300]``.

It fills a database with ``--games`` open games (``bench/scale_fill.py``: lobbies, games at every stage of both
rounds, drafts, computer seats, vacations, turn deadlines, reminders and deadlines due during the run and later),
one game per channel over servers of 200 channels each (half on each of two gateway shards), in less than a minute,
through the store's own write path, with every person's DM channel stored (the bot of a running game has DMed its
people). Then, for each set-up, it starts the bot against the fake Discord
(``tests/fakediscord``, served by this process; each bot process a child process, ``ChildBot``, run as
``santacruz-bot`` runs it) and drives a steady load for ``--seconds``: moves arriving at random (a Poisson process
of ``--rate`` moves per second) over random running games, seven in ten among a few hundred games being played and
three in ten anywhere, by slash command or with the controls of the player's turn DM (when the bot sent one during
the run: the games filled have none), with the computer seats' moves, the reminders and the run-out deadlines that
come due along the way. The set-ups:

* SQLite, one process (one gateway connection);
* PostgreSQL, two processes (shards 0 and 1 of 2), on a throwaway local cluster (``tests/pgcluster.py``; left out,
  with a line saying why, when its server binaries are not installed).

Printed per set-up: the time from the start of the bot's processes to the first answered interaction (a move in a
game of each shard, sent as soon as its gateway session is up), the resident memory of each bot process (its worker
processes apart), the CPU per move of each kind of process, the pictures drawn per move by kind (read from each
process's metrics page), acknowledgement and move-to-post p50 / p99, the outbox's backlog (posts and DMs owed, at
most and at the end), the requests per second sent to Discord and the 429s by scope (when the fake enforces
Discord's rate limits: ``FakeDiscord.rate_limits``), the requests that took a second token of the budget, how late
this process's event loop (the fake's) woke and its full garbage collections (which it keeps out of the way:
:func:`sample`), by twenty seconds of the load the bot's own waits beside the posts' p50 and p99 (:data:`WAITS`) and
the CPU the machine's hypervisor took (:func:`stolen_seconds`), and last, so that runs compare line by line (one
line, here cut in two)::

    scale <store> x<processes>: first answer <s> s; rss <MB> MB max; ack p99 <ms> ms; post p99 <ms> ms;
    global 429 <n>; invalid <n> of <requests>

(``invalid``: the answers of status 401, 403 and 429, which Discord bans an address for past 10,000 in 10 minutes.)
Goals on the project's 2-core machines (README, "How far it scales"): first answer within 10 s, at most 400 MB per
process, acknowledgement p99 under 500 ms, post p99 under 2 s, no global 429 and invalid requests under 1 %.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import random
import re
import sys
import tempfile
import time
from collections import Counter
from contextlib import ExitStack, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_bot import LOAD_BEFORE, TIMEOUT, Figures, percentile
from bench.bench_shards import StoreTable
from bench.scale_fill import Place, Planned, Stored, plan_all, write
from bot.host.postgres_store import PostgresStore
from bot.host.store import Store
from tests import pgcluster
from tests.fakediscord import FakeDiscord, FakeMessage
from tests.fakediscord.child_bot import ChildBot
from tests.fakediscord.remote import slash_for_move
from tests.helpers.http import free_port, get, samples
from tests.helpers.http import total as page_total

SHARDS = 2
CHANNELS_PER_SERVER = 200
"""Discord allows 500 channels in a server; a bot with 10,000 games is in many servers."""
HOT_GAMES = 300
"""The games being played at any time (seven moves in ten); the three others go to any running game."""
FIRST_TRY = 10.0
"""Seconds an interaction sent at start-up waits for its answer before another is sent."""
DM_WINDOW = 30
"""How many of a person's last DMs are looked through for the turn DM of a game."""
LAG_TICK = 0.05
"""Seconds the watch of the fake's event loop sleeps at a time (:func:`watch_loop`)."""
INVALID = (401, 403, 429)
"""Statuses Discord counts as invalid requests."""
WAIT_EVERY = 20
"""Seconds between two readings of the bot processes' waits (:data:`WAITS`), as the posts' p99 is printed by."""
WAITS = {"picture": ("santacruz_render_seconds", {"priority": "post"}),
         "picture catch-up": ("santacruz_render_seconds", {"priority": "catch_up"}),
         "budget post": ("santacruz_discord_budget_wait_seconds", {"priority": "post"}),
         "budget catch-up": ("santacruz_discord_budget_wait_seconds", {"priority": "catch_up"}),
         "database read": ("santacruz_database_seconds", {"kind": "read"}),
         "database write": ("santacruz_database_seconds", {"kind": "write"}),
         "event loop": ("santacruz_event_loop_lag_seconds", {})}
"""What a post waits for, as the bot processes' metrics time it: a picture (a render worker's queue included; the
moves' and, apart, the catch-up's, which the spare render worker draws), a token
of the requests' budget (the moves' own and the catch-up's), the database (a transaction, its wait for the connection
included), the event loop (how late it woke a sleeping task)."""


@dataclass(frozen=True)
class Setup:
    store: str
    """``sqlite`` or ``postgresql``."""
    processes: int

    @property
    def name(self) -> str:
        return f"{self.store} x{self.processes}"


SETUPS = (Setup("sqlite", 1), Setup("postgresql", 2))


@dataclass
class Run:
    """What one set-up measured."""

    figures: Figures = field(default_factory=Figures)
    first_answer: float = float("nan")
    rss: dict[str, float] = field(default_factory=dict)
    """Bot process (``shard n``) -> its largest resident memory, MB; ``render worker``, ``computer worker``: the
    largest of those worker processes."""
    backlog: list[int] = field(default_factory=list)
    requests: int = 0
    """The requests during the load (``seconds``)."""
    counted: int = 0
    """The requests of the load bound to Discord's global limit (the answers to interactions are not)."""
    total: int = 0
    """Every request from the processes' start to their stop (``invalid`` and the 429s are counted over them)."""
    seconds: float = 0.0
    began: float = 0.0
    """When the load began (the event loop's clock)."""
    routes: Counter[str] = field(default_factory=Counter)
    """The load's requests by route (``GET /channels/{id}/messages``; answered 429 or not)."""
    refused: Counter[str] = field(default_factory=Counter)
    """429s by scope (``None``: the fake enforces no rate limits)."""
    global_429_at: list[float] = field(default_factory=list)
    """When each global 429 was answered, in seconds after the load began (negative: before it)."""
    enforced: bool = False
    invalid: int = 0
    failed: list[str] = field(default_factory=list)
    skipped: int = 0
    """Arrivals that found no person to move (a computer's turn, a game over)."""
    dm_moves: int = 0
    attempted: int = 0
    """Moves sent (posted in time or not: the bot stored them all)."""
    cpu_main: float = 0.0
    cpu_workers: Counter[str] = field(default_factory=Counter)
    """CPU seconds of the bot's processes, and of their worker processes by kind (``render``, ``computer``), during
    the load."""
    cpu_here: float = 0.0
    """CPU seconds of this process (the fake Discord and the people) during the load."""
    stolen: float = 0.0
    """CPU seconds the machine's hypervisor gave to others during the load (:func:`stolen_seconds`)."""
    pictures: Counter[str] = field(default_factory=Counter)
    """Pictures drawn during the load, by kind (``board``, ``overview``, ``dm``: a player's own board, ``game_over``),
    from the bot processes' metrics."""
    fake_collections: list[float] = field(default_factory=list)
    """Seconds each full garbage collection of this process (the fake's) took during the load."""
    retaken: int = 0
    """Requests that took a second token, their first one's slot over before they went out (a busy event loop, a
    connection to make)."""
    fake_late: list[tuple[float, float]] = field(default_factory=list)
    """(seconds after the load began, seconds late) of each time this process's event loop, which serves the fake
    Discord, woke a task that slept :data:`LAG_TICK` seconds late: requests that reach the fake meanwhile are counted
    together when it gets to them, as if they had been sent together."""
    picture_seconds: Counter[str] = field(default_factory=Counter)
    """Their wall time in the bot processes, from asking to having the picture (a render worker's queue included)."""
    waits: list[tuple[float, Counter[str]]] = field(default_factory=list)
    """(seconds after the load began, the bot processes' totals of :data:`WAITS` then), every :data:`WAIT_EVERY`
    seconds: where the posts of each stretch of the load spent their time."""


def world(fake: FakeDiscord, games: int) -> tuple[list[Place], dict[int, int]]:
    """Servers of :data:`CHANNELS_PER_SERVER` channels (on alternate shards), a channel per game, and people in each
    server (three for every ten channels: each plays in about ten games); the places, and each server's shard."""
    places: list[Place] = []
    shard_of: dict[int, int] = {}
    for number in range((games + CHANNELS_PER_SERVER - 1) // CHANNELS_PER_SERVER):
        guild = fake.add_guild(f"server-{number}", shard=(number % SHARDS, SHARDS), channels=())
        shard_of[guild.id] = number % SHARDS
        count = min(CHANNELS_PER_SERVER, games - len(places))
        people = []
        for person in range(max(8, count * 3 // 10)):
            user = fake.add_user(f"s{number}-p{person}", locale=("en-US", "de", "fr")[person % 3])
            fake.add_member(guild, user)
            people.append((user.id, user.name))
        for channel in range(count):
            places.append(Place(guild.id, fake.add_text_channel(guild, f"table-{channel}").id, tuple(people)))
    return places, shard_of


async def remember_dm_channels(store: Any, fake: FakeDiscord, places: list[Place], at_once: int = 64) -> None:
    """Store every person's DM channel, as a bot that has been running for days has it (it sent them turn DMs): a
    start reads it instead of asking Discord."""
    people = sorted({user_id for place in places for user_id, _ in place.people})
    for first in range(0, len(people), at_once):
        await asyncio.gather(*(store.set_dm_channel(user_id, fake.dm_channel(user_id).id)
                               for user_id in people[first:first + at_once]))


def route_of(path: str) -> str:
    """A request's route: its ids and an interaction's token as placeholders (``/interactions/{id}/{token}/callback``,
    ``/webhooks/{id}/{token}``), so that the requests of a route count together."""
    path = re.sub(r"^/(interactions|webhooks)/([0-9]+)/[^/]+", r"/\1/\2/{token}", path)
    return re.sub(r"/[0-9]+", "/{id}", path)


def rss_mb(pid: int) -> float:
    """The resident memory of process ``pid`` (MB), 0 once it has ended."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def cpu_seconds(pids: list[int]) -> float:
    """The CPU time the processes ``pids`` used so far (user and system)."""
    ticks, total = os.sysconf("SC_CLK_TCK"), 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def worker_seconds(mains: list[int]) -> Counter[str]:
    """The CPU time the worker processes of the processes ``mains`` used so far, by :func:`worker_kind` (a worker
    that ended meanwhile, replaced by a new one, no longer counts: its time is lost to both readings)."""
    seconds: Counter[str] = Counter()
    for pid in (w for p in mains for w in descendants(p)):
        seconds[worker_kind(pid)] += cpu_seconds([pid])
    return seconds


def worker_kind(pid: int) -> str:
    """``render`` for a worker process that drew pictures (Pillow's library is mapped), else ``computer``."""
    try:
        return "render" if "PIL" in Path(f"/proc/{pid}/maps").read_text() else "computer"
    except OSError:
        return "computer"


def descendants(pid: int) -> list[int]:
    """Every process ``pid`` started (its worker pools), recursively."""
    try:
        children = [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []
    return children + [d for child in children for d in descendants(child)]


def bot_env(setup: Setup, database: str, token: str, settings: list[str]) -> list[dict[str, str]]:
    """Each bot process's settings (``settings``: ``NAME=value`` more, from ``--bot``)."""
    base = {"DISCORD_TOKEN": token, "LOG_LEVEL": "WARNING", "HTTP_HOST": "127.0.0.1",
            ("DATABASE_PATH" if setup.store == "sqlite" else "DATABASE_URL"): database,
            **dict(setting.split("=", 1) for setting in settings)}
    if setup.processes == 1:
        return [{**base, "HTTP_PORT": str(free_port())}]
    return [{**base, "SHARD_COUNT": str(SHARDS), "SHARD_IDS": str(shard), "HTTP_PORT": str(free_port())}
            for shard in range(setup.processes)]


Page = dict[tuple[str, tuple[tuple[str, str], ...]], float]
"""A bot process's metrics page: its samples by (name, labels) (``tests.helpers.http.samples``)."""


async def metrics_pages(envs: list[dict[str, str]]) -> list[Page]:
    """Each bot process's metrics page, read now: its samples by (name, labels)."""
    pages = []
    for env in envs:
        status, text = await get(f"http://127.0.0.1:{env['HTTP_PORT']}/metrics")
        if status != 200:
            raise RuntimeError(f"the metrics page answered {status}")
        pages.append(samples(text))
    return pages


def drawn(pages: list[Page]) -> tuple[Counter[str], Counter[str]]:
    """The pictures the bot processes have drawn so far, by kind, and their seconds (``santacruz_render_seconds``,
    from their metrics ``pages``)."""
    count: Counter[str] = Counter()
    seconds: Counter[str] = Counter()
    for page in pages:
        for (name, labels), value in page.items():
            kind = dict(labels).get("picture", "")
            if name == "santacruz_render_seconds_count":
                count[kind] += int(value)
            elif name == "santacruz_render_seconds_sum":
                seconds[kind] += value
    return count, seconds


def total(pages: list[Page], name: str, **labels: str) -> float:
    """The sum over the bot processes' metrics ``pages`` of the samples of ``name`` that carry ``labels`` (among
    others)."""
    return sum(page_total(page, name, **labels) for page in pages)


class ScaleTable(StoreTable):
    """A game of the load: :class:`bench.bench_shards.StoreTable` (the people read the game from the database),
    whose turn DMs are looked for among the person's last :data:`DM_WINDOW` DMs of this set-up's bot (a person plays
    about ten games)."""

    def __init__(self, fake: FakeDiscord, store: Any, game: Stored, since: int) -> None:
        super().__init__(fake, store, fake.channel(game.channel_id), [], game.game_id)
        self._game_id = game.game_id
        self.since = since
        """Messages up to this id were sent before this set-up's bot started."""

    def turn_dm(self, user: str, game_id: int, seq: int) -> FakeMessage | None:
        prefix = f"sc:{game_id}:{seq}:"
        channel = self.fake._dm_channels.get(self.fake.user(user).id)
        ids = self.fake._channel_messages.get(channel.id, []) if channel is not None else []
        for message_id in reversed(ids[-DM_WINDOW:]):
            message = self.fake._messages[message_id]
            if message_id > self.since and any(cid.startswith(prefix) for cid in message.custom_ids):
                return message
        return None


class Load:
    """Moves arriving at random over the running games, each by a person of the fake world (see the module
    docstring)."""

    def __init__(self, fake: FakeDiscord, store: Any, running: list[Stored], run: Run, seed: int) -> None:
        self.fake, self.store, self.run = fake, store, run
        self.rng = random.Random(seed)
        self.running = running
        self.hot = self.rng.sample(running, min(HOT_GAMES, len(running)))
        self.tables: dict[int, ScaleTable] = {}
        self.since = fake.snowflakes.next()
        self.busy: set[int] = set()
        self.arrivals = 0

    def table(self, game: Stored) -> ScaleTable:
        table = self.tables.get(game.game_id)
        if table is None:
            table = self.tables[game.game_id] = ScaleTable(self.fake, self.store, game, self.since)
        return table

    def pick(self) -> Stored | None:
        for _ in range(5):
            game = self.rng.choice(self.hot if self.rng.random() < 0.7 else self.running)
            if game.game_id not in self.busy:
                return game
        return None

    async def move(self, game: Stored, *, prefer_dm: bool) -> None:
        table = self.table(game)
        self.busy.add(game.game_id)
        try:
            turn = await table.turn()
            if turn is None:
                self.run.skipped += 1
                return
            self.run.attempted += 1
            via = "dm" if prefer_dm and table.turn_dm(turn.user, turn.game_id, turn.seq) is not None else "slash"
            if await table.move(self.run.figures, via) and via == "dm":
                self.run.dm_moves += 1
        except Exception as exc:  # a move that never came: counted and said, the load goes on
            self.run.failed.append(f"game {game.game_id}: {type(exc).__name__}: {exc}")
        finally:
            self.busy.discard(game.game_id)

    async def first(self, shard: int, shard_of: dict[int, int], spawned: float) -> float:
        """Seconds from ``spawned`` to the first answered interaction in a server of ``shard``: a slash move in one
        of its games, sent as soon as its gateway session is up, then every :data:`FIRST_TRY` seconds in another
        game while none was answered (an interaction that reaches a process still starting may go unanswered: the
        person tries again)."""
        loop = asyncio.get_running_loop()
        sent: list[asyncio.Future[Any]] = []
        for game in (g for g in self.running if shard_of[g.guild_id] == shard):
            turn = await self.table(game).turn()
            if turn is None:
                continue
            command, options = slash_for_move(self.rng.choice(turn.legal))
            handle = await self.fake.slash_command(f"santacruz {command}", options, user=turn.user,
                                                   channel=self.fake.channel(game.channel_id))
            sent.append(asyncio.ensure_future(handle.wait_for_callback(timeout=TIMEOUT)))
            done, _ = await asyncio.wait(sent, timeout=FIRST_TRY, return_when=asyncio.FIRST_COMPLETED)
            if any(not task.exception() for task in done):
                for task in sent:
                    task.cancel()
                return loop.time() - spawned
        raise LookupError(f"no interaction in a server of shard {shard} was answered")

    async def drive(self, rate: float, seconds: float) -> None:
        """Moves arriving at ``rate`` per second for ``seconds``, then those under way finished."""
        loop = asyncio.get_running_loop()
        tasks: set[asyncio.Task[None]] = set()
        begin = loop.time()
        arrival = begin
        while True:
            arrival += self.rng.expovariate(rate)
            if arrival > begin + seconds:
                break
            await asyncio.sleep(max(0.0, arrival - loop.time()))
            game = self.pick()
            if game is None:
                self.run.skipped += 1
                continue
            self.arrivals += 1
            task = asyncio.create_task(self.move(game, prefer_dm=self.arrivals % 2 == 0))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        if tasks:
            await asyncio.wait(tasks, timeout=TIMEOUT)
        self.run.figures.elapsed = loop.time() - begin


def stolen_seconds() -> float:
    """CPU seconds the machine's hypervisor gave to others while this machine's processes were ready to run, since it
    booted (``steal`` in ``/proc/stat``; 0 where there is none): a virtual machine whose cores are shared is slower
    for a while, and the bench's figures with it."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def waits_now(pages: list[Page]) -> Counter[str]:
    """The totals of :data:`WAITS` over the bot processes' metrics ``pages``: ``<name> sum`` and ``<name> count``;
    and ``stolen``, :func:`stolen_seconds`."""
    found: Counter[str] = Counter({"stolen": stolen_seconds()})
    for name, (metric, labels) in WAITS.items():
        for part in ("sum", "count"):
            found[f"{name} {part}"] = total(pages, f"{metric}_{part}", **labels)
    return found


def mean_wait(then: Counter[str], now: Counter[str], name: str) -> float:
    """The mean of the wait ``name`` (:data:`WAITS`) between two readings."""
    return (now[f"{name} sum"] - then[f"{name} sum"]) / max(1.0, now[f"{name} count"] - then[f"{name} count"])


async def sample(bots: list[ChildBot], envs: list[dict[str, str]], store: Any, run: Run,
                 stop: asyncio.Event) -> None:
    """Every second: each bot process's resident memory (and its workers'); every two, the outbox's backlog; every
    :data:`WAIT_EVERY` of the load, the waits of its posts (:data:`WAITS`, into ``run.waits``). And every
    second this process's objects are set aside from its garbage collections (``gc.freeze``): the fake Discord keeps
    every message and request, and a full collection over them took up to 0.9 s at 10,000 games, a stall in which
    the requests of a second queue up and are then counted by the fake together (global 429s no bot could avoid,
    posts seen late), as no Discord server does. What stalls remain is printed (:func:`watch_loop`)."""
    tick = 0
    while not stop.is_set():
        gc.freeze()
        for shard, bot in enumerate(bots):
            if bot.process is None:
                continue
            name = f"shard {shard}"
            run.rss[name] = max(run.rss.get(name, 0.0), rss_mb(bot.process.pid))
            for pid in descendants(bot.process.pid):
                name = f"{worker_kind(pid)} worker"
                run.rss[name] = max(run.rss.get(name, 0.0), rss_mb(pid))
        if tick % 2 == 0:
            try:
                run.backlog.append(int((await store.figures(time.time()))["backlog"]))
            except Exception as exc:
                logging.warning("could not read the backlog: %s", exc)
        since = asyncio.get_running_loop().time() - run.began
        if run.began and since >= WAIT_EVERY * len(run.waits) - 0.5:
            try:
                run.waits.append((since, waits_now(await metrics_pages(envs))))
            except Exception as exc:
                logging.warning("could not read the metrics: %s", exc)
        tick += 1
        with suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 1.0)


async def watch_loop(run: Run, stop: asyncio.Event) -> None:
    """How late this process's event loop (the fake Discord's and its people's) wakes a task sleeping
    :data:`LAG_TICK` seconds, into ``run.fake_late`` (only wakes later than a tick), and how long its full garbage
    collections take (``run.fake_collections``)."""
    loop = asyncio.get_running_loop()
    started = [0.0]

    def collected(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        elif info["generation"] == 2 and run.began:
            run.fake_collections.append(time.perf_counter() - started[0])

    gc.callbacks.append(collected)
    try:
        while not stop.is_set():
            before = loop.time()
            await asyncio.sleep(LAG_TICK)
            late = loop.time() - before - LAG_TICK
            if late > LAG_TICK and run.began:
                run.fake_late.append((loop.time() - run.began, late))
    finally:
        gc.callbacks.remove(collected)


async def run_setup(setup: Setup, fake: FakeDiscord, database: str, stored: list[Stored], shard_of: dict[int, int],
                    args: argparse.Namespace, folder: Path) -> Run:
    """Start ``setup``'s bot processes on ``database``, measure their first answer, drive the load, stop them."""
    run = Run()
    limits = getattr(fake, "rate_limits", None)
    run.enforced = limits is not None
    refused_before = Counter(limits.refused) if limits is not None else Counter()
    invalid_before = limits.invalid_total if limits is not None else 0
    refused_at_before = len(limits.refused_at) if limits is not None else 0
    store: Any = await (Store.open(database) if setup.store == "sqlite" else PostgresStore.open(database))
    running = [game for game in stored if game.status == "running"]
    load = Load(fake, store, running, run, args.seed)
    envs = bot_env(setup, database, fake.token, args.bot)
    bots = [ChildBot(fake.base_url, env, (args.logs or folder) / f"{setup.store}-{n}.log")
            for n, env in enumerate(envs)]
    stop = asyncio.Event()
    sampling = asyncio.create_task(sample(bots, envs, store, run, stop))
    watching = asyncio.create_task(watch_loop(run, stop))
    loop = asyncio.get_running_loop()
    try:
        before = len(fake.sessions)  # an earlier set-up's sessions and requests are not this one's
        first_request = len(fake.requests)
        spawned = loop.time()
        for bot in bots:
            bot.start()
        await fake.wait_until(lambda: len([s for s in fake.sessions[before:] if not s.ended]) >= len(bots)
                              and fake.synced_commands(),
                              timeout=TIMEOUT, description="the bot processes to connect", poll=0.02)
        run.first_answer = max(await asyncio.gather(*(load.first(shard, shard_of, spawned)
                                                      for shard in range(len(bots)))))
        start = len(fake.requests)
        began = run.began = loop.time()
        mains = [bot.process.pid for bot in bots if bot.process is not None]
        cpu_main, cpu_workers = cpu_seconds(mains), worker_seconds(mains)
        cpu_here, stolen = time.process_time(), stolen_seconds()
        pictures_before, seconds_before = drawn(await metrics_pages(envs))
        await load.drive(args.rate, args.seconds)
        run.seconds = loop.time() - began
        pages = await metrics_pages(envs)
        run.pictures, run.picture_seconds = drawn(pages)
        run.retaken = int(total(pages, "santacruz_discord_budget_retaken_total"))
        run.pictures.subtract(pictures_before)
        run.picture_seconds.subtract(seconds_before)
        run.cpu_main = cpu_seconds(mains) - cpu_main
        run.cpu_workers = worker_seconds(mains)
        run.cpu_workers.subtract(cpu_workers)
        run.cpu_here = time.process_time() - cpu_here
        run.stolen = stolen_seconds() - stolen
        answered = fake.requests[start:]
        run.requests = len(answered)
        exempt = re.compile(rf"/interactions/\d+/[^/]+/callback|/webhooks/{fake.application_id}/.*")
        run.counted = sum(1 for r in answered if not exempt.fullmatch(r.path))
        run.routes = Counter(f"{r.method} {route_of(r.path)}{' 429' if r.status == 429 else ''}" for r in answered)
        await asyncio.sleep(2.0)  # one more reading of the backlog after the load
    finally:
        stop.set()
        await sampling
        await watching
        for bot in bots:
            await bot.stop()
        await store.close()
    whole = fake.requests[first_request:]  # from the start of the processes to their stop
    run.total = len(whole)
    run.invalid = sum(1 for r in whole if r.status in INVALID)
    if limits is not None:  # the fake's own counts (a 429 of scope shared is not invalid, as on Discord)
        run.refused = Counter(limits.refused) - refused_before
        began_at = time.time() - (loop.time() - run.began)  # the fake's clock is the wall clock
        run.global_429_at = [at - began_at for at, scope in limits.refused_at[refused_at_before:] if scope == "global"]
        run.invalid = limits.invalid_total - invalid_before
    else:
        run.refused = Counter(str(r.response_headers.get("X-RateLimit-Scope", "unknown"))
                              for r in whole if r.status == 429)
    for bot in bots:
        errors = [line for line in bot.log().splitlines() if " ERROR " in line or "Traceback" in line]
        if errors:
            print(f"  {bot.log_path.name}: {len(errors)} error lines, e.g. {errors[0][:160]}")
    return run


def report(setup: Setup, run: Run, args: argparse.Namespace) -> None:
    ms = 1000.0
    f = run.figures
    mains = {k: v for k, v in run.rss.items() if not k.endswith("worker")}
    workers = {k: v for k, v in run.rss.items() if k.endswith("worker")}
    print(f"{setup.name}: {run.attempted} moves sent, {f.moves} stored within {TIMEOUT:.0f} s, in {run.seconds:.0f} s "
          f"({f.moves / max(run.seconds, 1e-9):.1f}/s; {run.dm_moves} by DM, the rest by slash command; {run.skipped} "
          f"arrivals found a computer's turn or no game free; {len(run.failed)} failed); {len(f.posts)} posted, "
          f"{f.open_turns} left their turn open (a double move's card or first build: no post of their own)")
    for failure in run.failed[:5]:
        print(f"  failed: {failure[:200]}")
    print(f"  first answer {run.first_answer:.1f} s after the processes started")
    moves = max(1, run.attempted)
    print(f"  CPU per move sent: the bot's processes {run.cpu_main / moves * ms:.0f} ms, their render workers "
          f"{run.cpu_workers['render'] / moves * ms:.0f} ms, computer workers "
          f"{run.cpu_workers['computer'] / moves * ms:.0f} ms, the fake Discord and the people "
          f"{run.cpu_here / moves * ms:.0f} ms ({os.cpu_count()} cores, load average before the run "
          f"{LOAD_BEFORE:.1f}; the hypervisor gave {run.stolen:.1f} s of their CPU to others during the load)")
    print("  pictures per move sent: " + ", ".join(
        f"{kind} {n / moves:.2f} ({run.picture_seconds[kind] / n * ms:.0f} ms from asking to having it)"
        for kind, n in run.pictures.most_common() if n > 0))
    print("  resident memory: " + ", ".join(f"{k} {v:.0f} MB" for k, v in sorted(mains.items()))
          + "; its worker processes at most: " + ", ".join(f"{k} {v:.0f} MB" for k, v in sorted(workers.items())))
    print(f"  acknowledgement p50 {percentile(f.acks, 50) * ms:.0f} ms, p99 {percentile(f.acks, 99) * ms:.0f} ms "
          f"({len(f.acks)}); move to post p50 {percentile(f.posts, 50) * ms:.0f} ms, "
          f"p99 {percentile(f.posts, 99) * ms:.0f} ms ({len(f.posts)})")
    backlog = run.backlog or [0]
    half = run.began + run.seconds / 2
    later = [post for post, sent in zip(f.posts, f.sent, strict=True) if sent >= half]
    print(f"  move to post of the moves sent in the load's second half (the start's backlog sent): "
          f"p50 {percentile(later, 50) * ms:.0f} ms, p99 {percentile(later, 99) * ms:.0f} ms ({len(later)})")
    windows: dict[int, list[float]] = {}
    for post, sent in zip(f.posts, f.sent, strict=True):
        windows.setdefault(int((sent - run.began) // 20) * 20, []).append(post)
    print("  move to post p50 / p99 by twenty seconds of the load: " + ", ".join(
        f"+{start} s {percentile(posts, 50) * ms:.0f} / {percentile(posts, 99) * ms:.0f} ms"
        for start, posts in sorted(windows.items())))
    print(f"  outbox backlog at most {max(backlog)}, at the end {backlog[-1]}")
    if len(run.waits) > 1:
        print(f"  the bot's waits on average by {WAIT_EVERY} seconds of the load (and the CPU the machine's hypervisor "
              f"gave to others meanwhile, of {WAIT_EVERY * (os.cpu_count() or 1)} s): " + "; ".join(
            f"+{at:.0f} s " + ", ".join(f"{name} {mean_wait(then, now, name) * ms:.0f} ms" for name in WAITS)
            + f", CPU stolen {now['stolen'] - then['stolen']:.1f} s"
            for (at, then), (_, now) in zip(run.waits, run.waits[1:], strict=False)))
    scopes = ", ".join(f"{scope} {n}" for scope, n in sorted(run.refused.items())) or "none"
    enforced = "" if run.enforced else " (this fake Discord enforces no rate limits)"
    per_move = max(1, run.attempted)
    print(f"  requests to Discord {run.requests / max(run.seconds, 1e-9):.1f}/s ({run.requests / per_move:.1f} per "
          f"move sent), of which bound to the global limit {run.counted / max(run.seconds, 1e-9):.1f}/s "
          f"({run.counted / per_move:.1f} per move); 429 by scope: {scopes}{enforced}")
    if run.global_429_at:
        tens = Counter(int(at // 10) * 10 for at in run.global_429_at)
        latest = {start: max((late for at, late in run.fake_late if start <= at < start + 10), default=0.0)
                  for start in tens}
        print("  global 429s by ten seconds after the load began (and the fake Discord's event loop late by at most, "
              "then): " + ", ".join(f"{start:+d} s {n} ({latest[start] * ms:.0f} ms)"
                                    for start, n in sorted(tens.items())))
    print(f"  requests that went out only after their token's slot and took another (a busy event loop, a connection "
          f"to make): {run.retaken}")
    lates = sorted(late for _, late in run.fake_late)
    print(f"  the fake Discord's event loop woke a {LAG_TICK * ms:.0f}-ms sleep late by more than that "
          f"{len(lates)} times, by at most {(lates[-1] if lates else 0.0) * ms:.0f} ms; over 250 ms "
          f"{sum(1 for late in lates if late > 0.25)} times; its full garbage collections: "
          f"{len(run.fake_collections)}, the longest {max(run.fake_collections, default=0.0) * ms:.0f} ms")
    print("  per move sent, by route: " + ", ".join(f"{route} {n / per_move:.2f}"
                                                   for route, n in run.routes.most_common(12)))
    glob = str(run.refused.get("global", 0)) if run.enforced else "n/a"
    print(f"scale {setup.store} x{setup.processes}: first answer {run.first_answer:.1f} s; "
          f"rss {max(mains.values(), default=0.0):.0f} MB max; ack p99 {percentile(f.acks, 99) * ms:.0f} ms; "
          f"post p99 {percentile(f.posts, 99) * ms:.0f} ms; global 429 {glob}; invalid {run.invalid} of {run.total}")


async def main_async(args: argparse.Namespace) -> None:
    setups = [s for s in SETUPS if s.store in args.setups.split(",")]
    with tempfile.TemporaryDirectory() as temp, ExitStack() as stack:
        folder = Path(temp)
        if args.logs is not None:
            args.logs.mkdir(parents=True, exist_ok=True)
        async with FakeDiscord(shard_count=SHARDS, populate=False) as fake:
            places, shard_of = world(fake, args.games)
            began = time.perf_counter()
            planned: list[Planned] = await asyncio.to_thread(plan_all, places, seed=args.seed)
            print(f"{args.games} open games over {len(shard_of)} servers; played forward by the engine in "
                  f"{time.perf_counter() - began:.0f} s")
            for setup in setups:
                if setup.store == "postgresql" and pgcluster.missing_binaries():
                    print(f"{setup.name}: skipped: {pgcluster.INSTALL_HINT}")
                    continue
                if setup.store == "sqlite":
                    database = str(folder / "scale.db")
                    store: Any = await Store.open(database)
                else:
                    database = stack.enter_context(pgcluster.cluster())
                    store = await PostgresStore.open(database)
                began = time.perf_counter()
                try:
                    stored = await write(store, planned, seed=args.seed, vacations=args.games // 500)
                    await remember_dm_channels(store, fake, places)
                finally:
                    await store.close()
                print(f"{setup.name}: the games written in {time.perf_counter() - began:.0f} s")
                run = await run_setup(setup, fake, database, stored, shard_of, args, folder)
                report(setup, run, args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="open games in the database (default 10,000)")
    parser.add_argument("--rate", type=float, default=10.0, help="moves per second, on average (default 10)")
    parser.add_argument("--seconds", type=float, default=300.0, help="how long the load runs (default 300)")
    parser.add_argument("--setups", default="sqlite,postgresql", help="comma-separated: sqlite, postgresql")
    parser.add_argument("--bot", action="append", default=[], metavar="SETTING=VALUE",
                        help="a setting of the bot processes, e.g. PICTURE_WIDTH=800 (repeatable)")
    parser.add_argument("--logs", type=Path, help="keep the bot processes' logs in this folder")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
