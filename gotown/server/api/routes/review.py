"""``/api/games/{id}/review``: the strong bot's review of a finished game."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ... import schemas
from ...services.review import QUICK_BUDGET
from ..deps import ERRORS, Client, Service

router = APIRouter(prefix="/api")


@router.get(
    "/games/{game_id}/review",
    response_model=schemas.ReviewOut,
    responses=ERRORS,
    description="Each seat's estimated chance to win after every action of a finished game "
    "(each estimate from the deciding seat's own view), the turning points (the actions that "
    "moved a seat's chance most) and, with `seat`, that seat's moves rated much lower than the "
    "best, with the better move. Refused with 409 `not-over` while the game is under way (R22). "
    f"A search of {QUICK_BUDGET} iterations in all, shared by the actions, in a worker of its "
    "own: a few seconds the first time, then kept (429 `estimate-busy` while too many are "
    "under way).",
)
async def review(
    game_id: str,
    service: Service,
    client: Client,
    seat: Annotated[
        int | None, Query(ge=0, le=3, description="the seat whose mistakes are listed")
    ] = None,
) -> schemas.ReviewOut:
    return await service.reviews.review(game_id, seat, client)
