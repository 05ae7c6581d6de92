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

from ..config import Settings
from ..errors import BusyError

log = logging.getLogger("gotown.server.sockets")

FD_WARNING_SHARE = 0.8
"""Warn when this share of the descriptor limit is in use."""
WARN_EVERY = 60.0
"""Seconds between two warnings about descriptors."""
WINDOW = 60.0
"""Seconds: the messages of an address are counted over the last ``WINDOW`` seconds."""


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
        self._in_use = in_use
        self.by_client: collections.Counter[str] = collections.Counter()
        self.by_game: collections.Counter[str] = collections.Counter()
        self.total = 0
        self._warned_at = -WARN_EVERY
        self.per_minute = settings.rate_limit_per_minute
        #: Each address's messages of the last minute (``time.monotonic()``), the address used
        #: longest ago first: an address silent for a minute is forgotten.
        self._messages: collections.OrderedDict[str, collections.deque[float]] = (
            collections.OrderedDict()
        )

    def admit(self, client: str, game_id: str) -> None:
        """Count a new socket of ``client`` on ``game_id``, or raise ``too-many-requests``
        (:class:`BusyError`) and count nothing."""
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
        self._check_descriptors()
        self.by_client[client] += 1
        self.by_game[game_id] += 1
        self.total += 1

    def release(self, client: str, game_id: str) -> None:
        for counter, key in ((self.by_client, client), (self.by_game, game_id)):
            counter[key] -= 1
            if counter[key] <= 0:
                del counter[key]
        self.total -= 1

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

    def _check_descriptors(self) -> None:
        limit = self._limit()
        if limit is None:
            return
        in_use = self._in_use()
        if in_use is None:
            in_use = self.total
        now = time.monotonic()
        if in_use >= FD_WARNING_SHARE * limit and now - self._warned_at >= WARN_EVERY:
            self._warned_at = now
            log.warning(
                "%d of %d file descriptors in use (%d open sockets): new sockets are refused "
                "from %d on",
                in_use,
                limit,
                self.total,
                limit - self.reserve,
            )
        if in_use >= limit - self.reserve:
            raise BusyError(
                "too-many-requests",
                "the server holds as many live connections as it can: try later",
            )
