"""Worker pools that outlive their workers: the executors where computer players think and pictures are drawn.

A :class:`WorkerPool` owns an executor made by a factory. When a worker process dies (killed by the
system, out of memory), :class:`concurrent.futures.ProcessPoolExecutor` is broken for good: every later job
fails with ``BrokenProcessPool``, and a pool that was shut down refuses jobs with a ``RuntimeError``. The
pool wrapper notices either, replaces the executor with a fresh one from the factory, and redoes the job
once (logged at WARNING with what the job was for, e.g. the game id). Only if the redo fails as well does
the error reach the caller, who decides what to do without the worker (a computer plays a random move and
says so in the log; a picture is left out).

Without a factory the jobs run in the event loop's default thread pool, which does not break::

    pool = WorkerPool(process_pool_factory(workers=2), name="computers")
    move = await pool.run(choose, view, "expert", seed, 1.0, what="game 12")
    pool.shutdown()

A pool given ``slots`` hands the executor at most that many jobs at once and keeps the others waiting in order of
their priority (:mod:`bot.host.priority`), then of their arrival: the render pool draws the pictures of the moves
being played before those of the posts owed from before a start, however many of those a start has (an executor's
own queue is first come, first served). A pool given ``spare`` as well runs the jobs that may wait (those owed from
before a start, and tidying: :class:`bot.host.priority.Priority` above ``POST``) in an executor of their own made by it,
whose workers run at the lowest scheduling priority (:data:`SPARE_NICE`): they draw with what the cores have left
once the moves being played had theirs, instead of sharing the cores with them. That executor is made at its first
job and shut down once it had none for :data:`SPARE_IDLE` seconds (its workers and their memory gone until the next
start owes pictures).

A worker process hands the memory its jobs freed back to the system now and then (:func:`run_job`): a picture needs
pages of 10 to 20 MB, and glibc's allocator keeps what it freed for the next one.
"""

from __future__ import annotations

import asyncio
import ctypes
import functools
import logging
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import BrokenExecutor, Executor, Future, ProcessPoolExecutor
from contextlib import asynccontextmanager
from typing import Any, Final, TypeVar

from bot.host import priority
from bot.host.turns import Turns

log = logging.getLogger(__name__)

T = TypeVar("T")

ExecutorFactory = Callable[[], Executor]
"""Makes a new executor (called at the first job and again whenever the last one broke)."""


class PoolBroken(Exception):
    """The worker pool broke, and broke again when the job was redone on a fresh one."""


def process_pool_factory(workers: int | None = None, *, nice: int = 0) -> ExecutorFactory:
    """A factory of process pools of ``workers`` processes (default: the cores), started with ``spawn`` so that
    a worker never inherits the event loop's threads; on Linux a worker ends when the bot's process dies (killed, out
    of memory), rather than live on alone. ``nice``: how much lower than the bot's the workers' scheduling priority is
    (``os.nice``), so that the bot's event loop, which answers interactions within Discord's 3 seconds, is never
    kept from the cores by work that may wait."""
    count = max(1, workers if workers is not None else (os.cpu_count() or 2))
    return functools.partial(ProcessPoolExecutor, max_workers=count, mp_context=multiprocessing.get_context("spawn"),
                             initializer=start_worker, initargs=(os.getpid(), nice))


def start_worker(parent: int, nice: int = 0) -> None:
    """In a worker process: lower its priority by ``nice``, and ask Linux to end it when its parent (the bot, pid
    ``parent``) dies (``PR_SET_PDEATHSIG``; elsewhere nothing). The bot may itself be pid 1 (a container without an
    init)."""
    if nice and hasattr(os, "nice"):  # Unix: Windows has no nice, and its workers keep the bot's priority
        os.nice(nice)
    if sys.platform != "linux":
        return
    libc = ctypes.CDLL(None, use_errno=True)
    global _malloc_trim
    _malloc_trim = getattr(libc, "malloc_trim", None)  # glibc's; musl (Alpine) has none and keeps less anyway
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # the parent died before the request was made
        os._exit(0)


