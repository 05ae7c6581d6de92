"""Who holds the open sockets (:class:`~gotown.server.services.sockets.Sockets`), against a
simulated process: its descriptors, those of its sockets, and those of the sockets it closed
whose clients have not answered the close yet."""

from __future__ import annotations

import collections
from pathlib import Path
from typing import Any

import pytest

from gotown.server.clock import Clock
from gotown.server.config import Settings
from gotown.server.errors import BusyError
from gotown.server.services.sockets import (
    CLOSE_SECONDS,
    IN_USE_EVERY,
    SEAT,
    SPECTATOR,
    Held,
    Sockets,
)


class StillClock(Clock):
    """A clock that moves only when moved on (:meth:`Clock.advance`)."""

    def monotonic(self) -> float:
        return 1000.0 + self.offset


LIMIT, RESERVE, OTHERS = 200, 64, 60
"""The simulated process (as the benchmark's server): its limit on open files, the reserve (the
default), and the descriptors it holds besides its sockets (database, listener, logs)."""
SEATS_UP_TO, ALL_UP_TO = LIMIT - RESERVE // 2, LIMIT - RESERVE // 4
ATTACKERS = [f"10.0.0.{a}" for a in range(1, 9)]


def _settings(tmp_path: Path, **changes: Any) -> Settings:
    values: dict[str, Any] = {
        "database_url": f"sqlite:///{tmp_path / 's.sqlite3'}",
        "fd_reserve": RESERVE,
        "rate_limit_per_minute": 0,
        **changes,
    }
    return Settings(**values)


class Process:
    """A server process as :class:`Sockets` sees it. A socket is accepted (its descriptor
    opened) before it is admitted. One refused is closed at once (its client is reading the
    answer); one closed to make room keeps its descriptor until its client answers the close
    (``answering``: at once), or for ``CLOSE_SECONDS`` if it never does."""

    def __init__(self, tmp_path: Path, *, answering: bool, **settings: Any) -> None:
        self.clock = StillClock()
        self.answering = answering
        self.others = OTHERS
        self.open: list[Held | None] = []  # (None: accepted, not admitted yet)
        self.waiting: collections.deque[float] = collections.deque()  # (closed, not answered)
        self.sockets = Sockets(
            _settings(tmp_path, **settings),
            limit=lambda: LIMIT,
            in_use=self.descriptors,
            clock=self.clock,
        )
        self.made_room: list[Held] = []

    def descriptors(self) -> int:
        while self.waiting and self.clock.monotonic() - self.waiting[0] >= CLOSE_SECONDS:
            self.waiting.popleft()
        return self.others + len(self.open) + len(self.waiting)

    def connect(self, client: str, game_id: str, kind: int) -> Held | None:
        """A new socket that says it is ``kind``: held, or None (refused)."""
        self.clock.advance(IN_USE_EVERY)  # (a count of the descriptors each time)
        self.open.append(None)
        held: Held | None = None
        try:
            held = self.sockets.admit(client, game_id, close=lambda: None)
            self.open[-1] = held
            self.sockets.classify(held, kind)
        except BusyError:
            self.open.remove(held)
            if held is not None:
                self.sockets.release(held)
            return None
        finally:
            for victim in [h for h in self.open if h is not None and h.closing]:
                self.made_room.append(victim)
                self.open.remove(victim)
                self.sockets.release(victim)
                if not self.answering:
                    self.waiting.append(self.clock.monotonic())
            assert self.descriptors() <= ALL_UP_TO, "into the quarter kept for HTTP, the database"
        return held

    def fill(self, addresses: list[str], kind: int) -> None:
        """Each address in turn opens sockets of ``kind`` on a game of its own until refused."""
        for address in addresses:
            while self.connect(address, f"game of {address}", kind) is not None:
                pass


def test_a_seat_s_socket_gets_in_where_sockets_closed_to_make_room_keep_their_descriptors(
    tmp_path: Path,
) -> None:
    """Eight addresses in turn open seat sockets until refused, taking places by closing each
    other's, and never answer those closes: the player's seat socket still gets in, in the
    place of an attacker's."""
    process = Process(tmp_path, answering=False)
    process.fill(ATTACKERS, SEAT)
    assert process.waiting, "no closed socket kept its descriptor: no test"
    made_room = len(process.made_room)

    mine = process.connect("10.0.9.9", "the player's game", SEAT)

    assert mine is not None and not mine.closing
    (victim,) = process.made_room[made_room:]
    assert victim.client in ATTACKERS and victim.kind == SEAT


