"""Circles of friends and their ratings: circles and their members (a name unique in each), the
circle a table was made from, each player's rating per circle and over all, and each rated
game's changes; how a game ended (its winner and why).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "circles",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("creator_id", sa.String(length=32), nullable=False),
        sa.Column("invite_code", sa.String(length=64), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
        sa.ForeignKeyConstraint(
            ["creator_id"], ["players.id"], name=op.f("fk_circles_creator_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_circles")),
        sa.UniqueConstraint("invite_code", name=op.f("uq_circles_invite_code")),
    )
    op.create_table(
        "circle_members",
        sa.Column("circle_id", sa.String(length=32), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("joined_at", WHEN, nullable=False),
        sa.ForeignKeyConstraint(
            ["circle_id"], ["circles.id"], name=op.f("fk_circle_members_circle_id_circles")
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_circle_members_player_id_players")
        ),
        sa.PrimaryKeyConstraint("circle_id", "player_id", name=op.f("pk_circle_members")),
        sa.UniqueConstraint("circle_id", "name", name=op.f("uq_circle_members_circle_id_name")),
    )
    op.create_index(
        op.f("ix_circle_members_player_id"), "circle_members", ["player_id"], unique=False
    )
    op.create_table(
        "ratings",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("circle_id", sa.String(length=32), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_ratings_player_id_players")
        ),
        sa.PrimaryKeyConstraint("player_id", "circle_id", name=op.f("pk_ratings")),
    )
    op.create_table(
        "rating_changes",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("circle_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        sa.Column("at", WHEN, nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_rating_changes_game_id_games")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_changes")),
        sa.UniqueConstraint(
            "game_id",
            "player_id",
            "circle_id",
            name=op.f("uq_rating_changes_game_id_player_id_circle_id"),
        ),
    )
    op.create_index(op.f("ix_rating_changes_game_id"), "rating_changes", ["game_id"], unique=False)
    op.create_index(
        op.f("ix_rating_changes_player_id"), "rating_changes", ["player_id"], unique=False
    )
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("circle_id", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("winner", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("ending", sa.String(length=16), nullable=True))
        batch_op.create_index(batch_op.f("ix_games_circle_id"), ["circle_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_games_circle_id"))
        batch_op.drop_column("ending")
        batch_op.drop_column("winner")
        batch_op.drop_column("circle_id")
    op.drop_index(op.f("ix_rating_changes_player_id"), table_name="rating_changes")
    op.drop_index(op.f("ix_rating_changes_game_id"), table_name="rating_changes")
    op.drop_table("rating_changes")
    op.drop_table("ratings")
    op.drop_index(op.f("ix_circle_members_player_id"), table_name="circle_members")
    op.drop_table("circle_members")
    op.drop_table("circles")
