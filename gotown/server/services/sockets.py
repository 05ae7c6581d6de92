"""The open WebSockets of this process, capped per client address, per game, and by the
process's file descriptors; and the messages they may send, budgeted per client address.

Only new connections count against the rate limit (:mod:`~gotown.server.middleware`), so one
address could otherwise hold sockets until the process runs out of descriptors, and then every
client of every address is refused. Each open socket costs a descriptor and some memory, so:

- at most ``max_sockets_per_client`` open at once from one address and ``max_sockets_per_game``
  on one game (0: no cap);
- no new socket once the descriptors in use reach the process's soft limit
  (``RLIMIT_NOFILE``) less ``fd_reserve``: that reserve is kept for HTTP requests, the database
  and the sockets already open, so other clients are still served;
- a warning is logged (at most once a minute) when the descriptors in use pass
  :data:`FD_WARNING_SHARE` of the limit.

**A seat's socket before a spectator's.** A handful of addresses, each under its cap, could
still hold every socket the descriptors allow, and a player's own socket was then refused until
they closed theirs (measured: 8 addresses held 88 sockets under a limit of 200 files). So:

- the sockets of the seats of games under way may also use half of ``fd_reserve`` (spectators,
  seats of finished games and sockets that have not said who they are stop at the reserve);
- when there is no room, a socket makes room by closing another (sent ``too-many-requests``
  and 4429, as a refusal): one of a lower kind (a socket that has not said who it is yet, then
  a spectator's) of the address holding the most, or one of its own kind of an address that
  holds at least two more than its own: each address keeps an equal share, and a seat's
  socket gets in while spectators or a greedy address hold the places; the sockets of one
  address close at most :data:`ROOMS_PER_ADDRESS` others in :data:`CLOSE_SECONDS`;
- a socket that has not said who it is yet may be opened within a quarter of the reserve (so
  that a seat's can say so), and gets :data:`FIRST_MESSAGE_SECONDS` to say it, or only
  :data:`FIRST_MESSAGE_SECONDS_WHEN_FULL` once the reserve is reached.

One more is refused with ``too-many-requests`` and the close code 4429, as over the rate limit
(the page has words for it), its message saying which bound it met.

The messages that the sockets of one address send are budgeted together: at most
``rate_limit_per_minute`` in any 60 seconds (0: no budget), whichever of its sockets sends them.
A budget per socket would let a flood begin again with every new socket: an address that
reconnects as fast as the rate limit on connections allows (as many a minute) would have the
server read that many messages for each of them (measured: other clients kept 44% of their
request rate beside one such socket, 13% beside ten). With the budget per address, the message
one more than it allows closes its socket (:mod:`~gotown.server.api.socket`), and a new socket
of that address is refused at once until the oldest of its messages is a minute old, so that a
flood costs the server at most the budget's messages a minute, and then only handshakes.

Descriptors are counted in ``/proc/self/fd`` where there is one (Linux), else by this process's
own open sockets; a socket released is counted until the next count (:meth:`Sockets._in_use`).
Admission and release are synchronous: no other task runs between the check and the count, so
a cap is never overshot.
"""

from __future__ import annotations

import collections
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass

from ..clock import SYSTEM, Clock
from ..config import Settings
from ..errors import BusyError

log = logging.getLogger("gotown.server.sockets")

FD_WARNING_SHARE = 0.8
"""Warn when this share of the descriptor limit is in use."""
WARN_EVERY = 60.0
"""Seconds between two warnings about descriptors."""
WINDOW = 60.0
"""Seconds: the messages of an address are counted over the last ``WINDOW`` seconds."""
IN_USE_EVERY = 0.25
"""Seconds between two counts of the descriptors in use (in between: the sockets' own)."""
FIRST_MESSAGE_SECONDS = 30.0
"""How long a socket may take to say who it is (its first message)."""
FIRST_MESSAGE_SECONDS_WHEN_FULL = 5.0
"""The same once the descriptors in use reach the reserve."""
CLOSE_SECONDS = 10.0
"""How long a socket the server closed may keep its descriptor: the server waits that long for
the client to answer the close (uvicorn's ``close_timeout``), then drops the connection."""
ROOMS_PER_ADDRESS = 1
"""How many sockets of others the sockets of one address may close to make room for theirs in
:data:`CLOSE_SECONDS` (see :meth:`Sockets._to_close`)."""

