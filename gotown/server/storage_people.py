"""The stored side of players: their devices' keys, device links, the seats they hold and how
each device wants to be told of its turns. Keys and links are stored as SHA-256 digests only,
as seats' tokens are (a copy of the database opens no seat); an e-mail's unsubscribe code is
kept as it is (it is in every mail sent, and only stops those mails)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, insert, select, update

from .storage_turns import moment, seconds_of
from .tables import DeviceLinkRow, GameRow, PlayerKeyRow, PlayerRow, SeatRow, SubscriptionRow


@dataclass(frozen=True)
class KeyHolder:
    """Who holds a key: the player, their name, and the key's row (a device)."""

    player_id: str
    name: str
    key_id: int


@dataclass(frozen=True)
class LinkInfo:
    id: str
    created: float
    revoked: float | None
    devices: int  # keys made through it, not revoked


@dataclass(frozen=True)
class SeatOfPlayer:
    """A table the player sits at, as the list of their games shows it."""

    game_id: str
    seat: int
    status: str
    players: int
    turn_seat: int | None
    pace: int | None
    deadline: float | None
    updated: float | None
    names: tuple[str | None, ...]
    kinds: tuple[str, ...]


class PlayerStore:
    """The store's queries for players (mixed into :class:`~gotown.server.storage.Store`)."""

    engine: Any
    _writer: Any

    def create_player(self, player_id: str, name: str, key_hash: str, now: float) -> int:
        """A new player with its first key; answers the key's id."""
        with self._writer, self.engine.begin() as connection:
            connection.execute(
                insert(PlayerRow).values(id=player_id, name=name, created_at=moment(now))
            )
            return int(
                connection.execute(
                    insert(PlayerKeyRow)
                    .values(player_id=player_id, key_hash=key_hash, created_at=moment(now))
                    .returning(PlayerKeyRow.id)
                ).scalar_one()
            )

    def key_holder(self, key_hash: str) -> KeyHolder | None:
        """The player holding this key, unless the key was revoked or the player deleted."""
        query = (
            select(PlayerRow.id, PlayerRow.name, PlayerKeyRow.id)
            .join(PlayerKeyRow, PlayerKeyRow.player_id == PlayerRow.id)
            .where(
                PlayerKeyRow.key_hash == key_hash,
                PlayerKeyRow.revoked_at.is_(None),
                PlayerRow.deleted_at.is_(None),
            )
        )
        with self.engine.connect() as connection:
            row = connection.execute(query).first()
        return None if row is None else KeyHolder(row[0], row[1], int(row[2]))

    def rename_player(self, player_id: str, name: str) -> None:
        with self._writer, self.engine.begin() as connection:
            connection.execute(update(PlayerRow).where(PlayerRow.id == player_id).values(name=name))

    # --- device links --------------------------------------------------------------------

    def create_link(self, link_id: str, player_id: str, secret_hash: str, now: float) -> None:
        with self._writer, self.engine.begin() as connection:
            connection.execute(
                insert(DeviceLinkRow).values(
                    id=link_id, player_id=player_id, secret_hash=secret_hash, created_at=moment(now)
                )
            )

    def link_state(self, secret_hash: str) -> tuple[str, bool] | None:
        """(player, revoked) of the link with this secret; None for no such link."""
        query = select(DeviceLinkRow.player_id, DeviceLinkRow.revoked_at).where(
            DeviceLinkRow.secret_hash == secret_hash
        )
        with self.engine.connect() as connection:
            row = connection.execute(query).first()
        return None if row is None else (row[0], row[1] is not None)

    def claim_link(self, secret_hash: str, key_hash: str, now: float) -> KeyHolder | None:
        """A new key of the link's player for the device that opened it; None when the link
        is unknown or revoked (or its player deleted)."""
        with self._writer, self.engine.begin() as connection:
            row = connection.execute(
                select(DeviceLinkRow.id, PlayerRow.id, PlayerRow.name)
                .join(PlayerRow, PlayerRow.id == DeviceLinkRow.player_id)
                .where(
                    DeviceLinkRow.secret_hash == secret_hash,
                    DeviceLinkRow.revoked_at.is_(None),
                    PlayerRow.deleted_at.is_(None),
                )
            ).first()
            if row is None:
                return None
            key_id = connection.execute(
                insert(PlayerKeyRow)
                .values(player_id=row[1], key_hash=key_hash, created_at=moment(now), link_id=row[0])
                .returning(PlayerKeyRow.id)
            ).scalar_one()
            return KeyHolder(row[1], row[2], int(key_id))

    def links_of(self, player_id: str) -> list[LinkInfo]:
        with self.engine.connect() as connection:
            links = connection.execute(
                select(DeviceLinkRow.id, DeviceLinkRow.created_at, DeviceLinkRow.revoked_at)
                .where(DeviceLinkRow.player_id == player_id)
                .order_by(DeviceLinkRow.created_at)
            ).all()
            made = connection.execute(
                select(PlayerKeyRow.link_id).where(
                    PlayerKeyRow.player_id == player_id,
                    PlayerKeyRow.revoked_at.is_(None),
                    PlayerKeyRow.link_id.is_not(None),
                )
            ).scalars()
            used: dict[str, int] = {}
            for link_id in made:
                used[link_id] = used.get(link_id, 0) + 1
        return [
            LinkInfo(
                r[0],
                seconds_of(r[1]),
                None if r[2] is None else seconds_of(r[2]),
                used.get(r[0], 0),
            )
            for r in links
        ]

    def revoke_link(self, player_id: str, link_id: str, now: float) -> bool:
        """Revoke the link and every key made through it; False for no such link of theirs."""
        with self._writer, self.engine.begin() as connection:
            done = connection.execute(
                update(DeviceLinkRow)
                .where(DeviceLinkRow.id == link_id, DeviceLinkRow.player_id == player_id)
                .values(revoked_at=moment(now))
            ).rowcount
            if done:
                connection.execute(
                    update(PlayerKeyRow)
                    .where(PlayerKeyRow.link_id == link_id, PlayerKeyRow.revoked_at.is_(None))
                    .values(revoked_at=moment(now))
                )
            return bool(done)

    # --- seats ---------------------------------------------------------------------------

    def seats_of(self, player_id: str) -> list[SeatOfPlayer]:
        """Every table the player sits at (their seat, and each seat's name and kind)."""
        with self.engine.connect() as connection:
            mine = connection.execute(
                select(
                    SeatRow.game_id,
                    SeatRow.seat,
                    GameRow.status,
                    GameRow.players,
                    GameRow.turn_seat,
                    GameRow.pace,
                    GameRow.deadline_at,
                    GameRow.updated_at,
                )
                .join(GameRow, GameRow.id == SeatRow.game_id)
                .where(SeatRow.player_id == player_id)
            ).all()
            ids = [row[0] for row in mine]
            seats = connection.execute(
                select(SeatRow.game_id, SeatRow.seat, SeatRow.name, SeatRow.kind)
                .where(SeatRow.game_id.in_(ids))
                .order_by(SeatRow.game_id, SeatRow.seat)
            ).all()
        names: dict[str, list[tuple[str | None, str]]] = {}
        for game_id, _seat, name, kind in seats:
            names.setdefault(game_id, []).append((name, kind))
        return [
            SeatOfPlayer(
                game_id=r[0],
                seat=r[1],
                status=r[2],
                players=r[3],
                turn_seat=r[4],
                pace=r[5],
                deadline=None if r[6] is None else seconds_of(r[6]),
                updated=None if r[7] is None else seconds_of(r[7]),
                names=tuple(name for name, _ in names.get(r[0], [])),
                kinds=tuple(kind for _, kind in names.get(r[0], [])),
            )
            for r in mine
        ]

    def link_seat(self, game_id: str, seat: int, player_id: str) -> None:
        with self._writer, self.engine.begin() as connection:
            connection.execute(
                update(SeatRow)
                .where(SeatRow.game_id == game_id, SeatRow.seat == seat)
                .values(player_id=player_id)
            )

    # --- subscriptions -------------------------------------------------------------------

    def add_subscription(self, key_id: int, **values: Any) -> int:
        """A push subscription (``endpoint``, ``p256dh``, ``auth``) or an e-mail address
        (``email``, ``unsubscribe_code``) of a device, with ``kind``, ``language`` and
        ``now``; the device's previous one of that kind (and the same endpoint) is replaced."""
        now = values.pop("now")
        with self._writer, self.engine.begin() as connection:
            old = delete(SubscriptionRow).where(
                SubscriptionRow.key_id == key_id, SubscriptionRow.kind == values["kind"]
            )
            if values["kind"] == "push":
                old = old.where(SubscriptionRow.endpoint == values["endpoint"])
            connection.execute(old)
            return int(
                connection.execute(
                    insert(SubscriptionRow)
                    .values(key_id=key_id, created_at=moment(now), **values)
                    .returning(SubscriptionRow.id)
                ).scalar_one()
            )

    def subscriptions_of_key(self, key_id: int) -> list[dict[str, Any]]:
        with self.engine.connect() as connection:
            query = select(SubscriptionRow).where(SubscriptionRow.key_id == key_id)
            return [dict(row) for row in connection.execute(query).mappings().all()]

    def subscriptions_of_player(self, player_id: str) -> list[dict[str, Any]]:
        """Every subscription of the player's devices whose key still holds."""
        query = (
            select(SubscriptionRow)
            .join(PlayerKeyRow, PlayerKeyRow.id == SubscriptionRow.key_id)
            .where(PlayerKeyRow.player_id == player_id, PlayerKeyRow.revoked_at.is_(None))
            .order_by(SubscriptionRow.id)
        )
        with self.engine.connect() as connection:
            return [dict(row) for row in connection.execute(query).mappings().all()]

    def remove_subscription(self, subscription_id: int, key_id: int | None = None) -> bool:
        """Drop a subscription (only the device's own with ``key_id``)."""
        query = delete(SubscriptionRow).where(SubscriptionRow.id == subscription_id)
        if key_id is not None:
            query = query.where(SubscriptionRow.key_id == key_id)
        with self._writer, self.engine.begin() as connection:
            return bool(connection.execute(query).rowcount)

    def unsubscribe(self, unsubscribe_code: str) -> bool:
        """The e-mail subscription with this unsubscribe code dropped; False for none."""
        query = delete(SubscriptionRow).where(SubscriptionRow.unsubscribe_code == unsubscribe_code)
        with self._writer, self.engine.begin() as connection:
            return bool(connection.execute(query).rowcount)
