"""The WebSocket ``/ws/games/{id}``: live updates for one seat (or a spectator).

Protocol: send ``{"token": "..."}`` (or ``{"token": null, "key": "..."}`` with a device's
player key, or ``{"token": null}`` to watch) first, with
``"events_from": N`` to resume holding N events (else 0; checked as over HTTP: an error and the
close code 4422); receive ``{"type": "state", "state": StateOut}`` now and after every change,
each with only the events this connection was not sent yet (should the game ever hold fewer, as
after its memory was reloaded, every event again with ``events_from`` 0). Send
``{"type": "action", "version": N, "action": {...}}`` (its body but the type is an HTTP action's,
checked by the same schema; refusals come back as ``{"type": "error", "error": {...}}``, and the
new events come with the push) or ``{"type": "ping"}``. Frames are JSON text; a frame larger
than a request body may be (``max_body_bytes``) closes the socket with 1009. The sockets of one
address share a budget of messages (``rate_limit_per_minute`` a minute, kept by
:mod:`~gotown.server.services.sockets`): the message one more than a minute allows is answered
``too-many-requests`` and its socket closed with 4429, so that a flood costs the server nothing
more once it is over (it is never read again) and cannot starve the other clients. A new socket
over the caps of that module (per address, per game, the descriptor reserve) or of an address
whose budget is spent is refused the same way.

Close codes: 4400 (a bad first message), 4401/4403/4404 (token, game), 4422 (a bad
``events_from``), 4429 (the rate limit, :mod:`~gotown.server.middleware`, a flood of messages,
too many open sockets), 4503 (the database does not answer): 4000 + the refusal's HTTP status.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import ValidationError
from starlette.websockets import WebSocketState

from .. import metrics, schemas
from ..errors import (
    BusyError,
    DomainError,
    InvalidError,
    MalformedError,
    NotFoundError,
    describe_invalid,
    describe_unparsable,
    status_of,
)
from ..pubsub import Notice
from ..services import GameService
from ..services.players import PlayerSeat
from ..services.registry import LiveGame
from ..services.sockets import MADE_ROOM, SEAT, SPECTATOR, Held
from ..services.tokens import seat_or_spectator

router = APIRouter()

#: The protocol is JSON in text frames; a binary frame gets this answer.
BINARY_FRAME = "binary frames are not understood: send JSON as text"
FIRST_MESSAGE = (
    'the first message must be {"token": "..."}, {"token": null, "key": "..."} (a device\'s '
    'player key), or {"token": null} to watch (with "events_from": N to resume)'
)


def _error(code: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"code": code, "message": message}}


def parse(text: str) -> Any:
    """JSON, or ``malformed-json`` saying what is wrong with it (also for nesting too deep to
    parse, and a number too long)."""
    try:
        return json.loads(text)
    except (RecursionError, ValueError) as exc:
        raise MalformedError("malformed-json", describe_unparsable(exc)) from exc


def first_message(text: str | None) -> tuple[str | None, int, str | None]:
    """The token of the first message (None: a spectator) and its ``events_from`` (0 when left
    out); ``bad-request`` for anything but ``{"token": "..."}`` or ``{"token": null}``, with
    an optional ``"events_from"``, and ``invalid-request`` for an ``events_from`` that is not a
    whole number of at least 0 (more than the game has: its first state holds every event,
    as over HTTP)."""
    if text is None:
        raise MalformedError("bad-request", f"{BINARY_FRAME}; {FIRST_MESSAGE}")
    try:
        first = parse(text)
    except DomainError as exc:
        raise MalformedError(exc.code, f"{exc.message}; {FIRST_MESSAGE}") from exc
    if not isinstance(first, dict) or not {"token"} <= set(first) <= {
        "token",
        "events_from",
        "key",
    }:
        raise MalformedError("bad-request", FIRST_MESSAGE)
    token = first["token"]
    if token is not None and (not isinstance(token, str) or not token):
        # (An empty token is no seat's: it must not open a spectator's socket unasked.)
        raise MalformedError("bad-request", "token must be a seat's token (a non-empty string)")
    key = first.get("key")
    if key is not None and (not isinstance(key, str) or not key):
        raise MalformedError("bad-request", "key must be a device's key (a non-empty string)")
    events_from = first.get("events_from", 0)
    if type(events_from) is not int or events_from < 0:
        raise InvalidError("invalid-request", "events_from: a whole number of at least 0, please")
    return token, events_from, key


def events_through(state: schemas.StateOut) -> int:
    """How many of the game's events a client holds once it has ``state``."""
    return 0 if state.view is None else state.events_from + len(state.view["events"])


