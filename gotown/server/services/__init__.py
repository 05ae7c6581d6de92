"""The service layer, between the routes and the storage: one module per job.

===============  ==========================================================================
``registry``     the games held in memory, loaded from and checked against the database
``tokens``       seats' secret tokens
``presence``     which seats are connected, since when one is away (memory:// or redis://)
``seat_states``  what each seat is shown: lobby, state, replay
``moves``        the one road of a move: checked, stored, made current, told
``bots``         the bots at the tables, their workers and the quota of tables of bots only
``play``         create, join, act, rematch
``players``      players' keys and device links
``deadlines``    turn-based tables: paces, deadlines, missed turns, and the scheduler
``notices``      "your turn" by Web Push and e-mail
``circles``      circles of friends, their ratings, a player's page
``seats``        hand a seat to a bot, take it back
``estimates``    hints and chances, and their quota
``review``       the review of a finished game, computed once
``sockets``      the open WebSockets, capped per address, per game and by descriptors
===============  ==========================================================================

:class:`GameService` builds them and runs their lifecycle; routes call the job they need
(``service.play.join(...)``). Services raise :mod:`~gotown.server.errors`, never HTTP.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from ..clock import SYSTEM, Clock
from ..config import Settings
from ..pubsub import PubSub
from ..storage import Store
from .bots import Bots
from .circles import Circles
from .deadlines import Deadlines, Scheduler
from .estimates import Estimates
from .moves import Moves
from .notices import Notices
from .play import Play
from .players import Players
from .presence import LocalPresence, presence_for
from .registry import LiveGame, Registry
from .review import Reviews
from .seat_states import SeatStates
from .seats import Seats
from .sockets import Sockets

log = logging.getLogger("gotown.server")

__all__ = ["GameService"]


class GameService:
    def __init__(
        self, settings: Settings, store: Store, pubsub: PubSub, clock: Clock = SYSTEM
    ) -> None:
        self.settings = settings
        self.store = store
        self.pubsub = pubsub
        self.clock = clock
        self.registry = Registry(settings, store, pubsub)
        self.presence: LocalPresence = presence_for(settings, self.registry)
        self.seat_states = SeatStates(settings, self.registry, self.presence)
        self.moves = Moves(self.registry, clock)
        self.bots = Bots(settings, self.registry, self.seat_states, self.moves, clock)
        self.players = Players(self.registry, clock)
        self.circles = Circles(self.registry, clock)
        self.play = Play(
            settings,
            self.registry,
            self.presence,
            self.seat_states,
            self.bots,
            self.moves,
            clock,
            self.circles,
        )
        self.deadlines = Deadlines(self.registry, self.moves, self.bots, clock)
        self.notices = Notices(settings, self.registry, self.presence, clock)
        self.scheduler = Scheduler(clock, self._next_moment, self._due)
        self.moves.after.append(self.bots.kick)
        self.moves.after.append(self._timed)
        self.moves.after.append(self.circles.after_move)
        self.seats = Seats(self.registry, self.presence, self.seat_states, self.bots, self.play)
        self.estimates = Estimates(settings, self.registry, self.seat_states)
        self.reviews = Reviews(settings, self.registry)
        self.sockets = Sockets(settings, clock=clock)
        #: The games with bots being resumed after the start (:meth:`start`).
        self.resuming: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Start the workers, and resume the running games with bots in the background (the
        server answers meanwhile: a crashed server is back at once): bots whose turn it is play
        on at once, their first move without the bot delay (at tables of bots only, at most
        ``max_bots_only_tables`` of them: the others wait for a place). The games of people
        only are loaded when asked for. Then, until :meth:`close`, drop idle games from memory
        now and then."""
        self.bots.warm()
        self.estimates.workers.warm()
        self.registry.start_sweeping()
        self.scheduler.start()
        self.resuming = asyncio.get_running_loop().create_task(self._resume())

    async def _resume(self) -> None:
        try:
            game_ids = await self.registry.db(self.store.game_ids_to_resume)
        except Exception:  # the database may be away: the bots play on when asked for
            log.exception("cannot find the games to resume")
            game_ids = []
        for game_id in game_ids:
            if self.registry.closing:
                return
            try:
                live = await self.registry.live(game_id)
            except Exception:  # a broken record must not stop the server
                log.exception("cannot resume game %s", game_id)
                continue
            self.bots.kick(live, at_once=True)
        try:
            await self.circles.rate_missed()
        except Exception:  # the database may be away: the next start rates them
            log.exception("cannot rate the games ended before the last stop")

    def _timed(self, live: LiveGame) -> None:
        """After a move at a turn-based table: a deadline or a notice may be due sooner."""
        if live.stored.pace is not None:
            self.scheduler.poke()

    async def _next_moment(self) -> float | None:
        return await self.registry.db(self.store.next_moment)

    async def _due(self) -> None:
        await self.deadlines.fire_due()
        await self.notices.dispatch()

    async def close(self) -> None:
        if self.resuming is not None and not self.resuming.done():
            self.resuming.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.resuming
        await self.scheduler.stop()
        await self.circles.close()
        self.registry.stop()
        await asyncio.gather(self.bots.close(), self.presence.stop_heartbeats())
        # (together: each may wait for a decision under way to end)
        workers = [*self.bots.shutdown_workers(), self.estimates.workers, self.reviews.workers]
        await asyncio.gather(*(asyncio.to_thread(w.shutdown) for w in workers))
        self.seat_states.close()
        await self.notices.close()
        await self.presence.close()
        await self.registry.changes.close()
