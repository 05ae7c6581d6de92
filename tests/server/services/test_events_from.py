"""``events_from``: a state answers only the events a client does not hold yet.

Over HTTP a client asks for it (``GET .../state?events_from=N``, ``"events_from": N`` in an
action's body); over the WebSocket each connection is sent every event once. Either way the
events are the tail of the seat's (or the spectator's) full list, and the rest of the state is
the full answer's.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from gotown.server.pubsub import Notice

from ..helpers import auth, new_game, play_one, state


def _play(
    client: TestClient, gid: str, tokens: dict[int, str], actions: int, *, seed: int = 3
) -> None:
    """Make ``actions`` actions over HTTP, each by the seat whose turn it is."""
    rng = random.Random(seed)
    for _ in range(actions):
        play_one(client, gid, tokens, rng)


def _state_from(client: TestClient, gid: str, token: str | None, events_from: Any) -> Any:
    return client.get(
        f"/api/games/{gid}/state", params={"events_from": events_from}, headers=auth(token)
    )


def _without_events(st: dict[str, Any]) -> dict[str, Any]:
    view = {k: v for k, v in st["view"].items() if k != "events"}
    return {**{k: v for k, v in st.items() if k not in ("view", "events_from")}, "view": view}


def test_events_from_answers_the_tail_of_a_seat_s_and_a_spectator_s_events(
    client: TestClient,
) -> None:
    gid, tokens = new_game(client, ["human", "human", "human"], seed=41)
    _play(client, gid, tokens, 12)
    for token in (tokens[0], tokens[1], None):
        full = state(client, gid, token)
        events = full["view"]["events"]
        assert full["events_from"] == 0 and len(events) > 12
        for n in (0, 1, len(events) // 2, len(events) - 1, len(events)):
            r = _state_from(client, gid, token, n)
            assert r.status_code == 200, r.text
            part = r.json()
            assert part["events_from"] == n
            assert part["view"]["events"] == events[n:]
            assert _without_events(part) == _without_events(full)


def test_every_seat_s_tail_starts_at_the_same_index_and_holds_only_its_own_cards(
    client: TestClient,
) -> None:
    """One index for every seat (the engine keeps one event per raw event for each), and each
    tail is its seat's own: a drawn or stolen card only to whom it went or was taken from,
    none to a spectator."""
    gid, tokens = new_game(client, ["human", "human", "human"], seed=41)
    _play(client, gid, tokens, 12)
    viewers: list[tuple[int | None, str | None]] = [*tokens.items(), (None, None)]
    counts = {len(state(client, gid, token)["view"]["events"]) for _, token in viewers}
    assert len(counts) == 1
    for seat, token in viewers:
        part = _state_from(client, gid, token, 2).json()
        assert part["events_from"] == 2
        tail = part["view"]["events"]
        assert tail == state(client, gid, token)["view"]["events"][2:]
        cards = [e for e in tail if e["type"] in ("draw", "stolen") and e["card"] is not None]
        assert seat is None or any(e["type"] == "draw" for e in cards)  # its own draws
        for e in cards:
            assert seat in (e["seat"], e.get("victim")), (seat, e)


def test_an_action_answers_the_events_after_those_the_client_holds(client: TestClient) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=42)
    _play(client, gid, tokens, 5)
    seat = state(client, gid)["view"]["active"]
    before = state(client, gid, tokens[seat])
    held = len(before["view"]["events"])
    r = client.post(
        f"/api/games/{gid}/actions",
        json={"version": before["version"], "action": {"type": "end-turn"}, "events_from": held},
        headers=auth(tokens[seat]),
    )
    assert r.status_code == 200, r.text
    answer = r.json()
    full = state(client, gid, tokens[seat])
    assert answer["events_from"] == held and answer["view"]["events"]
    assert before["view"]["events"] + answer["view"]["events"] == full["view"]["events"]
    assert _without_events(answer) == _without_events(full)


@pytest.mark.parametrize("bad", [-1, "x", "1.5", ""])
def test_a_bad_events_from_is_refused_by_name(client: TestClient, bad: Any) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=43)
    _play(client, gid, tokens, 3)
    before = state(client, gid, tokens[0])
    r = _state_from(client, gid, tokens[0], bad)
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["code"] == "invalid-request" and "events_from" in error["message"]
    assert state(client, gid, tokens[0]) == before


@pytest.mark.parametrize("bad", [-1, "3", 2.5, True, None])
def test_an_action_with_a_bad_events_from_is_refused_and_not_made(
    client: TestClient, bad: Any
) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=44)
    _play(client, gid, tokens, 3)
    seat = state(client, gid)["view"]["active"]
    before = state(client, gid, tokens[seat])
    r = client.post(
        f"/api/games/{gid}/actions",
        json={"version": before["version"], "action": {"type": "end-turn"}, "events_from": bad},
        headers=auth(tokens[seat]),
    )
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["code"] == "invalid-request" and "events_from" in error["message"]
    assert state(client, gid, tokens[seat]) == before  # the action was not made
    held = len(before["view"]["events"])
    r = client.post(
        f"/api/games/{gid}/actions",
        json={"version": before["version"], "action": {"type": "end-turn"}, "events_from": held},
        headers=auth(tokens[seat]),
    )
    assert r.status_code == 200 and r.json()["events_from"] == held, r.text


def test_more_events_than_the_game_holds_are_answered_with_every_event(
    client: TestClient,
) -> None:
    """The schema admits any ``events_from`` of at least 0 (it cannot know a game's count): a
    client that claims more than the game holds gets every event, from 0, over HTTP, in an
    action's answer (the action made) and on a socket, rather than a refusal."""
    gid, tokens = new_game(client, ["human", "human"], seed=45)
    _play(client, gid, tokens, 3)
    seat = state(client, gid)["view"]["active"]
    full = state(client, gid, tokens[seat])
    beyond = len(full["view"]["events"]) + 1
    r = _state_from(client, gid, tokens[seat], beyond)
    assert r.status_code == 200, r.text
    assert r.json()["events_from"] == 0 and r.json()["view"]["events"] == full["view"]["events"]
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"token": tokens[seat], "events_from": beyond})
        first = ws.receive_json()
        assert first["type"] == "state" and first["state"]["events_from"] == 0
    r = client.post(
        f"/api/games/{gid}/actions",
        json={"version": full["version"], "action": {"type": "end-turn"}, "events_from": 10**6},
        headers=auth(tokens[seat]),
    )
    assert r.status_code == 200, r.text
    after = state(client, gid, tokens[seat])
    assert r.json()["events_from"] == 0 and r.json()["view"]["events"] == after["view"]["events"]
    assert after["version"] == full["version"] + 1


