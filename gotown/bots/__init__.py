"""Computer players for GoTown, built on :mod:`gotown.engine` only.

Every bot gets a seat's :class:`~gotown.engine.View` (which holds no hidden card) and the legal
actions, and returns one of them; it is seeded and reproducible.

>>> bot = make_bot("hard", seed=1)
>>> action = bot.choose(game.view(game.active), game.legal_actions())   # doctest: +SKIP

This module is the package's API; its parts: the levels, ``random`` to ``expert``, and the bot
each makes (:mod:`~gotown.bots.levels`); bot specs, a level with other settings such as
``hard:iterations=2000`` (:mod:`~gotown.bots.spec`); levels added from above the bots, such as
``ppo`` (:mod:`~gotown.bots.registry`); the hint (:mod:`~gotown.bots.hints`); and the players
themselves (:mod:`~gotown.bots.rules`, :mod:`~gotown.bots.ismcts`).
"""

from __future__ import annotations

from . import _build  # noqa: F401  (first: where the search's modules load from)
from . import ismcts as _ismcts
from .base import Bot, RandomBot, hashed_seed
from .hints import HINT_ITERATIONS, HINT_SECONDS, hint
from .ismcts import SearchBot
from .levels import (
    EASY_NOISE,
    EXPERT_ITERATIONS,
    EXPERT_WORK,
    HARD_ITERATIONS,
    HARD_WORK,
    LEVELS,
    make_bot,
)
from .registry import EXTRA_LEVELS, ExtraLevel, register_level
from .rules import RuleBot
from .spec import BOT_PARAMETERS, BotParameter, bot_from_spec, canonical_spec, parse_bot_spec

#: Whether this process runs the bots' search compiled by mypyc (see :mod:`gotown.bots._build`).
COMPILED: bool = not str(_ismcts.__file__).endswith(".py")

__all__ = [
    "BOT_PARAMETERS",
    "COMPILED",
    "EASY_NOISE",
    "EXPERT_ITERATIONS",
    "EXPERT_WORK",
    "EXTRA_LEVELS",
    "HARD_ITERATIONS",
    "HARD_WORK",
    "HINT_ITERATIONS",
    "HINT_SECONDS",
    "LEVELS",
    "Bot",
    "BotParameter",
    "ExtraLevel",
    "RandomBot",
    "RuleBot",
    "SearchBot",
    "bot_from_spec",
    "canonical_spec",
    "hashed_seed",
    "hint",
    "make_bot",
    "parse_bot_spec",
    "register_level",
]