def test_an_address_takes_the_places_of_others_one_in_close_seconds(tmp_path: Path) -> None:
    process = Process(tmp_path, answering=False, max_sockets_per_client=0, max_sockets_per_game=0)
    process.fill(["10.0.0.1"], SEAT)  # (every place the seats have: no caps)
    assert process.descriptors() >= SEATS_UP_TO - 2  # (full)
    assert process.connect("10.0.0.2", "g", SEAT) is not None  # in the place of one of its
    assert process.connect("10.0.0.2", "g", SEAT) is None
    assert process.connect("10.0.0.3", "h", SEAT) is not None  # (another address: its own)
    process.clock.advance(CLOSE_SECONDS)
    assert process.connect("10.0.0.2", "g", SEAT) is not None


def test_addresses_that_come_back_get_equal_shares_and_the_reserve_is_kept(
    tmp_path: Path,
) -> None:
    """The attackers come back every ``CLOSE_SECONDS``: their shares end up equal (within two),
    each under the cap per address, while the descriptors in use, the closed sockets' that
    wait for their clients included, never go into the quarter of the reserve kept for HTTP
    and the database (:meth:`Process.connect`)."""
    process = Process(tmp_path, answering=False, max_sockets_per_client=32)
    for _ in range(40):
        process.fill(ATTACKERS, SEAT)
        process.clock.advance(CLOSE_SECONDS)
    shares = [process.sockets.by_client[a] for a in ATTACKERS]
    assert max(shares) - min(shares) <= 2 and max(shares) <= 32, shares


def test_a_socket_released_since_the_last_count_is_counted_until_the_next(
    tmp_path: Path,
) -> None:
    """Its descriptor may still be open (its client has not answered the close yet)."""
    process = Process(tmp_path, answering=True)
    watchers = [f"10.0.1.{a}" for a in range(1, LIMIT)]  # (one socket each: none to close)
    held = [h for a in watchers if (h := process.connect(a, f"game {a}", SPECTATOR)) is not None]
    assert process.descriptors() >= LIMIT - RESERVE - 2  # (the spectators' share, full)
    process.connect(watchers[0], "another game", SPECTATOR)  # (refused: counted now)
    for socket in held[:5]:
        process.open.remove(socket)
        process.sockets.release(socket)
    process.open.append(None)  # (a new one, before the next count)
    new = process.sockets.admit("10.0.2.1", "a game")
    with pytest.raises(BusyError, match="as many live connections"):
        process.sockets.classify(new, SPECTATOR)
    process.open.remove(None)
    process.sockets.release(new)
    assert process.connect("10.0.2.1", "a game", SPECTATOR) is not None  # (counted again)


def test_a_failed_count_of_the_descriptors_keeps_the_last_one(tmp_path: Path) -> None:
    """As when no descriptor is left to list them: not the sockets alone."""
    process = Process(tmp_path, answering=True)
    process.others = LIMIT - RESERVE - 1
    assert process.connect("10.0.1.1", "g", SPECTATOR) is None
    process.sockets._count_in_use = lambda: None
    assert process.connect("10.0.1.1", "g", SPECTATOR) is None


def test_sockets_whose_clients_answered_the_close_leave_room_at_the_next_count(
    tmp_path: Path,
) -> None:
    process = Process(tmp_path, answering=True)
    watchers = [f"10.0.1.{a}" for a in range(1, LIMIT)]
    held = [h for a in watchers if (h := process.connect(a, f"game {a}", SPECTATOR)) is not None]
    for socket in held[:10]:  # ten leave, ten others come, and no more
        process.open.remove(socket)
        process.sockets.release(socket)
    for a in watchers[-10:]:
        assert process.connect(a, f"game {a}", SPECTATOR) is not None
    assert process.connect("10.0.2.1", "a game", SPECTATOR) is None
    assert process.descriptors() == LIMIT - RESERVE - 1


@pytest.mark.parametrize("answering", [True, False])
def test_an_address_at_its_cap_is_refused(tmp_path: Path, answering: bool) -> None:
    process = Process(tmp_path, answering=answering, max_sockets_per_client=3)
    assert [process.connect("10.0.0.1", "g", SEAT) is not None for _ in range(4)] == [
        True, True, True, False,
    ]  # fmt: skip


def test_an_address_budget_of_messages_frees_up_after_a_minute_and_is_then_forgotten(
    tmp_path: Path,
) -> None:
    clock = StillClock()
    sockets = Sockets(_settings(tmp_path, rate_limit_per_minute=3), clock=clock)
    assert [sockets.spend("a") for _ in range(4)] == [True, True, True, False]
    assert sockets.spend("b")  # another address has its own budget
    with pytest.raises(BusyError, match="3 messages in a minute from one address"):
        sockets.admit("a", "g")
    clock.advance(59.9)
    assert not sockets.spend("a")
    clock.advance(0.2)  # a minute after the first three
    assert sockets.spend("a")
    sockets.admit("a", "g")
    clock.advance(61)
    sockets.spend("c")
    assert list(sockets._messages) == ["c"]  # a and b, silent for a minute: forgotten
