"""Hostile sockets: the caps on open sockets (per address, per game, the file-descriptor
reserve), and frames that are not text."""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from gotown.server import SERVING
from gotown.server.config import Settings
from gotown.server.main import create_app
from gotown.server.services import sockets as sockets_module

from .helpers import running, service_of


def _settings(tmp_path: Path, **changes: Any) -> Settings:
    values: dict[str, Any] = {
        "database_url": f"sqlite:///{tmp_path / 'caps.sqlite3'}",
        "bot_delay": 0,
        "rate_limit_per_minute": 0,
        "worker_processes": False,
    }
    return Settings(**{**values, **changes})


def _game(client: TestClient) -> str:
    created = client.post("/api/games", json={"seats": [{"kind": "human"}] * 2, "name": "A"})
    game_id: str = created.json()["game_id"]
    return game_id


def _watching(ws: WebSocketTestSession) -> None:
    ws.send_json({"token": None})
    assert ws.receive_json()["type"] == "state"


def _refused(ws: WebSocketTestSession, words: str) -> None:
    message = ws.receive_json()
    assert message["type"] == "error", message
    assert message["error"]["code"] == "too-many-requests" and words in message["error"]["message"]
    closing = ws.receive()
    assert closing["type"] == "websocket.close" and closing["code"] == 4429, closing


def test_open_sockets_per_address_are_capped_and_a_closed_one_frees_its_place(
    tmp_path: Path,
) -> None:
    with running(_settings(tmp_path, max_sockets_per_client=2)) as client:
        first, second = _game(client), _game(client)
        with client.websocket_connect(f"/ws/games/{first}") as a:
            _watching(a)
            with client.websocket_connect(f"/ws/games/{second}") as b:
                _watching(b)
                with client.websocket_connect(f"/ws/games/{second}") as c:
                    _refused(c, "from one address")
                assert service_of(client).sockets.by_client["testclient"] == 2
            with client.websocket_connect(f"/ws/games/{second}") as d:
                _watching(d)
        assert service_of(client).sockets.total == 0


def test_open_sockets_per_game_are_capped_other_games_still_served(tmp_path: Path) -> None:
    with running(_settings(tmp_path, max_sockets_per_game=1)) as client:
        full, other = _game(client), _game(client)
        with client.websocket_connect(f"/ws/games/{full}") as a:
            _watching(a)
            with client.websocket_connect(f"/ws/games/{full}") as b:
                _refused(b, "on one game")
            with client.websocket_connect(f"/ws/games/{other}") as c:
                _watching(c)


