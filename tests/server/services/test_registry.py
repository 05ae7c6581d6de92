"""The games held in memory (:mod:`gotown.server.services.registry`): loaded, checked,
dropped when idle."""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gotown.server.config import Settings

from ..helpers import (
    auth,
    new_game,
    play_to_end,
    refused,
    running,
    settled,
    slow_bots,
    state,
    wait_until,
)


def test_a_game_whose_end_was_not_marked_is_over_after_a_restart(settings: Settings) -> None:
    """The last action is stored before the status: a stop in between must not leave the game
    'playing' forever (no replay, no rematch)."""
    with running(settings) as client:
        gid, tokens = new_game(client, ["human", "human"], seed=5)
        assert play_to_end(client, gid, tokens, seed=2)["status"] == "over"
        client.app.state.service.store.set_status(gid, "playing")  # type: ignore[attr-defined]
    with running(settings) as client:
        assert state(client, gid)["status"] == "over"
        assert client.app.state.service.store.load_game(gid).status == "over"  # type: ignore[attr-defined]
        assert client.get(f"/api/games/{gid}/replay").status_code == 200


def test_an_id_or_code_no_game_can_have_is_unknown_on_every_database(client: TestClient) -> None:
    """Found in review: on PostgreSQL (whose text cannot hold a NUL character) a NUL in a game id
    or an invitation code was a 500 on every route that looked it up; SQLite answered 404."""
    gid, tokens = new_game(client, ["human", "human"], seed=11)
    before = state(client, gid, tokens[0])
    action = {"version": before["version"], "action": {"type": "end-turn"}}
    for bad in ("x%00y", "%00", f"{gid}%00"):
        for path in ("state", "lobby", "replay", "hint", "chances"):
            r = client.get(f"/api/games/{bad}/{path}", headers=auth(tokens[0]))
            refused(r, 404, "unknown-game")
        for path, body in (
            ("actions", action),
            ("join", {"code": "abc", "name": "Eve"}),
            ("seats/1/bot", None),
            ("reclaim", None),
            ("rematch", None),
        ):
            r = client.post(f"/api/games/{bad}/{path}", json=body, headers=auth(tokens[0]))
            refused(r, 404, "unknown-game")
        for path in (f"/api/invitations/{bad}", f"/api/invitations/{bad}/qr.svg"):
            refused(client.get(path), 404, "unknown-invitation")
        with client.websocket_connect(f"/ws/games/{bad}") as ws:
            ws.send_json({"token": tokens[0]})
            message = ws.receive_json()
            assert message["type"] == "error" and message["error"]["code"] == "unknown-game"
            closing = ws.receive()
            assert closing["type"] == "websocket.close" and closing["code"] == 4404
    assert state(client, gid, tokens[0]) == before


