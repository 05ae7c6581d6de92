"""HTTP and WebSocket routes: thin, they parse, call the service, and shape the answer."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import io
import json
import time
from typing import Annotated, Any

import segno
from fastapi import APIRouter, Depends, Header, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import Response
from pydantic import ValidationError
from starlette.websockets import WebSocketState

from gotown.engine import OPTION_CHOICES, Options

from . import schemas
from .errors import (
    DomainError,
    InvalidError,
    MalformedError,
    describe_invalid,
    describe_unparsable,
    status_of,
)
from .service import BOTS_ONLY_TURN_LIMIT, GameService, bot_levels

router = APIRouter(prefix="/api")

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": schemas.ErrorOut} for code in (400, 401, 403, 404, 409, 413, 422, 429, 503)
}


def option_meta() -> dict[str, schemas.OptionOut]:
    """Every R23 option with its default and the values it takes."""
    defaults = Options()
    meta = {
        name: schemas.OptionOut(default=getattr(defaults, name), choices=list(choices))
        for name, choices in OPTION_CHOICES.items()
    }
    meta["turn_limit"] = schemas.OptionOut(
        default=defaults.turn_limit,
        minimum=1,
        maximum=schemas.MAX_TURN_LIMIT,
        nullable=True,
        people_default=schemas.MAX_TURN_LIMIT,
        bots_only_default=BOTS_ONLY_TURN_LIMIT,
    )
    return meta


def client_address(request: Request) -> str:
    """The client's address, as the rate limit counts it (uvicorn's, see the README)."""
    return request.client.host if request.client else "?"


def get_service(request: Request) -> GameService:
    service: GameService = request.app.state.service
    return service


def seat_token(
    x_seat_token: Annotated[str | None, Header(description="the seat's secret token")] = None,
    authorization: Annotated[str | None, Header(include_in_schema=False)] = None,
) -> str | None:
    if x_seat_token:
        return x_seat_token
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return None


Service = Annotated[GameService, Depends(get_service)]
Token = Annotated[str | None, Depends(seat_token)]
Client = Annotated[str, Depends(client_address)]


def base_url(request: Request) -> str:
    return str(request.base_url).rstrip("/")


@router.get("/meta", response_model=schemas.MetaOut)
async def meta() -> schemas.MetaOut:
    """Languages, bot levels and the R23 options: each one's default and the values it takes."""
    return schemas.MetaOut(
        languages=list(schemas.LANGUAGES), bot_levels=list(bot_levels()), options=option_meta()
    )


@router.post("/games", response_model=schemas.CreatedOut, status_code=201, responses=ERRORS)
async def create_game(
    body: schemas.CreateGameIn, request: Request, service: Service, client: Client
) -> schemas.CreatedOut:
    """Create a game. The creator (when a name is given) takes the first person seat.

    A game created with `turn_limit` null gets the server's ceiling: it ends with no winner
    when that turn ends (R23; see `/api/meta`). A table of bots only is refused with 429
    `too-many-bot-tables` while as many as the server allows are playing (in all, or started
    from this client's address)."""
    return await service.create_game(body, base_url(request), client=client)


@router.get("/invitations/{code}", response_model=schemas.LobbyOut, responses=ERRORS)
async def invitation(code: str, request: Request, service: Service) -> schemas.LobbyOut:
    """The game behind an invitation code, with its free seats."""
    game_id = await service.game_for_invite(code)
    return await service.lobby_of(game_id, base_url(request), invited=True)


@router.get("/games/{game_id}/lobby", response_model=schemas.LobbyOut, responses=ERRORS)
async def lobby(game_id: str, request: Request, service: Service, token: Token) -> schemas.LobbyOut:
    """Seats and options; the invitation link only with a seat's token."""
    return await service.lobby_of(game_id, base_url(request), token)


@router.post("/games/{game_id}/join", response_model=schemas.JoinedOut, responses=ERRORS)
async def join(
    game_id: str, body: schemas.JoinIn, request: Request, service: Service
) -> schemas.JoinedOut:
    """Take a free seat with the invitation code; answers the seat's secret token."""
    return await service.join(game_id, body, base_url(request))


