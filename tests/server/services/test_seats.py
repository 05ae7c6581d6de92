"""Hand-over (:mod:`gotown.server.services.seats`): a seat given to a bot and taken back."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from ..helpers import (
    act,
    auth,
    bots_idle,
    error_of,
    invite_code,
    new_game,
    play_to_end,
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


def test_a_finished_game_refuses_reclaim_and_keeps_its_seats(client: TestClient) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=18, options={"win_floors": 4})
    r = client.post(f"/api/games/{gid}/seats/1/bot", headers=auth(tokens[0]))
    assert r.status_code == 200, r.text
    play_to_end(client, gid, {0: tokens[0]}, seed=9)
    store = client.app.state.service.store  # type: ignore[attr-defined]
    before = store.load_game(gid).seats
    assert before[1].kind == "bot"
    reclaim = client.post(f"/api/games/{gid}/reclaim", headers=auth(tokens[1]))
    err = error_of(reclaim, 409, "game-over")
    assert "over" in err["message"]
    assert store.load_game(gid).seats == before
    assert state(client, gid)["lobby"]["seats"][1]["kind"] == "bot"


def test_a_hand_over_decided_before_the_game_ended_is_refused_after_it(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in review: the hand-over checked the status before it took the game's lock, so a
    hand-over that was still deciding when the last move ended the game was written to the
    finished game. It is refused as game-over, and the finished game keeps its seats."""
    import asyncio
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from gotown.server.services.presence import LocalPresence

    gid, tokens = new_game(
        client, ["human", "human"], seed=20, options={"turn_limit": 1, "first_player": 0}
    )
    deciding, ended = threading.Event(), threading.Event()
    refuse_if_present = LocalPresence.refuse_if_present

    async def slow_to_decide(self: LocalPresence, live: Any, seat: int) -> None:
        deciding.set()
        await asyncio.to_thread(ended.wait, 30)  # the game ends meanwhile
        await refuse_if_present(self, live, seat)

    monkeypatch.setattr(LocalPresence, "refuse_if_present", slow_to_decide)
    with ThreadPoolExecutor(max_workers=1) as pool:
        hand_over = pool.submit(
            client.post, f"/api/games/{gid}/seats/1/bot", headers=auth(tokens[0])
        )
        assert deciding.wait(30)
        last = act(client, gid, tokens[0], 0, {"type": "end-turn"})  # turn 1 of 1
        assert last.status_code == 200 and last.json()["status"] == "over", last.text
        ended.set()
        error_of(hand_over.result(30), 409, "game-over")
    store = client.app.state.service.store  # type: ignore[attr-defined]
    assert [seat.kind for seat in store.load_game(gid).seats] == ["human", "human"]
    assert [s["kind"] for s in state(client, gid)["lobby"]["seats"]] == ["human", "human"]


def test_a_seat_number_outside_the_game_is_refused_saying_how_many_seats_it_has(
    client: TestClient,
) -> None:
    created = client.post(
        "/api/games", json={"seats": [{"kind": "human"}] * 2, "name": "Anna"}
    ).json()
    gid, code, token = created["game_id"], invite_code(created), created["token"]
    # Seats count from 0 in requests, and so in messages: the number sent is the one named
    # (as in the engine's messages, e.g. an action's target, R1).
    join = client.post(f"/api/games/{gid}/join", json={"code": code, "name": "Bob", "seat": 3})
    err = error_of(join, 422, "unknown-seat")
    assert err["message"] == "there is no seat 3: this game has 2 seats, 0 to 1"
    for seat in (-1, 2):
        r = client.post(f"/api/games/{gid}/seats/{seat}/bot", headers=auth(token))
        err = error_of(r, 404, "unknown-seat")
        assert err["message"] == f"there is no seat {seat}: this game has 2 seats, 0 to 1"
    taken = client.post(f"/api/games/{gid}/join", json={"code": code, "name": "Eve", "seat": 0})
    assert error_of(taken, 409, "seat-taken")["message"] == "seat 0 is not free"
    bots = [{"kind": "human"}, {"kind": "bot", "level": "godlike"}]
    err = error_of(client.post("/api/games", json={"seats": bots}), 422, "unknown-level")
    assert err["message"].startswith("seat 1: ")
    person_with_level = [{"kind": "human", "level": "hard"}, {"kind": "bot"}]
    err = error_of(
        client.post("/api/games", json={"seats": person_with_level}), 422, "level-for-person"
    )
    assert err["message"].startswith("seat 0: a level ('hard') is for a bot's seat")
    assert [s["name"] for s in client.get(f"/api/games/{gid}/lobby").json()["seats"]] == [
        "Anna",
        None,
    ]
