"""Found in review: ways a game's cards could leak or a stored game could be left inconsistent."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gotown.server.config import Settings

from .helpers import (
    auth,
    bots_idle,
    invite_code,
    new_game,
    play_to_end,
    running,
    slow_bots,
    state,
    wait_until,
)


def test_a_client_cannot_choose_the_seed_by_default(database_url: str) -> None:
    """Whoever knows the seed can deal the game again and see every hand (R22)."""
    settings = Settings(database_url=database_url, bot_delay=0, rate_limit_per_minute=0)
    assert settings.allow_seed is False
    with running(settings) as client:
        body = {"seats": [{"kind": "human"}] * 2, "name": "Eve", "seed": 42}
        r = client.post("/api/games", json=body)
        assert r.status_code == 422, r.text
        error = r.json()["error"]
        assert error["code"] == "seed-not-allowed" and "seed" in error["message"]
        del body["seed"]
        assert client.post("/api/games", json=body).status_code == 201


def test_the_seed_setting_comes_from_the_environment() -> None:
    assert Settings.from_env({"GOTOWN_ALLOW_SEED": "1"}).allow_seed is True
    assert Settings.from_env({}).allow_seed is False


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


def test_nothing_of_a_hand_reaches_a_spectator_or_another_seat_anywhere(client: TestClient) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=9)
    hand0 = state(client, gid, tokens[0])["view"]["hand"]
    assert hand0
    for token in (None, tokens[1]):
        headers = {"X-Seat-Token": token} if token else {}
        for path in ("state", "lobby", "replay", "hint", "chances"):
            r = client.get(f"/api/games/{gid}/{path}", headers=headers)
            text = r.text
            assert tokens[0] not in text
            if path == "state":
                assert r.json()["view"]["hand"] != hand0 or token is None
                if token is None:
                    assert r.json()["view"]["hand"] is None


def test_odd_characters_in_codes_and_names_are_refused_cleanly(client: TestClient) -> None:
    """Found by schemathesis: a non-ASCII invitation code made the join a 500."""
    created = client.post(
        "/api/games", json={"seats": [{"kind": "human"}] * 2, "name": "Anna"}
    ).json()
    gid = created["game_id"]
    r = client.post(f"/api/games/{gid}/join", json={"code": "ééé", "name": "Bob"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "wrong-invitation", r.text
    r = client.post(f"/api/games/{gid}/join", json={"code": "\u009f", "name": "Bob"})
    assert r.status_code == 422 and "code" in r.json()["error"]["message"], r.text
    code = created["invite_url"].rsplit("/", 1)[1]
    for name in ("\u0001Bob", "Bob\u0000", "   "):
        r = client.post(f"/api/games/{gid}/join", json={"code": code, "name": name})
        assert r.status_code == 422, r.text
        assert "name" in r.json()["error"]["message"]
    surrogate = b'{"code": "x", "name": "\\ud915"}'
    r = client.post(
        f"/api/games/{gid}/join", content=surrogate, headers={"content-type": "application/json"}
    )
    assert r.status_code == 422, r.text
    r = client.post("/api/games", json={"seats": [{"kind": "human"}] * 2, "name": "  "})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid-name", r.text
    # Nothing of that reached the game.
    lobby = client.get(f"/api/games/{gid}/lobby").json()
    assert [s["name"] for s in lobby["seats"]] == ["Anna", None]


def test_every_route_documents_its_errors(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path, operations in paths.items():
        for method, operation in operations.items():
            if path != "/api/meta":
                assert {"404", "422"} <= set(operation["responses"]), (method, path)


def test_a_bot_that_was_thinking_does_not_move_for_a_person_who_took_the_seat_back(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = slow_bots(monkeypatch)
    gid, tokens = new_game(client, ["human", "human"], seed=3, options={"first_player": 0})
    before = state(client, gid, tokens[0])
    r = client.post(f"/api/games/{gid}/seats/0/bot", headers=auth(tokens[0]))
    assert r.status_code == 200, r.text
    assert bot.started.wait(30)
    assert client.post(f"/api/games/{gid}/reclaim", headers=auth(tokens[0])).status_code == 204
    bot.release.set()
    assert bots_idle(client.app.state.service, gid)  # type: ignore[attr-defined]
    after = state(client, gid, tokens[0])
    assert after["version"] == before["version"]
    assert after["lobby"]["seats"][0]["kind"] == "human"
    assert after["legal"] == before["legal"]


def test_the_spectator_link_does_not_give_away_the_invitation(client: TestClient) -> None:
    """Watching must not be a way to take a free seat: the invitation is for seats only."""
    created = client.post(
        "/api/games", json={"seats": [{"kind": "human"}] * 3, "name": "Anna"}
    ).json()
    gid, code = created["game_id"], created["invite_url"].rsplit("/", 1)[1]
    assert client.get(f"/api/games/{gid}/lobby").json()["invite_url"] is None
    assert state(client, gid)["lobby"]["invite_url"] is None
    assert code not in client.get(f"/api/games/{gid}/lobby").text
    assert client.get(f"/api/games/{gid}/qr.svg").status_code == 404
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"token": None})
        first = ws.receive_json()
        assert first["type"] == "state" and code not in json.dumps(first)
    # A seat, and whoever holds the code, get it.
    token = created["token"]
    assert client.get(f"/api/games/{gid}/lobby", headers=auth(token)).json()["invite_url"]
    assert state(client, gid, token)["lobby"]["invite_url"].endswith("/j/" + code)
    assert client.get(f"/api/invitations/{code}").json()["invite_url"].endswith("/j/" + code)
    qr = client.get(f"/api/invitations/{code}/qr.svg")
    assert qr.status_code == 200 and "<svg" in qr.text
    assert client.get("/api/invitations/nope/qr.svg").status_code == 404
    wrong = client.get(f"/api/games/{gid}/lobby", headers=auth("nope"))
    assert wrong.status_code == 403


def test_a_game_s_seed_is_drawn_from_63_bits(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seed drawn from 31 bits could be found by trying every one against a hand and a few
    draws, and with it every hand; 63 bits is the width of the engine's own seed chain."""
    import secrets

    from gotown.engine import Game, Options

    widths: list[int] = []

    def widest_randbits(k: int) -> int:
        widths.append(k)
        return (1 << k) - 1  # the widest seed of that many bits, so that storing it is tested

    monkeypatch.setattr(secrets, "randbits", widest_randbits)
    created = client.post("/api/games", json={"seats": [{"kind": "human"}] * 2, "name": "A"})
    assert created.status_code == 201, created.text
    gid = created.json()["game_id"]
    assert widths == [63]
    stored = client.app.state.service.store.load_game(gid)  # type: ignore[attr-defined]
    assert stored.seed == 2**63 - 1
    join = {"code": created.json()["invite_url"].rsplit("/", 1)[1], "name": "B"}
    assert client.post(f"/api/games/{gid}/join", json=join).status_code == 200
    dealt = Game.new(players=2, seed=2**63 - 1, options=Options.from_json(stored.options))
    token = created.json()["token"]
    assert state(client, gid, token)["view"] == dealt.view(0).to_json()


