"""What the server's Redis users (the notices, presence, the rate limit) share: where a URL
points, shown without its password; connection options that fail fast; a bounded pool of
connections; and the up/down state of the link, so that an outage is logged once when it
starts and once when it ends."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse


def location(url: str) -> str:
    """``host:port/db`` of a Redis URL, for logs (never its password)."""
    parsed = urlparse(url)
    return f"{parsed.hostname}:{parsed.port or 6379}{parsed.path}"


def fail_fast(timeout: float) -> dict[str, Any]:
    """redis-py connection options: ``timeout`` seconds per try, and one immediate retry (for a
    connection Redis dropped), so that no request hangs on an outage."""
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff

    return {
        "socket_timeout": timeout,
        "socket_connect_timeout": timeout,
        "retry": Retry(NoBackoff(), 1),
    }


DEFAULT_POOL_SIZE = 16
"""Connections each Redis user of a process may open at once (``redis_pool_size``)."""


def blocking_pool(url: str, *, size: int = DEFAULT_POOL_SIZE, timeout: float) -> Any:
    """A pool of at most ``size`` connections to ``url`` that, when they are all in use, waits
    up to ``timeout`` seconds for one to come back (then ``ConnectionError``), rather than
    failing at once as redis-py's default pool does (``Too many connections``: a burst of
    notices or presence writes would be lost). Each connection fails fast (:func:`fail_fast`).
    The caller closes it (``await pool.aclose()``)."""
    from redis.asyncio import BlockingConnectionPool

    return BlockingConnectionPool.from_url(
        url, max_connections=size, timeout=timeout, **fail_fast(timeout)
    )


class Link:
    """Whether Redis answered last time; each method tells whether the state just changed."""

    def __init__(self) -> None:
        self.healthy = True

    def failed(self) -> bool:
        """Redis did not answer: True when this starts an outage."""
        from .metrics import redis_error  # (counted for the operator: /metrics)

        redis_error()
        started, self.healthy = self.healthy, False
        return started

    def answered(self) -> bool:
        """Redis answered: True when this ends an outage."""
        ended, self.healthy = not self.healthy, True
        return ended
