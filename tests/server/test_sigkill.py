"""A kill -9 mid-play loses no acknowledged action: a real server process on SQLite is killed
while clients play several games, started again on the same database, and every action it
answered 200 is found there, as it was sent. Nor a turn-based table's deadline or notice: a
server killed mid-week and started again on its clock (``GOTOWN_CLOCK_OFFSET`` carried over)
fires each deadline that passed meanwhile once, and sends each notice once."""

from __future__ import annotations

import http.client
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

from sqlalchemy import select

from gotown.server.notify.vapid import VapidKey
from gotown.server.storage import Store
from gotown.server.storage_turns import seconds_of
from gotown.server.tables import GameRow, NoticeRow, SeatRow

from .helpers import choose
from .notify.push_service import BrowserSubscription, PushService

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
    except (OSError, http.client.HTTPException) as exc:  # (killed mid-answer: IncompleteRead)
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


# --- turn-based tables: deadlines and notices across a kill -9 --------------------------------

DAY = 24 * 3600
TIMED_TABLES = 16


def _wait(done: Any, what: str, polls: int = 3000) -> None:
    """Poll ``done()`` until it is true (bounded by count: the server's clock is moved, never
    waited for)."""
    for _ in range(polls):
        if done():
            return
        time.sleep(0.01)
    raise AssertionError(f"never happened: {what}")


def _turns(store: Store, ids: list[str]) -> dict[str, tuple[int | None, float | None]]:
    """Each table's seat to play and its turn's deadline, as stored."""
    query = select(GameRow.id, GameRow.turn_seat, GameRow.deadline_at).where(GameRow.id.in_(ids))
    with store.engine.connect() as connection:
        return {
            row[0]: (row[1], None if row[2] is None else seconds_of(row[2]))
            for row in connection.execute(query)
        }


def _missed(store: Store, ids: list[str]) -> dict[str, int]:
    """Each table's missed turns, all seats together."""
    query = select(SeatRow.game_id, SeatRow.missed).where(SeatRow.game_id.in_(ids))
    found = dict.fromkeys(ids, 0)
    with store.engine.connect() as connection:
        for game_id, missed in connection.execute(query):
            found[game_id] += missed
    return found


def _pending(store: Store) -> int:
    with store.engine.connect() as connection:
        return len(connection.execute(select(NoticeRow.game_id)).all())


def _delivered(push: PushService, phones: dict[int, BrowserSubscription]) -> list[tuple[str, ...]]:
    """Every notice delivered: (table, seat, urgency: "normal" your turn, "high" reminder)."""
    seat_of = {phone.id: seat for seat, phone in phones.items()}
    found = []
    for message in push.messages():
        assert message.problem == "", message.problem
        game_id = message.json["url"].rsplit("/", 1)[1]
        found.append((game_id, str(seat_of[message.subscription]), message.headers["urgency"]))
    return sorted(found)


