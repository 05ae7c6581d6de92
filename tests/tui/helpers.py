"""What the terminal tests share: the screen as text, and waiting for the bots."""

from __future__ import annotations

import io
import re
import time

from rich.console import Console
from textual.app import App
from textual.pilot import Pilot

_CLOCK = re.compile(r"\b\d\d:\d\d:\d\d\b")


def screen_text(app: App[object]) -> str:
    """The screen as a person reads it, without colour, the header's clock masked (so that a
    snapshot depends on the game only)."""
    width, height = app.size
    console = Console(
        width=width, height=height, file=io.StringIO(), record=True, color_system=None,
        legacy_windows=False, force_terminal=True,
    )  # fmt: skip
    console.print(
        app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    )
    lines = [line.rstrip() for line in console.export_text().splitlines()]
    return _CLOCK.sub("hh:mm:ss", "\n".join(lines)) + "\n"


async def wait_until(pilot: Pilot[object], done: object, seconds: float = 60.0) -> None:
    """Let the app run (its bot workers included) until ``done()`` holds."""
    deadline = time.monotonic() + seconds
    while not done():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError("the app did not get there in time")
        await pilot.pause(0.02)
