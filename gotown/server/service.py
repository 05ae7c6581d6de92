"""The service layer: games, seats, actions and bots, between the routes and the storage.

Rules:
- A game's live :class:`Game` is rebuilt from its stored record (seed, options, actions).
- Actions on one game are applied one at a time (one lock per game), each checked against the
  version it was made on, applied to a copy, stored, and only then made current.
- Every payload for a seat is built from ``game.view(seat)`` (or ``game.public_view()``), or
  from a copy's view without history plus ``game.events(seat, start)`` (the same events, from
  ``start`` on), never from the full state, so no hidden card can reach anyone.
- Presence (which seats have a WebSocket open, since when a seat is away) lives in the process
  with ``memory://``, and in Redis with ``redis://`` so that every process sees the connections
  of all (:mod:`gotown.server.presence`).
- With ``redis://`` several processes share the database, so a game held in memory may be behind
  it. Every request first compares the game's stamp (:meth:`Store.stamp`: one small query) with
  the database's and reloads the game when they differ; a process holding sockets of a game does
  so at every heartbeat too. Notices only make this quicker: one that is lost costs nothing but
  time. With ``memory://`` there is one process, whose memory is always current: no such query.
  Writes that decide on what a seat or the game was are also conditional in the database
  (an action per version, a free seat, a seat's kind, a status, a rematch).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import functools
import hashlib
import hmac
import importlib
import logging
import math
import random
import re
import secrets
import time
from collections.abc import Awaitable, Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar
from urllib.parse import urlparse

from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

from gotown.engine import (
    Action,
    Game,
    GoTownError,
    IllegalActionError,
    InvalidActionError,
    Options,
    View,
)

from . import schemas
from .errors import (
    BusyError,
    ConflictError,
    DomainError,
    ForbiddenError,
    InvalidError,
    NotFoundError,
    UnauthenticatedError,
    UnavailableError,
)
from .fairgate import FairGate
from .presence import PresenceUnavailableError, RedisPresence, Snapshot
from .pubsub import Notice, PubSub
from .settings import Settings
from .storage import ConflictError as WriteConflictError
from .storage import SeatChangedError, Store, StoredGame, StoredSeat, stamp_of
from .workers import Workers

log = logging.getLogger("gotown.server")

#: What SQLAlchemy raises when the database does not answer, as opposed to a refusal or a bug.
DB_UNAVAILABLE = (OperationalError, InterfaceError, PoolTimeoutError)
#: A bot whose move cannot be stored tries again after this long, doubling up to the maximum,
#: so that a table goes on by itself once the database is back.
DB_RETRY_SECONDS = 0.5
DB_RETRY_MAX_SECONDS = 30.0

T = TypeVar("T")

#: Every game id and invitation code is ``secrets.token_urlsafe`` (11 and 12 characters of
#: A-Z a-z 0-9 _ -), in columns of 32 and 64 characters. Anything else is no game's, and is
#: answered as unknown without asking the database: alike on every database (PostgreSQL cannot
#: even compare a text with a NUL in it).
GAME_ID_SHAPE = re.compile(r"[A-Za-z0-9_-]{1,32}")
INVITE_CODE_SHAPE = re.compile(r"[A-Za-z0-9_-]{1,64}")

DEFAULT_BOT_LEVELS = ("random", "easy", "medium", "hard", "expert")

#: The turn limit (R23) of a game created with no person's seat when its limit was left null.
#: Bots alone can play for ever: two hands of 8 cards that can do nothing draw no more (R7b),
#: and the rules have no way out. At a table of people somebody walks away (and the game stays
#: on its last turn, costing nothing); a table of bots has nobody to walk away, and would store
#: an action every bot delay, and be reloaded and resumed at every restart, for ever. The bot
#: tournaments stop at the same 300 turns, far beyond the length of a game that is not stuck.
BOTS_ONLY_TURN_LIMIT = 300

#: A view whose events from the client's ``events_from`` on are at most this many is built in
#: the event loop, from a copy without history (cheap). One with more is cut from the seat's
#: full view, which is built once per game version and seat in the view worker (a full view
#: holds every event: 2 MB and a tenth of a second after 20,000 actions), and the state holding
#: it is encoded there too: the event loop never converts a long game's events.
EVENTS_BUILT_IN_LOOP = 256


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def bots_module() -> Any:
    """`gotown.bots`, imported when first needed (it may arrive after the server)."""
    try:
        return importlib.import_module("gotown.bots")
    except ImportError as exc:  # pragma: no cover - depends on the tree
        raise UnavailableError("bots-unavailable", f"the bots are not available: {exc}") from exc


def bot_levels() -> tuple[str, ...]:
    try:
        return tuple(bots_module().LEVELS)
    except DomainError:  # pragma: no cover
        return DEFAULT_BOT_LEVELS


@dataclass
class LiveGame:
    stored: StoredGame
    game: Game | None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    bot_task: asyncio.Task[None] | None = None
    bots: dict[int, Any] = field(default_factory=dict)
    connections: dict[int, int] = field(default_factory=dict)  # seat -> open sockets
    sockets: int = 0  # every open socket, spectators included
    away_since: dict[int, float] = field(default_factory=dict)
    # Shared presence (redis://) only: this process's open sockets of seats (connection id ->
    # seat), every process's presence as last read, and the heartbeat refreshing ours.
    members: dict[str, int] = field(default_factory=dict)
    shared: Snapshot = field(default_factory=Snapshot)
    presence_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    heartbeat: asyncio.Task[None] | None = None
    # (seat, version, kind) -> the search's answer for that seat's position at that version;
    # a future, so that simultaneous requests share one computation (CPU stays bounded).
    estimates: dict[tuple[int, int, str], asyncio.Future[Any]] = field(default_factory=dict)
    # seat (None: a spectator) -> the finished game's replay, built once: a game that is over
    # never changes, and a long one's replay takes a while to build (a future, shared as above).
    replays: dict[int | None, asyncio.Future[schemas.ReplayOut]] = field(default_factory=dict)
    # (seat, version) -> the seat's full view (JSON) at that version, built once off the event
    # loop (GameService.view_json); only the current version's are kept.
    views: dict[tuple[int | None, int], asyncio.Future[dict[str, Any]]] = field(
        default_factory=dict
    )
    # (seat, number of actions) -> the seat's last end of turn then (_last_turn_end), found
    # once (chances); only the newest per seat is kept.
    turn_ends: dict[tuple[int, int], asyncio.Future[Any]] = field(default_factory=dict)
    # The client address that started this table of bots only (None: resumed at a start).
    owner: str | None = None
    # The client address that created the game (None: loaded from the database): whose turn
    # it is at the bots' workers (FairGate).
    creator: str | None = None
    # When a request, an action or a socket last used it (time.monotonic()): an idle game is
    # dropped from memory (GameService.evict_idle).
    used: float = field(default_factory=time.monotonic)

    @property
    def version(self) -> int:
        return 0 if self.game is None else self.game.version


async def _shared(
    cache: dict[Any, asyncio.Future[T]],
    key: Hashable,
    start: Callable[[], Awaitable[T]],
    started: Callable[[], None] | None = None,
) -> T:
    """The result of ``start()`` for ``key``, computed once: simultaneous callers share it, a
    caller that goes away leaves it to the others, a success stays in ``cache`` and a failure
    is forgotten (so that it can be asked again). ``started`` runs when it is started."""
    future = cache.get(key)
    if future is None:
        future = cache[key] = asyncio.ensure_future(start())
        if started is not None:
            started()
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        raise
    except Exception:
        if cache.get(key) is future:
            del cache[key]
        raise


def _new_game(stored: StoredGame) -> Game:
    return Game.new(
        players=stored.players, seed=stored.seed, options=Options.from_json(stored.options)
    )


def _last_turn_end(
    stored: StoredGame, actions: list[dict[str, Any]], seat: int
) -> tuple[int, Any, Action] | None:
    """The version, the seat's view and the action of the seat's last end of turn, if any.

    In linear time: a first replay only notes where that end of turn is, a second one stops
    there and builds the one view (a view holds every event so far: one at each end of turn
    would make this quadratic in the game's length)."""
    game = _new_game(stored)
    last: int | None = None
    for index, data in enumerate(actions):
        action = Action.from_json(data)
        if game.active == seat and action.type == "end-turn":
            last = index
        game.apply(action)
    if last is None:
        return None
    game = _new_game(stored)
    for data in actions[:last]:
        game.apply(Action.from_json(data))
    return game.version, game.view(seat), Action.from_json(actions[last])


def rebuild(stored: StoredGame) -> Game | None:
    """The live game from its record: a new game from seed and options, then every action."""
    if stored.status == "lobby":
        return None
    game = _new_game(stored)
    for data in stored.actions:
        game.apply(Action.from_json(data))
    return game


def _full_view_json(game: Game, seat: int | None) -> dict[str, Any]:
    """``game.view(seat)`` as JSON, every event included (``game.public_view()`` for None)."""
    return game.view(seat).to_json()


def _view_json(game: Game, seat: int | None, start: int) -> dict[str, Any]:
    """``game.view(seat)`` as JSON with only the events from index ``start`` on, at the cost of
    those events only (``game.view`` converts every event so far). The view of a copy without
    history has no events; ``game.events(seat, start)`` are the ones the view would hold from
    ``start`` on (``game.public_view()`` is ``game.view(None)``)."""
    view = game.copy(history=False).view(seat).to_json()
    view["events"] = [event.to_json() for event in game.events(seat, start)]
    return view


# The bots' and the hints' workers get a seat's view and the legal actions, never the game: a
# worker process holds no hidden card (R22), whatever its code does.


def _choose(bot: Any, view: View, legal: tuple[Action, ...]) -> tuple[Action, Any]:
    """The bot's move (in the bots' worker), and the bot as it is after choosing (from a worker
    process, a copy: its random state moved on)."""
    action: Action = bot.choose(view, legal)
    return action, bot


def _hints(legal: tuple[Action, ...], seed: int, view: View) -> list[tuple[Action, float]]:
    """The hint's work (in the hint worker)."""
    return [(a, float(p)) for a, p in bots_module().hint(view, legal, seed, 3)]


def _after_turn(end: Action, seed: int, view: View) -> float | None:
    """The estimate of the end of a turn from the view before it (in the hint worker)."""
    result = bots_module().hint(view, (end,), seed, 1)
    return float(result[0][1]) if result else None


def bot_seed(game_seed: int, seat: int) -> int:
    """The seed of the bot at ``seat``: a one-way hash of the game's seed (the first 8 bytes of
    a SHA-256), so that no bot can work out the deal from its own seed (R22). The game's seed
    is 63 random bits unless its creator chose it, too many to search for."""
    seed: int = bots_module().hashed_seed(f"gotown table bot: game seed {game_seed}, seat {seat}")
    return seed


class GameService:
    def __init__(self, settings: Settings, store: Store, pubsub: PubSub) -> None:
        self.settings = settings
        self.store = store
        self.pubsub = pubsub
        self._games: dict[str, LiveGame] = {}
        self._load_lock = asyncio.Lock()
        processes = settings.worker_processes
        # CPU-bound work runs in worker processes (or threads), at a lower priority than the
        # requests (:mod:`gotown.server.workers`).
        self._bot_workers = Workers("bot", 2, processes=processes, niceness=5)
        # Its two workers are taken in turn by the addresses that created the tables, not first
        # come first served: one address's many tables of slow bots must not keep every other
        # table's bots waiting behind them.
        self._bot_gate = FairGate(2)
        # Tables of bots only (anyone may start one, to watch) think in a worker of their own,
        # so that however many there are, the bots facing people never wait behind them.
        # (and below the bots facing people in priority).
        self._bots_only_workers = Workers("bots-only", 1, processes=processes, niceness=10)
        # Hints and chances think in their own worker, so that they never hold up the bots.
        self._hint_workers = Workers("hint", 1, processes=processes, niceness=5)
        # Full views of long games and the states holding them are built and encoded here, off
        # the event loop, and not in the threads the database calls use.
        self._view_executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="gotown-view")
        # Estimates queued or under way (each counted once, however many wait for it): in all,
        # and by the client address that started it.
        self._estimates_pending = 0
        self._estimates_by_client: collections.Counter[str] = collections.Counter()
        # The tables of bots only whose bots play (or are about to) on this process: game id ->
        # the client address that started them (None: resumed at a start).
        self._bots_only: dict[str, str | None] = {}
        self._closing = False
        self._started = time.monotonic()
        self._started_wall = time.time()
        self._background: set[asyncio.Task[None]] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self.presence: RedisPresence | None = None
        # Several processes (sharing the database) or one: with several, a game in memory is
        # checked against the database before it is used.
        self.shared = urlparse(settings.broadcast_url).scheme in ("redis", "rediss")
        if self.shared:
            self.presence = RedisPresence(
                settings.broadcast_url,
                ttl=settings.presence_ttl,
                keep=max(0.0, settings.absent_seconds) + settings.presence_ttl,
            )

    # --- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Resume every running game: bots whose turn it is play on (at tables of bots only, at
        most ``max_bots_only_tables`` of them, the newest first: the others stand still).
        Then, until :meth:`close`, drop idle games from memory now and then."""
        self._bot_workers.warm()
        self._hint_workers.warm()
        for game_id in await self._db(self.store.game_ids_with_status, "playing"):
            try:
                live = await self._live(game_id)
            except Exception:  # a broken record must not stop the server
                log.exception("cannot resume game %s", game_id)
                continue
            self._kick_bots(live)
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    async def close(self) -> None:
        self._closing = True
        tasks = [g.bot_task for g in self._games.values() if g.bot_task and not g.bot_task.done()]
        tasks += [
            g.heartbeat for g in self._games.values() if g.heartbeat and not g.heartbeat.done()
        ]
        if self._sweeper is not None and not self._sweeper.done():
            tasks.append(self._sweeper)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        # (together: each may wait for a decision under way to end)
        workers = (self._bot_workers, self._bots_only_workers, self._hint_workers)
        await asyncio.gather(*(asyncio.to_thread(w.shutdown) for w in workers))
        self._view_executor.shutdown(wait=False, cancel_futures=True)
        if self._background:
            await asyncio.wait(set(self._background), timeout=5)
        if self.presence is not None:
            # Sockets still open here are closing with the process: their seats are away now
            # (rather than when their entries would expire).
            for live in list(self._games.values()):
                for connection, seat in list(live.members.items()):
                    await self.presence.end(live.stored.id, seat, connection)
                live.members.clear()
            await self.presence.close()

    async def _db(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a store call in a thread; a database that does not answer (down, unreachable,
        connection lost, every connection busy) becomes a 503 the client may try again after.
        Every change is stored before it is made in memory, so nothing has changed then."""
        try:
            return await asyncio.to_thread(fn, *args)
        except DB_UNAVAILABLE as exc:
            log.warning("the database does not answer (%s): %s", type(exc).__name__, exc)
            raise UnavailableError(
                "storage-unavailable", "the game store does not answer: try again shortly"
            ) from exc

    async def _live(self, game_id: str) -> LiveGame:
        """The game held in memory, loaded first if it is not (see :meth:`_current`)."""
        live = self._games.get(game_id)
        if live is not None:
            live.used = time.monotonic()
            return live
        if not GAME_ID_SHAPE.fullmatch(game_id):
            raise NotFoundError("unknown-game", f"there is no game {game_id!r}")
        async with self._load_lock:
            live = self._games.get(game_id)
            if live is None:
                stored, game = await self._load(game_id)
                live = LiveGame(stored=stored, game=game)
                self._games[game_id] = live
            live.used = time.monotonic()
            return live

    # --- memory ------------------------------------------------------------------------------
    #
    # Every game asked for stays in memory while it is used; one that nobody uses is dropped,
    # and loaded again from the database (the truth) when it is asked for next, as after a
    # restart. A game is in use while a socket of it is open on this process, while its bots
    # play on here, and while a change is being made to it (its lock is held); then for
    # ``idle_game_seconds`` after a request, an action or a socket last used it.

    def _is_idle(self, live: LiveGame, now: float) -> bool:
        return (
            live.sockets == 0
            and (live.bot_task is None or live.bot_task.done())
            and (live.heartbeat is None or live.heartbeat.done())
            and not live.lock.locked()
            and now - live.used >= self.settings.idle_game_seconds
        )

    def evict_idle(self) -> list[str]:
        """Drop from memory every game that is idle now; answers their ids. Synchronous (no
        await between the checks and the removal), so nothing can start using a game while
        it is dropped."""
        now = time.monotonic()
        idle = [game_id for game_id, live in self._games.items() if self._is_idle(live, now)]
        for game_id in idle:
            del self._games[game_id]
        if idle:
            log.debug("dropped %d idle games from memory", len(idle))
        return idle

    async def _sweep(self) -> None:
        """:meth:`evict_idle` every ``min(60, idle_game_seconds / 2)`` seconds: a game leaves
        memory between ``idle_game_seconds`` and half as long again (at most a minute) after
        its last use."""
        interval = min(60.0, self.settings.idle_game_seconds / 2)
        while not self._closing:
            await asyncio.sleep(interval)
            try:
                self.evict_idle()
            except Exception:  # pragma: no cover - a bug must not stop the sweeps
                log.exception("cannot drop idle games from memory")

    async def _load(self, game_id: str) -> tuple[StoredGame, Game | None]:
        stored = await self._db(self.store.load_game, game_id)
        if stored is None:
            raise NotFoundError("unknown-game", f"there is no game {game_id!r}")
        game = await asyncio.to_thread(rebuild, stored)
        if game is not None and game.is_over and stored.status != "over":
            # The last action was stored but the server stopped before marking the end.
            await self._db(self.store.set_status, game_id, "over")
            stored.status = "over"
        return stored, game

    async def _reload(self, live: LiveGame) -> None:
        """Load ``live`` again from the database; the caller holds its lock."""
        live.stored, live.game = await self._load(live.stored.id)

    async def _current(self, game_id: str) -> LiveGame:
        """The live game, as current as the database: what every request starts from.

        With one process (``memory://``) memory is always current. With several, the game
        held in memory is checked first (:meth:`_catch_up`: one small query)."""
        live = self._games.get(game_id)
        if live is None:
            live = await self._live(game_id)  # just loaded
        else:
            live.used = time.monotonic()
            if self.shared:
                await self._catch_up(live)
        if self._full_lobby(live):
            # Its last seat was filled, but the start could not be stored then (_maybe_start).
            async with live.lock:
                await self._maybe_start(live)
        return live

    @staticmethod
    def _full_lobby(live: LiveGame) -> bool:
        return live.stored.status == "lobby" and not any(s.is_free for s in live.stored.seats)

    async def _catch_up(self, live: LiveGame, *, locked: bool = False) -> bool:
        """Reload ``live`` if the database holds a change it lacks (another process's, whose
        notice may have been lost); this process's sockets of the game are then told. True
        when it was reloaded. ``locked``: the caller holds the game's lock."""
        stamp = await self._db(self.store.stamp, live.stored.id)
        if stamp is not None and stamp == stamp_of(live.stored):
            return False
        before = live.version
        if locked:
            await self._reload(live)
        else:
            async with live.lock:
                await self._reload(live)
        if live.sockets:
            change = "action" if live.version != before else "lobby"
            self.pubsub.deliver_locally(
                Notice(live.stored.id, live.version, change, self.pubsub.id)
            )
        return True

    async def catch_up(self, live: LiveGame) -> None:
        """:meth:`_catch_up` when several processes share the database (a socket opening);
        never raises (the heartbeat tries again)."""
        if self.shared:
            try:
                await self._catch_up(live)
            except Exception:
                log.exception("cannot check game %s against the database", live.stored.id)

    async def refresh(self, notice: Notice) -> None:
        """Catch up with a change made by another process."""
        if notice.origin == self.pubsub.id:
            return  # our own change: the live game is already current
        live = self._games.get(notice.game_id)
        if live is not None and (notice.version > live.version or notice.change == "lobby"):
            async with live.lock:
                if notice.version > live.version or notice.change == "lobby":
                    await self._reload(live)

    # --- seats and tokens --------------------------------------------------------------------

    @staticmethod
    def seat_of(live: LiveGame, token: str | None) -> int | None:
        if not token:
            return None
        digest = hash_token(token)
        for seat in live.stored.seats:
            if seat.token_hash and hmac.compare_digest(seat.token_hash, digest):
                return seat.seat
        return None

    def _require_seat(self, live: LiveGame, token: str | None) -> int:
        seat = self.seat_of(live, token)
        if seat is None:
            if not token:
                raise UnauthenticatedError("missing-token", "this needs your seat's token")
            raise ForbiddenError("wrong-token", "this token does not belong to a seat of this game")
        return seat

    @staticmethod
    def _check_seat_number(live: LiveGame, seat: int, kind: type[DomainError]) -> None:
        """Refuse a seat number the game does not have (``kind``: NotFoundError for a seat in
        the path, InvalidError for one in the body). Messages name seats as requests do, from 0
        (as the engine's messages, which reach the same clients); the page shows its own words."""
        players = live.stored.players
        if not 0 <= seat < players:
            raise kind(
                "unknown-seat",
                f"there is no seat {seat}: this game has {players} seats, 0 to {players - 1}",
            )

    async def resolve_token(self, game_id: str, token: str | None) -> int | None:
        """The seat of a token; None for no token (a spectator); 403 for a wrong token."""
        live = await self._current(game_id)
        if token:
            return self._require_seat(live, token)
        return None

    # --- creating and joining ----------------------------------------------------------------

    async def create_game(
        self,
        spec: schemas.CreateGameIn,
        base_url: str,
        rematch_of: str | None = None,
        client: str = "?",
    ) -> schemas.CreatedOut:
        """Create a game (``client``: the address asking, for the bound on tables of bots
        only). Left null, ``turn_limit`` becomes the server's ceiling (R23): its bound
        :data:`~gotown.server.schemas.MAX_TURN_LIMIT` with a person's seat, the lower
        :data:`BOTS_ONLY_TURN_LIMIT` without; it is stored in the game's options, so that the
        record replays as it was played (a game stored before this ceiling keeps its null)."""
        if spec.seed is not None and not self.settings.allow_seed:
            # The seed deals every card: a player who chose it could see all the hands (R22).
            raise InvalidError(
                "seed-not-allowed", "seed: this server does not let clients choose the seed"
            )
        if spec.name is not None and not spec.name.strip():
            raise InvalidError("invalid-name", "name: type a name (or leave it out)")
        levels = bot_levels()
        for i, seat in enumerate(spec.seats):
            if seat.kind == "bot" and (seat.level or "medium") not in levels:
                raise InvalidError(
                    "unknown-level",
                    f"seat {i}: bot level {seat.level!r} is not one of {list(levels)}",
                )
            if seat.kind == "human" and seat.level is not None:
                # Refused rather than dropped: the client meant a bot, or sent a stale form.
                raise InvalidError(
                    "level-for-person",
                    f"seat {i}: a level ({seat.level!r}) is for a bot's seat; a person's seat "
                    'takes none (send "kind": "bot" for a bot)',
                )
        try:
            options = Options.from_json(spec.options)
            if options.first_player != "random" and int(options.first_player) >= len(spec.seats):
                raise InvalidError("invalid-options", "first_player must be one of the seats (R23)")
        except GoTownError as exc:
            raise InvalidError("invalid-options", str(exc)) from exc
        if options.turn_limit is not None and options.turn_limit > schemas.MAX_TURN_LIMIT:
            raise InvalidError(
                "invalid-options",
                f"option turn_limit: {options.turn_limit} is more than this server's "
                f"{schemas.MAX_TURN_LIMIT} turns (R23)",
            )
        bots_only = all(seat.kind == "bot" for seat in spec.seats)
        if options.turn_limit is None:
            ceiling = BOTS_ONLY_TURN_LIMIT if bots_only else schemas.MAX_TURN_LIMIT
            options = dataclasses.replace(options, turn_limit=ceiling)
        game_id = secrets.token_urlsafe(8)
        if bots_only:
            self._reserve_bots_only(game_id, client)  # (refused before anything is stored)
        token: str | None = None
        creator_seat: int | None = None
        seats: list[StoredSeat] = []
        for i, seat in enumerate(spec.seats):
            if seat.kind == "bot":
                seats.append(StoredSeat(i, "bot", seat.level or "medium", None, None))
                continue
            if creator_seat is None and spec.name:
                creator_seat = i
                token = secrets.token_urlsafe(24)
                seats.append(StoredSeat(i, "human", None, spec.name.strip(), hash_token(token)))
            else:
                seats.append(StoredSeat(i, "human", None, None, None))
        stored = StoredGame(
            id=game_id,
            players=len(seats),
            seed=spec.seed if spec.seed is not None else secrets.randbits(schemas.SEED_BITS),
            options=options.to_json(),
            language=spec.language,
            invite_code=secrets.token_urlsafe(9),
            status="lobby",
            seats=seats,
            rematch_of=rematch_of,
        )
        try:
            await self._db(self.store.create_game, stored)
            live = await self._live(game_id)
            live.creator = None if client == "?" else client  # ("?": the address is unknown)
            if bots_only:
                live.owner = client
            if creator_seat is not None:
                await self._mark_taken(live, creator_seat)
            await self._maybe_start(live)
        finally:
            self._release_bots_only(game_id)  # (unless its bots play)
        urls = self.urls(live, base_url)
        return schemas.CreatedOut(
            game_id=game_id,
            seat=creator_seat,
            token=token,
            play_url=self.play_url(game_id, token, base_url),
            invite_url=urls["invite_url"],
            watch_url=urls["watch_url"],
        )

    def _base(self, base_url: str) -> str:
        return (self.settings.public_base_url or base_url).rstrip("/")

    def urls(self, live: LiveGame, base_url: str) -> dict[str, str]:
        base = self._base(base_url)
        return {
            "invite_url": f"{base}/j/{live.stored.invite_code}",
            "watch_url": f"{base}/w/{live.stored.id}",
        }

    def play_url(self, game_id: str, token: str | None, base_url: str) -> str:
        base = self._base(base_url)
        return f"{base}/g/{game_id}" + (f"#t={token}" if token else "")

    async def game_for_invite(self, code: str) -> str:
        game_id: str | None = None
        if INVITE_CODE_SHAPE.fullmatch(code):
            game_id = await self._db(self.store.game_id_for_invite, code)
        if game_id is None:
            raise NotFoundError("unknown-invitation", "this invitation link is not valid")
        return game_id

    async def join(self, game_id: str, body: schemas.JoinIn, base_url: str) -> schemas.JoinedOut:
        live = await self._current(game_id)
        if not hmac.compare_digest(
            live.stored.invite_code.encode(), body.code.encode("utf-8", "surrogatepass")
        ):
            raise ForbiddenError("wrong-invitation", "this invitation code is not for this game")
        name = body.name.strip()
        if not name:
            raise InvalidError("invalid-name", "type a name")
        if body.seat is not None:
            self._check_seat_number(live, body.seat, InvalidError)
        async with live.lock:
            free = [s.seat for s in live.stored.seats if s.is_free]
            if not free:
                raise ConflictError("no-free-seat", "every seat of this game is taken")
            seat = free[0] if body.seat is None else body.seat
            if seat not in free:
                raise ConflictError("seat-taken", f"seat {seat} is not free")
            token = await self._seat_person(live, seat, name)
            await self._maybe_start(live)
        await self._notify(live, "lobby")
        return self._joined(game_id, seat, token, base_url)

    async def _seat_person(
        self, live: LiveGame, seat: int, name: str, *, from_bot: bool = False
    ) -> str:
        """Give ``seat`` (free, or a bot's that no person holds: ``from_bot``) to ``name``, in
        the database and the copy; answer the seat's new token. The caller holds the lock."""
        token = secrets.token_urlsafe(24)
        # Marked first, so that no process ever sees the seat taken but not when: at worst
        # (someone else took it first) their seat counts as away a little later.
        await self._mark_taken(live, seat)
        take: Callable[..., bool] = self.store.take_seat
        if from_bot:
            take = functools.partial(take, from_bot=True)
        if not await self._db(take, live.stored.id, seat, name, hash_token(token)):
            await self._reload(live)
            raise ConflictError("seat-taken", f"seat {seat} was just taken")
        target = live.stored.seats[seat]
        target.kind, target.level = "human", None
        target.name, target.token_hash = name, hash_token(token)
        if self.shared:
            # Other seats may have been taken elsewhere meanwhile: go on from the facts.
            await self._catch_up(live, locked=True)
        return token

    def _joined(self, game_id: str, seat: int, token: str, base_url: str) -> schemas.JoinedOut:
        return schemas.JoinedOut(
            game_id=game_id,
            seat=seat,
            token=token,
            play_url=self.play_url(game_id, token, base_url),
        )

    async def _maybe_start(self, live: LiveGame) -> None:
        """Start the game once every seat is filled (by a person or a bot).

        The change that filled the last seat is stored already, so a start that cannot be
        stored now does not undo it, nor answer "try again" for it: the game stays in the
        lobby, full, and the next request to it starts it (:meth:`_current`)."""
        if not self._full_lobby(live):
            return
        try:
            started = await self._db(self.store.set_status, live.stored.id, "playing", "lobby")
        except DomainError:
            return  # (logged by _db)
        if started:
            live.game = _new_game(live.stored)
            live.stored.status = "playing"
        else:  # another process started it first (and it may have gone on since)
            await self._reload(live)
        self._kick_bots(live)

    # --- reading -----------------------------------------------------------------------------

    def lobby(self, live: LiveGame, base_url: str, *, invited: bool = True) -> schemas.LobbyOut:
        """The lobby; the invitation link only for those ``invited`` (a seat, or the code's
        holder): the spectator link must not be a way to take a free seat."""
        urls = self.urls(live, base_url)
        if not invited:
            urls["invite_url"] = None  # type: ignore[assignment]
        return schemas.LobbyOut(
            game_id=live.stored.id,
            status=live.stored.status,  # type: ignore[arg-type]
            players=live.stored.players,
            options=live.stored.options,
            language=live.stored.language,  # type: ignore[arg-type]
            seats=[
                schemas.SeatOut(
                    seat=s.seat,
                    kind=s.kind,  # type: ignore[arg-type]
                    level=s.level,
                    name=s.name,
                    taken=s.kind == "bot" or s.token_hash is not None,
                    connected=s.kind == "bot" or self._is_connected(live, s.seat),
                    handover_in=self._handover_in(live, s.seat)
                    if s.kind == "human" and s.token_hash is not None
                    else None,
                )
                for s in live.stored.seats
            ],
            rematch_id=live.stored.rematch_id,
            rematch_of=live.stored.rematch_of,
            **urls,
        )

    @staticmethod
    def check_events_from(live: LiveGame, events_from: int) -> None:
        """Refuse (422 ``invalid-request``) an ``events_from`` beyond the game's events: a
        client cannot hold events the game has not had."""
        count = 0 if live.game is None else live.game.event_count
        if not 0 <= events_from <= count:
            raise InvalidError(
                "invalid-request",
                f"events_from: {events_from} is not between 0 and the game's event count ({count})",
            )

    async def view_json(
        self, live: LiveGame, game: Game, seat: int | None, start: int = 0
    ) -> dict[str, Any]:
        """``game.view(seat)`` as JSON, with only the events from index ``start`` on. A few
        events: built here, from a copy without history (:func:`_view_json`). More: cut from
        the seat's full view at this version, built once in the view worker, off the event
        loop, and kept until the game moves on (so that a flood of full states costs one)."""
        if game.event_count - start <= EVENTS_BUILT_IN_LOOP:
            return _view_json(game, seat, start)
        version = game.version
        loop = asyncio.get_running_loop()

        def keep_this_version_only() -> None:
            for key in [key for key in live.views if key[1] != version]:
                live.views.pop(key, None)

        full = await _shared(
            live.views,
            (seat, version),
            lambda: loop.run_in_executor(self._view_executor, _full_view_json, game, seat),
            keep_this_version_only,
        )
        return full if start == 0 else {**full, "events": full["events"][start:]}

    async def state_for(
        self,
        live: LiveGame,
        seat: int | None,
        base_url: str,
        events_from: int = 0,
        *,
        or_full: bool = False,
    ) -> schemas.StateOut:
        """The state for ``seat`` (None: a spectator), its view's events from index
        ``events_from`` on, with the presence of every process read first. An
        ``events_from`` beyond the game's events is refused (:meth:`check_events_from`), or
        with ``or_full`` answered with every event (a socket whose game was reloaded behind
        what it was sent)."""
        await self._read_presence(live)
        game = live.game
        if or_full and events_from > (0 if game is None else game.event_count):
            events_from = 0
        self.check_events_from(live, events_from)
        if game is None:
            return schemas.StateOut(
                game_id=live.stored.id,
                status=live.stored.status,  # type: ignore[arg-type]
                seat=seat,
                version=0,
                lobby=self.lobby(live, base_url, invited=seat is not None),
                view=None,
                events_from=0,
                legal=[],
            )
        view = await self.view_json(live, game, seat, events_from)
        # (The game may have moved on meanwhile: the state is all of the one its view is of.)
        legal: list[dict[str, Any]] = []
        if (
            seat is not None
            and not game.is_over
            and game.active == seat
            and live.stored.seats[seat].kind == "human"
        ):
            legal = [a.to_json() for a in game.legal_actions()]
        return schemas.StateOut(
            game_id=live.stored.id,
            status="over" if game.is_over else "playing",
            seat=seat,
            version=game.version,
            lobby=self.lobby(live, base_url, invited=seat is not None),
            view=view,
            events_from=events_from,
            legal=legal,
        )

    async def encode(self, state: schemas.StateOut) -> str:
        """The state as JSON text; in the view worker when its view holds many events (2 MB
        of them after 20,000 actions), so that the event loop never encodes a long game."""
        if state.view is not None and len(state.view["events"]) > EVENTS_BUILT_IN_LOOP:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._view_executor, state.model_dump_json)
        return state.model_dump_json()

    async def state(
        self, game_id: str, token: str | None, base_url: str, events_from: int = 0
    ) -> schemas.StateOut:
        live = await self._current(game_id)
        seat = self._require_seat(live, token) if token else None
        return await self.state_for(live, seat, base_url, events_from)

    async def lobby_of(
        self, game_id: str, base_url: str, token: str | None = None, *, invited: bool = False
    ) -> schemas.LobbyOut:
        """The lobby; with the invitation link for a seat's token (or ``invited``)."""
        live = await self._current(game_id)
        if token:
            self._require_seat(live, token)
            invited = True
        await self._read_presence(live)
        return self.lobby(live, base_url, invited=invited)

    # --- acting ------------------------------------------------------------------------------

    async def act(
        self, game_id: str, token: str | None, body: schemas.ActionIn, base_url: str
    ) -> schemas.StateOut:
        """:meth:`play`, then the state after it, with the events from ``body.events_from``."""
        live, seat = await self.play(game_id, token, body)
        # Checked (before the action) against fewer events than the game has now.
        return await self.state_for(live, seat, base_url, body.events_from, or_full=True)

    async def play(
        self, game_id: str, token: str | None, body: schemas.ActionIn
    ) -> tuple[LiveGame, int]:
        """Make an action and answer nothing but the game and the seat: a socket is sent the
        new events by its push, and builds no state here."""
        live = await self._current(game_id)
        seat = self._require_seat(live, token)
        # Once received, an action is made whole (stored, in memory, told, bots kicked) even
        # when its request is cancelled meanwhile (a socket whose client left): a write left
        # in its thread while memory stayed behind would make the table lag its database.
        task = asyncio.ensure_future(self._act(live, seat, body))
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await task
            raise
        return live, seat

    async def _act(self, live: LiveGame, seat: int, body: schemas.ActionIn) -> None:
        async with live.lock:
            if self.shared and (live.game is None or body.version > live.game.version):
                # The client has seen more than this process (another process moved since the
                # request began): catch up rather than refuse a current version as stale.
                await self._catch_up(live, locked=True)
            # A request that asks for too much changes nothing.
            self.check_events_from(live, body.events_from)
            if live.stored.seats[seat].kind == "bot":
                raise ConflictError("seat-is-bot", "a bot plays this seat now; take it back first")
            await self._apply(live, seat, body.version, body.action)
        await self._notify(live, "action")
        self._kick_bots(live)

    async def _apply(self, live: LiveGame, seat: int, version: int, data: Any) -> None:
        """Check and apply one action; the caller holds the game's lock."""
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
        try:
            action = Action.from_json(data)
        except (GoTownError, TypeError, KeyError, ValueError) as exc:
            raise InvalidError("invalid-action", f"not an action: {exc}") from exc
        after = game.copy()
        try:
            after.apply(action)
        except IllegalActionError as exc:
            raise InvalidError("illegal-action", exc.reason, rule=exc.rule) from exc
        except InvalidActionError as exc:
            raise InvalidError("invalid-action", str(exc)) from exc
        # The action and, when it ends the game, the status are one write: a failure between
        # two writes would answer "try again" for an action that was made.
        # Who made it (the seat's kind here) is checked there too: another process may have
        # handed the seat over, or taken it back from its bot, since this one looked.
        kind = live.stored.seats[seat].kind
        store_it = functools.partial(self.store.append_action, ends=after.is_over, kind=kind)
        try:
            await self._db(store_it, live.stored.id, version, seat, action.to_json())
        except SeatChangedError as exc:
            await self._reload(live)
            if kind == "human":
                raise ConflictError("seat-is-bot", f"{exc}: take it back first") from exc
            raise ConflictError("stale-version", str(exc)) from exc  # (a bot's: not shown)
        except WriteConflictError as exc:
            await self._reload(live)
            raise ConflictError("stale-version", "another action was applied first") from exc
        live.game = after
        live.used = time.monotonic()
        live.stored.actions.append(action.to_json())
        if after.is_over:
            live.stored.status = "over"

    async def _notify(self, live: LiveGame, change: str) -> None:
        try:
            await self.pubsub.publish(Notice(live.stored.id, live.version, change, self.pubsub.id))
        except Exception:  # a lost notice must not lose the action: clients also poll on reconnect
            log.exception("cannot publish a notice for game %s", live.stored.id)

    # --- bots --------------------------------------------------------------------------------

    def _bot_for(self, live: LiveGame, seat: int) -> Any:
        stored = live.stored.seats[seat]
        bot = live.bots.get(seat)
        if bot is None or getattr(bot, "_gotown_level", None) != stored.level:
            bot = bots_module().make_bot(stored.level or "medium", bot_seed(live.stored.seed, seat))
            with contextlib.suppress(AttributeError):
                bot._gotown_level = stored.level
            live.bots[seat] = bot
        return bot

    def _bot_to_move(self, live: LiveGame) -> bool:
        game = live.game
        if game is None or game.is_over or live.stored.seats[game.active].kind != "bot":
            return False
        # A table of bots in a deadlock (full hands that can do nothing, R7b) would end turns
        # for ever: stored, notified and resumed at every restart. It stands still instead, as
        # a table of people does when they walk away; a person who takes a seat back may
        # still end turns by hand. (A table created with bots only has a turn limit anyway.)
        return not (all(seat.kind == "bot" for seat in live.stored.seats) and game.is_deadlocked())

    def _kick_bots(self, live: LiveGame) -> None:
        if self._closing or not self._bot_to_move(live):
            return
        if live.bot_task is not None and not live.bot_task.done():
            return
        game_id = live.stored.id
        if all(seat.kind == "bot" for seat in live.stored.seats) and game_id not in self._bots_only:
            # Not reserved when it was created or handed over: resumed at a start.
            try:
                self._reserve_bots_only(game_id, live.owner)
            except DomainError as exc:
                log.info("the bots of game %s stand still: %s", game_id, exc.message)
                return
        live.bot_task = asyncio.get_running_loop().create_task(self._run_bots(live))
        live.bot_task.add_done_callback(lambda _task: self._release_bots_only(game_id))

    # --- tables of bots only -----------------------------------------------------------------
    #
    # Anyone may start a table of bots only, to watch it; each plays up to BOTS_ONLY_TURN_LIMIT
    # turns, and is resumed at a start. So at most ``max_bots_only_tables`` of them play at once
    # on this process (``max_bots_only_tables_per_client`` per client address): a place is
    # held from the table's creation (or the hand-over that left it without a person) until
    # its bots stop playing.

    def _reserve_bots_only(self, game_id: str, client: str | None) -> None:
        """Hold a place for the table of bots only ``game_id`` started by ``client`` (None: by
        nobody, resumed); 429 ``too-many-bot-tables`` when none is left. Synchronous, so that
        two requests cannot take the last place together."""
        if game_id in self._bots_only:
            return
        limit = self.settings.max_bots_only_tables
        if len(self._bots_only) >= limit:
            raise BusyError(
                "too-many-bot-tables",
                f"{len(self._bots_only)} tables of bots only are playing on this server, its "
                f"limit ({limit}): try again when one has ended",
            )
        if client is not None:
            per_client = self.settings.max_bots_only_tables_per_client
            mine = sum(1 for owner in self._bots_only.values() if owner == client)
            if mine >= per_client:
                raise BusyError(
                    "too-many-bot-tables",
                    f"your address already has {mine} tables of bots only playing, the limit "
                    f"per address ({per_client}): try again when one has ended",
                )
        self._bots_only[game_id] = client

    def _release_bots_only(self, game_id: str) -> None:
        """Give back the place of ``game_id`` unless its bots play."""
        live = self._games.get(game_id)
        if live is not None and live.bot_task is not None and not live.bot_task.done():
            return
        self._bots_only.pop(game_id, None)

    async def _run_bots(self, live: LiveGame) -> None:
        loop = asyncio.get_running_loop()
        retry = DB_RETRY_SECONDS
        while self._bot_to_move(live) and not self._closing:
            if self.settings.bot_delay:
                await asyncio.sleep(self.settings.bot_delay)
            game = live.game
            if game is None or not self._bot_to_move(live):
                return
            seat = game.active
            version = game.version
            legal = game.legal_actions()
            # A failing bot must not stall the table: it falls back to a seeded random move.
            fallback = legal[random.Random(live.stored.seed * 1009 + version).randrange(len(legal))]
            try:
                bot = self._bot_for(live, seat)
                people = any(s.kind != "bot" for s in live.stored.seats)
                # The view (it holds every event) is built off the event loop: a game held in
                # memory never changes once current. Only the view goes to the bots' worker.
                view = await loop.run_in_executor(self._view_executor, game.view, seat)
                if people:
                    async with self._bot_gate.slot(live.creator or live.stored.id):
                        action, bot = await self._bot_workers.run(_choose, bot, view, legal)
                else:
                    action, bot = await self._bots_only_workers.run(_choose, bot, view, legal)
                live.bots[seat] = bot  # (from a process, the copy that chose)
                if action not in legal:
                    log.error("bot of seat %s chose an illegal %r in game %s", seat, action,
                              live.stored.id)  # fmt: skip
                    action = fallback
            except asyncio.CancelledError:
                raise
            except Exception:
                if self._closing:  # the workers were ended with the server: nothing to store
                    return
                log.exception("the bot of seat %s failed in game %s", seat, live.stored.id)
                action = fallback
            outcome = await self._store_bot_move(live, seat, version, action)
            if outcome == "stop":
                return
            if outcome == "unavailable":  # the database does not answer: try again later
                await asyncio.sleep(retry)
                retry = min(2 * retry, DB_RETRY_MAX_SECONDS)
                continue
            retry = DB_RETRY_SECONDS
            if outcome == "moved":
                await self._notify(live, "action")

    async def _store_bot_move(
        self, live: LiveGame, seat: int, version: int, action: Action
    ) -> Literal["moved", "again", "stop", "unavailable"]:
        """Apply a bot's move unless the game moved on while it thought. Answers ``"moved"``,
        ``"again"`` (somebody else moved, or the seat's person took it back: think again),
        ``"stop"`` (another process plays the bots on, or the move was refused) or
        ``"unavailable"`` (the database does not answer; nothing changed)."""
        async with live.lock:
            try:
                if self.shared:
                    # Another process may have moved, or the seat's person taken it back there.
                    reloaded = await self._catch_up(live, locked=True)
                    if reloaded and live.version != version:
                        return "stop"
                if live.game is None or live.game.version != version:
                    return "again"
                if live.stored.seats[seat].kind != "bot":
                    return "again"
                await self._apply(live, seat, version, action.to_json())
            except DomainError as exc:
                if isinstance(exc, UnavailableError):
                    return "unavailable"
                log.error("bot move refused in game %s: %s", live.stored.id, exc.message)
                return "stop"
            except Exception:
                log.exception("cannot make a bot move in game %s", live.stored.id)
                return "stop"
        return "moved"

    async def _estimate(
        self,
        live: LiveGame,
        seat: int,
        version: int,
        kind: str,
        compute: Callable[[View], T],
        view: View | Game,
        client: str,
    ) -> T:
        """``compute(view)`` in the hint worker, at most once per (seat, version, kind): cached.
        ``view``: the seat's view, or the game to build it from (in the view worker: only the
        view goes to the hint worker).

        Only the newest few answers per seat are kept, and a failed computation is forgotten
        (so that it can be asked again). A new computation is refused (429 ``estimate-busy``)
        while ``max_pending_estimates`` are queued or under way, or
        ``max_pending_estimates_per_client`` started by ``client``; one already under way is
        shared with whoever asks for it.
        """

        def keep_the_newest() -> None:
            mine = sorted(k for k in live.estimates if k[0] == seat)
            for old in mine[: max(0, len(mine) - 4)]:
                live.estimates.pop(old, None)

        loop = asyncio.get_running_loop()

        async def run() -> T:
            seen = view
            if isinstance(seen, Game):
                seen = await loop.run_in_executor(self._view_executor, seen.view, seat)
            return await self._hint_workers.run(compute, seen)

        def start() -> asyncio.Future[T]:
            self._admit_estimate(client)  # (raises before anything is queued)
            future = asyncio.ensure_future(run())
            future.add_done_callback(lambda _future: self._estimate_done(client))
            return future

        try:
            return await _shared(live.estimates, (seat, version, kind), start, keep_the_newest)
        except (asyncio.CancelledError, DomainError):
            raise
        except Exception as exc:
            log.exception("the estimate for seat %s failed in game %s", seat, live.stored.id)
            raise UnavailableError("estimate-failed", "the estimate failed: try again") from exc

    def _admit_estimate(self, client: str) -> None:
        """Count a new estimate of ``client``, or refuse it (429 ``estimate-busy``) when the
        hint worker already has as many as it may queue, in all or for that address."""
        limit = self.settings.max_pending_estimates
        if self._estimates_pending >= limit:
            raise BusyError(
                "estimate-busy",
                f"{self._estimates_pending} estimates are being computed on this server, its "
                f"limit ({limit}): try again in a moment",
            )
        per_client = self.settings.max_pending_estimates_per_client
        if self._estimates_by_client[client] >= per_client:
            raise BusyError(
                "estimate-busy",
                f"your address already waits for {self._estimates_by_client[client]} "
                f"estimates, the limit per address ({per_client}): try again when they are done",
            )
        self._estimates_pending += 1
        self._estimates_by_client[client] += 1

    def _estimate_done(self, client: str) -> None:
        self._estimates_pending -= 1
        self._estimates_by_client[client] -= 1
        if self._estimates_by_client[client] <= 0:
            del self._estimates_by_client[client]

    def _hints_now(self, game: Game) -> Callable[[View], Any]:
        """The hint's work for the seat to act in ``game``."""
        seed = self.settings.hint_seed + game.version
        return functools.partial(_hints, game.legal_actions(), seed)

    async def hint(self, game_id: str, token: str | None, client: str = "?") -> schemas.HintOut:
        live = await self._current(game_id)
        seat = self._require_seat(live, token)
        game = live.game
        if game is None or game.is_over:
            raise ConflictError("no-hint", "there is nothing to hint: the game is not running")
        if game.active != seat:
            raise ConflictError("not-your-turn", "hints are for your own turn")
        version = game.version
        result = await self._estimate(
            live, seat, version, "hint", self._hints_now(game), game, client
        )
        return schemas.HintOut(
            version=version,
            hints=[schemas.HintItem(action=a.to_json(), win_probability=p) for a, p in result],
        )

    async def chances(
        self, game_id: str, token: str | None, client: str = "?"
    ) -> schemas.ChancesOut:
        """The seat's estimated chance of winning, for its own eyes only.

        On its turn: the best action's estimate now (shared with the hint). Otherwise: the
        estimate of ending its last turn, made on the position just before it ended (the search
        only ever looks from the seat to act, and only through that seat's view). Each is
        computed once per game version and seat, and so is where the seat's last turn ended
        (a replay of the game: once per number of actions).
        """
        live = await self._current(game_id)
        seat = self._require_seat(live, token)
        game = live.game
        if game is None or game.is_over:
            raise ConflictError(
                "not-running", "there are no chances to estimate: the game is not running"
            )
        if game.active == seat:
            version = game.version
            hints = await self._estimate(
                live, seat, version, "hint", self._hints_now(game), game, client
            )
            p = hints[0][1] if hints else None
            return schemas.ChancesOut(
                version=game.version, basis="turn", of_version=version, win_probability=p
            )
        found = await self._last_turn_end_of(live, seat)
        if found is None:
            return schemas.ChancesOut(
                version=game.version, basis="none", of_version=None, win_probability=None
            )
        version, view, end = found
        seed = self.settings.hint_seed + version
        after_turn = functools.partial(_after_turn, end, seed)
        p_after = await self._estimate(live, seat, version, "after-turn", after_turn, view, client)
        return schemas.ChancesOut(
            version=game.version, basis="after-turn", of_version=version, win_probability=p_after
        )

    async def _last_turn_end_of(self, live: LiveGame, seat: int) -> Any:
        """:func:`_last_turn_end` of the game as it is now, in the view worker, found once per
        (seat, number of actions): only the newest is kept for each seat."""
        stored = live.stored
        actions = list(stored.actions)
        loop = asyncio.get_running_loop()

        def keep_the_newest() -> None:
            for key in [key for key in live.turn_ends if key[0] == seat and key[1] != len(actions)]:
                live.turn_ends.pop(key, None)

        return await _shared(
            live.turn_ends,
            (seat, len(actions)),
            lambda: loop.run_in_executor(
                self._view_executor, _last_turn_end, stored, actions, seat
            ),
            keep_the_newest,
        )

    # --- presence, hand-over -----------------------------------------------------------------
    #
    # With memory:// a seat is connected while this process holds one of its sockets, and away
    # since its last socket closed here (or since this process started: time.monotonic()).
    # With redis:// the same holds across every process, through RedisPresence: a seat is also
    # connected while a socket of it is open on another process, and away since the last one
    # closed or expired anywhere (wall clock). A seat that nobody saw, on any process, is away
    # since this process started (time.time()): as one process after a restart, a process that
    # just started gives absent people ``absent_seconds`` to come back. A seat taken (joined,
    # or taken back from a bot) is away from then until its person connects, on every process:
    # the others wait ``absent_seconds`` before handing a newcomer's seat to a bot too.

    async def _mark_taken(self, live: LiveGame, seat: int) -> None:
        """The seat was just taken or taken back: until its person connects, it is away from
        now (rather than since this process started). Written to the shared presence before
        the answer, so that every process sees it. Never raises."""
        if live.connections.get(seat, 0) == 0:
            live.away_since[seat] = time.monotonic()
        if self.presence is not None:
            await self.presence.taken(live.stored.id, seat)

    def connected(self, live: LiveGame, seat: int | None) -> str:
        """A socket opened (a seat's, or a spectator's for None): this process's bookkeeping, at
        once; answers the connection's id. Then await :meth:`tell_opened`, and in the end
        :meth:`socket_closed`."""
        connection = secrets.token_hex(8)
        live.sockets += 1
        if seat is not None:
            live.connections[seat] = live.connections.get(seat, 0) + 1
            live.away_since.pop(seat, None)
        if self.presence is not None:
            if seat is not None:
                live.members[connection] = seat
            if live.heartbeat is None or live.heartbeat.done():
                live.heartbeat = asyncio.get_running_loop().create_task(self._heartbeat(live))
        return connection

    async def tell_opened(self, live: LiveGame, seat: int | None, connection: str) -> None:
        """Every process learns of a seat's socket: its connection written to Redis (before its
        first state is sent), then a presence notice. A spectator's socket changes nothing that
        anyone is shown (only seats are present or away), so it tells nobody: else every watcher
        coming or going would push a state to every socket of the game. Never raises."""
        if seat is None:
            return
        if self.presence is not None and connection in live.members:
            async with live.presence_lock:
                member = live.members.get(connection)
                if member is not None:  # (unless it closed meanwhile)
                    await self.presence.refresh(live.stored.id, {connection: member})
        await self.presence_changed(live)

    def disconnected(self, live: LiveGame, seat: int | None) -> None:
        """A socket closed: this process's own bookkeeping, at once (:meth:`socket_closed` does
        this, then tells the others)."""
        live.sockets = max(0, live.sockets - 1)
        live.used = time.monotonic()  # idle from the time its last socket closed
        if seat is not None:
            live.connections[seat] = max(0, live.connections.get(seat, 0) - 1)
            if live.connections[seat] == 0:
                live.away_since[seat] = time.monotonic()
        # Nobody watches a finished game: forget it (it is reloaded from the database).
        if (
            live.sockets == 0
            and live.stored.status == "over"
            and self._games.get(live.stored.id) is live
        ):
            del self._games[live.stored.id]
        if live.sockets == 0 and live.heartbeat is not None:
            live.heartbeat.cancel()
            live.heartbeat = None

    def socket_closed(
        self, live: LiveGame, seat: int | None, connection: str
    ) -> asyncio.Task[None]:
        """The socket closed: :meth:`disconnected` now, then in a task of its own (which goes on
        when the socket's handler is cancelled) its connection marked closed in Redis and a
        presence notice to every process. Await it, shielded; it never raises."""
        self.disconnected(live, seat)
        shared = live.members.pop(connection, None) is not None
        task = asyncio.get_running_loop().create_task(
            self._tell_closed(live, seat, connection, shared)
        )
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    async def _tell_closed(
        self, live: LiveGame, seat: int | None, connection: str, shared: bool
    ) -> None:
        """``shared``: the connection was written to Redis. A spectator's socket tells nobody
        (as in :meth:`tell_opened`)."""
        if seat is None:
            return
        if self.presence is not None and shared:
            # Under the lock, so that a heartbeat cannot open it again after this.
            async with live.presence_lock:
                await self.presence.end(live.stored.id, seat, connection)
        await self.presence_changed(live)

    async def _heartbeat(self, live: LiveGame) -> None:
        """While this process holds sockets of the game: keep its seats' connections open in
        Redis, and tell its sockets when presence changed without a notice (a connection of a
        process that died has expired), or when the game changed in the database without one
        reaching this process (a lost notice)."""
        presence = self.presence
        assert presence is not None
        last = live.shared.connected
        while live.sockets > 0 and not self._closing:
            await asyncio.sleep(presence.interval)
            try:
                await self._catch_up(live)
            except DomainError:
                pass  # the game is gone, or the database does not answer (_db logged it)
            except Exception:  # a bug must not stop the heartbeat: try again at the next beat
                log.exception("cannot check game %s against the database", live.stored.id)
            try:
                async with live.presence_lock:
                    if live.members:
                        await presence.refresh(live.stored.id, dict(live.members))
                snapshot = await presence.read(live.stored.id)
            except PresenceUnavailableError:
                continue  # logged by RedisPresence; try again at the next beat
            except Exception:  # pragma: no cover - a bug must not stop the heartbeat
                log.exception("presence heartbeat failed for game %s", live.stored.id)
                continue
            live.shared = snapshot
            if snapshot.connected != last:
                last = snapshot.connected
                self.pubsub.deliver_locally(
                    Notice(live.stored.id, live.version, "presence", self.pubsub.id)
                )

    async def _read_presence(self, live: LiveGame) -> None:
        """Read every process's presence into ``live.shared`` (redis://; on an outage the last
        known one stays)."""
        if self.presence is None:
            return
        with contextlib.suppress(PresenceUnavailableError):
            live.shared = await self.presence.read(live.stored.id)

    async def presence_changed(self, live: LiveGame) -> None:
        await self._notify(live, "presence")

    def _is_connected(self, live: LiveGame, seat: int) -> bool:
        """A socket of the seat is open here, or (redis://) was open anywhere when last read."""
        return live.connections.get(seat, 0) > 0 or seat in live.shared.connected

    def _away_for(self, live: LiveGame, seat: int) -> float:
        """How long the seat has been away, from this process's bookkeeping (memory://) or the
        shared presence as last read (redis://)."""
        if self.presence is None:
            return time.monotonic() - live.away_since.get(seat, self._started)
        return time.time() - live.shared.away_since.get(seat, self._started_wall)

    def _handover_in(self, live: LiveGame, seat: int) -> int | None:
        """For a taken person's seat: None while connected, else the whole seconds (rounded up)
        until :meth:`_refuse_if_present` lets another person hand it to a bot; 0 from then on.
        The page counts down from it (relative, so that the clocks need not agree)."""
        if self._is_connected(live, seat):
            return None
        return max(0, math.ceil(self.settings.absent_seconds - self._away_for(live, seat)))

    async def _refuse_if_present(self, live: LiveGame, seat: int) -> None:
        """409 while the person of this seat is connected, or left less than
        ``absent_seconds`` ago; 503 when shared presence cannot be read."""
        if live.connections.get(seat, 0) > 0:
            raise ConflictError("seat-present", "this player is connected")
        if self.presence is not None:
            try:
                snapshot = await self.presence.read(live.stored.id)
            except PresenceUnavailableError as exc:
                raise UnavailableError(
                    "presence-unavailable",
                    "cannot tell now whether this player is connected: try again shortly",
                ) from exc
            live.shared = snapshot
            if seat in snapshot.connected:
                raise ConflictError("seat-present", "this player is connected")
        if self._away_for(live, seat) < self.settings.absent_seconds:
            raise ConflictError(
                "seat-present",
                f"this player left less than {self.settings.absent_seconds:.0f} seconds ago",
            )

    async def hand_to_bot(
        self, game_id: str, token: str | None, seat: int, level: str, client: str = "?"
    ) -> schemas.LobbyOut:
        """Another seated person hands a seat that stays away (or a free seat) to a bot. One
        that leaves no person's seat makes a table of bots only: it needs a place among them
        (429 ``too-many-bot-tables``, and nothing changes, when none is left)."""
        try:
            return await self._hand_to_bot(game_id, token, seat, level, client)
        finally:
            self._release_bots_only(game_id)  # (unless its bots play)

    async def _hand_to_bot(
        self, game_id: str, token: str | None, seat: int, level: str, client: str
    ) -> schemas.LobbyOut:
        live = await self._current(game_id)
        me = self._require_seat(live, token)
        self._check_seat_number(live, seat, NotFoundError)
        if level not in bot_levels():
            raise InvalidError(
                "unknown-level", f"bot level {level!r} is not one of {list(bot_levels())}"
            )
        for _attempt in range(3):
            if live.stored.status == "over":  # at once (and again under the lock, below)
                raise ConflictError("game-over", "the game is over")
            target = live.stored.seats[seat]
            was: tuple[str, str | None] | None = None
            if seat == me:
                pass  # handing your own seat to a bot is always allowed
            elif target.kind == "bot":
                raise ConflictError("already-bot", "a bot already plays this seat")
            else:
                if not target.is_free:
                    await self._refuse_if_present(live, seat)
                # Written only if the seat is still what was decided on: a person who took it
                # meanwhile (here, or on another process) keeps it.
                was = (target.kind, target.token_hash)
            async with live.lock:
                # Again under the lock the moves take: the last move may have ended the game
                # while this decided, or waited for the lock.
                if live.stored.status == "over":
                    raise ConflictError("game-over", "the game is over")
                others = (s for s in live.stored.seats if s.seat != seat)
                if all(s.kind == "bot" for s in others) and game_id not in self._bots_only:
                    self._reserve_bots_only(game_id, client)
                    live.owner = client
                if await self._db(self.store.set_seat_kind, game_id, seat, "bot", level, was):
                    stored_seat = live.stored.seats[seat]
                    stored_seat.kind, stored_seat.level = "bot", level
                    if self.shared:
                        await self._catch_up(live, locked=True)
                    await self._maybe_start(live)
                    break
                await self._reload(live)  # the seat changed meanwhile: decide again
        else:
            raise ConflictError("seat-taken", f"seat {seat} keeps changing: try again")
        await self._notify(live, "lobby")
        self._kick_bots(live)
        return self.lobby(live, "")

    async def reclaim(self, game_id: str, token: str | None) -> None:
        """A person takes their seat back from the bot that played it (while the game is not
        over: a finished game's seats stay as they finished it, as for a hand-over)."""
        live = await self._current(game_id)
        seat = self._require_seat(live, token)
        async with live.lock:
            if live.stored.status == "over":
                raise ConflictError("game-over", "the game is over")
            target = live.stored.seats[seat]
            if target.kind != "bot":
                return
            await self._mark_taken(live, seat)  # first, as for a join
            if not await self._db(self.store.set_seat_kind, game_id, seat, "human", None):
                await self._reload(live)  # (it ended on another process a moment ago)
                raise ConflictError("game-over", "the game is over")
            target.kind, target.level = "human", None
        await self._notify(live, "lobby")
        # The other bots may have stood still (a table of bots in a deadlock): with a person
        # back at the table, the bot whose turn it is plays on.
        self._kick_bots(live)

    # --- after the game ----------------------------------------------------------------------

    async def replay(self, game_id: str, token: str | None) -> schemas.ReplayOut:
        live = await self._current(game_id)
        seat = self._require_seat(live, token) if token else None
        if live.stored.status != "over":
            raise ConflictError("not-over", "the replay opens when the game is over")
        stored = live.stored
        return await _shared(
            live.replays, seat, lambda: asyncio.to_thread(self._replay_frames, stored, seat)
        )

    @staticmethod
    def _replay_frames(stored: StoredGame, seat: int | None) -> schemas.ReplayOut:
        game = _new_game(stored)
        frames: list[schemas.ReplayFrame] = []
        seen = 0

        def frame(actor: int | None, action: dict[str, Any] | None) -> None:
            # Only the events since the last frame (``game.view`` would convert every event so
            # far at each frame, quadratic in the game's length). The engine keeps one event
            # per raw event for every seat, so ``seen`` indexes both alike.
            nonlocal seen
            view = _view_json(game, seat, seen)
            seen = game.event_count
            frames.append(
                schemas.ReplayFrame(version=game.version, seat=actor, action=action, view=view)
            )

        frame(None, None)
        for data in stored.actions:
            actor = game.active
            action = Action.from_json(data)
            game.apply(action)
            frame(actor, action.to_json())
        return schemas.ReplayOut(
            game_id=stored.id,
            seat=seat,
            players=stored.players,
            names=[s.name for s in stored.seats],
            frames=frames,
        )

    async def rematch(self, game_id: str, token: str | None, base_url: str) -> schemas.JoinedOut:
        """Create the rematch (same seats, options, language) or join it, in the same seat."""
        live = await self._current(game_id)
        seat = self._require_seat(live, token)
        if live.stored.status != "over":
            raise ConflictError("not-over", "a rematch can start when the game is over")
        name = live.stored.seats[seat].name or f"Player {seat + 1}"
        async with live.lock:
            if live.stored.rematch_id is None:
                # A seat a person once held is a person's seat again in the rematch, even
                # when a bot finished the game for them.
                spec = schemas.CreateGameIn(
                    seats=[
                        schemas.SeatSpec(kind="human", level=None)
                        if s.token_hash is not None
                        else schemas.SeatSpec(kind=s.kind, level=s.level)  # type: ignore[arg-type]
                        for s in live.stored.seats
                    ],
                    options=live.stored.options,
                    language=live.stored.language,  # type: ignore[arg-type]
                )
                created = await self.create_game(spec, base_url, rematch_of=game_id)
                if await self._db(self.store.set_rematch, game_id, created.game_id):
                    live.stored.rematch_id = created.game_id
                else:  # another process linked one first (the game just made stays unused)
                    await self._reload(live)
        await self._notify(live, "lobby")
        rematch_id = live.stored.rematch_id
        assert rematch_id is not None
        new = await self._current(rematch_id)
        mine = new.stored.seats[seat]
        if mine.kind == "human" and not mine.is_free:
            # Their seat was taken already: by them, from another tab or device (the page
            # goes straight to a rematch it holds a seat in), or by someone with the
            # rematch's invitation. A seat's secret is shown once; it cannot be sent again.
            raise ConflictError(
                "rematch-seat-taken",
                f"seat {seat} of the rematch is taken already: by you on another device or "
                "browser, or by someone with its invitation",
            )
        if mine.kind == "bot":
            # Another player gave the seat to a bot before this one came back (the lobby's
            # "give to a bot" on a free seat): it is theirs again, as a reclaim gives it back.
            return await self._take_back_from_bot(new, seat, name, base_url)
        return await self.join(
            rematch_id,
            schemas.JoinIn(code=new.stored.invite_code, name=name, seat=seat),
            base_url,
        )

    async def _take_back_from_bot(
        self, live: LiveGame, seat: int, name: str, base_url: str
    ) -> schemas.JoinedOut:
        """Seat ``name`` at ``seat`` of the rematch ``live``, which a bot was given while it was
        free (in the lobby, or since: the game starts once every seat is filled)."""
        game_id = live.stored.id
        async with live.lock:
            target = live.stored.seats[seat]
            if live.stored.status == "over":
                raise ConflictError("game-over", "the rematch is over")
            if target.kind != "bot":  # (another request of theirs took it just before)
                raise ConflictError("seat-taken", f"seat {seat} was just taken")
            if target.token_hash is not None:
                # (a person's seat handed to a bot: that person may reclaim it, not another)
                raise ConflictError("seat-is-bot", "a bot plays your seat in the rematch")
            token = await self._seat_person(live, seat, name, from_bot=True)
        await self._notify(live, "lobby")
        self._kick_bots(live)  # (a bot thinking for the seat stops: the seat is a person's)
        return self._joined(game_id, seat, token, base_url)
