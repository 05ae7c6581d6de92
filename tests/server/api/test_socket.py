"""The WebSocket per seat: live updates built from each seat's own view."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.types import Message

from gotown.engine import Action
from gotown.server import schemas
from gotown.server.config import Settings

from ..helpers import (
    REDIS_URL,
    ViewRecorder,
    auth,
    new_game,
    next_state,
    running,
    state,
    store_end_turns,
    wait_until,
)


def _next_state(ws: WebSocketTestSession, version: int | None = None) -> dict[str, Any]:
    """The next state message (at ``version`` when given), skipping presence updates."""
    for _ in range(200):
        message = ws.receive_json()
        if message["type"] != "state":
            continue
        st: dict[str, Any] = message["state"]
        if version is None or st["version"] == version:
            return st
    raise AssertionError("no state message arrived")


def _from(pushed: dict[str, Any]) -> dict[str, int]:
    """The ``events_from`` of a pushed state, to ask the HTTP API for the same events."""
    return {"events_from": pushed["events_from"]}


def test_each_socket_gets_its_own_seat_view_after_every_action(client: TestClient) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=31)
    with (
        client.websocket_connect(f"/ws/games/{gid}") as ws0,
        client.websocket_connect(f"/ws/games/{gid}") as ws1,
        client.websocket_connect(f"/ws/games/{gid}") as watcher,
    ):
        ws0.send_json({"token": tokens[0]})
        ws1.send_json({"token": tokens[1]})
        watcher.send_json({"token": None})
        first = [_next_state(ws0), _next_state(ws1), _next_state(watcher)]
        assert [s["seat"] for s in first] == [0, 1, None]
        assert first[0]["view"]["hand"] == state(client, gid, tokens[0])["view"]["hand"]
        assert first[2]["view"]["hand"] is None
        active = first[0]["view"]["active"]
        r = client.post(
            f"/api/games/{gid}/actions",
            json={"version": first[0]["version"], "action": {"type": "end-turn"}},
            headers=auth(tokens[active]),
        )
        assert r.status_code == 200
        after = [_next_state(ws0, 1), _next_state(ws1, 1), _next_state(watcher, 1)]
        # Each push holds the events its socket was not sent yet (``events_from`` on).
        for seat, st in enumerate(after[:2]):
            assert st["view"] == state(client, gid, tokens[seat], **_from(st))["view"]
        assert after[2]["view"] == state(client, gid, **_from(after[2]))["view"]
        assert after[2]["view"]["hand"] is None
        assert after[1 - active]["legal"]  # now the other seat may act
        assert after[active]["legal"] == []


def test_actions_over_the_socket_and_their_refusals(client: TestClient) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=32)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        st = state(client, gid, tokens[0])
        active = st["view"]["active"]
        ws.send_json({"token": tokens[active]})
        _next_state(ws)
        ws.send_json({"type": "action", "version": 99, "action": {"type": "end-turn"}})
        message = ws.receive_json()
        while message["type"] != "error":
            message = ws.receive_json()
        assert message["error"]["code"] == "stale-version"
        ws.send_text("{not json")
        message = ws.receive_json()
        while message["type"] != "error":
            message = ws.receive_json()
        assert message["error"]["code"] == "malformed-json"
        ws.send_json({"type": "ping"})
        message = ws.receive_json()
        while message["type"] != "pong":
            message = ws.receive_json()
        ws.send_json({"type": "action", "version": 0, "action": {"type": "end-turn"}})
        assert _next_state(ws, 1)["view"]["active"] == 1 - active


def test_a_wrong_token_is_refused_and_the_socket_closed(client: TestClient) -> None:
    gid, _tokens = new_game(client, ["human", "human"], seed=33)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"token": "forged"})
        message = ws.receive_json()
        assert message["type"] == "error" and message["error"]["code"] == "wrong-token"
        closing = ws.receive()
        assert closing["type"] == "websocket.close" and closing["code"] == 4403


def test_presence_is_shown_to_the_others(client: TestClient) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=34)
    assert [s["connected"] for s in state(client, gid)["lobby"]["seats"]] == [False, False]
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"token": tokens[1]})
        _next_state(ws)
        assert [s["connected"] for s in state(client, gid)["lobby"]["seats"]] == [False, True]
    # The server notices the closed socket on its own loop: poll (bounded) until it has.
    wait_until(
        client,
        gid,
        None,
        lambda st: [s["connected"] for s in st["lobby"]["seats"]] == [False, False],
    )


def test_bot_moves_are_pushed(client: TestClient) -> None:
    gid, tokens = new_game(
        client, ["human", "bot"], seed=35, options={"win_floors": 4, "first_player": 0}
    )
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"token": tokens[0]})
        st = _next_state(ws)
        events = list(st["view"]["events"])
        ws.send_json({"type": "action", "version": st["version"], "action": {"type": "end-turn"}})
        for _ in range(500):
            st = _next_state(ws)
            events += st["view"]["events"]  # each push: the events not sent yet
            if (st["view"]["active"] == 0 and st["version"] > 1) or st["status"] == "over":
                break
        bot_actions = [e for e in events if e["type"] == "action" and e["seat"] == 1]
        assert (bot_actions and bot_actions[-1]["action"]["type"] == "end-turn") or st[
            "status"
        ] == "over"


def test_updates_cross_processes_through_redis(settings: Settings) -> None:
    """Two app instances share the database and a Redis: an action in one reaches the other."""

    shared = settings.with_(broadcast_url=REDIS_URL)
    with running(shared) as one, running(shared) as two:
        gid, tokens = new_game(one, ["human", "human"], seed=36)
        with two.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.send_json({"token": tokens[0]})
            st = _next_state(ws)
            active = st["view"]["active"]
            r = one.post(
                f"/api/games/{gid}/actions",
                json={"version": st["version"], "action": {"type": "end-turn"}},
                headers=auth(tokens[active]),
            )
            assert r.status_code == 200
            pushed = _next_state(ws, 1)
            assert pushed["view"]["active"] == 1 - active
            assert pushed["view"] == state(one, gid, tokens[0], **_from(pushed))["view"]


def test_a_finished_game_nobody_watches_leaves_memory_not_the_database(client: TestClient) -> None:
    from ..helpers import play_to_end

    gid, tokens = new_game(client, ["human", "human"], seed=37)
    final = play_to_end(client, gid, tokens, seed=3)
    service = client.app.state.service  # type: ignore[attr-defined]
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"token": None})
        _next_state(ws)
    for _ in range(1000):  # the server handles the closed socket on its own loop
        if service.registry.get(gid) is None:
            break
        time.sleep(0.005)
    assert service.registry.get(gid) is None
    assert state(client, gid, tokens[0])["view"] == final["view"]


def test_a_flood_of_socket_messages_is_refused(database_url: str) -> None:

    settings = Settings(database_url=database_url, bot_delay=0, rate_limit_per_minute=3)
    with running(settings) as client:
        created = client.post(
            "/api/games", json={"seats": [{"kind": "human"}] * 2, "name": "A"}
        ).json()
        with client.websocket_connect(f"/ws/games/{created['game_id']}") as ws:
            ws.send_json({"token": created["token"]})
            _next_state(ws)
            replies = []
            for _ in range(4):
                ws.send_json({"type": "ping"})
                message = ws.receive_json()
                while message["type"] == "state":
                    message = ws.receive_json()
                replies.append(message)
            assert [m["type"] for m in replies[:3]] == ["pong"] * 3
            assert replies[3]["error"]["code"] == "too-many-requests"
            # Closed: the flood is not read (nor answered) any more.
            closing = ws.receive()
            assert closing["type"] == "websocket.close" and closing["code"] == 4429, closing


def _closed_with_error(ws: WebSocketTestSession, code: str) -> dict[str, Any]:
    """The error message the socket answered, then its close with code 4400 (bad input)."""
    message = ws.receive_json()
    assert message["type"] == "error" and message["error"]["code"] == code, message
    closing = ws.receive()
    assert closing["type"] == "websocket.close" and closing["code"] == 4400, closing
    error: dict[str, Any] = message["error"]
    return error


def test_a_binary_first_message_is_refused_with_an_error_and_closed(client: TestClient) -> None:
    gid, _tokens = new_game(client, ["human", "human"], seed=38)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_bytes(b'{"token": null}')
        error = _closed_with_error(ws, "bad-request")
        assert "binary" in error["message"] and "token" in error["message"]


def test_a_first_message_that_is_not_a_token_object_is_refused(client: TestClient) -> None:
    """Only {"token": "..."} or {"token": null} opens the socket: nothing else is a spectator."""
    gid, _tokens = new_game(client, ["human", "human"], seed=39)
    for first in ("[1]", "{}", '"x"', "null", '{"token": null, "seat": 0}'):
        with client.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.send_text(first)
            assert "token" in _closed_with_error(ws, "bad-request")["message"], first
    for first in ('{"token": ""}', '{"token": null, "key": ""}'):  # (no seat's, nor a watcher's)
        with client.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.send_text(first)
            assert "non-empty" in _closed_with_error(ws, "bad-request")["message"], first
    for first in ("{not json", "[" * 10_000):
        with client.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.send_text(first)
            _closed_with_error(ws, "malformed-json")


def test_a_message_larger_than_a_request_body_closes_the_socket(client: TestClient) -> None:
    """Whatever runs the app (``gotown serve`` has uvicorn close at 64 KiB, uvicorn's own
    default is 16 MiB): a frame over ``max_body_bytes``, first or later, text or binary,
    closes the socket with 1009 (message too big) and is not read."""
    gid, tokens = new_game(client, ["human", "human"], seed=41)
    limit = client.app.state.service.settings.max_body_bytes  # type: ignore[attr-defined]
    # "é" is two bytes: a text of fewer characters than the limit but more bytes is over it.
    for frame in ('{"token": null, "x": "' + "é" * (limit // 2) + '"}', b"x" * (limit + 1)):
        with client.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.send_text(frame) if isinstance(frame, str) else ws.send_bytes(frame)
            closing = ws.receive()
            assert closing["type"] == "websocket.close" and closing["code"] == 1009, closing
            assert str(limit) in closing["reason"]
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"token": tokens[0]})
        _next_state(ws)
        ws.send_text(json.dumps({"type": "ping", "pad": " " * limit}))
        while (message := ws.receive())["type"] == "websocket.send":
            assert json.loads(message["text"])["type"] != "pong"
        assert message["type"] == "websocket.close" and message["code"] == 1009, message
    with client.websocket_connect(f"/ws/games/{gid}") as ws:  # just under it: read as usual
        ws.send_json({"token": tokens[0]})
        _next_state(ws)
        head, tail = '{"type": "ping", "pad": "', '"}'
        ping = head + " " * (limit - len(head) - len(tail)) + tail
        assert len(ping.encode()) == limit
        ws.send_text(ping)
        while (message := ws.receive_json())["type"] == "state":
            pass
        assert message["type"] == "pong"


def test_a_binary_frame_later_gets_an_error_and_the_socket_stays_open(client: TestClient) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=40)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"token": tokens[0]})
        _next_state(ws)
        for frame in (b"\x00\xff", b'{"type": "ping"}'):
            ws.send_bytes(frame)
            while (message := ws.receive_json())["type"] == "state":
                pass
            assert message["type"] == "error" and message["error"]["code"] == "bad-request"
            assert "binary" in message["error"]["message"]
        ws.send_text("[" * 10_000)
        while (message := ws.receive_json())["type"] == "state":
            pass
        assert message["type"] == "error" and message["error"]["code"] == "malformed-json"
        ws.send_json({"type": "ping"})
        while (message := ws.receive_json())["type"] == "state":
            pass
        assert message["type"] == "pong"


def test_socket_validation_errors_are_one_line_naming_the_fields_as_over_http(
    client: TestClient,
) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=41)
    active = state(client, gid, tokens[0])["view"]["active"]
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"token": tokens[active]})
        _next_state(ws)
        for body in (
            {"version": -1, "action": 5},
            {"action": {"type": "end-turn"}},
            {"version": "soon"},
        ):
            ws.send_json({"type": "action", **body})
            while (message := ws.receive_json())["type"] == "state":
                pass
            assert message["type"] == "error", message
            over_http = client.post(
                f"/api/games/{gid}/actions", json=body, headers=auth(tokens[active])
            )
            assert over_http.status_code == 422, over_http.text
            assert message["error"] == over_http.json()["error"], body
            assert "\n" not in message["error"]["message"]
        ws.send_json({"type": "action", "version": -1, "action": 5})
        while (message := ws.receive_json())["type"] == "state":
            pass
        words = message["error"]["message"]
        assert words.startswith("version: ") and "; action: " in words
        assert state(client, gid)["version"] == 0


def test_a_socket_whose_client_left_while_both_halves_answered_it_ends_quietly(
    client: TestClient,
) -> None:
    """Found in review: the client left while the server answered it, and the reading half sent
    (here a pong) after the pushing half had found the socket closed. Starlette refuses a send
    after the close with a RuntimeError, and the socket's handler ended in it ("Exception in
    ASGI application", with a traceback). It is the end of that connection, as any close; the
    seat is then away as after any other."""
    gid, tokens = new_game(client, ["human", "human"], seed=42)
    active = state(client, gid, tokens[0])["view"]["active"]
    watching = 1 - active
    service = client.app.state.service  # type: ignore[attr-defined]
    sent: list[Message] = []
    moves: list[asyncio.Task[Any]] = []
    failures: list[BaseException] = []

    async def client_leaves_while_answered() -> None:
        left = asyncio.Event()
        incoming: list[Message] = [
            {"type": "websocket.connect"},
            {"type": "websocket.receive", "text": json.dumps({"token": tokens[watching]})},
        ]

        async def receive() -> Message:
            if incoming:
                return incoming.pop(0)
            await left.wait()
            return {"type": "websocket.receive", "text": '{"type": "ping"}'}  # already sent

        async def send(message: Message) -> None:
            if message["type"] == "websocket.send" and any(
                m["type"] == "websocket.send" for m in sent
            ):
                left.set()  # the second state finds the socket gone (as uvicorn says it)
                raise OSError("the client left")
            sent.append(message)
            if message["type"] == "websocket.send":  # the first state: the other seat moves
                body = schemas.ActionIn(version=0, action={"type": "end-turn"})
                moves.append(asyncio.create_task(service.play.act(gid, tokens[active], body, "")))

        scope = {
            "type": "websocket",
            "asgi": {"version": "3.0"},
            "scheme": "ws",
            "path": f"/ws/games/{gid}",
            "raw_path": f"/ws/games/{gid}".encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [(b"host", b"testserver")],
            "client": ("testclient", 50000),
            "server": ("testserver", 80),
            "subprotocols": [],
        }
        try:
            await client.app(scope, receive, send)
        except Exception as exc:  # what uvicorn logs as "Exception in ASGI application"
            failures.append(exc)
        await asyncio.gather(*moves)

    client.portal.call(client_leaves_while_answered)  # type: ignore[union-attr]
    assert not failures, failures
    assert [m["type"] for m in sent] == ["websocket.accept", "websocket.send"]
    live = service.registry.get(gid)
    assert service.presence.sockets(live) == 0 and service.presence.sockets(live, watching) == 0
    after = state(client, gid)
    assert after["version"] == 1
    assert [s["connected"] for s in after["lobby"]["seats"]] == [False, False]


def test_an_action_over_a_socket_builds_no_full_view(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=66, options={"first_player": 0})
    game = store_end_turns(client, gid, 400)
    me = game.active
    held = game.event_count
    recorder = ViewRecorder(monkeypatch)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"token": tokens[me], "events_from": held})
        first = next_state(ws)
        assert first["events_from"] == held and first["view"]["events"] == []
        ws.send_json({"type": "action", "version": game.version, "action": {"type": "end-turn"}})
        pushed = next_state(ws)
    assert recorder.with_events() == []  # no view of every event, anywhere
    assert pushed["version"] == game.version + 1 and pushed["events_from"] == held
    game.apply(Action.end_turn())
    assert pushed["view"]["events"] == game.view(me).to_json()["events"][held:]


@pytest.mark.parametrize(
    "extra",
    [
        {"verison": 9},
        {"events_from": -5},
        {"events_from": "3"},
        {"version": True},
    ],
)
def test_a_socket_s_action_is_checked_whole_as_over_http(
    client: TestClient, extra: dict[str, Any]
) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=69, options={"first_player": 0})
    body = {"version": 0, "action": {"type": "end-turn"}, **extra}
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"token": tokens[0]})
        next_state(ws)
        ws.send_json({"type": "action", **body})
        ws.send_json({"type": "ping"})
        answers = []
        while (message := ws.receive_json())["type"] != "pong":
            answers.append(message)
    # One error, and no state: nothing changed.
    assert [m["type"] for m in answers] == ["error"], answers
    error = answers[0]["error"]
    over_http = client.post(f"/api/games/{gid}/actions", json=body, headers=auth(tokens[0]))
    assert over_http.status_code == 422, over_http.text
    assert error == over_http.json()["error"]
    assert state(client, gid)["version"] == 0


def _next_error(ws: WebSocketTestSession) -> dict[str, Any]:
    while (message := ws.receive_json())["type"] == "state":
        pass
    assert message["type"] == "error", message
    error: dict[str, Any] = message["error"]
    return error


def test_a_socket_message_that_cannot_be_read_says_why(client: TestClient) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=71)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"token": tokens[0]})
        next_state(ws)
        ws.send_text('{"type": "action", "version": ' + "1" * 5000 + "}")
        error = _next_error(ws)
        assert error["code"] == "malformed-json" and "digits" in error["message"]
        ws.send_text("[" * 5000)
        error = _next_error(ws)
        assert error["code"] == "malformed-json" and "nested too deeply" in error["message"]
