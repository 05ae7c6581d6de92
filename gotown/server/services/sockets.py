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
  socket gets in while spectators or a greedy address hold the places;
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
own open sockets. Admission and release are synchronous: no other task runs between the check
and the count, so a cap is never overshot.
"""

from __future__ import annotations

import collections
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

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
    ) -> None:
        self.per_client = settings.max_sockets_per_client
        self.per_game = settings.max_sockets_per_game
        self.reserve = settings.fd_reserve
        self._limit = limit
        self._count_in_use = in_use
        # (Counted at most every IN_USE_EVERY seconds, then by the sockets opened and closed
        # since: listing the descriptors of a process holding 2,000 sockets takes a millisecond.)
        self._counted: tuple[float, int, int] | None = None  # (when, in use, total then)
        self.by_client: collections.Counter[str] = collections.Counter()
        self.by_game: collections.Counter[str] = collections.Counter()
        self.total = 0
        self._held: list[Held] = []  # (the oldest first)
        self._closing = 0  # sockets being closed to make room
        self._warned_at = -WARN_EVERY
        self.per_minute = settings.rate_limit_per_minute
        #: Each address's messages of the last minute (``time.monotonic()``), the address used
        #: longest ago first: an address silent for a minute is forgotten.
        self._messages: collections.OrderedDict[str, collections.deque[float]] = (
            collections.OrderedDict()
        )

    def _in_use(self) -> int | None:
        now = time.monotonic()
        counted = self._counted
        if counted is None or now - counted[0] >= IN_USE_EVERY:
            found = self._count_in_use()
            if found is None:
                return None
            counted = self._counted = (now, found, self.total)
        return counted[1] + self.total - counted[2]

    def admit(self, client: str, game_id: str, close: Callable[[], None] | None = None) -> Held:
        """Count a new socket of ``client`` on ``game_id`` (``close``: how to close it should
        room be needed), that has not said who it is yet; or raise ``too-many-requests``
        (:class:`BusyError`) and count nothing. Once it has: :meth:`classify`."""
        if self.per_client > 0 and self.by_client[client] >= self.per_client:
            raise BusyError(
                "too-many-requests",
                f"at most {self.per_client} sockets may be open at once from one address",
            )
        if self.per_game > 0 and self.by_game[game_id] >= self.per_game:
            raise BusyError(
                "too-many-requests", f"at most {self.per_game} sockets may be open on one game"
            )
        if self._spent(client, time.monotonic()):
            raise BusyError("too-many-requests", self.budget_message)
        held = Held(client, game_id, PENDING, close)
        # (Whether it is a seat's is not known yet: it may say so within a quarter of the
        # reserve, and makes room only by closing another address's such socket.)
        self._make_room(held, PENDING, below=PENDING)
        self.by_client[client] += 1
        self.by_game[game_id] += 1
        self.total += 1
        self._held.append(held)
        return held

    def classify(self, held: Held, kind: int) -> None:
        """The socket said who it is (``SEAT``: of a game under way; else ``SPECTATOR``): kept
        if there is room for its kind, made by closing another if need be (see the module's
        docstring); else ``too-many-requests`` (then :meth:`release` it)."""
        held.kind = kind
        self._make_room(held, kind, below=kind, counted=True)
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
        if held.closing:
            self._closing -= 1
        for counter, key in ((self.by_client, held.client), (self.by_game, held.game_id)):
            counter[key] -= 1
            if counter[key] <= 0:
                del counter[key]
        self.total -= 1

    def kinds(self) -> collections.Counter[int]:
        """How many sockets of each kind are open (closing ones left out)."""
        return collections.Counter(h.kind for h in self._held if not h.closing)

    def _make_room(self, held: Held, kind: int, *, below: int, counted: bool = False) -> None:
        """Raise ``too-many-requests`` unless the descriptors in use leave room for a socket of
        ``kind`` (``counted``: ``held`` is one of them already), closing another one if that
        makes it (one whose kind is below ``below``, or the same kind of an address holding at
        least two more)."""
        limit = self._limit()
        if limit is None:
            return
        in_use = self._in_use()  # (the new socket's descriptor is open already)
        if in_use is None:
            in_use = self.total + (0 if counted else 1)
        in_use -= self._closing  # (being closed to make room: theirs are as good as free)
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
        self._closing += 1
        log.info(
            "closing %s of %s to make room for %s of %s",
            KINDS[victim.kind], victim.client, KINDS[kind], held.client,
        )  # fmt: skip
        victim.close()

    def _to_close(self, held: Held, below: int) -> Held | None:
        """The socket to close for ``held``: of a lower kind first, then of the address holding
        the most, the newest; of the same kind only from an address holding two more."""
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
        now = time.monotonic()
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
        now = time.monotonic()
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
