"""The server's one clock: every reading of the time, and every wait for a moment, goes through
the :class:`Clock` that :func:`~gotown.server.main.create_app` is given.

Turn-based tables live for days, so their tests move time instead of waiting for it: a
:class:`Clock` is the system's time shifted by an offset (0 in production), and
:meth:`Clock.advance` moves the offset on and wakes every :meth:`Clock.sleep` and
:meth:`Clock.sleep_until` whose moment has come. The offset can be given when a process starts
(``GOTOWN_CLOCK_OFFSET``, a test's way to restart a server in the same simulated week) and moved
at run time only where the settings allow it (``test_clock``, never in production).

Readings:

- :meth:`Clock.time`: seconds since the epoch, for what is stored or shared between processes
  (deadlines, presence in Redis);
- :meth:`Clock.now`: the same as an aware UTC ``datetime`` (database rows);
- :meth:`Clock.monotonic`: for intervals within one process (idle games, rate windows); it moves
  with the offset too, so that fast-forwarding a week ages what a week would.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import time


class Clock:
    """The system's clocks, shifted by ``offset`` seconds."""

    def __init__(self, offset: float = 0.0) -> None:
        self._offset = offset
        self._moved: asyncio.Event | None = None

    @property
    def offset(self) -> float:
        return self._offset

    def time(self) -> float:
        return time.time() + self._offset

    def monotonic(self) -> float:
        return time.monotonic() + self._offset

    def now(self) -> dt.datetime:
        return dt.datetime.fromtimestamp(self.time(), dt.UTC)

    def _event(self) -> asyncio.Event:
        if self._moved is None:
            self._moved = asyncio.Event()
        return self._moved

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` of this clock (less when it is moved on meanwhile)."""
        await self.sleep_until_monotonic(self.monotonic() + max(0.0, seconds))

    async def sleep_until(self, moment: float) -> None:
        """Wait until :meth:`time` reaches ``moment``."""
        await self.sleep_until_monotonic(self.monotonic() + (moment - self.time()))

    async def sleep_until_monotonic(self, moment: float) -> None:
        while (left := moment - self.monotonic()) > 0:
            moved = self._event()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(moved.wait(), timeout=left)

    def advance(self, seconds: float) -> None:
        """Move the clock on by ``seconds`` (> 0) and wake the sleepers whose moment came."""
        if not seconds > 0:
            raise ValueError(f"a clock only moves on: {seconds!r} is not a positive duration")
        self._offset += seconds
        moved, self._moved = self._moved, None
        if moved is not None:
            moved.set()


#: The clock of code that was given none (a process's default).
SYSTEM = Clock()