async def _state_response(service: GameService, state: schemas.StateOut) -> Response:
    """The state as JSON, encoded by the service (off the event loop when it is long)."""
    return Response(await service.encode(state), media_type="application/json")


@router.get("/games/{game_id}/state", response_model=schemas.StateOut, responses=ERRORS)
async def state(
    game_id: str,
    request: Request,
    service: Service,
    token: Token,
    events_from: Annotated[int, Query(ge=0, description=schemas.EVENTS_FROM)] = 0,
) -> Response:
    """The seat's view (with its token) or the public view (without); with ``events_from``,
    only the events from that index on (a 422 beyond the game's events)."""
    answer = await service.state(game_id, token, base_url(request), events_from)
    return await _state_response(service, answer)


@router.post("/games/{game_id}/actions", response_model=schemas.StateOut, responses=ERRORS)
async def act(
    game_id: str, body: schemas.ActionIn, request: Request, service: Service, token: Token
) -> Response:
    """Play an action, made on game version ``version``; the state after it answers, with
    only the events from ``events_from`` on when given (checked before the action is made)."""
    answer = await service.act(game_id, token, body, base_url(request))
    return await _state_response(service, answer)


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
    return await service.hint(game_id, token, client)


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
    return await service.chances(game_id, token, client)


@router.post("/games/{game_id}/seats/{seat}/bot", response_model=schemas.LobbyOut, responses=ERRORS)
async def hand_to_bot(
    game_id: str,
    seat: int,
    request: Request,
    service: Service,
    token: Token,
    client: Client,
    body: schemas.HandOverIn | None = None,
) -> schemas.LobbyOut:
    """Hand a seat to a bot: a free seat, your own, or one whose player stays away. One that
    leaves no person at the table makes it a table of bots only: 429 `too-many-bot-tables`
    (and nothing changes) while as many as the server allows are playing."""
    level = body.level if body else "medium"
    await service.hand_to_bot(game_id, token, seat, level, client)
    return await service.lobby_of(game_id, base_url(request), token)


@router.post("/games/{game_id}/reclaim", status_code=204, responses=ERRORS)
async def reclaim(game_id: str, service: Service, token: Token) -> Response:
    """Take your seat back from the bot that played it while you were away."""
    await service.reclaim(game_id, token)
    return Response(status_code=204)


@router.get("/games/{game_id}/replay", response_model=schemas.ReplayOut, responses=ERRORS)
async def replay(game_id: str, service: Service, token: Token) -> schemas.ReplayOut:
    """Every step of a finished game: the public view, or the seat's own view with its token."""
    return await service.replay(game_id, token)


@router.post("/games/{game_id}/rematch", response_model=schemas.JoinedOut, responses=ERRORS)
async def rematch(
    game_id: str, request: Request, service: Service, token: Token
) -> schemas.JoinedOut:
    """Start the rematch (or join it) in the same seat. A seat that another player gave to a
    bot while it was free is the returning player's again (in the lobby or in the game); a
    seat that was handed to a bot after its player had joined is theirs to reclaim."""
    return await service.rematch(game_id, token, base_url(request))


@router.get(
    "/invitations/{code}/qr.svg", responses={200: {"content": {"image/svg+xml": {}}}, **ERRORS}
)
async def qr(code: str, request: Request, service: Service) -> Response:
    """The invitation link as a QR code (SVG), for whoever holds the invitation code."""
    game_id = await service.game_for_invite(code)
    lobby = await service.lobby_of(game_id, base_url(request), invited=True)
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
    svg = buffer.getvalue()
    return Response(svg, media_type="image/svg+xml")


# --- WebSocket ---------------------------------------------------------------------------------

ws_router = APIRouter()


def _http_base(websocket: WebSocket) -> str:
    scheme = "https" if websocket.url.scheme == "wss" else "http"
    return f"{scheme}://{websocket.url.netloc}"


def _error(code: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"code": code, "message": message}}


#: The protocol is JSON in text frames; a binary frame gets this answer.
BINARY_FRAME = "binary frames are not understood: send JSON as text"
FIRST_MESSAGE = (
    'the first message must be {"token": "..."}, or {"token": null} to watch '
    '(with "events_from": N to resume)'
)


