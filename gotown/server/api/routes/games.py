"""``/api/games`` and ``/api/invitations``: create, invite, join, read, act, replay, rematch."""

from __future__ import annotations

import io
from typing import Annotated

import segno
from fastapi import APIRouter, Query
from fastapi.responses import Response

from ... import schemas
from ...errors import MalformedError
from ...services import GameService
from ..deps import ERRORS, BaseUrl, Client, MaybeHolder, Service, Token

router = APIRouter(prefix="/api")


@router.post("/games", response_model=schemas.CreatedOut, status_code=201, responses=ERRORS)
async def create_game(
    body: schemas.CreateGameIn,
    base: BaseUrl,
    service: Service,
    client: Client,
    holder: MaybeHolder,
) -> schemas.CreatedOut:
    """Create a game. The creator (when a name is given) takes the first person seat.

    A game created with `turn_limit` null gets the server's ceiling: it ends with no winner
    when that turn ends (R23; see `/api/meta`). A table of bots only is refused with 429
    `too-many-bot-tables` while as many as the server allows are playing (in all, or started
    from this client's address). With a `pace`, a turn-based table: each person's turn has a
    deadline. With X-Player-Key, the creator's seat is that player's (on all their devices)."""
    return await service.play.create_game(body, base, client=client, holder=holder)


@router.get("/invitations/{code}", response_model=schemas.LobbyOut, responses=ERRORS)
async def invitation(code: str, base: BaseUrl, service: Service) -> schemas.LobbyOut:
    """The game behind an invitation code, with its free seats."""
    game_id = await service.play.game_for_invite(code)
    return await service.seat_states.lobby_of(game_id, base, invited=True)


@router.get("/games/{game_id}/lobby", response_model=schemas.LobbyOut, responses=ERRORS)
async def lobby(game_id: str, base: BaseUrl, service: Service, token: Token) -> schemas.LobbyOut:
    """Seats and options; the invitation link only with a seat's token."""
    return await service.seat_states.lobby_of(game_id, base, token)


@router.post("/games/{game_id}/join", response_model=schemas.JoinedOut, responses=ERRORS)
async def join(
    game_id: str, body: schemas.JoinIn, base: BaseUrl, service: Service, holder: MaybeHolder
) -> schemas.JoinedOut:
    """Take a free seat with the invitation code; answers the seat's secret token (with
    X-Player-Key, the seat is that player's too)."""
    return await service.play.join(game_id, body, base, holder)


async def _state_response(service: GameService, state: schemas.StateOut) -> Response:
    """The state as JSON, encoded by the service (off the event loop when it is long)."""
    return Response(await service.seat_states.encode(state), media_type="application/json")


@router.get("/games/{game_id}/state", response_model=schemas.StateOut, responses=ERRORS)
async def state(
    game_id: str,
    base: BaseUrl,
    service: Service,
    token: Token,
    events_from: Annotated[int, Query(ge=0, description=schemas.EVENTS_FROM)] = 0,
) -> Response:
    """The seat's view (with its token) or the public view (without); with ``events_from``,
    only the events from that index on (a 422 beyond the game's events)."""
    answer = await service.seat_states.state(game_id, token, base, events_from)
    return await _state_response(service, answer)


@router.post("/games/{game_id}/actions", response_model=schemas.StateOut, responses=ERRORS)
async def act(
    game_id: str, body: schemas.ActionIn, base: BaseUrl, service: Service, token: Token
) -> Response:
    """Play an action, made on game version ``version``; the state after it answers, with
    only the events from ``events_from`` on when given (checked before the action is made)."""
    answer = await service.play.act(game_id, token, body, base)
    return await _state_response(service, answer)


@router.get("/games/{game_id}/replay", response_model=schemas.ReplayOut, responses=ERRORS)
async def replay(game_id: str, service: Service, token: Token) -> schemas.ReplayOut:
    """Every step of a finished game: the public view, or the seat's own view with its token."""
    return await service.seat_states.replay(game_id, token)


@router.post("/games/{game_id}/rematch", response_model=schemas.JoinedOut, responses=ERRORS)
async def rematch(game_id: str, base: BaseUrl, service: Service, token: Token) -> schemas.JoinedOut:
    """Start the rematch (or join it) in the same seat. A seat that another player gave to a
    bot while it was free is the returning player's again (in the lobby or in the game); a
    seat that was handed to a bot after its player had joined is theirs to reclaim."""
    return await service.play.rematch(game_id, token, base)


@router.get(
    "/invitations/{code}/qr.svg", responses={200: {"content": {"image/svg+xml": {}}}, **ERRORS}
)
async def qr(code: str, base: BaseUrl, service: Service) -> Response:
    """The invitation link as a QR code (SVG), for whoever holds the invitation code."""
    game_id = await service.play.game_for_invite(code)
    lobby = await service.seat_states.lobby_of(game_id, base, invited=True)
    assert lobby.invite_url is not None
    try:
        code_image = segno.make(lobby.invite_url, error="m")
    except segno.DataOverflowError as exc:
        # Without GOTOWN_PUBLIC_BASE_URL the link starts with the request's Host: a client's.
        raise MalformedError(
            "bad-request",
            f"the invitation link ({len(lobby.invite_url)} characters) is too long for a QR "
            "code: is the Host header right?",
        ) from exc
    buffer = io.BytesIO()
    code_image.save(buffer, kind="svg", scale=6, border=2, dark="#000", light="#fff", xmldecl=False)
    return Response(buffer.getvalue(), media_type="image/svg+xml")
