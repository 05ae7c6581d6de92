"""The review of a finished game over HTTP (:mod:`gotown.server.services.review`): refused
during play (R22), computed once off the event loop, bounded, and the same as the bots'
review."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from fastapi.testclient import TestClient

import gotown.server.services.review as review_module
from gotown.bots.review import BASIS, QUICK_BUDGET, QUICK_ITERATIONS, TURNING, review
from gotown.engine import Action, Record
from gotown.server.config import Settings
from gotown.server.services.review import MAX_ACTIONS, iterations_for, review_json

from ..helpers import new_game, refused, running, service_of, wait_until


def finished_game(client: TestClient, seed: int = 5) -> str:
    """A two-player game of random bots, played to its end."""
    game_id, _ = new_game(client, ["bot", "bot"], seed=seed, options={"win_floors": 4})
    wait_until(client, game_id, None, lambda s: s["status"] == "over")
    return game_id


def test_r22_a_game_under_way_has_no_review(client: TestClient) -> None:
    game_id, tokens = new_game(client, ["human", "human"])
    for token in (None, tokens[0]):
        headers = {"X-Seat-Token": token} if token else {}
        r = client.get(f"/api/games/{game_id}/review", params={"seat": 0}, headers=headers)
        message = refused(r, 409, "not-over")
        assert "R22" in message and r.json()["error"]["rule"] == "R22"


def test_a_finished_game_is_reviewed_for_anyone_as_the_bots_review_it(client: TestClient) -> None:
    game_id = finished_game(client)
    r = client.get(f"/api/games/{game_id}/review", params={"seat": 1})
    assert r.status_code == 200, r.text
    got = r.json()
    stored = service_of(client).store.load_game(game_id)
    assert stored is not None
    assert got["actions"] == got["reviewed_actions"] == len(stored.actions)
    assert len(got["chances"]) == len(stored.actions) + 1
    assert all(len(c) == 2 and sum(c) <= 1 + 1e-9 for c in got["chances"])
    assert got["iterations"] == got["futures"] == iterations_for(len(stored.actions))
    assert got["basis"] == BASIS and got["reason"] == "win"
    # The same review as the bots' own, from the same record and budget.
    origin = {"players": stored.players, "options": stored.options, "seed": stored.seed}
    record = Record(origin=origin, actions=tuple(Action.from_json(a) for a in stored.actions))
    expected = review(record, 1, iterations=got["iterations"])
    assert got["winner"] == expected.winner is not None
    assert got["chances"][-1] == [1.0 if s == expected.winner else 0.0 for s in range(2)]
    assert got["chances"] == [list(c) for c in expected.chances()]
    assert got["turning_points"] == [t.to_json() for t in expected.turning_points]
    assert [m["text"] for m in got["mistakes"]] == [m.describe() for m in expected.mistakes]
    assert all(m["best"] != m["played"] for m in got["mistakes"])


def test_a_review_without_a_seat_lists_no_mistakes(client: TestClient) -> None:
    game_id = finished_game(client, seed=6)
    got = client.get(f"/api/games/{game_id}/review").json()
    assert got["seat"] is None and got["mistakes"] == [] and len(got["turning_points"]) <= 5
    for point in got["turning_points"]:  # (a turn's end is named by its draws, R7b, R8)
        assert point["swing"] >= TURNING and point["cause"] in ("decision", "draw", "theft")
        assert (point["cause"] == "draw") == (point["cards"] != [] and point["text"] == "end")


def test_r1_a_seat_not_in_the_game_is_refused(client: TestClient) -> None:
    game_id = finished_game(client)
    message = refused(
        client.get(f"/api/games/{game_id}/review", params={"seat": 2}), 422, "unknown-seat"
    )
    assert "seats 0 to 1" in message
    refused(client.get(f"/api/games/{game_id}/review", params={"seat": 9}), 422, "invalid-request")
    refused(client.get("/api/games/nosuchgame/review"), 404, "unknown-game")


def test_a_review_is_computed_once_and_off_the_event_loop(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = finished_game(client)
    calls: list[str] = []
    original = review_module.review_json

    def counting(*args: Any) -> dict[str, Any]:
        calls.append(threading.current_thread().name)
        return original(*args)

    monkeypatch.setattr(review_module, "review_json", counting)
    first = client.get(f"/api/games/{game_id}/review", params={"seat": 0})
    second = client.get(f"/api/games/{game_id}/review", params={"seat": 0})
    assert first.status_code == second.status_code == 200
    assert first.json() == second.json()
    assert len(calls) == 1 and calls[0].startswith("gotown-review")
    client.get(f"/api/games/{game_id}/review", params={"seat": 1})
    assert len(calls) == 2  # (another seat: another review)


def test_reviews_are_bounded_like_the_estimates(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    started = threading.Event()

    def slow(*args: Any) -> dict[str, Any]:
        started.set()
        release.wait(30)
        return review_json(*args)

    with running(settings.with_(max_pending_estimates_per_client=1)) as client:
        game_id = finished_game(client)
        monkeypatch.setattr(review_module, "review_json", slow)
        results: list[int] = []
        url = f"/api/games/{game_id}/review"
        waiting = threading.Thread(
            target=lambda: results.append(client.get(url, params={"seat": 0}).status_code)
        )
        try:
            waiting.start()
            assert started.wait(30)
            message = refused(client.get(url, params={"seat": 1}), 429, "estimate-busy")
            assert "1 reviews" in message
        finally:
            release.set()
            waiting.join(60)
        assert results == [200]
        assert client.get(url, params={"seat": 1}).status_code == 200


def test_the_budget_is_shared_by_the_positions_within_bounds() -> None:
    least, most = QUICK_ITERATIONS
    assert iterations_for(10) == most
    assert iterations_for(2 * QUICK_BUDGET // most) == most // 2
    assert iterations_for(MAX_ACTIONS) == iterations_for(10 * MAX_ACTIONS) == least


def test_a_review_is_kept_for_good_a_restart_serves_it_without_computing_it_again(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A finished game never changes: its review, once computed, is kept in the database (a
    review costs seconds of CPU; a restart, or a crowd asking for it, costs none)."""
    with running(settings) as client:
        game_id = finished_game(client)
        first = client.get(f"/api/games/{game_id}/review", params={"seat": 0})
        assert first.status_code == 200, first.text

    def fails(*args: Any) -> dict[str, Any]:
        raise AssertionError("computed again")

    monkeypatch.setattr(review_module, "review_json", fails)
    with running(settings) as client:
        again = client.get(f"/api/games/{game_id}/review", params={"seat": 0})
        assert again.status_code == 200, again.text
        assert again.json() == first.json()
        other = client.get(f"/api/games/{game_id}/review", params={"seat": 1})
        assert other.status_code == 503  # (not kept: computed, and here it fails)
