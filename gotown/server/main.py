"""The application factory: ``create_app(settings)``; nothing happens at import time."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from . import errors, gcwatch, logs, metrics, schemas
from .api import openapi, socket
from .api.routes import (
    advice,
    circles,
    games,
    health,
    lessons,
    meta,
    pages,
    players,
    review,
    seats,
)
from .clock import Clock
from .config import Settings
from .middleware import (
    ApiRateLimit,
    BodyLimitMiddleware,
    RateLimitMiddleware,
    SecurityHeadersMiddleware,
)
from .operations import Operations
from .pubsub import PubSub
from .services import GameService
from .services.bots import BOTS_ONLY_TURN_LIMIT
from .storage import Store, sqlite_write_problem

#: The server's general log under uvicorn (where it says it started and stopped): the
#: garbage collector's pauses are said there when the server stops.
gc_log = logging.getLogger("uvicorn.error")

DESCRIPTION = (
    "Play GoTown in the browser. Each seat has a secret token (header `X-Seat-Token`); "
    "without a token you see the public view. Live updates: WebSocket `/ws/games/{id}`."
    "\n\nEvery game has an end: one created with `turn_limit` null gets the server's "
    f"ceiling ({schemas.MAX_TURN_LIMIT} turns with a person's seat, "
    f"{BOTS_ONLY_TURN_LIMIT} without), and the server ends it when that turn ends, with "
    "no winner (R23); a turn that ends where nothing can ever change ends it too, a "
    "stalemate with no winner (R20b, the view's `reason`). Requests to `/api/...` and "
    "WebSocket connections count against one budget per client address (429 "
    "`too-many-requests`; a socket over it gets that error and the close code 4429)."
)


def create_app(settings: Settings | None = None, clock: Clock | None = None) -> FastAPI:
    """The web table's app; ``clock``: the server's one clock (:mod:`.clock`; tests move it)."""
    settings = settings or Settings.from_env()
    clock = clock or Clock(settings.clock_offset)
    # Counted where the notices travel: in this process, or in the Redis every process shares.
    rate_limit = ApiRateLimit(
        settings.rate_limit_per_minute, settings.broadcast_url, pool_size=settings.redis_pool_size
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        problem = sqlite_write_problem(settings.database_url)
        if problem is not None:  # (SQLite would only say "unable to open database file")
            raise RuntimeError(problem)
        store = Store(settings.database_url, settings.sqlite_synchronous)
        await asyncio.to_thread(store.migrate)
        pubsub = PubSub(settings.broadcast_url, settings.redis_pool_size)
        await pubsub.connect()
        service = GameService(settings, store, pubsub, clock)
        app.state.service = service
        await service.start()
        operations = app.state.operations = Operations(settings, store, service, clock)
        await operations.start()
        gcwatch.settle()
        watch = gcwatch.GcWatch()
        watch.install()
        try:
            yield
        finally:
            await operations.drain()  # (the bots' moves under way are stored)
            watch.remove()
            gc_log.info("%s", watch.summary())
            await service.close()
            await pubsub.disconnect()
            await rate_limit.close()
            await operations.close()
            store.dispose()

    app = FastAPI(
        title="GoTown web table",
        version="0.1.0",
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # (served offline by openapi.install)
        redoc_url=None,  # (ReDoc loads from a CDN: /docs is the documentation)
    )
    app.state.settings = settings
    app.add_middleware(RateLimitMiddleware, limit=rate_limit)
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)
    app.add_middleware(SecurityHeadersMiddleware)  # (outside them: on the refusals too)
    app.add_middleware(metrics.RequestMetrics)  # (outermost: every answer counted)
    logs.install()
    errors.install(app)
    openapi.install(app)
    for routes in (health, meta, games, advice, review, seats, lessons, players, circles):
        app.include_router(routes.router)
    app.include_router(players.links_router)
    app.include_router(socket.router)
    # (The versioned address first: "/static" would take it otherwise.)
    static = pages.STATIC_DIR
    app.mount(pages.versioned_prefix(), pages.static_files(static, immutable=True))
    app.mount("/static", pages.static_files(static, immutable=False), name="static")
    app.include_router(pages.router)
    return app


def create_app_from_env() -> FastAPI:
    """Factory for uvicorn (``--factory``): settings from the environment."""
    return create_app(Settings.from_env())
