"""The game seed is a 64-bit integer: seeds are drawn from 63 bits, as the engine chains them.

A 31-bit seed could be found by trying every one against a player's own hand and draws, and
with it every hand and the draw order. Existing games keep their seeds (they all fit).

On SQLite the table is copied into a new one (batch mode), which needs foreign keys off while
the old one is dropped (``Store.migrate`` turns them off, and checks them after). Downgrading
fails on PostgreSQL while a seed of 2**31 or more is stored.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.alter_column(
            "seed", existing_type=sa.Integer(), type_=sa.BigInteger(), existing_nullable=False
        )


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.alter_column(
            "seed", existing_type=sa.BigInteger(), type_=sa.Integer(), existing_nullable=False
        )
