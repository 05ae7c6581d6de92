"""Deadlines that survive everything (services/deadlines.py, storage_turns.py): two real server
processes on one PostgreSQL database and one Redis, 200 turn-based tables whose deadlines fall
due together once both processes' clocks are moved past them: each missed turn is acted on
exactly once (one ended turn, one stand-in, or one bot that keeps the seat), as the stored
actions and seats show afterwards, and the processes' own counts of the deadlines they handled
add up to the number of tables. And what a burst needs: batches beyond the first, tables whose
record cannot be read left aside, no reminder of a turn already over, games loaded in parallel,
and a scheduler that never looks again and again at a moment it could not act on."""

from __future__ import annotations

import asyncio
import re
import threading
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import insert, select, update

from gotown.engine import Action, Game, Options
from gotown.server.clock import Clock
from gotown.server.config import Settings
from gotown.server.main import create_app
from gotown.server.pubsub import PubSub
from gotown.server.services import deadlines
from gotown.server.services.deadlines import RETRY_EVERY, Scheduler, turn_record
from gotown.server.services.registry import Registry
from gotown.server.storage import Store, StoredGame, StoredSeat
from gotown.server.storage_turns import (
    BotClaim,
    Due,
    NoticeDue,
    moment,
    seconds_of,
)
from gotown.server.tables import ActionRow, GameRow, NoticeRow, SeatRow

from ..helpers import REDIS_URL, auth, error_of, invite_code, reset_postgres, service_of
from ..test_sigkill import _call, _free_port, _start

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


# --- what a burst needs ---------------------------------------------------------------------


@pytest.fixture
def timed(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings.with_(test_clock=True))) as client:
        yield client


def paced_here(
    client: TestClient, on_timeout: str = "end", keys: tuple[str | None, str | None] = (None, None)
) -> str:
    """A table of two people at a pace of a day on an app of this process, seat 0 first
    (``keys``: the players' keys each seat sits with)."""
    heads = [{"X-Player-Key": key} if key else {} for key in keys]
    body = {"name": "Ann", "seats": [{"kind": "human"}] * 2, "options": {"first_player": 0},
            "pace": DAY, "on_timeout": on_timeout}  # fmt: skip
    r = client.post("/api/games", json=body, headers=heads[0])
    assert r.status_code == 201, r.text
    created = r.json()
    r = client.post(
        f"/api/games/{created['game_id']}/join",
        json={"code": invite_code(created), "name": "Bob"},
        headers=heads[1],
    )
    assert r.status_code == 200, r.text
    return str(created["game_id"])