def _refused(r: Any, status: int, code: str) -> str:
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert error["code"] == code and error["message"], error
    message: str = error["message"]
    return message


def test_an_id_or_code_no_game_can_have_is_unknown_on_every_database(client: TestClient) -> None:
    """Found in review: on PostgreSQL (whose text cannot hold a NUL character) a NUL in a game id
    or an invitation code was a 500 on every route that looked it up; SQLite answered 404."""
    gid, tokens = new_game(client, ["human", "human"], seed=11)
    before = state(client, gid, tokens[0])
    action = {"version": before["version"], "action": {"type": "end-turn"}}
    for bad in ("x%00y", "%00", f"{gid}%00"):
        for path in ("state", "lobby", "replay", "hint", "chances"):
            r = client.get(f"/api/games/{bad}/{path}", headers=auth(tokens[0]))
            _refused(r, 404, "unknown-game")
        for path, body in (
            ("actions", action),
            ("join", {"code": "abc", "name": "Eve"}),
            ("seats/1/bot", None),
            ("reclaim", None),
            ("rematch", None),
        ):
            r = client.post(f"/api/games/{bad}/{path}", json=body, headers=auth(tokens[0]))
            _refused(r, 404, "unknown-game")
        for path in (f"/api/invitations/{bad}", f"/api/invitations/{bad}/qr.svg"):
            _refused(client.get(path), 404, "unknown-invitation")
        with client.websocket_connect(f"/ws/games/{bad}") as ws:
            ws.send_json({"token": tokens[0]})
            message = ws.receive_json()
            assert message["type"] == "error" and message["error"]["code"] == "unknown-game"
            closing = ws.receive()
            assert closing["type"] == "websocket.close" and closing["code"] == 4404
    assert state(client, gid, tokens[0]) == before


