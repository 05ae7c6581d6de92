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
    "(every hand shown, as after the game, R22; the draw pile's order unknown), the turning "
    "points (the parts of actions, a decision, a draw or a theft, that moved a seat's chance "
    "most) and, with `seat`, that seat's moves that lost at least one game in ten against the "
    "best, judged on what the seat knew, with the better move. Refused with 409 `not-over` "
    "while the game is under way (R22). About "
    f"{QUICK_BUDGET} play-outs in the first pass, shared by the positions, then second looks "
    "where it matters, in a worker of its own: a few seconds the first time, then kept (429 "
    "`estimate-busy` while too many are under way).",
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
