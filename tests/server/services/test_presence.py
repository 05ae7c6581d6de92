"""Presence across processes: two apps sharing one database and one Redis (as two server
processes would) agree on which seats are connected and since when a seat is away."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from fastapi.testclient import TestClient
from httpx2 import Response
from starlette.testclient import WebSocketTestSession

from gotown.server.config import Settings
from gotown.server.redis_presence import TAKEN, member, presence_key, snapshot_of

from ..helpers import (
    REDIS_URL,
    auth,
    error_of,
    invite_code,
    new_game,
    running,
    settled,
    state,
    wait_until,
)

#: Nothing listens there: a Redis that is down.
DOWN_REDIS_URL = "redis://127.0.0.1:1/15"


@pytest.fixture
def redis_client() -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(REDIS_URL)
    yield client
    client.close()


def _flags(st: dict[str, Any]) -> list[bool]:
    lobby = st.get("lobby", st)
    return [bool(s["connected"]) for s in lobby["seats"]]


def _lobby_flags(client: TestClient, game_id: str) -> list[bool]:
    r = client.get(f"/api/games/{game_id}/lobby")
    assert r.status_code == 200, r.text
    return _flags(r.json())


def _state_where(
    ws: WebSocketTestSession,
    done: Callable[[dict[str, Any]], bool] = lambda st: True,
    *,
    polls: int = 1000,
) -> dict[str, Any]:
    """The first state pushed on ``ws`` that is ``done``. Bounded: each round sends a ping and
    reads up to its pong, so that a state that never comes fails the test instead of hanging it.
    """
    for _ in range(polls):
        ws.send_json({"type": "ping"})
        while (message := ws.receive_json())["type"] != "pong":
            if message["type"] == "state" and done(message["state"]):
                st: dict[str, Any] = message["state"]
                return st
        time.sleep(0.01)
    raise AssertionError("no such state was pushed")


def _hand_over(client: TestClient, game_id: str, token: str, seat: int) -> Response:
    r: Response = client.post(
        f"/api/games/{game_id}/seats/{seat}/bot", headers=auth(token), json={"level": "random"}
    )
    return r


def _scores(client: redis.Redis, game_id: str) -> list[float]:
    """The scores of the game's socket entries in Redis (not the times seats were taken)."""
    entries: Any = client.zrange(presence_key(game_id), 0, -1, withscores=True)
    taken = f":{TAKEN}".encode()
    return [float(score) for name, score in entries if not name.endswith(taken)]


def _refused(r: Response, status: int, code: str, words: str = "") -> None:
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert error["code"] == code, r.text
    assert words in error["message"], r.text


def _hand_over_once_allowed(
    client: TestClient, game_id: str, token: str, seat: int, *, polls: int = 2000
) -> None:
    """Ask until the hand-over is allowed; until then it must be refused as too recent."""
    for _ in range(polls):
        r = _hand_over(client, game_id, token, seat)
        if r.status_code == 200:
            assert r.json()["seats"][seat]["kind"] == "bot"
            return
        _refused(r, 409, "seat-present", "left less than")
        time.sleep(0.01)
    raise AssertionError("the hand-over was never allowed")


def test_a_seat_connected_to_one_process_is_connected_on_the_other(settings: Settings) -> None:
    shared = settings.with_(broadcast_url=REDIS_URL, absent_seconds=3600)
    with running(shared) as one, running(shared) as two:
        gid, tokens = new_game(one, ["human", "human"], seed=41)
        assert _lobby_flags(two, gid) == [False, False]
        with two.websocket_connect(f"/ws/games/{gid}") as on_two:
            on_two.send_json({"token": tokens[0]})
            assert _flags(_state_where(on_two)) == [True, False]
            with one.websocket_connect(f"/ws/games/{gid}") as on_one:
                on_one.send_json({"token": tokens[1]})
                _state_where(on_one)
                # The connection is in Redis before its first state is sent: no waiting.
                assert _lobby_flags(two, gid) == [True, True]
                assert _flags(state(two, gid)) == [True, True]
                assert _flags(state(one, gid)) == [True, True]
                # The socket on the other process is told (a presence notice through Redis).
                _state_where(on_two, lambda st: _flags(st) == [True, True])
            wait_until(two, gid, None, lambda st: _flags(st) == [True, False])
            _state_where(on_two, lambda st: _flags(st) == [True, False])