def test_a_burst_beyond_a_batch_fires_every_deadline_past_tables_that_cannot_be_read(
    timed: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(deadlines, "BATCH", 3)  # (7 due: three batches)
    service = service_of(timed)
    store = service.registry.store
    broken = [paced_here(timed) for _ in range(3)]  # the earliest deadlines
    good = [paced_here(timed) for _ in range(4)]
    with store.engine.begin() as connection:  # a record that no longer replays
        for game_id in broken:
            connection.execute(
                insert(ActionRow).values(
                    game_id=game_id, seq=0, seat=1, action={"type": "build", "cards": ["9", "9"]}
                )
            )
    for game_id in broken:
        service.registry.drop(game_id)  # (loaded again, from the broken record, when due)
    timed.post("/api/test/clock", json={"advance": DAY + 60})

    def fired() -> bool:
        return all(store.load_game(g).seats[0].missed == 1 for g in good)  # type: ignore[union-attr]

    wait_for(fired, "every readable table's deadline fired")
    for game_id in good:
        assert store.load_game(game_id).actions == [{"type": "end-turn"}]  # type: ignore[union-attr]
    assert service.deadlines.fired == len(good)


def test_no_reminder_for_a_turn_whose_deadline_passed_and_none_for_a_seat_without_a_player(
    timed: TestClient,
) -> None:
    store = service_of(timed).registry.store
    ann = timed.post("/api/players", json={"name": "Ann"}).json()["key"]
    told, untold = paced_here(timed, keys=(ann, None)), paced_here(timed)
    start = store.load_game(told).deadline - DAY  # type: ignore[operator]
    soon, late = start + 0.8 * DAY, start + DAY + 60
    assert {d.game_id for d in store.due_reminders(soon)} == {told, untold}
    assert store.due_reminders(late) == []  # (the server was away: the turn is over now)
    for due in store.due_reminders(soon):
        assert store.claim_reminder(due, NoticeDue(0, "reminder", due.turn, soon), soon)
    kinds = {g: [n["kind"] for n in store.pending_notices(g)] for g in (told, untold)}
    assert "reminder" in kinds[told] and "reminder" not in kinds[untold]
    due = Due(told, 1, start + DAY, 0)
    assert store.is_due(due, late) and not store.is_due(due, soon)


def test_a_notice_claimed_by_a_process_is_next_due_when_its_claim_ends(timed: TestClient) -> None:
    store = service_of(timed).registry.store
    game_id = paced_here(timed)
    now = store.load_game(game_id).deadline - DAY  # type: ignore[operator]
    with store.engine.begin() as connection:
        connection.execute(
            insert(NoticeRow).values(
                game_id=game_id, seat=1, kind="your-turn", turn=1, due_at=moment(now - 30),
                attempts=0, claimed_until=moment(now + 90), sent_to=[], created_at=moment(now),
            )
        )  # fmt: skip
    assert store.next_moment() == pytest.approx(now + 90)  # (not at once, again and again)
    with store.engine.begin() as connection:
        connection.execute(update(NoticeRow).values(claimed_until=moment(now - 60)))
    assert store.next_moment() == pytest.approx(now - 30)  # (a claim that ran out: due)


def test_the_scheduler_looks_again_later_at_a_moment_it_could_not_act_on() -> None:
    async def scenario() -> None:
        clock = Clock()
        rounds: list[float] = []
        overdue: list[float] = []

        async def work() -> None:
            rounds.append(clock.time())

        async def next_moment() -> float | None:
            return overdue[0] if overdue else clock.time() + 3600

        async def until(count: int) -> None:
            for _ in range(2000):
                if len(rounds) >= count:
                    return
                await asyncio.sleep(0)

        scheduler = Scheduler(clock, next_moment, work)
        scheduler.start()
        await until(1)
        overdue.append(clock.time() - 10)  # (due, but the rounds leave it due)
        scheduler.poke()
        await until(2)
        await until(50)  # (any further round would be a loop)
        assert len(rounds) == 2
        clock.advance(RETRY_EVERY)
        await until(3)
        assert len(rounds) == 3
        await scheduler.stop()

    asyncio.run(scenario())


def test_games_load_in_parallel_and_each_once(tmp_path: Any) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'load.sqlite3'}")
    store = Store(settings.database_url)
    store.migrate()
    for game_id in ("slow", "quick"):
        seats = [StoredSeat(0, "human", None, None, None), StoredSeat(1, "human", None, None, None)]
        store.create_game(StoredGame(game_id, 2, 1, {}, "en", f"c-{game_id}", "lobby", seats))
    release = threading.Event()
    loads: list[str] = []
    load_game = store.load_game

    def slow_load(game_id: str) -> StoredGame | None:
        loads.append(game_id)
        if game_id == "slow":
            release.wait(timeout=60)
        return load_game(game_id)

    store.load_game = slow_load  # type: ignore[method-assign]

    async def scenario() -> None:
        registry = Registry(settings, store, PubSub("memory://"))
        slow = [asyncio.create_task(registry.live("slow")) for _ in range(2)]
        quick = asyncio.create_task(registry.live("quick"))
        for _ in range(500):  # the quick game does not wait for the slow one
            if quick.done():
                break
            await asyncio.sleep(0.01)
        done = quick.done()
        release.set()
        first, second = await asyncio.gather(*slow)
        assert done and not first.stored.actions
        assert first is second and loads.count("slow") == 1  # loaded once for both
        await quick

    try:
        asyncio.run(scenario())
    finally:
        release.set()
        store.dispose()


