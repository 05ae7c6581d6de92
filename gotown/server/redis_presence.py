"""Presence shared by several server processes: which seats have a WebSocket open, and since
when a seat is away, kept in Redis.

The store behind :class:`~gotown.server.services.presence.SharedPresence` (``redis://``); with
``memory://`` (one process) presence stays in the process and this module is not used. Every
process serving a game reads and writes one sorted set per game:

``gotown.presence.{game_id}``
    member ``"{seat}:{connection id}"``: one per WebSocket of a seat, whichever process holds it;
    score: the wall-clock time (``time.time()``) until which that connection counts as open.

- A socket that opens adds its member with score now + ttl (``Settings.presence_ttl``, 15 s).
- Each process refreshes the members of its own open sockets every ttl / 3 seconds (its
  heartbeat). A live connection so never expires, and the connections of a process that died
  without cleaning up stop counting at most ttl after its last heartbeat.
- A socket that closes sets its member's score to now: the member stays, as the time the seat
  left.
- A seat taken (joined, or taken back from a bot) gets the member ``"{seat}:taken"`` scored
  now: until its person connects it is away since then, not since some process started.
- A seat is *connected* while one of its members has a score after now; otherwise it is *away
  since* the highest score of its members (its last close, or the expiry of a dead process's
  connection). A seat without any member never connected, or left long ago.
- Every write also drops the members that ended more than ``keep`` seconds ago
  (``absent_seconds`` + ttl: by then the seat has been away long enough to be handed to a bot),
  and sets the key to expire once nobody has written to it for ``keep`` + ttl seconds.

Times are wall-clock seconds compared across processes: the servers' clocks must agree (NTP).

Redis errors never escape this module but as :class:`PresenceUnavailableError`, raised by
:meth:`RedisPresence.read` only. A failed write is logged and dropped: the heartbeat writes
again, and a connection that could not be marked closed expires by itself (its seat looks
connected for longer, never shorter). Failures are logged once per outage, not once per call.
On a failed read the service shows the last known flags (and its own sockets) in the lobby, and
refuses to hand a person's seat to a bot (503 ``presence-unavailable``): it cannot tell whether
that person is at the table.
"""

from __future__ import annotations

import contextlib
import logging
import math
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .redis_link import DEFAULT_POOL_SIZE, Link, blocking_pool, location

log = logging.getLogger("gotown.server.presence")


class PresenceUnavailableError(Exception):
    """Redis did not answer: nobody can tell which seats are connected right now."""


@dataclass(frozen=True)
class Snapshot:
    """Presence of one game on every process, at one moment."""

    connected: frozenset[int] = frozenset()
    """Seats with at least one open connection."""
    away_since: Mapping[int, float] = field(default_factory=dict)
    """Seats with closed or expired connections only: when the last one ended (wall clock)."""


#: The connection id of a seat's "taken at" entry (real connection ids are 16 hex digits).
TAKEN = "taken"


def presence_key(game_id: str) -> str:
    return f"gotown.presence.{game_id}"


def member(seat: int, connection: str) -> str:
    return f"{seat}:{connection}"


def snapshot_of(entries: Iterable[tuple[Any, float]], now: float) -> Snapshot:
    """The snapshot from the sorted set's (member, score) pairs, as seen at ``now``."""
    connected: set[int] = set()
    away: dict[int, float] = {}
    for name, score in entries:
        text = name.decode("utf-8", "replace") if isinstance(name, bytes) else str(name)
        try:
            seat = int(text.split(":", 1)[0])
        except ValueError:
            continue  # not ours
        if score > now:
            connected.add(seat)
        else:
            away[seat] = max(score, away.get(seat, score))
    for seat in connected:
        away.pop(seat, None)
    return Snapshot(frozenset(connected), away)


