"""What the routes get injected: the service, the seat's token, the client's address, the base
URL; and the error responses every route documents.

Each is a coroutine function, though none awaits anything: FastAPI runs a plain function
dependency in a worker thread, a thread hop per dependency per request."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Header, Request

from .. import schemas
from ..services import GameService

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": schemas.ErrorOut} for code in (400, 401, 403, 404, 409, 413, 422, 429, 503)
}


async def client_address(request: Request) -> str:
    """The client's address, as the rate limit counts it (uvicorn's, see the README)."""
    return request.client.host if request.client else "?"


async def get_service(request: Request) -> GameService:
    service: GameService = request.app.state.service
    return service


async def seat_token(
    x_seat_token: Annotated[str | None, Header(description="the seat's secret token")] = None,
    authorization: Annotated[str | None, Header(include_in_schema=False)] = None,
) -> str | None:
    if x_seat_token:
        return x_seat_token
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return None


async def base_url(request: Request) -> str:
    return str(request.base_url).rstrip("/")


Service = Annotated[GameService, Depends(get_service)]
Token = Annotated[str | None, Depends(seat_token)]
Client = Annotated[str, Depends(client_address)]
BaseUrl = Annotated[str, Depends(base_url)]
