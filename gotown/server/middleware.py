"""Small ASGI middlewares: a cap on request bodies and a per-client request rate limit."""

from __future__ import annotations

import json
import time
from collections import deque
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send


async def _send_error(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


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


class RateLimitMiddleware:
    """At most ``per_minute`` API requests per client address in any 60-second window."""

    def __init__(self, app: ASGIApp, per_minute: int, prefix: str = "/api/") -> None:
        self.app = app
        self.per_minute = per_minute
        self.prefix = prefix
        self._hits: dict[str, deque[float]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            self.per_minute <= 0
            or scope["type"] != "http"
            or not str(scope.get("path", "")).startswith(self.prefix)
        ):
            await self.app(scope, receive, send)
            return
        client: Any = scope.get("client")
        key = str(client[0]) if client else "?"
        now = time.monotonic()
        hits = self._hits.setdefault(key, deque())
        while hits and now - hits[0] > 60:
            hits.popleft()
        if len(hits) >= self.per_minute:
            await _send_error(
                send,
                429,
                "too-many-requests",
                f"more than {self.per_minute} requests in a minute: wait a moment",
            )
            return
        hits.append(now)
        if len(self._hits) > 10_000:  # forget idle clients
            for k in [k for k, v in self._hits.items() if not v or now - v[-1] > 60]:
                del self._hits[k]
        await self.app(scope, receive, send)
