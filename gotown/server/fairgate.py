"""A fair share of the bots' workers between the addresses that started the tables.

The bots of every table with a person think in one small thread pool. Taken first come,
first served, one address with many tables of slow bots that ends its turns at once fills the
queue, and every other table's bot waits behind all of them (measured: a ``medium`` that
answers in 0.6 s took 7 s beside six tables of three ``expert`` bots). :class:`FairGate`
admits the waiting decisions in turn by *key* (the address that created the table), so that
one key's backlog delays another key's decision by at most one decision of each other key.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import AsyncIterator, Hashable


class FairGate:
    """At most ``capacity`` holders at once; waiters are let in round-robin by key, each key's
    own waiters in the order they came."""

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("a gate needs room for one holder at least")
        self.capacity = capacity
        self._busy = 0
        # The keys with waiters, in the order of their turns (a dict keeps insertion order).
        self._queues: dict[Hashable, collections.deque[asyncio.Future[None]]] = {}

    @property
    def busy(self) -> int:
        """How many hold the gate now."""
        return self._busy

    def waiting(self, key: Hashable) -> int:
        """How many of ``key``'s decisions wait."""
        return len(self._queues.get(key, ()))

    @contextlib.asynccontextmanager
    async def slot(self, key: Hashable) -> AsyncIterator[None]:
        """Hold one place while the block runs (waiting for ``key``'s turn if the gate is
        full)."""
        if self._busy < self.capacity and not self._queues:
            self._busy += 1
        else:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._queues.setdefault(key, collections.deque()).append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter.done() and not waiter.cancelled():
                    self._release()  # let in just as it was cancelled: pass the place on
                else:
                    self._forget(key, waiter)
                raise
        try:
            yield
        finally:
            self._release()

    def _forget(self, key: Hashable, waiter: asyncio.Future[None]) -> None:
        queue = self._queues.get(key)
        if queue is None:
            return
        with contextlib.suppress(ValueError):
            queue.remove(waiter)
        if not queue:
            del self._queues[key]

    def _release(self) -> None:
        """Hand the place to the first waiter of the next key in turn, or free it."""
        while self._queues:
            key = next(iter(self._queues))
            queue = self._queues.pop(key)
            waiter = queue.popleft()
            if queue:
                self._queues[key] = queue  # its next waiter goes after every other key's
            if not waiter.done():
                waiter.set_result(None)  # the place passes to it: still as busy
                return
        self._busy -= 1
