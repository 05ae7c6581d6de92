"""The bots at the tables (:mod:`gotown.server.services.bots`): their views, their ends,
and the tables of bots only."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

import gotown.bots
from gotown.server import schemas
from gotown.server.config import Settings
from gotown.server.errors import DomainError
from gotown.server.services import GameService
from gotown.server.services.bots import BOTS_ONLY_TURN_LIMIT

from ..helpers import (
    ViewRecorder,
    auth,
    bots_idle,
    new_game,
    running,
    service_of,
    slow_bots,
    state,
    wait_until,
)


def test_a_table_of_bots_only_plays_to_an_end(client: TestClient) -> None:
    gid, _tokens = new_game(client, ["bot", "bot", "bot"], seed=21, options={})
    final = wait_until(client, gid, None, lambda st: st["status"] == "over")
    assert final["lobby"]["options"]["turn_limit"] == BOTS_ONLY_TURN_LIMIT
    assert final["view"]["turn"] <= BOTS_ONLY_TURN_LIMIT


def test_r20b_bots_left_alone_in_a_stalemate_end_the_game(client: TestClient) -> None:
    # Seed 835 (4 floors): two medium bots reach, within 10 actions, two hands of 8 cards that
    # can do nothing (R7b, R21). A person who hands their seat to a bot leaves a table of bots
    # with the ceiling of a game of people: the game ends there, a stalemate with no winner
    # (R20b), instead of storing ten thousand ended turns.
    gid, tokens = new_game(client, ["bot", "human"], seed=835, level="medium")
    me = tokens[1]
    r = client.post(f"/api/games/{gid}/seats/1/bot", headers=auth(me), json={"level": "medium"})
    assert r.status_code == 200, r.text
    st = wait_until(client, gid, me, lambda now: now["status"] == "over")
    view = st["view"]
    assert (view["winner"], view["reason"]) == (None, "stalemate")
    assert view["hand_sizes"] == [8, 8] and view["turn"] < 20
    assert view["hands"] is not None and all(len(h) == 8 for h in view["hands"])  # R22
    assert view["events"][-1] == {"type": "end", "winner": None, "reason": "stalemate"}
    assert st["lobby"]["options"]["turn_limit"] == schemas.MAX_TURN_LIMIT


def test_the_bots_and_the_hints_build_their_views_off_the_event_loop(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = ViewRecorder(monkeypatch)
    monkeypatch.setattr(gotown.bots, "hint", lambda view, legal, seed, top=3: [(legal[0], 0.5)])
    gid, tokens = new_game(client, ["human", "bot"], seed=64, options={"first_player": 1})
    wait_until(client, gid, tokens[0], lambda st: st["view"]["active"] == 0)
    assert client.get(f"/api/games/{gid}/hint", headers=auth(tokens[0])).status_code == 200
    # In the view worker, whose views alone go to the bots' and the hints' workers.
    built = recorder.with_events()
    assert {seat for _name, _loop, seat, _events in built} == {0, 1}
    assert all(name.startswith("gotown-view") for name, _loop, _seat, _events in built)
    assert not any(loop for _name, loop, _seat, _events in built)


BOTS_ONLY = {"seats": [{"kind": "bot", "level": "random"}] * 2, "options": {"turn_limit": 2}}


def test_tables_of_bots_only_are_bounded_in_all_and_per_address(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = slow_bots(monkeypatch)  # (their bots keep thinking until released)
    bounded = settings.with_(max_bots_only_tables=2, max_bots_only_tables_per_client=1)
    try:
        with running(bounded) as client:
            service = service_of(client)
            portal = client.portal
            assert portal is not None
            spec = schemas.CreateGameIn.model_validate(BOTS_ONLY)
            r = client.post("/api/games", json=BOTS_ONLY)
            assert r.status_code == 201, r.text
            first = r.json()["game_id"]
            r = client.post("/api/games", json=BOTS_ONLY)
            assert r.status_code == 429, r.text
            error = r.json()["error"]
            assert error["code"] == "too-many-bot-tables" and "per address" in error["message"]
            portal.call(service.play.create_game, spec, "http://testserver", None, "10.0.0.9")
            with pytest.raises(DomainError) as caught:
                portal.call(service.play.create_game, spec, "http://testserver", None, "10.0.0.10")
            assert caught.value.code == "too-many-bot-tables"
            assert "on this server" in caught.value.message
            # A table with a person is another matter.
            new_game(client, ["human", "bot"], seed=72, options={"first_player": 0})
            # Once a table of bots only has ended, its place is free again.
            bot.release.set()
            assert bots_idle(service, first) and state(client, first)["status"] == "over"
            r = client.post("/api/games", json=BOTS_ONLY)
            assert r.status_code == 201, r.text
    finally:
        bot.release.set()


def test_a_hand_over_that_leaves_only_bots_needs_a_place(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = slow_bots(monkeypatch)
    try:
        with running(settings.with_(max_bots_only_tables=1)) as client:
            r = client.post("/api/games", json=BOTS_ONLY)
            assert r.status_code == 201, r.text
            watched = r.json()["game_id"]
            gid, tokens = new_game(client, ["human", "human"], seed=73, options={"turn_limit": 2})
            me = tokens[0]
            r = client.post(f"/api/games/{gid}/seats/1/bot", headers=auth(me), json={})
            assert r.status_code == 200, r.text  # a person is still at the table
            r = client.post(f"/api/games/{gid}/seats/0/bot", headers=auth(me), json={})
            assert r.status_code == 429, r.text
            assert r.json()["error"]["code"] == "too-many-bot-tables"
            assert state(client, gid)["lobby"]["seats"][0]["kind"] == "human"
            bot.release.set()
            assert bots_idle(service_of(client), watched)
            r = client.post(f"/api/games/{gid}/seats/0/bot", headers=auth(me), json={})
            assert r.status_code == 200, r.text
            assert bots_idle(service_of(client), gid)
            assert state(client, gid)["status"] == "over"
    finally:
        bot.release.set()


def resumed(client: TestClient) -> None:
    """Wait (bounded) until the games with bots are resumed after the start."""
    import time

    for _ in range(3000):
        task = service_of(client).resuming
        if task is not None and task.done():
            return
        time.sleep(0.01)
    raise AssertionError("the games with bots were not resumed")


def test_a_start_answers_at_once_and_resumes_only_the_games_with_bots_their_first_move_at_once(
    settings: Settings,
) -> None:
    """A crashed server must be back at once and its bots too: the games of people only are
    not loaded at a start (they are when asked for), and a bot whose turn it was moves without
    waiting for the bot delay (an hour here)."""
    with running(settings.with_(bot_delay=3600)) as client:
        people = [new_game(client, ["human", "human"], seed=s)[0] for s in (1, 2, 3)]
        gid, tokens = new_game(client, ["human", "bot"], seed=12, options={"first_player": 0})
        version = state(client, gid, tokens[0])["version"]
        r = client.post(
            f"/api/games/{gid}/actions",
            json={"version": version, "action": {"type": "end-turn"}},
            headers=auth(tokens[0]),
        )
        assert r.status_code == 200, r.text  # the bot's turn; it waits its hour
    with running(settings.with_(bot_delay=3600)) as client:
        resumed(client)
        service = service_of(client)
        assert service.registry.replays == 1 and service.registry.get(gid) is not None
        assert all(service.registry.get(p) is None for p in people)
        wait_until(client, gid, tokens[0], lambda s: s["version"] > version + 1)


def _bots_play(service: GameService, game_id: str) -> bool:
    live = service.registry.get(game_id)
    return live is not None and service.bots.is_playing(live)


def test_a_start_resumes_only_as_many_tables_of_bots_only_as_allowed(settings: Settings) -> None:
    # Bots that wait a minute before each move: their tables are playing, and nothing moves.
    waiting = settings.with_(bot_delay=60)
    with running(waiting) as client:
        created = []
        for _ in range(3):
            r = client.post("/api/games", json=BOTS_ONLY)
            assert r.status_code == 201, r.text
            created.append(r.json()["game_id"])
        assert all(_bots_play(service_of(client), gid) for gid in created)
    with running(waiting.with_(max_bots_only_tables=2)) as client:
        resumed(client)
        playing = [gid for gid in created if _bots_play(service_of(client), gid)]
        assert playing == created[1:]  # the newest first
        assert state(client, created[0])["status"] == "playing"  # standing still
        r = client.post("/api/games", json=BOTS_ONLY)
        assert r.status_code == 429 and r.json()["error"]["code"] == "too-many-bot-tables"


def test_a_bot_thinks_during_its_delay_not_after_it(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The delay between bot moves lets people follow them: the bot is asked at once, and its
    move is made when the delay is over (a quick bot answers in about its delay, a searching
    one in about the longer of the two), not after the delay and then its thought."""
    import threading

    from gotown.server.clock import Clock
    from gotown.server.main import create_app
    from gotown.server.services.bots import Bots

    asked = threading.Event()

    class Quick:
        def choose(self, view: object, legal: list[object]) -> object:
            asked.set()
            return legal[-1]

    monkeypatch.setattr(Bots, "bot_for", lambda self, live, seat: Quick())
    clock = Clock()
    with TestClient(create_app(settings.with_(bot_delay=3600), clock)) as client:
        gid, tokens = new_game(client, ["human", "bot"], seed=9, options={"first_player": 0})
        version = state(client, gid, tokens[0])["version"]
        r = client.post(
            f"/api/games/{gid}/actions",
            json={"version": version, "action": {"type": "end-turn"}},
            headers=auth(tokens[0]),
        )
        assert r.status_code == 200, r.text
        assert asked.wait(30), "the bot was not asked during its delay"
        assert state(client, gid)["version"] == version + 1  # its move waits for the delay
        assert client.portal is not None
        client.portal.call(clock.advance, 3600)
        wait_until(client, gid, tokens[0], lambda s: s["version"] >= version + 2)


