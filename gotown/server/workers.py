"""Where the server's CPU-bound work runs: bot decisions and estimates (the hint, the chances).

A search bot thinks for up to a second. In a thread of the server's process it would share the
interpreter's lock with the event loop and with every other thinking bot, so two bots thinking
at once would each take twice as long, and every request would wait its turn for the lock. So by
default the work runs in **worker processes** (``concurrent.futures.ProcessPoolExecutor``,
forked from a fork server that imported the bots, or started with ``spawn``: the server's
threads and event loop are not copied into them), each at a lower CPU priority than the server
(``os.nice``) once it has imported the bots, so that the requests of the people at the tables
come first. Threads remain an option (``Settings.worker_processes = False``): the same
results, one core.

Everything handed to a worker is pickled: a module-level function and its arguments (for a
bot, the seat's view, the legal actions and the bot, whose random state comes back with its
answer). A worker that dies (killed, out of memory) breaks its pool, which fails every call it
holds: :meth:`Workers.run` makes them again in a new pool (at most three times each, then the
call fails with :class:`concurrent.futures.process.BrokenProcessPool`, which the callers treat
as a failed decision or estimate). Workers ignore SIGINT and SIGTERM, which a terminal or a
service manager sends to the server's whole process group: the server ends them itself, in
order (:meth:`Workers.shutdown`), or they end when they find it gone.
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
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

#: How often a worker process checks that the server that started it still runs.
PARENT_CHECK_SECONDS = 1.0
#: How long :meth:`Workers.shutdown` lets a call under way finish (a search bot's decision takes
#: a second or two at most) before it kills the worker.
SHUTDOWN_SECONDS = 3.0


#: The signals a worker leaves to its server: Ctrl-C (a worker would print a traceback) and a
#: stop (``timeout``, ``kill -TERM -GROUP`` and service managers signal every process of the
#: server's group: a worker ended that way would fail its call before the server could stop
#: in order, and the table would play a fallback move). The server ends its workers itself.
HELD_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Block :data:`HELD_SIGNALS` in this thread while it starts worker processes: they are
    born with the signals blocked (a signal mask is inherited) and ignore them from their
    first instruction, not from their initializer on."""
    if not hasattr(signal, "pthread_sigmask"):  # (not on Windows)
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _start_worker(niceness: int, environ: dict[str, str]) -> None:
    """A worker process's start: the server's environment (a fork server's is the one it
    started with), the server's signals are the server's (:data:`HELD_SIGNALS`), the worker
    ends when the server does (however it ended), the bots are imported once, before the first
    call, and only then its work yields to the server's (imported at a low priority on a busy
    machine, a worker took seconds to start: the bots after a restart waited for it)."""
    if os.environ != environ:
        os.environ.clear()
        os.environ.update(environ)
    for held in HELD_SIGNALS:
        signal.signal(held, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD_SIGNALS)  # (now ignored)
    _let_the_fork_server_go()
    threading.Thread(target=_end_with, args=(os.getppid(),), daemon=True).start()
    import gotown.server.work  # noqa: F401  (the first call should not pay for the import)

    if niceness and hasattr(os, "nice"):  # (not on Windows)
        with contextlib.suppress(OSError):
            os.nice(niceness)


def _let_the_fork_server_go() -> None:
    """Close this worker's end of the pipe that keeps its fork server alive (every child of a
    fork server holds one, so that it lives as long as they do): the fork server then ends when
    the server does, and this worker with it (:func:`_end_with` watches its parent, the fork
    server). Nothing where the worker is not a fork server's child."""
    from multiprocessing import forkserver

    fd = getattr(getattr(forkserver, "_forkserver", None), "_forkserver_alive_fd", None)
    if isinstance(fd, int) and multiprocessing.parent_process() is not None:
        with contextlib.suppress(OSError):
            os.close(fd)
        forkserver._forkserver._forkserver_alive_fd = None  # type: ignore[attr-defined]


