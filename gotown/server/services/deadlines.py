"""Turn-based tables: a pace per table, a deadline per turn, and what a missed turn does.

A table made with a ``pace`` (seconds per turn, :data:`MIN_PACE` to :data:`MAX_PACE`; none:
a live table, as before) gives each person's turn a deadline of that long from the moment the
turn began, and a reminder when a quarter of it is left. Both are stored with the action that
began the turn (:func:`turn_record`), so that they survive a restart or a SIGKILL; a deadline
missed while the server was down falls due as soon as it is back.

When a deadline passes, the table's ``on_timeout`` decides: ``"bot:LEVEL"``, a bot of that
level plays the turn for the seat (a *stand-in*: the seat is its person's again when the turn
ends, and they are told), or ``"end"``, the turn is ended for them. After ``missed_limit``
missed turns in a row the bot keeps the seat until its person comes back (takes it back, as
from any hand-over). Each deadline fires once: its claim and its effect are one conditional
write (only while the deadline is still the one that fell due), so that with several processes
on one database the first to claim it acts and the others find nothing to do.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gotown.engine import Game

from .. import metrics
from ..clock import Clock
from ..errors import ConflictError, InvalidError, NotFoundError
from ..pubsub import Notice
from ..schemas import MAX_MISSED_LIMIT, MAX_PACE, MIN_PACE, PACES
from ..storage import StoredGame
from ..storage_turns import BotClaim, Due, NoticeDue, TurnRecord

if TYPE_CHECKING:  # (the services that fire a deadline import this module for its rules)
    from .bots import Bots
    from .moves import Moves
    from .registry import LiveGame, Registry

log = logging.getLogger("gotown.server")

#: Missed turns in a row after which the bot keeps the seat, unless the table says otherwise.
DEFAULT_MISSED_LIMIT = 3
#: The reminder comes when this share of the turn's time is left.
REMINDER_LEFT = 0.25
#: The level of the bot that keeps a seat after missed turns when turns are ended ("end").
KEEPER_LEVEL = "medium"
#: At most this long between two looks at the database for deadlines (another process may
#: have stored one that falls due sooner than any this one knows of).
LOOK_EVERY = 60.0
#: How long before a look again at a moment that was due but could not be acted on (a seat
#: handed to a bot that has not moved yet, another process's claim on a notice, a table
#: whose record cannot be read): not at once, which would look again and again in a loop.
RETRY_EVERY = 5.0
#: Deadlines one process fires at a time: each waits on the database most of its time (the
#: game's record, the claim), so a burst of them fires in parallel; not many more, so that the
#: live tables' own calls to the database find a thread.
FIRE_AT_ONCE = 4
#: Bots that a process sets playing for missed turns at once (stand-ins, and bots that keep a
#: seat after too many): after a burst of missed turns the others wait for a place, a few
#: seconds more for a table of a day, so that the live tables keep their pace (a thousand at
#: once made their updates take seconds).
STANDINS_AT_ONCE = 8
#: Deadlines (and reminders) read from the database at a time.
BATCH = 100


@dataclass(frozen=True)
class Pace:
    """A table's time rules, checked: seconds per turn, what a missed turn does, and after how
    many missed turns in a row the bot keeps the seat."""

    seconds: int
    on_timeout: str  # "end" | "bot:LEVEL"
    missed_limit: int

    @property
    def standin_level(self) -> str:
        return self.on_timeout[4:] if self.on_timeout.startswith("bot:") else KEEPER_LEVEL


def check_pace(
    seconds: int | None,
    on_timeout: str | None,
    missed_limit: int | None,
    levels: Callable[[str], bool],
) -> Pace | None:
    """The table's :class:`Pace` (None: live), or 422 ``invalid-pace`` naming what is wrong."""
    if seconds is None:
        if on_timeout is not None or missed_limit is not None:
            raise InvalidError("invalid-pace", "on_timeout and missed_limit need a pace")
        return None
    if not MIN_PACE <= seconds <= MAX_PACE:
        raise InvalidError(
            "invalid-pace",
            f"pace: {seconds} s is not between {MIN_PACE} s (5 minutes) and {MAX_PACE} s "
            "(14 days) a turn",
        )
    on_timeout = on_timeout or "bot:medium"
    if on_timeout != "end" and not (on_timeout.startswith("bot:") and levels(on_timeout[4:])):
        raise InvalidError(
            "invalid-pace",
            f'on_timeout: {on_timeout[:40]!r} is not "end" or "bot:LEVEL" with a bot level',
        )
    limit = DEFAULT_MISSED_LIMIT if missed_limit is None else missed_limit
    if not 1 <= limit <= MAX_MISSED_LIMIT:
        raise InvalidError(
            "invalid-pace", f"missed_limit: {limit} is not between 1 and {MAX_MISSED_LIMIT}"
        )
    return Pace(seconds, on_timeout, limit)


