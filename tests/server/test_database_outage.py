"""The database stops answering (PostgreSQL refusing every connection: a real outage, not a
mock). Every request that needs it gets 503 ``storage-unavailable`` and changes nothing; once
it is back the same requests succeed, and a bot whose move could not be stored plays on by
itself."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gotown.server.config import Settings

from .helpers import auth, new_game, reset_postgres, running, state, wait_until

pytestmark = pytest.mark.postgres

END_TURN = {"type": "end-turn"}


@contextmanager
def outage(url: str) -> Iterator[None]:
    """PostgreSQL refuses new connections to the database and drops the open ones."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    target = make_url(url)
    name = target.database
    admin = create_engine(target.set(database="postgres"), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false'))
            conn.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = :name AND pid <> pg_backend_pid()"
                ),
                {"name": name},
            )
        yield
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true'))
        admin.dispose()


@pytest.fixture
def pg_settings(postgres_url: str) -> Settings:
    reset_postgres(postgres_url)
    return Settings(
        database_url=postgres_url,
        bot_delay=0,
        rate_limit_per_minute=0,
        absent_seconds=0,
        allow_seed=True,
    )


def _unavailable(response: Any) -> bool:
    return bool(
        response.status_code == 503
        and response.json()["error"]["code"] == "storage-unavailable"
        and "does not answer" in response.json()["error"]["message"]
    )


def _end_turn(client: TestClient, game_id: str, token: str, version: int) -> Any:
    return client.post(
        f"/api/games/{game_id}/actions",
        json={"version": version, "action": END_TURN},
        headers=auth(token),
    )


def test_requests_during_an_outage_get_503_and_change_nothing(
    pg_settings: Settings, postgres_url: str
) -> None:
    with running(pg_settings) as client:
        game_id, tokens = new_game(client, ["human", "human"], options={"first_player": 0})
        before = state(client, game_id, tokens[0])
        with outage(postgres_url):
            assert _unavailable(_end_turn(client, game_id, tokens[0], before["version"]))
            created = client.post("/api/games", json={"seats": [{"kind": "human"}] * 2})
            assert _unavailable(created)
            # the game held in memory is as it was: the action was not half made
            during = state(client, game_id, tokens[0])
            assert (during["version"], during["view"]) == (before["version"], before["view"])
        # the database is back: the very same request now succeeds
        after = _end_turn(client, game_id, tokens[0], before["version"])
        assert after.status_code == 200, after.text
        assert after.json()["version"] == before["version"] + 1
    with running(pg_settings) as client:  # a restart reads the record: that one action, once
        again = state(client, game_id, tokens[1])
        assert again["version"] == before["version"] + 1
        assert again["view"]["active"] == 1


def test_a_bot_whose_move_cannot_be_stored_plays_once_the_database_is_back(
    pg_settings: Settings, postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="gotown.server")
    with running(pg_settings.with_(bot_delay=1.0)) as client:
        game_id, tokens = new_game(
            client, ["human", "bot"], level="random", options={"first_player": 0}
        )
        version = state(client, game_id, tokens[0])["version"]
        r = _end_turn(client, game_id, tokens[0], version)
        assert r.status_code == 200, r.text
        with outage(postgres_url):  # the bot thinks for bot_delay, then cannot store its move
            deadline = time.monotonic() + 20
            while not any("does not answer" in m for m in caplog.messages):
                assert time.monotonic() < deadline, "the bot never tried to store its move"
                time.sleep(0.05)
            waiting = state(client, game_id, tokens[0])
            assert (waiting["version"], waiting["view"]["active"]) == (version + 1, 1)
        # nobody acts: the bot tries again by itself and its turn goes on
        moved = wait_until(client, game_id, tokens[0], lambda s: s["version"] > version + 1)
        assert moved["status"] in ("playing", "over")
