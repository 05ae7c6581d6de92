"""The bots at the tables, and their quotas.

- A bot sees only its seat's view (built in the view worker) and the legal actions: only those
  go to the bots' worker process (pickled, a few KB), so **no process where a bot thinks ever
  holds a hidden card** (R22), whatever its code does. It comes back with its answer and its
  random state moved on, so a table's bots choose as they would in one process. Its seed is a
  one-way hash of the game's seed (:func:`bot_seed`).
- **A table's bot answers in about its think time, whoever else plays.** The bots of tables
  with a person think in :data:`BOT_PLACES` worker processes (:mod:`..workers`), taken in the
  order of least service (:class:`~gotown.server.fairgate.FairGate`): the address that created
  the table and used the workers least lately first, then its table that used them least; a
  light address (a quick bot, or few tables) also gets in at once through
  :data:`BOT_EXPRESS_PLACES` more. A bot thinks during the bot delay (which lets people
  follow the moves), not after it. Tables of bots only think in a worker of their own, at a
  lower priority, in the same fair order by the address that started them.
- **Turn-based tables' bots think last.** The bots of a table with a pace (:mod:`.deadlines`:
  a stand-in playing a missed turn, a bot keeping a seat, a bot seat) think in one worker of
  their own at the lowest priority (:data:`TURN_BASED_NICENESS`), in the same fair order: a
  turn there is counted in hours, so a burst of missed turns (a thousand due in the same
  minute) takes one core's idle time and never the live tables' (measured with
  ``benchmarks/deadlines.py``: the live tables' update p99 rose from 98 ms to 566 ms beside
  such a burst when its stand-ins thought in the live tables' workers).
- Tables of bots only (anyone may start one, to watch; each plays at most
  :data:`BOTS_ONLY_TURN_LIMIT` turns, more is refused, and is resumed at a start): at most
  ``max_bots_only_tables`` play at once on a process, ``max_bots_only_tables_per_client``
  (playing or waiting) per client address (429 ``too-many-bot-tables``). The places are shared
  between addresses: with none left, an address that plays at least two fewer than another
  takes the place of that address's newest table, which stands still until a place frees (the
  tables waiting play on first come, first served). A place is held from the table's creation
  (or the hand-over that left it without a person) until its bots stop.
- A table of bots never stands still: a position that can never change ends the game when the
  turn that reached it ends (R20b, a stalemate), and a table of bots only has a turn limit.
- Trained policies (``ppo:NAME``) are the ones the operator configured
  (``Settings.bot_policies``), offered once the ``ppo`` level is registered in
  :mod:`gotown.bots` (by the composing layer, which has the rl extra): a client picks one by
  its name and never names a file, since loading a policy unpickles it (code execution).
- A failing bot falls back to a seeded random move; a move the database cannot store is tried
  again after :data:`DB_RETRY_SECONDS`, doubling up to :data:`DB_RETRY_MAX_SECONDS`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import random
from dataclasses import dataclass, field
from typing import Literal

import gotown.bots
from gotown.bots import LEVELS, Bot, hashed_seed
from gotown.engine import Action

from .. import metrics, schemas
from ..clock import Clock
from ..config import Settings
from ..errors import BusyError, DomainError, InvalidError, UnavailableError
from ..fairgate import FairGate
from ..schemas import MAX_LEVEL_LENGTH
from ..work import choose
from ..workers import Workers
from .deadlines import pace_of
from .moves import Moves
from .registry import LiveGame, PerGame, Registry
from .seat_states import SeatStates

log = logging.getLogger("gotown.server")


class _StopError(Exception):
    """A bot's move not to make: another process plays the bots on."""


class _AgainError(Exception):
    """A bot's move not to make now: the game moved on, or the seat is a person's again."""


#: The turn limit (R23) of a game created with no person's seat when its limit was left null,
#: and the most such a game may ask for: a table of bots would otherwise store an action every
#: bot delay, and be resumed at every restart, for ever. The bot tournaments stop at the same
#: 300 turns, far beyond the length of a game that is not stuck.
BOTS_ONLY_TURN_LIMIT = schemas.BOTS_ONLY_TURN_LIMIT

#: The places of the bots' workers for tables with a person: in the fair order, and express
#: (fairgate.py); a process each.
BOT_PLACES = 2
BOT_EXPRESS_PLACES = 1
#: The CPU priority of the turn-based tables' worker, below the other bots' (``os.nice``: 5 for
#: the tables with a person, 10 for the tables of bots only).
TURN_BASED_NICENESS = 15

#: A bot whose move cannot be stored tries again after this long, doubling up to the maximum,
#: so that a table goes on by itself once the database is back.
DB_RETRY_SECONDS = 0.5
DB_RETRY_MAX_SECONDS = 30.0

