"""Worker pools that outlive their workers, and computers that think outside the channel's lock.

Real process pools (a worker is killed with SIGKILL), real thread pools, real SQLite files, real Pillow.
No timing assertions: a blocked computer player is a thread waiting on an event the test sets.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from bot.host import priority
from bot.host.errors import StoreError
from bot.host.host import Host, default_chooser, default_game_factory
from bot.host.pictures import Pictures
from bot.host.settings import Settings, SettingsError
from bot.host.store import Store
from bot.host.workers import SPARE_NICE, PoolBroken, WorkerPool, as_pool, process_pool_factory
from engine import new_game
from tests.helpers.clock import Clock
from tests.helpers.host import ADA, BO, CH, CH2, GUILD, make_host

PNG = b"\x89PNG\r\n\x1a\n"
WAIT = 60.0
"""Generous: the machine may be slow and busy."""


def square(x: int) -> int:
    return x * x


def fail_with_value_error(calls: list[int]) -> None:
    calls.append(1)
    raise ValueError("the job's own error")


def shut_down_threads() -> Executor:
    """A real executor that refuses every job ("cannot schedule new futures after shutdown")."""
    executor = ThreadPoolExecutor(max_workers=1)
    executor.shutdown()
    return executor


async def kill_a_worker(pool: WorkerPool) -> int:
    """SIGKILL the pool's (only) worker process; returns its pid."""
    pid = await pool.run(os.getpid)
    assert pid != os.getpid()
    os.kill(pid, signal.SIGKILL)
    return pid


@pytest.fixture
def process_pool() -> Any:
    pool = WorkerPool(process_pool_factory(1), name="test")
    yield pool
    pool.shutdown()


def pooled_host(store: Store, workers: WorkerPool | None = None, **options: Any) -> Host:
    """A test host (:func:`tests.helpers.host.make_host`) whose computers run in ``workers``."""
    return make_host(store, Clock(), executor=workers, **options)


async def computer_to_move(host: Host, channel: int = CH, user: int = ADA) -> None:
    """A running game in ``channel``: ``user`` against a computer, the computer to move."""
    await host.lobby.open(channel, GUILD, user, "Ada", computers=1)
    await host.lobby.start(channel, user)
    info = host.games.info(channel)
    assert info is not None and info.to_move is not None
    if not info.seats[info.to_move].is_computer:
        await host.play.move(channel, user, host.play.legal_moves(channel, user)[0])
    info = host.games.info(channel)
    assert info is not None and info.to_move is not None and info.seats[info.to_move].is_computer


# ---------------------------------------------------------------------- the pool wrapper


async def test_a_killed_worker_process_is_replaced_and_the_job_redone(
        process_pool: WorkerPool, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="bot.host.workers")
    killed = await kill_a_worker(process_pool)
    assert await process_pool.run(square, 7, what="game 12") == 49
    assert process_pool.replaced == 1
    assert await process_pool.run(os.getpid) != killed
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("game 12" in w and "replacing the pool" in w for w in warnings), warnings


async def test_a_shut_down_pool_is_replaced() -> None:
    made: list[Executor] = []

    def factory() -> Executor:
        made.append(shut_down_threads() if not made else ThreadPoolExecutor(max_workers=1))
        return made[-1]

    pool = WorkerPool(factory, name="test")
    assert await pool.run(square, 3) == 9
    assert len(made) == 2 and pool.replaced == 1
    pool.shutdown()


async def test_an_error_of_the_job_itself_is_raised_once_and_keeps_the_pool() -> None:
    pool = WorkerPool(lambda: ThreadPoolExecutor(max_workers=1), name="test")
    calls: list[int] = []
    with pytest.raises(ValueError, match="the job's own error"):
        await pool.run(fail_with_value_error, calls)
    assert calls == [1] and pool.replaced == 0
    assert await pool.run(square, 4) == 16
    pool.shutdown()


async def test_a_pool_that_breaks_again_on_the_redo_raises_pool_broken() -> None:
    pool = WorkerPool(shut_down_threads, name="test")
    with pytest.raises(PoolBroken, match="game 5"):
        await pool.run(square, 2, what="game 5")
    assert pool.replaced == 2


async def test_a_bare_process_pool_is_adopted_and_replaced_by_a_process_pool() -> None:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    executor = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    pool = as_pool(executor, name="adopted")
    await kill_a_worker(pool)
    assert await pool.run(square, 5) == 25
    assert pool.replaced == 1 and isinstance(pool.executor(), ProcessPoolExecutor)
    assert pool.executor() is not executor
    pool.shutdown()


