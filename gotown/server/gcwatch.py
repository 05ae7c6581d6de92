"""Garbage-collection pauses of the server's process: measured, and kept short.

CPython's cyclic collector stops the event loop while it runs, and a full collection (the
oldest generation) walks every object tracked since the process started: with a thousand open
games and their sockets, that is long enough to hold back every client's update at once.
:class:`GcWatch` times every collection (``gc.callbacks``) and keeps the longest pause of each
generation, which the server logs when it stops (``benchmarks/load.py`` reads it there).

:func:`settle` is called once the server has started (and resumed its games): what was made
until then (modules, the application, the games resumed) lives as long as the process, so it is
moved out of the collector's sight (``gc.freeze()``), after one last full collection so that no
garbage is frozen with it. Full collections then walk only what came later.
"""

from __future__ import annotations

import gc
import logging
import time
from typing import Any

log = logging.getLogger("gotown.server.gc")


class GcWatch:
    """The number of collections and the longest pause (seconds) of each generation."""

    def __init__(self) -> None:
        self.longest = [0.0, 0.0, 0.0]
        self.count = [0, 0, 0]
        self._began: float | None = None

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
            return
        if self._began is None:
            return
        pause = time.perf_counter() - self._began
        self._began = None
        generation = min(2, int(info.get("generation", 2)))
        self.count[generation] += 1
        self.longest[generation] = max(self.longest[generation], pause)

    def install(self) -> None:
        if self not in gc.callbacks:
            gc.callbacks.append(self)

    def remove(self) -> None:
        if self in gc.callbacks:
            gc.callbacks.remove(self)

    def summary(self) -> str:
        return (
            f"garbage collection: longest pause {1000 * max(self.longest):.1f} ms; full "
            f"collections {self.count[2]} (longest {1000 * self.longest[2]:.1f} ms), younger "
            f"{self.count[0] + self.count[1]} (longest "
            f"{1000 * max(self.longest[0], self.longest[1]):.1f} ms)"
        )


def settle() -> None:
    """One full collection, then everything still alive frozen (see the module's docstring)."""
    gc.collect()
    gc.freeze()