def test_a_seat_connected_to_one_process_cannot_be_handed_to_a_bot_on_the_other(
    settings: Settings,
) -> None:
    # absent_seconds=0: only the connection itself can refuse the hand-over.
    shared = settings.with_(broadcast_url=REDIS_URL, absent_seconds=0)
    with running(shared) as one, running(shared) as two:
        gid, tokens = new_game(one, ["human", "human"], seed=42)
        with one.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.send_json({"token": tokens[1]})
            _state_where(ws)
            _refused(_hand_over(two, gid, tokens[0], 1), 409, "seat-present", "is connected")
            _refused(_hand_over(one, gid, tokens[0], 1), 409, "seat-present", "is connected")
            assert _flags(state(two, gid, tokens[0])) == [False, True]
            assert state(two, gid, tokens[0])["lobby"]["seats"][1]["kind"] == "human"


def test_a_seat_that_left_one_process_is_away_on_the_other_for_absent_seconds(
    settings: Settings,
) -> None:
    absent = 1.0
    shared = settings.with_(broadcast_url=REDIS_URL, absent_seconds=absent)
    with running(shared) as one, running(shared) as two:
        gid, tokens = new_game(one, ["human", "human"], seed=43)
        with one.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.send_json({"token": tokens[1]})
            _state_where(ws)
            _refused(_hand_over(two, gid, tokens[0], 1), 409, "seat-present", "is connected")
            # Both processes have now run longer than absent_seconds: their own start cannot
            # be why a hand-over is refused below, only the time the seat left (from Redis).
            time.sleep(absent)
            left = time.time()
        wait_until(two, gid, None, lambda st: _flags(st) == [False, False])
        _hand_over_once_allowed(two, gid, tokens[0], 1)
        assert time.time() - left >= absent  # not before absent_seconds after leaving
        assert state(two, gid, tokens[0])["lobby"]["seats"][1]["kind"] == "bot"


def test_every_process_counts_down_to_the_hand_over_from_when_the_seat_left(
    settings: Settings,
) -> None:
    """The state's handover_in (what the page counts down) comes from the shared presence: on
    another process, from when the seat's last socket closed."""
    absent = 30.0
    shared = settings.with_(broadcast_url=REDIS_URL, absent_seconds=absent)
    with running(shared) as one, running(shared) as two:
        gid, tokens = new_game(one, ["human", "human"], seed=45)
        with one.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.send_json({"token": tokens[1]})
            _state_where(ws)
            assert state(two, gid, tokens[0])["lobby"]["seats"][1]["handover_in"] is None
            time.sleep(2)  # Bob stays a while: counted from his joining, it would be less
            left = time.time()
        wait_until(two, gid, None, lambda st: _flags(st) == [False, False])
        before = time.time()
        seat = state(two, gid, tokens[0])["lobby"]["seats"][1]
        after = time.time()
        # Whole seconds, rounded up, from the time he left (a little after `left`).
        assert absent - (after - left) <= seat["handover_in"] <= absent - (before - left) + 1


