"""Run many independent tasks (games) over all cores, or over a Ray cluster.

What the tournament and the simulations share. A task is a picklable argument given to a
module-level function; every result depends on its task only, never on which worker ran it or
when, so callers sort the results (by game number) and get the same whole on 1 worker, 16, or
a cluster.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Tasks in flight per worker: enough to keep every worker busy while results come back.
IN_FLIGHT = 4


def run_tasks(
    function: Callable[[T], R],
    tasks: Iterable[T],
    workers: int | None = None,
    in_time: Callable[[], bool] | None = None,
    ray_address: str | None = None,
) -> Iterator[R]:
    """The results of ``function(task)`` for every task, in the order they finish.

    ``workers`` processes (default: one per core; 1 runs in this process, which is what tests
    and profilers want). With ``ray_address`` the tasks run on a Ray cluster instead
    (:func:`ray_tasks`). No task starts once ``in_time()`` is false; those under way finish.
    """
    if ray_address is not None:
        yield from ray_tasks(function, tasks, ray_address, in_time)
        return
    workers = workers or os.cpu_count() or 1
    still = in_time or (lambda: True)
    if workers == 1:
        for task in tasks:
            if not still():
                return
            yield function(task)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        queue = iter(tasks)
        pending: set[Future[R]] = {
            pool.submit(function, task) for task in itertools.islice(queue, workers * IN_FLIGHT)
        }
        while pending:
            ready, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in ready:
                yield future.result()
                nxt = next(queue, None) if still() else None
                if nxt is not None:
                    pending.add(pool.submit(function, nxt))


def ray_tasks(
    function: Callable[[T], R],
    tasks: Iterable[T],
    address: str,
    in_time: Callable[[], bool] | None = None,
) -> Iterator[R]:
    """:func:`run_tasks` on Ray (the ``gotown[cluster]`` extra).

    ``address`` is Ray's: ``local`` starts a Ray instance on this machine, ``auto`` joins the
    one running here, ``ray://HOST:10001`` a remote cluster, to which the ``gotown`` package
    is shipped (its workers need Python and the package's dependencies, not this checkout).
    A Ray instance already started in this process (``ray.init()``) is used as it is.
    """
    try:
        import ray
    except ImportError:
        raise RuntimeError(
            "running on Ray needs the cluster extra: pip install 'gotown[cluster]'"
        ) from None
    import gotown

    started = False
    if not ray.is_initialized():
        runtime: dict[str, Any] = {}
        if address not in ("local", "auto"):
            runtime["py_modules"] = [gotown]
        ray.init(address=address, runtime_env=runtime or None, log_to_driver=False)
        started = True
    try:
        remote: Any = ray.remote(_call)
        cpus = ray.cluster_resources().get("CPU", 1)  # type: ignore[no-untyped-call]
        width = max(1, int(cpus)) * IN_FLIGHT
        still = in_time or (lambda: True)
        queue = iter(tasks)
        pending = [remote.remote(function, task) for task in itertools.islice(queue, width)]
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                yield ray.get(ref)
                nxt = next(queue, None) if still() else None
                if nxt is not None:
                    pending.append(remote.remote(function, nxt))
    finally:
        if started:
            ray.shutdown()


def _call(function: Callable[[T], R], task: T) -> R:
    return function(task)