def note(done: list[str], name: str, gate: threading.Event | None = None) -> str:
    """A job: waits for ``gate`` (if any), then says it ran."""
    if gate is not None and not gate.wait(WAIT):
        raise TimeoutError("the test never opened the gate")
    done.append(name)
    return name


async def queued(pool: WorkerPool, count: int) -> None:
    """Until ``count`` jobs wait for a slot of ``pool``."""
    assert pool.slots is not None
    async with asyncio.timeout(WAIT):
        while pool.slots.waiting < count:
            await asyncio.sleep(0)


async def test_with_slots_the_jobs_of_moves_now_go_before_those_owed_and_tidies_last() -> None:
    """Two slots on one thread: what waits is handed to the executor by priority, then in order of arrival."""
    pool = WorkerPool(lambda: ThreadPoolExecutor(max_workers=1), name="render", slots=2)
    done: list[str] = []
    gate = threading.Event()
    first = asyncio.create_task(pool.run(note, done, "first", gate))
    second = asyncio.create_task(pool.run(note, done, "second"))  # the second slot: in the executor's own queue
    await asyncio.sleep(0)
    waiting = []
    for name, mark in [("tidy", priority.cosmetic), ("owed 1", priority.catching_up), ("now 1", None),
                       ("owed 2", priority.catching_up), ("now 2", None)]:
        with mark() if mark is not None else contextlib.nullcontext():
            waiting.append(asyncio.create_task(pool.run(note, done, name)))
        await queued(pool, len(waiting))
    gate.set()
    assert await asyncio.gather(first, second, *waiting) == ["first", "second", "tidy", "owed 1", "now 1", "owed 2",
                                                             "now 2"]
    assert done == ["first", "second", "now 1", "now 2", "owed 1", "owed 2", "tidy"]
    assert pool.slots is not None and pool.slots.free == 2  # every slot free again
    pool.shutdown()


async def test_a_job_cancelled_while_it_waits_for_a_slot_leaves_no_slot_taken() -> None:
    pool = WorkerPool(lambda: ThreadPoolExecutor(max_workers=1), name="render", slots=1)
    done: list[str] = []
    gate = threading.Event()
    first = asyncio.create_task(pool.run(note, done, "first", gate))
    await asyncio.sleep(0)
    given_up = asyncio.create_task(pool.run(note, done, "given up"))
    await queued(pool, 1)
    then = asyncio.create_task(pool.run(note, done, "then"))
    await queued(pool, 2)
    given_up.cancel()
    gate.set()
    assert await first == "first" and await then == "then"
    assert given_up.cancelled()
    assert done == ["first", "then"] and pool.slots is not None and pool.slots.free == 1
    assert await pool.run(square, 6) == 36  # the slot is free again
    pool.shutdown()


async def test_workers_started_nicer_than_the_bot_stay_so_after_a_replacement() -> None:
    pool = WorkerPool(process_pool_factory(1, nice=5), name="render")
    here = os.nice(0)
    assert await pool.run(os.nice, 0) == min(19, here + 5)
    await kill_a_worker(pool)
    assert await pool.run(os.nice, 0) == min(19, here + 5)
    assert pool.replaced == 1
    pool.shutdown()


def where(done: list[str], name: str, gate: threading.Event | None = None) -> str:
    """A job: :func:`note`, answering the name of the thread that ran it."""
    note(done, name, gate)
    return threading.current_thread().name


def named_threads(prefix: str) -> Callable[[], Executor]:
    return lambda: ThreadPoolExecutor(max_workers=1, thread_name_prefix=prefix)


async def test_with_a_spare_executor_the_jobs_that_may_wait_run_there_beside_full_slots_and_it_ends_when_idle(
        ) -> None:
    """The jobs owed from before a start and the tidying ones go to the spare executor, even while every slot is
    taken; the moves' jobs never do. Once it has had no job for ``spare_idle`` seconds its worker ends, and the next
    job that may wait starts another."""
    pool = WorkerPool(named_threads("workers"), name="render", slots=1, spare=named_threads("spare"),
                      spare_idle=0.05)
    done: list[str] = []
    gate = threading.Event()
    first = asyncio.create_task(pool.run(where, done, "now", gate))  # holds the only slot
    with priority.catching_up():
        assert (await pool.run(where, done, "owed")).startswith("spare")
    with priority.cosmetic():
        assert (await pool.run(where, done, "tidy")).startswith("spare")
    assert done == ["owed", "tidy"] and not first.done()
    gate.set()
    assert (await first).startswith("workers")
    async with asyncio.timeout(WAIT):
        while any(t.name.startswith("spare") for t in threading.enumerate()):
            await asyncio.sleep(0.01)
    with priority.catching_up():
        assert (await pool.run(where, done, "owed again")).startswith("spare")
    pool.shutdown()
    assert not any(t.name.startswith(("spare", "workers")) for t in threading.enumerate())


