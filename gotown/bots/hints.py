"""The hint: the strong bot's best actions for a position, each with its chance to win."""

from __future__ import annotations

from collections.abc import Sequence

from gotown.engine import Action, View

from .ismcts import SearchBot

#: The hint's budget: a web request, whose cost multiplies under load, so ``expert``'s
#: 4,000 iterations (~0.2 s compiled), and never more than HINT_SECONDS.
HINT_ITERATIONS = 4000
HINT_SECONDS = 0.8


def hint(
    view: View, legal_actions: Sequence[Action], seed: int, top: int = 3
) -> list[tuple[Action, float]]:
    """The strong bot's ``top`` actions for this position, best first, each with its
    estimated probability that the view's seat goes on to win after playing it.

    The search runs :data:`HINT_ITERATIONS` iterations or :data:`HINT_SECONDS`, whichever
    comes first (so under load it answers in time, with a less certain estimate, and perhaps
    fewer than ``top`` actions: one the search never tried has no estimate to give).
    """
    if not legal_actions:
        return []
    bot = SearchBot(
        "hint", seed, iterations=HINT_ITERATIONS, seconds=HINT_SECONDS, rollout_turns=None
    )
    return bot.evaluate(view, legal_actions, unsearched=False)[:top]
