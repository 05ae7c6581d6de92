"""Alembic environment for the web table's database (run by ``Store.migrate``)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import engine_from_config, pool

from gotown.server.tables import Base

config = context.config
target_metadata = Base.metadata


def run_migrations(connection: object) -> None:
    context.configure(
        connection=connection,  # type: ignore[arg-type]
        target_metadata=target_metadata,
        render_as_batch=True,  # SQLite alters tables by copying them
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    run_migrations(connection)
else:
    engine = engine_from_config(
        config.get_section(config.config_ini_section) or {},
        prefix="sqlalchemy.",
        poolclass=pool.NullPool,
    )
    with engine.connect() as conn:
        run_migrations(conn)
