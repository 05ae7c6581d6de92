"""What each seat is shown (:mod:`gotown.server.services.views`): the state's own fields."""

from __future__ import annotations

from fastapi.testclient import TestClient

from gotown.server.services.views import frozen_turns

from .helpers import auth, new_game, state, wait_until


def test_the_lobby_has_no_frozen_turns(client: TestClient) -> None:
    r = client.post("/api/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]})
    assert r.status_code == 201, r.text
    st = state(client, r.json()["game_id"])
    assert st["view"] is None and st["frozen_turns"] is None


def test_the_state_counts_the_turns_that_held_nothing_but_their_end(client: TestClient) -> None:
    """``frozen_turns`` is the engine's ``View.frozen_turns``, for every seat and a spectator,
    also once the frozen turns reach back further than the tail of events it reads first."""
    # Seed 835 (4 floors): two medium bots reach two hands of 8 cards that can do nothing
    # (R7b, R21) within 10 actions, and stand still there at seat 0's turn.
    gid, tokens = new_game(client, ["bot", "human"], seed=835, level="medium")
    me = tokens[1]
    r = client.post(f"/api/games/{gid}/seats/1/bot", headers=auth(me), json={"level": "medium"})
    assert r.status_code == 200, r.text
    assert client.post(f"/api/games/{gid}/reclaim", headers=auth(me)).status_code == 204
    st = wait_until(client, gid, me, lambda s: s["view"]["active"] == 1)
    service = client.app.state.service  # type: ignore[attr-defined]
    counts = []
    for _ in range(40):
        r = client.post(
            f"/api/games/{gid}/actions",
            json={"version": st["version"], "action": {"type": "end-turn"}},
            headers=auth(me),
        )
        assert r.status_code == 200, r.text
        st = wait_until(client, gid, me, lambda now, v=st["version"]: now["version"] == v + 2)
        game = service.registry.get(gid).game
        for seat, token in ((1, me), (None, None)):
            assert state(client, gid, token)["frozen_turns"] == game.view(seat).frozen_turns
            assert frozen_turns(game, seat) == game.view(seat).frozen_turns
        counts.append(st["frozen_turns"])
    # Once both hands can do nothing, each round adds the person's and the bot's ended turns.
    assert counts == sorted(counts) and counts[-1] == counts[-2] + 2
    assert counts[-1] > 64  # (beyond the first tail of 64 events)
