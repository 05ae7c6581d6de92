"""The one road of a move: a person's (from the page or the terminal, over HTTP or a socket), a
bot's, a stand-in's, or a deadline's. :meth:`Moves.make` takes the game's lock, brings the copy
up to the database, lets the caller check what it needs, checks the move against the version it
was made on and the engine's rules, stores it, makes it current, tells every process and socket,
and wakes what waits on a move (the bots, the deadlines' scheduler).

The action, its turn-based bookkeeping (:func:`~.deadlines.turn_record`: the next turn's
deadline, its "your turn" notice) and, when it ends the game, the status are one write: a
failure between two writes would answer "try again" for an action that was made. Who made it
(the seat's kind) is checked in that write too: another process may have handed the seat over,
or taken it back from its bot, since this one looked.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from gotown.engine import Action, GoTownError, IllegalActionError, InvalidActionError

from .. import metrics
from ..clock import Clock
from ..errors import ConflictError, InvalidError
from ..storage import ConflictError as WriteConflictError
from ..storage import SeatChangedError
from ..storage_turns import apply_turn
from .deadlines import turn_record
from .registry import LiveGame, Registry

#: A caller's check under the lock, given whether the copy was just reloaded; it raises a
#: :class:`~gotown.server.errors.DomainError` (or its own exception) to stop the move.
Check = Callable[[LiveGame, bool], None]


def parse_action(data: Any) -> Action:
    try:
        return Action.from_json(data)
    except (GoTownError, TypeError, KeyError, ValueError) as exc:
        raise InvalidError("invalid-action", f"not an action: {exc}") from exc


class Moves:
    def __init__(self, registry: Registry, clock: Clock) -> None:
        self.registry = registry
        self.clock = clock
        #: Called after every move, outside the lock (the bots, the scheduler).
        self.after: list[Callable[[LiveGame], None]] = []

    async def make(
        self,
        live: LiveGame,
        seat: int,
        version: int,
        data: Any,
        *,
        kind: str,
        check: Check | None = None,
        catch_up: bool = True,
        timed_out: bool = False,
    ) -> None:
        """Make ``seat``'s action ``data`` on ``version``: ``kind`` is who makes it ("human",
        "bot" or "standin", as the seat must still be played); ``check`` runs under the lock;
        ``catch_up``: read the database first when several processes share it (else only when
        the move was made on a version this process has not seen); ``timed_out``: the turn's
        deadline passed and the server ends it for the seat (one more turn missed)."""
        async with live.lock:
            reloaded = False
            if self.registry.shared and (live.game is None or version > live.game.version):
                # (the client saw more than this copy: another process moved, read the database)
                reloaded = await self.registry.catch_up(live, locked=True)
            elif self.registry.shared and catch_up:  # (a change this process has not seen)
                reloaded = await self.registry.catch_up_if_changed(live, locked=True)
            if check is not None:
                check(live, reloaded)
            await self.apply(live, seat, version, data, kind=kind, timed_out=timed_out)
        await self.told(live)

    async def told(self, live: LiveGame) -> None:
        """Tell every process and socket, and wake what waits on a move."""
        await self.registry.notify(live, "action")
        for wake in self.after:
            wake(live)

    async def apply(
        self, live: LiveGame, seat: int, version: int, data: Any, *, kind: str, timed_out: bool
    ) -> None:
        """Check and apply one action of ``seat``; the caller holds the game's lock."""
        game = live.game
        if game is None:
            raise ConflictError("not-started", "the game has not started: seats are still free")
        if game.is_over:
            raise ConflictError("game-over", "the game is over")
        if version != game.version:
            raise ConflictError(
                "stale-version",
                f"this action was made on version {version}, but the game is at version "
                f"{game.version}: it is stale or was already sent",
            )
        if game.active != seat:
            raise ConflictError("not-your-turn", f"it is seat {game.active}'s turn, not yours")
        action = parse_action(data)
        after = game.copy()
        try:
            after.apply(action)
        except IllegalActionError as exc:
            raise InvalidError("illegal-action", exc.reason, rule=exc.rule) from exc
        except InvalidActionError as exc:
            raise InvalidError("invalid-action", str(exc)) from exc
        stored = live.stored
        now = self.clock.time()
        record = turn_record(stored, game, after, seat, now, timed_out=timed_out)
        store_it = functools.partial(
            self.registry.store.append_action, ends=after.is_over, kind=kind, turn=record
        )
        try:
            await self.registry.write(live.id, store_it, live.id, version, seat, action.to_json())
        except SeatChangedError as exc:
            await self.registry.reload(live)
            if kind == "human" and live.stored.seats[seat].standin:
                raise ConflictError(
                    "standin-plays", "your time for this turn ran out: a bot plays it for you"
                ) from exc
            if kind == "human":
                raise ConflictError("seat-is-bot", f"{exc}: take it back first") from exc
            raise ConflictError("stale-version", str(exc)) from exc  # (a bot's: not shown)
        except WriteConflictError as exc:
            await self.registry.reload(live)
            raise ConflictError("stale-version", "another action was applied first") from exc
        live.game = after
        metrics.action_stored(self.registry.pubsub.id, live.id, after.version, seat, kind)
        live.used = self.clock.monotonic()
        stored.actions.append(action.to_json())
        if after.is_over:
            stored.status = "over"
        if record is not None:
            apply_turn(record, stored)