def pace_of(stored: StoredGame) -> Pace | None:
    if stored.pace is None:
        return None
    return Pace(stored.pace, stored.on_timeout or "bot:medium", stored.missed_limit or 1)


def turn_record(
    stored: StoredGame,
    before: Game | None,
    after: Game,
    actor: int | None,
    now: float,
    *,
    timed_out: bool = False,
) -> TurnRecord | None:
    """The bookkeeping of the move from ``before`` to ``after`` by ``actor`` (None: no move, a
    game that starts): the seat whose turn it is, the new turn's deadline and reminder and its
    "your turn" notice, the end's notices; a person's move resets their missed turns; a
    stand-in's turn that ends gives the seat back. None when nothing of it changes (a move
    within a turn that a person keeps playing). ``timed_out``: the server ended the turn of
    ``actor``, whose deadline passed (one more turn missed)."""
    new_turn = before is None or after.is_over or after.turn != before.turn
    seats: list[tuple[int, int, bool]] = []
    if actor is not None:
        mine = stored.seats[actor]
        if timed_out:
            seats.append((actor, mine.missed + 1, False))
        elif mine.standin and new_turn:
            seats.append((actor, mine.missed, False))  # the stand-in's turn is over
        elif not mine.standin and mine.kind == "human" and mine.missed:
            seats.append((actor, 0, False))  # they played: no turn missed in a row
    if not new_turn and not seats:
        return None
    pace = pace_of(stored)
    if after.is_over:
        notices = ()
        if pace is not None:
            notices = tuple(
                NoticeDue(s.seat, "ended", after.turn, now)
                for s in stored.seats
                if s.player_id is not None
            )
        outcome = after.outcome()
        assert outcome is not None
        return TurnRecord(
            now=now, turn_seat=None, turn=after.turn, over=True, seats=tuple(seats),
            notices=notices, winner=outcome.winner, ending=outcome.reason.value,
        )  # fmt: skip
    if not new_turn:
        return TurnRecord(
            now=now, turn_seat=after.active, turn=after.turn, turn_changed=False,
            seats=tuple(seats),
        )  # fmt: skip
    seat = stored.seats[after.active]
    # The seat as this record leaves it: a stand-in whose turn ended gave it back, also when
    # the next turn is the same seat's (a donut truck's extra turn, the other seats' turns
    # passed by milkshakes), and that turn is its person's, with its deadline and notice.
    standin = next((s[2] for s in seats if s[0] == after.active), seat.standin)
    timed = pace is not None and seat.kind == "human" and not standin
    if not timed:
        return TurnRecord(now=now, turn_seat=after.active, turn=after.turn, seats=tuple(seats))
    assert pace is not None
    deadline = now + pace.seconds
    notices = ()
    # Told unless they ended the turn before this one themselves (their seat's or another's).
    not_by_them = actor == after.active and (timed_out or stored.seats[after.active].standin)
    if seat.player_id is not None and (
        before is None or after.active != before.active or not_by_them
    ):
        notices = (NoticeDue(after.active, "your-turn", after.turn, now),)
    return TurnRecord(
        now=now,
        turn_seat=after.active,
        turn=after.turn,
        deadline=deadline,
        reminder=deadline - REMINDER_LEFT * pace.seconds,
        seats=tuple(seats),
        notices=notices,
    )


