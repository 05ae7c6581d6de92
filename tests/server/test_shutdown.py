"""How a server process stops on SIGTERM (a service manager's stop, a rolling upgrade): it stops
accepting, closes every socket with 1012 at once, lets a bot's move under way finish and stores
it, loses no acknowledged action, and exits within its set time when a bot never answers.

Real ``gotown serve`` processes (bots in worker processes, as in production), real signals."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from gotown.server.storage import Store

from .helpers import choose

ROOT = Path(__file__).resolve().parents[2]
#: How a server that stopped in order ends: uvicorn raises the signal it handled once it is
#: done, so the process ends "killed by SIGTERM", which service managers count as a clean stop
#: (systemd: a success; Docker: exit status 143).
STOPPED = -signal.SIGTERM


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class ServerDownError(Exception):
    """Nobody answers on the port."""


def _call(port: int, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=None if body is None else json.dumps(body).encode(),
        method=method,
        headers={"Content-Type": "application/json", **({"X-Seat-Token": token} if token else {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read() or b"null")
    except OSError as exc:
        raise ServerDownError from exc


def _until(condition: Any, what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"still not {what} after {seconds} s"
        time.sleep(0.02)


@contextmanager
def _server(tmp_path: Path, **env: str) -> Iterator[tuple[subprocess.Popen[bytes], int, str]]:
    """``gotown serve`` (gated bots: :mod:`.gated_server`) on a SQLite file; its process, port
    and database URL. Killed at the end if it still runs."""
    port = _free_port()
    url = f"sqlite:///{tmp_path / 'stop.sqlite3'}"
    environment = {
        **os.environ,
        "GOTOWN_DATABASE_URL": url,
        "GOTOWN_RATE_LIMIT": "0",
        "GOTOWN_BOT_DELAY": "0",
        "GOTOWN_ALLOW_SEED": "true",
        "GOTOWN_GATE_DIR": str(tmp_path),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        **env,
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.server.gated_server", "serve", "--port", str(port)],
        env=environment, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:

        def answers() -> bool:
            assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
            try:
                return bool(_call(port, "GET", "/healthz")[0] == 200)
            except ServerDownError:
                return False

        _until(answers, "answering")
        yield process, port, url
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


def _new_game(port: int, seats: list[dict[str, Any]], **options: Any) -> tuple[str, str]:
    body = _create(port, seats, **options)
    return body["game_id"], body["token"]


def _create(port: int, seats: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    status, body = _call(port, "POST", "/api/games",
                         {"name": "Ada", "seats": seats, "options": options})  # fmt: skip
    assert status == 201, body
    created: dict[str, Any] = body
    return created


def test_sigterm_closes_sockets_with_1012_and_stores_the_bots_move_under_way(
    tmp_path: Path,
) -> None:
    with _server(tmp_path, GOTOWN_SHUTDOWN_SECONDS="30") as (process, port, url):
        # The bot (seat 0, expert: gated) moves first.
        game_id, token = _new_game(
            port, [{"kind": "bot", "level": "expert"}, {"kind": "human"}], first_player=0
        )
        with connect(f"ws://127.0.0.1:{port}/ws/games/{game_id}") as ws:
            ws.send(json.dumps({"token": token}))
            assert json.loads(ws.recv(timeout=10))["state"]["version"] == 0
            _until(lambda: (tmp_path / "thinking").exists(), "thinking")
            stopped_at = time.monotonic()
            process.send_signal(signal.SIGTERM)
            try:
                while True:
                    ws.recv(timeout=10)
            except ConnectionClosed as closed:
                assert closed.rcvd is not None and closed.rcvd.code == 1012, closed
            assert time.monotonic() - stopped_at < 5, "the socket was not closed at once"
        # It accepts nothing more, and waits for the bot.
        _until(lambda: _refused(port), "refusing connections")
        assert process.poll() is None, "it exited before the bot's move was stored"
        (tmp_path / "release").touch()
        assert process.wait(timeout=30) == STOPPED
    store = Store(url)
    try:
        record = store.load_game(game_id)
        # (Its next moves too, when they were made before the server began to drain.)
        assert record is not None and len(record.actions) >= 1, "the bot's move was not stored"
    finally:
        store.dispose()


def _refused(port: int) -> bool:
    try:
        _call(port, "GET", "/healthz")
    except ServerDownError:
        return True
    return False


def test_sigterm_exits_within_its_time_when_a_bot_never_answers(tmp_path: Path) -> None:
    with _server(tmp_path, GOTOWN_SHUTDOWN_SECONDS="2") as (process, port, url):
        game_id, _ = _new_game(
            port, [{"kind": "bot", "level": "expert"}, {"kind": "human"}], first_player=0
        )
        _until(lambda: (tmp_path / "thinking").exists(), "thinking")
        stopped_at = time.monotonic()
        process.send_signal(signal.SIGTERM)
        # 2 s for requests (none), 2 s for the bot, 3 s for its worker to end: well within 15.
        assert process.wait(timeout=15) == STOPPED
        took = time.monotonic() - stopped_at
    assert took >= 2, f"it did not wait for the bot ({took:.1f} s)"
    store = Store(url)
    try:
        record = store.load_game(game_id)
        assert record is not None and record.actions == []  # (nothing was acknowledged)
    finally:
        store.dispose()


def test_no_acknowledged_action_is_lost_when_stopped_mid_play(tmp_path: Path) -> None:
    acked: dict[str, dict[int, dict[str, Any]]] = {}
    with _server(tmp_path) as (process, port, url):
        games = []
        for _ in range(3):
            created = _create(port, [{"kind": "human"}, {"kind": "human"}])
            game_id, code = created["game_id"], created["invite_url"].rsplit("/", 1)[1]
            joined = _call(port, "POST", f"/api/games/{game_id}/join",
                           {"code": code, "name": "Bo"})[1]  # fmt: skip
            games.append((game_id, [created["token"], joined["token"]]))
        rng = random.Random(42)

        def stop_mid_play() -> None:  # (from another thread: a request may be under way)
            _until(lambda: sum(map(len, acked.values())) >= 30, "30 actions in")
            process.send_signal(signal.SIGTERM)

        stop = threading.Thread(target=stop_mid_play, daemon=True)
        stop.start()
        try:
            playing = True
            while playing:
                for game_id, tokens in games:
                    try:
                        for token in tokens:
                            _, st = _call(port, "GET", f"/api/games/{game_id}/state", token=token)
                            if st["legal"]:
                                break
                        else:
                            continue
                        action = choose(st["legal"], rng)
                        body = {"version": st["version"], "action": action}
                        path = f"/api/games/{game_id}/actions"
                        status, _ = _call(port, "POST", path, body, token)
                    except ServerDownError:
                        playing = False
                        break
                    if status == 200:
                        acked.setdefault(game_id, {})[st["version"]] = action
        finally:
            stop.join(timeout=60)
        assert process.wait(timeout=30) == STOPPED
    store = Store(url)
    try:
        for game_id, actions in acked.items():
            record = store.load_game(game_id)
            assert record is not None
            for version, action in actions.items():
                assert record.actions[version] == action, (game_id, version)
    finally:
        store.dispose()
