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
  up to there). The work of a game is bounded: each of its reviews (one per seat, and one
  without a seat's mistakes) is computed once, ever.
- **Computed once, kept for good**: a finished game never changes, so a review is kept in the
  database by game and seat (a restart keeps it; the newest :data:`KEPT` also in memory), and
  simultaneous askers share one computation. Anyone who can name the game (it is known only
  to those at the table and to whom they gave its link: its id is 64 random bits) reads a kept
  review; asking for one not computed yet takes a place in the review worker's queue.
- **Shared fairly**: the review worker is taken in the order of least service
  (:class:`~gotown.server.fairgate.FairGate`: the address that had the least of it lately
  goes first), at most ``max_pending_estimates_per_client`` queued for one address (429
  ``estimate-busy``), and ``max_pending_estimates`` in all, an address with fewer queued taking
  the place of the newest of the address with the most (counted apart from the estimates).
"""

from __future__ import annotations

import asyncio
import collections
import logging
from typing import Any

from pydantic import ValidationError

from gotown.bots.review import QUICK_BUDGET, quick_iterations

from .. import schemas
from ..config import Settings
from ..errors import ConflictError, DomainError, InvalidError, UnavailableError
from ..fairgate import Admission, FairGate
from ..work import MAX_ACTIONS, review_json
from ..workers import Workers
from .registry import Registry, shared_once

log = logging.getLogger("gotown.server")

#: Reviews kept in memory (by game and seat).
KEPT = 128


def iterations_for(actions: int) -> int:
    """The first pass's futures per position for a game of ``actions`` actions: the quick
    review's budget shared by the actions reviewed."""
    return quick_iterations(min(actions, MAX_ACTIONS))


def _is_current(data: dict[str, Any], game_id: str, iterations: int) -> bool:
    """Whether a kept review is what this code answers (one kept by code that reviewed
    otherwise, whose fields differ, is made again)."""
    try:
        schemas.ReviewOut(game_id=game_id, iterations=iterations, **data)
    except (ValidationError, TypeError):
        return False
    return True


__all__ = ["QUICK_BUDGET", "Reviews", "iterations_for", "review_json"]


class Reviews:
    def __init__(self, settings: Settings, registry: Registry) -> None:
        self.settings = settings
        self.registry = registry
        self.workers = Workers("review", 1, processes=settings.worker_processes, niceness=10)
        self._kept: collections.OrderedDict[tuple[str, int | None], asyncio.Future[Any]] = (
            collections.OrderedDict()
        )
        self.gate = FairGate(1)
        self._pending = Admission(  # (counted apart from the estimates)
            self.gate,
            settings.max_pending_estimates_per_client,
            settings.max_pending_estimates,
            "reviews",
        )

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

        store = self.registry.store

        async def compute() -> dict[str, Any]:
            async with self.gate.slot(key, client):
                data = await self.workers.run(review_json, origin, actions, seat, iterations)
            try:
                await self.registry.db(store.store_review, stored.id, seat, data)
            except DomainError:  # (the database does not answer: kept in memory meanwhile)
                log.warning("the review of seat %s of game %s is not kept", seat, stored.id)
            return data

        async def kept_or_computed() -> dict[str, Any]:
            data = await self.registry.db(store.load_review, stored.id, seat)
            if data is not None and _is_current(data, stored.id, iterations):
                return data
            self._pending.admit(client)  # (raises before anything is queued)
            try:
                return await compute()
            finally:
                self._pending.done(client)

        def start() -> asyncio.Future[Any]:
            return asyncio.ensure_future(kept_or_computed())

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
