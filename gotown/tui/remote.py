"""``gotown play --connect URL``: a seat at a game of a running ``gotown serve``, full screen.

The app shows the server's view of its seat and the seat's legal actions; an action is sent over
the socket and shown when the server's state comes back. The seat, its requests and messages:
:mod:`gotown.tui.client`; what the messages mean: :mod:`gotown.tui.protocol`; the same seat line
by line: :mod:`gotown.tui.remote_plain`.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from typing import Any

import httpx2
from pydantic import ValidationError
from textual import work
from textual.binding import Binding
from textual.css.query import NoMatches
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from gotown.engine import Action, GoTownError, View
from gotown.wire import ErrorMessage, PongMessage, StateMessage, StateOut, read_message

from .base import TableApp
from .client import (
    LinkError,
    Seat,
    action_message,
    fetch_hints,
    hello,
    is_refusal,
    rematch_seat,
    retry_delay,
    take_seat,
)
from .protocol import join_state, lobby_names, refusal_text, waiting_text
from .remote_plain import play_remote_plain


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
            if is_refusal(code):
                if code == 4422 and held:
                    self.view = None  # a resume the server refused: ask for every event
                    continue
                return  # the server's refusal, already shown
            delay = retry_delay(retry)
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
        self.send(action_message(self.state.version, action))

    def action_hint(self) -> None:
        if self.view is None or not self.view.is_my_turn:
            self.say("A hint is for your own turn.")
            return
        self.say("Asking the server for a hint...")
        self.ask_hint(self.view.version)

    @work(exclusive=True, group="hint")
    async def ask_hint(self, version: int) -> None:
        try:
            found = await fetch_hints(self.seat)
        except (httpx2.HTTPError, LinkError) as error:
            self.say(f"No hint: {error}")
            return
        if self.view is None or self.view.version != version:
            return
        self.show_hint(found)

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
        try:
            seat = await rematch_seat(self.seat)
        except (httpx2.HTTPError, LinkError) as error:
            self.say(f"No rematch: {error}", refused=True)
            return
        self.seat = seat
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


def run_remote(url: str, name: str = "Terminal", plain: bool = False) -> int:
    """Take the seat a link gives (``LinkError`` when it cannot) and play it: full screen, or
    line by line; the exit code."""
    seat = take_seat(url, name)
    print(f"Your seat: {seat.play_url}\n(keep it to come back to this seat)")
    if plain:
        return asyncio.run(play_remote_plain(seat, sys.stdin, sys.stdout))
    RemoteApp(seat).run()
    return 0
