"""``/api/games/{id}/hint`` and ``/chances``: the estimates, for a seat's own eyes."""

from __future__ import annotations

from fastapi import APIRouter

from ... import schemas
from ..deps import ERRORS, Client, Service, Token

router = APIRouter(prefix="/api")

#: What the estimates' routes say of their bound.
ESTIMATE_BUSY = (
    "An estimate takes up to about a second of the server's one hint worker: a new one is "
    "refused with 429 `estimate-busy` while the server, or this client's address, already waits "
    "for as many as it allows (one under way for the same seat and version is shared)."
)


@router.get(
    "/games/{game_id}/hint",
    response_model=schemas.HintOut,
    responses=ERRORS,
    description="The strong bot's suggestions for this seat's turn, with estimated win "
    f"probabilities.\n\n{ESTIMATE_BUSY}",
)
async def hint(game_id: str, service: Service, token: Token, client: Client) -> schemas.HintOut:
    return await service.estimates.hint(game_id, token, client)


@router.get(
    "/games/{game_id}/chances",
    response_model=schemas.ChancesOut,
    responses=ERRORS,
    description="This seat's estimated chance of winning: on its turn, or after its last "
    "turn.\n\nComputed once per game version and seat (then cached), from the seat's own view "
    f"only. {ESTIMATE_BUSY}",
)
async def chances(
    game_id: str, service: Service, token: Token, client: Client
) -> schemas.ChancesOut:
    return await service.estimates.chances(game_id, token, client)
