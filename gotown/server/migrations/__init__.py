"""Alembic migrations of the web table database."""