async def test_an_owed_job_hurried_while_it_waits_in_the_spare_executor_is_done_again_at_the_moves_priority(
        ) -> None:
    """A move being played waits behind the owed work whose job waits for the spare executor (busy, as a spare
    worker is on busy cores): hurried, the job runs again with the moves' workers, and that answer is taken; the one
    still waiting is dropped."""
    pool = WorkerPool(named_threads("workers"), name="render", slots=1, spare=named_threads("spare"))
    done: list[str] = []
    gate = threading.Event()
    owed = priority.Owed()
    with priority.catching_up():  # another owed delivery's job, drawing
        busy = asyncio.create_task(pool.run(where, done, "busy", gate))
    with priority.catching_up(owed):
        waiting = asyncio.create_task(pool.run(where, done, "owed"))
        await asyncio.sleep(0.05)  # both handed to the spare executor
        assert priority.current() is priority.Priority.CATCH_UP
        owed.hurry()
        assert priority.current() is priority.Priority.POST
    assert (await waiting).startswith("workers")
    assert done == ["owed"] and not busy.done()
    gate.set()
    assert (await busy).startswith("spare")
    pool.shutdown()
    assert done == ["owed", "busy"]  # the copy that waited in the spare executor never ran


async def test_the_spare_workers_run_at_the_lowest_scheduling_priority() -> None:
    pool = WorkerPool(process_pool_factory(1, nice=5), name="render", spare=process_pool_factory(1, nice=SPARE_NICE))
    here = os.nice(0)
    assert await pool.run(os.nice, 0) == min(19, here + 5)
    with priority.catching_up():
        assert await pool.run(os.nice, 0) == 19
    pool.shutdown()


def test_priority_of_owed_work_hurried_and_of_tidying_inside_it() -> None:
    """Owed work goes at the catch-up's priority until hurried, then at the moves'; tidying inside it stays tidying
    either way; outside it nothing is owed."""
    owed = priority.Owed()
    assert priority.owed() is None and priority.current() is priority.Priority.POST
    with priority.catching_up(owed):
        assert priority.owed() is owed and priority.current() is priority.Priority.CATCH_UP
        owed.hurry()
        assert priority.current() is priority.Priority.POST
        with priority.cosmetic():
            assert priority.current() is priority.Priority.COSMETIC and priority.owed() is None
    assert priority.owed() is None and priority.current() is priority.Priority.POST
    with priority.catching_up():
        assert priority.owed() is None and priority.current() is priority.Priority.CATCH_UP


def test_a_pool_without_a_slot_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one slot"):
        WorkerPool(None, name="render", slots=0)


# ---------------------------------------------------------------------- pictures


async def test_the_next_picture_after_a_killed_render_worker(process_pool: WorkerPool) -> None:
    pictures = Pictures(process_pool, width=800)  # the narrowest: quicker to draw, in each fresh worker
    view = new_game(["Ada", "Bo"], 3).view(None)
    first = await pictures.png(view, "en", key=(1, 0, None))
    assert first is not None and first.startswith(PNG)
    await kill_a_worker(process_pool)
    again = await pictures.png(view, "de", key=(1, 0, None))  # another language: not from the cache
    assert again is not None and again.startswith(PNG) and again != first
    assert process_pool.replaced == 1


# ---------------------------------------------------------------------- computers


