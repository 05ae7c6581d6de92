"""The review of a finished game (:mod:`gotown.bots.review`): each seat's chance to win after
every action, the turning points, and one seat's mistakes with the better move.

- **Only for a finished game** (409 ``not-over``): the chances are estimated with every hand
  shown, which may be done only once the game is over (R22); then anyone may ask.
- **Off the event loop**, in a worker of its own (a process at a low priority, as the bots'),
  so that a review never holds up a bot or a hint; the whole record goes there, never to a
  bot's worker.
- **Bounded**: about :data:`~gotown.bots.review.QUICK_BUDGET` play-outs in the first pass,
  shared by the game's positions (:func:`iterations_for`; a few seconds a game), at most
  :data:`MAX_ACTIONS` actions reviewed (a longer game, stuck until its turn limit, is reviewed
  up to there), and the estimates' bounds (``max_pending_estimates``, and per client),
  counted apart (429 ``estimate-busy``).
- **Computed once**: a finished game never changes, so a review is kept by game and seat (the
  newest :data:`KEPT` of them); simultaneous askers share one computation.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from typing import Any

from gotown.bots.review import QUICK_BUDGET, quick_iterations, review
from gotown.engine import Action, Record

from .. import schemas
from ..config import Settings
from ..errors import ConflictError, DomainError, InvalidError, UnavailableError
from ..workers import Workers
from .estimates import Pending
from .registry import Registry, shared_once

log = logging.getLogger("gotown.server")

#: A longer record (a stuck game up to its turn limit) is reviewed up to here only.
MAX_ACTIONS = 600
#: Reviews kept in memory (by game and seat).
KEPT = 128


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


def iterations_for(actions: int) -> int:
    """The first pass's futures per position for a game of ``actions`` actions: the quick
    review's budget shared by the actions reviewed."""
    return quick_iterations(min(actions, MAX_ACTIONS))


__all__ = ["QUICK_BUDGET", "Reviews", "iterations_for", "review_json"]


class Reviews:
    def __init__(self, settings: Settings, registry: Registry) -> None:
        self.settings = settings
        self.registry = registry
        self.workers = Workers("review", 1, processes=settings.worker_processes, niceness=10)
        self._kept: collections.OrderedDict[tuple[str, int | None], asyncio.Future[Any]] = (
            collections.OrderedDict()
        )
        self._pending = Pending(settings, "reviews")  # counted apart from the estimates

    async def review(self, game_id: str, seat: int | None, client: str = "?") -> schemas.ReviewOut:
        live = await self.registry.current(game_id)
        stored = live.stored
        if stored.status != "over":
            raise ConflictError(
                "not-over",
                "a review opens when the game is over: during play it would tell what each "
                "seat knew (R22)",
                "R22",
            )
        if seat is not None and not 0 <= seat < stored.players:
            raise InvalidError(
                "unknown-seat",
                f"seat {seat}: the game has seats 0 to {stored.players - 1} (R1)",
                "R1",
            )
        key = (stored.id, seat)
        iterations = iterations_for(len(stored.actions))
        origin = {"players": stored.players, "options": stored.options, "seed": stored.seed}
        actions = list(stored.actions)

        def start() -> asyncio.Future[Any]:
            self._pending.admit(client)  # (raises before anything is queued)
            future = asyncio.ensure_future(
                self.workers.run(review_json, origin, actions, seat, iterations)
            )
            future.add_done_callback(lambda _future: self._pending.done(client))
            return future

        def keep_the_newest() -> None:
            while len(self._kept) > KEPT:
                self._kept.popitem(last=False)

        try:
            data = await shared_once(self._kept, key, start, keep_the_newest)
        except (asyncio.CancelledError, DomainError):
            raise
        except Exception as exc:
            log.exception("the review of seat %s failed in game %s", seat, game_id)
            raise UnavailableError("estimate-failed", "the review failed: try again") from exc
        if key in self._kept:
            self._kept.move_to_end(key)
        return schemas.ReviewOut(game_id=stored.id, iterations=iterations, **data)
