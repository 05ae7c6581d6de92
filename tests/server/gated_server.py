"""``python -m tests.server.gated_server serve ...``: ``gotown`` whose ``expert`` bots think until
a test lets them (a real server process, for the tests of how it stops).

A gated bot, in the server's worker process, makes the file ``thinking`` in ``GOTOWN_GATE_DIR``
when it starts a decision and answers once the file ``release`` is there (never, when the test
does not make it)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any


class GatedBot:
    name = "gated"

    def __init__(self, gate: str) -> None:
        self.gate = Path(gate)

    def choose(self, view: Any, legal: tuple[Any, ...]) -> Any:
        (self.gate / "thinking").touch()
        while not (self.gate / "release").exists():
            time.sleep(0.01)
        return legal[0]


def main() -> None:
    import gotown.bots

    gate = os.environ["GOTOWN_GATE_DIR"]
    real = gotown.bots.make_bot

    def make_bot(level: str, seed: int) -> Any:
        return GatedBot(gate) if level == "expert" else real(level, seed)

    gotown.bots.make_bot = make_bot  # type: ignore[assignment]
    from gotown.cli import main as gotown_command

    gotown_command(sys.argv[1:])


if __name__ == "__main__":
    main()
