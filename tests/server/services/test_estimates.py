"""Estimates (:mod:`gotown.server.services.estimates`): hints and chances, their work and
their bound."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from typing import Any

import pytest
from fastapi.testclient import TestClient

import gotown.bots
import gotown.server.services.estimates as estimates_module
from gotown.engine import Action, Game, Options, View
from gotown.server.config import Settings
from gotown.server.errors import DomainError, status_of
from gotown.server.services.estimates import last_turn_end
from gotown.server.storage import StoredGame

from ..helpers import (
    EventCounter,
    auth,
    end_current_turn,
    end_turn,
    new_game,
    record_of,
    running,
    service_of,
    state,
    stored_game,
)


def _last_turn_end_the_old_way(
    stored: StoredGame, seat: int
) -> tuple[int, dict[str, Any], Action] | None:
    game = Game.new(
        players=stored.players, seed=stored.seed, options=Options.from_json(stored.options)
    )
    found: tuple[int, dict[str, Any], Action] | None = None
    for data in stored.actions:
        action = Action.from_json(data)
        if game.active == seat and action.type == "end-turn":
            found = (game.version, game.view(seat).to_json(), action)
        game.apply(action)
    return found


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_the_last_end_of_turn_is_as_before_and_found_in_linear_work(
    thief_game: Game, seat: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = record_of(thief_game)
    expected = _last_turn_end_the_old_way(stored, seat)
    assert expected is not None
    counter = EventCounter(monkeypatch)
    found = last_turn_end(stored, stored.actions, seat)
    assert found is not None
    version, view, action = found
    assert (version, view.to_json(), action) == expected
    assert 0 < counter.converted <= 2 * thief_game.event_count


def test_no_end_of_turn_yet_is_none() -> None:
    stored = stored_game([], players=2, seed=3, options=Options(first_player=0))
    assert last_turn_end(stored, [], 0) is None
    assert last_turn_end(stored, [Action.end_turn().to_json()], 1) is None
    assert last_turn_end(stored, [Action.end_turn().to_json()], 0) is not None


class BlockingHint:
    """A hint that waits for ``release`` (bounded), counting its calls."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Event()
        self.calls: list[int | None] = []

    def __call__(
        self, view: View, legal: Sequence[Action], seed: int, top: int = 3
    ) -> list[tuple[Action, float]]:
        self.calls.append(view.seat)
        self.started.set()
        self.release.wait(30)
        return [(legal[0], 0.5)]


@pytest.fixture
def blocking_hint(monkeypatch: pytest.MonkeyPatch) -> Iterator[BlockingHint]:
    hint = BlockingHint()
    monkeypatch.setattr(gotown.bots, "hint", hint)
    yield hint
    hint.release.set()


def _refusal(future: Future[Any]) -> DomainError:
    with pytest.raises(DomainError) as caught:
        future.result(timeout=30)
    return caught.value


def test_pending_estimates_are_bounded_in_all_and_per_address(
    settings: Settings, blocking_hint: BlockingHint
) -> None:
    bounded = settings.with_(max_pending_estimates=2, max_pending_estimates_per_client=1)
    with running(bounded) as client:
        service = service_of(client)
        portal = client.portal
        assert portal is not None
        games = [
            new_game(client, ["human", "human"], seed=70 + i, options={"first_player": 0})
            for i in range(3)
        ]
        (g1, t1), (g2, t2), (g3, t3) = ((gid, tokens[0]) for gid, tokens in games)
        first = portal.start_task_soon(service.estimates.hint, g1, t1, "10.0.0.1")
        assert blocking_hint.started.wait(30)
        # The same address again, for another estimate: refused, by name.
        busy = _refusal(portal.start_task_soon(service.estimates.hint, g2, t2, "10.0.0.1"))
        assert (status_of(busy), busy.code) == (429, "estimate-busy")
        assert "per address" in busy.message
        # The one under way is shared with anyone, without counting again.
        shared = portal.start_task_soon(service.estimates.chances, g1, t1, "10.0.0.2")
        second = portal.start_task_soon(service.estimates.hint, g2, t2, "10.0.0.2")
        # Two in all: a third address is refused too, and over HTTP with its error.
        busy = _refusal(portal.start_task_soon(service.estimates.chances, g3, t3, "10.0.0.3"))
        assert (status_of(busy), busy.code) == (429, "estimate-busy")
        assert "on this server" in busy.message
        r = client.get(f"/api/games/{g3}/hint", headers=auth(t3))
        assert r.status_code == 429 and r.json()["error"]["code"] == "estimate-busy", r.text
        assert blocking_hint.calls == [0]  # nothing refused was queued
        blocking_hint.release.set()
        assert first.result(30).hints[0].win_probability == 0.5
        assert shared.result(30).win_probability == 0.5
        assert second.result(30).version == 0
        assert len(blocking_hint.calls) == 2
        # Done: room again.
        r = client.get(f"/api/games/{g3}/hint", headers=auth(t3))
        assert r.status_code == 200, r.text


def test_the_chances_replay_the_game_once_per_number_of_actions(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gotown.bots, "hint", lambda view, legal, seed, top=3: [(legal[0], 0.25)])
    replays: list[int] = []
    original = estimates_module.last_turn_end

    def counting(stored: Any, actions: list[dict[str, Any]], seat: int) -> Any:
        replays.append(len(actions))
        return original(stored, actions, seat)

    monkeypatch.setattr(estimates_module, "last_turn_end", counting)
    gid, tokens = new_game(client, ["human"] * 3, seed=67, options={"first_player": 0})
    answers = []
    for seat in (0, 1):
        assert end_turn(client, gid, tokens[seat], seat).status_code == 200
        for _ in range(3):
            r = client.get(f"/api/games/{gid}/chances", headers=auth(tokens[0]))
            assert r.status_code == 200, r.text
            answers.append(r.json())
    assert replays == [1, 2]
    assert {a["basis"] for a in answers} == {"after-turn"}
    assert {a["of_version"] for a in answers} == {0}


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
    end_current_turn(client, gid, tokens[0])
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
