"""A count of the changes to each game, shared by the processes through Redis: what lets a
process tell, with one Redis read, whether a game it holds may have changed in the database
without its notice reaching it.

Every write to a game's record is counted *before* it is made and again after it
(:meth:`ChangeCounts.mark`, an ``INCR``; see ``Registry.write``): a process that dies between its
write and its notice has still moved the count, so the others check the database at their next
heartbeat and find the change; and a heartbeat that read the count between the first mark and
the commit (finding nothing yet) sees it move once more. A process keeps, for
each game it holds, the count it last checked the database at; while the count is the same,
its heartbeat asks the database nothing (an idle game costs no query), and a change costs one
check. When Redis does not answer, the count is unknown (None) and the heartbeat checks the
database as before; a mark that could not be written is written again (every second, by
:meth:`ChangeCounts.retry`) until Redis answers, so that a change made during an outage is
still found at a heartbeat after it. A count expires a day after its last change; a count that
has expired reads 0, which differs from the one kept, so the game is checked once more.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from .redis_link import DEFAULT_POOL_SIZE, Link, blocking_pool, location

log = logging.getLogger("gotown.server.changes")

KEEP_SECONDS = 86_400
"""A count expires this long after the game's last change."""


def changes_key(game_id: str) -> str:
    return f"gotown.changes.{game_id}"


class ChangeCounts:
    """The shared counts (see the module's docstring); ``url`` None: one process, nothing
    counted (its memory is always current)."""

    def __init__(
        self, url: str | None, *, timeout: float = 2.0, pool_size: int = DEFAULT_POOL_SIZE
    ) -> None:
        self.url = url
        self.where = location(url) if url else "-"
        self._redis: Any = None
        if url is not None:
            from redis import asyncio as aioredis

            self._redis = aioredis.Redis.from_pool(
                blocking_pool(url, size=pool_size, timeout=timeout)
            )
        self._unwritten: set[str] = set()
        self._link = Link()

    async def close(self) -> None:
        if self._redis is not None:
            with contextlib.suppress(Exception):
                await self._redis.aclose()

    async def mark(self, game_id: str) -> int | None:
        """Count a change about to be written, and answer the count after it (None: not
        counted; never raises: an unwritten mark is retried)."""
        if self._redis is None:
            return None
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.incr(changes_key(game_id))
                pipe.expire(changes_key(game_id), KEEP_SECONDS)
                count, _ = await pipe.execute()
        except Exception as exc:
            self._unwritten.add(game_id)
            self._failed(exc)
            return None
        self._answered()
        return int(count)

    async def read(self, game_id: str) -> int | None:
        """The game's count, or None when Redis does not answer (then check the database)."""
        if self._redis is None:
            return None
        try:
            value = await self._redis.get(changes_key(game_id))
        except Exception as exc:
            self._failed(exc)
            return None
        self._answered()
        return int(value or 0)

    async def retry(self) -> None:
        """Write again the marks that Redis did not take."""
        for game_id in list(self._unwritten):
            self._unwritten.discard(game_id)
            await self.mark(game_id)  # (back in the set if it fails again)

    @property
    def unwritten(self) -> int:
        return len(self._unwritten)

    def _failed(self, exc: BaseException) -> None:
        if self._link.failed():
            log.error("cannot count changes in Redis (%s): %r; processes check the database "
                      "at every heartbeat until it answers", self.where, exc)  # fmt: skip
        else:
            log.debug("cannot count changes in Redis: %r", exc)

    def _answered(self) -> None:
        if self._link.answered():
            log.warning("Redis answers again for the counts of changes (%s)", self.where)