class Deadlines:
    """Fires the deadlines and reminders that fell due (:meth:`fire_due`), each once."""

    def __init__(self, registry: Registry, moves: Moves, bots: Bots, clock: Clock) -> None:
        self.registry = registry
        self.moves = moves
        self.bots = bots
        self.clock = clock
        self.fired = 0  # (and counted for /metrics, with how late each fired)
        #: Tables whose missed turn a bot is to play: waiting for a place, in order (loaded
        #: when they get it), and playing (None: being loaded).
        self._waiting: dict[str, None] = {}
        self._playing: dict[str, LiveGame | None] = {}
        moves.after.append(self._moved)
        registry.in_use.append(lambda live: live.id in self._waiting or live.id in self._playing)

    def _moved(self, live: LiveGame) -> None:
        """After a move: a bot that played a missed turn may have ended it (a place frees)."""
        if self._playing or self._waiting:
            self.start_bots()

    def _bot_to_move(self, live: LiveGame) -> bool:
        game = live.game
        if game is None or game.is_over:
            return False
        seat = live.stored.seats[game.active]
        return seat.kind == "bot" or seat.standin

    def start_bots(self) -> None:
        """Set the bots of missed turns going, :data:`STANDINS_AT_ONCE` at most: a place is
        held from the game's loading until the turn is a person's again (or the bots stop on
        this process)."""
        for game_id, live in list(self._playing.items()):
            if live is not None and not (self._bot_to_move(live) and self.bots.is_playing(live)):
                del self._playing[game_id]
        while self._waiting and len(self._playing) < STANDINS_AT_ONCE:
            game_id = next(iter(self._waiting))
            del self._waiting[game_id]
            self._playing[game_id] = None
            asyncio.get_running_loop().create_task(self._start_bot(game_id))

    async def _start_bot(self, game_id: str) -> None:
        try:
            live = await self.registry.current(game_id)
        except Exception:  # (gone, or the database away: the next look at it plays it)
            log.exception("cannot load game %s for the bot of its missed turn", game_id)
            self._playing.pop(game_id, None)
        else:
            self.bots.kick(live)
            self._playing[game_id] = live
        self.start_bots()

    async def fire_due(self) -> None:
        """Fire every deadline due now, then queue every reminder due now (a reminder of a
        turn whose deadline has passed too is not sent: that turn is over). A batch's missed
        turns that bots play are claimed together, without loading their games (the bots load
        them as they get their places); a turn that is ended for its seat is an action, made
        on the game loaded, :data:`FIRE_AT_ONCE` at a time."""
        store = self.registry.store
        now = self.clock.time()
        gate = asyncio.Semaphore(FIRE_AT_ONCE)
        stuck: set[str] = set()  # due, but nothing to do now: looked at again later

        async def fire_one(due: Due) -> None:
            async with gate:
                try:
                    if not await self.fire(due):
                        stuck.add(due.game_id)
                except Exception:  # one table's trouble must not stop the others
                    stuck.add(due.game_id)
                    log.exception("cannot fire the deadline of game %s", due.game_id)

        seen: set[str] = set()
        while True:
            batch = await self.registry.db(store.due_deadlines, now, BATCH, sorted(stuck))
            fresh = [due for due in batch if due.game_id not in seen]
            seen.update(due.game_id for due in fresh)
            try:
                one_by_one = await self._claim_for_bots(fresh, now)
            except Exception:  # (the database away, a write refused: one by one)
                log.exception("cannot claim a batch of missed turns together")
                one_by_one = fresh
            # (In another order than another process that reads the same rows: each fires
            # its own share rather than both the same ones.)
            random.shuffle(one_by_one)
            await asyncio.gather(*(fire_one(due) for due in one_by_one))
            if len(batch) < BATCH or not fresh:
                break
        while True:
            claimed = 0
            reminders = await self.registry.db(store.due_reminders, now, BATCH)
            for due in reminders:
                notice = (
                    None if due.seat is None else NoticeDue(due.seat, "reminder", due.turn, now)
                )
                claimed += await self.registry.db(store.claim_reminder, due, notice, now)
            if len(reminders) < BATCH or not claimed:
                break
        self.start_bots()  # (a place whose bots stopped without a move frees here too)

    async def _claim_for_bots(self, dues: list[Due], now: float) -> list[Due]:
        """Claim together the missed turns of ``dues`` that bots play, and queue their bots;
        answers the others (a turn ended for its seat, or a seat that is not a person's now:
        :meth:`fire` looks at each)."""
        store = self.registry.store
        turns = await self.registry.db(store.missed_turns, dues, now)
        claims = []
        for turn in turns:
            # (As pace_of reads a stored table; the seconds do not matter here.)
            pace = Pace(0, turn.on_timeout or "bot:medium", turn.missed_limit or 1)
            if pace.on_timeout == "end" and turn.missed + 1 < pace.missed_limit:
                continue  # (an action: made on the game, one by one)
            keeper = pace.standin_level if turn.missed + 1 >= pace.missed_limit else None
            claims.append(BotClaim(turn, keeper))
        if not claims:
            return dues
        ids = [claim.turn.due.game_id for claim in claims]
        changes = self.registry.changes
        await asyncio.gather(*(changes.mark(game_id) for game_id in ids))
        try:
            taken = await self.registry.db(store.claim_for_bots, claims, now)
        finally:
            await asyncio.gather(*(changes.mark(game_id) for game_id in ids))
        for claim in taken:
            await self._claimed(claim, now)
        claimed = {claim.turn.due.game_id for claim in claims}
        return [due for due in dues if due.game_id not in claimed]

    async def _claimed(self, claim: BotClaim, now: float) -> None:
        """A missed turn taken for a bot: the copy in memory (if any) told, every process
        told, the bot queued."""
        due, seat = claim.turn.due, claim.turn.seat
        live = self.registry.get(due.game_id)
        if live is not None:
            async with live.lock:
                mine = live.stored.seats[seat]
                mine.missed = claim.missed
                if claim.level is None:
                    mine.standin = True
                else:
                    mine.kind, mine.level, mine.standin = "bot", claim.level, False
                live.stored.deadline = live.stored.deadline_turn = None
            await self.registry.notify(live, "lobby")
        else:
            notice = Notice(due.game_id, claim.turn.version, "lobby", self.registry.pubsub.id)
            try:
                await self.registry.pubsub.publish(notice)
            except Exception:  # (lost: the others catch up at their heartbeat)
                log.exception("cannot publish a notice for game %s", due.game_id)
        self.fired += 1
        metrics.deadline_due(now - due.at)
        self._waiting[due.game_id] = None
        self.start_bots()

    async def fire(self, due: Due) -> bool:
        """Do what the table says a missed turn does, unless the turn moved on meanwhile;
        False when there was nothing to do (or nothing yet: the seat's bot has not moved)."""
        store = self.registry.store
        if (
            self.registry.shared
            and self.registry.get(due.game_id) is None
            and not await self.registry.db(store.is_due, due, self.clock.time())
        ):
            return True  # (fired by another process: no need to load the game to see it)
        try:
            live = await self.registry.current(due.game_id)
        except NotFoundError:
            return True
        game, stored = live.game, live.stored
        pace = pace_of(stored)
        if game is None or game.is_over or pace is None or game.turn != due.turn:
            return True
        seat = game.active
        mine = stored.seats[seat]
        if mine.kind != "human" or mine.standin:
            return False
        missed = mine.missed + 1
        now = self.clock.time()
        if pace.on_timeout == "end" and missed < pace.missed_limit:
            try:
                await self.moves.make(
                    live, seat, game.version, {"type": "end-turn"}, kind="human",
                    timed_out=True,
                )  # fmt: skip
            except ConflictError:
                return True  # (somebody moved first: the next look sees the turn as it is)
        else:
            keeper = pace.standin_level if missed >= pace.missed_limit else None
            async with live.lock:
                if live.game is not game:
                    return True  # (moved on while waiting for the lock)
                taken = await self.registry.write(
                    live.id, store.claim_timeout, due, seat, missed, keeper, now
                )
                if not taken:
                    return True
                mine.missed = missed
                if keeper is None:
                    mine.standin = True
                else:
                    mine.kind, mine.level = "bot", keeper
                stored.deadline = stored.deadline_turn = None
            await self.registry.notify(live, "lobby")
            self._waiting[live.id] = None
            self.start_bots()
        self.fired += 1
        metrics.deadline_due(now - due.at)
        return True


