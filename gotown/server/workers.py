"""Where the server's CPU-bound work runs: bot decisions and estimates (the hint, the chances).

A search bot thinks for up to a second. In a thread of the server's process it would share the
interpreter's lock with the event loop and with every other thinking bot, so two bots thinking
at once would each take twice as long, and every request would wait its turn for the lock. So by
default the work runs in **worker processes** (``concurrent.futures.ProcessPoolExecutor``,
started with ``spawn``: the server's threads and event loop are not copied into them), each at a
lower CPU priority than the server (``os.nice``), so that the requests of the people at the
tables come first. Threads remain an option (``Settings.worker_processes = False``): the same
results, one core.

Everything handed to a worker is pickled: a module-level function and its arguments (the game,
which the worker turns into the seat's view, and the bot, whose random state comes back with
its answer). A worker that dies (killed, out of memory) breaks its pool: the call fails with
:class:`concurrent.futures.process.BrokenProcessPool`, which the callers already treat as a
failed decision or estimate, and the next call gets a new pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

#: How often a worker process checks that the server that started it still runs.
PARENT_CHECK_SECONDS = 1.0


def _start_worker(niceness: int) -> None:
    """A worker process's start: the server handles Ctrl-C (a worker would print a traceback),
    its work yields to the server's, the worker ends when the server does (however it ended),
    and the bots are imported once, before the first call."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if niceness:
        with contextlib.suppress(OSError):
            os.nice(niceness)
    threading.Thread(target=_end_with, args=(os.getppid(),), daemon=True).start()
    import gotown.bots  # noqa: F401  (the first decision should not pay for the import)


def _nothing() -> None:
    pass


def _end_with(parent: int) -> None:
    """End this worker once ``parent`` has: a server that was killed cannot tell its workers,
    which would otherwise wait for work for ever (or, in the middle of a decision, hang)."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(0)


class Workers:
    """``size`` workers named ``name``: processes (``processes=True``) at ``niceness`` more than
    the server, or threads of the server's process."""

    def __init__(self, name: str, size: int, *, processes: bool, niceness: int = 0) -> None:
        self.name = name
        self.size = size
        self.processes = processes
        self.niceness = niceness
        self._pool = self._new_pool()

    def _new_pool(self) -> Executor:
        if not self.processes:
            return ThreadPoolExecutor(
                max_workers=self.size, thread_name_prefix=f"gotown-{self.name}"
            )
        # Processes start on the first call, not here: a server that never plays a bot starts
        # none.
        return ProcessPoolExecutor(
            max_workers=self.size,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
            initargs=(self.niceness,),
        )

    def submit(self, fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        """``fn(*args)`` in a worker, as a future of the running event loop. ``fn`` and the
        arguments must pickle when the workers are processes."""
        loop = asyncio.get_running_loop()
        call = functools.partial(fn, *args)
        pool = self._pool
        try:
            future = loop.run_in_executor(pool, call)
        except BrokenProcessPool:  # it broke since the last call: renew it, once
            self._renew(pool)
            pool = self._pool
            future = loop.run_in_executor(pool, call)
        future.add_done_callback(functools.partial(self._check, pool))
        return future

    def _check(self, pool: Executor, future: asyncio.Future[Any]) -> None:
        if not future.cancelled() and isinstance(future.exception(), BrokenProcessPool):
            self._renew(pool)

    def _renew(self, broken: Executor) -> None:
        """Replace ``broken`` (once, however many of its calls failed)."""
        if self._pool is not broken:
            return
        log.error("a %s worker process died: its calls failed, new workers will start", self.name)
        broken.shutdown(wait=False, cancel_futures=True)
        self._pool = self._new_pool()

    def warm(self) -> None:
        """Start a worker process now (a no-op call), so that the first real call does not
        wait for a process to start and import the bots (about half a second)."""
        if self.processes:
            self.submit(_nothing)

    def shutdown(self) -> None:
        """Stop at once: queued calls are cancelled, and worker processes are ended in the
        middle of a decision rather than waited for (its table resumes at the next start)."""
        pool = self._pool
        processes = list(getattr(pool, "_processes", None) or {})  # (no public way before 3.14)
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(process, signal.SIGTERM)
