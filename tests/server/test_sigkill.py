"""A kill -9 mid-play loses no acknowledged action: a real server process on SQLite is killed
while clients play several games, started again on the same database, and every action it
answered 200 is found there, as it was sent."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from gotown.server.storage import Store

from .helpers import choose

GAMES = 3


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _start(
    database_url: str, port: int, extra: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """A server process on ``port`` (``extra``: more of its environment), once it answers."""
    env = {
        **os.environ,
        "GOTOWN_DATABASE_URL": database_url,
        "GOTOWN_RATE_LIMIT": "0",
        "GOTOWN_WORKER_PROCESSES": "false",
        **(extra or {}),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "--factory", "gotown.server.main:create_app_from_env",
         "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if _call(port, "GET", "/healthz")[0] == 200:
                return process
        except KilledError:
            time.sleep(0.1)
    process.kill()
    raise AssertionError("the server did not start")


class KilledError(Exception):
    """The server did not answer: it was killed."""


def _call(
    port: int,
    method: str,
    path: str,
    body: Any = None,
    token: str | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any]:
    """One request: its status and JSON answer; :class:`KilledError` when nobody answers."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=None if body is None else json.dumps(body).encode(),
        method=method,
        headers={
            "Content-Type": "application/json",
            **({"X-Seat-Token": token} if token else {}),
            **(headers or {}),
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read() or b"null")
    except OSError as exc:
        raise KilledError from exc


def _new_game(port: int) -> tuple[str, dict[int, str]]:
    seats = {"seats": [{"kind": "human"}] * 2, "name": "A"}
    status, body = _call(port, "POST", "/api/games", seats)
    assert status == 201, body
    code = str(body["invite_url"]).rsplit("/", 1)[1]
    path = f"/api/games/{body['game_id']}/join"
    status, joined = _call(port, "POST", path, {"code": code, "name": "B"})
    assert status == 200, joined
    return body["game_id"], {body["seat"]: body["token"], joined["seat"]: joined["token"]}


def test_every_acknowledged_action_survives_a_sigkill(tmp_path: Path) -> None:
    database_url = f"sqlite:///{tmp_path / 'kill.sqlite3'}"
    port = _free_port()
    server = _start(database_url, port)
    acked: dict[str, dict[int, dict[str, Any]]] = {}  # game -> version -> action
    rng = random.Random(28)
    killer = threading.Timer(3.0, lambda: server.send_signal(signal.SIGKILL))
    try:
        games = [_new_game(port) for _ in range(GAMES)]
        killer.start()
        playing = True
        while playing:
            for game_id, tokens in games:
                try:
                    for token in tokens.values():
                        _, st = _call(port, "GET", f"/api/games/{game_id}/state", token=token)
                        if st["legal"]:
                            break
                    else:
                        continue
                    action = choose(st["legal"], rng)
                    body = {"version": st["version"], "action": action}
                    status, _ = _call(port, "POST", f"/api/games/{game_id}/actions", body, token)
                except KilledError:
                    playing = False
                    break
                if status == 200:
                    acked.setdefault(game_id, {})[st["version"]] = action
    finally:
        killer.cancel()
        server.kill()
        server.wait()
    assert sum(map(len, acked.values())) >= 10, "too few actions before the kill to mean much"
    restarted = _start(database_url, port)  # (it replays every stored game)
    try:
        store = Store(database_url)
        try:
            for game_id, actions in acked.items():
                record = store.load_game(game_id)
                assert record is not None
                for version, action in actions.items():
                    assert version < len(record.actions), (game_id, version)
                    assert record.actions[version] == action, (game_id, version)
                _, st = _call(port, "GET", f"/api/games/{game_id}/state")
                assert st["version"] == len(record.actions)
        finally:
            store.dispose()
    finally:
        restarted.terminate()
        restarted.wait(timeout=30)
