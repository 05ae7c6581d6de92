"""Writes to one SQLite database committed together (:class:`GroupCommit`), for
:class:`~gotown.server.storage.Store`."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy.engine import Connection, Engine

T = TypeVar("T")


@dataclass(eq=False)
class _Write:
    work: Callable[[Connection], Any]
    done: bool = False
    result: Any = None
    error: BaseException | None = None


class GroupCommit:
    """Writes to one SQLite database committed together. Each commit waits until its log is on
    the disk (``synchronous=FULL``: an fsync, 3 to 10 ms here), so writes that take turns one
    commit each stop at a few hundred a second, and their waits add up: 1,000 open games at
    200 moves a second queued for seconds. Every write is queued before it waits for the
    writer's lock; whoever takes the lock runs every queued write in one transaction, one
    commit, and the others find theirs done. When one of them fails, that transaction is rolled
    back and each is run again alone: a write's failure stays its own."""

    def __init__(self, engine: Engine, writer: threading.Lock) -> None:
        self._engine = engine
        self._writer = writer
        self._queued: list[_Write] = []
        self._queue_lock = threading.Lock()

    def run(self, work: Callable[[Connection], T]) -> T:
        """``work(connection)`` committed (with whatever else is queued); its result."""
        write = _Write(work)
        with self._queue_lock:
            self._queued.append(write)
        with self._writer:
            if not write.done:
                with self._queue_lock:
                    batch, self._queued = self._queued, []
                self._commit(batch)
        if write.error is not None:
            raise write.error
        result: T = write.result
        return result

    def _commit(self, batch: list[_Write]) -> None:
        try:
            if len(batch) > 1:
                try:
                    with self._engine.begin() as connection:
                        results = [write.work(connection) for write in batch]
                except Exception:  # (rolled back: each alone below)
                    pass
                else:
                    for write, result in zip(batch, results, strict=True):
                        write.result, write.done = result, True
                    return
            for write in batch:
                try:
                    with self._engine.begin() as connection:
                        write.result = write.work(connection)
                except Exception as exc:
                    write.error = exc
                write.done = True
        finally:
            for write in batch:
                if not write.done:  # (the thread was stopped meanwhile)
                    write.error, write.done = RuntimeError("the write was not made"), True
