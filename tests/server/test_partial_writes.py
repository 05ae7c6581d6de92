"""A change that takes two writes must not answer "try again" once the first was made.

The database fails (``OperationalError``, what a dropped connection raises) on the write of a
game's status only, after the write that made the change: the action that ends the game, the
join that fills the last seat. Either the two are one write, or the change stands and the
second write is made later; never a 503 for a change that was made, which a client would send
again and get refused (the game over, the seat taken by a token nobody holds).
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError

from .helpers import auth, invite_code, new_game, state

END_TURN = {"type": "end-turn"}


def _status_writes_fail(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every ``set_status`` of the store raises, as with a connection lost; answers the
    statuses that were asked for."""
    store = client.app.state.service.store  # type: ignore[attr-defined]
    asked: list[str] = []

    def lost(game_id: str, status: str, was: str | None = None) -> bool:
        asked.append(status)
        raise OperationalError("UPDATE games SET status", {}, Exception("connection lost"))

    def start_lost(game_id: str, turn: object) -> bool:
        return lost(game_id, "playing", "lobby")  # (a game's start: its status and first turn)

    monkeypatch.setattr(store, "set_status", lost)
    monkeypatch.setattr(store, "start_game", start_lost)
    return asked


def _stored_status(client: TestClient, game_id: str) -> str:
    stored = client.app.state.service.store.load_game(game_id)  # type: ignore[attr-defined]
    assert stored is not None
    return str(stored.status)


def test_the_action_that_ends_the_game_is_stored_with_the_end_in_one_write(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = {"first_player": 0, "turn_limit": 1}
    gid, tokens = new_game(client, ["human", "human"], seed=3, options=options)
    anna = tokens[0]
    asked = _status_writes_fail(client, monkeypatch)
    version = state(client, gid, anna)["version"]
    r = client.post(
        f"/api/games/{gid}/actions",
        json={"version": version, "action": END_TURN},
        headers=auth(anna),
    )
    assert r.status_code == 200, r.text  # (a 503 before: the action made, its answer lost)
    assert asked == []  # the end was written with the action, not after it
    after = state(client, gid, anna)
    assert (after["status"], after["version"]) == ("over", version + 1)
    assert after["view"]["over"] and after["view"]["winner"] is None  # R23 turn_limit
    assert _stored_status(client, gid) == "over"


def test_a_join_that_fills_the_last_seat_keeps_it_when_the_start_cannot_be_stored(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = client.post(
        "/api/games",
        json={"seats": [{"kind": "human"}] * 2, "name": "Anna", "seed": 3,
              "options": {"first_player": 0}},
    ).json()  # fmt: skip
    gid = created["game_id"]
    asked = _status_writes_fail(client, monkeypatch)
    joined = client.post(
        f"/api/games/{gid}/join", json={"code": invite_code(created), "name": "Bob"}
    )
    # The seat was stored: Bob gets it, with the token that plays it (a 503 before, the seat
    # then held by a token nobody had, and the game in its lobby for good).
    assert joined.status_code == 200, joined.text
    assert asked == ["playing"]
    bob = joined.json()["token"]
    assert state(client, gid, bob)["status"] == "lobby"  # the start is still not stored
    monkeypatch.undo()  # the database answers again: the next request starts the game
    started: dict[str, Any] = state(client, gid, bob)
    assert started["status"] == "playing" and started["view"]["seat"] == 1
    assert _stored_status(client, gid) == "playing"
    version = started["version"]
    r = client.post(
        f"/api/games/{gid}/actions",
        json={"version": version, "action": END_TURN},
        headers=auth(created["token"]),
    )
    assert r.status_code == 200, r.text