def test_deadlines_and_notices_due_while_the_server_was_down_fire_once_when_it_is_back(
    tmp_path: Path,
) -> None:
    database_url = f"sqlite:///{tmp_path / 'week.sqlite3'}"
    vapid = tmp_path / "vapid.pem"
    port = _free_port()
    with PushService(VapidKey.load_or_create(vapid).application_server_key) as push:
        extra = {
            "GOTOWN_TEST_CLOCK": "1",
            "GOTOWN_BOT_DELAY": "0",
            "GOTOWN_VAPID_KEY_FILE": str(vapid),
            "GOTOWN_VAPID_CONTACT": "mailto:operator@example.org",
            "GOTOWN_PUSH_SERVICES": push.origin,
        }
        server = _start(database_url, port, extra)
        store = Store(database_url)
        try:
            keys, phones = {}, {}
            for seat, name in enumerate(("Ann", "Bob")):
                status, made = _call(port, "POST", "/api/players", {"name": name})
                assert status == 201, made
                keys[seat] = {"X-Player-Key": made["key"]}
                phones[seat] = push.subscribe()
                body = {**phones[seat].to_json(), "language": "en"}
                status, _ = _call(
                    port, "POST", "/api/me/subscriptions/push", body, headers=keys[seat]
                )
                assert status == 201
            ids = []
            for index in range(TIMED_TABLES):  # half end a missed turn, half let a bot play it
                body = {
                    "name": "Ann", "seats": [{"kind": "human"}] * 2, "pace": DAY,
                    "options": {"first_player": 0},
                    "on_timeout": "end" if index % 2 else "bot:easy",
                }  # fmt: skip
                status, created = _call(port, "POST", "/api/games", body, headers=keys[0])
                assert status == 201, created
                code = str(created["invite_url"]).rsplit("/", 1)[1]
                path = f"/api/games/{created['game_id']}/join"
                status, joined = _call(
                    port, "POST", path, {"code": code, "name": "Bob"}, headers=keys[1]
                )
                assert status == 200, joined
                ids.append(created["game_id"])
            # Monday: each table begins at Ann's turn (one notice each); Tuesday at 19:00,
            # a quarter of her day left, one reminder each.
            expected = sorted((g, "0", "normal") for g in ids)
            _wait(lambda: _delivered(push, phones) == expected, "Ann told of each table")
            status, moved = _call(port, "POST", "/api/test/clock", {"advance": 0.8 * DAY})
            assert status == 200, moved
            expected = sorted(expected + [(g, "0", "high") for g in ids])
            _wait(lambda: _delivered(push, phones) == expected, "Ann reminded of each table")
            _wait(lambda: _pending(store) == 0, "every notice recorded as sent")
            first = _turns(store, ids)

            # Killed Tuesday evening, started again a day later: every deadline of Ann's passed
            # while it was down, and fires once now; whoever's turn follows is told once.
            server.send_signal(signal.SIGKILL)
            server.wait()
            offset = moved["offset"] + DAY
            server = _start(database_url, port, {**extra, "GOTOWN_CLOCK_OFFSET": str(offset)})

            def all_fired(before: dict[str, tuple[int | None, float | None]]) -> bool:
                now = _turns(store, ids)
                return all(
                    now[g][1] is not None and now[g][1] > (before[g][1] or 0) + DAY / 2 for g in ids
                )

            _wait(lambda: all_fired(first), "every deadline missed while down fired")
            second = _turns(store, ids)
            assert _missed(store, ids) == dict.fromkeys(ids, 1)
            expected = sorted(expected + [(g, str(second[g][0]), "normal") for g in ids])
            _wait(lambda: _delivered(push, phones) == expected, "the next seat told of each table")
            _wait(lambda: _pending(store) == 0, "every notice recorded as sent")

            # The next deadlines fall due together, and the server is killed while it fires
            # them, its phones' push service failing meanwhile (nothing is delivered before the
            # kill, so that nothing can be delivered and not recorded).
            for phone in phones.values():
                push.set_answer(phone, 503)
            status, moved = _call(port, "POST", "/api/test/clock", {"advance": DAY + 60})
            assert status == 200, moved
            _wait(lambda: sum(_missed(store, ids).values()) > TIMED_TABLES, "a deadline fired")
            server.send_signal(signal.SIGKILL)
            server.wait()
            for phone in phones.values():
                push.set_answer(phone, 201)
            server = _start(
                database_url, port, {**extra, "GOTOWN_CLOCK_OFFSET": str(moved["offset"])}
            )
            _wait(lambda: all_fired(second), "every deadline left at the kill fired")
            assert _missed(store, ids) == dict.fromkeys(ids, 2)
            # The notices that failed, or were under way at the kill, are due again once their
            # back-off (at most a minute) and any claim of the killed process (two) are over.
            status, _ = _call(port, "POST", "/api/test/clock", {"advance": 300})
            assert status == 200
            third = _turns(store, ids)
            expected = sorted(expected + [(g, str(third[g][0]), "normal") for g in ids])
            _wait(lambda: _delivered(push, phones) == expected, "the next seat told of each table")
            _wait(lambda: _pending(store) == 0, "every notice recorded as sent")
            assert _delivered(push, phones) == expected  # none twice
        finally:
            server.kill()
            server.wait()
            store.dispose()
