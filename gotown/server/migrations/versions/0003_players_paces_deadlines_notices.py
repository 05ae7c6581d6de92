"""Turn-based tables and the people who play them over days: players known by their devices'
keys, device links, a pace and a deadline per table, notification subscriptions and the notices
waiting to be sent; a game's finishing time (for retention).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("pace", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("on_timeout", sa.String(length=24), nullable=True))
        batch_op.add_column(sa.Column("missed_limit", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("turn_seat", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("deadline_at", WHEN, nullable=True))
        batch_op.add_column(sa.Column("deadline_turn", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("reminder_at", WHEN, nullable=True))
        batch_op.add_column(sa.Column("updated_at", WHEN, nullable=True))
        batch_op.add_column(sa.Column("finished_at", WHEN, nullable=True))
        batch_op.create_index(batch_op.f("ix_games_deadline_at"), ["deadline_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_games_reminder_at"), ["reminder_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_games_finished_at"), ["finished_at"], unique=False)
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("player_id", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("missed", sa.Integer(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("standin", sa.Boolean(), server_default="0", nullable=False))
        batch_op.create_index(batch_op.f("ix_seats_player_id"), ["player_id"], unique=False)
    op.create_table(
        "players",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("deleted_at", WHEN, nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
    )
    op.create_table(
        "player_keys",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("revoked_at", WHEN, nullable=True),
        sa.Column("link_id", sa.String(length=32), nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_player_keys_player_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_keys")),
        sa.UniqueConstraint("key_hash", name=op.f("uq_player_keys_key_hash")),
    )
    op.create_index(op.f("ix_player_keys_player_id"), "player_keys", ["player_id"], unique=False)
    op.create_table(
        "device_links",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("secret_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("revoked_at", WHEN, nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_device_links_player_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_device_links")),
        sa.UniqueConstraint("secret_hash", name=op.f("uq_device_links_secret_hash")),
    )
    op.create_index(op.f("ix_device_links_player_id"), "device_links", ["player_id"], unique=False)
    op.create_table(
        "subscriptions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("key_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("endpoint", sa.Text(), nullable=True),
        sa.Column("p256dh", sa.String(length=128), nullable=True),
        sa.Column("auth", sa.String(length=64), nullable=True),
        sa.Column("email", sa.String(length=254), nullable=True),
        sa.Column("language", sa.String(length=8), nullable=False),
        sa.Column("base_url", sa.String(length=200), nullable=False),
        sa.Column("unsubscribe_code", sa.String(length=64), nullable=True),
        sa.Column("created_at", WHEN, nullable=False),
        sa.ForeignKeyConstraint(
            ["key_id"], ["player_keys.id"], name=op.f("fk_subscriptions_key_id_player_keys")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_subscriptions")),
        sa.UniqueConstraint("unsubscribe_code", name=op.f("uq_subscriptions_unsubscribe_code")),
    )
    op.create_index(op.f("ix_subscriptions_key_id"), "subscriptions", ["key_id"], unique=False)
    op.create_table(
        "notices",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("due_at", WHEN, nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("claimed_until", WHEN, nullable=True),
        sa.Column("sent_to", sa.JSON(), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_notices_game_id_games")),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_notices")),
    )
    op.create_index(op.f("ix_notices_due_at"), "notices", ["due_at"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_notices_due_at"), table_name="notices")
    op.drop_table("notices")
    op.drop_index(op.f("ix_subscriptions_key_id"), table_name="subscriptions")
    op.drop_table("subscriptions")
    op.drop_index(op.f("ix_device_links_player_id"), table_name="device_links")
    op.drop_table("device_links")
    op.drop_index(op.f("ix_player_keys_player_id"), table_name="player_keys")
    op.drop_table("player_keys")
    op.drop_table("players")
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_seats_player_id"))
        batch_op.drop_column("standin")
        batch_op.drop_column("missed")
        batch_op.drop_column("player_id")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_games_finished_at"))
        batch_op.drop_index(batch_op.f("ix_games_reminder_at"))
        batch_op.drop_index(batch_op.f("ix_games_deadline_at"))
        for column in ("finished_at", "updated_at", "reminder_at", "deadline_turn",
                       "deadline_at", "turn_seat", "missed_limit", "on_timeout",
                       "pace"):  # fmt: skip
            batch_op.drop_column(column)
