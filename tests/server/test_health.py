"""``/healthz``, ``/readyz`` and the operator port: ready when the database answers at this
code's schema and Redis answers; unready, saying which, when the database goes away (a
PostgreSQL database renamed under a running server), its schema is behind, or Redis stops."""

from __future__ import annotations

import json
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from gotown.server.config import Settings
from gotown.server.main import create_app
from gotown.server.storage import Store
from gotown.server.storage_admin import head_revision

from .helpers import create_database_if_missing, running

TOKEN = "operator-token-for-tests-0123456789"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _until_ready(client: TestClient, ready: bool) -> dict[str, Any]:
    """/readyz until it says ``ready`` (an answer serves a second: wait for the next)."""
    deadline = time.monotonic() + 30
    while True:
        r = client.get("/readyz")
        assert r.status_code == (200 if r.json()["ready"] else 503)
        if r.json()["ready"] == ready:
            answer: dict[str, Any] = r.json()
            return answer
        assert time.monotonic() < deadline, f"/readyz still says {r.json()}"
        time.sleep(0.05)


def test_healthz_and_readyz_when_all_is_well(settings: Settings) -> None:
    with running(settings) as client:
        assert client.get("/healthz").json() == {"ok": True}
        r = client.get("/readyz")
        assert r.status_code == 200
        assert r.json() == {
            "ready": True,
            "checks": {"database": "ok", "migrations": f"ok ({head_revision()})"},
        }


def test_readyz_is_unready_while_the_process_stops(settings: Settings) -> None:
    with running(settings) as client:
        client.app.state.operations.stopping = True  # type: ignore[attr-defined]
        r = client.get("/readyz")
        assert r.status_code == 503 and r.json()["checks"] == {"process": "stopping"}
        assert client.get("/healthz").status_code == 200  # (alive all the same)


def test_readyz_names_a_schema_behind_the_code(settings: Settings) -> None:
    with running(settings) as client:
        store = Store(settings.database_url)
        try:
            with store.engine.begin() as connection:
                connection.execute(text("UPDATE alembic_version SET version_num = '0002'"))
            answer = _until_ready(client, False)
            assert "the database is at 0002" in answer["checks"]["migrations"]
            assert f"this server's schema is {head_revision()}" in answer["checks"]["migrations"]
            with store.engine.begin() as connection:
                connection.execute(
                    text("UPDATE alembic_version SET version_num = :v"), {"v": head_revision()}
                )
            _until_ready(client, True)
        finally:
            store.dispose()


@pytest.fixture
def own_postgres(postgres_url: str) -> Iterator[str]:
    """A PostgreSQL database of this test's own (it is renamed under the server)."""
    url = make_url(postgres_url).set(database=f"{make_url(postgres_url).database}_ready")
    own = url.render_as_string(hide_password=False)
    create_database_if_missing(own)
    yield own
    admin = create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            for name in (url.database, f"{url.database}_gone"):
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


def _rename(url: str, old: str, new: str) -> None:
    """Rename a database, its open sessions ended first (a pool may reconnect meanwhile: then
    again)."""
    admin = create_engine(make_url(url).set(database="postgres"), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            for _ in range(50):
                connection.execute(
                    text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                         "WHERE datname = :d AND pid <> pg_backend_pid()"), {"d": old},
                )  # fmt: skip
                try:
                    connection.execute(text(f'ALTER DATABASE "{old}" RENAME TO "{new}"'))
                    return
                except Exception:  # (a session came back in between)
                    continue
            raise AssertionError(f"could not rename {old}")
    finally:
        admin.dispose()


