"""A fair share of a pool of workers: the bots' decisions, the hints, the reviews.

Work waits for a place at a :class:`FairGate`, under a *key* (the table, or the game) and a
*group* (the client address that created the table, or asked). Taken first come, first served,
one address with many tables of slow bots that end their turns at once fills the queue, and
every other table's bot waits behind all of them (measured: a ``medium`` that answers in 0.6 s
took 10.5 s beside three addresses with six tables of three ``expert`` bots each). Taken in turn
by address, a table still waits behind its own address's other tables (one address: the 95th
percentile at 5.0 s). So the gate lets in the waiter that has had the least of the workers
lately (*least attained service*): the group that used the least worker time (decayed with a
half-life of :data:`HALF_LIFE` seconds), then, within it, the key; ties go to the one holding
fewer places now, then to the first come. A table whose bot thinks for 20 ms a move is always
ahead of tables whose bots search for a second, whoever else plays; tables that use as much
share the places in turn.

A fair order only helps once a place is free, and a search holds its place for up to a second
or two. So a gate may have a few *express* places beyond its ``capacity`` (its workers are that
many more processes: the operating system shares the cores between them): a waiter whose group
holds no place and has used at most :data:`LIGHT_SHARE` of the mean of the groups lately takes
one at once. A table with a person and a quick bot then answers in about its think time
whatever the others do; an address whose tables search all the time is not light, and gets no
express place.

Queued work can be *shed* (:meth:`FairGate.shed`): the newest waiter of a group fails with the
exception given, so that a bounded queue can make room for a client with less queued
(:class:`Admission`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import math
import time
from collections.abc import AsyncIterator, Callable, Hashable
from dataclasses import dataclass, field

from .errors import BusyError

#: Seconds after which the worker time a group or a key used counts half.
HALF_LIFE = 30.0
#: A group that holds no place and used at most this share of the groups' mean lately is light:
#: it may take an express place.
LIGHT_SHARE = 0.5
#: Usage below this many seconds is forgotten (with nothing held or waiting).
FORGET_BELOW = 0.001


class Usage:
    """Worker seconds used by each key, decayed with a half-life (kept only while it counts)."""

    def __init__(self, half_life: float = HALF_LIFE) -> None:
        self._rate = math.log(2) / half_life
        self._values: dict[Hashable, tuple[float, float]] = {}

    def get(self, key: Hashable, now: float) -> float:
        value, at = self._values.get(key, (0.0, now))
        return value * math.exp(-self._rate * (now - at))

    def add(self, key: Hashable, seconds: float, now: float) -> None:
        self._values[key] = (self.get(key, now) + seconds, now)

    def keys(self) -> list[Hashable]:
        return list(self._values)

    def forget_small(self, now: float, keep: Callable[[Hashable], bool]) -> None:
        for key in [k for k in self._values if not keep(k) and self.get(k, now) < FORGET_BELOW]:
            del self._values[key]


@dataclass(eq=False)
class _Waiter:
    group: Hashable
    key: Hashable
    seq: int
    future: asyncio.Future[bool] = field(repr=False)  # its result: whether the place is express


class FairGate:
    """At most ``capacity`` holders, and ``express`` more for light groups (see the module's
    docstring); waiters are let in by least attained service."""

    def __init__(
        self,
        capacity: int,
        *,
        express: int = 0,
        half_life: float = HALF_LIFE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if capacity < 1:
            raise ValueError("a gate needs room for one holder at least")
        self.capacity = capacity
        self.express = express
        self._clock = clock
        self._regular = 0
        self._express = 0
        self._waiters: list[_Waiter] = []
        self._seq = itertools.count()
        self._group_usage = Usage(half_life)
        self._key_usage = Usage(half_life)
        self._holding: collections.Counter[Hashable] = collections.Counter()  # by group
        self._holding_keys: collections.Counter[Hashable] = collections.Counter()

    @property
    def busy(self) -> int:
        """How many hold a place now (express ones included)."""
        return self._regular + self._express

    def waiting(self, group: Hashable | None = None) -> int:
        """How many wait (of ``group``, or in all)."""
        return sum(1 for w in self._waiters if group is None or w.group == group)

    def usage(self, group: Hashable) -> float:
        """The decayed worker seconds ``group`` used."""
        return self._group_usage.get(group, self._clock())

    @contextlib.asynccontextmanager
    async def slot(self, key: Hashable, group: Hashable | None = None) -> AsyncIterator[None]:
        """Hold one place while the block runs (``group`` None: the key is its own group),
        waiting for it in the fair order; raises what :meth:`shed` gives if shed meanwhile."""
        group = key if group is None else group
        express = self._admit_at_once(group)
        if express is None:
            future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
            waiter = _Waiter(group, key, next(self._seq), future)
            self._waiters.append(waiter)
            try:
                express = await waiter.future
            except asyncio.CancelledError:
                if waiter.future.done() and not waiter.future.cancelled():
                    self._leave(bool(waiter.future.result()))  # let in just as it was cancelled
                else:
                    self._forget(waiter)
                raise
        self._holding[group] += 1
        self._holding_keys[key] += 1
        began = self._clock()
        try:
            yield
        finally:
            now = self._clock()
            self._group_usage.add(group, now - began, now)
            self._key_usage.add(key, now - began, now)
            for counter, name in ((self._holding, group), (self._holding_keys, key)):
                counter[name] -= 1
                if counter[name] <= 0:
                    del counter[name]
            self._leave(express)

    def shed(self, group: Hashable, error: BaseException) -> bool:
        """Fail the newest waiter of ``group`` with ``error``; False when it has none."""
        mine = [w for w in self._waiters if w.group == group and not w.future.done()]
        if not mine:
            return False
        newest = max(mine, key=lambda w: w.seq)
        self._waiters.remove(newest)
        newest.future.set_exception(error)
        return True

    # --- inside -----------------------------------------------------------------------------

    def _admit_at_once(self, group: Hashable) -> bool | None:
        """A place now (whether it is express), or None: wait."""
        if self._regular < self.capacity and not self._waiters:
            self._regular += 1
            return False
        if self._express < self.express and self._is_light(group, self._clock()):
            self._express += 1
            return True
        return None

    def _is_light(self, group: Hashable, now: float) -> bool:
        if self._holding.get(group):
            return False
        groups = set(self._group_usage.keys()) | set(self._holding) | {group}
        groups |= {w.group for w in self._waiters}
        mean = sum(self._group_usage.get(g, now) for g in groups) / len(groups)
        return self._group_usage.get(group, now) <= LIGHT_SHARE * mean

    def _rank(self, waiter: _Waiter, now: float) -> tuple[float, int, float, int, int]:
        return (
            self._group_usage.get(waiter.group, now),
            self._holding.get(waiter.group, 0),
            self._key_usage.get(waiter.key, now),
            self._holding_keys.get(waiter.key, 0),
            waiter.seq,
        )

    def _leave(self, express: bool) -> None:
        if express:
            self._express -= 1
        else:
            self._regular -= 1
        self._dispatch()

    def _dispatch(self) -> None:
        """Hand the free places to the waiters first in the fair order (the express ones to
        light waiters only)."""
        now = self._clock()
        self._waiters = [w for w in self._waiters if not w.future.done()]
        while self._waiters and self._regular < self.capacity:
            best = min(self._waiters, key=lambda w: self._rank(w, now))
            self._waiters.remove(best)
            self._regular += 1
            best.future.set_result(False)
        while self._waiters and self._express < self.express:
            light = [w for w in self._waiters if self._is_light(w.group, now)]
            if not light:
                break
            best = min(light, key=lambda w: self._rank(w, now))
            self._waiters.remove(best)
            self._express += 1
            best.future.set_result(True)
        self._group_usage.forget_small(now, self._active)
        self._key_usage.forget_small(now, lambda key: bool(self._holding_keys.get(key)))

    def _active(self, group: Hashable) -> bool:
        return bool(self._holding.get(group)) or any(w.group == group for w in self._waiters)

    def _forget(self, waiter: _Waiter) -> None:
        with contextlib.suppress(ValueError):
            self._waiters.remove(waiter)


class Admission:
    """The bound on the work a process queues for clients: at most ``per_client`` waiting or
    under way for one address, and ``limit`` in all. Full, a client with fewer than the client
    that has the most sheds that one's newest queued work (its caller gets 429) and takes its
    place, so that a few addresses cannot fill the queue: every address keeps a share.
    :meth:`admit` counts a new one (or raises :class:`BusyError`, ``code``), :meth:`done`
    counts it finished."""

    def __init__(
        self, gate: FairGate, per_client: int, limit: int, noun: str, code: str = "estimate-busy"
    ) -> None:
        self.gate = gate
        self.per_client = per_client
        self.limit = limit
        self.noun = noun
        self.code = code
        self.count = 0
        self.by_client: collections.Counter[str] = collections.Counter()

    def admit(self, client: str) -> None:
        mine = self.by_client[client]
        if mine >= self.per_client:
            raise BusyError(
                self.code,
                f"your address already waits for {mine} {self.noun}, the limit per address "
                f"({self.per_client}): try again when they are done",
            )
        if self.count >= self.limit:
            heaviest = max(self.by_client, key=lambda c: (self.by_client[c], c == client))
            shed = BusyError(
                self.code,
                f"{self.noun} of other addresses were waiting: yours made room for one of "
                "theirs, try again in a moment",
            )
            if not (self.by_client[heaviest] > mine + 1 and self.gate.shed(heaviest, shed)):
                raise BusyError(
                    self.code,
                    f"{self.count} {self.noun} are being computed on this server, its limit "
                    f"({self.limit}), as many for each address asking: try again in a moment",
                )
        self.count += 1
        self.by_client[client] += 1

    def done(self, client: str) -> None:
        self.count -= 1
        self.by_client[client] -= 1
        if self.by_client[client] <= 0:
            del self.by_client[client]