async def _send(websocket: WebSocket, message: dict[str, Any]) -> None:
    """Send one JSON message; WebSocketDisconnect when the socket is closed. A send that finds
    the client gone raises it and marks the socket closed; a later send (the other half of the
    socket answering meanwhile) ends the same way, not in Starlette's RuntimeError."""
    if websocket.application_state != WebSocketState.CONNECTED:
        raise WebSocketDisconnect(1006)
    await websocket.send_json(message)


async def _send_state(websocket: WebSocket, service: GameService, state: schemas.StateOut) -> None:
    """Send ``{"type": "state", "state": ...}``, encoded by the service (off the event loop
    when it is long); WebSocketDisconnect as :func:`_send`."""
    text = '{"type":"state","state":' + await service.encode(state) + "}"
    if websocket.application_state != WebSocketState.CONNECTED:
        raise WebSocketDisconnect(1006)
    await websocket.send_text(text)


async def _receive_text(websocket: WebSocket) -> str | None:
    """The next frame's text; None for a binary frame. WebSocketDisconnect when the client left
    (as ``receive_text``, which fails on a binary frame instead), or when the frame was larger
    than an HTTP body may be (``max_body_bytes``): the socket is then closed with 1009, as
    ``gotown serve`` has uvicorn do for anything over 64 KiB, whatever runs the app."""
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
    text = message.get("text")
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else message.get("bytes")
    limit = websocket.app.state.service.settings.max_body_bytes
    if len(data or b"") > limit:
        reason = f"a message may hold at most {limit} bytes"
        await websocket.close(code=1009, reason=reason)
        raise WebSocketDisconnect(1009, reason)
    return text if isinstance(text, str) else None


def _parse(text: str) -> Any:
    """JSON, or MalformedError ``malformed-json`` saying what is wrong with it (also for
    nesting too deep to parse, and a number too long)."""
    try:
        return json.loads(text)
    except (RecursionError, ValueError) as exc:
        raise MalformedError("malformed-json", describe_unparsable(exc)) from exc


def _first_message(text: str | None) -> tuple[str | None, int]:
    """The token of the first message (None: a spectator) and its ``events_from`` (0 when left
    out); MalformedError for anything but ``{"token": "..."}`` or ``{"token": null}``, with
    an optional ``"events_from"``, and 422 ``invalid-request`` for an ``events_from`` that is
    not a whole number of at least 0 (whether the game has that many events is checked when
    the first state is built)."""
    if text is None:
        raise MalformedError("bad-request", f"{BINARY_FRAME}; {FIRST_MESSAGE}")
    try:
        first = _parse(text)
    except DomainError as exc:
        raise MalformedError(exc.code, f"{exc.message}; {FIRST_MESSAGE}") from exc
    if not isinstance(first, dict) or not {"token"} <= set(first) <= {"token", "events_from"}:
        raise MalformedError("bad-request", FIRST_MESSAGE)
    token = first["token"]
    if token is not None and not isinstance(token, str):
        raise MalformedError("bad-request", "token must be a string")
    events_from = first.get("events_from", 0)
    if type(events_from) is not int or events_from < 0:
        raise InvalidError("invalid-request", "events_from: a whole number of at least 0, please")
    return token, events_from


def _events_through(state: schemas.StateOut) -> int:
    """How many of the game's events a client holds once it has ``state``."""
    return 0 if state.view is None else state.events_from + len(state.view["events"])


