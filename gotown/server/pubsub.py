"""Fan-out of "game X changed" notices, in one process or across processes.

Only a small notice travels (game id, version, what changed, and for an action the action
itself, as stored): no card, no view. A process holding the game applies the action to its copy
(rather than loading and replaying the whole game); each WebSocket connection then builds its
own seat's view. The backend is chosen by URL: ``memory://``
(default, one process) or ``redis://host:port/db`` (several processes sharing a Redis).

(This replaces `encode/broadcaster`, whose Redis backend delivered nothing with redis-py 8.)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from .redis_link import DEFAULT_POOL_SIZE, blocking_pool

log = logging.getLogger("gotown.server.pubsub")


@dataclass(frozen=True)
class Notice:
    game_id: str
    version: int
    change: str  # "action" | "lobby" | "presence"
    origin: str = ""  # the publishing process (its PubSub's id)
    #: For an "action": the action that made ``version`` (its JSON, as stored), else None.
    action: dict[str, Any] | None = None
    #: The game's shared count of changes (:mod:`~gotown.server.redis_changes`) just before
    #: this change and just after it, when no other change was counted in between (else None):
    #: a process whose copy was checked at the first, and that applies this change, is checked
    #: at the second (its heartbeat then asks the database nothing).
    counts: tuple[int, int] | None = None

    def to_message(self) -> str:
        message: dict[str, Any] = {
            "game_id": self.game_id,
            "version": self.version,
            "change": self.change,
            "origin": self.origin,
        }
        if self.action is not None:
            message["action"] = self.action
        if self.counts is not None:
            message["counts"] = list(self.counts)
        return json.dumps(message)

    @classmethod
    def from_message(cls, message: str | bytes) -> Notice:
        data: dict[str, Any] = json.loads(message)
        action = data.get("action")
        counts = data.get("counts")
        return cls(
            str(data["game_id"]),
            int(data["version"]),
            str(data["change"]),
            str(data.get("origin", "")),
            action if isinstance(action, dict) else None,
            (int(counts[0]), int(counts[1])) if isinstance(counts, list) else None,
        )


def _channel(game_id: str) -> str:
    return f"gotown.game.{game_id}"


class PubSub:
    """Notices in this process (``memory://``) or through Redis. With Redis, publishing takes a
    connection of a pool of ``pool_size`` (waiting up to ``timeout`` seconds for one when all
    are busy, :func:`~gotown.server.redis_link.blocking_pool`); a notice that cannot be
    published is lost to the other processes, which catch up at their next presence heartbeat
    (:mod:`~gotown.server.services.presence`)."""

    def __init__(self, url: str, pool_size: int = DEFAULT_POOL_SIZE, timeout: float = 2.0) -> None:
        scheme = urlparse(url).scheme
        if scheme not in ("memory", "redis", "rediss"):
            raise ValueError(f"unsupported broadcast URL {url!r}: use memory:// or redis://")
        self.url = url
        self.pool_size = pool_size
        self.timeout = timeout
        self.id = secrets.token_hex(8)
        self._remote = scheme != "memory"
        self._queues: dict[str, set[asyncio.Queue[Notice]]] = {}
        self._unsubscribed: set[str] = set()  # channels whose SUBSCRIBE failed: retried
        self._redis: Any = None
        self._pubsub: Any = None
        self._subscriber: Any = None
        self._reader: asyncio.Task[None] | None = None
        #: (Un)subscribing one at a time: see :meth:`subscribe`.
        self._subscribing = asyncio.Lock()

    async def connect(self) -> None:
        if self._remote:
            from redis import asyncio as aioredis

            pool = blocking_pool(self.url, size=self.pool_size, timeout=self.timeout)
            # (the subscriber's own connection is not the pool's: it never times out reading)
            self._redis = aioredis.Redis.from_pool(pool)
            self._subscriber = aioredis.Redis.from_url(self.url)
            self._pubsub = self._subscriber.pubsub()
            self._reader = asyncio.get_running_loop().create_task(self._read())

    async def disconnect(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
            self._reader = None
        if self._pubsub is not None:
            await self._pubsub.aclose()
            await self._subscriber.aclose()
            await self._redis.aclose()
            self._pubsub = self._subscriber = self._redis = None

    async def publish(self, notice: Notice) -> None:
        if self._remote:
            try:
                await self._redis.publish(_channel(notice.game_id), notice.to_message())
            except Exception:
                # Redis is down: at least this process's sockets hear of the change.
                self._deliver(_channel(notice.game_id), notice)
                raise
        else:
            self._deliver(_channel(notice.game_id), notice)

    def deliver_locally(self, notice: Notice) -> None:
        """Hand a notice to this process's subscribers only (a change only this process saw)."""
        self._deliver(_channel(notice.game_id), notice)

    def _deliver(self, channel: str, notice: Notice) -> None:
        for queue in list(self._queues.get(channel, ())):
            queue.put_nowait(notice)

    async def _read(self) -> None:
        while True:
            try:
                if self._unsubscribed:
                    await self._retry_subscriptions()
                if not self._pubsub.subscribed:
                    await asyncio.sleep(0.05)
                    continue
                message = await self._pubsub.get_message(
                    ignore_subscribe_messages=True, timeout=1.0
                )
            except asyncio.CancelledError:
                raise
            except Exception:  # a broken connection: retry shortly
                log.exception("reading notices from %s failed", self.url)
                await asyncio.sleep(1.0)
                continue
            if message and message.get("type") == "message":
                channel = message["channel"]
                if isinstance(channel, bytes):
                    channel = channel.decode()
                self._deliver(channel, Notice.from_message(message["data"]))

    async def _retry_subscriptions(self) -> None:
        async with self._subscribing:
            for channel in list(self._unsubscribed):
                if channel in self._queues:
                    await self._pubsub.subscribe(channel)
                self._unsubscribed.discard(channel)

    @asynccontextmanager
    async def subscribe(self, game_id: str) -> AsyncIterator[AsyncIterator[Notice]]:
        """The notices of ``game_id`` while the context lasts.

        Subscriptions to Redis are made one at a time: redis-py's ``PubSub`` takes its
        connection at its first command, and several first commands at once (sockets opening
        together after a restart, or in a benchmark) each took a connection of their own, of
        which only the last is read: the channels subscribed on the others went on counting as
        heard (PUBLISH answered 2) while their notices were never read. With two processes
        and 1,000 games, one process lost 46 games' notices that way, each change then waiting
        for the heartbeat (p99 2.2 s from an action to the other seat's update)."""
        channel = _channel(game_id)
        queue: asyncio.Queue[Notice] = asyncio.Queue()
        first = not self._queues.get(channel)
        self._queues.setdefault(channel, set()).add(queue)
        if first and self._remote:
            try:
                async with self._subscribing:
                    await self._pubsub.subscribe(channel)
            except Exception:  # Redis is down: local notices still arrive; retried by the reader
                log.exception("cannot subscribe to %s on %s: will retry", channel, self.url)
                self._unsubscribed.add(channel)

        async def notices() -> AsyncIterator[Notice]:
            while True:
                yield await queue.get()

        try:
            yield notices()
        finally:
            queues = self._queues.get(channel, set())
            queues.discard(queue)
            if not queues:
                self._queues.pop(channel, None)
                self._unsubscribed.discard(channel)
                if self._remote and self._pubsub is not None:
                    with contextlib.suppress(Exception):
                        async with self._subscribing:
                            await self._pubsub.unsubscribe(channel)
