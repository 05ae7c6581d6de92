"""Found in review: what one client could make the server do, and what the wire let through.

- a game of people had no end, and every full state of a long one was built, and encoded, in
  the event loop; sockets could be opened without counting;
- the queue of hint and chances estimates had no bound;
- an action over a socket built a whole state and threw it away;
- the chances replayed the whole game at every request;
- an action's version was coerced (``true``, ``"2"``), and a socket's action message kept only
  the fields it knew;
- JSON that Python cannot read (nested too deeply, a number too long) got an untranslated 400;
- anyone could start any number of tables of bots only, all resumed at every restart.

Long games are built by storing their actions directly; work is asserted by counting and by
where it ran, never by time.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

import gotown.bots
import gotown.server.services.estimates as estimates_module
from gotown.engine import Action, Game, Options, View
from gotown.server import schemas
from gotown.server.config import Settings
from gotown.server.errors import DomainError, status_of
from gotown.server.main import create_app
from gotown.server.services import GameService
from gotown.server.services.registry import rebuild
from gotown.server.services.tokens import hash_token
from gotown.server.storage import ActionRow, StoredGame, StoredSeat

from .helpers import auth, bots_idle, new_game, running, slow_bots, state, wait_until

# --- helpers ----------------------------------------------------------------------------------


def _service(client: TestClient) -> GameService:
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    return service


def _store_end_turns(client: TestClient, game_id: str, count: int) -> Game:
    """Append ``count`` ended turns to the game's stored record (in one transaction, as if they
    had been played), and make the server forget the game, so that the next request loads it
    again from the database. Answers the game after them."""
    service = _service(client)
    stored = service.store.load_game(game_id)
    assert stored is not None
    game = rebuild(stored)
    assert game is not None
    with service.store.session() as session, session.begin():
        for _ in range(count):
            action = Action.end_turn()
            session.add(
                ActionRow(
                    game_id=game_id, seq=game.version, seat=game.active, action=action.to_json()
                )
            )
            game.apply(action)
    service.registry.drop(game_id)
    return game


def _end_turn(client: TestClient, game_id: str, token: str, version: int) -> Any:
    return client.post(
        f"/api/games/{game_id}/actions",
        json={"version": version, "action": {"type": "end-turn"}},
        headers=auth(token),
    )


def _next_state(ws: WebSocketTestSession) -> dict[str, Any]:
    message = ws.receive_json()
    assert message["type"] == "state", message
    state_: dict[str, Any] = message["state"]
    return state_


def _next_error(ws: WebSocketTestSession) -> dict[str, Any]:
    while (message := ws.receive_json())["type"] == "state":
        pass
    assert message["type"] == "error", message
    error: dict[str, Any] = message["error"]
    return error


def _on_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class ViewRecorder:
    """Wraps ``Game.view``: for each view built, its thread, whether that thread runs an
    event loop, its seat and how many events it holds."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.built: list[tuple[str, bool, int | None, int]] = []
        original = Game.view

        def recording(game: Game, seat: int | None) -> View:
            view = original(game, seat)
            name = threading.current_thread().name
            self.built.append((name, _on_loop(), seat, len(view.events)))
            return view

        monkeypatch.setattr(Game, "view", recording)

    def with_events(self) -> list[tuple[str, bool, int | None, int]]:
        return [b for b in self.built if b[3] > 0]


# --- 1a. every game has an end -----------------------------------------------------------------


