"""R23 `first_player` and `turn_limit` through the API; the win-probability bar (`/chances`)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import pytest
from fastapi.testclient import TestClient

import gotown.bots
from gotown.engine import Action, View

from .helpers import auth, new_game, state


def _end(client: TestClient, gid: str, token: str) -> dict[str, Any]:
    st = state(client, gid, token)
    r = client.post(
        f"/api/games/{gid}/actions",
        json={"version": st["version"], "action": {"type": "end-turn"}},
        headers=auth(token),
    )
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def test_first_player_and_turn_limit_are_honoured(client: TestClient) -> None:
    """R23: the chosen seat starts; when turn N ends the game ends with no winner."""
    gid, tokens = new_game(
        client, ["human", "human", "human"], options={"first_player": 2, "turn_limit": 4}
    )
    st = state(client, gid, tokens[0])
    assert st["lobby"]["options"]["first_player"] == 2
    assert st["lobby"]["options"]["turn_limit"] == 4
    assert st["view"]["active"] == 2
    for _ in range(20):
        st = state(client, gid, tokens[0])
        if st["status"] == "over":
            break
        _end(client, gid, tokens[st["view"]["active"]])
    assert st["status"] == "over"
    assert st["view"]["winner"] is None
    assert st["view"]["turn"] == 4
    assert st["view"]["events"][-1] == {"type": "end", "winner": None, "reason": "turn-limit"}


@pytest.mark.parametrize(
    "options",
    [
        {"first_player": 2},  # two seats: 0 and 1
        {"first_player": -1},
        {"first_player": "0"},
        {"turn_limit": 0},
        {"turn_limit": -3},
        {"turn_limit": 2.5},
        {"turn_limit": "ten"},
        {"turn_limit": True},
    ],
)
def test_bad_first_player_or_turn_limit_is_refused(
    client: TestClient, options: dict[str, Any]
) -> None:
    r = client.post("/api/games", json={"seats": [{"kind": "human"}] * 2, "options": options})
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["code"] == "invalid-options"
    assert next(iter(options)) in error["message"]


class FakeHint:
    """Stands for `gotown.bots.hint`: records what it was given and where it ran."""

    def __init__(self) -> None:
        self.calls: list[tuple[View, tuple[Action, ...], int]] = []
        self.threads: list[str] = []

    def __call__(
        self, view: View, legal: Sequence[Action], seed: int, top: int = 3
    ) -> list[tuple[Action, float]]:
        self.calls.append((view, tuple(legal), seed))
        self.threads.append(threading.current_thread().name)
        return [(a, 0.25 + 0.5 / (i + 1)) for i, a in enumerate(legal)][:top]


@pytest.fixture
def fake_hint(monkeypatch: pytest.MonkeyPatch) -> FakeHint:
    fake = FakeHint()
    monkeypatch.setattr(gotown.bots, "hint", fake)
    return fake


def _chances(client: TestClient, gid: str, token: str | None) -> Any:
    return client.get(f"/api/games/{gid}/chances", headers=auth(token))


def test_chances_on_the_seat_s_turn_are_computed_once_per_version(
    client: TestClient, fake_hint: FakeHint
) -> None:
    gid, tokens = new_game(client, ["human", "human"], options={"first_player": 0})
    st = state(client, gid, tokens[0])
    first = _chances(client, gid, tokens[0])
    assert first.status_code == 200, first.text
    body = first.json()
    assert body["basis"] == "turn" and body["of_version"] == st["version"] == body["version"]
    assert body["win_probability"] == 0.75
    # Asked again, and the hint at the same version: the one computation is reused.
    assert _chances(client, gid, tokens[0]).json() == body
    hint = client.get(f"/api/games/{gid}/hint", headers=auth(tokens[0]))
    assert hint.status_code == 200 and hint.json()["hints"][0]["win_probability"] == 0.75
    assert len(fake_hint.calls) == 1
    view, legal, _seed = fake_hint.calls[0]
    assert view.seat == 0 and view.hand == tuple(st["view"]["hand"])
    assert [a.to_json() for a in legal] == st["legal"]
    # In a worker thread of its own, never in the event loop's thread.
    assert fake_hint.threads == ["gotown-hint_0"]


def test_chances_after_the_seat_s_turn_estimate_its_end_of_turn(
    client: TestClient, fake_hint: FakeHint
) -> None:
    gid, tokens = new_game(client, ["human", "human"], options={"first_player": 0})
    before = state(client, gid, tokens[0])
    _end(client, gid, tokens[0])
    r = _chances(client, gid, tokens[0])
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["basis"] == "after-turn" and body["of_version"] == before["version"]
    assert body["win_probability"] == 0.75
    view, legal, _seed = fake_hint.calls[-1]
    assert view.seat == 0 and view.hand == tuple(before["view"]["hand"])
    assert legal == (Action.end_turn(),)
    # Seat 1 has not played a turn: on its turn it gets an estimate for now, from its view.
    other = _chances(client, gid, tokens[1]).json()
    assert other["basis"] == "turn"
    assert fake_hint.calls[-1][0].seat == 1
    calls = len(fake_hint.calls)
    for _ in range(3):
        assert _chances(client, gid, tokens[0]).json() == body
    assert len(fake_hint.calls) == calls


def test_chances_before_the_seat_s_first_turn_are_empty(
    client: TestClient, fake_hint: FakeHint
) -> None:
    gid, tokens = new_game(client, ["human", "human"], options={"first_player": 0})
    body = _chances(client, gid, tokens[1]).json()
    assert body["basis"] == "none" and body["win_probability"] is None
    assert not any(view.seat == 1 for view, _legal, _seed in fake_hint.calls)


def test_chances_are_for_a_seat_of_a_running_game_only(
    client: TestClient, fake_hint: FakeHint
) -> None:
    gid, tokens = new_game(client, ["human", "human"], options={"first_player": 0})
    for token, status, code in (
        (None, 401, "missing-token"),
        ("not-a-token", 403, "wrong-token"),
        (tokens[0] + "x", 403, "wrong-token"),
    ):
        r = _chances(client, gid, token)
        assert r.status_code == status and r.json()["error"]["code"] == code, r.text
    assert _chances(client, "nope", tokens[0]).status_code == 404
    lobby = client.post(
        "/api/games", json={"seats": [{"kind": "human"}] * 2, "name": "Anna"}
    ).json()
    r = _chances(client, lobby["game_id"], lobby["token"])
    assert r.status_code == 409 and r.json()["error"]["code"] == "not-running"
    assert fake_hint.calls == []


def test_a_failed_estimate_is_a_clean_error_and_can_be_asked_again(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    attempts: list[int] = []

    def broken(view: View, legal: Sequence[Action], seed: int, top: int = 3) -> Any:
        attempts.append(seed)
        raise RuntimeError("search bug")

    monkeypatch.setattr(gotown.bots, "hint", broken)
    gid, tokens = new_game(client, ["human", "human"], options={"first_player": 0})
    for _ in range(2):
        r = _chances(client, gid, tokens[0])
        assert r.status_code == 503 and r.json()["error"]["code"] == "estimate-failed"
        assert "search bug" not in r.text
    assert len(attempts) == 2


def test_chances_with_the_real_search(client: TestClient) -> None:
    gid, tokens = new_game(client, ["human", "bot"], options={"first_player": 0})
    body = _chances(client, gid, tokens[0]).json()
    assert body["basis"] == "turn" and 0.0 <= body["win_probability"] <= 1.0