def _context() -> multiprocessing.context.BaseContext:
    """Where worker processes come from: a fork server that imported the bots once (each worker
    is then a fork of it: milliseconds, not a new interpreter importing them, half a second of
    CPU each), where there is one; else a new interpreter each (``spawn``). Neither copies the
    server's threads and event loop."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["gotown.server.work"])  # (with the bots)
        return context
    return multiprocessing.get_context("spawn")


def start_fork_server() -> None:
    """Start the fork server now, at the process's start (``gotown serve`` calls this before it
    imports the server): it imports the bots on another core while the server imports its web
    stack, instead of after, when the first workers start (measured: a restart's first answer
    waited 0.2 s for it, and its bots longer). Nothing where there is no fork server."""
    if _context().get_start_method() == "forkserver":
        from multiprocessing import forkserver

        with _signals_held():  # (it and the workers it forks ignore the server's stop signals)
            forkserver.ensure_running()


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
        self._closed = False
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
            mp_context=_context(),
            initializer=_start_worker,
            initargs=(self.niceness, dict(os.environ)),
        )

    def submit(self, fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        """``fn(*args)`` in a worker, as a future of the running event loop. ``fn`` and the
        arguments must pickle when the workers are processes."""
        loop = asyncio.get_running_loop()
        call = functools.partial(fn, *args)
        pool = self._pool
        with _signals_held():  # (this call may start a worker process)
            try:
                future = loop.run_in_executor(pool, call)
            except BrokenProcessPool:  # it broke since the last call: renew it, once
                self._renew(pool)
                pool = self._pool
                future = loop.run_in_executor(pool, call)
        future.add_done_callback(functools.partial(self._check, pool))
        return future

    async def run(self, fn: Callable[..., T], *args: Any, attempts: int = 3) -> T:
        """``fn(*args)`` in a worker, called again in new workers when the call's worker, or
        another of its pool, died (a broken pool fails every call it holds, not only the dead
        worker's), up to ``attempts`` calls in all; a call that kills its worker every time
        fails with :class:`BrokenProcessPool` at last. Not after :meth:`shutdown`."""
        for attempt in range(1, attempts + 1):
            try:
                return await self.submit(fn, *args)
            except BrokenProcessPool:
                if self._closed or attempt == attempts:
                    raise
                log.warning("a %s call is made again, in new workers", self.name)
        raise AssertionError("attempts must be at least 1")

    def _check(self, pool: Executor, future: asyncio.Future[Any]) -> None:
        if not future.cancelled() and isinstance(future.exception(), BrokenProcessPool):
            self._renew(pool)

    def _renew(self, broken: Executor) -> None:
        """Replace ``broken`` (once, however many of its calls failed)."""
        if self._pool is not broken or self._closed:
            return
        log.error("a %s worker process died: new workers will start", self.name)
        broken.shutdown(wait=False, cancel_futures=True)
        self._pool = self._new_pool()

    def warm(self) -> None:
        """Start the worker processes now (a no-op call each), so that the first real calls do
        not wait for a process to start (after a restart, the bots to move)."""
        if self.processes:
            for _ in range(self.size):
                self.submit(_nothing)

    def shutdown(self, grace: float = SHUTDOWN_SECONDS) -> None:
        """Stop: queued calls are cancelled; a call under way may finish within ``grace``
        seconds (its answer is not used: its table resumes at the next start), then its worker
        is killed. Blocks until the pool has tidied up (or ``grace`` has passed twice): a
        server that exits right after leaves no process behind, nor, when its workers could end
        in order, a warning of leaked semaphores."""
        self._closed = True
        pool = self._pool
        processes = list(getattr(pool, "_processes", None) or {})  # (no public way before 3.14)
        if not processes:
            pool.shutdown(wait=False, cancel_futures=True)
            return
        # (one call: a first one that does not wait forgets what a second would wait for)
        tidy = threading.Thread(
            target=pool.shutdown, kwargs={"wait": True, "cancel_futures": True}, daemon=True
        )
        tidy.start()
        tidy.join(grace)
        if tidy.is_alive():  # still busy: end it (it ignores SIGTERM, HELD_SIGNALS)
            for process in processes:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(process, getattr(signal, "SIGKILL", signal.SIGTERM))
            tidy.join(grace)