def test_the_lobby_has_no_events(client: TestClient) -> None:
    r = client.post(
        "/api/games", json={"seats": [{"kind": "human"}] * 2, "seed": 5, "name": "Anna"}
    )
    created = r.json()
    lobby = state(client, created["game_id"], created["token"])
    assert lobby["status"] == "lobby" and lobby["view"] is None and lobby["events_from"] == 0
    assert _state_from(client, created["game_id"], created["token"], 0).json() == lobby
    assert _state_from(client, created["game_id"], created["token"], 1).json() == lobby


def test_events_from_is_in_the_openapi_schema(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    state_out = schema["components"]["schemas"]["StateOut"]["properties"]["events_from"]
    assert "first event in view.events" in state_out["description"]
    query = schema["paths"]["/api/games/{game_id}/state"]["get"]["parameters"]
    assert any(p["name"] == "events_from" and p["in"] == "query" for p in query)
    assert "events_from" in schema["components"]["schemas"]["ActionIn"]["properties"]


# --- the WebSocket -------------------------------------------------------------------------


def _states_until(ws: WebSocketTestSession, version: int) -> list[dict[str, Any]]:
    """Every state message up to the first at ``version`` (presence updates included)."""
    states: list[dict[str, Any]] = []
    for _ in range(200):
        message = ws.receive_json()
        if message["type"] != "state":
            continue
        states.append(message["state"])
        if message["state"]["version"] == version:
            return states
    raise AssertionError(f"no state at version {version} arrived")


@pytest.mark.parametrize("watcher", [False, True], ids=["seat", "spectator"])
def test_each_push_sends_only_the_events_the_socket_was_not_sent(
    client: TestClient, watcher: bool
) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=45)
    _play(client, gid, tokens, 4)
    token = None if watcher else tokens[1]
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"token": token})
        first = _states_until(ws, state(client, gid)["version"])[-1]
        assert first["events_from"] == 0
        assert first["view"]["events"] == state(client, gid, token)["view"]["events"]
        held = list(first["view"]["events"])
        for actions in (1, 1, 3):
            _play(client, gid, tokens, actions, seed=len(held))
            pushed = _states_until(ws, state(client, gid)["version"])
            assert any(p["view"]["events"] for p in pushed)
            for push in pushed:
                assert push["events_from"] == len(held)  # what this socket was sent so far
                held += push["view"]["events"]
            full = state(client, gid, token)
            assert held == full["view"]["events"]
            assert _without_events(pushed[-1]) == _without_events(full)


def test_a_socket_resumes_from_the_events_it_holds(client: TestClient) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=46)
    _play(client, gid, tokens, 4)
    full = state(client, gid, tokens[0])
    n = len(full["view"]["events"]) - 3
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"token": tokens[0], "events_from": n})
        first = _states_until(ws, full["version"])[-1]
        assert first["events_from"] == n and first["view"]["events"] == full["view"]["events"][n:]
        _play(client, gid, tokens, 1)
        push = _states_until(ws, full["version"] + 1)[-1]
        assert push["events_from"] == len(full["view"]["events"])


@pytest.mark.parametrize("bad", [-1, "3", 1.0, True, None])
def test_a_socket_s_bad_events_from_is_refused_by_name(client: TestClient, bad: Any) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=47)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"token": tokens[0], "events_from": bad})
        message = ws.receive_json()
        assert message["type"] == "error"
        assert message["error"]["code"] == "invalid-request"
        assert "events_from" in message["error"]["message"]
        closing = ws.receive()
        assert closing["type"] == "websocket.close" and closing["code"] == 4422


def test_a_socket_sent_more_events_than_the_game_holds_gets_them_all_again(
    client: TestClient,
) -> None:
    """Should a game be held in memory behind what a socket was sent (it cannot happen in
    play), its next push holds every event again, from 0: never a gap."""
    gid, tokens = new_game(client, ["human", "human"], seed=48)
    service: Any = client.app.state.service  # type: ignore[attr-defined]
    earlier = service.registry.get(gid).game.copy()
    _play(client, gid, tokens, 3)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"token": tokens[0]})
        first = _states_until(ws, 3)[-1]
        assert first["events_from"] == 0

        def go_back() -> None:
            live = service.registry.get(gid)
            live.game = earlier
            service.pubsub.deliver_locally(
                Notice(gid, earlier.version, "action", service.pubsub.id)
            )

        client.portal.call(go_back)  # type: ignore[union-attr]
        push = _states_until(ws, earlier.version)[-1]
        assert push["events_from"] == 0
        assert push["view"]["events"] == first["view"]["events"][: earlier.event_count]
