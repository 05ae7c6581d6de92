"""Hand-over: a seat given to a bot, and taken back by its person.

Another seated person may hand to a bot a free seat, their own, or a person's seat that stays
away (:meth:`~gotown.server.services.presence.LocalPresence.refuse_if_present`). The write is
conditional: the seat is handed over only while still what was decided on (a person who took it
meanwhile, here or on another process, keeps it), and a finished game's seats never change. One
that leaves no person's seat makes a table of bots only, which needs a place among them
(:meth:`~gotown.server.services.bots.Bots.reserve_bots_only`; nothing changes when none is left).
"""

from __future__ import annotations

from .. import schemas
from ..errors import ConflictError, NotFoundError
from .bots import Bots
from .play import Play
from .presence import LocalPresence
from .registry import LiveGame, Registry
from .seat_states import SeatStates
from .tokens import check_seat_number, require_seat


class Seats:
    def __init__(
        self,
        registry: Registry,
        presence: LocalPresence,
        seat_states: SeatStates,
        bots: Bots,
        play: Play,
    ) -> None:
        self.registry = registry
        self.presence = presence
        self.seat_states = seat_states
        self.bots = bots
        self.play = play

    async def hand_to_bot(
        self, game_id: str, token: str | None, seat: int, level: str, client: str = "?"
    ) -> schemas.LobbyOut:
        """Hand ``seat`` to a bot of ``level`` (429 ``too-many-bot-tables``, and nothing
        changes, when it would make one table of bots only too many)."""
        try:
            return await self._hand_to_bot(game_id, token, seat, level, client)
        finally:
            self.bots.release_bots_only(game_id)  # (unless its bots play)

    async def _hand_to_bot(
        self, game_id: str, token: str | None, seat: int, level: str, client: str
    ) -> schemas.LobbyOut:
        live = await self.registry.current(game_id)
        me = require_seat(live, token)
        check_seat_number(live, seat, NotFoundError)
        self.bots.check_level(level)
        for _attempt in range(3):
            self._refuse_if_over(live)  # at once (and again under the lock, below)
            was = await self._decide(live, seat, me)
            async with live.lock:
                # Again under the lock the moves take: the last move may have ended the game
                # while this decided, or waited for the lock.
                self._refuse_if_over(live)
                if await self._hand_over(live, seat, level, was, client):
                    break
                await self.registry.reload(live)  # the seat changed meanwhile: decide again
        else:
            raise ConflictError("seat-taken", f"seat {seat} keeps changing: try again")
        await self.registry.notify(live, "lobby")
        self.bots.kick(live)
        return self.seat_states.lobby(live, "")

    @staticmethod
    def _refuse_if_over(live: LiveGame) -> None:
        if live.stored.status == "over":
            raise ConflictError("game-over", "the game is over")

    async def _decide(self, live: LiveGame, seat: int, me: int) -> tuple[str, str | None] | None:
        """Whether ``me`` may hand ``seat`` over; answers what the seat must still be for the
        write (None: whatever it is: one's own seat)."""
        if seat == me:
            return None  # handing your own seat to a bot is always allowed
        target = live.stored.seats[seat]
        if target.kind == "bot":
            raise ConflictError("already-bot", "a bot already plays this seat")
        if not target.is_free:
            await self.presence.refuse_if_present(live, seat)
        return (target.kind, target.token_hash)

    async def _hand_over(
        self,
        live: LiveGame,
        seat: int,
        level: str,
        was: tuple[str, str | None] | None,
        client: str,
    ) -> bool:
        """The write (the caller holds the lock); False when the seat changed meanwhile."""
        others = (s for s in live.stored.seats if s.seat != seat)
        if all(s.kind == "bot" for s in others) and not self.bots.is_bots_only(live.id):
            self.bots.reserve_bots_only(live.id, client)
            live.owner = client
        store = self.registry.store
        if not await self.registry.write(
            live.id, store.set_seat_kind, live.id, seat, "bot", level, was
        ):
            return False
        stored_seat = live.stored.seats[seat]
        stored_seat.kind, stored_seat.level = "bot", level
        if self.registry.shared:
            await self.registry.catch_up(live, locked=True)
        await self.play.maybe_start(live)
        return True

    async def reclaim(self, game_id: str, token: str | None) -> None:
        """A person takes their seat back from the bot that played it (while the game is not
        over: a finished game's seats stay as they finished it, as for a hand-over)."""
        live = await self.registry.current(game_id)
        seat = require_seat(live, token)
        async with live.lock:
            self._refuse_if_over(live)
            target = live.stored.seats[seat]
            if target.kind != "bot":
                return
            await self.presence.mark_taken(live, seat)  # first, as for a join
            store = self.registry.store
            if not await self.registry.write(
                game_id, store.set_seat_kind, game_id, seat, "human", None
            ):
                await self.registry.reload(live)  # (it ended on another process a moment ago)
                raise ConflictError("game-over", "the game is over")
            target.kind, target.level = "human", None
        await self.registry.notify(live, "lobby")
        # With a person back at the table, the bot whose turn it is plays on.
        self.bots.kick(live)
