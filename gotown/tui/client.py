"""The terminal's client of a running ``gotown serve``: the seat a link gives, and the requests
and socket messages of that seat.

It speaks the web table's public protocol, as the page does, and nothing of the server's code:

- an invitation link ``BASE/j/CODE``: ``GET /api/invitations/CODE`` names the game, and
  ``POST /api/games/ID/join`` ``{"code", "name"}`` takes a free seat and answers its secret
  token; a seat link ``BASE/g/ID#t=TOKEN`` already holds one (the terminal prints it, to come
  back to the same seat later);
- the WebSocket ``BASE/ws/games/ID``: the first message ``{"token": ...}`` (with
  ``"events_from": N`` when coming back holding N events), then ``{"type": "state", "state":
  ...}`` after every change, each holding only the events not sent before (read by
  :mod:`gotown.tui.protocol`); an action goes as ``{"type": "action", "version": V, "action":
  {...}}`` and a refused one comes back as ``{"type": "error", "error": {"code", "message",
  "rule"}}``.

Every answer is read as the server's own wire schema (:mod:`gotown.wire`), typed. A dropped
connection is retried, waiting longer each time (:func:`retry_delay`, up to 8 s); a close code
4400..4499 (the server refusing the seat, :func:`is_refusal`) is final.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar
from urllib.parse import urlsplit

import httpx2
from pydantic import BaseModel, ValidationError

from gotown.engine import Action
from gotown.wire import ActionMessage, ErrorOut, HelloMessage, HintOut, JoinedOut, LobbyOut

from .protocol import hints

Answer = TypeVar("Answer", bound=BaseModel)


@dataclass(frozen=True)
class Seat:
    """Where a seat is: the server, the game and the seat's secret token."""

    base: str
    game_id: str
    token: str

    @property
    def play_url(self) -> str:
        return f"{self.base}/g/{self.game_id}#t={self.token}"

    @property
    def socket_url(self) -> str:
        scheme = "wss" if self.base.startswith("https:") else "ws"
        return f"{scheme}://{self.base.split('://', 1)[1]}/ws/games/{self.game_id}"


class LinkError(ValueError):
    """A link that is no invitation or seat link, or a seat the server would not give."""


def take_seat(url: str, name: str, client: httpx2.Client | None = None) -> Seat:
    """The seat a link gives: a seat link's own, or a free seat taken with an invitation."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise LinkError(f"{url!r} is not an http(s) link of a gotown server")
    base = f"{parts.scheme}://{parts.netloc}"
    path = [p for p in parts.path.split("/") if p]
    if len(path) == 2 and path[0] == "g":
        token = parts.fragment.removeprefix("t=")
        if not parts.fragment.startswith("t=") or not token:
            raise LinkError(f"{url!r} holds no seat token (#t=...): use the invitation link")
        return Seat(base, path[1], token)
    if len(path) != 2 or path[0] != "j":
        raise LinkError(f"{url!r} is neither an invitation (/j/CODE) nor a seat link (/g/ID#t=)")
    code = path[1]
    http = client or httpx2.Client(base_url=base, timeout=15)
    try:
        lobby = read_answer(http.get(f"{base}/api/invitations/{code}"), LobbyOut)
        joined = read_answer(
            http.post(f"{base}/api/games/{lobby.game_id}/join", json={"code": code, "name": name}),
            JoinedOut,
        )
    except httpx2.HTTPError as error:
        raise LinkError(f"cannot reach {base}: {error}") from None
    finally:
        if client is None:
            http.close()
    return Seat(base, joined.game_id, joined.token)


def read_answer(response: httpx2.Response, model: type[Answer]) -> Answer:
    """The answer as its wire schema; a refusal (or an answer that is not the schema's) raises
    ``LinkError`` with the server's own words."""
    if not response.is_success:
        try:
            message = ErrorOut.model_validate_json(response.content).error.message
        except ValidationError:
            message = f"the server answered {response.status_code}"
        raise LinkError(message)
    try:
        return model.model_validate_json(response.content)
    except ValidationError:
        raise LinkError(f"the server's answer is no {model.__name__}") from None


async def seat_request(seat: Seat, method: str, path: str) -> httpx2.Response:
    """A request about the seat's game (``/api/games/ID/PATH``) with the seat's token."""
    async with httpx2.AsyncClient(timeout=15) as http:
        return await http.request(
            method,
            f"{seat.base}/api/games/{seat.game_id}/{path}",
            headers={"X-Seat-Token": seat.token},
        )


async def fetch_hints(seat: Seat) -> list[tuple[Action, float]]:
    """The server's hint for the seat: actions, each with its chance to win. Raises
    ``httpx2.HTTPError`` or ``LinkError`` (the server's refusal, in its words)."""
    return hints(read_answer(await seat_request(seat, "GET", "hint"), HintOut))


async def rematch_seat(seat: Seat) -> Seat:
    """The same seat at the rematch of the seat's game (the server starts it, or gives the one
    started). Raises ``httpx2.HTTPError`` or ``LinkError``."""
    joined = read_answer(await seat_request(seat, "POST", "rematch"), JoinedOut)
    return Seat(seat.base, joined.game_id, joined.token)


def hello(seat: Seat, held: int) -> str:
    """The socket's first message: the seat's token, and how many events are held already."""
    return HelloMessage(token=seat.token, events_from=held).text()


def action_message(version: int, action: Action) -> str:
    """The socket message that plays ``action`` on the state of ``version``."""
    return ActionMessage(version=version, action=action.to_json()).model_dump_json()


def is_refusal(code: int | None) -> bool:
    """Whether a socket's close code is the server refusing the seat (final: no retry)."""
    return code is not None and 4400 <= code < 4500


def retry_delay(retry: int) -> float:
    """The seconds to wait before the ``retry``-th attempt (from 0) to connect again."""
    return min(8.0, 0.5 * 2.0**retry)
