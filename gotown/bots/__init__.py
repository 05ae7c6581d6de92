"""Computer players for GoTown, built on :mod:`gotown.engine` only.

>>> bot = make_bot("random", seed=1)
>>> action = bot.choose(view, legal_actions)   # doctest: +SKIP
"""

from __future__ import annotations

from .base import Bot, RandomBot

#: The levels a player can pick by name, weakest first.
LEVELS = ("random", "easy", "medium", "hard", "expert")


def make_bot(level: str, seed: int) -> Bot:
    """A new bot of ``level`` (one of :data:`LEVELS`), reproducible from ``seed``."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; the levels are {', '.join(LEVELS)}")
    # Until the stronger levels land, every level plays at random.
    return RandomBot(seed)


__all__ = ["LEVELS", "Bot", "RandomBot", "make_bot"]
