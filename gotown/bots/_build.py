"""Which build of the bots' search a process runs: compiled by mypyc, or its sources.

The search's modules (:data:`COMPILED_MODULES` in ``setup.py``: ``ismcts``, ``rules``,
``sampling``) are compiled with the engine, in the same build, and chosen the same way
(:func:`gotown.engine._build.choose`: ``GOTOWN_PURE=1``, or a source edited since the build,
loads the sources). One more reason here: compiled, they call the compiled engine's classes
directly and refuse any other, so they load from their sources whenever the engine does.
This module is never compiled itself.
"""

from __future__ import annotations

from pathlib import Path

import gotown.engine
from gotown.engine._build import choose

#: The build this process loads the search's modules from: "compiled" or "pure".
BUILD = choose(
    Path(__file__).resolve().parent,
    __name__.rpartition(".")[0],
    None if gotown.engine.COMPILED else "the engine runs its sources",
)
