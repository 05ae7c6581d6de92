"""What the terminal tests share: the screen as text, a table at a chosen position, and
waiting for the bots."""

from __future__ import annotations

import io
import re
import time
from typing import Any

from rich.console import Console
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import RichLog, Static

from gotown.engine import Game
from gotown.tui.session import LocalSession, Setup

_CLOCK = re.compile(r"\b\d\d:\d\d:\d\d\b")


def _screen(app: App[object], color_system: str | None) -> Console:
    width, height = app.size
    console = Console(
        width=width, height=height, file=io.StringIO(), record=True, color_system=color_system,
        legacy_windows=False, force_terminal=True,
    )  # fmt: skip
    console.print(
        app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    )
    return console


def screen_text(app: App[object]) -> str:
    """The screen as a person reads it, without colour, the header's clock masked (so that a
    snapshot depends on the game only)."""
    lines = [line.rstrip() for line in _screen(app, None).export_text().splitlines()]
    return _CLOCK.sub("hh:mm:ss", "\n".join(lines)) + "\n"


def screen_codes(app: App[object]) -> list[str]:
    """The screen as a 256-colour terminal gets it: one string of escape codes and text a row."""
    return _screen(app, "256").export_text(styles=True).splitlines()


def log_text(app: App[object]) -> str:
    """The whole log, its lines joined with single spaces (as it wraps them is no matter)."""
    return " ".join(" ".join(line.text.split()) for line in app.query_one(RichLog).lines)


def message_text(app: App[object]) -> str:
    return " ".join(app.query_one("#message", Static).render().plain.split())


def session_at(setup: Setup, **position: Any) -> LocalSession:
    """A session of ``setup`` whose game starts at a position (FORMAT.md; hands and towers empty
    and no draw pile unless given, seat 0 to play)."""
    session = LocalSession(setup)
    players = setup.players
    fields = {"players": players, "active": 0, "hands": [[] for _ in range(players)],
              "towers": [[] for _ in range(players)], "draw": [], **position}  # fmt: skip
    session.game = Game.from_position(fields)
    return session


async def wait_until(pilot: Pilot[object], done: object, seconds: float = 60.0) -> None:
    """Let the app run (its bot workers included) until ``done()`` holds."""
    deadline = time.monotonic() + seconds
    while not done():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError("the app did not get there in time")
        await pilot.pause(0.02)
