"""``gotown play --connect URL --plain``: a seat at a server's game, line by line, as
:func:`~gotown.tui.plain.play_plain` plays a game here (the seat and its socket:
:mod:`gotown.tui.client`)."""

from __future__ import annotations

import asyncio
from typing import TextIO

from pydantic import ValidationError
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from gotown.engine import Action, View
from gotown.wire import ErrorMessage, StateMessage, read_message

from .client import Seat, action_message, fetch_hints, hello, is_refusal, retry_delay
from .plain import PersonLeftError, PlainSeat
from .protocol import join_state, lobby_names, refusal_text, waiting_text


async def play_remote_plain(seat: Seat, stdin: TextIO, stdout: TextIO) -> int:
    """The seat line by line (0 when the game ended, 1 when the input ended or the person
    left). A dropped connection is retried as the full screen does; a move typed meanwhile is
    asked for again."""
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
                            plain.ask, stdin, view, legal, lambda: hint_now(seat)
                        )
                    asked = view.version
                    await socket.send(action_message(view.version, action))
            code = None
        except PersonLeftError:
            return 1
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd is not None else None
        except (OSError, InvalidStatus, TimeoutError) as error:
            code = None
            plain.say(f"Cannot reach {seat.base} ({error}).")
        if is_refusal(code):
            if code == 4422 and view is not None:
                view = None  # a resume the server refused: ask for every event
                continue
            plain.say(f"The server closed the seat (code {code}).")
            return 1
        if not reached:
            return 1  # never connected: nothing to come back to
        delay = retry_delay(retry)
        retry += 1
        plain.say(f"Connection lost: trying again in {delay:g} s...")
        await asyncio.sleep(delay)


def hint_now(seat: Seat) -> list[tuple[Action, float]]:
    """The server's hint for the seat (from a worker thread: it may take a second)."""
    return asyncio.run(fetch_hints(seat))