def test_a_game_of_people_created_without_a_limit_ends_at_the_server_s_ceiling(
    client: TestClient,
) -> None:
    meta = client.get("/api/meta").json()["options"]["turn_limit"]
    assert meta["people_default"] == schemas.MAX_TURN_LIMIT == meta["maximum"]
    gid, tokens = new_game(client, ["human", "human"], seed=61, options={"first_player": 0})
    assert state(client, gid)["lobby"]["options"]["turn_limit"] == schemas.MAX_TURN_LIMIT
    # Turn N ends the game (R23): one turn is one ended turn here (nobody plays a card).
    game = _store_end_turns(client, gid, schemas.MAX_TURN_LIMIT - 1)
    st = state(client, gid, tokens[game.active])
    assert st["status"] == "playing" and st["view"]["turn"] == schemas.MAX_TURN_LIMIT
    r = _end_turn(client, gid, tokens[game.active], game.version)
    assert r.status_code == 200, r.text
    final = r.json()
    assert final["status"] == "over" and final["view"]["winner"] is None
    assert final["view"]["events"][-1] == {"type": "end", "winner": None, "reason": "turn-limit"}
    r = _end_turn(client, gid, tokens[0], final["version"])
    assert r.status_code == 409 and r.json()["error"]["code"] == "game-over"


def test_a_game_stored_with_no_limit_before_the_ceiling_replays_as_it_was(
    client: TestClient,
) -> None:
    """The ceiling is written in a new game's options: a record stored before it (null) still
    replays exactly, past the ceiling, and plays on."""
    service = _service(client)
    stored = StoredGame(
        id="oldgame",
        players=2,
        seed=62,
        options=Options(first_player=0).to_json(),
        language="en",
        invite_code="oldcode",
        status="playing",
        seats=[StoredSeat(i, "human", None, f"P{i}", hash_token(f"tok{i}")) for i in (0, 1)],
    )
    assert stored.options["turn_limit"] is None
    service.store.create_game(stored)
    game = _store_end_turns(client, "oldgame", schemas.MAX_TURN_LIMIT + 3)
    st = state(client, "oldgame", f"tok{game.active}")
    assert st["status"] == "playing" and st["version"] == schemas.MAX_TURN_LIMIT + 3
    assert st["lobby"]["options"]["turn_limit"] is None
    assert st["view"] == game.view(game.active).to_json()
    r = _end_turn(client, "oldgame", f"tok{game.active}", game.version)
    assert r.status_code == 200 and r.json()["status"] == "playing", r.text


def test_the_ceiling_is_documented_in_the_openapi_schema(client: TestClient) -> None:
    openapi = client.get("/openapi.json").json()
    options = openapi["components"]["schemas"]["CreateGameIn"]["properties"]["options"]
    assert str(schemas.MAX_TURN_LIMIT) in options["description"]
    assert "no winner" in options["description"] and "R23" in options["description"]
    assert "people_default" in openapi["components"]["schemas"]["OptionOut"]["properties"]
    assert "no winner" in openapi["info"]["description"]


# --- 1b. full views off the event loop, once per version ---------------------------------------


def test_a_long_game_s_full_views_are_built_off_the_event_loop_once_per_version(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=63, options={"first_player": 0})
    game = _store_end_turns(client, gid, 600)
    assert game.event_count > 1000
    recorder = ViewRecorder(monkeypatch)
    encoded: list[tuple[bool, int]] = []  # (on the loop, events)
    dump_json = schemas.StateOut.model_dump_json

    def encoding(self: schemas.StateOut, **kwargs: Any) -> str:
        encoded.append((_on_loop(), len(self.view["events"]) if self.view else 0))
        return dump_json(self, **kwargs)

    monkeypatch.setattr(schemas.StateOut, "model_dump_json", encoding)
    me = game.active
    answers = [state(client, gid, tokens[me]) for _ in range(3)]
    tail = state(client, gid, tokens[me], events_from=1)  # nearly every event, all the same
    spectator = state(client, gid)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"token": tokens[me]})
        pushed = _next_state(ws)
    built = recorder.with_events()
    # What they hold is the seat's (the spectator's) view, every event included.
    full = game.view(me).to_json()
    assert all(a["view"] == full and a["events_from"] == 0 for a in answers)
    assert pushed["view"] == full
    assert tail["events_from"] == 1 and tail["view"] == {**full, "events": full["events"][1:]}
    assert spectator["view"] == game.public_view().to_json()
    # Each view holding events was built once for its seat, in the view worker.
    assert sorted((b[2] for b in built), key=str) == [me, None], built
    assert all(name.startswith("gotown-view") and not loop for name, loop, _s, _n in built)
    # And every long state was encoded there too.
    long = [on_loop for on_loop, events in encoded if events > 1000]
    assert len(long) == 6 and not any(long)


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


