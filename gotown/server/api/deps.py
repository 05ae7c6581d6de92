"""What the routes get injected: the service, the seat's token, the client's address, the base
URL; and the error responses every route documents.

Each is a coroutine function, though none awaits anything: FastAPI runs a plain function
dependency in a worker thread, a thread hop per dependency per request."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Header, Request

from .. import schemas
from ..errors import UnauthenticatedError
from ..services import GameService
from ..services.players import PlayerSeat
from ..storage_people import KeyHolder

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": schemas.ErrorOut} for code in (400, 401, 403, 404, 409, 410, 413, 422, 429, 503)
}


async def client_address(request: Request) -> str:
    """The client's address, as the rate limit counts it (uvicorn's, see the README)."""
    return request.client.host if request.client else "?"


async def get_service(request: Request) -> GameService:
    service: GameService = request.app.state.service
    return service


async def player_key(
    x_player_key: Annotated[
        str | None, Header(description="a device's player key (instead of a seat's token)")
    ] = None,
) -> str | None:
    return x_player_key or None


async def seat_token(
    request: Request,
    x_seat_token: Annotated[str | None, Header(description="the seat's secret token")] = None,
    authorization: Annotated[str | None, Header(include_in_schema=False)] = None,
    key: Annotated[str | None, Depends(player_key)] = None,
) -> str | None:
    """The seat's token; or, without one, the player of the device's key (their seat at the
    table is theirs: :class:`~gotown.server.services.players.PlayerSeat`)."""
    if x_seat_token:
        return x_seat_token
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    if key:
        service: GameService = request.app.state.service
        holder = await service.players.holder(key)
        assert holder is not None
        return PlayerSeat(holder.player_id)
    return None


async def maybe_key_holder(
    request: Request, key: Annotated[str | None, Depends(player_key)] = None
) -> KeyHolder | None:
    """The player of the device's key, when one is sent (a seat taken is then theirs)."""
    if not key:
        return None
    service: GameService = request.app.state.service
    return await service.players.holder(key)


async def key_holder(
    request: Request, key: Annotated[str | None, Depends(player_key)] = None
) -> KeyHolder:
    """The player of the device's key; 401 ``missing-key`` without one."""
    if not key:
        raise UnauthenticatedError("missing-key", "this needs your device's player key")
    service: GameService = request.app.state.service
    holder = await service.players.holder(key)
    assert holder is not None
    return holder


async def base_url(request: Request) -> str:
    return str(request.base_url).rstrip("/")


Service = Annotated[GameService, Depends(get_service)]
Token = Annotated[str | None, Depends(seat_token)]
Holder = Annotated[KeyHolder, Depends(key_holder)]
MaybeHolder = Annotated[KeyHolder | None, Depends(maybe_key_holder)]
Client = Annotated[str, Depends(client_address)]
BaseUrl = Annotated[str, Depends(base_url)]