def test_near_the_descriptor_limit_it_warns_refuses_sockets_and_serves_http(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    in_use = {"now": 10}
    with running(_settings(tmp_path, fd_reserve=10)) as client:
        sockets = service_of(client).sockets
        monkeypatch.setattr(sockets, "_limit", lambda: 100)
        monkeypatch.setattr(sockets, "_in_use", lambda: in_use["now"])
        game = _game(client)
        with client.websocket_connect(f"/ws/games/{game}") as a:
            _watching(a)
        assert "file descriptors" not in caplog.text
        in_use["now"] = 85  # past 80% of the limit: a warning, the socket still admitted
        with caplog.at_level(logging.WARNING, logger="gotown.server.sockets"):
            with client.websocket_connect(f"/ws/games/{game}") as b:
                _watching(b)
            assert "85 of 100 file descriptors in use" in caplog.text
            in_use["now"] = 90  # into the reserve of 10: a spectator's is refused
            with client.websocket_connect(f"/ws/games/{game}") as c:
                c.send_json({"token": None})
                _refused(c, "as many live connections as it can")
        assert client.get(f"/api/games/{game}/state").status_code == 200
        assert sockets.total == 0


@pytest.mark.skipif(sys.platform != "linux", reason="other loopback addresses than 127.0.0.1")
def test_a_seat_s_socket_gets_in_where_other_addresses_hold_every_place(tmp_path: Path) -> None:
    """Eight addresses open spectator sockets until the server refuses more (the descriptors
    left for sockets), then the same as seats of tables of their own: a player's own socket,
    from another address, is still accepted each time (in the seats' share of the reserve, or
    in the place of a seat's socket of an address holding two more than the player, closed
    with 4429), and the server still answers HTTP."""
    reserve = 40
    app = create_app(_settings(tmp_path, fd_reserve=reserve))
    with _serving(app.state.settings, app) as (host, port):
        base = f"http://{host}:{port}"
        sockets = app.state.service.sockets
        # The descriptors of this process's own sockets only (here the clients' ends are in
        # the same process as the server's, and the closed ones linger a while).
        sockets._limit = lambda: reserve + 24
        sockets._in_use = lambda: sockets.total
        for kind in ("spectators", "seats"):
            held: list[ClientConnection] = []
            with contextlib.ExitStack() as stack:
                urls, firsts = {}, {}
                for a in range(8):
                    address = f"127.0.4.{a + 1}"
                    with httpx.Client(
                        base_url=base, transport=httpx.HTTPTransport(local_address=address)
                    ) as http:
                        created = http.post(
                            "/api/games", json={"seats": [{"kind": "human"}] * 2, "name": "A"}
                        ).json()
                    urls[address] = f"ws://{host}:{port}/ws/games/{created['game_id']}"
                    firsts[address] = json.dumps(
                        {"token": created["token"] if kind == "seats" else None}
                    )
                refused = 0
                while refused < len(urls):  # (each address one more a round, till none can)
                    refused = 0
                    for address, url in urls.items():
                        ws = stack.enter_context(_socket_from(address, url))
                        try:
                            ws.send(firsts[address])
                            answer = json.loads(ws.recv(timeout=10))
                        except ConnectionClosed:  # (refused before its first message)
                            answer = {"type": "closed"}
                        if answer["type"] == "state":
                            held.append(ws)
                        else:
                            refused += 1
                time.sleep(0.5)  # (the sockets closed to make room among them: closed)
                assert len(held) < 48, "the attackers were never refused: no test"
                held = [ws for ws in held if ws.close_code is None]  # (those the others kept)
                with httpx.Client(
                    base_url=base, transport=httpx.HTTPTransport(local_address="127.0.4.99")
                ) as http:
                    created = http.post(
                        "/api/games",
                        json={"seats": [{"kind": "human"}, {"kind": "bot"}], "name": "Me"},
                    ).json()
                    url = f"ws://{host}:{port}/ws/games/{created['game_id']}"
                    with _socket_from("127.0.4.99", url) as mine:
                        mine.send(json.dumps({"token": created["token"]}))
                        said = json.loads(mine.recv(timeout=10))
                        assert said["type"] == "state", (kind, said)
                        assert http.get(f"/api/games/{created['game_id']}/state").is_success
                closed = [ws for ws in held if ws.close_code is not None]
                deadline = time.monotonic() + 10
                while not closed and time.monotonic() < deadline:
                    time.sleep(0.05)
                    closed = [ws for ws in held if ws.state.name == "CLOSED"]
                # Spectators leave the seats their share; seats of other addresses make room.
                assert [ws.close_code for ws in closed] == ([] if kind == "spectators" else [4429])
            deadline = time.monotonic() + 10
            while sockets.total and time.monotonic() < deadline:
                time.sleep(0.05)


@pytest.mark.skipif(sys.platform != "linux", reason="other loopback addresses than 127.0.0.1")
def test_a_seat_s_socket_gets_in_while_sockets_closed_to_make_room_wait_for_their_clients(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Eight addresses open seat sockets of tables of their own until refused, taking places
    by closing each other's, and never read again nor answer a close: the server keeps the
    closed ones' connections open, waiting for the answer. A player's seat socket still gets
    in, in the place of one of theirs."""
    reserve, limit = 64, 104  # (the default reserve; 40 places for spectators)
    monkeypatch.setattr(sockets_module, "IN_USE_EVERY", 0.0)  # (counted at each socket)
    app = create_app(_settings(tmp_path, fd_reserve=reserve))
    with _uvicorn(app) as server, contextlib.ExitStack() as stack:
        host, port = server.config.host, server.config.port
        sockets = app.state.service.sockets
        # The descriptors: one for each of the server's connections, those it waits on included.
        sockets._limit = lambda: limit
        sockets._count_in_use = lambda: len(server.server_state.connections)
        for a in range(8):
            address = f"127.0.5.{a + 1}"
            with httpx.Client(
                base_url=f"http://{host}:{port}",
                transport=httpx.HTTPTransport(local_address=address),
            ) as http:
                created = http.post(
                    "/api/games", json={"seats": [{"kind": "human"}] * 2, "name": "A"}
                ).json()
            first = json.dumps({"token": created["token"]}).encode()
            path = f"/ws/games/{created['game_id']}"
            while (silent := _silent_socket(address, host, port, path, first)) is not None:
                stack.callback(silent.close)
        waiting = len(server.server_state.connections) - sockets.total
        assert waiting > 0, "no closed socket waiting for its client: no test"

        with (
            caplog.at_level(logging.INFO, logger="gotown.server.sockets"),
            httpx.Client(
                base_url=f"http://{host}:{port}",
                transport=httpx.HTTPTransport(local_address="127.0.5.99"),
            ) as http,
        ):
            created = http.post(
                "/api/games", json={"seats": [{"kind": "human"}, {"kind": "bot"}], "name": "Me"}
            ).json()
            url = f"ws://{host}:{port}/ws/games/{created['game_id']}"
            with _socket_from("127.0.5.99", url) as mine:
                mine.send(json.dumps({"token": created["token"]}))
                said = json.loads(mine.recv(timeout=10))
                assert said["type"] == "state", said
            assert http.get(f"/api/games/{created['game_id']}/state").is_success
        made_room = [r.getMessage() for r in caplog.records if "to make room" in r.getMessage()]
        assert len(made_room) == 1 and made_room[0].startswith("closing a seat's"), made_room
        assert made_room[0].endswith("for a seat's of a game under way of 127.0.5.99")


def _silent_socket(
    address: str, host: str, port: int, path: str, first: bytes
) -> socket.socket | None:
    """A WebSocket from ``address`` that sends ``first`` and reads the answer, then reads
    nothing more (so never answers a close); None when the answer is not a state (refused)."""
    conn = socket.create_connection((host, port), timeout=10, source_address=(address, 0))
    key = base64.b64encode(os.urandom(16)).decode()
    conn.sendall(
        (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    received = b""
    while b"\r\n\r\n" not in received:
        received += conn.recv(4096)
    head, _, received = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101"), head
    conn.sendall(_frame(0x1, first))
    while True:  # (one unfragmented frame from the server: unmasked)
        if len(received) >= 2:
            size, start = received[1] & 0x7F, 2
            if size >= 126:
                start = 4 if size == 126 else 10
                size = int.from_bytes(received[2:start], "big") if len(received) >= start else -1
            if size >= 0 and len(received) >= start + size:
                break
        chunk = conn.recv(65536)
        assert chunk, "the server dropped the connection"
        received += chunk
    if received[0] & 0x0F == 0x1 and json.loads(received[start : start + size])["type"] == "state":
        return conn
    conn.close()
    return None


@pytest.mark.skipif(sys.platform != "linux", reason="/proc/self/fd is Linux's")
def test_descriptors_are_counted_on_linux() -> None:
    limit, in_use = sockets_module.descriptor_limit(), sockets_module.descriptors_in_use()
    assert in_use is not None and in_use > 0
    assert limit is None or in_use < limit


@contextlib.contextmanager
def _serving(settings: Settings, app: Any = None) -> Iterator[tuple[str, int]]:
    """A real uvicorn server of ``app`` (else one made with ``settings``; its own logging left
    alone, so that its records reach caplog): its host and port."""
    with _uvicorn(app or create_app(settings)) as server:
        yield server.config.host, server.config.port


@contextlib.contextmanager
def _uvicorn(app: Any) -> Iterator[Any]:
    """The same, as the ``uvicorn.Server`` (its connections: ``server_state.connections``)."""
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None, **SERVING)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(1000):
        if server.started:
            break
        time.sleep(0.01)
    assert server.started
    try:
        yield server
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, int]]:
    with _serving(_settings(tmp_path)) as where:
        yield where


def _frame(opcode: int, payload: bytes) -> bytes:
    """A masked client frame (payload under 126 bytes)."""
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + masked


def test_a_text_frame_of_invalid_utf8_logs_no_error_nor_traceback(
    served: tuple[str, int], caplog: pytest.LogCaptureFixture
) -> None:
    host, port = served
    key = base64.b64encode(os.urandom(16)).decode()
    with socket.create_connection((host, port), timeout=5) as conn:
        conn.sendall(
            (
                f"GET /ws/games/nope HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += conn.recv(4096)
        assert answer.startswith(b"HTTP/1.1 101"), answer
        with caplog.at_level(logging.DEBUG):
            conn.sendall(_frame(0x1, b"\xff\xfe not UTF-8"))
            closing = b""
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                closing += chunk
            time.sleep(0.3)  # the server's side of the close, logged or not
    assert closing[:4] == b"\x88\x02" + (1007).to_bytes(2, "big"), closing  # 1007: not UTF-8
    loud = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert loud == [], [r.getMessage() for r in loud]
    said = [r for r in caplog.records if "UTF-8" in r.getMessage()]
    assert [r.levelname for r in said] == ["WARNING"]


def _socket_from(address: str, url: str) -> ClientConnection:
    return connect(url, source_address=(address, 0), open_timeout=10, close_timeout=5)


def _close_code(ws: ClientConnection) -> int | None:
    """Read until the server closes the socket: its close code."""
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            ws.recv(timeout=10)
    return closed.value.rcvd.code if closed.value.rcvd is not None else None


@pytest.mark.skipif(sys.platform != "linux", reason="other loopback addresses than 127.0.0.1")
def test_a_flood_of_messages_from_one_address_is_capped_across_its_sockets(
    tmp_path: Path,
) -> None:
    """The sockets of one address share one budget of messages a minute: a socket flooding
    is answered that many times at most and closed (4429); the address's other sockets are
    closed at their next message and its new ones refused at once, so that reconnecting
    does not start the flood again; meanwhile another address's requests and socket are
    served."""
    budget = 12
    with _serving(_settings(tmp_path, rate_limit_per_minute=budget)) as (host, port):
        base = f"http://{host}:{port}"
        with httpx.Client(
            base_url=base, transport=httpx.HTTPTransport(local_address="127.0.0.5")
        ) as creator:
            game = _game(creator)
        url = f"ws://{host}:{port}/ws/games/{game}"
        other = httpx.Client(
            base_url=base, transport=httpx.HTTPTransport(local_address="127.0.0.2")
        )
        with other, _socket_from("127.0.0.2", url) as watcher, contextlib.ExitStack() as stack:
            watcher.send(json.dumps({"token": None}))
            assert json.loads(watcher.recv(timeout=10))["type"] == "state"
            flooders = [stack.enter_context(_socket_from("127.0.0.3", url)) for _ in range(3)]
            for ws in flooders:
                ws.send(json.dumps({"token": None}))
                assert json.loads(ws.recv(timeout=10))["type"] == "state"
            first, *rest = flooders
            with contextlib.suppress(ConnectionClosed):  # (closed before all of it is sent)
                for _ in range(5 * budget):
                    first.send(json.dumps({"type": "ping"}))
            # While the flood is read: the other address's requests are all answered.
            for _ in range(budget - 2):
                assert other.get(f"/api/games/{game}/state").status_code == 200
            answers = []
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    answers.append(json.loads(first.recv(timeout=10)))
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
            assert [a["type"] for a in answers] == ["pong"] * budget + ["error"], answers
            assert answers[-1]["error"]["code"] == "too-many-requests"
            assert "from one address" in answers[-1]["error"]["message"]
            for ws in rest:  # the address's budget is spent: its other sockets close at once
                ws.send(json.dumps({"type": "ping"}))
                assert _close_code(ws) == 4429
            with _socket_from("127.0.0.3", url) as again:  # and a new one is refused
                first_message = json.loads(again.recv(timeout=10))
                assert first_message["type"] == "error", first_message
                assert first_message["error"]["code"] == "too-many-requests"
                assert _close_code(again) == 4429
            watcher.send(json.dumps({"type": "ping"}))  # the other address's socket: served
            assert json.loads(watcher.recv(timeout=10)) == {"type": "pong"}


def test_sockets_are_not_compressed_so_that_an_open_one_costs_little_memory(
    served: tuple[str, int],
) -> None:
    """SERVING: a client that offers permessage-deflate (as browsers do) is not given it."""
    host, port = served
    game_id = httpx.post(
        f"http://{host}:{port}/api/games", json={"seats": [{"kind": "human"}] * 2, "name": "A"}
    ).json()["game_id"]
    with connect(f"ws://{host}:{port}/ws/games/{game_id}", compression="deflate") as ws:
        ws.send(json.dumps({"token": None}))
        assert json.loads(ws.recv(timeout=10))["type"] == "state"
        assert ws.protocol.extensions == []