def test_a_connection_whose_heartbeat_stopped_stops_counting(
    settings: Settings, redis_client: redis.Redis
) -> None:
    absent = 0.2
    shared = settings.with_(broadcast_url=REDIS_URL, absent_seconds=absent)
    with running(shared) as two:
        gid, tokens = new_game(two, ["human", "human", "human"], seed=44)
        key = presence_key(gid)
        try:
            # Another process held seat 1's socket, refreshed it one last time and died.
            expires = time.time() + 2.0
            redis_client.zadd(key, {member(1, "dead-process-socket"): expires})
            # And seat 2's process died long ago.
            redis_client.zadd(key, {member(2, "long-dead-socket"): time.time() - 60})
            assert _lobby_flags(two, gid) == [False, True, False]
            _refused(_hand_over(two, gid, tokens[0], 1), 409, "seat-present", "is connected")
            # Seat 2 was joined just now: away absent_seconds from then, not from its old socket.
            _hand_over_once_allowed(two, gid, tokens[0], 2)
            # No heartbeat comes: the entry expires and the seat is away since then.
            wait_until(two, gid, None, lambda st: _flags(st)[1] is False)
            assert time.time() >= expires
            _hand_over_once_allowed(two, gid, tokens[0], 1)
            assert time.time() >= expires + absent
        finally:
            redis_client.delete(key)


def test_sockets_are_told_when_a_dead_process_s_connection_expires(
    settings: Settings, redis_client: redis.Redis
) -> None:
    # No notice announces an expiry: the heartbeat of the process holding sockets sees it.
    shared = settings.with_(broadcast_url=REDIS_URL, presence_ttl=0.6)
    with running(shared) as two:
        gid, tokens = new_game(two, ["human", "human"], seed=47)
        key = presence_key(gid)
        try:
            redis_client.zadd(key, {member(1, "dead-process-socket"): time.time() + 1.5})
            with two.websocket_connect(f"/ws/games/{gid}") as ws:
                ws.send_json({"token": tokens[0]})
                assert _flags(_state_where(ws)) == [True, True]
                _state_where(ws, lambda st: _flags(st) == [True, False])
        finally:
            redis_client.delete(key)


def test_the_heartbeat_keeps_a_live_connection_past_its_ttl(
    settings: Settings, redis_client: redis.Redis
) -> None:
    ttl = 1.5
    shared = settings.with_(broadcast_url=REDIS_URL, absent_seconds=0, presence_ttl=ttl)
    with running(shared) as one, running(shared) as two:
        gid, tokens = new_game(one, ["human", "human"], seed=45)
        with one.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.send_json({"token": tokens[1]})
            _state_where(ws)
            [first_expiry] = _scores(redis_client, gid)
            while time.time() < first_expiry + ttl / 3:
                time.sleep(0.05)
            # Long past the first expiry: still connected, because its process refreshes it.
            assert _lobby_flags(two, gid) == [False, True]
            _refused(_hand_over(two, gid, tokens[0], 1), 409, "seat-present", "is connected")
            [expiry] = _scores(redis_client, gid)
            assert expiry > first_expiry
        wait_until(two, gid, None, lambda st: _flags(st) == [False, False])
        # Closed: the entry stays, as the time the seat left.
        [left] = _scores(redis_client, gid)
        assert expiry - ttl <= left <= time.time()


def test_a_redis_outage_degrades_without_failing_requests_or_sockets(settings: Settings) -> None:
    down = settings.with_(broadcast_url=DOWN_REDIS_URL, absent_seconds=0, presence_ttl=0.3)
    with running(down) as client:
        gid, tokens = new_game(client, ["human", "human", "human"], seed=46)
        with client.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.send_json({"token": tokens[1]})
            first = _state_where(ws)
            assert _flags(first) == [False, True, False]  # this process's own socket counts
            assert _lobby_flags(client, gid) == [False, True, False]
            _refused(_hand_over(client, gid, tokens[0], 1), 409, "seat-present", "is connected")
            # Nobody can tell whether seat 3's person is connected elsewhere: not handed away.
            _refused(_hand_over(client, gid, tokens[0], 2), 503, "presence-unavailable")
            time.sleep(1.0)  # a few heartbeats fail meanwhile
            ws.send_json({"type": "ping"})
            while (message := ws.receive_json())["type"] != "pong":
                assert message["type"] == "state", message
            active = first["view"]["active"]
            r = client.post(
                f"/api/games/{gid}/actions",
                json={"version": first["version"], "action": {"type": "end-turn"}},
                headers=auth(tokens[active]),
            )
            assert r.status_code == 200, r.text
            # Without Redis this process's own sockets still hear of its own changes.
            assert _state_where(ws, lambda st: st["version"] == 1)["version"] == 1
        wait_until(client, gid, None, lambda st: _flags(st) == [False, False, False])
        _refused(_hand_over(client, gid, tokens[0], 2), 503, "presence-unavailable")
        assert _hand_over(client, gid, tokens[0], 0).status_code == 200  # one's own seat


