"""Hand-over (:mod:`gotown.server.services.seats`): a seat given to a bot and taken back."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from .helpers import (
    auth,
    bots_idle,
    new_game,
    slow_bots,
    state,
)


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