def test_the_places_of_tables_of_bots_only_are_shared_between_addresses(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two places, two tables per address: one address takes both; another address's table
    still plays (the first address's newest stands still, it has played the most) and the
    table that stood still plays on, to its end, once a place is free."""
    bot = slow_bots(monkeypatch)
    try:
        shared = settings.with_(max_bots_only_tables=2, max_bots_only_tables_per_client=2)
        with running(shared) as client:
            service = service_of(client)
            assert client.portal is not None
            mine = []
            for _ in range(2):
                r = client.post("/api/games", json=BOTS_ONLY)
                assert r.status_code == 201, r.text
                mine.append(r.json()["game_id"])
            spec = schemas.CreateGameIn.model_validate(BOTS_ONLY)
            theirs = client.portal.call(
                service.play.create_game, spec, "http://testserver", None, "10.0.0.9"
            ).game_id
            bots = service.bots
            assert bots.is_bots_only(mine[0]) and bots.is_bots_only(theirs)
            assert not bots.is_bots_only(mine[1])  # waits for a place
            r = client.post("/api/games", json=BOTS_ONLY)  # (the address's two, waiting or not)
            assert r.status_code == 429 and "per address" in r.json()["error"]["message"]
            bot.release.set()
            for game_id in (*mine, theirs):
                wait_until(client, game_id, None, lambda s: s["status"] == "over")
            assert bots_idle(service, mine[1]) and not bots.is_bots_only(mine[1])
    finally:
        bot.release.set()
