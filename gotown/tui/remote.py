"""``gotown play --connect URL``: a seat at a game of a running ``gotown serve``.

It speaks the web table's public protocol, as the page does, and nothing of the server's code:

- an invitation link ``BASE/j/CODE``: ``GET /api/invitations/CODE`` names the game, and
  ``POST /api/games/ID/join`` ``{"code", "name"}`` takes a free seat and answers its secret
  token; a seat link ``BASE/g/ID#t=TOKEN`` already holds one (the terminal prints it, to come
  back to the same seat later);
- the WebSocket ``BASE/ws/games/ID``: the first message ``{"token": ...}`` (with
  ``"events_from": N`` when coming back holding N events), then ``{"type": "state", "state":
  ...}`` after every change, each holding only the events not sent before; an action goes as
  ``{"type": "action", "version": V, "action": {...}}`` and a refused one comes back as
  ``{"type": "error", "error": {"code", "message", "rule"}}``.

Every answer and message is read as the server's own wire schema (:mod:`gotown.wire`), typed.
A dropped connection is retried, waiting longer each time (up to 8 s), holding the events
already shown; a close code 4400..4499 (the server refusing the seat) is final.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from dataclasses import dataclass
from typing import Any, TextIO, TypeVar
from urllib.parse import urlsplit

import httpx2
from pydantic import BaseModel, ValidationError
from textual import work
from textual.binding import Binding
from textual.css.query import NoMatches
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from gotown.engine import Action, GoTownError, View
from gotown.wire import (
    ActionMessage,
    ErrorBody,
    ErrorMessage,
    ErrorOut,
    HelloMessage,
    HintOut,
    JoinedOut,
    LobbyOut,
    PongMessage,
    StateMessage,
    StateOut,
    read_message,
)

from . import words
from .base import TableApp
from .plain import PersonLeftError, PlainSeat

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
        lobby = _answer(http.get(f"{base}/api/invitations/{code}"), LobbyOut)
        joined = _answer(
            http.post(f"{base}/api/games/{lobby.game_id}/join", json={"code": code, "name": name}),
            JoinedOut,
        )
    except httpx2.HTTPError as error:
        raise LinkError(f"cannot reach {base}: {error}") from None
    finally:
        if client is None:
            http.close()
    return Seat(base, joined.game_id, joined.token)


def _answer(response: httpx2.Response, model: type[Answer]) -> Answer:
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


def hello(seat: Seat, held: int) -> str:
    """The socket's first message: the seat's token, and how many events are held already."""
    return HelloMessage(token=seat.token, events_from=held).text()


def refusal_text(error: ErrorBody) -> str:
    """A refusal in the server's words, with its rule when the words do not name it."""
    rule = error.rule
    return (
        f"{error.message} ({rule})" if rule and f"({rule})" not in error.message else error.message
    )


def waiting_text(state: StateOut) -> str:
    """What a lobby waits for."""
    seats = state.lobby.seats
    taken = sum(1 for s in seats if s.taken)
    return (
        f"Waiting for players: {taken} of {len(seats)} seats taken. Invite them with "
        f"{state.lobby.invite_url or 'the invitation link'}"
    )


def join_state(held: View | None, state: StateOut) -> tuple[View, tuple[Action, ...]] | None:
    """The seat's view and legal actions in a state message, its events joined to those of
    the view ``held`` (the socket sends each event once: a state holds those from its
    ``events_from`` on); None when it starts after the events held (a gap). Raises
    ``GoTownError`` for a view or an action that is not well formed."""
    assert state.view is not None
    events = [e.to_json() for e in held.events] if held is not None else []
    start = state.events_from
    if start > len(events):
        return None
    raw = {**state.view, "events": events[:start] + state.view.get("events", [])}
    return View.from_json(raw), tuple(Action.from_json(a) for a in state.legal)


