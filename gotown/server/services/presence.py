"""Presence: which seats have a WebSocket open, since when a seat is away, and so whether a
person's seat may be handed to a bot (not while they are connected, nor less than
``absent_seconds`` after they left). Chosen by the broadcast URL, as the pub/sub is:

- ``memory://`` (:class:`LocalPresence`): one process. A seat is connected while this process
  holds one of its sockets, and away since its last socket closed here (or since the process
  started: ``time.monotonic()``).
- ``redis://`` (:class:`SharedPresence`): the same across every process, through
  :class:`~gotown.server.redis_presence.RedisPresence` (one sorted set per game, refreshed by
  each process's heartbeat every ``presence_ttl / 3`` s with the game's count of changes,
  :mod:`~gotown.server.redis_changes`, one round trip for :data:`BEAT_SLICE` games at a time).
  A seat is also connected while a socket of it is open on another process, and away since the
  last one closed or expired anywhere (wall clock). When Redis does not answer, the lobby keeps
  the last known flags and nobody hands a person's seat to a bot (503 ``presence-unavailable``).
  The heartbeat also checks the game against the database, so that a lost notice costs at most
  a beat.

A seat nobody saw is away since this process started: a process that just started gives absent
people ``absent_seconds`` to come back. A seat just taken (joined, or taken back from a bot) is
away from then until its person connects. Only a seat's socket opening or closing sends a
presence notice: a spectator is shown nowhere, so watchers coming and going send nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
import secrets
import time
from dataclasses import dataclass, field

from ..config import Settings
from ..errors import ConflictError, DomainError, UnavailableError
from ..pubsub import Notice
from ..redis_changes import changes_key
from ..redis_presence import PresenceUnavailableError, RedisPresence, Snapshot
from .registry import LiveGame, PerGame, Registry

log = logging.getLogger("gotown.server")

#: Games beaten in one round trip to Redis.
BEAT_SLICE = 100
#: Seconds a heartbeat gives a change it met under way to explain the count it read (its
#: second mark, its notice) before it asks the database.
NOTICE_GRACE = 0.05


@dataclass
class _Seats:
    """What presence keeps of one game on this process."""

    connections: dict[int, int] = field(default_factory=dict)  # seat -> open sockets
    sockets: int = 0  # every open socket, spectators included
    away_since: dict[int, float] = field(default_factory=dict)  # (time.monotonic())
    # redis:// only: this process's open sockets of seats (connection id -> seat), every
    # process's presence as last read, and the heartbeat refreshing ours.
    members: dict[str, int] = field(default_factory=dict)
    shared: Snapshot = field(default_factory=Snapshot)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class LocalPresence:
    """Presence kept in this process (``memory://``)."""

    def __init__(self, settings: Settings, registry: Registry) -> None:
        self.settings = settings
        self.registry = registry
        self._of = PerGame(_Seats)
        self._started = time.monotonic()
        self._background: set[asyncio.Task[None]] = set()
        registry.in_use.append(self.in_use)

    def sockets(self, live: LiveGame, seat: int | None = None) -> int:
        """The sockets open on this process: of the game, or of one seat."""
        seats = self._of(live)
        return seats.sockets if seat is None else seats.connections.get(seat, 0)

    def in_use(self, live: LiveGame) -> bool:
        seats = self._of(live)
        return seats.sockets > 0

    def background_tasks(self) -> int:
        """Closings still being told to the other processes."""
        return len(self._background)

    def is_connected(self, live: LiveGame, seat: int) -> bool:
        """A socket of the seat is open here, or (redis://) was open anywhere when last read."""
        seats = self._of(live)
        return seats.connections.get(seat, 0) > 0 or seat in seats.shared.connected

    def away_for(self, live: LiveGame, seat: int) -> float:
        """How long the seat has been away."""
        return time.monotonic() - self._of(live).away_since.get(seat, self._started)

    def handover_in(self, live: LiveGame, seat: int) -> int | None:
        """For a taken person's seat: None while connected, else the whole seconds (rounded up)
        until :meth:`refuse_if_present` lets another person hand it to a bot; 0 from then on.
        The page counts down from it (relative, so that the clocks need not agree)."""
        if self.is_connected(live, seat):
            return None
        return max(0, math.ceil(self.settings.absent_seconds - self.away_for(live, seat)))

    async def read(self, live: LiveGame) -> None:
        """Read every process's presence (nothing to read here)."""

    def is_kept(self, live: LiveGame) -> bool:
        """Whether the presence known here is kept current without :meth:`read` (by the
        sockets' openings and closings here, and the heartbeat's reads with several
        processes)."""
        return True

    async def refuse_if_present(self, live: LiveGame, seat: int) -> None:
        """409 while the person of this seat is connected, or left less than
        ``absent_seconds`` ago."""
        if self._of(live).connections.get(seat, 0) > 0:
            raise ConflictError("seat-present", "this player is connected")
        await self._refuse_if_connected_elsewhere(live, seat)
        if self.away_for(live, seat) < self.settings.absent_seconds:
            raise ConflictError(
                "seat-present",
                f"this player left less than {self.settings.absent_seconds:.0f} seconds ago",
            )

    async def _refuse_if_connected_elsewhere(self, live: LiveGame, seat: int) -> None:
        """(Only one process here.)"""

    async def mark_taken(self, live: LiveGame, seat: int) -> None:
        """The seat was just taken or taken back: until its person connects, it is away from
        now (rather than since this process started). Never raises."""
        seats = self._of(live)
        if seats.connections.get(seat, 0) == 0:
            seats.away_since[seat] = time.monotonic()

    def opened(self, live: LiveGame, seat: int | None) -> str:
        """A socket opened (a seat's, or a spectator's for None): this process's bookkeeping, at
        once; answers the connection's id. Then await :meth:`tell_opened`, and in the end
        :meth:`closed`."""
        connection = secrets.token_hex(8)
        seats = self._of(live)
        seats.sockets += 1
        if seat is not None:
            seats.connections[seat] = seats.connections.get(seat, 0) + 1
            seats.away_since.pop(seat, None)
        return connection

    async def tell_opened(self, live: LiveGame, seat: int | None, connection: str) -> None:
        """Every process learns of a seat's socket (a presence notice). A spectator's socket
        changes nothing that anyone is shown, so it tells nobody. Never raises."""
        if seat is not None:
            await self.registry.notify(live, "presence")

    def _disconnected(self, live: LiveGame, seat: int | None) -> None:
        seats = self._of(live)
        seats.sockets = max(0, seats.sockets - 1)
        live.used = time.monotonic()  # idle from the time its last socket closed
        if seat is not None:
            seats.connections[seat] = max(0, seats.connections.get(seat, 0) - 1)
            if seats.connections[seat] == 0:
                seats.away_since[seat] = time.monotonic()
        if seats.sockets == 0 and live.stored.status == "over":
            self.registry.forget(live)  # nobody watches a finished game: reloaded when asked

    def closed(self, live: LiveGame, seat: int | None, connection: str) -> asyncio.Task[None]:
        """The socket closed: this process's bookkeeping now, then in a task of its own (which
        goes on when the socket's handler is cancelled) the other processes told. Await it,
        shielded; it never raises."""
        self._disconnected(live, seat)
        written = self._forget_member(live, connection)
        tell = self._tell_closed(live, seat, connection, written)
        task = asyncio.get_running_loop().create_task(tell)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    def _forget_member(self, live: LiveGame, connection: str) -> bool:
        """Whether the connection was written to a shared presence (then no longer kept)."""
        return False

    async def _tell_closed(
        self, live: LiveGame, seat: int | None, connection: str, written: bool
    ) -> None:
        if seat is not None:
            await self.registry.notify(live, "presence")

    async def stop_heartbeats(self) -> None:
        """(No heartbeat with one process.)"""

    async def close(self) -> None:
        """After :meth:`stop_heartbeats`: wait (a little) for the closings being told."""
        if self._background:
            await asyncio.wait(set(self._background), timeout=5)


class SharedPresence(LocalPresence):
    """Presence shared by every process through Redis (``redis://``)."""

    def __init__(self, settings: Settings, registry: Registry) -> None:
        super().__init__(settings, registry)
        self._started_wall = time.time()
        self._beater: asyncio.Task[None] | None = None
        self.store = RedisPresence(
            settings.broadcast_url,
            ttl=settings.presence_ttl,
            keep=max(0.0, settings.absent_seconds) + settings.presence_ttl,
            pool_size=settings.redis_pool_size,
        )

    def away_for(self, live: LiveGame, seat: int) -> float:
        """How long the seat has been away, from the shared presence as last read."""
        return time.time() - self._of(live).shared.away_since.get(seat, self._started_wall)

    async def read(self, live: LiveGame) -> None:
        """Read every process's presence (on an outage the last known one stays)."""
        with contextlib.suppress(PresenceUnavailableError):
            self._of(live).shared = await self.store.read(live.id)

    def is_kept(self, live: LiveGame) -> bool:
        """Kept by the heartbeat (and the presence notices) while a socket of it is open here."""
        return self._of(live).sockets > 0

    async def _refuse_if_connected_elsewhere(self, live: LiveGame, seat: int) -> None:
        """409 while connected on any process; 503 when that cannot be read."""
        try:
            snapshot = await self.store.read(live.id)
        except PresenceUnavailableError as exc:
            raise UnavailableError(
                "presence-unavailable",
                "cannot tell now whether this player is connected: try again shortly",
            ) from exc
        self._of(live).shared = snapshot
        if seat in snapshot.connected:
            raise ConflictError("seat-present", "this player is connected")

    async def mark_taken(self, live: LiveGame, seat: int) -> None:
        """As for one process, and written to Redis before the answer, so that every process
        sees it."""
        await super().mark_taken(live, seat)
        await self.store.taken(live.id, seat)

    def opened(self, live: LiveGame, seat: int | None) -> str:
        connection = super().opened(live, seat)
        seats = self._of(live)
        if seat is not None:
            seats.members[connection] = seat
        if self._beater is None or self._beater.done():
            self._beater = asyncio.get_running_loop().create_task(self._beat_all())
        return connection

    async def tell_opened(self, live: LiveGame, seat: int | None, connection: str) -> None:
        """The seat's connection is written to Redis (before its first state is sent), then a
        presence notice."""
        seats = self._of(live)
        if seat is not None and connection in seats.members:
            async with seats.lock:
                member = seats.members.get(connection)
                if member is not None:  # (unless it closed meanwhile)
                    await self.store.refresh(live.id, {connection: member})
        await super().tell_opened(live, seat, connection)

    def _forget_member(self, live: LiveGame, connection: str) -> bool:
        return self._of(live).members.pop(connection, None) is not None

    async def _tell_closed(
        self, live: LiveGame, seat: int | None, connection: str, written: bool
    ) -> None:
        if seat is not None and written:
            # Under the lock, so that a heartbeat cannot open it again after this.
            async with self._of(live).lock:
                await self.store.end(live.id, seat, connection)
        await super()._tell_closed(live, seat, connection, written)

    async def _beat_all(self) -> None:
        """The heartbeat of every game this process holds sockets of, every ``presence_ttl /
        3`` s: their connections kept open in Redis, every process's presence read, and the
        games' counts of changes, in one round trip for each slice of :data:`BEAT_SLICE`
        games, the slices spread over the interval. Then each game's sockets are told when
        presence changed without a notice (a connection of a process that died has expired),
        and a game is checked against the database when its count moved without this process
        knowing why (a lost notice). Ends when no socket is open here."""
        interval = self.store.interval
        # The first round at a random point of the interval: processes started together (a
        # restart, a benchmark) beat apart.
        await asyncio.sleep(random.uniform(0.0, interval))
        while not self.registry.closing:
            games = [(live, seats) for live, seats in self._of.items() if seats.sockets > 0]
            if not games:
                return
            slices = [games[i : i + BEAT_SLICE] for i in range(0, len(games), BEAT_SLICE)]
            pause = interval / len(slices)
            for part in slices:
                began = time.monotonic()
                try:
                    await self._beat(part)
                except Exception:  # pragma: no cover - a bug must not stop the heartbeat
                    log.exception("the presence heartbeat failed")
                await asyncio.sleep(max(0.0, pause - (time.monotonic() - began)))

    async def _beat(self, part: list[tuple[LiveGame, _Seats]]) -> None:
        results: list[tuple[Snapshot, int] | None] = [None] * len(part)
        async with contextlib.AsyncExitStack() as locks:
            for _live, seats in part:  # (a closing socket cannot be opened again meanwhile)
                await locks.enter_async_context(seats.lock)
            beats = [(live.id, dict(seats.members), changes_key(live.id)) for live, seats in part]
            with contextlib.suppress(PresenceUnavailableError):  # (logged; the next beat tries)
                results = list(await self.store.beat_many(beats))
        moved: list[tuple[LiveGame, int | None, int | None]] = []
        for (live, seats), result in zip(part, results, strict=True):
            snapshot, count = (None, None) if result is None else result
            if count is None or count != live.checked:
                moved.append((live, count, live.checked))
            if snapshot is None:
                continue
            last, seats.shared = seats.shared.connected, snapshot
            if snapshot.connected != last:
                pubsub = self.registry.pubsub
                pubsub.deliver_locally(Notice(live.id, live.version, "presence", pubsub.id))
        if not moved:
            return
        # A count read in the middle of a change (between its two marks, or before its notice
        # arrived) is explained a moment later by the change or its notice: only what is still
        # not is looked for in the database (else every beat that met a move read the game's
        # stamp, and reloaded it).
        await asyncio.sleep(NOTICE_GRACE)
        for live, count, was in moved:
            now = live.checked
            if count is not None and was is not None and now is not None and was < count <= now:
                continue
            try:
                await self.registry.catch_up_at(live, count)
            except DomainError:
                pass  # the game is gone, or the database does not answer (logged)
            except Exception:  # a bug must not stop the heartbeat: try again at the next beat
                log.exception("cannot check game %s against the database", live.id)

    async def stop_heartbeats(self) -> None:
        beater, self._beater = self._beater, None
        if beater is not None:
            beater.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await beater

    async def close(self) -> None:
        await super().close()
        # Sockets still open here are closing with the process: their seats are away now
        # (rather than when their entries would expire).
        for live, seats in self._of.items():
            for connection, seat in list(seats.members.items()):
                await self.store.end(live.id, seat, connection)
            seats.members.clear()
        await self.store.close()


def presence_for(settings: Settings, registry: Registry) -> LocalPresence:
    """Presence by the broadcast URL: shared through Redis with several processes."""
    if registry.shared:
        return SharedPresence(settings, registry)
    return LocalPresence(settings, registry)
