"""Helpers for the web table's tests: a running app, games made and played over HTTP, slow
bots, and the test databases."""

from __future__ import annotations

import os
import random
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gotown.engine import Action, View
from gotown.server.config import Settings
from gotown.server.main import create_app
from gotown.server.services import GameService
from gotown.server.services.bots import Bots

POSTGRES_ENV = "GOTOWN_TEST_POSTGRES_URL"
#: Redis for the cross-process fan-out tests (scripts/test sets it; a local Redis otherwise).
REDIS_URL = os.environ.get("GOTOWN_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


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
    from gotown.server.storage import Base, Store

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
