"""Refusals (:mod:`gotown.server.errors`): documented on every route, and what an
unreadable body is told."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from .helpers import (
    auth,
    new_game,
    service_of,
    state,
)


def test_every_route_documents_its_errors(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path, operations in paths.items():
        for method, operation in operations.items():
            if path != "/api/meta":
                assert {"404", "422"} <= set(operation["responses"]), (method, path)


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"[" * 3000 + b"]" * 3000, "nested too deeply"),
        (b'{"seats": [' + b"7" * 5000 + b"]}", "digits"),
        (b'{"seats": "\xff"}', "UTF-8"),
        (b"{not json", "not valid JSON"),
    ],
)
def test_json_that_cannot_be_read_is_malformed_json_saying_why(
    client: TestClient, body: bytes, says: str
) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=70, options={"first_player": 0})
    headers = {"content-type": "application/json"}
    for path, extra in (
        ("/api/games", {}),
        (f"/api/games/{gid}/actions", auth(tokens[0])),
    ):
        r = client.post(path, content=body, headers={**headers, **extra})
        assert r.status_code == 400, r.text
        error = r.json()["error"]
        assert error["code"] == "malformed-json" and says in error["message"], error
    assert state(client, gid)["version"] == 0
    assert service_of(client).store.game_ids_with_status("lobby") == []


def test_each_kind_of_refusal_has_its_status_and_each_code_its_kind() -> None:
    from gotown.server.errors import (
        CODES,
        STATUS,
        BusyError,
        ConflictError,
        NotFoundError,
        status_of,
    )

    assert status_of(NotFoundError("unknown-game", "no such game")) == 404
    assert status_of(ConflictError("game-over", "over")) == 409
    assert status_of(BusyError("estimate-busy", "busy")) == 429
    # A code raised as another kind than the catalogue's is a bug, caught at once.
    with pytest.raises(ValueError, match="unknown-game"):
        ConflictError("unknown-game", "no such game")
    with pytest.raises(ValueError, match="no-such-code"):
        ConflictError("no-such-code", "?")
    raised = {code for code, kind in CODES.items() if kind in STATUS}
    assert {"stale-version", "storage-unavailable", "wrong-token", "bad-request"} <= raised


@pytest.mark.parametrize(
    ("path", "methods"),
    [
        ("/api/lessons/basics/steps/0", "GET, POST"),
        ("/api/me", "GET, PATCH, DELETE"),
        ("/api/games", "POST"),
    ],
)
def test_a_method_not_answered_names_every_method_that_is(
    client: TestClient, path: str, methods: str
) -> None:
    """A path routed for GET and POST apart says both (Starlette named the first route's)."""
    for method in ("OPTIONS", "PUT"):
        r = client.request(method, path)
        assert r.status_code == 405 and r.headers["allow"] == methods, (method, r.headers)
        assert r.json()["error"]["code"] == "http-405" and methods in r.json()["error"]["message"]
