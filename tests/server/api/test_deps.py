"""The routes' dependencies are coroutines: FastAPI would run a plain function in a worker thread,
one thread hop per dependency per request."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.dependencies import utils
from fastapi.testclient import TestClient

from ..helpers import auth, new_game


def test_a_state_request_and_an_action_take_no_thread_for_their_dependencies(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    gid, tokens = new_game(client, ["human", "human"], options={"first_player": 0})
    hops: list[Any] = []
    original = utils.run_in_threadpool

    async def counted(call: Any, *args: Any, **kwargs: Any) -> Any:
        hops.append(call)
        return await original(call, *args, **kwargs)

    monkeypatch.setattr(utils, "run_in_threadpool", counted)
    assert client.get(f"/api/games/{gid}/state", headers=auth(tokens[0])).status_code == 200
    r = client.post(
        f"/api/games/{gid}/actions",
        json={"version": 0, "action": {"type": "end-turn"}},
        headers=auth(tokens[0]),
    )
    assert r.status_code == 200, r.text
    assert hops == []