def test_a_host_too_long_for_a_qr_code_is_refused_clearly(client: TestClient) -> None:
    """Found in review: without GOTOWN_PUBLIC_BASE_URL the invitation link is built from the
    request's Host, and a link too long for any QR code made the QR route a 500."""
    created = client.post(
        "/api/games", json={"seats": [{"kind": "human"}] * 3, "name": "Anna"}
    ).json()
    code = invite_code(created)
    for length in (2400, 3000, 10_000):
        r = client.get(f"/api/invitations/{code}/qr.svg", headers={"host": "a" * length})
        assert "QR" in _refused(r, 400, "bad-request")
    qr = client.get(f"/api/invitations/{code}/qr.svg")
    assert qr.status_code == 200 and "<svg" in qr.text


def test_a_name_must_be_printable_through_and_through(client: TestClient) -> None:
    """Found in review: only control characters and lone surrogates were refused, although the
    error asks for printable characters: an invisible name (a zero-width space, a byte order
    mark), one that turns the text after it right to left (U+202E), soft hyphens, private-use,
    tag and unassigned characters, separators other than the space all passed."""
    created = client.post(
        "/api/games", json={"seats": [{"kind": "human"}] * 2, "name": "Anna Lee"}
    ).json()
    gid, code = created["game_id"], invite_code(created)
    for name in (
        "\u200b",
        "\u202eevil",
        "Bob\ufeff",
        "Bo\u00adb",
        "\ue000",
        "\U000e0041",
        "\u2028Bob",
        "B\u2029ob",
        "Bob\u0378",
        "Bob\u00a0Lee",
    ):
        assert not name.isprintable()
        body = {"seats": [{"kind": "human"}] * 2, "name": name}
        message = _refused(client.post("/api/games", json=body), 422, "invalid-request")
        assert message.startswith("name: ") and "printable" in message, message
        r = client.post(f"/api/games/{gid}/join", json={"code": code, "name": name})
        message = _refused(r, 422, "invalid-request")
        assert message.startswith("name: ") and "printable" in message, message
    assert [s["name"] for s in client.get(f"/api/games/{gid}/lobby").json()["seats"]] == [
        "Anna Lee",
        None,
    ]
    # Spaces inside a name are printable; those around it are trimmed, as before.
    r = client.post(f"/api/games/{gid}/join", json={"code": code, "name": "  Bob de Vries "})
    assert r.status_code == 200, r.text
    assert [s["name"] for s in client.get(f"/api/games/{gid}/lobby").json()["seats"]] == [
        "Anna Lee",
        "Bob de Vries",
    ]


def test_an_action_whose_request_is_cancelled_while_it_is_stored_is_still_made_in_memory(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A socket whose client leaves cancels the action it was making. Once the action is being
    written, the write finishes in its thread whatever happens: the game in memory, the other
    players and the bots must then follow it too, or the table lags its own database (a person
    refused as stale, a bot never told it is its turn)."""
    import asyncio
    import contextlib
    import threading

    from gotown.server import schemas

    gid, tokens = new_game(client, ["human", "bot"], seed=23, options={"first_player": 0})
    service = client.app.state.service  # type: ignore[attr-defined]
    store = service.store
    writing, release = threading.Event(), threading.Event()
    append_action = store.append_action

    def slow_append(*args: Any, **kwargs: Any) -> Any:
        writing.set()
        release.wait(10)
        return append_action(*args, **kwargs)

    monkeypatch.setattr(store, "append_action", slow_append)
    version = state(client, gid, tokens[0])["version"]
    body = schemas.ActionIn.model_validate({"version": version, "action": {"type": "end-turn"}})

    async def leave_while_it_is_written() -> None:
        task = asyncio.ensure_future(service.play.act(gid, tokens[0], body, "http://testserver"))
        await asyncio.to_thread(writing.wait, 10)
        task.cancel()
        release.set()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    client.portal.call(leave_while_it_is_written)  # type: ignore[union-attr]
    monkeypatch.undo()
    for _ in range(1000):  # its thread finishes the write (bounded by count)
        if store.load_game(gid).actions:
            break
        threading.Event().wait(0.01)
    assert store.load_game(gid).actions[version]["type"] == "end-turn"
    # ... and the table follows it: the bot, told it is its turn, plays, and seat 0's turn
    # comes back; the game in memory never lags the database.
    st = wait_until(client, gid, tokens[0], lambda s: s["view"]["active"] == 0)
    assert st["version"] == len(store.load_game(gid).actions) > version + 1
