"""Helpers for the web table's tests: a running app, games made and played over HTTP, slow
bots, and the test databases."""

from __future__ import annotations

import asyncio
import os
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from gotown.engine import Action, Game, Options, View
from gotown.server.config import Settings
from gotown.server.main import create_app
from gotown.server.services import GameService
from gotown.server.services.bots import Bots
from gotown.server.services.registry import rebuild
from gotown.server.storage import StoredGame, StoredSeat
from gotown.server.tables import ActionRow

POSTGRES_ENV = "GOTOWN_TEST_POSTGRES_URL"
#: Redis for the cross-process fan-out tests (scripts/test sets it; a local Redis otherwise).
REDIS_URL = os.environ.get("GOTOWN_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def postgres_url_from_env() -> str:
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        pytest.fail(
            f"{POSTGRES_ENV} is not set: the PostgreSQL tests need a database URL, for example "
            f"{POSTGRES_ENV}=postgresql+psycopg://postgres@127.0.0.1:5432/gotown_test "
            "(the test runner script sets it)",
            pytrace=False,
        )
    return url


def create_database_if_missing(url: str) -> None:
    """Create the test database on the server when it does not exist yet."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    target = make_url(url)
    admin = create_engine(target.set(database="postgres"), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            exists = conn.execute(
                text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": target.database}
            ).scalar()
            if not exists:
                conn.execute(text(f'CREATE DATABASE "{target.database}"'))
    finally:
        admin.dispose()


def reset_postgres(url: str) -> None:
    from gotown.server.storage import Store
    from gotown.server.tables import Base

    create_database_if_missing(url)
    from sqlalchemy import text

    store = Store(url)
    try:
        Base.metadata.drop_all(store.engine)
        with store.engine.begin() as conn:
            conn.execute(text("DROP TABLE IF EXISTS alembic_version"))
    finally:
        store.dispose()


@contextmanager
def running(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as client:
        yield client


def auth(token: str | None) -> dict[str, str]:
    return {"X-Seat-Token": token} if token else {}


def invite_code(created: dict[str, Any]) -> str:
    return str(created["invite_url"]).rsplit("/", 1)[1]


def new_game(
    client: TestClient,
    kinds: list[str],
    *,
    seed: int = 7,
    options: dict[str, Any] | None = None,
    level: str = "random",
    names: tuple[str, ...] = ("Anna", "Bob", "Cleo", "Dan"),
) -> tuple[str, dict[int, str]]:
    """Create a game with these seat kinds, fill every person seat; answer id and tokens."""
    seats = [{"kind": k, "level": level} if k == "bot" else {"kind": "human"} for k in kinds]
    first_human = kinds.index("human") if "human" in kinds else None
    body: dict[str, Any] = {"seats": seats, "seed": seed, "options": options or {"win_floors": 4}}
    if first_human is not None:
        body["name"] = names[first_human]
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    created = r.json()
    tokens: dict[int, str] = {}
    if created["seat"] is not None:
        tokens[created["seat"]] = created["token"]
    for seat, kind in enumerate(kinds):
        if kind == "human" and seat not in tokens:
            j = client.post(
                f"/api/games/{created['game_id']}/join",
                json={"code": invite_code(created), "name": names[seat], "seat": seat},
            )
            assert j.status_code == 200, j.text
            tokens[seat] = j.json()["token"]
    return created["game_id"], tokens


def state(
    client: TestClient, game_id: str, token: str | None = None, *, events_from: int = 0
) -> dict[str, Any]:
    """The state (its events from ``events_from`` on: compare a socket's push with
    ``events_from=push["events_from"]``)."""
    params = {"events_from": events_from} if events_from else None
    r = client.get(f"/api/games/{game_id}/state", params=params, headers=auth(token))
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def play_one(client: TestClient, game_id: str, tokens: dict[int, str], rng: random.Random) -> int:
    """One action (:func:`choose`) of the seat to act, over HTTP; answers the new version."""
    public = state(client, game_id)
    assert public["status"] == "playing", "the game ended too soon for this test"
    active = public["view"]["active"]
    mine = state(client, game_id, tokens[active])
    r = client.post(
        f"/api/games/{game_id}/actions",
        json={"version": mine["version"], "action": choose(mine["legal"], rng)},
        headers=auth(tokens[active]),
    )
    assert r.status_code == 200, r.text
    version: int = r.json()["version"]
    return version


def choose(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A quick player: builds and steals first, other cards sometimes, else ends the turn."""
    builds = [a for a in legal if a["type"] in ("build", "steal")]
    if builds:
        return rng.choice(builds)
    others = [a for a in legal if a["type"] != "end-turn"]
    if others and rng.random() < 0.5:
        return rng.choice(others)
    return next(a for a in legal if a["type"] == "end-turn")


def wait_until(
    client: TestClient,
    game_id: str,
    token: str | None,
    done: Callable[[dict[str, Any]], bool],
    *,
    polls: int = 5000,
) -> dict[str, Any]:
    """Poll the state (bots play in the server's loop) until ``done``; bounded by count."""
    import time

    for _ in range(polls):
        st = state(client, game_id, token)
        if done(st):
            return st
        time.sleep(0.005)
    raise AssertionError(
        f"the game did not reach the expected state: {st['status']} v{st['version']}"
    )


def bots_idle(service: GameService, game_id: str) -> bool:
    """Wait (bounded by count) until a game's bots have stopped playing here; True if they did."""
    import time

    for _ in range(3000):
        live = service.registry.get(game_id)
        if live is None or not service.bots.is_playing(live):
            return True
        time.sleep(0.01)
    return False


def play_to_end(
    client: TestClient,
    game_id: str,
    tokens: dict[int, str],
    *,
    seed: int = 1,
    max_actions: int = 3000,
    on_state: Callable[[int, dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Play every person seat (bots play themselves) until the game is over."""
    rng = random.Random(seed)
    any_token = next(iter(tokens.values()))
    for _ in range(max_actions):
        st = state(client, game_id, any_token)
        if st["status"] == "over":
            return st
        active = st["view"]["active"]
        if active not in tokens:
            wait_until(
                client,
                game_id,
                any_token,
                lambda s: s["status"] == "over" or s["view"]["active"] in tokens,
            )
            continue
        mine = state(client, game_id, tokens[active])
        if on_state is not None:
            on_state(active, mine)
        action = choose(mine["legal"], rng)
        r = client.post(
            f"/api/games/{game_id}/actions",
            json={"version": mine["version"], "action": action},
            headers=auth(tokens[active]),
        )
        assert r.status_code == 200, r.text
    raise AssertionError("the game did not end")


class SlowBot:
    """A bot seat that says when it starts thinking (``started``) and ends its turn only once
    the test sets ``release`` (R21: ending the turn is always legal)."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()

    def choose(self, view: View, legal: Any) -> Action:
        self.started.set()
        self.release.wait(30)
        return Action.end_turn()


def slow_bots(monkeypatch: pytest.MonkeyPatch) -> SlowBot:
    """Make every bot seat of the server play as one :class:`SlowBot`, returned."""
    bot = SlowBot()
    monkeypatch.setattr(Bots, "bot_for", lambda self, live, seat: bot)
    return bot


# --- shared by several test modules ----------------------------------------------------------

THIEF_PLAYERS, THIEF_SEED = 4, 2


def refused(r: Any, status: int, code: str) -> str:
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert error["code"] == code and error["message"], error
    message: str = error["message"]
    return message


def thief_game_played() -> Game:
    """A complete 4-player game that plays thieves whenever it can: cards stolen, seen by the
    thief and its victim only, and the draw pile reshuffled twice."""
    game = Game.new(players=THIEF_PLAYERS, seed=THIEF_SEED, options=Options())
    rng = random.Random(THIEF_SEED)
    while not game.is_over:
        legal = game.legal_actions()
        thieves = [a for a in legal if a.type in ("thief", "super-thief")]
        builds = [a for a in legal if a.type in ("build", "steal")]
        others = [a for a in legal if a.type != "end-turn"]
        if thieves and rng.random() < 0.7:
            action = rng.choice(thieves)
        elif builds:
            action = rng.choice(builds)
        elif others and rng.random() < 0.5:
            action = rng.choice(others)
        else:
            action = Action.end_turn()
        game.apply(action)
    return game


def stored_game(
    actions: list[dict[str, Any]],
    players: int = THIEF_PLAYERS,
    seed: int = THIEF_SEED,
    options: Options | None = None,
) -> StoredGame:
    return StoredGame(
        id="g",
        players=players,
        seed=seed,
        options=(options or Options()).to_json(),
        language="en",
        invite_code="c",
        status="over",
        seats=[StoredSeat(i, "human", None, f"P{i}", None) for i in range(players)],
        actions=actions,
    )


def record_of(game: Game) -> StoredGame:
    return stored_game([a.to_json() for a in game.actions])


class EventCounter:
    """Wraps ``Game.events``: how many events were converted into a seat's eyes."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.converted = 0
        original = Game.events

        def counting(game: Game, seat: int | None, start: int = 0) -> list[Any]:
            events = original(game, seat, start)
            self.converted += len(events)
            return events

        monkeypatch.setattr(Game, "events", counting)


def settled(service: Any, live: Any, sockets: int) -> None:
    """Wait (bounded by count) until the server handled every socket that closed."""
    for _ in range(2000):
        if service.presence.sockets(live) == sockets and not service.presence.background_tasks():
            return
        time.sleep(0.005)
    open_now, telling = service.presence.sockets(live), service.presence.background_tasks()
    raise AssertionError(f"{open_now} sockets open, {telling} tasks left")


def service_of(client: TestClient) -> GameService:
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    return service


def store_end_turns(client: TestClient, game_id: str, count: int) -> Game:
    """Append ``count`` ended turns to the game's stored record (in one transaction, as if they
    had been played), and make the server forget the game, so that the next request loads it
    again from the database. Answers the game after them."""
    service = service_of(client)
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


def end_turn(client: TestClient, game_id: str, token: str, version: int) -> Any:
    return client.post(
        f"/api/games/{game_id}/actions",
        json={"version": version, "action": {"type": "end-turn"}},
        headers=auth(token),
    )


def next_state(ws: WebSocketTestSession) -> dict[str, Any]:
    message = ws.receive_json()
    assert message["type"] == "state", message
    state_: dict[str, Any] = message["state"]
    return state_


def on_loop() -> bool:
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
            self.built.append((name, on_loop(), seat, len(view.events)))
            return view

        monkeypatch.setattr(Game, "view", recording)

    def with_events(self) -> list[tuple[str, bool, int | None, int]]:
        return [b for b in self.built if b[3] > 0]


def error_of(r: Any, status: int, code: str) -> dict[str, Any]:
    """The error of a refused response, checked: its status, its code and a message."""
    assert r.status_code == status, r.text
    body: dict[str, Any] = r.json()
    assert body["error"]["code"] == code, body
    assert body["error"]["message"]
    error: dict[str, Any] = body["error"]
    return error


def act(
    client: TestClient, game_id: str, token: str | None, version: int, action: dict[str, Any]
) -> Any:
    return client.post(
        f"/api/games/{game_id}/actions",
        json={"version": version, "action": action},
        headers=auth(token),
    )


def end_current_turn(client: TestClient, game_id: str, token: str) -> dict[str, Any]:
    """End the turn of ``token``'s seat at the game's current version; answers the state."""
    r = end_turn(client, game_id, token, state(client, game_id, token)["version"])
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data
