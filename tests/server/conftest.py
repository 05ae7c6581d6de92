"""Fixtures for the web table: an app on SQLite or PostgreSQL, and a client of it (the helpers
are in :mod:`tests.server.helpers`)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gotown.engine import Game
from gotown.server.config import Settings

from .helpers import (
    create_database_if_missing,
    postgres_url_from_env,
    reset_postgres,
    running,
    thief_game_played,
)


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A database of this test session's own (the configured name plus the process id), so
    that two test runs against one PostgreSQL server never share tables; dropped at the end."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    base = make_url(postgres_url_from_env())
    own = base.set(database=f"{base.database}_{os.getpid()}")
    url = own.render_as_string(hide_password=False)
    create_database_if_missing(url)
    yield url
    admin = create_engine(base.set(database="postgres"), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{own.database}" WITH (FORCE)'))
    finally:
        admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'gotown.sqlite3'}"
    url: str = request.getfixturevalue("postgres_url")
    reset_postgres(url)
    return url


@pytest.fixture
def settings(database_url: str) -> Settings:
    # Tests start tables of bots only as they please, and ask for estimates one at a time:
    # the bounds on them are tested with their own settings. Bots and estimates think in
    # threads here, where tests can replace them (a slow bot, a broken hint); worker processes,
    # the server's default, are tested in test_workers.py and by the browser tests.
    return Settings(
        database_url=database_url,
        bot_delay=0,
        rate_limit_per_minute=0,
        absent_seconds=0,
        allow_seed=True,
        max_bots_only_tables=1000,
        max_bots_only_tables_per_client=1000,
        worker_processes=False,
    )


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with running(settings) as c:
        yield c


@pytest.fixture(scope="module")
def thief_game() -> Game:
    game = thief_game_played()
    kinds = [event.type for event in game.events(None)]
    # The premise: a finished game whose views differ by seat (stolen cards) and reshuffles.
    outcome = game.outcome()
    assert outcome is not None and outcome.winner is not None
    assert kinds.count("stolen") >= 5 and kinds.count("reshuffle") >= 2
    return game