# --- 1c. sockets count against the rate limit --------------------------------------------------


def test_socket_connections_count_against_each_address_s_rate_limit(settings: Settings) -> None:
    limited = settings.with_(rate_limit_per_minute=3)
    with TestClient(create_app(limited), client=("10.0.0.7", 50000)) as client:
        gid, _tokens = new_game(client, ["bot", "bot"], seed=65, options={"turn_limit": 2})
        for _ in range(2):  # the creation, and two sockets: the budget of 3
            with client.websocket_connect(f"/ws/games/{gid}") as ws:
                ws.send_json({"token": None})
                assert _next_state(ws)["game_id"] == gid
        with client.websocket_connect(f"/ws/games/{gid}") as ws:
            error = ws.receive_json()
            assert error["type"] == "error", error
            assert error["error"]["code"] == "too-many-requests"
            assert "3 requests and connections in a minute" in error["error"]["message"]
            closing = ws.receive()
            assert closing["type"] == "websocket.close" and closing["code"] == 4429, closing
            assert "wait" in closing["reason"]
        r = client.get("/api/meta")
        assert r.status_code == 429 and r.json()["error"]["code"] == "too-many-requests"


# --- 2. the estimates' queue is bounded --------------------------------------------------------


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
        service = _service(client)
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


# --- 3. an action over a socket builds no state -------------------------------------------------


def test_an_action_over_a_socket_builds_no_full_view(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=66, options={"first_player": 0})
    game = _store_end_turns(client, gid, 400)
    me = game.active
    held = game.event_count
    recorder = ViewRecorder(monkeypatch)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"token": tokens[me], "events_from": held})
        first = _next_state(ws)
        assert first["events_from"] == held and first["view"]["events"] == []
        ws.send_json({"type": "action", "version": game.version, "action": {"type": "end-turn"}})
        pushed = _next_state(ws)
    assert recorder.with_events() == []  # no view of every event, anywhere
    assert pushed["version"] == game.version + 1 and pushed["events_from"] == held
    game.apply(Action.end_turn())
    assert pushed["view"]["events"] == game.view(me).to_json()["events"][held:]


# --- 4. the chances find the last end of turn once per number of actions -----------------------


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
        assert _end_turn(client, gid, tokens[seat], seat).status_code == 200
        for _ in range(3):
            r = client.get(f"/api/games/{gid}/chances", headers=auth(tokens[0]))
            assert r.status_code == 200, r.text
            answers.append(r.json())
    assert replays == [1, 2]
    assert {a["basis"] for a in answers} == {"after-turn"}
    assert {a["of_version"] for a in answers} == {0}


# --- 5. versions are whole numbers; a socket's action is checked whole --------------------------


@pytest.mark.parametrize("version", [False, True, "0", 0.0, "1"])
def test_an_action_s_version_must_be_a_whole_number(client: TestClient, version: Any) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=68, options={"first_player": 0})
    r = client.post(
        f"/api/games/{gid}/actions",
        json={"version": version, "action": {"type": "end-turn"}},
        headers=auth(tokens[0]),
    )
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["code"] == "invalid-request" and error["message"].startswith("version: ")
    assert state(client, gid)["version"] == 0