def test_bots_play_a_burst_of_missed_turns_a_few_at_a_time_and_every_one(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(deadlines, "STANDINS_AT_ONCE", 2)
    # (Each bot move waits 0.1 s: without the bound, the five would all play together.)
    with TestClient(create_app(settings.with_(test_clock=True, bot_delay=0.1))) as client:
        service = service_of(client)
        ids = [paced_here(client, on_timeout="bot:easy") for _ in range(5)]
        at_once: list[int] = []

        def count(_live: Any) -> None:  # (after every move: the stand-ins playing a turn)
            tables = [service.registry.get(g) for g in ids]
            at_once.append(
                sum(
                    1
                    for live in tables
                    if live is not None
                    and live.game is not None
                    and live.stored.seats[live.game.active].standin
                    and service.bots.is_playing(live)
                )
            )

        service.moves.after.append(count)
        moved = client.post("/api/test/clock", json={"advance": DAY + 60}).json()["now"]

        def all_played() -> bool:  # (each table at a person's turn again, with a new day)
            games = [service.registry.store.load_game(g) for g in ids]
            return all(g is not None and (g.deadline or 0) > moved for g in games)

        wait_for(all_played, "every stand-in played its turn")
        seats = [service.registry.store.load_game(g).seats[0] for g in ids]  # type: ignore[union-attr]
        assert all((s.missed, s.standin, s.kind) == (1, False, "human") for s in seats)
        assert at_once and max(at_once) <= 2, at_once


def test_missed_turns_are_claimed_together_except_a_seat_that_changed(timed: TestClient) -> None:
    store = service_of(timed).registry.store
    ids = [paced_here(timed, on_timeout="bot:easy") for _ in range(3)]
    games = {g: store.load_game(g) for g in ids}
    late = max(g.deadline for g in games.values() if g and g.deadline) + 60
    dues = store.due_deadlines(late)
    turns = store.missed_turns(dues, late)
    assert sorted(t.due.game_id for t in turns) == sorted(ids)
    assert {(t.seat, t.missed, t.on_timeout, t.version) for t in turns} == {(0, 0, "bot:easy", 0)}
    # A seat that changed since the read (its person moved within the turn elsewhere, say).
    with store.engine.begin() as connection:
        connection.execute(update(SeatRow).where(SeatRow.game_id == ids[1]).values(missed=2))
    claims = [BotClaim(turn, None) for turn in turns]
    taken = store.claim_for_bots(claims, late)
    assert sorted(c.turn.due.game_id for c in taken) == sorted([ids[0], ids[2]])
    assert [d.game_id for d in store.due_deadlines(late)] == [ids[1]]  # (left for later)
    assert store.claim_for_bots(claims, late) == []  # (taken: another process finds nothing)
    seat = store.load_game(ids[0]).seats[0]  # type: ignore[union-attr]
    assert (seat.kind, seat.missed, seat.standin) == ("human", 1, True)
    assert store.load_game(ids[1]).seats[0].standin is False  # type: ignore[union-attr]


def test_a_person_s_move_after_another_process_gave_their_turn_to_a_stand_in_is_refused(
    timed: TestClient,
) -> None:
    service = service_of(timed)
    store = service.registry.store
    body = {"name": "Ann", "seats": [{"kind": "human"}] * 2, "options": {"first_player": 0},
            "pace": DAY, "on_timeout": "bot:easy"}  # fmt: skip
    created = timed.post("/api/games", json=body).json()
    game_id = created["game_id"]
    joined = timed.post(
        f"/api/games/{game_id}/join", json={"code": invite_code(created), "name": "Bob"}
    )
    assert joined.status_code == 200, joined.text
    # Another process took Ann's deadline for a stand-in a moment ago; this one has not heard.
    late = store.load_game(game_id).deadline + 60  # type: ignore[operator]
    (due,) = store.due_deadlines(late)
    assert store.claim_timeout(due, 0, 1, None, late)
    r = timed.post(
        f"/api/games/{game_id}/actions",
        json={"version": 0, "action": {"type": "end-turn"}},
        headers=auth(created["token"]),
    )
    error_of(r, 409, "standin-plays")
    assert store.load_game(game_id).actions == []  # type: ignore[union-attr]
