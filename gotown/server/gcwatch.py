"""Garbage-collection pauses of the server's process: measured, and kept short.

CPython's cyclic collector stops the event loop while it runs, and a full collection (the
oldest generation) walks every object tracked since the process started: with a thousand open
games and their sockets, that is long enough to hold back every client's update at once.
:class:`GcWatch` times every collection (``gc.callbacks``) and keeps the longest pause of each
generation, which the server logs when it stops (``benchmarks/load.py`` reads it there).

:func:`settle` is called once the server has started (and resumed its games): what was made
until then (modules, the application, the games resumed) lives as long as the process, so it is
moved out of the collector's sight (``gc.freeze()``). Without a full collection first: it found
nothing to free there (0 of 117,468 objects: the young generations' own collections had taken
the import's garbage) and held up a restart's first answer by 0.06 s on a quiet machine, 0.5 s
on a loaded one (``benchmarks/restart.py``). Full collections then walk only what came later,
and happen far less often (:data:`THRESHOLDS`): with the default thresholds, every action's new
copy of its game (kept until the next action) counts towards the next full collection, which
came every few seconds under load and paused the loop for up to half a second at 200 open games
(``benchmarks/load.py``, on a loaded machine); with these, none came in a minute at 1,000
games and 50 actions a second.
"""

from __future__ import annotations

import collections
import gc
import logging
import time
from typing import Any

log = logging.getLogger("gotown.server.gc")


LONG_PAUSE = 0.02
"""Seconds: pauses this long or longer are kept one by one, with the time they ended."""


class GcWatch:
    """The number of collections and the longest pause (seconds) of each generation, and the
    last long pauses (wall-clock end, generation, seconds)."""

    def __init__(self) -> None:
        self.longest = [0.0, 0.0, 0.0]
        self.count = [0, 0, 0]
        self.long_pauses: collections.deque[tuple[float, int, float]] = collections.deque(
            maxlen=1000
        )
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
        if pause >= LONG_PAUSE:
            self.long_pauses.append((time.time(), generation, pause))

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
            f"{1000 * max(self.longest[0], self.longest[1]):.1f} ms); pauses of "
            f"{1000 * LONG_PAUSE:.0f} ms or more (end, generation, ms): "
            + (" ".join(f"{t:.3f}/{g}/{1000 * p:.1f}" for t, g, p in self.long_pauses) or "none")
        )


THRESHOLDS = (700, 10, 10_000)
"""``gc.set_threshold``: the young generations as by default (many short pauses: larger ones,
tried at 5,000 and 10,000 new objects, made each young collection long enough to set the p99
of the updates, 180 ms against 56 ms at 50 actions a second), and a full collection only after
10,000 collections of the older young generation rather than 10 (some 70 million new objects:
minutes under load). Garbage cycles among long-lived objects (a closed socket's) wait that much
longer for the full collection that frees them."""


def settle() -> None:
    """Everything alive frozen, and the thresholds set (see the module's docstring)."""
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
