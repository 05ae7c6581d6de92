"""The levels a player picks by name, weakest first, and the bot each one makes.

- ``random``: a uniformly random legal action.
- ``easy``: builds and steals at once, keeps a dog on its top floor, plays every other card as
  soon as it can; overlooks things (a random action) one time in ten.
- ``medium``: the rules of a sensible player (:mod:`gotown.bots.rules`): a pair kept in hand
  while its floor would probably be stolen (card counting), until a dog can guard it, the hand
  is full or no opponent acts before its next turn; steals hurting the leader first, cards
  played in a careful order (thief first, joker floors last, the dog on the new top floor),
  attacks aimed at the player closest to winning.
- ``hard``: SO-ISMCTS (Cowling, Powley & Whitehouse 2012; :mod:`gotown.bots.ismcts`) with
  :data:`HARD_ITERATIONS` iterations per decision, and with three or four players at most
  :data:`HARD_WORK` units of work (so that a decision takes about as long as with two).
- ``expert``: the same search with :data:`EXPERT_ITERATIONS` iterations and
  :data:`EXPERT_WORK`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import ismcts
from .base import Bot, RandomBot
from .ismcts import SearchBot
from .rules import RuleBot

#: The levels a player can pick by name, weakest first.
LEVELS = ("random", "easy", "medium", "hard", "expert")

#: How often ``easy`` overlooks things (plays a random action).
EASY_NOISE = 0.1
#: ``hard``'s budget: what a median decision affords in 150 ms with the engine and the search
#: compiled by mypyc, which run them 2.4x as fast as their sources (on the positions of
#: ``benchmarks/engine_builds.py``, 2,500 iterations took a median 140 ms of CPU time there,
#: 1,000 took 132 ms on the sources). It was 1,000 before the search was compiled
#: (``docs/research/2026-11-28-compiled-search.md``).
HARD_ITERATIONS = 2500
#: ``expert``'s budget: 1.6 times ``hard``'s, a median 0.2 s a decision compiled. More does not
#: pay: against ``medium`` 57.0% at 1,000, 61.6% at 2,500, 64.3% at 4,000 and at 10,000
#: iterations, and 10,000 won no more of the same deals than 4,000, against ``medium`` or
#: ``hard``, for 2.5 times the time (``docs/research/2026-11-29-expert-budget.md``).
EXPERT_ITERATIONS = 4000
#: Work caps (simulated actions, :mod:`gotown.bots.ismcts`) by player count. With two players
#: the iterations alone bound a decision (1,000 of them are about 37,500 units); with four,
#: 1,000 iterations are about 100,000 units, each about 1.6 times as dear (measured 10 µs
#: against 6.4), so 50,000 units keep a four-player decision near a two-player one.
HARD_WORK: dict[int, int | None] = {2: None, 3: 50_000, 4: 50_000}
EXPERT_WORK: dict[int, int | None] = {2: None, 3: 200_000, 4: 200_000}


def make_bot(level: str, seed: int) -> Bot:
    """A new bot of ``level`` (one of :data:`LEVELS`), reproducible from ``seed``."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; the levels are {', '.join(LEVELS)}")
    return new_bot(level, level, seed, {})


def new_bot(level: str, name: str, seed: int, params: Mapping[str, int | float]) -> Bot:
    """A bot of ``level`` named ``name``, with the parameters given (checked by
    :func:`~gotown.bots.spec.parse_bot_spec`) and the level's own otherwise."""
    if level == "random":
        return RandomBot(seed)
    if level in ("easy", "medium"):
        noise = params.get("noise", EASY_NOISE if level == "easy" else 0.0)
        return RuleBot(name, seed, careful=level == "medium", noise=noise)
    search: dict[str, Any] = {
        "iterations": HARD_ITERATIONS if level == "hard" else EXPERT_ITERATIONS,
        "work": HARD_WORK if level == "hard" else EXPERT_WORK,
        "rollout_turns": None,
        **params,
    }
    search["infer"] = bool(search.get("infer", 0))  # a spec's 0 or 1; the search takes a bool
    return SearchBot(name, seed, **search)


def level_defaults(level: str) -> dict[str, int | float | None]:
    """The values a level gives the parameters a spec may set (None: no number, e.g. no time
    cap; ``work`` is left out: its default is one cap per player count)."""
    if level in ("easy", "medium"):
        return {"noise": EASY_NOISE if level == "easy" else 0.0}
    if level in ("hard", "expert"):
        return {
            "iterations": HARD_ITERATIONS if level == "hard" else EXPERT_ITERATIONS,
            "seconds": None,
            "exploration": ismcts.EXPLORATION,
            "epsilon": ismcts.EPSILON,
            "rollout_turns": None,
            "infer": 0,
        }
    return {}
