"""What the worker processes run (:mod:`.workers`): module-level functions that need only the
engine and the bots.

A call to a worker pickles its function by name, and the worker imports the function's module
on its first call. Kept in a service module, that import was the whole server (the services'
package imports the store, the web schemas, SQLAlchemy and FastAPI): about a second of CPU in
each new worker, which held up the bots' first moves after a restart by seconds (measured with
``benchmarks/restart.py``). This module imports neither, and the fork server imports it with
the bots (:func:`.workers._context`), so a worker is ready for its first call when it starts.
"""

from __future__ import annotations

from typing import Any

import gotown.bots
from gotown.bots import Bot
from gotown.bots.review import review
from gotown.engine import Action, Record, View

#: A longer record (a stuck game up to its turn limit) is reviewed up to here only.
MAX_ACTIONS = 600


def choose(bot: Bot, view: View, legal: tuple[Action, ...]) -> tuple[Action, Bot]:
    """The bot's move (in the bots' worker), and the bot as it is after choosing (from a worker
    process, a copy: its random state moved on)."""
    action = bot.choose(view, legal)
    return action, bot


def hints(legal: tuple[Action, ...], seed: int, view: View) -> list[tuple[Action, float]]:
    """The hint's work (in the hint worker)."""
    return [(a, float(p)) for a, p in gotown.bots.hint(view, legal, seed, 3)]


def after_turn(end: Action, seed: int, view: View) -> float | None:
    """The estimate of the end of a turn from the view before it (in the hint worker)."""
    result = gotown.bots.hint(view, (end,), seed, 1)
    return float(result[0][1]) if result else None


def review_json(
    origin: dict[str, Any], actions: list[dict[str, Any]], seat: int | None, iterations: int
) -> dict[str, Any]:
    """The review of the record ``origin`` + ``actions`` for ``seat`` as JSON (in the review
    worker): the first :data:`MAX_ACTIONS` actions."""
    reviewed = tuple(Action.from_json(a) for a in actions[:MAX_ACTIONS])
    result = review(Record(origin=origin, actions=reviewed), seat, iterations=iterations)
    data = result.to_json()
    data["reviewed_actions"] = len(reviewed)
    data["actions"] = len(actions)
    return data