class RemoteApp(TableApp):
    """The table of a game on a server, for one seat: the server's view of that seat, and its
    legal actions; an action is sent over the socket and shown when the server's state comes."""

    BINDINGS = [
        Binding("h", "hint", "Hint"),
        Binding("slash", "type", "Type a move"),
        Binding("escape", "unpick", "Unpick", show=False),
        Binding("r", "rematch", "Rematch"),
    ]

    def __init__(self, seat: Seat) -> None:
        super().__init__()
        self.seat = seat
        self.state: StateOut | None = None
        self.view: View | None = None
        self.legal: tuple[Action, ...] = ()
        self.socket: Any = None
        self.connected = False

    # -- what the table shows ---------------------------------------------------------------
    def current_view(self) -> View:
        assert self.view is not None
        return self.view

    def current_legal(self) -> tuple[Action, ...]:
        return self.legal

    def seat_names(self) -> list[str]:
        return lobby_names(self.state) if self.state else []

    def away(self) -> list[int]:
        seats = self.state.lobby.seats if self.state else []
        return [s.seat for s in seats if s.kind == "human" and not s.connected]

    def show(self) -> None:
        if self.view is None:
            with contextlib.suppress(NoMatches):
                self.say(self.waiting_text())
            return
        super().show()

    def waiting_text(self) -> str:
        if self.state is None:
            return f"Connecting to {self.seat.base}..."
        return waiting_text(self.state)

    # -- the connection ---------------------------------------------------------------------
    def on_mount(self) -> None:
        self.show()
        self.listen()

    @work(exclusive=True, group="socket")
    async def listen(self) -> None:
        """Hold the socket open, and open it again when it drops (waiting longer each time)."""
        retry = 0
        while True:
            held = len(self.view.events) if self.view is not None else 0
            try:
                async with connect(self.seat.socket_url, open_timeout=15) as socket:
                    await socket.send(hello(self.seat, held))
                    self.socket = socket
                    async for text in socket:
                        retry = 0
                        try:
                            message = read_message(text)
                        except ValidationError as error:
                            self.say(f"The server sent a message this client cannot read: "
                                     f"{error.errors()[0]['msg']}", True)  # fmt: skip
                            continue
                        self.receive(message)
                    code = socket.close_code
            except ConnectionClosed as closed:
                code = closed.rcvd.code if closed.rcvd is not None else None
            except (OSError, InvalidStatus, TimeoutError) as error:
                code = None
                self.say(f"Cannot reach the server ({error}).", refused=True)
            self.socket = None
            if code is not None and 4400 <= code < 4500:
                if code == 4422 and held:
                    self.view = None  # a resume the server refused: ask for every event
                    continue
                return  # the server's refusal, already shown
            delay = min(8.0, 0.5 * 2**retry)
            retry += 1
            self.say(f"Connection lost: trying again in {delay:g} s...", refused=True)
            await asyncio.sleep(delay)

    def receive(self, message: StateMessage | ErrorMessage | PongMessage) -> None:
        if isinstance(message, ErrorMessage):
            self.refused(refusal_text(message.error))
        elif isinstance(message, StateMessage):
            self.take_state(message.state)

    def take_state(self, state: StateOut) -> None:
        """Join the state's events to those held (each is sent once, R22 filtered by the
        server for this seat) and show it."""
        if self.state is not None and state.version < self.state.version:
            return
        if state.view is not None:
            try:
                joined = join_state(self.view, state)
            except GoTownError as error:
                self.say(f"The server sent a state this client cannot read: {error}", True)
                return
            if joined is None:  # events missing in between: connect again for all of them
                self.view = None
                if self.socket is not None:
                    self.close_socket(self.socket)
                return
            self.view, self.legal = joined
        changed = self.state is None or state.version != self.state.version
        self.state = state
        if changed:
            self.played()
        self.show()
        if self.view is None:
            return
        if self.view.over:
            self.show_end("Press r for a rematch.")
        elif changed and self.view.is_my_turn:
            self.focus_actions()

    @work(group="send")
    async def close_socket(self, socket: Any) -> None:
        await socket.close()

    def submit(self, action: Action) -> None:
        if self.socket is None or self.state is None:
            self.refused("not connected to the server: wait until it is back")
            return
        message = ActionMessage(version=self.state.version, action=action.to_json())
        self.send(message.model_dump_json())

    def action_hint(self) -> None:
        if self.view is None or not self.view.is_my_turn:
            self.say("A hint is for your own turn.")
            return
        self.say("Asking the server for a hint...")
        self.ask_hint(self.view.version)

    @work(exclusive=True, group="hint")
    async def ask_hint(self, version: int) -> None:
        try:
            found = _answer(await seat_request(self.seat, "GET", "hint"), HintOut)
        except (httpx2.HTTPError, LinkError) as error:
            self.say(f"No hint: {error}")
            return
        if self.view is None or self.view.version != version:
            return
        self.show_hint(hints(found))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The rematch key is there (and in the footer) once the game is over."""
        if action == "rematch":
            return self.view is not None and self.view.over
        return True

    def action_rematch(self) -> None:
        if self.view is not None and self.view.over:
            self.say("Asking the server for the rematch...")
            self.ask_rematch()

    @work(exclusive=True, group="rematch")
    async def ask_rematch(self) -> None:
        """The rematch's seat (the same one, at the same table), then its socket instead."""
        seat = self.seat
        try:
            joined = _answer(await seat_request(seat, "POST", "rematch"), JoinedOut)
        except (httpx2.HTTPError, LinkError) as error:
            self.say(f"No rematch: {error}", refused=True)
            return
        self.seat = Seat(seat.base, joined.game_id, joined.token)
        self.state, self.view, self.legal = None, None, ()
        self.restart_log()
        self.say(f"A new game. Your seat: {self.seat.play_url}")
        self.listen()

    @work(group="send")
    async def send(self, text: str) -> None:
        try:
            await self.socket.send(text)
        except (ConnectionClosed, AttributeError):
            self.refused("the connection dropped before the move was sent: try again")


