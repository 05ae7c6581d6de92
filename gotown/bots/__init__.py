"""Computer players for GoTown, built on :mod:`gotown.engine` only.

Every bot gets a seat's :class:`~gotown.engine.View` (which holds no hidden card) and the legal
actions, and returns one of them; it is seeded and reproducible.

>>> bot = make_bot("hard", seed=1)
>>> action = bot.choose(game.view(game.active), game.legal_actions())   # doctest: +SKIP

Levels, weakest first:

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

from collections.abc import Sequence

from gotown.engine import Action, View

from .base import Bot, RandomBot, hashed_seed
from .ismcts import SearchBot
from .rules import RuleBot

#: The levels a player can pick by name, weakest first.
LEVELS = ("random", "easy", "medium", "hard", "expert")

HARD_ITERATIONS = 1000
EXPERT_ITERATIONS = 4000
#: Work caps (simulated actions, :mod:`gotown.bots.ismcts`) by player count. With two players
#: the iterations alone bound a decision (1,000 of them are about 37,500 units); with four,
#: 1,000 iterations are about 100,000 units, each about 1.6 times as dear (measured 10 µs
#: against 6.4), so 50,000 units keep a four-player decision near a two-player one.
HARD_WORK: dict[int, int | None] = {2: None, 3: 50_000, 4: 50_000}
EXPERT_WORK: dict[int, int | None] = {2: None, 3: 200_000, 4: 200_000}
#: The hint's budget: the expert's iterations, capped so that a web request stays under ~1 s.
HINT_ITERATIONS = EXPERT_ITERATIONS
HINT_SECONDS = 0.8


def make_bot(level: str, seed: int) -> Bot:
    """A new bot of ``level`` (one of :data:`LEVELS`), reproducible from ``seed``."""
    if level == "random":
        return RandomBot(seed)
    if level == "easy":
        return RuleBot("easy", seed, careful=False, noise=0.1)
    if level == "medium":
        return RuleBot("medium", seed, careful=True)
    if level == "hard":
        return SearchBot(
            "hard", seed, iterations=HARD_ITERATIONS, rollout_turns=None, work=HARD_WORK
        )
    if level == "expert":
        return SearchBot(
            "expert", seed, iterations=EXPERT_ITERATIONS, rollout_turns=None, work=EXPERT_WORK
        )
    raise ValueError(f"unknown bot level {level!r}; the levels are {', '.join(LEVELS)}")


def hint(
    view: View, legal_actions: Sequence[Action], seed: int, top: int = 3
) -> list[tuple[Action, float]]:
    """The strong bot's ``top`` actions for this position, best first, each with its
    estimated probability that the view's seat goes on to win after playing it.

    The search runs :data:`HINT_ITERATIONS` iterations or :data:`HINT_SECONDS`, whichever
    comes first (so under load it answers in time, with a less certain estimate).
    """
    if not legal_actions:
        return []
    bot = SearchBot(
        "hint", seed, iterations=HINT_ITERATIONS, seconds=HINT_SECONDS, rollout_turns=None
    )
    return bot.evaluate(view, legal_actions)[:top]


__all__ = [
    "EXPERT_ITERATIONS",
    "EXPERT_WORK",
    "HARD_ITERATIONS",
    "HARD_WORK",
    "LEVELS",
    "Bot",
    "RandomBot",
    "RuleBot",
    "SearchBot",
    "hashed_seed",
    "hint",
    "make_bot",
]
