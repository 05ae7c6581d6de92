"""The operator's side of one process: is it ready, what is it doing, how it stops, what it
deletes.

- **Ready** (``/readyz``): the database answers at this code's schema (its migration is the
  newest this code knows), Redis answers (with ``redis://``), and the process is not stopping.
  One check runs at a time, in a thread of its own, and its answer serves for a second: a
  flood of ``/readyz`` costs the database one query a second, and a database that hangs holds
  one thread, never the threads the games' queries run in.
- **Metrics** (:mod:`gotown.server.metrics`), and the operator port: with
  ``Settings.operator_port``, a listener of its own that serves ``/metrics``, ``/healthz`` and
  ``/readyz`` only, with no token (HTTP/1.1, one request per connection).
- **Stopping** (SIGTERM): the server stops accepting connections, closes every WebSocket with
  the close code 1012 ("service restart", the page reconnects at once, through the proxy to
  another process) and waits for the requests under way (uvicorn, up to ``shutdown_seconds``);
  then :meth:`Operations.drain` lets the bots' moves under way finish and be stored (up to
  ``shutdown_seconds`` again) before the services close. A move stored is told to the other
  processes, whose sockets carry it on. Nothing acknowledged is lost: every action is stored
  before it is answered.
- **Retention** (:mod:`gotown.server.retention`): every hour, the games kept long enough are
  deleted.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from . import metrics, retention
from .clock import Clock
from .config import Settings
from .storage import Store
from .storage_admin import head_revision, schema_revision

if TYPE_CHECKING:
    from .services import GameService

log = logging.getLogger("gotown.server")

#: How long a readiness check may take before it counts as "no answer".
READY_TIMEOUT = 2.0
#: How long one readiness answer serves.
READY_CACHE_SECONDS = 1.0
#: How often the drain looks whether the bots' moves under way have ended.
DRAIN_POLL_SECONDS = 0.05
#: Retention: the first pass this long after the start, then one every hour.
RETENTION_FIRST_SECONDS = 60.0
RETENTION_EVERY_SECONDS = 3600.0


@dataclass(frozen=True)
class Readiness:
    ready: bool
    checks: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"ready": self.ready, "checks": self.checks}


class Operations:
    """Readiness, metrics, the operator port, retention and the drain of one process."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        service: GameService,
        clock: Clock | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.service = service
        self.clock = clock or Clock()  # (the server's, when it is given one: tests move it)
        self.stopping = False
        self.metrics = metrics.registry_for(service, lambda: self.stopping)
        self._checker = concurrent.futures.ThreadPoolExecutor(1, "gotown-ready")
        self._answer: tuple[float, Readiness] | None = None
        self._checking: asyncio.Future[Readiness] | None = None
        self._redis: Any = None
        if urlparse(settings.broadcast_url).scheme in ("redis", "rediss"):
            from .redis_link import blocking_pool

            self._redis = blocking_pool(settings.broadcast_url, size=1, timeout=READY_TIMEOUT)
        self._server: asyncio.Server | None = None
        self._sweeper: asyncio.Task[None] | None = None

    # --- the process's life --------------------------------------------------------------------

    async def start(self) -> None:
        """Open the operator port (an error naming it when it cannot listen) and start the
        retention sweeps (when a retention is set)."""
        if self.settings.operator_port:
            host, port = self.settings.operator_host, self.settings.operator_port
            try:
                self._server = await asyncio.start_server(
                    self._serve_operator, host, port, limit=16_384
                )
            except OSError as exc:
                raise OSError(
                    f"the operator port cannot listen on {host}:{port} (GOTOWN_OPERATOR_HOST, "
                    f"GOTOWN_OPERATOR_PORT): {exc.strerror or exc}; each process needs a port "
                    "of its own"
                ) from exc
            log.info("operator port: /metrics, /healthz and /readyz on %s:%d", host, port)
        if self.settings.retention_days or self.settings.abandoned_days:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    async def drain(self) -> None:
        """The stop's second half (the server has closed its sockets and answered its requests):
        no bot starts a new move, the moves under way finish and are stored, for at most
        ``shutdown_seconds``; those still thinking then are dropped (nothing was acknowledged:
        their tables resume at the next start, or on another process)."""
        self.stopping = True
        registry, bots = self.service.registry, self.service.bots
        registry.closing = True  # (bots start no new move; Bots.kick does nothing)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settings.shutdown_seconds
        busy = [live for live in registry.games() if bots.is_playing(live)]
        if busy:
            log.info("stopping: %d tables' bots finish their moves", len(busy))
        while busy and loop.time() < deadline:
            await asyncio.sleep(DRAIN_POLL_SECONDS)
            busy = [live for live in busy if bots.is_playing(live)]
        if busy:
            log.warning(
                "stopping: the bots of %d tables still think after %g s: their moves are "
                "dropped (nothing of them was stored)",
                len(busy),
                self.settings.shutdown_seconds,
            )

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        if self._redis is not None:
            await self._redis.aclose()
        self._checker.shutdown(wait=False, cancel_futures=True)

    # --- readiness -----------------------------------------------------------------------------

    async def readiness(self) -> Readiness:
        """Whether this process should be sent requests (see the module's docstring)."""
        if self.stopping:
            return Readiness(False, {"process": "stopping"})
        now = time.monotonic()
        if self._answer is not None and now - self._answer[0] < READY_CACHE_SECONDS:
            return self._answer[1]
        if self._checking is None or self._checking.done():
            self._checking = asyncio.ensure_future(self._check())
        answer = await asyncio.shield(self._checking)
        self._answer = (time.monotonic(), answer)
        return answer

    async def _check(self) -> Readiness:
        checks: dict[str, str] = {}
        ready = True
        loop = asyncio.get_running_loop()
        try:
            revision = await asyncio.wait_for(
                loop.run_in_executor(self._checker, schema_revision, self.store), READY_TIMEOUT
            )
        except Exception as exc:
            metrics.database_error()
            log.warning("readiness: the database does not answer: %r", exc)
            checks["database"] = f"no answer ({type(exc).__name__})"
            ready = False
        else:
            checks["database"] = "ok"
            head = head_revision()
            if revision == head:
                checks["migrations"] = f"ok ({head})"
            else:
                ready = False
                checks["migrations"] = (
                    f"the database is at {revision or 'no migration'}, this server's schema is "
                    f"{head} (gotown admin migrate)"
                )
        if self._redis is not None:
            from redis.asyncio import Redis

            client = Redis(connection_pool=self._redis)
            try:
                await asyncio.wait_for(client.ping(), READY_TIMEOUT)
                checks["redis"] = "ok"
            except Exception as exc:
                metrics.redis_error()
                log.warning("readiness: Redis does not answer: %r", exc)
                checks["redis"] = f"no answer ({type(exc).__name__})"
                ready = False
        return Readiness(ready, checks)

    # --- the operator port ---------------------------------------------------------------------

    async def _serve_operator(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        """One request on the operator port: GET /metrics, /healthz or /readyz."""
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            method, target, _version = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ", 2)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError):
            writer.close()
            return
        path = target.split("?", 1)[0]
        status, kind, body = 404, "text/plain; charset=utf-8", b"not found\n"
        if method not in ("GET", "HEAD"):
            status, body = 405, b"GET only\n"
        elif path == "/metrics":
            status, kind, body = 200, metrics.CONTENT_TYPE, metrics.render(self.metrics)
        elif path == "/healthz":
            status, kind, body = 200, "application/json", b'{"ok":true}'
        elif path == "/readyz":
            answer = await self.readiness()
            status, kind = (200 if answer.ready else 503), "application/json"
            body = json.dumps(answer.to_json()).encode()
        reason = {200: "OK", 404: "Not Found", 405: "Method Not Allowed"}.get(status, "Unavailable")
        writer.write(
            f"HTTP/1.1 {status} {reason}\r\nContent-Type: {kind}\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode("latin-1")
        )
        if method != "HEAD":
            writer.write(body)
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        writer.close()

    # --- retention -----------------------------------------------------------------------------

    async def _sweep(self) -> None:
        await self.clock.sleep(RETENTION_FIRST_SECONDS)
        while True:
            try:
                deleted = await self.service.registry.db(
                    retention.purge, self.store, self.settings, self.clock.now()
                )
                for game_id in deleted:
                    self.service.registry.drop(game_id)
            except Exception:
                log.exception("retention: cannot delete the expired games now")
            await self.clock.sleep(RETENTION_EVERY_SECONDS)
