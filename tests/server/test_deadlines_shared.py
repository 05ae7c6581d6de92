"""Deadlines at scale on several processes (services/deadlines.py, storage_turns.py): two real
server processes on one PostgreSQL database and one Redis, 200 turn-based tables whose
deadlines fall due together once both processes' clocks are moved past them. Each missed turn
is acted on exactly once (one ended turn, one stand-in, or one bot that keeps the seat), as the
stored actions and seats show afterwards, and the two processes' own counts of the deadlines
they handled add up to the number of tables."""

from __future__ import annotations

import re
import threading
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import select

from gotown.engine import Action, Game, Options
from gotown.server.services.deadlines import turn_record
from gotown.server.storage import Store, StoredGame, StoredSeat
from gotown.server.storage_turns import seconds_of
from gotown.server.tables import ActionRow, GameRow

from .helpers import REDIS_URL, reset_postgres
from .test_sigkill import _call, _free_port, _start

DAY = 24 * 3600
TABLES = 200
#: Every this many tables, one whose first missed turn is already the last one allowed
#: (missed_limit 1): the bot keeps the seat instead of ending the turn or standing in.
KEPT_EVERY = 4
OPERATOR = "deadlines-operator-token"


@contextmanager
def two_processes(database_url: str) -> Iterator[list[int]]:
    """Two server processes sharing ``database_url`` and Redis, their clocks movable."""
    extra = {
        "GOTOWN_BROADCAST_URL": REDIS_URL,
        "GOTOWN_TEST_CLOCK": "1",
        "GOTOWN_BOT_DELAY": "0",
        "GOTOWN_OPERATOR_TOKEN": OPERATOR,
        "GOTOWN_MAX_BOTS_ONLY_TABLES": "1000",
    }
    ports = [_free_port(), _free_port()]
    servers = []
    try:
        for port in ports:  # (one after the other: the first migrates the schema)
            servers.append(_start(database_url, port, extra))
        yield ports
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            server.wait(timeout=30)


def paced_table(port: int, index: int, on_timeout: str) -> str:
    """A table of two people at a pace of a day, seat 0 to play first; its id."""
    body = {
        "name": f"A{index}",
        "seats": [{"kind": "human"}] * 2,
        "options": {"first_player": 0},
        "pace": DAY,
        "on_timeout": on_timeout,
        "missed_limit": 1 if index % KEPT_EVERY == 0 else 3,
    }
    status, created = _call(port, "POST", "/api/games", body)
    assert status == 201, created
    code = str(created["invite_url"]).rsplit("/", 1)[1]
    status, joined = _call(
        port, "POST", f"/api/games/{created['game_id']}/join", {"code": code, "name": f"B{index}"}
    )
    assert status == 200, joined
    return str(created["game_id"])


def now_of(port: int) -> float:
    status, meta = _call(port, "GET", "/api/meta")
    assert status == 200, meta
    return float(meta["now"])


