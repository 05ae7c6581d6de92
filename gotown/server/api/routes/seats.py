"""``/api/games/{id}/seats/{seat}/bot`` and ``/reclaim``: hand a seat to a bot, take it back."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from ... import schemas
from ..deps import ERRORS, BaseUrl, Client, Service, Token

router = APIRouter(prefix="/api")


@router.post("/games/{game_id}/seats/{seat}/bot", response_model=schemas.LobbyOut, responses=ERRORS)
async def hand_to_bot(
    game_id: str,
    seat: int,
    base: BaseUrl,
    service: Service,
    token: Token,
    client: Client,
    body: schemas.HandOverIn | None = None,
) -> schemas.LobbyOut:
    """Hand a seat to a bot: a free seat, your own, or one whose player stays away. One that
    leaves no person at the table makes it a table of bots only: 429 `too-many-bot-tables`
    (and nothing changes) while as many as the server allows are playing."""
    level = body.level if body else "medium"
    await service.seats.hand_to_bot(game_id, token, seat, level, client)
    return await service.seat_states.lobby_of(game_id, base, token)


@router.post("/games/{game_id}/reclaim", status_code=204, responses=ERRORS)
async def reclaim(game_id: str, service: Service, token: Token) -> Response:
    """Take your seat back from the bot that played it while you were away."""
    await service.seats.reclaim(game_id, token)
    return Response(status_code=204)
