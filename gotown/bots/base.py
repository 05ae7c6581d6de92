"""The bot interface: a seat's view and the legal actions in, one action out.

A bot never receives a :class:`~gotown.engine.Game`, only a :class:`~gotown.engine.View`
(which holds no hidden card), so it cannot peek: the interface makes it impossible.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from gotown.engine import Action, View


def hashed_seed(text: str) -> int:
    """A bot's seed from a text naming where it plays: the first 8 bytes of its SHA-256. A
    one-way hash, so that a bot cannot work out from its seed the seed that dealt the game
    (R22); callers name the game's seed and the seat in ``text``."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


@runtime_checkable
class Bot(Protocol):
    """A player: seeded, reproducible, and given only what its seat may know (R22)."""

    name: str

    def choose(self, view: View, legal_actions: Sequence[Action]) -> Action:
        """Return one of ``legal_actions`` for the seat of ``view``."""
        ...


class RandomBot:
    """Plays a uniformly random legal action (the ``random`` level)."""

    name = "random"

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: View, legal_actions: Sequence[Action]) -> Action:
        if not legal_actions:
            raise ValueError("no legal action to choose from")
        return legal_actions[self._rng.randrange(len(legal_actions))]