def advance_together(ports: list[int], seconds: float) -> list[float]:
    """Move every process's clock on by ``seconds`` at the same moment; their new times."""
    start = threading.Barrier(len(ports))
    answers: list[Any] = [None] * len(ports)

    def move(i: int) -> None:
        start.wait()
        answers[i] = _call(ports[i], "POST", "/api/test/clock", {"advance": seconds})

    threads = [threading.Thread(target=move, args=(i,)) for i in range(len(ports))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for status, body in answers:
        assert status == 200, body
    return [float(body["now"]) for _status, body in answers]


def deadlines_handled(port: int) -> float:
    """The process's own count of the deadlines it handled (``/metrics``)."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/metrics", headers={"Authorization": f"Bearer {OPERATOR}"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        text = answer.read().decode()
    found = re.search(r"^gotown_deadlines_due_total ([0-9.e+]+)$", text, re.MULTILINE)
    assert found, text[:500]
    return float(found.group(1))


def deadlines_after(store: Store, ids: list[str], moment: float) -> int:
    """How many of the tables ``ids`` have a deadline after ``moment``: a person's turn under
    way that began after it (the missed turn acted on, and the table back with a person)."""
    with store.engine.connect() as connection:
        deadlines = connection.execute(
            select(GameRow.deadline_at).where(GameRow.id.in_(ids), GameRow.deadline_at.is_not(None))
        ).scalars()
        return sum(seconds_of(d) > moment for d in deadlines)


def actions_by_seat(store: Store, ids: list[str]) -> dict[str, list[tuple[int, dict[str, Any]]]]:
    """Every table's stored actions, in order, with the seat that made each."""
    found: dict[str, list[tuple[int, dict[str, Any]]]] = {game_id: [] for game_id in ids}
    query = (
        select(ActionRow.game_id, ActionRow.seat, ActionRow.action)
        .where(ActionRow.game_id.in_(ids))
        .order_by(ActionRow.game_id, ActionRow.seq)
    )
    with store.engine.connect() as connection:
        for game_id, seat, action in connection.execute(query):
            found[game_id].append((seat, action))
    return found


def wait_for(done: Any, what: str, polls: int = 3000) -> None:
    """Poll ``done()`` until it is true (bounded by count, not by time)."""
    import time

    for _ in range(polls):
        if done():
            return
        time.sleep(0.02)
    raise AssertionError(f"never happened: {what}")


def check_missed_once(
    game: StoredGame, actions: list[tuple[int, dict[str, Any]]], on_timeout: str, moved_to: float
) -> None:
    """Seat 0 missed its first turn and it was acted on once; a person's turn is under way."""
    zero, one = game.seats
    end = {"type": "end-turn"}
    assert game.status == "playing", game.id
    assert (zero.missed, one.missed) == (1, 0), (game.id, zero, one)
    assert (one.kind, one.standin) == ("human", False), (game.id, one)
    assert all(seat == 0 for seat, _action in actions), (game.id, actions)  # not seat 1's turn
    kept = game.missed_limit == 1
    if kept:  # the bot keeps the seat: the table's stand-in level, or "medium" for "end"
        level = on_timeout[4:] if on_timeout.startswith("bot:") else "medium"
        assert (zero.kind, zero.level, zero.standin) == ("bot", level, False), (game.id, zero)
        # (it plays every turn of seat 0's: more than one when seat 1 must miss its own)
        assert actions and actions[-1] == (0, end), (game.id, actions)
    else:
        assert (zero.kind, zero.standin) == ("human", False), (game.id, zero)
        if on_timeout == "end":
            assert actions == [(0, end)], (game.id, actions)
        else:  # the stand-in played the one turn to its end, and gave the seat back
            assert actions and actions[-1] == (0, end), (game.id, actions)
            assert actions.count((0, end)) == 1, (game.id, actions)
    # A person's own day, from the moment the missed turn ended: no second deadline fell due.
    assert game.deadline is not None, game.id
    assert moved_to < game.deadline <= moved_to + DAY + 600, (game.id, game.deadline)


@pytest.mark.postgres
@pytest.mark.parametrize("on_timeout", ["end", "bot:easy"])
def test_200_deadlines_falling_due_together_on_two_processes_each_fire_once(
    postgres_url: str, on_timeout: str
) -> None:
    reset_postgres(postgres_url)
    store = Store(postgres_url)
    try:
        with two_processes(postgres_url) as ports:
            with ThreadPoolExecutor(8) as pool:  # (half the tables made on each process)
                ids = list(
                    pool.map(lambda i: paced_table(ports[i % 2], i, on_timeout), range(TABLES))
                )
            start = now_of(ports[0])
            assert deadlines_after(store, ids, start + DAY - 600) == TABLES  # seat 0's day
            assert [deadlines_handled(port) for port in ports] == [0, 0]
            moved_to = min(advance_together(ports, DAY + 60))

            wait_for(
                lambda: deadlines_after(store, ids, moved_to) == TABLES,
                f"every missed turn acted on ({on_timeout})",
            )
            wait_for(
                lambda: sum(deadlines_handled(port) for port in ports) >= TABLES,
                "both processes' counts of deadlines handled",
            )
            handled = [deadlines_handled(port) for port in ports]
            assert sum(handled) == TABLES, handled
            actions = actions_by_seat(store, ids)
            for game_id in ids:
                game = store.load_game(game_id)
                assert game is not None
                check_missed_once(game, actions[game_id], on_timeout, moved_to)
    finally:
        store.dispose()


# --- a turn that follows the same seat's (a donut truck's extra turn, a milkshake) ------------


def same_seat_again() -> tuple[Game, Game]:
    """Seat 0's turn just before its end (a milkshake played on seat 1) and just after it:
    seat 1's turn passes at once, so the next turn is seat 0's again."""
    for seed in range(500):
        game = Game.new(players=2, seed=seed, options=Options(first_player=0))
        milkshake = next(
            (a for a in game.legal_actions() if a.to_json()["type"] == "milkshake"), None
        )
        if milkshake is None:
            continue
        game.apply(milkshake)
        after = game.copy()
        after.apply(Action.from_json({"type": "end-turn"}))
        assert (after.active, after.turn) == (0, game.turn + 2)
        return game, after
    raise AssertionError("no deal of 500 lets seat 0 play a milkshake at once")


def timed_table(standin: bool) -> StoredGame:
    seats = [
        StoredSeat(0, "human", None, "Ann", "t0", "ann", missed=1, standin=standin),
        StoredSeat(1, "human", None, "Bob", "t1", "bob"),
    ]
    return StoredGame("g", 2, 1, {}, "en", "code", "playing", seats, pace=DAY,
                      on_timeout="bot:easy", missed_limit=3)  # fmt: skip


def test_a_person_s_turn_after_their_stand_in_s_has_a_deadline_and_a_notice() -> None:
    before, after = same_seat_again()
    record = turn_record(timed_table(standin=True), before, after, 0, 1000.0)
    assert record is not None and record.turn_seat == 0
    assert record.seats == ((0, 1, False),)  # the stand-in gave the seat back...
    assert record.deadline == 1000.0 + DAY  # ...and the new turn is timed: the person's
    assert [(n.seat, n.kind) for n in record.notices] == [(0, "your-turn")]


def test_a_turn_after_one_the_server_ended_is_timed_and_told() -> None:
    before, after = same_seat_again()
    table = timed_table(standin=False)
    record = turn_record(table, before, after, 0, 1000.0, timed_out=True)
    assert record is not None and record.seats == ((0, 2, False),)
    assert record.deadline == 1000.0 + DAY
    assert [(n.seat, n.kind) for n in record.notices] == [(0, "your-turn")]
    # A person who ended that turn themselves plays on: timed, and not told.
    record = turn_record(table, before, after, 0, 1000.0)
    assert record is not None and record.deadline == 1000.0 + DAY and record.notices == ()