@pytest.mark.postgres
def test_readyz_is_unready_when_the_database_is_gone(own_postgres: str) -> None:
    name = str(make_url(own_postgres).database)
    settings = Settings(database_url=own_postgres, operator_token=TOKEN, worker_processes=False)
    with running(settings) as client:
        _until_ready(client, True)
        errors_before = _metric(client, "gotown_database_errors_total")
        _rename(own_postgres, name, f"{name}_gone")
        try:
            answer = _until_ready(client, False)
            assert answer["checks"]["database"].startswith("no answer")
            # The players are told to try again, and the operator sees it counted.
            refused = client.post("/api/games", json={"seats": [{"kind": "human"}] * 2})
            assert refused.status_code == 503, refused.text
            assert refused.json()["error"]["code"] == "storage-unavailable"
            assert _metric(client, "gotown_database_errors_total") > errors_before
        finally:
            _rename(own_postgres, f"{name}_gone", name)
        _until_ready(client, True)
        assert client.post("/api/games", json={"seats": [{"kind": "human"}] * 2}).status_code == 201


def _metric(client: TestClient, name: str) -> float:
    text_ = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).text
    for line in text_.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"no {name} in /metrics")


def _redis_server(port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return process
        except OSError:
            pass
        assert time.monotonic() < deadline, "redis-server did not start"
        time.sleep(0.02)


def test_readyz_is_unready_when_redis_stops(settings: Settings) -> None:
    port = _free_port()
    redis = _redis_server(port)
    shared = settings.with_(broadcast_url=f"redis://127.0.0.1:{port}/0", operator_token=TOKEN)
    try:
        with running(shared) as client:
            assert _until_ready(client, True)["checks"]["redis"] == "ok"
            errors_before = _metric(client, "gotown_redis_errors_total")
            redis.terminate()
            redis.wait(timeout=30)
            answer = _until_ready(client, False)
            assert answer["checks"]["redis"].startswith("no answer")
            assert answer["checks"]["database"] == "ok"
            assert _metric(client, "gotown_redis_errors_total") > errors_before
            redis = _redis_server(port)
            _until_ready(client, True)
    finally:
        redis.terminate()
        redis.wait(timeout=30)


def test_metrics_on_the_public_port_only_for_the_operators_token(settings: Settings) -> None:
    with running(settings) as client:
        assert client.get("/metrics").status_code == 404  # (no token set: not served here)
    with running(settings.with_(operator_token=TOKEN)) as client:
        r = client.get("/metrics")
        assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Bearer")
        wrong = client.get("/metrics", headers={"Authorization": "Bearer " + "x" * len(TOKEN)})
        assert wrong.status_code == 401
        right = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        assert right.status_code == 200 and right.headers["content-type"].startswith("text/plain")
        assert "gotown_sockets_open 0.0" in right.text
        assert "process_resident_memory_bytes" in right.text


def _get(port: int, path: str, method: str = "GET") -> tuple[int, str]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode()


def test_the_operator_port_serves_metrics_and_health_without_a_token(settings: Settings) -> None:
    port = _free_port()
    with running(settings.with_(operator_port=port)):
        status, body = _get(port, "/metrics")
        assert status == 200 and "gotown_tables_open" in body
        assert _get(port, "/healthz") == (200, '{"ok":true}')
        status, body = _get(port, "/readyz")
        assert status == 200 and json.loads(body)["ready"] is True
        assert _get(port, "/api/meta")[0] == 404  # (the game is not served there)
        assert _get(port, "/metrics", "POST")[0] == 405


def test_an_operator_port_in_use_stops_the_start_naming_it(settings: Settings) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        app = create_app(settings.with_(operator_port=port))
        with pytest.raises(OSError, match="GOTOWN_OPERATOR_PORT"), TestClient(app):
            pass


def test_every_process_serves_its_own_metrics(settings: Settings) -> None:
    """Two processes: each operator port answers with its own sockets."""
    from .helpers import REDIS_URL, new_game

    ports = _free_port(), _free_port()
    shared = settings.with_(broadcast_url=REDIS_URL)
    with (
        running(shared.with_(operator_port=ports[0])) as one,
        running(shared.with_(operator_port=ports[1])),
    ):
        game_id, tokens = new_game(one, ["human", "human"])
        with one.websocket_connect(f"/ws/games/{game_id}") as ws:
            ws.send_json({"token": tokens[0]})
            assert ws.receive_json()["type"] == "state"
            assert "gotown_sockets_open 1.0" in _get(ports[0], "/metrics")[1]
            assert "gotown_sockets_open 0.0" in _get(ports[1], "/metrics")[1]
