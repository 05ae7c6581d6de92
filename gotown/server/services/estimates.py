"""Estimates: the hint (the strong bot's suggestions for a seat's turn) and the chances (a
seat's estimated chance of winning, for its own eyes only).

Each is a search of up to about a second in the one hint worker (a process of its own, so that
it never holds up the bots), computed once per seat, version and kind, and shared by whoever
asks for it meanwhile; the search sees only the seat's view (built in the view worker). The
worker is shared fairly (:class:`~gotown.server.fairgate.FairGate`): the address that asked the
least lately goes first, whatever the others queue. At most ``max_pending_estimates_per_client``
are queued or under way for one client address (one more is 429 ``estimate-busy``, and nothing
is queued), and ``max_pending_estimates`` in all; when those are taken, an address with fewer
queued takes the place of the newest queued estimate of the address with the most
(:class:`~gotown.server.fairgate.Admission`), so that a few addresses cannot fill the queue.
An estimate whose client left runs to its end (it cannot be stopped once in the worker) and
counts until then.

Off its turn, the chances are the estimate of ending its last turn, made on the position just
before it ended: found in linear time (a first replay notes where that end of turn is, a second
one stops there and builds the one view), once per seat and number of actions.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from gotown.engine import Action, Game, View

from .. import schemas
from ..config import Settings
from ..errors import ConflictError, DomainError, UnavailableError
from ..fairgate import Admission, FairGate
from ..storage import StoredGame
from ..work import after_turn, hints
from ..workers import Workers
from .registry import LiveGame, PerGame, Registry, new_game, shared_once
from .seat_states import SeatStates
from .tokens import require_seat

log = logging.getLogger("gotown.server")

T = TypeVar("T")

#: A seat's last end of turn: the version before it, the seat's view then, and the action.
TurnEnd = tuple[int, View, Action]


def last_turn_end(stored: StoredGame, actions: list[dict[str, Any]], seat: int) -> TurnEnd | None:
    """The version, the seat's view and the action of the seat's last end of turn, if any, in
    linear time (a view holds every event so far: one at each end of turn would be
    quadratic in the game's length)."""
    game = new_game(stored)
    last: int | None = None
    for index, data in enumerate(actions):
        action = Action.from_json(data)
        if game.active == seat and action.type == "end-turn":
            last = index
        game.apply(action)
    if last is None:
        return None
    game = new_game(stored)
    for data in actions[:last]:
        game.apply(Action.from_json(data))
    return game.version, game.view(seat), Action.from_json(actions[last])


@dataclass
class _Cache:
    """What estimates keep of one game: (seat, version, kind) -> the answer, and (seat, number
    of actions) -> the seat's last end of turn then (only the newest few per seat)."""

    answers: dict[tuple[int, int, str], asyncio.Future[Any]] = field(default_factory=dict)
    turn_ends: dict[tuple[int, int], asyncio.Future[TurnEnd | None]] = field(default_factory=dict)


class Estimates:
    def __init__(self, settings: Settings, registry: Registry, seat_states: SeatStates) -> None:
        self.settings = settings
        self.registry = registry
        self.seat_states = seat_states
        self.workers = Workers("hint", 1, processes=settings.worker_processes, niceness=5)
        self.gate = FairGate(1)
        self._pending = Admission(
            self.gate,
            settings.max_pending_estimates_per_client,
            settings.max_pending_estimates,
            "estimates",
        )
        self._of = PerGame(_Cache)

    async def _estimate(
        self,
        live: LiveGame,
        key: tuple[int, int, str],
        compute: Callable[[View], T],
        view: View | Game,
        client: str,
    ) -> T:
        """``compute(view)`` in the hint worker, at most once per ``key`` (seat, version,
        kind). ``view``: the seat's view, or the game to build it from (in the view worker)."""
        seat = key[0]
        answers = self._of(live).answers

        def keep_the_newest() -> None:
            mine = sorted(k for k in answers if k[0] == seat)
            for old in mine[: max(0, len(mine) - 4)]:
                answers.pop(old, None)

        async def run() -> T:
            seen = view
            if isinstance(seen, Game):
                seen = await self.seat_states.seat_view(seen, seat)
            async with self.gate.slot((live.id, seat), client):
                return await self.workers.run(compute, seen)

        def start() -> asyncio.Future[T]:
            self._pending.admit(client)  # (raises before anything is queued)
            future = asyncio.ensure_future(run())
            future.add_done_callback(lambda _future: self._pending.done(client))
            return future

        try:
            return await shared_once(answers, key, start, keep_the_newest)
        except (asyncio.CancelledError, DomainError):
            raise
        except Exception as exc:
            log.exception("the estimate for seat %s failed in game %s", seat, live.id)
            raise UnavailableError("estimate-failed", "the estimate failed: try again") from exc

    async def _hints_now(self, live: LiveGame, game: Game, client: str) -> Any:
        """The hint for the seat to act in ``game`` (shared by the hint and the chances)."""
        seed = self.settings.hint_seed + game.version
        work = functools.partial(hints, game.legal_actions(), seed)
        return await self._estimate(live, (game.active, game.version, "hint"), work, game, client)

    async def hint(self, game_id: str, token: str | None, client: str = "?") -> schemas.HintOut:
        live = await self.registry.current(game_id)
        seat = require_seat(live, token)
        game = live.game
        if game is None or game.is_over:
            raise ConflictError("no-hint", "there is nothing to hint: the game is not running")
        if game.active != seat:
            raise ConflictError("not-your-turn", "hints are for your own turn")
        result = await self._hints_now(live, game, client)
        return schemas.HintOut(
            version=game.version,
            hints=[schemas.HintItem(action=a.to_json(), win_probability=p) for a, p in result],
        )

    async def chances(
        self, game_id: str, token: str | None, client: str = "?"
    ) -> schemas.ChancesOut:
        """On its turn: the best action's estimate now (shared with the hint). Otherwise: the
        estimate of ending its last turn, from the position just before it ended."""
        live = await self.registry.current(game_id)
        seat = require_seat(live, token)
        game = live.game
        if game is None or game.is_over:
            raise ConflictError(
                "not-running", "there are no chances to estimate: the game is not running"
            )
        if game.active == seat:
            result = await self._hints_now(live, game, client)
            p = result[0][1] if result else None
            return schemas.ChancesOut(
                version=game.version, basis="turn", of_version=game.version, win_probability=p
            )
        found = await self._last_turn_end_of(live, seat)
        if found is None:
            return schemas.ChancesOut(
                version=game.version, basis="none", of_version=None, win_probability=None
            )
        version, view, end = found
        work = functools.partial(after_turn, end, self.settings.hint_seed + version)
        p_after = await self._estimate(live, (seat, version, "after-turn"), work, view, client)
        return schemas.ChancesOut(
            version=game.version, basis="after-turn", of_version=version, win_probability=p_after
        )

    async def _last_turn_end_of(self, live: LiveGame, seat: int) -> TurnEnd | None:
        """:func:`last_turn_end` of the game as it is now, in the view worker, found once per
        (seat, number of actions): only the newest is kept for each seat."""
        stored = live.stored
        actions = list(stored.actions)
        turn_ends = self._of(live).turn_ends
        loop = asyncio.get_running_loop()

        def keep_the_newest() -> None:
            for key in [key for key in turn_ends if key[0] == seat and key[1] != len(actions)]:
                turn_ends.pop(key, None)

        return await shared_once(
            turn_ends,
            (seat, len(actions)),
            lambda: loop.run_in_executor(
                self.seat_states.executor, last_turn_end, stored, actions, seat
            ),
            keep_the_newest,
        )
