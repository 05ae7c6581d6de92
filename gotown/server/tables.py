"""The database's tables (SQLAlchemy 2 models, migrated by Alembic: ``migrations/``) and the
statements that every action runs, built once (used by :mod:`gotown.server.storage`)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Text,
    UniqueConstraint,
    bindparam,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class GameRow(Base):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    players: Mapped[int] = mapped_column(Integer)
    # 63 bits (the width of the engine's own seed chain): too many to try them all.
    seed: Mapped[int] = mapped_column(BigInteger)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    language: Mapped[str] = mapped_column(String(8), default="en")
    invite_code: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    status: Mapped[str] = mapped_column(String(16), default="lobby")  # lobby | playing | over
    rematch_of: Mapped[str | None] = mapped_column(String(32), nullable=True)
    rematch_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    # Turn-based tables (services/deadlines.py): the time per turn in seconds (None: live),
    # what a missed turn does ("bot:LEVEL" or "end"), after how many missed turns in a row the
    # bot keeps the seat; the turn under way's seat, deadline and reminder.
    pace: Mapped[int | None] = mapped_column(Integer, nullable=True)
    on_timeout: Mapped[str | None] = mapped_column(String(24), nullable=True)
    missed_limit: Mapped[int | None] = mapped_column(Integer, nullable=True)
    turn_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    deadline_at: Mapped[dt.datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True, index=True
    )
    deadline_turn: Mapped[int | None] = mapped_column(Integer, nullable=True)
    reminder_at: Mapped[dt.datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True, index=True
    )
    updated_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[dt.datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True, index=True
    )
    #: The circle of friends the table was made from: its end counts for their ratings.
    circle_id: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)
    #: How it ended, once over: the winning seat (None: no winner) and why ("win",
    #: "stalemate", "turn-limit"), for the pages that count games without replaying them.
    winner: Mapped[int | None] = mapped_column(Integer, nullable=True)
    ending: Mapped[str | None] = mapped_column(String(16), nullable=True)


class SeatRow(Base):
    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("game_id", "seat"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(8))  # human | bot
    level: Mapped[str | None] = mapped_column(String(16), nullable=True)
    name: Mapped[str | None] = mapped_column(String(40), nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    #: The player (services/players.py) whose seat it is, when they sat with their key.
    player_id: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)
    #: Turns in a row whose deadline passed; a bot standing in for this turn only.
    missed: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    standin: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")


class ActionRow(Base):
    __tablename__ = "actions"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)  # the game version the action was made on
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class PlayerRow(Base):
    """A person known by the keys of their devices: a name, no password."""

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    deleted_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class PlayerKeyRow(Base):
    """One device's private key of a player (its SHA-256 only), made at the player's creation
    or by opening a device link (``link_id``)."""

    __tablename__ = "player_keys"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), index=True)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    revoked_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    link_id: Mapped[str | None] = mapped_column(String(32), nullable=True)


class DeviceLinkRow(Base):
    """A private link that gives another device a key of the player, until it is revoked."""

    __tablename__ = "device_links"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), index=True)
    secret_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    revoked_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class SubscriptionRow(Base):
    """A device's way to be told of its turns: a Web Push subscription or an e-mail address."""

    __tablename__ = "subscriptions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    key_id: Mapped[int] = mapped_column(ForeignKey("player_keys.id"), index=True)
    kind: Mapped[str] = mapped_column(String(8))  # push | email
    endpoint: Mapped[str | None] = mapped_column(Text, nullable=True)
    p256dh: Mapped[str | None] = mapped_column(String(128), nullable=True)
    auth: Mapped[str | None] = mapped_column(String(64), nullable=True)
    email: Mapped[str | None] = mapped_column(String(254), nullable=True)
    language: Mapped[str] = mapped_column(String(8), default="en")
    #: The address the device subscribed at (its notices link there).
    base_url: Mapped[str] = mapped_column(String(200), default="")
    #: The e-mail's one-click unsubscribe code (in every mail: it only stops them).
    unsubscribe_code: Mapped[str | None] = mapped_column(String(64), nullable=True, unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class NoticeRow(Base):
    """A notice waiting to be sent: at most one per table and seat (a newer one replaces it)."""

    __tablename__ = "notices"
    __table_args__ = (PrimaryKeyConstraint("game_id", "seat"),)

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"))
    seat: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))  # your-turn | reminder | ended
    turn: Mapped[int] = mapped_column(Integer)
    due_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), index=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    claimed_until: Mapped[dt.datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True
    )
    sent_to: Mapped[list[int]] = mapped_column(JSON, default=list)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class CircleRow(Base):
    """A circle of friends: joined by its link, its tables count for its members' ratings."""

    __tablename__ = "circles"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    creator_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    invite_code: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class MemberRow(Base):
    """A player in a circle, under a name unique in it."""

    __tablename__ = "circle_members"
    __table_args__ = (
        PrimaryKeyConstraint("circle_id", "player_id"),
        UniqueConstraint("circle_id", "name"),
    )

    circle_id: Mapped[str] = mapped_column(ForeignKey("circles.id"))
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), index=True)
    name: Mapped[str] = mapped_column(String(40))
    joined_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class RatingRow(Base):
    """A player's rating in a circle ("" for the one over all their rated games)."""

    __tablename__ = "ratings"
    __table_args__ = (PrimaryKeyConstraint("player_id", "circle_id"),)

    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    circle_id: Mapped[str] = mapped_column(String(32))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)


