"""The in-memory table registry: the games this process holds, as current as the database.

A game's live :class:`~gotown.engine.Game` is rebuilt from its stored record (seed, options,
actions). Every game asked for stays in memory while it is used; one that nobody uses for
``idle_game_seconds`` (no socket open here, no bot playing here, no change under way: each job
says so through :attr:`Registry.in_use`) is dropped, and loaded again when it is asked for next,
as after a restart. A finished game also leaves as soon as its last socket closes.

With ``redis://`` several processes share the database, so a game held in memory may be behind
it. Every request first reads the shared count of the game's changes
(:mod:`~gotown.server.redis_changes`: one Redis read) and, when it moved since this process
last checked the game, compares the game's stamp (:meth:`Store.stamp`: one small query) with
the database's and reloads the game when they differ; a process holding sockets of a game does
the same at each presence heartbeat. A process's own change, and another's whose notice it
applied, keep its copy checked at the count after it (the notice carries the counts): only a
change this process has not seen costs a query, and an idle game none. Notices only make this
quicker: one that is lost costs nothing but time. A notice of an action carries the action: a
process whose copy is one version behind applies it (:meth:`Registry.refresh`) instead of
loading the game and replaying every action (:attr:`Registry.replays` counts those). With
``memory://`` there is one process, whose memory is always current.

A store call whose database does not answer (down, unreachable, connection lost, every pooled
connection busy) is :class:`~gotown.server.errors.UnavailableError` (503 ``storage-unavailable``).
Every change is stored before it is made in memory, so nothing has changed then.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sqlite3
import time
import weakref
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar
from urllib.parse import urlparse

from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

from gotown.engine import Action, Game, Options

from .. import metrics
from ..config import Settings
from ..errors import NotFoundError, UnavailableError
from ..pubsub import Notice, PubSub
from ..redis_changes import ChangeCounts
from ..storage import Store, StoredGame, stamp_of

log = logging.getLogger("gotown.server")

T = TypeVar("T")
S = TypeVar("S")

#: What SQLAlchemy raises when the database does not answer, as opposed to a refusal or a bug.
DB_UNAVAILABLE = (OperationalError, InterfaceError, PoolTimeoutError)


def storage_trouble(exc: BaseException) -> str | None:
    """What keeps the database from writing, in words, when it is the disk or the file and not
    an outage: a full disk (SQLite's ``SQLITE_FULL``, PostgreSQL's ``53100``) or a read-only
    database (``SQLITE_READONLY``, PostgreSQL's ``25006``); else None."""
    original = getattr(exc, "orig", None) or exc
    code = getattr(original, "sqlite_errorcode", None)
    code = code & 0xFF if isinstance(code, int) else None  # (the primary code of an extended one)
    state = getattr(original, "sqlstate", None) or getattr(original, "pgcode", None)
    text = str(original).lower()
    if code == sqlite3.SQLITE_FULL or state == "53100" or "no space left" in text:
        return "the server's disk is full"
    if code == sqlite3.SQLITE_READONLY or state == "25006" or "readonly database" in text:
        return "the database is read-only"
    return None


#: Every game id is ``secrets.token_urlsafe`` (11 characters of A-Z a-z 0-9 _ -) in a column of
#: 32. Anything else is no game's, and is answered as unknown without asking the database:
#: alike on every database (PostgreSQL cannot even compare a text with a NUL in it).
GAME_ID_SHAPE = re.compile(r"[A-Za-z0-9_-]{1,32}")


@dataclass(eq=False)
class LiveGame:
    """A game held in memory. The state each job keeps of it lives in that job's module."""

    stored: StoredGame
    game: Game | None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: The client address that created the game (None: loaded from the database): whose turn
    #: it is at the bots' workers.
    creator: str | None = None
    #: The client address that started this table of bots only (None: resumed at a start).
    owner: str | None = None
    #: When a request, an action or a socket last used it (``time.monotonic()``).
    used: float = field(default_factory=time.monotonic)
    #: The shared count of the game's changes when this copy was last checked against the
    #: database (:mod:`~gotown.server.redis_changes`; None: not yet).
    checked: int | None = None
    #: The counts just before and just after this process's last change, for its notice.
    counts: tuple[int, int] | None = None

    @property
    def id(self) -> str:
        return self.stored.id

    @property
    def version(self) -> int:
        return 0 if self.game is None else self.game.version

    @property
    def is_full_lobby(self) -> bool:
        return self.stored.status == "lobby" and not any(s.is_free for s in self.stored.seats)


class PerGame(Generic[S]):
    """The state a job keeps of each game held in memory, made on first use and gone with the
    game (a game dropped from memory and loaded again starts afresh)."""

    def __init__(self, factory: Callable[[], S]) -> None:
        self._factory = factory
        self._states: weakref.WeakKeyDictionary[LiveGame, S] = weakref.WeakKeyDictionary()

    def __call__(self, live: LiveGame) -> S:
        state = self._states.get(live)
        if state is None:
            state = self._states[live] = self._factory()
        return state

    def items(self) -> list[tuple[LiveGame, S]]:
        return list(self._states.items())

    def values(self) -> list[S]:
        return list(self._states.values())


def new_game(stored: StoredGame) -> Game:
    """The game as it was dealt: from the record's players, seed and options."""
    return Game.new(
        players=stored.players, seed=stored.seed, options=Options.from_json(stored.options)
    )


def rebuild(stored: StoredGame) -> Game | None:
    """The live game from its record: a new game from seed and options, then every action."""
    if stored.status == "lobby":
        return None
    game = new_game(stored)
    for data in stored.actions:
        game.apply(Action.from_json(data))
    return game


async def shared_once(
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


class Registry:
    def __init__(self, settings: Settings, store: Store, pubsub: PubSub) -> None:
        self.settings = settings
        self.store = store
        self.pubsub = pubsub
        self._games: dict[str, LiveGame] = {}
        self._loading: dict[str, asyncio.Future[LiveGame]] = {}
        #: Several processes (sharing the database) or one.
        self.shared = urlparse(settings.broadcast_url).scheme in ("redis", "rediss")
        #: Whether a job still uses a game (a socket, a bot, a heartbeat): kept in memory then.
        self.in_use: list[Callable[[LiveGame], bool]] = []
        #: Called (under the game's lock) for a lobby whose last seat is filled: the start.
        self.on_full_lobby: Callable[[LiveGame], Awaitable[None]] | None = None
        self.closing = False
        self._sweeper: asyncio.Task[None] | None = None
        #: Games rebuilt from the database (a load: every action replayed) and actions of
        #: another process applied to a copy from their notice, since the process started.
        self.replays = 0
        self.applied = 0
        #: Every write to a game counted first, for the other processes' heartbeats.
        self.changes = ChangeCounts(
            settings.broadcast_url if self.shared else None, pool_size=settings.redis_pool_size
        )
        self._retrier: asyncio.Task[None] | None = None

    def get(self, game_id: str) -> LiveGame | None:
        """The game if this process holds it (without loading it)."""
        return self._games.get(game_id)

    def games(self) -> list[LiveGame]:
        return list(self._games.values())

    async def db(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a store call in a thread; a database that does not answer is ``UnavailableError``
        (one whose disk is full, or that is read-only, says so: the operator must act)."""
        try:
            return await asyncio.to_thread(fn, *args)
        except DB_UNAVAILABLE as exc:
            metrics.database_error()
            trouble = storage_trouble(exc)
            if trouble is not None:
                log.error("the database refuses to write: %s (%s)", trouble, exc)
                raise UnavailableError(
                    "storage-unavailable",
                    f"the game store cannot write: {trouble}; nothing was stored, try again later",
                ) from exc
            log.warning("the database does not answer (%s): %s", type(exc).__name__, exc)
            raise UnavailableError(
                "storage-unavailable", "the game store does not answer: try again shortly"
            ) from exc

    async def write(self, game_id: str, fn: Callable[..., T], *args: Any) -> T:
        """:meth:`db` for a store call that changes ``game_id``'s record: the change is counted
        before the write and again after it (:mod:`~gotown.server.redis_changes`), so that the
        other processes look. Before: a process that dies between its write and its notice has
        moved the count. After: a heartbeat that read the first count while the write was not
        yet committed found nothing and kept that count; the second one makes it look again."""
        before = await self.changes.mark(game_id)
        try:
            return await self.db(fn, *args)
        finally:
            after = await self.changes.mark(game_id)
            live = self._games.get(game_id)
            if live is not None:
                # Counted twice and nothing else in between: the change is this one alone, so
                # a copy checked just before it is checked after it (the caller makes the copy
                # current before anything else runs), here and where its notice is applied.
                alone = before is not None and after == before + 1
                live.counts = (before - 1, after) if alone else None  # type: ignore[operator]
                if alone and live.checked == before - 1:  # type: ignore[operator]
                    live.checked = after

    async def live(self, game_id: str) -> LiveGame:
        """The game held in memory, loaded first if it is not (see :meth:`current`)."""
        live = self._games.get(game_id)
        if live is not None:
            live.used = time.monotonic()
            return live
        if not GAME_ID_SHAPE.fullmatch(game_id):
            raise NotFoundError("unknown-game", f"there is no game {game_id!r}")
        # Each game loaded once however many ask for it at once, games apart in parallel (a
        # burst of deadlines loads hundreds of games that nobody had used for a day).
        live = await shared_once(self._loading, game_id, lambda: self._load_live(game_id))
        live.used = time.monotonic()
        return live

    async def _load_live(self, game_id: str) -> LiveGame:
        try:
            live = self._games.get(game_id)
            if live is None:
                # (the count read first: the record loaded after it holds what it counts)
                count = await self.changes.read(game_id) if self.shared else None
                stored, game = await self._load(game_id)
                live = self._games[game_id] = LiveGame(stored=stored, game=game, checked=count)
            return live
        finally:
            self._loading.pop(game_id, None)  # (loaded: held in _games from now on)

    async def current(self, game_id: str) -> LiveGame:
        """The live game, as current as the database: what every request starts from."""
        live = self._games.get(game_id)
        if live is None:
            live = await self.live(game_id)  # just loaded
        else:
            live.used = time.monotonic()
            if self.shared:
                await self.catch_up_if_changed(live)
        if live.is_full_lobby and self.on_full_lobby is not None:
            # Its last seat was filled, but the start could not be stored then.
            async with live.lock:
                await self.on_full_lobby(live)
        return live

    async def _load(self, game_id: str) -> tuple[StoredGame, Game | None]:
        stored = await self.db(self.store.load_game, game_id)
        if stored is None:
            raise NotFoundError("unknown-game", f"there is no game {game_id!r}")
        game = await asyncio.to_thread(rebuild, stored)
        self.replays += 1
        if game is not None and game.is_over and stored.status != "over":
            # The last action was stored but the server stopped before marking the end.
            await self.write(game_id, self.store.set_status, game_id, "over")
            stored.status = "over"
        return stored, game

    async def reload(self, live: LiveGame) -> None:
        """Load ``live`` again from the database; the caller holds its lock."""
        live.stored, live.game = await self._load(live.id)

    async def catch_up(self, live: LiveGame, *, locked: bool = False) -> bool:
        """Reload ``live`` if the database holds a change it lacks (another process's, whose
        notice may have been lost); this process's sockets of the game are then told. True
        when it was reloaded. ``locked``: the caller holds the game's lock."""
        stamp = await self.db(self.store.stamp, live.id)
        if stamp is not None and stamp == stamp_of(live.stored):
            return False
        before = live.version
        if locked:
            await self.reload(live)
        else:
            async with live.lock:
                await self.reload(live)
        change = "action" if live.version != before else "lobby"
        self.pubsub.deliver_locally(Notice(live.id, live.version, change, self.pubsub.id))
        return True

    async def catch_up_if_changed(self, live: LiveGame, *, locked: bool = False) -> bool:
        """:meth:`catch_up` unless the shared count of the game's changes is still the one it
        was checked at (then no query: an idle game costs none); as :meth:`catch_up` when the
        count is unknown (Redis does not answer). ``locked``: the caller holds the lock."""
        return await self.catch_up_at(live, await self.changes.read(live.id), locked=locked)

    async def catch_up_at(self, live: LiveGame, count: int | None, *, locked: bool = False) -> bool:
        """:meth:`catch_up_if_changed` with the count already read (before this call: a change
        after the read moves it again); None: unknown."""
        if count is not None and count == live.checked:
            return False
        changed = await self.catch_up(live, locked=locked)
        live.checked = count
        return changed

    async def catch_up_quietly(self, live: LiveGame) -> None:
        """:meth:`catch_up` when several processes share the database (a socket opening);
        never raises (the heartbeat tries again)."""
        if self.shared:
            try:
                await self.catch_up(live)
            except Exception:
                log.exception("cannot check game %s against the database", live.id)

    async def refresh(self, notice: Notice) -> None:
        """Catch up with a change made by another process: the action of its notice applied to
        the copy one version behind, else the game loaded again."""
        if notice.origin == self.pubsub.id:
            return  # our own change: the live game is already current
        live = self._games.get(notice.game_id)
        if live is not None and (notice.version > live.version or notice.change == "lobby"):
            async with live.lock:
                applied = notice.change == "action" and self._apply(live, notice)
                if not applied and (notice.version > live.version or notice.change == "lobby"):
                    await self.reload(live)
                counts = notice.counts
                if counts is not None and live.checked == counts[0]:
                    live.checked = counts[1]  # (this change alone since the copy was checked)

    def _apply(self, live: LiveGame, notice: Notice) -> bool:
        """Apply the notice's action to ``live`` when it is the next one (the caller holds the
        lock); False when it cannot (another version, no action, a started game missing, or
        an action the copy refuses: then the game is loaded again)."""
        game = live.game
        if notice.action is None or game is None or notice.version != game.version + 1:
            return False
        after = game.copy()
        try:
            after.apply(Action.from_json(notice.action))
        except Exception:  # (a copy that differs from the database: load it again)
            log.warning("cannot apply the notice's action to game %s: reloading", live.id)
            return False
        live.game = after
        live.stored.actions.append(notice.action)
        if after.is_over:
            live.stored.status = "over"
        self.applied += 1
        return True

    async def notify(self, live: LiveGame, change: str) -> None:
        actions = live.stored.actions
        action = actions[-1] if change == "action" and actions else None
        counts, live.counts = live.counts, None
        notice = Notice(live.id, live.version, change, self.pubsub.id, action, counts)
        try:
            await self.pubsub.publish(notice)
        except Exception:  # a lost notice must not lose the action: clients also poll on reconnect
            metrics.redis_error()
            log.exception("cannot publish a notice for game %s", live.id)

    def forget(self, live: LiveGame) -> None:
        """Drop ``live`` from memory now (a finished game nobody watches)."""
        if self._games.get(live.id) is live:
            del self._games[live.id]

    def drop(self, game_id: str) -> None:
        """Drop the game from memory now, whatever uses it: it is loaded again when asked for,
        as after a restart (a database changed behind this process's back)."""
        self._games.pop(game_id, None)

    def _is_idle(self, live: LiveGame, now: float) -> bool:
        return (
            not any(busy(live) for busy in self.in_use)
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

    def start_sweeping(self) -> None:
        loop = asyncio.get_running_loop()
        self._sweeper = loop.create_task(self._sweep())
        if self.shared:
            self._retrier = loop.create_task(self._retry_marks())

    async def _retry_marks(self) -> None:
        """Every second, the counts of changes Redis did not take are written again."""
        while not self.closing:
            await asyncio.sleep(1.0)
            try:
                await self.changes.retry()
            except Exception:  # pragma: no cover - a bug must not stop the retries
                log.exception("cannot write the counts of changes again")

    def stop(self) -> None:
        """No more sweeps nor retries (:attr:`changes` is closed by the caller, last)."""
        self.closing = True
        for task in (self._sweeper, self._retrier):
            if task is not None:
                task.cancel()

    async def _sweep(self) -> None:
        """:meth:`evict_idle` every ``min(60, idle_game_seconds / 2)`` seconds: a game leaves
        memory between ``idle_game_seconds`` and half as long again (at most a minute) after
        its last use."""
        interval = min(60.0, self.settings.idle_game_seconds / 2)
        while not self.closing:
            await asyncio.sleep(interval)
            try:
                self.evict_idle()
            except Exception:  # pragma: no cover - a bug must not stop the sweeps
                log.exception("cannot drop idle games from memory")

    def sweeper(self) -> asyncio.Task[None] | None:
        return self._sweeper
