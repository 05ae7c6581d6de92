"""Turn-based tables (services/deadlines.py): a pace per table, a stored deadline per turn, and
what a missed turn does. Time is the server's clock, moved on by the tests (never slept)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gotown.server.clock import Clock
from gotown.server.config import Settings
from gotown.server.main import create_app

from ..helpers import auth, error_of, invite_code, service_of, state, wait_until

DAY = 24 * 3600


@pytest.fixture
def timed(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings.with_(test_clock=True))) as client:
        yield client


def paced_table(
    client: TestClient, seed: int = 5, players: int = 2, **pace: Any
) -> tuple[str, dict[int, str]]:
    body = {
        "name": "Ann",
        "seats": [{"kind": "human"}] * players,
        "seed": seed,
        "options": {"first_player": 0},
        "pace": DAY,
        **pace,
    }
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    created = r.json()
    tokens = {0: created["token"]}
    for seat in range(1, players):
        j = client.post(
            f"/api/games/{created['game_id']}/join",
            json={"code": invite_code(created), "name": f"P{seat}", "seat": seat},
        )
        tokens[seat] = j.json()["token"]
    return created["game_id"], tokens


def advance(client: TestClient, seconds: float) -> float:
    r = client.post("/api/test/clock", json={"advance": seconds})
    assert r.status_code == 200, r.text
    now: float = r.json()["now"]
    return now


def now_of(client: TestClient) -> float:
    meta: float = client.get("/api/meta").json()["now"]
    return meta


def test_a_pace_out_of_range_or_a_bad_missed_turn_rule_is_refused(timed: TestClient) -> None:
    seats = [{"kind": "human"}, {"kind": "bot"}]
    for pace, code in (
        (10, "invalid-request"),
        (15 * DAY, "invalid-request"),
        ("day", "invalid-request"),
    ):
        r = timed.post("/api/games", json={"seats": seats, "pace": pace})
        assert "pace" in error_of(r, 422, code)["message"]
    r = timed.post("/api/games", json={"seats": seats, "pace": DAY, "on_timeout": "bot:godlike"})
    assert "on_timeout" in error_of(r, 422, "invalid-pace")["message"]
    r = timed.post("/api/games", json={"seats": seats, "on_timeout": "end"})
    assert "need a pace" in error_of(r, 422, "invalid-pace")["message"]
    r = timed.post("/api/games", json={"seats": seats, "pace": DAY, "missed_limit": 0})
    error_of(r, 422, "invalid-request")
    assert timed.post("/api/test/clock", json={"advance": -5}).status_code == 422


def test_the_clock_moves_only_where_the_settings_allow_it(client: TestClient) -> None:
    error_of(client.post("/api/test/clock", json={"advance": 60}), 404, "unknown-page")


def test_each_turn_of_a_person_has_a_deadline_stored_with_it(timed: TestClient) -> None:
    game_id, tokens = paced_table(timed)
    start = now_of(timed)
    lobby = state(timed, game_id, tokens[0])["lobby"]
    assert lobby["pace"] == DAY and lobby["on_timeout"] == "bot:medium"
    assert lobby["missed_limit"] == 3
    assert start - 5 <= lobby["deadline"] - DAY <= start + 1
    advance(timed, 3600)
    mine = state(timed, game_id, tokens[0])
    r = timed.post(
        f"/api/games/{game_id}/actions",
        json={"version": mine["version"], "action": {"type": "end-turn"}},
        headers=auth(tokens[0]),
    )
    assert r.status_code == 200, r.text
    after = r.json()["lobby"]
    assert after["deadline"] - DAY >= lobby["deadline"] - DAY + 3600 - 1  # seat 1's own day
    stored = service_of(timed).registry.store.load_game(game_id)
    assert stored is not None and stored.deadline == pytest.approx(after["deadline"])
    live_table = timed.post(
        "/api/games", json={"seats": [{"kind": "human"}, {"kind": "bot"}], "name": "A"}
    ).json()
    assert state(timed, live_table["game_id"], live_table["token"])["lobby"]["deadline"] is None


def test_a_missed_turn_is_ended_for_the_seat_when_the_table_says_end(timed: TestClient) -> None:
    game_id, tokens = paced_table(timed, on_timeout="end", missed_limit=2)
    before = state(timed, game_id, tokens[0])
    assert before["view"]["active"] == 0
    advance(timed, DAY - 60)
    assert state(timed, game_id)["version"] == before["version"]  # not yet
    advance(timed, 61)
    after = wait_until(timed, game_id, tokens[1], lambda st: st["view"]["active"] == 1)
    assert after["version"] == before["version"] + 1
    assert after["view"]["events"][-1]["type"] in ("turn", "draw")
    seats = after["lobby"]["seats"]
    assert (seats[0]["missed"], seats[0]["kind"], seats[0]["standin"]) == (1, "human", False)
    # Seat 1 plays its turn: seat 0 is on again with a new day, and misses it too: the second
    # missed turn in a row (missed_limit 2) gives the seat to a bot until its person is back.
    r = timed.post(
        f"/api/games/{game_id}/actions",
        json={"version": after["version"], "action": {"type": "end-turn"}},
        headers=auth(tokens[1]),
    )
    assert r.status_code == 200, r.text
    advance(timed, DAY + 1)
    kept = wait_until(
        timed, game_id, tokens[0], lambda st: st["lobby"]["seats"][0]["kind"] == "bot"
    )
    assert (
        kept["lobby"]["seats"][0]["missed"] == 2 and kept["lobby"]["seats"][0]["level"] == "medium"
    )
    # The person comes back and takes the seat back.
    assert timed.post(f"/api/games/{game_id}/reclaim", headers=auth(tokens[0])).status_code == 204


def test_a_bot_stands_in_for_a_missed_turn_and_gives_the_seat_back(timed: TestClient) -> None:
    game_id, tokens = paced_table(timed, seed=9, on_timeout="bot:easy")
    start = state(timed, game_id, tokens[0])
    advance(timed, DAY + 1)
    done = wait_until(
        timed,
        game_id,
        tokens[1],
        lambda st: st["version"] > start["version"] and not st["lobby"]["seats"][0]["standin"],
    )
    seat = done["lobby"]["seats"][0]
    assert (seat["kind"], seat["standin"], seat["missed"]) == ("human", False, 1)
    actions = [e for e in done["view"]["events"] if e["type"] == "action"]
    assert actions and all(e["seat"] == 0 for e in actions)  # the stand-in played seat 0's turn
    assert actions[-1]["action"]["type"] in ("end-turn", "build", "steal")
    assert done["lobby"]["deadline"] is not None  # the next turn's, whoever's it is
    # The turn after it is the person's own again (or seat 1's, then theirs): their own move
    # resets the count of missed turns.
    if done["view"]["active"] == 1:
        timed.post(
            f"/api/games/{game_id}/actions",
            json={"version": done["version"], "action": {"type": "end-turn"}},
            headers=auth(tokens[1]),
        )
    mine = state(timed, game_id, tokens[0])
    assert mine["view"]["active"] == 0
    r = timed.post(
        f"/api/games/{game_id}/actions",
        json={"version": mine["version"], "action": {"type": "end-turn"}},
        headers=auth(tokens[0]),
    )
    assert r.status_code == 200, r.text
    assert r.json()["lobby"]["seats"][0]["missed"] == 0


def test_a_person_cannot_move_while_their_stand_in_plays(timed: TestClient) -> None:
    game_id, tokens = paced_table(timed, on_timeout="bot:easy")
    service = service_of(timed)
    service.bots.settings = service.bots.settings.with_(bot_delay=30)  # the stand-in is slow
    advance(timed, DAY + 1)
    standing = wait_until(timed, game_id, tokens[0], lambda st: st["lobby"]["seats"][0]["standin"])
    r = timed.post(
        f"/api/games/{game_id}/actions",
        json={"version": standing["version"], "action": {"type": "end-turn"}},
        headers=auth(tokens[0]),
    )
    error_of(r, 409, "standin-plays")


def test_a_deadline_missed_while_the_server_was_down_fires_when_it_is_back(
    settings: Settings,
) -> None:
    clock = Clock()
    with TestClient(create_app(settings, clock)) as client:
        game_id, _tokens = paced_table(client, on_timeout="end")
        before = state(client, game_id)
    later = Clock(clock.offset + DAY + 5)  # the server comes back a day later
    with TestClient(create_app(settings, later)) as client:
        after = wait_until(client, game_id, None, lambda st: st["view"]["active"] == 1)
        assert after["version"] == before["version"] + 1
        assert after["lobby"]["seats"][0]["missed"] == 1
        assert after["lobby"]["deadline"] == pytest.approx(later.time() + DAY, abs=5)