@pytest.mark.parametrize(
    "extra",
    [
        {"verison": 9},
        {"events_from": -5},
        {"events_from": "3"},
        {"events_from": 10**6},
        {"version": True},
    ],
)
def test_a_socket_s_action_is_checked_whole_as_over_http(
    client: TestClient, extra: dict[str, Any]
) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=69, options={"first_player": 0})
    body = {"version": 0, "action": {"type": "end-turn"}, **extra}
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"token": tokens[0]})
        _next_state(ws)
        ws.send_json({"type": "action", **body})
        ws.send_json({"type": "ping"})
        answers = []
        while (message := ws.receive_json())["type"] != "pong":
            answers.append(message)
    # One error, and no state: nothing changed.
    assert [m["type"] for m in answers] == ["error"], answers
    error = answers[0]["error"]
    over_http = client.post(f"/api/games/{gid}/actions", json=body, headers=auth(tokens[0]))
    assert over_http.status_code == 422, over_http.text
    assert error == over_http.json()["error"]
    assert state(client, gid)["version"] == 0


# --- 6. JSON that cannot be read says why -------------------------------------------------------


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
    assert _service(client).store.game_ids_with_status("lobby") == []


def test_a_socket_message_that_cannot_be_read_says_why(client: TestClient) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=71)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"token": tokens[0]})
        _next_state(ws)
        ws.send_text('{"type": "action", "version": ' + "1" * 5000 + "}")
        error = _next_error(ws)
        assert error["code"] == "malformed-json" and "digits" in error["message"]
        ws.send_text("[" * 5000)
        error = _next_error(ws)
        assert error["code"] == "malformed-json" and "nested too deeply" in error["message"]


# --- 7. tables of bots only are bounded ---------------------------------------------------------

BOTS_ONLY = {"seats": [{"kind": "bot", "level": "random"}] * 2, "options": {"turn_limit": 2}}


def test_tables_of_bots_only_are_bounded_in_all_and_per_address(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = slow_bots(monkeypatch)  # (their bots keep thinking until released)
    bounded = settings.with_(max_bots_only_tables=2, max_bots_only_tables_per_client=1)
    try:
        with running(bounded) as client:
            service = _service(client)
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
            assert bots_idle(_service(client), watched)
            r = client.post(f"/api/games/{gid}/seats/0/bot", headers=auth(me), json={})
            assert r.status_code == 200, r.text
            assert bots_idle(_service(client), gid)
            assert state(client, gid)["status"] == "over"
    finally:
        bot.release.set()


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
        assert all(_bots_play(_service(client), gid) for gid in created)
    with running(waiting.with_(max_bots_only_tables=2)) as client:
        playing = [gid for gid in created if _bots_play(_service(client), gid)]
        assert playing == created[1:]  # the newest first
        assert state(client, created[0])["status"] == "playing"  # standing still
        r = client.post("/api/games", json=BOTS_ONLY)
        assert r.status_code == 429 and r.json()["error"]["code"] == "too-many-bot-tables"


def test_the_new_bounds_are_settings() -> None:
    env = {
        "GOTOWN_MAX_PENDING_ESTIMATES": "5",
        "GOTOWN_MAX_PENDING_ESTIMATES_PER_CLIENT": "3",
        "GOTOWN_MAX_BOTS_ONLY_TABLES": "7",
        "GOTOWN_MAX_BOTS_ONLY_TABLES_PER_CLIENT": "0",
    }
    settings = Settings.from_env(env)
    assert (settings.max_pending_estimates, settings.max_pending_estimates_per_client) == (5, 3)
    assert (settings.max_bots_only_tables, settings.max_bots_only_tables_per_client) == (7, 0)
    defaults = Settings.from_env({})
    assert (defaults.max_pending_estimates, defaults.max_pending_estimates_per_client) == (8, 2)
    assert (defaults.max_bots_only_tables, defaults.max_bots_only_tables_per_client) == (4, 2)
    with pytest.raises(ValueError, match="max_pending_estimates"):
        Settings(max_pending_estimates=0)
    with pytest.raises(ValueError, match="max_bots_only_tables"):
        Settings(max_bots_only_tables=-1)
