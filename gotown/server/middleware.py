"""Small ASGI middlewares: security headers, a cap on request bodies and a per-client request
rate limit (API requests and WebSocket connections)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import time
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlparse

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .redis_link import DEFAULT_POOL_SIZE, Link, blocking_pool, location

if TYPE_CHECKING:  # (imported when first used: the redis package alone took half a second)
    from limits import RateLimitItem
    from limits.aio.storage import MemoryStorage, RedisStorage
    from limits.aio.strategies import MovingWindowRateLimiter

log = logging.getLogger("gotown.server.middleware")


async def _send_error(
    send: Send,
    status: int,
    code: str,
    message: str,
    headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


#: The page's Content-Security-Policy. Its script and style come from this site only (no inline
#: script, no ``<style>``, no ``style`` attribute: the page sizes and moves things through
#: ``element.style``, which a policy does not govern); images from this site (the
#: invitation's QR code) or ``data:`` (the empty icon); the web app manifest, the socket and
#: the API from this site (``'self'`` covers ``ws:``/``wss:`` to the same host, CSP level 3);
#: never in a frame (against clickjacking, with X-Frame-Options for
#: older browsers).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; manifest-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)

#: Sent with every HTTP answer.
SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
]


class SecurityHeadersMiddleware:
    """Add :data:`SECURITY_HEADERS` to every HTTP answer, and the
    :data:`CONTENT_SECURITY_POLICY` to every one that does not state a policy of its own (the
    API documentation's page admits its inline script by hash)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.policy = (b"content-security-policy", CONTENT_SECURITY_POLICY.encode())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", ()), *SECURITY_HEADERS]
                if not any(name.lower() == self.policy[0] for name, _ in headers):
                    headers.append(self.policy)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class BodyLimitMiddleware:
    """Refuse request bodies larger than ``max_bytes`` with 413, before any route sees them."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        too_big = f"the request body is larger than {self.max_bytes} bytes"
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None:
            try:
                declared = int(length)
            except ValueError:
                await _send_error(send, 400, "bad-request", "Content-Length is not a number")
                return
            if declared > self.max_bytes:
                await _send_error(send, 413, "body-too-large", too_big)
                return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await _send_error(send, 413, "body-too-large", too_big)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class ApiRateLimit:
    """The request budget of each client address: at most ``per_minute`` requests in any
    60-second window (``per_minute <= 0``: no limit).

    It is the `limits` library's moving-window strategy
    (:class:`limits.aio.strategies.MovingWindowRateLimiter`): exact, unlike a fixed window (twice
    the rate across a window's edge) or the sliding-window counter (an estimate), and it tells
    when the oldest request leaves the window, which becomes the 429's ``Retry-After``. The
    counts are kept where ``storage_url`` says, the same URL as the pub/sub's:

    - ``memory://``: in this process (:class:`limits.aio.storage.MemoryStorage`);
    - ``redis://`` / ``rediss://``: in that Redis (:class:`limits.aio.storage.RedisStorage`
      through redis-py's asyncio client, ``implementation="redispy"``), so that every process
      sharing the Redis shares each address's budget. A Redis list per address and limit, of
      the times of its last ``per_minute`` requests, under
      ``{key_prefix}:api/{address}/{per_minute}/1/minute``, expiring 60 s after the address's
      last request. The times are the processes' wall clocks: processes on several hosts need
      synchronised clocks.

    A Redis outage fails open: :meth:`hit` never raises, and while Redis does not answer every
    request is served without a limit (the site stays up; abuse is not counted meanwhile). The
    outage is logged once, as an error, when it starts, and once, as a warning, when Redis
    answers again; in between Redis is tried again at most every ``outage_retry`` seconds (the
    requests in between do not wait on it), each try bounded by ``timeout`` seconds (and one
    immediate retry, for a connection Redis dropped). At most ``pool_size`` connections are
    open at once; a request finding them all busy waits for one (up to ``timeout``).
    """

    WINDOW = 60
    """Seconds."""

    def __init__(
        self,
        per_minute: int,
        storage_url: str = "memory://",
        *,
        key_prefix: str = "gotown.ratelimit",
        timeout: float = 1.0,
        outage_retry: float = 5.0,
        pool_size: int = DEFAULT_POOL_SIZE,
    ) -> None:
        parsed = urlparse(storage_url)
        if parsed.scheme not in ("memory", "redis", "rediss"):
            raise ValueError(f"unsupported rate-limit storage {storage_url!r}: memory or redis")
        self.item: RateLimitItem | None = None
        if per_minute > 0:
            from limits import RateLimitItemPerMinute

            self.item = RateLimitItemPerMinute(per_minute, namespace="api")
        self.per_minute = per_minute
        self.url = storage_url
        self.where = location(storage_url)
        self.key_prefix = key_prefix
        self.timeout = timeout
        self.outage_retry = outage_retry
        self.pool_size = pool_size
        self._remote = parsed.scheme != "memory"
        self._limiter: MovingWindowRateLimiter | None = None
        self._memory: MemoryStorage | None = None
        self._pool: Any = None  # redis.asyncio.ConnectionPool, ours to close
        self._link = Link()
        self._next_try = 0.0  # while Redis is down: monotonic time of the next try

    @property
    def enabled(self) -> bool:
        return self.item is not None

    def _open(self) -> MovingWindowRateLimiter:
        """The limiter, made on first use (in the server's event loop)."""
        if self._limiter is None:
            from limits.aio.storage import MemoryStorage, RedisStorage
            from limits.aio.strategies import MovingWindowRateLimiter

            storage: RedisStorage | MemoryStorage
            if self._remote:
                # Our own pool, to close it with the app (limits' storage has no close); fail
                # fast: a request must not hang on an outage; at most ``pool_size``
                # connections, more requests waiting (up to ``timeout``) for one.
                self._pool = blocking_pool(self.url, size=self.pool_size, timeout=self.timeout)
                storage = RedisStorage(
                    f"async+{self.url}",
                    implementation="redispy",
                    key_prefix=self.key_prefix,
                    connection_pool=cast(Any, self._pool),  # typed there as float | str | bool
                )
            else:
                storage = self._memory = MemoryStorage()
            self._limiter = MovingWindowRateLimiter(storage)
        return self._limiter

    async def hit(self, client: str) -> int | None:
        """Count a request of ``client``: None when it may go on, else the whole seconds (at
        least 1) until its window has room again. Never raises (see the class's docstring)."""
        if self.item is None:
            return None
        if not self._link.healthy and time.monotonic() < self._next_try:
            return None  # Redis is down: fail open without waiting on it
        limiter = self._open()
        try:
            if await limiter.hit(self.item, client):
                self._answered()
                return None
        except Exception as exc:
            self._failed(exc)
            return None
        self._answered()
        try:
            reset = (await limiter.get_window_stats(self.item, client)).reset_time
        except Exception as exc:  # refused all the same; the window's length is an upper bound
            self._failed(exc)
            return self.WINDOW
        return min(self.WINDOW, max(1, math.ceil(reset - time.time())))

    async def close(self) -> None:
        """Let go of the connections (and of the in-memory counts); usable again after."""
        if self._pool is not None:
            with contextlib.suppress(Exception):
                await self._pool.aclose()
        if self._memory is not None and self._memory.timer is not None:
            self._memory.timer.cancel()  # its expiry sweep (it returns when cancelled)
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._memory.timer
        self._limiter = self._memory = self._pool = None

    def _failed(self, exc: BaseException) -> None:
        self._next_try = time.monotonic() + self.outage_retry
        error = f"{type(exc).__name__}: {exc}"
        if self._link.failed():
            # A traceback only for what is not an outage (a bug would otherwise hide here).
            from redis.exceptions import RedisError

            expected = isinstance(exc, (RedisError, OSError, asyncio.TimeoutError))
            log.error("cannot count requests in Redis for the rate limit (%s): %s; API "
                      "requests are served without a limit until it answers",
                      self.where, error, exc_info=None if expected else exc)  # fmt: skip
        else:
            log.debug("Redis still does not answer for the rate limit: %s", error)

    def _answered(self) -> None:
        if self._link.answered():
            log.warning("Redis answers again for the rate limit (%s): requests are limited "
                        "again", self.where)  # fmt: skip


#: The close code of a WebSocket refused by the rate limit (4000 + the HTTP status, as the
#: socket's other refusals).
WS_TOO_MANY = 4429


class RateLimitMiddleware:
    """At most ``limit.per_minute`` API requests (paths under ``prefix``) and WebSocket
    connections (paths under ``ws_prefix``) together per client address in any 60-second
    window. A request more gets 429 ``too-many-requests`` with a ``Retry-After`` header; a
    socket more is accepted, sent that error (``{"type": "error", "error": {...}}``) and closed
    with the code 4429, its reason saying when to try again. Pages and static files are not
    counted, nor the messages of an open socket (they have a limit per connection). See
    :class:`ApiRateLimit` for where the counts live and what a Redis outage does (fail open)."""

    def __init__(
        self, app: ASGIApp, limit: ApiRateLimit, prefix: str = "/api/", ws_prefix: str = "/ws/"
    ) -> None:
        self.app = app
        self.limit = limit
        self.prefix = prefix
        self.ws_prefix = ws_prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        counted = (scope["type"] == "http" and path.startswith(self.prefix)) or (
            scope["type"] == "websocket" and path.startswith(self.ws_prefix)
        )
        if not self.limit.enabled or not counted:
            await self.app(scope, receive, send)
            return
        client: Any = scope.get("client")
        wait = await self.limit.hit(str(client[0]) if client else "?")
        if wait is None:
            await self.app(scope, receive, send)
            return
        message = (
            f"more than {self.limit.per_minute} requests and connections in a minute: wait {wait} s"
        )
        if scope["type"] == "http":
            await _send_error(
                send,
                429,
                "too-many-requests",
                message,
                headers=[(b"retry-after", str(wait).encode())],
            )
            return
        # A socket: accepted only to say why it closes (a refusal before the handshake is an
        # HTTP 403 that a browser does not show).
        if (await receive())["type"] != "websocket.connect":
            return
        error = {"type": "error", "error": {"code": "too-many-requests", "message": message}}
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.send", "text": json.dumps(error)})
        await send({"type": "websocket.close", "code": WS_TOO_MANY, "reason": message})