class ReviewRow(Base):
    """A finished game's review, kept once computed (the game never changes): by game and
    reviewed seat (-1: no seat's mistakes), its JSON as the review service answers it."""

    __tablename__ = "reviews"
    __table_args__ = (PrimaryKeyConstraint("game_id", "seat"),)

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"))
    seat: Mapped[int] = mapped_column(Integer)
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class RatingChangeRow(Base):
    """One rated game's change of one player's rating (its history, and the end screen)."""

    __tablename__ = "rating_changes"
    __table_args__ = (UniqueConstraint("game_id", "player_id", "circle_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    player_id: Mapped[str] = mapped_column(String(32), index=True)
    circle_id: Mapped[str] = mapped_column(String(32))
    seat: Mapped[int] = mapped_column(Integer)
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)
    at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


# The statements of the two calls made for every action (Store.append_action, Store.stamp),
# built once and run on a connection (SQLAlchemy Core): through a session, and built anew each
# time, they cost 0.89 ms and 0.55 ms of CPU on SQLite; this way 0.17 ms and 0.11 ms.
CLAIM_SEAT = (
    update(SeatRow)
    .where(
        SeatRow.game_id == bindparam("b_game"),
        SeatRow.seat == bindparam("b_seat"),
        SeatRow.kind == bindparam("b_kind"),
        # (Not while a stand-in plays the turn: another process may have given it one.)
        SeatRow.standin.is_(False),
    )
    .values(kind=bindparam("b_kind"))
)
#: A bot standing in for a person whose turn timed out: the seat is still theirs and flagged.
CLAIM_STANDIN = (
    update(SeatRow)
    .where(
        SeatRow.game_id == bindparam("b_game"),
        SeatRow.seat == bindparam("b_seat"),
        SeatRow.kind == "human",
        SeatRow.standin.is_(True),
    )
    .values(standin=True)
)
INSERT_ACTION = insert(ActionRow).values(
    game_id=bindparam("b_game"),
    seq=bindparam("b_seq"),
    seat=bindparam("b_seat"),
    action=bindparam("b_action"),
    created_at=bindparam("b_created_at"),
)
END_GAME = update(GameRow).where(GameRow.id == bindparam("b_game")).values(status="over")
STAMP = (
    select(
        GameRow.status,
        GameRow.rematch_id,
        select(func.count(ActionRow.id))
        .where(ActionRow.game_id == bindparam("b_game"))
        .scalar_subquery(),
        SeatRow.seat,
        SeatRow.kind,
        SeatRow.level,
        SeatRow.name,
        SeatRow.token_hash,
        SeatRow.player_id,
        SeatRow.standin,
    )
    .join(SeatRow, SeatRow.game_id == GameRow.id)
    .where(GameRow.id == bindparam("b_game"))
    .order_by(SeatRow.seat)
)