_PR_SET_PDEATHSIG: Final = 1
SPARE_NICE: Final = 19
"""The scheduling priority the workers of a pool's ``spare`` executor are given (``os.nice``; the lowest): Linux then
gives them a core when nothing else asks for it, and hardly any of it when the bot and the other workers do."""
SPARE_IDLE: Final = 60.0
"""Seconds a pool's ``spare`` executor is kept without a job before it is shut down (:class:`WorkerPool`)."""
RELEASE_EVERY: Final = 1.0
"""Seconds between two hand-backs of a worker's freed memory to the system (:func:`run_job`)."""
_malloc_trim: Callable[[int], int] | None = None
"""glibc's ``malloc_trim`` in a worker process on Linux (:func:`start_worker`); ``None`` elsewhere."""
_released = 0.0


def run_job(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)``; in a worker process the memory freed meanwhile then goes back to the system, at most once per
    :data:`RELEASE_EVERY` seconds (``malloc_trim``, 3 ms). glibc keeps what a process freed for its next allocations,
    and raises the size below which it does so to the largest block freed: a worker drawing the pictures of many
    games kept 70 MB it no longer used (measured: 316 MB resident after a move's pictures in each of 119 games, 246 MB
    once trimmed)."""
    global _released
    try:
        return fn(*args)
    finally:
        now = time.monotonic()
        if _malloc_trim is not None and now - _released >= RELEASE_EVERY:
            _released = now
            _malloc_trim(0)


class WorkerPool:
    """An executor that is replaced when it breaks; jobs are redone once on the replacement."""

    def __init__(self, factory: ExecutorFactory | None = None, *, name: str = "workers",
                 slots: int | None = None, spare: ExecutorFactory | None = None,
                 spare_idle: float = SPARE_IDLE) -> None:
        """``factory`` makes the executor (``None``: the loop's default thread pool); ``name`` is for the log;
        ``slots``: the most jobs handed to the executor at once, the others waiting by priority (``None``: every
        job goes to the executor at once, first come, first served); ``spare`` makes the executor of the jobs that
        may wait (``None``: they go to the same one), shut down after ``spare_idle`` seconds without a job."""
        if slots is not None and slots < 1:
            raise ValueError(f"a worker pool needs at least one slot, not {slots}")
        self.name = name
        self.slots = None if slots is None else Turns(slots)
        """The jobs handed to the executor at once, and those waiting (``None``: no bound)."""
        self._factory = factory
        self._executor: Executor | None = None
        self.replaced = 0
        """How many broken executors were replaced (for the log and the tests)."""
        self.spare = None if spare is None else WorkerPool(spare, name=f"{name} (spare)")
        """Where the jobs that may wait run (``None``: with the others)."""
        self.spare_idle = spare_idle
        self._spare_jobs = 0
        self._spare_retiring: asyncio.TimerHandle | None = None

    def executor(self) -> Executor | None:
        """The current executor (made now if there is none yet); ``None`` means the loop's thread pool."""
        if self._executor is None and self._factory is not None:
            self._executor = self._factory()
        return self._executor

    async def run(self, fn: Callable[..., T], *args: Any, what: str = "a job") -> T:
        """``fn(*args)`` in a worker; a broken pool is replaced and the job redone once.

        ``what`` names the job in the log (e.g. ``"game 12"``). Raises :class:`PoolBroken` when the redo
        broke the fresh pool too; any exception of ``fn`` itself is raised as it is, never redone. With ``slots``,
        the job first waits for a slot at the priority of the work under way (:func:`bot.host.priority.current`).
        With a ``spare`` executor, a job that may wait runs there instead, without a slot.
        """
        if self.spare is not None and priority.current() > priority.Priority.POST:
            return await self._spare_run(self.spare, fn, args, what)
        async with self._slot():
            for redo in (False, True):
                try:
                    return await self._once(fn, args)
                except _Broken as broken:
                    self._replace(broken.executor)
                    if redo:
                        raise PoolBroken(f"{self.name} pool broke twice during {what}: {broken.reason}") from None
                    log.warning("%s pool: a worker died or the pool was shut down (%s) during %s; replacing the "
                                "pool and doing the job again", self.name, broken.reason, what)
        raise AssertionError("unreachable: the redo returns or raises")

    async def _spare_run(self, spare: WorkerPool, fn: Callable[..., T], args: tuple[Any, ...], what: str) -> T:
        """``fn(*args)`` in the ``spare`` executor, which is shut down once it had no job for ``spare_idle`` seconds.
        Owed work hurried while its job runs there (a move being played waits behind it: :class:`priority.Owed`) has
        the job run again at the moves' priority, and takes whichever is done first: on busy cores the spare worker
        gets hardly any of them."""
        self._keep_spare()
        self._spare_jobs += 1
        owed = priority.owed()
        job = asyncio.ensure_future(spare.run(fn, *args, what=what))
        started: list[asyncio.Future[Any]] = [job]
        try:
            if owed is None:
                return await job
            hurried = asyncio.ensure_future(owed.hurried())
            started.append(hurried)
            await asyncio.wait((job, hurried), return_when=asyncio.FIRST_COMPLETED)
            if not job.done():  # hurried: the job again at the moves' priority (:func:`priority.current` says so now)
                again = asyncio.ensure_future(self.run(fn, *args, what=what))
                started.append(again)
                await asyncio.wait((job, again), return_when=asyncio.FIRST_COMPLETED)
                if not job.done():
                    return again.result()
            return job.result()
        finally:
            for future in started:
                future.cancel()
            self._spare_jobs -= 1
            if not self._spare_jobs:
                self._spare_retiring = asyncio.get_running_loop().call_later(self.spare_idle, self._retire_spare)

    def _keep_spare(self) -> None:
        """The spare executor is wanted (a job came) or shut down with the pool: it is not to be retired."""
        if self._spare_retiring is not None:
            self._spare_retiring.cancel()
            self._spare_retiring = None

    def _retire_spare(self) -> None:
        """No job came to the spare executor for ``spare_idle`` seconds: shut it down (its workers end)."""
        self._spare_retiring = None
        if self.spare is not None and not self._spare_jobs:
            self.spare.shutdown(wait=False)

    @asynccontextmanager
    async def _slot(self) -> AsyncIterator[None]:
        """Hold one of the ``slots`` while the job runs, waiting for it at the priority of the work under way."""
        if self.slots is None:
            yield
            return
        async with self.slots.turn(priority=priority.current()):
            yield

    async def _once(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        executor = self.executor()
        loop = asyncio.get_running_loop()
        if executor is None:
            return await loop.run_in_executor(None, fn, *args)
        try:
            future: Future[T] = executor.submit(run_job, fn, *args)
        except (BrokenExecutor, RuntimeError) as exc:  # broken, or shut down: "cannot schedule new futures"
            raise _Broken(executor, exc) from exc
        try:
            return await asyncio.wrap_future(future, loop=loop)
        except BrokenExecutor as exc:  # a worker died while the job waited or ran
            raise _Broken(executor, exc) from exc

    def _replace(self, broken: Executor) -> None:
        """Drop ``broken`` (unless another job replaced it already); the next job makes a fresh executor."""
        if self._executor is not broken:
            return
        self._executor = None
        self.replaced += 1
        broken.shutdown(wait=False, cancel_futures=True)

    def shutdown(self, *, wait: bool = True, stop_workers: bool = False) -> None:
        """Shut the current executor down (at the bot's close); a later job would start a new one. ``stop_workers``:
        end a process pool's workers now rather than wait for the jobs they run (a stopping process needs no
        computer move or picture any more: its tasks were cancelled)."""
        self._keep_spare()
        if self.spare is not None:
            self.spare.shutdown(wait=wait, stop_workers=stop_workers)
        executor, self._executor = self._executor, None
        if executor is None:
            return
        if stop_workers:
            for process in list(getattr(executor, "_processes", {}).values()):  # a ProcessPoolExecutor's workers
                process.terminate()
        executor.shutdown(wait=wait, cancel_futures=True)


class _Broken(Exception):
    """Internal: ``executor`` could not run the job (``reason``)."""

    def __init__(self, executor: Executor, reason: BaseException) -> None:
        super().__init__(str(reason))
        self.executor = executor
        self.reason = f"{type(reason).__name__}: {reason}" if str(reason) else type(reason).__name__


def as_pool(workers: WorkerPool | Executor | None, *, name: str) -> WorkerPool:
    """``workers`` as a :class:`WorkerPool`: a bare executor becomes a pool whose first executor it is and whose
    replacements are process pools (for a process pool) or threads (otherwise)."""
    if isinstance(workers, WorkerPool):
        return workers
    if workers is None:
        return WorkerPool(None, name=name)
    factory = process_pool_factory() if isinstance(workers, ProcessPoolExecutor) else None
    pool = WorkerPool(factory, name=name)
    pool._executor = workers
    return pool
