"""The database schema comes from Alembic migrations that match the storage models."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from gotown.server.storage import Base, Store, StoredGame, StoredSeat


def _differences(store: Store) -> list[object]:
    with store.engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        return list(compare_metadata(context, Base.metadata))


def test_migrations_build_the_schema_of_the_models(database_url: str) -> None:
    store = Store(database_url)
    try:
        store.migrate()
        store.migrate()  # a second run changes nothing
        assert _differences(store) == []
        tables = set(inspect(store.engine).get_table_names())
        assert {"games", "seats", "actions", "alembic_version"} <= tables
    finally:
        store.dispose()


def test_a_database_made_before_migrations_is_adopted(database_url: str) -> None:
    store = Store(database_url)
    try:
        Base.metadata.create_all(store.engine)
        game = StoredGame(
            id="g", players=2, seed=1, options={}, language="en", invite_code="c",
            status="lobby", seats=[StoredSeat(0, "human", None, None, None)],
        )  # fmt: skip
        store.create_game(game)
        store.migrate()
        assert _differences(store) == []
        loaded = store.load_game("g")
        assert loaded is not None and loaded.invite_code == "c"
    finally:
        store.dispose()