class Connection:
    """One socket: its game, its seat (None: a spectator), and how many events it was sent."""

    def __init__(self, websocket: WebSocket, service: GameService, game_id: str) -> None:
        self.websocket = websocket
        self.service = service
        self.game_id = game_id
        scheme = "https" if websocket.url.scheme == "wss" else "http"
        self.base = f"{scheme}://{websocket.url.netloc}"
        self.token: str | None = None
        self.seat: int | None = None
        self.sent = 0
        self.client = websocket.client.host if websocket.client else "?"
        self.held: Held | None = None
        self.task: asyncio.Task[Any] | None = None
        self.made_room = False

    # --- frames ------------------------------------------------------------------------------

    async def send(self, message: dict[str, Any]) -> None:
        """Send one JSON message; WebSocketDisconnect when the socket is closed (also after a
        send found the client gone, rather than Starlette's RuntimeError)."""
        if self.websocket.application_state != WebSocketState.CONNECTED:
            raise WebSocketDisconnect(1006)
        await self.websocket.send_json(message)

    async def send_error(self, exc: DomainError) -> None:
        await self.send({"type": "error", **exc.body()})

    async def refuse(self, exc: DomainError) -> None:
        """Send the refusal and close with 4000 + its status."""
        await self.send_error(exc)
        await self.websocket.close(code=4000 + status_of(exc))

    async def send_state(self, state: schemas.StateOut) -> None:
        """Send ``{"type": "state", "state": ...}``, encoded by the service (off the event loop
        when it is long), and count the events it holds as sent."""
        text = '{"type":"state","state":' + await self.service.seat_states.encode(state) + "}"
        if self.websocket.application_state != WebSocketState.CONNECTED:
            raise WebSocketDisconnect(1006)
        await self.websocket.send_text(text)
        self.sent = events_through(state)

    async def receive(self) -> str | None:
        """The next frame's text; None for a binary frame. WebSocketDisconnect when the client
        left, or when the frame was larger than an HTTP body may be (then closed with 1009,
        whatever server runs the app)."""
        message = await self.websocket.receive()
        if message["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
        text = message.get("text")
        data = (
            text.encode("utf-8", "surrogatepass") if isinstance(text, str) else message.get("bytes")
        )
        limit = self.service.settings.max_body_bytes
        if len(data or b"") > limit:
            reason = f"a message may hold at most {limit} bytes"
            await self.websocket.close(code=1009, reason=reason)
            raise WebSocketDisconnect(1009, reason)
        return text if isinstance(text, str) else None

    # --- the connection's life ---------------------------------------------------------------

    async def open(self) -> tuple[LiveGame, int] | None:
        """Accept, read the first message and find the game and seat; None when refused. The
        socket holds a place in :attr:`GameService.sockets` from the start (released by
        :meth:`serve`), that of its kind once it has said who it is (a seat's of a game under
        way before a spectator's)."""
        sockets = self.service.sockets
        try:
            self.held = sockets.admit(self.client, self.game_id, self.make_room)
        except DomainError as exc:
            await self.websocket.accept()
            with contextlib.suppress(WebSocketDisconnect):
                await self.refuse(exc)
            return None
        await self.websocket.accept()
        try:
            text = await asyncio.wait_for(self.receive(), timeout=sockets.first_message_seconds())
            self.token, resume_from, key = first_message(text)
            if not self.token and key:
                holder = await self.service.players.holder(key)
                assert holder is not None
                self.token = PlayerSeat(holder.player_id)
            live = await self.service.registry.current(self.game_id)
            self.seat = seat_or_spectator(live, self.token)
            playing = self.seat is not None and live.stored.status != "over"
            sockets.classify(self.held, SEAT if playing else SPECTATOR)
        except DomainError as exc:
            with contextlib.suppress(WebSocketDisconnect):  # (unless the client left already)
                await self.refuse(exc)
            return None
        except (TimeoutError, WebSocketDisconnect):
            with contextlib.suppress(Exception):
                await self.websocket.close(code=4400)
            return None
        return live, resume_from

    def make_room(self) -> None:
        """Close this socket (refused with ``too-many-requests`` and 4429): its place goes to
        another (:mod:`~gotown.server.services.sockets`)."""
        self.made_room = True
        if self.task is not None:
            self.task.cancel()

    async def serve(self) -> None:
        self.task = asyncio.current_task()
        try:
            await self._serve()
        except asyncio.CancelledError:
            if not self.made_room:
                raise
            if self.task is not None:
                self.task.uncancel()  # (our own: the socket closes as a refusal)
            with contextlib.suppress(Exception):
                await self.refuse(BusyError("too-many-requests", MADE_ROOM))
        finally:
            if self.held is not None:
                self.service.sockets.release(self.held)

    async def _serve(self) -> None:
        opened = await self.open()
        if opened is None:
            return
        live, resume_from = opened
        presence = self.service.presence
        connection = presence.opened(live, self.seat)
        try:
            await presence.tell_opened(live, self.seat, connection)
            async with self.service.pubsub.subscribe(self.game_id) as notices:
                # Subscribed: a change from now on is noticed; one made before is caught up here.
                await self.service.registry.catch_up_quietly(live)
                states = self.service.seat_states
                try:
                    first = await states.state_for(live, self.seat, self.base, resume_from)
                except DomainError as exc:  # (the database does not answer)
                    await self.refuse(exc)
                    return
                await self.send_state(first)
                # A bot to move whose process stopped (a restart, a crash) plays on here.
                self.service.bots.kick(live)
                await self._push_and_read(live, notices)
        except WebSocketDisconnect:
            pass
        finally:
            # Shielded: the seat is marked away and the others told even if this is cancelled.
            await asyncio.shield(presence.closed(live, self.seat, connection))

    async def _push_and_read(self, live: LiveGame, notices: Any) -> None:
        tasks = [
            asyncio.create_task(self._push(live, notices)),
            asyncio.create_task(self._read()),
        ]
        try:
            done, _pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:  # (also when this is cancelled: a socket closed to make room)
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        for task in done:
            failure = task.exception()
            if failure is not None and not isinstance(failure, WebSocketDisconnect):
                raise failure

    async def _push(self, live: LiveGame, notices: Any) -> None:
        """After every change, the state with only the events not sent yet."""
        notice: Notice
        async for notice in notices:
            here = self.service.pubsub.id
            metrics.notice_heard(here, notice.game_id, notice.version, notice.change, notice.origin)
            try:
                await self.service.registry.refresh(notice)
            except NotFoundError as exc:  # (closed by the operator: gotown admin close)
                await self.refuse(exc)
                raise WebSocketDisconnect(4404, exc.message) from exc
            states = self.service.seat_states
            fresh = notice.change != "action"  # (an action changes no one's presence)
            state = await states.state_for(live, self.seat, self.base, self.sent, presence=fresh)
            await self.send_state(state)
            metrics.update_sent(here, self.game_id, state.version, self.seat, id(self))

    async def _read(self) -> None:
        while True:
            text = await self.receive()
            if not self.service.sockets.spend(self.client):
                message = self.service.sockets.budget_message
                await self.refuse(BusyError("too-many-requests", message))
                raise WebSocketDisconnect(4429, message)
            elif text is None:
                await self.send(_error("bad-request", BINARY_FRAME))
            else:
                await self._answer(text)

    async def _answer(self, text: str) -> None:
        try:
            message = parse(text)
        except DomainError as exc:
            await self.send_error(exc)
            return
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "ping":
            await self.send({"type": "pong"})
        elif kind == "action":
            await self._act(message)
        else:
            await self.send(_error("unknown-message", "unknown message type"))

    async def _act(self, message: dict[str, Any]) -> None:
        """The message but its type is an HTTP action's body, checked and described the same
        way (a field too many, a bad events_from). The new events come with the push: no state
        is built for the answer."""
        fields = {k: v for k, v in message.items() if k != "type"}
        try:
            body = schemas.ActionIn.model_validate(fields)
            await self.service.play.play(self.game_id, self.token, body)
        except DomainError as exc:
            await self.send_error(exc)
        except ValidationError as exc:
            await self.send(_error("invalid-request", describe_invalid(exc.errors())))


@router.websocket("/ws/games/{game_id}")
async def game_socket(websocket: WebSocket, game_id: str) -> None:
    """Live updates for one seat (or a spectator): see the module's docstring."""
    await Connection(websocket, websocket.app.state.service, game_id).serve()