class Scheduler:
    """Wakes at the next deadline, reminder or notice that falls due (or every
    :data:`LOOK_EVERY` seconds, for those other processes stored), and hands each to
    ``on_due``. Time is the server's :class:`~gotown.server.clock.Clock`: moving it on wakes it."""

    def __init__(
        self,
        clock: Clock,
        next_moment: Callable[[], Awaitable[float | None]],
        work: Callable[[], Awaitable[None]],
    ) -> None:
        self.clock = clock
        self._next_moment = next_moment
        self._work = work
        self._poked = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.closing = False

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    def poke(self) -> None:
        """Look again now (a deadline or notice was just stored)."""
        self._poked.set()

    async def stop(self) -> None:
        self.closing = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    async def _run(self) -> None:
        while not self.closing:
            self._poked.clear()
            began = self.clock.time()
            try:
                await self._work()
                upcoming = await self._next_moment()
            except asyncio.CancelledError:
                raise
            except Exception:  # the database may be away: look again a little later
                log.exception("cannot look at the deadlines and notices")
                upcoming = None
            now = self.clock.time()
            wake = now + LOOK_EVERY
            if upcoming is not None:
                # A moment that was due when this round began is one it could not act on:
                # later, not in a loop. One that fell due during the round: at once.
                wake = min(wake, now + RETRY_EVERY if upcoming <= began else upcoming)
            sleeper = asyncio.ensure_future(self.clock.sleep_until(wake))
            poked = asyncio.ensure_future(self._poked.wait())
            try:
                await asyncio.wait({sleeper, poked}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                sleeper.cancel()
                poked.cancel()


__all__ = ["MAX_PACE", "MIN_PACE", "PACES", "Due", "Pace", "Scheduler", "check_pace",
           "turn_record"]  # fmt: skip