def test_snapshot_connected_seats_and_away_times() -> None:
    entries = [
        (b"0:a", 100.0),  # ended at 100
        (b"0:b", 90.0),  # ended earlier
        (b"1:c", 80.0),  # ended, but seat 1 has another socket open
        (b"1:d", 200.0),
        (b"junk", 300.0),
    ]
    snapshot = snapshot_of(entries, now=150.0)
    assert snapshot.connected == frozenset({1})
    assert dict(snapshot.away_since) == {0: 100.0}


def test_a_seat_joined_on_one_process_is_away_only_from_then_on_the_other(
    settings: Settings,
) -> None:
    """Not since the other process started: a newcomer's seat is not handed to a bot before
    absent_seconds, wherever the hand-over is asked."""
    absent = 1.0
    shared = settings.with_(broadcast_url=REDIS_URL, absent_seconds=absent)
    with running(shared) as one, running(shared) as two:
        created = one.post(
            "/api/games", json={"seats": [{"kind": "human"}] * 2, "name": "Anna"}
        ).json()
        gid, anna = created["game_id"], created["token"]
        time.sleep(absent)  # neither process's own start can be why a hand-over is refused
        joined = time.time()
        code = created["invite_url"].rsplit("/", 1)[1]
        r = one.post(f"/api/games/{gid}/join", json={"code": code, "name": "Bob"})
        assert r.status_code == 200, r.text
        _refused(_hand_over(two, gid, anna, 1), 409, "seat-present", "less than")
        _hand_over_once_allowed(two, gid, anna, 1)
        assert time.time() - joined >= absent


@pytest.mark.parametrize("broadcast", ["memory", "redis"])
def test_spectators_coming_and_going_push_nothing_to_the_players(
    settings: Settings, broadcast: str
) -> None:
    if broadcast == "redis":  # (no heartbeat during the test: it may tell of presence too)
        settings = settings.with_(broadcast_url=REDIS_URL, presence_ttl=600)
    with running(settings) as client:
        gid, tokens = new_game(client, ["human", "human"], seed=41, options={"first_player": 0})
        service = client.app.state.service  # type: ignore[attr-defined]
        live = service.registry.get(gid)
        with client.websocket_connect(f"/ws/games/{gid}") as player:
            player.send_json({"token": tokens[1]})
            first = player.receive_json()
            assert first["type"] == "state" and first["state"]["version"] == 0
            for _ in range(20):
                with client.websocket_connect(f"/ws/games/{gid}") as watcher:
                    watcher.send_json({"token": None})
                    assert watcher.receive_json()["state"]["seat"] is None
            settled(service, live, 1)
            # A change now: whatever was pushed to the player before it arrives first.
            r = client.post(
                f"/api/games/{gid}/actions",
                json={"version": 0, "action": {"type": "end-turn"}},
                headers=auth(tokens[0]),
            )
            assert r.status_code == 200, r.text
            received = []
            for _ in range(100):
                message = player.receive_json()
                received.append(message)
                if message["type"] == "state" and message["state"]["version"] == 1:
                    break
            # Only the change itself (there were 40 states: one per watcher opening or closing).
            assert [m["type"] for m in received] == ["state"]