class LoadCounter:
    """Wraps the store's ``load_game``: how many times each game was read from the database."""

    def __init__(self, service: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.loads: list[str] = []
        original = service.store.load_game

        def counting(game_id: str) -> Any:
            self.loads.append(game_id)
            return original(game_id)

        monkeypatch.setattr(service.store, "load_game", counting)


def _everything_seen(client: TestClient, gid: str, tokens: dict[int, str]) -> list[Any]:
    seen: list[Any] = []
    for token in (None, *tokens.values()):
        r = client.get(f"/api/games/{gid}/state", headers=auth(token))
        assert r.status_code == 200, r.text
        seen.append(r.json())
    return seen


def _evict(client: TestClient, service: Any) -> list[str]:
    """Age every game held in memory past the idle time, then sweep once (in the server's
    loop, as the sweeper does)."""
    for live in service.registry.games():
        live.used -= service.settings.idle_game_seconds + 1
    evicted: list[str] = client.portal.call(service.registry.evict_idle)  # type: ignore[union-attr]
    return evicted


def test_an_idle_game_leaves_memory_and_comes_back_unchanged(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = client.app.state.service  # type: ignore[attr-defined]
    assert service.settings.idle_game_seconds == 600  # the default
    gid, tokens = new_game(client, ["human", "human"], seed=51, options={"first_player": 0})
    for seat in (0, 1):
        r = client.post(
            f"/api/games/{gid}/actions",
            json={"version": seat, "action": {"type": "end-turn"}},
            headers=auth(tokens[seat]),
        )
        assert r.status_code == 200, r.text
    before = _everything_seen(client, gid, tokens)
    game_before = service.registry.get(gid).game
    # Used a moment ago: it stays.
    assert client.portal.call(service.registry.evict_idle) == []  # type: ignore[union-attr]
    assert service.registry.get(gid) is not None
    counter = LoadCounter(service, monkeypatch)
    assert _evict(client, service) == [gid]
    assert service.registry.get(gid) is None and counter.loads == []
    # The next request reads it from the database, once, and finds it as it was.
    assert _everything_seen(client, gid, tokens) == before
    assert counter.loads == [gid]
    assert service.registry.get(gid).game == game_before
    # And it plays on.
    r = client.post(
        f"/api/games/{gid}/actions",
        json={"version": 2, "action": {"type": "end-turn"}},
        headers=auth(tokens[0]),
    )
    assert r.status_code == 200 and r.json()["version"] == 3, r.text
    assert counter.loads == [gid]


def test_a_game_with_an_open_socket_stays_in_memory(client: TestClient) -> None:
    service = client.app.state.service  # type: ignore[attr-defined]
    gid, tokens = new_game(client, ["human", "human"], seed=52)
    other, _ = new_game(client, ["human", "human"], seed=53)
    for token in (tokens[0], None):  # a seat's socket, and a spectator's
        with client.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.send_json({"token": token})
            assert ws.receive_json()["type"] == "state"
            assert client.get(f"/api/games/{other}/lobby").status_code == 200  # (loaded)
            assert _evict(client, service) == [other]  # an idle game beside it goes
            assert service.registry.get(gid) is not None
        settled(service, service.registry.get(gid), 0)
    # Its last socket closed just now: it stays for the idle time from then on.
    assert client.portal.call(service.registry.evict_idle) == []  # type: ignore[union-attr]
    assert _evict(client, service) == [gid]


def test_a_game_whose_bot_is_playing_stays_in_memory(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = slow_bots(monkeypatch)
    service = client.app.state.service  # type: ignore[attr-defined]
    gid, tokens = new_game(client, ["human", "bot"], seed=54, options={"first_player": 1})
    assert bot.started.wait(30)  # the bot thinks (its task runs)
    assert _evict(client, service) == []
    assert service.registry.get(gid) is not None
    bot.release.set()
    st = wait_until(client, gid, tokens[0], lambda st: st["view"]["active"] == 0)
    assert st["version"] == 1
    assert _evict(client, service) == [gid]


def test_idle_games_are_swept_by_the_server_itself(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running(settings.with_(idle_game_seconds=0.2)) as client:
        service = client.app.state.service  # type: ignore[attr-defined]
        gid, tokens = new_game(client, ["human", "human"], seed=55)
        before = _everything_seen(client, gid, tokens)
        for _ in range(2000):  # bounded by count: the sweeper runs every 0.1 s
            if service.registry.get(gid) is None:
                break
            time.sleep(0.005)
        assert service.registry.get(gid) is None
        counter = LoadCounter(service, monkeypatch)
        assert _everything_seen(client, gid, tokens)[0] == before[0]
        assert counter.loads[:1] == [gid]


def test_a_full_disk_is_said_so_and_stores_nothing(tmp_path: Any) -> None:
    """SQLite's own "database or disk is full" (its file may not grow past ``max_page_count``:
    a real SQLITE_FULL, as when the disk is full): a 503 that says so, not "does not answer"
    (nothing an operator could act on), and nothing half stored."""
    from sqlalchemy import event

    from gotown.server.main import create_app

    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'full.sqlite3'}",
        rate_limit_per_minute=0,
        worker_processes=False,
        bot_delay=0,
        allow_seed=True,
    )
    with TestClient(create_app(settings)) as client:
        gid, tokens = new_game(client, ["human", "human"])
        store = client.app.state.service.store  # type: ignore[attr-defined]
        with store.engine.connect() as connection:
            pages = connection.exec_driver_sql("PRAGMA page_count").scalar()
        event.listen(
            store.engine, "connect", lambda c, _r: c.execute(f"PRAGMA max_page_count={pages}")
        )
        store.engine.dispose()
        body = {"seats": [{"kind": "human"}] * 2, "name": "A" * 24}
        answers = [client.post("/api/games", json=body) for _ in range(60)]
        full = [r for r in answers if r.status_code != 201]
        assert full, "the database never filled up"
        error = full[0].json()["error"]
        assert full[0].status_code == 503 and error["code"] == "storage-unavailable"
        assert "disk is full" in error["message"] and "nothing was stored" in error["message"]
        assert state(client, gid, tokens[0])["version"] == 0
