"""What the server's Redis users (presence, the rate limit) share: where a URL points, shown
without its password; connection options that fail fast; and the up/down state of the link,
so that an outage is logged once when it starts and once when it ends."""

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


class Link:
    """Whether Redis answered last time; each method tells whether the state just changed."""

    def __init__(self) -> None:
        self.healthy = True

    def failed(self) -> bool:
        """Redis did not answer: True when this starts an outage."""
        started, self.healthy = self.healthy, False
        return started

    def answered(self) -> bool:
        """Redis answered: True when this ends an outage."""
        ended, self.healthy = not self.healthy, True
        return ended