def test_a_player_coming_and_going_is_still_shown_to_the_others(client: TestClient) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=42, options={"first_player": 0})
    service = client.app.state.service  # type: ignore[attr-defined]
    live = service.registry.get(gid)
    with client.websocket_connect(f"/ws/games/{gid}") as player:
        player.send_json({"token": tokens[1]})
        assert player.receive_json()["state"]["lobby"]["seats"][0]["connected"] is False
        with client.websocket_connect(f"/ws/games/{gid}") as other:
            other.send_json({"token": tokens[0]})
            other.receive_json()
            pushed = player.receive_json()["state"]
            assert [s["connected"] for s in pushed["lobby"]["seats"]] == [True, True]
        settled(service, live, 1)
        pushed = player.receive_json()["state"]
        assert [s["connected"] for s in pushed["lobby"]["seats"]] == [False, True]


def test_a_newly_joined_or_reclaimed_seat_is_away_only_from_then(database_url: str) -> None:
    """Not since the server started: the others wait absent_seconds before handing a seat its
    person just took (or took back) to a bot."""
    absent = 1.0
    settings = Settings(
        database_url=database_url, bot_delay=0, rate_limit_per_minute=0, absent_seconds=absent
    )
    with running(settings) as client:
        created = client.post(
            "/api/games", json={"seats": [{"kind": "human"}] * 2, "name": "Anna"}
        ).json()
        gid, anna = created["game_id"], created["token"]
        time.sleep(absent)  # the server's own start cannot be why a hand-over is refused below
        for step in ("join", "reclaim"):
            taken = time.time()
            if step == "join":
                r = client.post(
                    f"/api/games/{gid}/join", json={"code": invite_code(created), "name": "Bob"}
                )
                assert r.status_code == 200, r.text
                bob = r.json()["token"]
            else:
                r = client.post(f"/api/games/{gid}/reclaim", headers=auth(bob))
                assert r.status_code == 204, r.text
            err = error_of(
                client.post(f"/api/games/{gid}/seats/1/bot", headers=auth(anna)),
                409,
                "seat-present",
            )
            assert "less than" in err["message"]
            _hand_over_once_allowed(client, gid, anna, 1)
            assert time.time() - taken >= absent


def _hand_over_once_allowed(client: TestClient, game_id: str, token: str, seat: int) -> None:
    """Ask until the hand-over is allowed; until then it must be refused as too recent."""
    for _ in range(2000):
        r = client.post(f"/api/games/{game_id}/seats/{seat}/bot", headers=auth(token))
        if r.status_code == 200:
            assert r.json()["seats"][seat]["kind"] == "bot"
            return
        assert "less than" in error_of(r, 409, "seat-present")["message"]
        time.sleep(0.01)
    raise AssertionError("the hand-over was never allowed")


def test_an_away_seat_says_when_it_may_be_handed_to_a_bot(database_url: str) -> None:
    """The state tells the page, for each person's seat that is away, the seconds until the
    others may hand it to a bot (the page counts down; the button waits): none for a bot's or
    a connected person's seat, 0 once allowed."""
    absent = 30.0
    settings = Settings(
        database_url=database_url,
        bot_delay=0,
        rate_limit_per_minute=0,
        absent_seconds=absent,
        allow_seed=True,
    )
    with running(settings) as client:
        gid, tokens = new_game(client, ["human", "human", "bot"], seed=23)
        seats = state(client, gid, tokens[0])["lobby"]["seats"]
        assert seats[2]["handover_in"] is None  # a bot's
        assert 0 < seats[1]["handover_in"] <= absent  # Bob just joined, and is away
        error_of(
            client.post(f"/api/games/{gid}/seats/1/bot", headers=auth(tokens[0])),
            409,
            "seat-present",
        )
        with client.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.send_json({"token": tokens[1]})
            pushed = ws.receive_json()["state"]
            assert pushed["lobby"]["seats"][1]["handover_in"] is None  # connected
            assert state(client, gid, tokens[0])["lobby"]["seats"][1]["handover_in"] is None
    quick = settings.with_(absent_seconds=0)
    with running(quick) as client:
        gid, tokens = new_game(client, ["human", "human"], seed=24)
        assert state(client, gid, tokens[0])["lobby"]["seats"][1]["handover_in"] == 0
        assert client.post(f"/api/games/{gid}/seats/1/bot", headers=auth(tokens[0])).is_success