@ws_router.websocket("/ws/games/{game_id}")
async def game_socket(websocket: WebSocket, game_id: str) -> None:
    """Live updates for one seat (or a spectator).

    The client's first message is ``{"token": "..."}`` (or ``{"token": null}`` to watch). The
    server then sends ``{"type": "state", "state": StateOut}`` now and after every change, and
    answers ``{"type": "action", "version": N, "action": {...}}`` with an error message when
    it refuses it, and ``{"type": "ping"}`` with ``{"type": "pong"}``.

    Events are sent once per connection: the first state holds every event (``events_from``
    0), and each later one only those the connection has not been sent yet, its
    ``events_from`` being how many it was sent before (the client appends them). Should the
    game ever hold fewer events than that (its memory reloaded behind them), the state holds
    every event again, ``events_from`` 0. A client that reconnects holding N events may add
    ``"events_from": N`` to its first message: the first state then starts there (N must be a
    whole number from 0 to the game's event count, else an ``invalid-request`` error and the
    close code 4422).
    """
    service: GameService = websocket.app.state.service
    await websocket.accept()
    base = _http_base(websocket)
    try:
        first = await asyncio.wait_for(_receive_text(websocket), timeout=30)
        token, resume_from = _first_message(first)
        seat = await service.resolve_token(game_id, token)
        live = await service._live(game_id)
    except DomainError as exc:
        with contextlib.suppress(WebSocketDisconnect):  # (unless the client left already)
            await _send(websocket, {"type": "error", **exc.body()})
            await websocket.close(code=4000 + status_of(exc))
        return
    except (TimeoutError, WebSocketDisconnect):
        with contextlib.suppress(Exception):
            await websocket.close(code=4400)
        return

    connection = service.connected(live, seat)
    try:
        await service.tell_opened(live, seat, connection)
        async with service.pubsub.subscribe(game_id) as notices:
            # Subscribed: a change from now on is noticed; one made before is caught up here.
            await service.catch_up(live)
            try:
                first_state = await service.state_for(live, seat, base, resume_from)
            except DomainError as exc:  # more events than the game has
                await _send(websocket, {"type": "error", **exc.body()})
                await websocket.close(code=4000 + status_of(exc))
                return
            await _send_state(websocket, service, first_state)
            # How many of the game's events this connection was sent: each push sends the rest.
            sent = _events_through(first_state)

            async def push() -> None:
                nonlocal sent
                async for notice in notices:
                    await service.refresh(notice)
                    state = await service.state_for(live, seat, base, sent, or_full=True)
                    await _send_state(websocket, service, state)
                    sent = _events_through(state)

            limit = service.settings.rate_limit_per_minute
            recent: collections.deque[float] = collections.deque()

            async def read() -> None:
                while True:
                    text = await _receive_text(websocket)
                    now = time.monotonic()
                    while recent and now - recent[0] > 60:
                        recent.popleft()
                    if limit > 0 and len(recent) >= limit:
                        await _send(
                            websocket,
                            {
                                "type": "error",
                                "error": {
                                    "code": "too-many-requests",
                                    "message": f"more than {limit} messages in a minute",
                                },
                            },
                        )
                        continue
                    recent.append(now)
                    if text is None:
                        await _send(websocket, _error("bad-request", BINARY_FRAME))
                        continue
                    try:
                        message = _parse(text)
                    except DomainError as exc:
                        await _send(websocket, {"type": "error", **exc.body()})
                        continue
                    kind = message.get("type") if isinstance(message, dict) else None
                    if kind == "ping":
                        await _send(websocket, {"type": "pong"})
                    elif kind == "action":
                        # The message but its type is an HTTP action's body, checked and
                        # described the same way (a field too many, a bad events_from). The
                        # new events come with the push: no state is built for the answer.
                        fields = {k: v for k, v in message.items() if k != "type"}
                        try:
                            body = schemas.ActionIn.model_validate(fields)
                            await service.play(game_id, token, body)
                        except DomainError as exc:
                            await _send(websocket, {"type": "error", **exc.body()})
                        except ValidationError as exc:
                            await _send(
                                websocket, _error("invalid-request", describe_invalid(exc.errors()))
                            )
                    else:
                        await _send(
                            websocket,
                            {
                                "type": "error",
                                "error": {
                                    "code": "unknown-message",
                                    "message": "unknown message type",
                                },
                            },
                        )

            tasks = [asyncio.create_task(push()), asyncio.create_task(read())]
            done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()
            for task in pending:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            for task in done:
                failure = task.exception()
                if failure is not None and not isinstance(failure, WebSocketDisconnect):
                    raise failure
    except WebSocketDisconnect:
        pass
    finally:
        # Shielded: the seat is marked away and the others told even if this is cancelled.
        await asyncio.shield(service.socket_closed(live, seat, connection))