async def test_the_next_computer_move_after_a_killed_worker_keeps_its_strength(
        sqlite: Store, process_pool: WorkerPool, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    host = pooled_host(sqlite, process_pool, chooser=default_chooser, game_factory=default_game_factory,
                     ai_seconds=0.05)  # the engine's players on the default island, in a worker process
    await computer_to_move(host)
    await kill_a_worker(process_pool)
    result = await anext(host.computers.run_computers(CH))
    assert result.by_computer and process_pool.replaced == 1
    assert not any("fell back" in r.getMessage() for r in caplog.records)
    assert any("replacing the pool" in r.getMessage() and f"game {result.game_id}" in r.getMessage()
               for r in caplog.records)


async def test_a_computer_plays_random_only_when_the_redo_breaks_too_and_says_so(
        sqlite: Store, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="bot.host")
    host = pooled_host(sqlite, WorkerPool(shut_down_threads, name="computers"), ai_strength="expert")
    await computer_to_move(host)
    result = await anext(host.computers.run_computers(CH))
    assert result.by_computer and host.games.info(CH).seq == result.seq
    fell_back = [r for r in caplog.records if "strength fell back" in r.getMessage()]
    assert [(r.levelno, r.getMessage().split("; ")[-1]) for r in fell_back] == [
        (logging.WARNING, f"strength fell back from expert to random for game {result.game_id}")]


class Gate:
    """A computer player that tells when it thinks and waits until the test lets it answer."""

    def __init__(self) -> None:
        self.thinking = threading.Event()
        self.go = threading.Event()

    def __call__(self, view: dict[str, Any], strength: str, seed: int, budget: float) -> str:
        self.thinking.set()
        assert self.go.wait(WAIT)
        return str(view["you"]["legal_moves"][0])


async def test_the_channel_is_answered_while_its_computer_thinks(sqlite: Store) -> None:
    gate = Gate()
    host = pooled_host(sqlite, chooser=gate)
    await host.lobby.open(CH, GUILD, ADA, "Ada", computers=1)
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.start(CH, ADA)
    while host.games.info(CH).seats[host.games.info(CH).to_move].is_computer:
        gate.go.set()
        await anext(host.computers.run_computers(CH))
    gate.go.clear()
    mover = host.games.info(CH).seats[host.games.info(CH).to_move].user_id
    await host.play.away(CH, mover)  # the computer plays the absent player's seat
    task = asyncio.create_task(anext(host.computers.run_computers(CH)))
    assert await asyncio.to_thread(gate.thinking.wait, WAIT)
    # the same channel answers meanwhile (this waited for the computer before: the lock was held)
    other = BO if mover == ADA else ADA
    await host.play.away(CH, other)
    await host.play.back(CH, other)
    assert not gate.go.is_set() and not task.done()
    gate.go.set()
    assert (await task).by_computer


async def test_a_computer_whose_player_came_back_while_it_thought_stores_nothing(sqlite: Store) -> None:
    gate = Gate()
    host = pooled_host(sqlite, chooser=gate)
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.start(CH, ADA)
    info = host.games.info(CH)
    mover = info.seats[info.to_move].user_id
    await host.play.away(CH, mover)
    task = asyncio.create_task(anext(host.computers.run_computers(CH), None))
    assert await asyncio.to_thread(gate.thinking.wait, WAIT)
    await host.play.back(CH, mover)  # the game is no longer the computer's to play
    gate.go.set()
    assert await task is None
    assert host.games.info(CH).seq == 0 and (await sqlite.moves(info.game_id)) == []
    assert host.play.legal_moves(CH, mover), "the returning player is to move"


async def test_one_channel_thinks_one_move_at_a_time_and_channels_think_side_by_side(sqlite: Store) -> None:
    both = threading.Barrier(2, timeout=WAIT)
    lock = threading.Lock()
    active: dict[int, int] = {}
    most: dict[int, int] = {}
    first: set[int] = set()

    def chooser(view: dict[str, Any], strength: str, seed: int, budget: float) -> str:
        me = len(view["players"][0]["name"])  # the channels' openers have names of different lengths
        with lock:
            active[me] = active.get(me, 0) + 1
            most[me] = max(most.get(me, 0), active[me])
        try:
            if me not in first:  # each channel's first move waits until the other channel thinks too
                first.add(me)
                both.wait()
        except threading.BrokenBarrierError:
            pass
        finally:
            with lock:
                active[me] -= 1
        return str(view["you"]["legal_moves"][0])

    host = pooled_host(sqlite, WorkerPool(lambda: ThreadPoolExecutor(max_workers=4), name="computers"), chooser=chooser)
    for channel, user, name in ((CH, ADA, "Ada"), (CH2, BO, "Bodo")):
        await host.lobby.open(channel, GUILD, user, name, computers=1)
        await host.lobby.start(channel, user)
        await host.play.away(channel, user)

    async def drain(channel: int) -> list[int]:
        return [r.seq async for r in host.computers.run_computers(channel)]

    # two runners in each channel, one worker pool of four threads for all
    runs = await asyncio.gather(drain(CH), drain(CH), drain(CH2), drain(CH2))
    assert host.games.info(CH).status == host.games.info(CH2).status == "over"
    assert sorted(runs[0] + runs[1]) == list(range(1, host.games.info(CH).seq + 1))
    assert most == {3: 1, 4: 1}, "never two moves of one channel thought about at once"
    assert not both.broken, "the two channels' computers thought side by side"
    host.workers.shutdown()


# ---------------------------------------------------------------------- settings


def test_the_busy_timeout_and_the_retry_and_sweep_intervals_are_settings() -> None:
    settings = Settings.from_mapping({"BUSY_TIMEOUT": "0.25", "RETRY_SECONDS": "0.5", "SWEEP_SECONDS": "30"})
    assert (settings.busy_timeout, settings.retry_seconds, settings.sweep_seconds) == (0.25, 0.5, 30.0)
    assert (Settings().busy_timeout, Settings().retry_seconds, Settings().sweep_seconds) == (5.0, 1.0, 60.0)
    for name in ("BUSY_TIMEOUT", "RETRY_SECONDS", "SWEEP_SECONDS"):
        with pytest.raises(SettingsError, match=name):
            Settings.from_mapping({name: "0"})
        with pytest.raises(SettingsError, match=name):
            Settings.from_mapping({name: "soon"})


async def test_the_store_waits_for_a_locked_database_only_as_long_as_its_busy_timeout(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "locked.db"
    store = await Store.open(path, busy_timeout=0.1)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises((sqlite3.OperationalError, StoreError)):  # "database is locked", however wrapped
            await store.set_user_locale(ADA, "de", now=1.0)
        other.execute("ROLLBACK")
        await store.set_user_locale(ADA, "de", now=2.0)
        assert await store.user_locales() == {ADA: "de"}
    finally:
        other.close()
        await store.close()


async def test_pictures_are_drawn_at_the_width_the_settings_give() -> None:
    """``PICTURE_WIDTH`` narrows (or widens) every board and game-over picture, wherever they are drawn."""
    import io

    from PIL import Image

    import engine
    from bot.host.pictures import DEFAULT_WIDTH, Pictures

    view = engine.new_game(["Ada", "Bo"], 3).view(None)
    for width in (800, DEFAULT_WIDTH):
        pictures = Pictures(None, width=width)
        board = await pictures.png(view, "en")
        over = await pictures.png(view, "en", game_over=True)
        assert board is not None and over is not None
        assert Image.open(io.BytesIO(board)).width == width
        assert Image.open(io.BytesIO(over)).width == width


async def test_a_picture_owed_from_before_a_start_is_timed_apart_from_the_moves_pictures() -> None:
    """``santacruz_render_seconds`` tells the pictures of the moves being played (``priority="post"``) from those owed
    from before a start (``catch_up``, drawn by the spare render worker at the lowest priority, whose wait would
    otherwise look like the players' own), and a catch-up hurried by a move behind it counts as the moves' again."""
    from bot.host import metrics

    def drawn(kind: str, at: str) -> float:
        return metrics.REGISTRY.get_sample_value("santacruz_render_seconds_count",
                                                 {"picture": kind, "priority": at}) or 0.0

    view = new_game(["Ada", "Bo"], 3).view(None)
    pictures = Pictures(None, width=800)
    before = {(kind, at): drawn(kind, at) for kind in ("board", "overview") for at in ("post", "catch_up")}
    assert await pictures.png(view, "en") is not None
    with priority.catching_up():
        assert await pictures.png(view, "en", overview=True) is not None
    owed = priority.Owed()
    with priority.catching_up(owed):
        owed.hurry()
        assert await pictures.png(view, "de") is not None
    after = {key: drawn(*key) - count for key, count in before.items()}
    assert after == {("board", "post"): 2, ("board", "catch_up"): 0, ("overview", "post"): 0,
                     ("overview", "catch_up"): 1}


def think_long(seconds: float, started: Path) -> float:
    """A long job that first says it runs (the file ``started`` appears)."""
    import time as clock
    started.touch()
    clock.sleep(seconds)
    return seconds


async def test_a_stopping_process_ends_its_workers_rather_than_wait_for_their_jobs(tmp_path: Path) -> None:
    """``shutdown(stop_workers=True)`` (santacruz-bot's stop) ends a process pool's workers mid-job: a computer
    thinking for a minute does not hold the process's exit for that minute."""
    pool = WorkerPool(process_pool_factory(1), name="computers")
    assert await pool.run(square, 3, what="a warm-up") == 9  # the worker process runs
    started = tmp_path / "started"
    thinking = asyncio.ensure_future(pool.run(think_long, 60.0, started, what="a long job"))
    for _ in range(int(WAIT / 0.01)):  # until the job is in the worker
        if started.exists():
            break
        await asyncio.sleep(0.01)
    assert started.exists(), "the long job never started"
    thinking.cancel()
    started = asyncio.get_running_loop().time()
    await asyncio.to_thread(pool.shutdown, stop_workers=True)
    assert asyncio.get_running_loop().time() - started < 10
    with pytest.raises(asyncio.CancelledError):
        await thinking


async def test_a_worker_process_ends_when_the_bot_process_is_killed(tmp_path: Path) -> None:
    """A bot killed (SIGKILL, out of memory) leaves no worker process behind: each worker asked Linux to end it
    with its parent."""
    script = tmp_path / "parent.py"
    script.write_text(
        "import os, time\n"
        "from bot.host.workers import process_pool_factory\n"
        "if __name__ == '__main__':  # the spawned worker imports this file too\n"
        "    pool = process_pool_factory(1)()\n"
        "    print(pool.submit(os.getpid).result(), flush=True)\n"
        "    time.sleep(600)\n", encoding="utf-8")
    parent = await asyncio.create_subprocess_exec(sys.executable, str(script), stdout=asyncio.subprocess.PIPE,
                                                  cwd=Path(__file__).resolve().parents[2])
    assert parent.stdout is not None
    worker = int((await asyncio.wait_for(parent.stdout.readline(), 60)).decode())
    os.kill(worker, 0)  # alive
    parent.kill()
    await parent.wait()
    for _ in range(100):
        try:
            os.kill(worker, 0)
        except ProcessLookupError:
            return
        await asyncio.sleep(0.05)
    os.kill(worker, signal.SIGKILL)
    raise AssertionError("the worker process outlived its killed parent")


KEPT: list[bytes] = []


def resident_mb() -> float:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024


def free_pages_of_a_picture() -> tuple[float, float]:
    """In a worker: blocks as large as a board's page taken, each followed by a small one that stays, then freed
    (glibc keeps such memory for the process: it is not the heap's top); the memory resident with them, and once
    freed."""
    first = b"\x01" * (16 << 20)  # freed, it raises glibc's size below which freed blocks stay in the process
    del first
    blocks = []
    for _ in range(16):
        blocks.append(b"\x01" * (8 << 20))
        KEPT.append(b"\x01" * (256 << 10))  # glibc's, not Python's small blocks: between the large ones
    held = resident_mb()
    blocks.clear()
    return held, resident_mb()


@pytest.mark.skipif(sys.platform != "linux", reason="glibc's malloc_trim")
async def test_a_worker_hands_the_memory_its_jobs_freed_back_to_the_system() -> None:
    pool = WorkerPool(process_pool_factory(workers=1), name="render")
    try:
        held, freed = await pool.run(free_pages_of_a_picture)
        after = await pool.run(resident_mb)
    finally:
        pool.shutdown()
    assert held - freed < 32, "freed, the pages would stay resident anyway: the test shows nothing"
    assert held - after > 100, (held, freed, after)


def test_a_render_worker_warmed_up_at_a_start_draws_no_base_when_the_first_moves_come(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``warm_up`` (what each render worker draws while the bot logs in) draws the bases every picture of a move starts
    from, for two to four players: a mid-game move's pictures after it draw none."""
    import render.base
    import render.overview
    from bot.host.pictures import DEFAULT_WIDTH, picture_width, render_picture, warm_up

    render.base._BASES.clear()  # as in a fresh worker
    render.overview._BASES.clear()
    warm_up(DEFAULT_WIDTH)

    def drawn(*args: Any) -> Any:
        raise AssertionError("a base was drawn after the warm-up")

    monkeypatch.setattr(render.base, "build_base", drawn)
    monkeypatch.setattr(render.overview, "_build_base", drawn)
    for players in (2, 3, 4):
        game = new_game(["Ana", "Ben", "Cai", "Dee"][:players], 40 + players)
        for _ in range(12):
            game.apply(game.legal_moves()[0])
        for view, personal in ((game.view(None), False), (game.view(game.to_move, since=True), True)):
            for overview in (True, False):
                width = picture_width(DEFAULT_WIDTH, personal=personal, overview=overview)
                assert render_picture(view, "de", personal, False, width, overview).startswith(PNG)