#: The level of a trained policy (registered in :mod:`gotown.bots` by the composing layer).
POLICY_LEVEL = "ppo"


def bot_seed(game_seed: int, seat: int) -> int:
    """The seed of the bot at ``seat``: a one-way hash of the game's seed (the first 8 bytes of
    a SHA-256), so that no bot can work out the deal from its own seed (R22). The game's seed
    is 63 random bits unless its creator chose it, too many to search for."""
    return hashed_seed(f"gotown table bot: game seed {game_seed}, seat {seat}")


@dataclass
class _Table:
    """What the bots keep of one game: the task playing them, and each seat's bot with the
    level it was made for."""

    task: asyncio.Task[None] | None = None
    bots: dict[int, tuple[str, Bot]] = field(default_factory=dict)


class Bots:
    LEVELS = LEVELS

    def __init__(
        self,
        settings: Settings,
        registry: Registry,
        seat_states: SeatStates,
        moves: Moves,
        clock: Clock,
    ) -> None:
        self.settings = settings
        self.registry = registry
        self.seat_states = seat_states
        self.moves = moves
        self.clock = clock
        processes = settings.worker_processes
        # The tables with a person: two places in the fair order, and one express place for a
        # light table (fairgate.py), each a process of its own.
        self.gate = FairGate(BOT_PLACES, express=BOT_EXPRESS_PLACES)
        self._workers = Workers(
            "bot", BOT_PLACES + BOT_EXPRESS_PLACES, processes=processes, niceness=5
        )
        self.bots_only_gate = FairGate(1)
        self._bots_only_workers = Workers("bots-only", 1, processes=processes, niceness=10)
        self.turn_based_gate = FairGate(1)
        self._turn_based_workers = Workers(
            "turn-based", 1, processes=processes, niceness=TURN_BASED_NICENESS
        )
        # The tables of bots only whose bots play (or are about to) on this process: game id ->
        # the client address that started them (None: resumed at a start); and those whose
        # place went to another address's table, in the order they wait to play on.
        self._bots_only: dict[str, str | None] = {}
        self._paused: dict[str, str | None] = {}
        self._of = PerGame(_Table)
        registry.in_use.append(self.is_playing)
        if settings.bot_policies and POLICY_LEVEL not in gotown.bots.EXTRA_LEVELS:
            log.warning(
                "GOTOWN_BOT_POLICIES names policies, but the ppo level is not registered (start "
                "the server with `gotown serve`, with the rl extra): none is offered"
            )

    def warm(self) -> None:
        self._workers.warm()
        # The policies' models load now, at the start, not in the event loop at a first move
        # (a second or so each; then the bots of a level are made from the loaded model).
        for level, path in self.policies().items():
            try:
                gotown.bots.bot_from_spec(f"{POLICY_LEVEL}:path={path}", 0)
            except Exception:
                log.exception(
                    "cannot load the policy %s from %s: its seats play at random", level, path
                )

    async def close(self) -> None:
        tasks = [t.task for t in self._of.values() if t.task and not t.task.done()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def shutdown_workers(self) -> list[Workers]:
        return [self._workers, self._bots_only_workers, self._turn_based_workers]

    def is_playing(self, live: LiveGame) -> bool:
        """Whether its bots play (or think) now on this process."""
        task = self._of(live).task
        return task is not None and not task.done()

    def policies(self) -> dict[str, str]:
        """The trained policies this server seats, by level (``ppo:NAME``): the configured
        ones, once the ``ppo`` level is registered."""
        if POLICY_LEVEL not in gotown.bots.EXTRA_LEVELS:
            return {}
        return {f"{POLICY_LEVEL}:{name}": path for name, path in self.settings.bot_policies}

    def levels(self) -> list[str]:
        """Every level a seat may be given here: the bots' and the policies'."""
        return [*LEVELS, *self.policies()]

    def is_level(self, level: str) -> bool:
        return level in LEVELS or level in self.policies()

    def check_level(self, level: str, where: str = "") -> None:
        if self.is_level(level):
            return
        # (A refusal names what was sent, but never echoes a long text back.)
        shown = repr(level) if len(level) <= MAX_LEVEL_LENGTH else f"{level[:MAX_LEVEL_LENGTH]!r}…"
        if level.startswith(POLICY_LEVEL + ":"):
            offered = list(self.policies())
            raise InvalidError(
                "unknown-level",
                f"{where}bot level {shown}: this server seats only the trained policies its "
                f"operator configured ({', '.join(offered) if offered else 'none'}), by name; a "
                "client never names a file",
            )
        raise InvalidError(
            "unknown-level", f"{where}bot level {shown} is not one of {self.levels()}"
        )

    def bot_for(self, live: LiveGame, seat: int) -> Bot:
        """The seat's bot, made anew when its level changed."""
        mine = live.stored.seats[seat]
        level = mine.level or "medium"
        if mine.standin:  # (a person's seat whose turn timed out: the table's stand-in level)
            pace = pace_of(live.stored)
            level = pace.standin_level if pace is not None else "medium"
        table = self._of(live)
        held = table.bots.get(seat)
        if held is None or held[0] != level:
            seed = bot_seed(live.stored.seed, seat)
            path = self.policies().get(level)
            if path is not None:  # (the operator's file: never a client's)
                bot = gotown.bots.bot_from_spec(f"{POLICY_LEVEL}:path={path}", seed)
            else:
                bot = gotown.bots.make_bot(level, seed)
            held = table.bots[seat] = (level, bot)
        return held[1]

    def _to_move(self, live: LiveGame) -> bool:
        game = live.game
        if game is None or game.is_over:
            return False
        seat = live.stored.seats[game.active]
        return seat.kind == "bot" or seat.standin

    def kick(self, live: LiveGame, *, at_once: bool = False) -> None:
        """Set the bots going if one is to move and none plays already (``at_once``: its first
        move without the bot delay, as when its table is resumed after a start)."""
        if self.registry.closing or not self._to_move(live) or self.is_playing(live):
            return
        game_id = live.id
        if all(seat.kind == "bot" for seat in live.stored.seats) and game_id not in self._bots_only:
            # Not reserved when it was created or handed over: resumed at a start, or waiting.
            try:
                self.reserve_bots_only(game_id, live.owner)
            except BusyError as exc:
                self._paused.setdefault(game_id, live.owner)  # (it plays on when a place frees)
                log.info("the bots of game %s stand still for now: %s", game_id, exc.message)
                return
        task = asyncio.get_running_loop().create_task(self._run(live, at_once))
        self._of(live).task = task
        task.add_done_callback(lambda _task: self.release_bots_only(game_id))

    def is_bots_only(self, game_id: str) -> bool:
        return game_id in self._bots_only

    def reserve_bots_only(self, game_id: str, client: str | None) -> None:
        """Hold a place for the table of bots only ``game_id`` started by ``client`` (None: by
        nobody, resumed); 429 ``too-many-bot-tables`` when none is left. Synchronous, so that
        two requests cannot take the last place together.

        The places are shared fairly between addresses: with none free, a client whose
        address plays fewer tables than another's by two or more takes the newest table of the
        address that plays the most; that table stands still until a place frees (then the
        tables waiting play on, first come first)."""
        if game_id in self._bots_only:
            return
        playing = collections.Counter(self._bots_only.values())
        if client is not None:
            per_client = self.settings.max_bots_only_tables_per_client
            mine = playing[client] + sum(1 for owner in self._paused.values() if owner == client)
            if mine >= per_client:
                raise BusyError(
                    "too-many-bot-tables",
                    f"your address already has {mine} tables of bots only, the limit per "
                    f"address ({per_client}): try again when one has ended",
                )
        limit = self.settings.max_bots_only_tables
        if len(self._bots_only) >= limit:
            owners = [owner for owner in playing if owner is not None]
            heaviest = max(owners, key=lambda owner: playing[owner], default=None)
            if (
                limit == 0
                or client is None
                or heaviest is None
                or (playing[heaviest] < playing[client] + 2)
            ):
                raise BusyError(
                    "too-many-bot-tables",
                    f"{len(self._bots_only)} tables of bots only are playing on this server, "
                    f"its limit ({limit}), as many for each address: try again when one has "
                    "ended",
                )
            newest = [g for g, owner in self._bots_only.items() if owner == heaviest][-1]
            del self._bots_only[newest]  # (its bots stop before their next move)
            self._paused[newest] = heaviest
            log.info("the table of bots only %s waits: its place went to another address", newest)
        self._paused.pop(game_id, None)
        self._bots_only[game_id] = client

    def release_bots_only(self, game_id: str) -> None:
        """Give back the place of ``game_id`` unless its bots play; a table waiting for a place
        plays on in it."""
        live = self.registry.get(game_id)
        if live is not None and self.is_playing(live):
            return
        held = game_id in self._bots_only
        self._bots_only.pop(game_id, None)
        if not held and live is not None and self._to_move(live):
            return  # (it waits for a place: it keeps its turn to play on)
        self._paused.pop(game_id, None)
        if held and self._paused and not self.registry.closing:
            with contextlib.suppress(RuntimeError):  # (no event loop: the server stops)
                asyncio.get_running_loop().create_task(self._play_on())

    async def _play_on(self) -> None:
        """The tables of bots only that wait play on in the places free, first come first."""
        while self._paused and len(self._bots_only) < self.settings.max_bots_only_tables:
            game_id, owner = next(iter(self._paused.items()))
            del self._paused[game_id]
            try:
                live = await self.registry.live(game_id)
            except DomainError:  # (gone, or the database does not answer: it stands still)
                continue
            if self._to_move(live) and game_id not in self._bots_only:
                self._bots_only[game_id] = owner
                self.kick(live)

    def _holds_its_place(self, live: LiveGame) -> bool:
        """A table of bots only plays only while it holds a place."""
        return live.id in self._bots_only or any(s.kind != "bot" for s in live.stored.seats)

    async def _run(self, live: LiveGame, at_once: bool = False) -> None:
        retry = DB_RETRY_SECONDS
        delay = 0.0 if at_once else self.settings.bot_delay
        while self._to_move(live) and not self.registry.closing and self._holds_its_place(live):
            game = live.game
            if game is None:
                return
            seat, version = game.active, game.version
            # The bot thinks during its delay (which lets people follow the moves), not after
            # it: its move comes after the delay, or after its thought when that is longer.
            due = self.clock.monotonic() + delay
            delay = self.settings.bot_delay
            action = await self._decide(live, seat)
            if action is None:
                return  # the workers were ended with the server: nothing to store
            wait = due - self.clock.monotonic()
            if wait > 0:
                await self.clock.sleep(wait)
            if not self._to_move(live) or self.registry.closing:
                return
            outcome = await self._store(live, seat, version, action)
            if outcome == "stop":
                return
            if outcome == "unavailable":  # the database does not answer: try again later
                await self.clock.sleep(retry)
                retry = min(2 * retry, DB_RETRY_MAX_SECONDS)
                continue
            retry = DB_RETRY_SECONDS

    async def _decide(self, live: LiveGame, seat: int) -> Action | None:
        """The bot's move at the game as it is; a failing bot's is a seeded random one."""
        game = live.game
        assert game is not None
        legal = game.legal_actions()
        seed = live.stored.seed * 1009 + game.version
        fallback = legal[random.Random(seed).randrange(len(legal))]
        try:
            bot = self.bot_for(live, seat)
            view = await self.seat_states.seat_view(game, seat)
            with metrics.bot_decision(live.stored.seats[seat].level or "medium"):
                # In the fair order of the table's address, then of the table (fairgate.py).
                if pace_of(live.stored) is not None:
                    async with self.turn_based_gate.slot(live.id, live.creator or live.id):
                        action, bot = await self._turn_based_workers.run(choose, bot, view, legal)
                elif any(s.kind != "bot" for s in live.stored.seats):
                    async with self.gate.slot(live.id, live.creator or live.id):
                        action, bot = await self._workers.run(choose, bot, view, legal)
                else:
                    async with self.bots_only_gate.slot(live.id, live.owner or live.id):
                        action, bot = await self._bots_only_workers.run(choose, bot, view, legal)
            # (From a process, the copy that chose.)
            self._of(live).bots[seat] = (live.stored.seats[seat].level or "medium", bot)
            if action not in legal:
                log.error("bot of seat %s chose an illegal %r in game %s", seat, action, live.id)
                return fallback
            return action
        except asyncio.CancelledError:
            raise
        except Exception:
            if self.registry.closing:
                return None
            log.exception("the bot of seat %s failed in game %s", seat, live.id)
            return fallback

    async def _store(
        self, live: LiveGame, seat: int, version: int, action: Action
    ) -> Literal["moved", "again", "stop", "unavailable"]:
        """Apply a bot's move unless the game moved on while it thought. Answers ``"moved"``,
        ``"again"`` (somebody else moved, or the seat's person took it back: think again),
        ``"stop"`` (another process plays the bots on, or the move was refused) or
        ``"unavailable"`` (the database does not answer; nothing changed)."""

        def check(live: LiveGame, reloaded: bool) -> None:
            if reloaded and live.version != version:
                raise _StopError  # another process moved: it plays the bots on
            if live.game is None or live.game.version != version:
                raise _AgainError
            mine = live.stored.seats[seat]
            if mine.kind != "bot" and not mine.standin:
                raise _AgainError  # its person took it back

        kind = "standin" if live.stored.seats[seat].standin else "bot"
        try:
            await self.moves.make(live, seat, version, action.to_json(), kind=kind, check=check)
        except _StopError:
            return "stop"
        except _AgainError:
            return "again"
        except UnavailableError:
            return "unavailable"
        except DomainError as exc:
            log.error("bot move refused in game %s: %s", live.id, exc.message)
            return "stop"
        except Exception:
            log.exception("cannot make a bot move in game %s", live.id)
            return "stop"
        return "moved"