#: The kinds of sockets, from the first to give way to the last.
PENDING, SPECTATOR, SEAT = 0, 1, 2
KINDS = {PENDING: "a socket that has not said who it is", SPECTATOR: "a spectator's",
         SEAT: "a seat's of a game under way"}  # fmt: skip
MADE_ROOM = "the server made room for another player's socket: connect again in a while"


@dataclass(eq=False)
class Held:
    """One open socket: its address, game and kind, and how to close it to make room."""

    client: str
    game_id: str
    kind: int = PENDING
    close: Callable[[], None] | None = None
    closing: bool = False


def descriptor_limit() -> int | None:
    """The process's soft limit on open files, or None where unknown or unlimited."""
    try:
        import resource
    except ImportError:  # (not on Windows)
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else int(soft)


def descriptors_in_use() -> int | None:
    """How many descriptors this process holds, or None where it cannot be known cheaply."""
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return None


class Sockets:
    """Who holds the open sockets: :meth:`admit` before accepting one, :meth:`release` after."""

    def __init__(
        self,
        settings: Settings,
        limit: Callable[[], int | None] = descriptor_limit,
        in_use: Callable[[], int | None] = descriptors_in_use,
        clock: Clock = SYSTEM,
    ) -> None:
        self.per_client = settings.max_sockets_per_client
        self.per_game = settings.max_sockets_per_game
        self.reserve = settings.fd_reserve
        self._limit = limit
        self._count_in_use = in_use
        self.clock = clock
        # (Counted at most every IN_USE_EVERY seconds, then by the sockets admitted since:
        # listing the descriptors of a process holding 2,000 sockets takes a millisecond.)
        self._counted: tuple[float, int, int] | None = None  # (when, in use, admitted then)
        self._admitted = 0  # (sockets admitted since the start)
        #: The sockets closed to make room in the last CLOSE_SECONDS: when, and for which address.
        self._rooms: collections.deque[tuple[float, str]] = collections.deque()
        self._rooms_by: collections.Counter[str] = collections.Counter()
        self.by_client: collections.Counter[str] = collections.Counter()
        self.by_game: collections.Counter[str] = collections.Counter()
        self.total = 0
        self._held: list[Held] = []  # (the oldest first)
        self._warned_at = -WARN_EVERY
        self.per_minute = settings.rate_limit_per_minute
        #: Each address's messages of the last minute (:meth:`Clock.monotonic`), the address used
        #: longest ago first: an address silent for a minute is forgotten.
        self._messages: collections.OrderedDict[str, collections.deque[float]] = (
            collections.OrderedDict()
        )

    def _in_use(self) -> int | None:
        """The descriptors in use: as last counted (at most :data:`IN_USE_EVERY` seconds ago),
        with the sockets admitted since; or the last count again when counting fails (as when
        no descriptor is left to list them).

        A socket released since the count is not taken off: one the server closed keeps its
        descriptor until its client answers the close, or for :data:`CLOSE_SECONDS` if it never
        does, and taking them off let the descriptors in use pass every bound between two
        counts (measured: 198 of 200 in use, where sockets stop at 184, after 8 addresses
        whose sockets had stopped reading closed each other's to make room)."""
        now = self.clock.monotonic()
        counted = self._counted
        if counted is None or now - counted[0] >= IN_USE_EVERY:
            found = self._count_in_use()
            if found is not None:
                counted = self._counted = (now, found, self._admitted)
            elif counted is None:
                return None
        return counted[1] + self._admitted - counted[2]

    def admit(self, client: str, game_id: str, close: Callable[[], None] | None = None) -> Held:
        """Count a new socket of ``client`` on ``game_id`` (``close``: how to close it should
        room be needed), that has not said who it is yet; or raise ``too-many-requests``
        (:class:`BusyError`) and count nothing. Once it has: :meth:`classify`."""
        self._check_caps(client, game_id)
        held = Held(client, game_id, PENDING, close)
        self.by_client[client] += 1
        self.by_game[game_id] += 1
        self.total += 1
        self._admitted += 1
        self._held.append(held)
        try:
            # (Counted already, as its descriptor is. Whether it is a seat's is not known yet:
            # it may say so within a quarter of the reserve, and makes room only by closing
            # another address's such socket.)
            self._make_room(held, PENDING, below=PENDING)
        except BusyError:
            self.release(held)
            raise
        return held

    def _check_caps(self, client: str, game_id: str) -> None:
        if self.per_client > 0 and self.by_client[client] >= self.per_client:
            raise BusyError(
                "too-many-requests",
                f"at most {self.per_client} sockets may be open at once from one address",
            )
        if self.per_game > 0 and self.by_game[game_id] >= self.per_game:
            raise BusyError(
                "too-many-requests", f"at most {self.per_game} sockets may be open on one game"
            )
        if self._spent(client, self.clock.monotonic()):
            raise BusyError("too-many-requests", self.budget_message)

    def classify(self, held: Held, kind: int) -> None:
        """The socket said who it is (``SEAT``: of a game under way; else ``SPECTATOR``): kept
        if there is room for its kind, made by closing another if need be (see the module's
        docstring); else ``too-many-requests`` (then :meth:`release` it)."""
        held.kind = kind
        self._make_room(held, kind, below=kind)
        if held.closing:  # (another made room: it was closed meanwhile)
            raise BusyError("too-many-requests", MADE_ROOM)

    def first_message_seconds(self) -> float:
        """How long a new socket may take to say who it is, now."""
        limit, in_use = self._limit(), self._in_use()
        if limit is not None and in_use is not None and in_use >= limit - self.reserve:
            return FIRST_MESSAGE_SECONDS_WHEN_FULL
        return FIRST_MESSAGE_SECONDS

    def release(self, held_or_client: Held | str, game_id: str | None = None) -> None:
        held = held_or_client if isinstance(held_or_client, Held) else None
        if held is None:  # (by address and game: the oldest such)
            held = next(
                h for h in self._held if h.client == held_or_client and h.game_id == game_id
            )
        if held not in self._held:
            return
        self._held.remove(held)
        for counter, key in ((self.by_client, held.client), (self.by_game, held.game_id)):
            counter[key] -= 1
            if counter[key] <= 0:
                del counter[key]
        self.total -= 1

    def kinds(self) -> collections.Counter[int]:
        """How many sockets of each kind are open (closing ones left out)."""
        return collections.Counter(h.kind for h in self._held if not h.closing)

    def _make_room(self, held: Held, kind: int, *, below: int) -> None:
        """Raise ``too-many-requests`` unless the descriptors in use (``held``'s among them)
        leave room for a socket of ``kind``, closing another one if that makes it (one whose
        kind is below ``below``, or the same kind of an address holding at least two more)."""
        limit = self._limit()
        if limit is None:
            return
        in_use = self._in_use()
        if in_use is None:
            in_use = self.total
        self._warn(in_use, limit)
        kept = {PENDING: self.reserve // 4, SPECTATOR: self.reserve, SEAT: self.reserve // 2}
        ceiling = limit - kept[kind]
        if in_use < ceiling:
            return
        victim = self._to_close(held, below)
        if victim is None or victim.close is None:
            log.debug(
                "no room for %s of %s: %d of %d descriptors in use, %s by address",
                KINDS[kind], held.client, in_use, limit, dict(self.by_client),
            )  # fmt: skip
            raise BusyError(
                "too-many-requests",
                "the server holds as many live connections as it can: try later",
            )
        victim.closing = True
        now = self.clock.monotonic()
        self._rooms.append((now, held.client))
        self._rooms_by[held.client] += 1
        log.info(
            "closing %s of %s to make room for %s of %s",
            KINDS[victim.kind], victim.client, KINDS[kind], held.client,
        )  # fmt: skip
        victim.close()

    def _to_close(self, held: Held, below: int) -> Held | None:
        """The socket to close for ``held``: of a lower kind first, then of the address holding
        the most, the newest; of the same kind only from an address holding two more. None once
        the sockets of ``held``'s address have closed :data:`ROOMS_PER_ADDRESS` others in the
        last :data:`CLOSE_SECONDS`.

        Each socket closed to make room may keep its descriptor that long, beside the one that
        took its place, when its client does not answer the close (as a client that stopped
        reading does): taking turns to close each other's sockets, a few addresses filled the
        quarter of the reserve beyond the seats' share with such descriptors, and then every
        new socket was refused, a player's seat socket too (measured: 8 addresses whose
        sockets had stopped reading left about 30 open, where that quarter is 16). So the
        sockets of an address take the places of others no faster than the closed ones give
        their descriptors back."""
        now = self.clock.monotonic()
        while self._rooms and now - self._rooms[0][0] >= CLOSE_SECONDS:
            _, client = self._rooms.popleft()
            self._rooms_by[client] -= 1
            if self._rooms_by[client] <= 0:
                del self._rooms_by[client]
        if self._rooms_by[held.client] >= ROOMS_PER_ADDRESS:
            return None
        mine = self.by_client[held.client] - (1 if held in self._held else 0)
        candidates = [
            h
            for h in self._held
            if h is not held
            and not h.closing
            and h.client != held.client
            and h.close is not None
            and (h.kind < below or (h.kind == below and self.by_client[h.client] >= mine + 2))
        ]
        if not candidates:
            return None
        order = {id(h): i for i, h in enumerate(self._held)}
        return min(candidates, key=lambda h: (h.kind, -self.by_client[h.client], -order[id(h)]))

    @property
    def budget_message(self) -> str:
        return f"more than {self.per_minute} messages in a minute from one address"

    def spend(self, client: str) -> bool:
        """Count one message of a socket of ``client``: False (and nothing counted) when it is
        one more than its budget allows."""
        if self.per_minute <= 0:
            return True
        now = self.clock.monotonic()
        if self._spent(client, now):
            return False
        recent = self._messages.get(client)
        if recent is None:
            recent = self._messages[client] = collections.deque()
        else:
            self._messages.move_to_end(client)
        recent.append(now)
        return True

    def _spent(self, client: str, now: float) -> bool:
        """Whether ``client`` has sent its budget's messages in the last minute (forgetting,
        on the way, what is older than that of the addresses used longest ago)."""
        if self.per_minute <= 0:
            return False
        while self._messages:
            oldest = next(iter(self._messages))
            if now - self._messages[oldest][-1] < WINDOW:
                break
            del self._messages[oldest]
        recent = self._messages.get(client)
        if recent is None:
            return False
        while recent and now - recent[0] >= WINDOW:
            recent.popleft()
        return len(recent) >= self.per_minute

    def _warn(self, in_use: int, limit: int) -> None:
        now = self.clock.monotonic()
        if in_use >= FD_WARNING_SHARE * limit and now - self._warned_at >= WARN_EVERY:
            self._warned_at = now
            log.warning(
                "%d of %d file descriptors in use (%d open sockets): new sockets are refused "
                "from %d on (from %d for the seats of games under way), or make room",
                in_use,
                limit,
                self.total,
                limit - self.reserve,
                limit - self.reserve // 2,
            )