def lobby_names(state: StateOut) -> list[str]:
    """A name for each seat of a state's lobby (a bot by its level)."""
    seats = state.lobby.seats
    names = [s.name or (f"{s.level} bot" if s.kind == "bot" else None) for s in seats]
    return words.seat_names(len(seats), names)


def hints(found: HintOut) -> list[tuple[Action, float]]:
    """The server's hints as actions, each with its chance to win."""
    return [(Action.from_json(h.action), h.win_probability) for h in found.hints]


async def play_remote_plain(seat: Seat, stdin: TextIO, stdout: TextIO) -> int:
    """``--connect --plain``: the seat line by line, as :func:`~gotown.tui.plain.play_plain`
    (0 when the game ended, 1 when the input ended or the person left). A dropped connection
    is retried as the full screen does; a move typed meanwhile is asked for again."""
    plain = PlainSeat(stdout, [])
    view: View | None = None
    legal: tuple[Action, ...] = ()
    waiting = ""
    retry = 0
    reached = False  # whether the server ever answered
    while True:
        asked: int | None = None  # the version the person was last asked a move on
        held = len(view.events) if view is not None else 0
        try:
            async with connect(seat.socket_url, open_timeout=15) as socket:
                await socket.send(hello(seat, held))
                while True:
                    try:
                        message = read_message(await socket.recv())
                    except ValidationError as error:
                        plain.say(f"The server sent a message this client cannot read: "
                                  f"{error.errors()[0]['msg']}")  # fmt: skip
                        continue
                    retry, reached = 0, True
                    if isinstance(message, ErrorMessage):
                        plain.say(f"Refused: {refusal_text(message.error)}")
                        asked = None
                    elif isinstance(message, StateMessage):
                        state = message.state
                        plain.names = lobby_names(state)
                        if state.view is None:
                            if waiting != (now := waiting_text(state)):
                                plain.say(now)
                                waiting = now
                            continue
                        joined = join_state(view, state)
                        if joined is None:  # events missing: connect again for all of them
                            view = None
                            break
                        view, legal = joined
                        plain.tell_news(view)
                    if view is None:
                        continue
                    if view.over:
                        plain.show_end(view)
                        return 0
                    if not view.is_my_turn or asked == view.version:
                        continue
                    plain.show_turn(view, legal)
                    action = None
                    while action is None:
                        action = await asyncio.to_thread(
                            plain.ask, stdin, view, legal, lambda: _hint_now(seat)
                        )
                    asked = view.version
                    move = ActionMessage(version=view.version, action=action.to_json())
                    await socket.send(move.model_dump_json())
            code = None
        except PersonLeftError:
            return 1
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd is not None else None
        except (OSError, InvalidStatus, TimeoutError) as error:
            code = None
            plain.say(f"Cannot reach {seat.base} ({error}).")
        if code is not None and 4400 <= code < 4500:
            if code == 4422 and view is not None:
                view = None  # a resume the server refused: ask for every event
                continue
            plain.say(f"The server closed the seat (code {code}).")
            return 1
        if not reached:
            return 1  # never connected: nothing to come back to
        delay = min(8.0, 0.5 * 2**retry)
        retry += 1
        plain.say(f"Connection lost: trying again in {delay:g} s...")
        await asyncio.sleep(delay)


def _hint_now(seat: Seat) -> list[tuple[Action, float]]:
    """The server's hint for the seat (from a worker thread: it may take a second)."""
    return hints(_answer(asyncio.run(seat_request(seat, "GET", "hint")), HintOut))


def run_remote(url: str, name: str = "Terminal", plain: bool = False) -> int:
    """Take the seat a link gives (``LinkError`` when it cannot) and play it: full screen, or
    line by line; the exit code."""
    seat = take_seat(url, name)
    print(f"Your seat: {seat.play_url}\n(keep it to come back to this seat)")
    if plain:
        return asyncio.run(play_remote_plain(seat, sys.stdin, sys.stdout))
    RemoteApp(seat).run()
    return 0
