"""The application factory: ``create_app(settings)``; nothing happens at import time."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.resources import files
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

from . import errors, schemas
from .api import router, ws_router
from .errors import NotFoundError
from .middleware import ApiRateLimit, BodyLimitMiddleware, RateLimitMiddleware
from .pubsub import PubSub
from .service import BOTS_ONLY_TURN_LIMIT, GameService
from .settings import Settings
from .storage import Store

STATIC_DIR = Path(str(files("gotown.server") / "static"))


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    # Counted where the notices travel: in this process, or in the Redis every process shares.
    rate_limit = ApiRateLimit(settings.rate_limit_per_minute, settings.broadcast_url)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = Store(settings.database_url)
        await asyncio.to_thread(store.migrate)
        pubsub = PubSub(settings.broadcast_url)
        await pubsub.connect()
        service = GameService(settings, store, pubsub)
        app.state.service = service
        await service.start()
        try:
            yield
        finally:
            await service.close()
            await pubsub.disconnect()
            await rate_limit.close()
            store.dispose()

    app = FastAPI(
        title="GoTown web table",
        version="0.1.0",
        description=(
            "Play GoTown in the browser. Each seat has a secret token (header `X-Seat-Token`); "
            "without a token you see the public view. Live updates: WebSocket `/ws/games/{id}`."
            "\n\nEvery game has an end: one created with `turn_limit` null gets the server's "
            f"ceiling ({schemas.MAX_TURN_LIMIT} turns with a person's seat, "
            f"{BOTS_ONLY_TURN_LIMIT} without), and the server ends it when that turn ends, with "
            "no winner (R23). Requests to `/api/...` and WebSocket connections count against one "
            "budget per client address (429 `too-many-requests`; a socket over it gets that "
            "error and the close code 4429)."
        ),
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.add_middleware(RateLimitMiddleware, limit=rate_limit)
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)

    errors.install(app)
    app.include_router(router)
    app.include_router(ws_router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    index = STATIC_DIR / "index.html"

    def page() -> FileResponse:
        return FileResponse(index, media_type="text/html", headers={"Cache-Control": "no-cache"})

    # One page serves home, join, table, watch and replay: the script reads the path.
    for path in ("/", "/j/{code}", "/g/{game_id}", "/w/{game_id}", "/r/{game_id}"):
        app.add_api_route(path, page, methods=["GET"], include_in_schema=False)

    @app.get("/rules", include_in_schema=False)
    async def rules_default(request: Request) -> RedirectResponse:
        lang = preferred_language(request.headers.get("accept-language", ""))
        return RedirectResponse(f"/rules/{lang}", headers={"Vary": "Accept-Language"})

    @app.get("/rules/{lang}", include_in_schema=False)
    async def rules(lang: str) -> Response:
        if lang not in schemas.LANGUAGES:
            raise NotFoundError("unknown-language", f"no rules page in {lang!r}")
        return FileResponse(STATIC_DIR / "rules" / f"{lang}.html", media_type="text/html")

    @app.get("/healthz", include_in_schema=False)
    async def health() -> dict[str, Any]:
        return {"ok": True}

    return app


def create_app_from_env() -> FastAPI:
    """Factory for uvicorn (``--factory``): settings from the environment."""
    return create_app(Settings.from_env())


def preferred_language(accept_language: str) -> str:
    """The first language of an Accept-Language header (by its q weights, then its order)
    that the table speaks (:data:`schemas.LANGUAGES`), else English."""
    choices: list[tuple[float, int, str]] = []
    for index, part in enumerate(accept_language.split(",")[:32]):
        tag, _, params = part.strip().partition(";")
        weight = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        code = tag.strip().split("-")[0].lower()  # the primary subtag: "csb" is not "cs"
        if weight > 0 and code in schemas.LANGUAGES:
            choices.append((-weight, index, code))
    return min(choices)[2] if choices else "en"