class RedisPresence:
    """Presence of every game in one Redis (see the module's docstring)."""

    def __init__(
        self,
        url: str,
        *,
        ttl: float,
        keep: float,
        timeout: float = 2.0,
        pool_size: int = DEFAULT_POOL_SIZE,
    ) -> None:
        from redis import asyncio as aioredis

        if ttl <= 0:
            raise ValueError("the presence ttl must be > 0")
        self.where = location(url)
        self.ttl = ttl
        self.interval = ttl / 3
        """Seconds between two heartbeats of a process."""
        self.keep = max(keep, ttl)
        # Fail fast (one quick retry, for a connection Redis dropped): a request must not hang on
        # an outage, and the heartbeat tries again anyway. At most ``pool_size`` connections:
        # more callers wait (up to ``timeout``) for one.
        pool = blocking_pool(url, size=pool_size, timeout=timeout)
        self._redis: Any = aioredis.Redis.from_pool(pool)
        self._link = Link()

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self._redis.aclose()

    # --- writing (never raises) -----------------------------------------------------------------

    async def refresh(self, game_id: str, connections: Mapping[str, int]) -> None:
        """Open (or keep open) these connections (connection id -> seat) for ttl seconds."""
        now = time.time()
        await self._write(
            game_id, {member(seat, c): now + self.ttl for c, seat in connections.items()}, now
        )

    async def taken(self, game_id: str, seat: int) -> None:
        """The seat was taken now: it is away from now on, unless a connection of it is open."""
        now = time.time()
        await self._write(game_id, {member(seat, TAKEN): now}, now)

    async def end(self, game_id: str, seat: int, connection: str) -> None:
        """This connection closed now: its seat is away from now on, unless another is open."""
        now = time.time()
        await self._write(game_id, {member(seat, connection): now}, now)

    async def _write(self, game_id: str, scores: Mapping[str, float], now: float) -> None:
        key = presence_key(game_id)
        try:
            async with self._redis.pipeline(transaction=True) as pipe:
                if scores:
                    pipe.zadd(key, dict(scores))
                pipe.zremrangebyscore(key, "-inf", now - self.keep)
                pipe.expire(key, math.ceil(self.keep + self.ttl) + 1)
                await pipe.execute()
        except Exception as exc:
            self._failed("write to", exc)
            return
        self._answered()

    async def beat(
        self, game_id: str, connections: Mapping[str, int], also: str
    ) -> tuple[Snapshot, int]:
        """A heartbeat in one round trip: these connections kept open (as :meth:`refresh`),
        every process's presence read (as :meth:`read`), and the whole number at the key
        ``also`` (0 when missing: the game's count of changes). :class:`PresenceUnavailableError`
        when Redis does not answer."""
        now = time.time()
        key = presence_key(game_id)
        scores = {member(seat, c): now + self.ttl for c, seat in connections.items()}
        try:
            async with self._redis.pipeline(transaction=True) as pipe:
                if scores:
                    pipe.zadd(key, scores)
                    pipe.zremrangebyscore(key, "-inf", now - self.keep)
                    pipe.expire(key, math.ceil(self.keep + self.ttl) + 1)
                pipe.zrange(key, 0, -1, withscores=True)
                pipe.get(also)
                *_, entries, count = await pipe.execute()
        except Exception as exc:
            self._failed("beat with", exc)
            raise PresenceUnavailableError(f"presence in Redis is unavailable: {exc}") from exc
        self._answered()
        return snapshot_of(entries, now), int(count or 0)

    async def beat_many(
        self, beats: list[tuple[str, Mapping[str, int], str]]
    ) -> list[tuple[Snapshot, int]]:
        """:meth:`beat` for many games (game, connections, key of its count) in one round trip:
        a process beats every game it holds sockets of, a few slices a heartbeat, not one round
        trip per game (1,000 open games were 200 round trips a second per process)."""
        now = time.time()
        kept = math.ceil(self.keep + self.ttl) + 1
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                for game_id, connections, also in beats:
                    key = presence_key(game_id)
                    if connections:
                        pipe.zadd(key, {member(seat, c): now + self.ttl
                                        for c, seat in connections.items()})  # fmt: skip
                        pipe.zremrangebyscore(key, "-inf", now - self.keep)
                        pipe.expire(key, kept)
                    pipe.zrange(key, 0, -1, withscores=True)
                    pipe.get(also)
                answers = await pipe.execute()
        except Exception as exc:
            self._failed("beat with", exc)
            raise PresenceUnavailableError(f"presence in Redis is unavailable: {exc}") from exc
        self._answered()
        results = []
        at = 0
        for _game_id, connections, _also in beats:
            at += 3 if connections else 0
            entries, count = answers[at], answers[at + 1]
            at += 2
            results.append((snapshot_of(entries, now), int(count or 0)))
        return results

    # --- reading ------------------------------------------------------------------------------

    async def read(self, game_id: str) -> Snapshot:
        """Every process's presence for this game (:class:`PresenceUnavailableError` when Redis
        does not answer)."""
        try:
            entries = await self._redis.zrange(presence_key(game_id), 0, -1, withscores=True)
        except Exception as exc:
            self._failed("read from", exc)
            raise PresenceUnavailableError(f"presence in Redis is unavailable: {exc}") from exc
        self._answered()
        return snapshot_of(entries, time.time())

    # --- health -------------------------------------------------------------------------------

    def _failed(self, what: str, exc: BaseException) -> None:
        if self._link.failed():
            log.error("cannot %s Redis for presence (%s): %r; seats keep their last known "
                      "presence and are not handed to bots until it answers",
                      what, self.where, exc)  # fmt: skip
        else:
            log.debug("cannot %s Redis for presence: %r", what, exc)

    def _answered(self) -> None:
        if self._link.answered():
            log.warning("Redis answers again for presence (%s)", self.where)
