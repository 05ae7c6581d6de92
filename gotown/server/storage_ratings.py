"""The stored side of circles of friends and their ratings (:mod:`.services.circles`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from .storage_turns import moment, seconds_of
from .tables import (
    CircleRow,
    GameRow,
    MemberRow,
    PlayerKeyRow,
    PlayerRow,
    RatingChangeRow,
    RatingRow,
    SeatRow,
)

#: The circle id of a player's rating over all their rated games.
OVERALL = ""

Rating = tuple[float, float]  # (mu, sigma)


@dataclass(frozen=True)
class Member:
    player_id: str
    name: str
    joined: float


@dataclass(frozen=True)
class CircleInfo:
    id: str
    name: str
    creator_id: str
    invite_code: str
    created: float


@dataclass(frozen=True)
class RatedSeat:
    """A seat of a game to rate: its player (None: a bot's seat, with its fixed rating)."""

    seat: int
    player_id: str | None
    fixed: Rating | None = None


@dataclass(frozen=True)
class FinishedGame:
    """A finished game as the pages count it: its seats' players, names, kinds and levels."""

    game_id: str
    circle_id: str | None
    players: int
    winner: int | None
    ending: str | None
    finished: float | None
    seats: tuple[tuple[int, str | None, str | None, str, str | None], ...]
    # (seat, player, name, kind, level)


class RatingStore:
    """The store's queries for circles and ratings (mixed into
    :class:`~gotown.server.storage.Store`)."""

    engine: Any
    _writer: Any

    # --- circles -------------------------------------------------------------------------

    def create_circle(
        self, circle_id: str, name: str, creator: str, creator_name: str, code: str, now: float
    ) -> None:
        with self._writer, self.engine.begin() as connection:
            connection.execute(
                insert(CircleRow).values(
                    id=circle_id,
                    name=name,
                    creator_id=creator,
                    invite_code=code,
                    created_at=moment(now),
                )
            )
            connection.execute(
                insert(MemberRow).values(
                    circle_id=circle_id,
                    player_id=creator,
                    name=creator_name,
                    joined_at=moment(now),
                )
            )

    def circle(self, circle_id: str) -> CircleInfo | None:
        with self.engine.connect() as connection:
            row = connection.execute(select(CircleRow).where(CircleRow.id == circle_id)).first()
        return None if row is None else _circle(row)

    def circle_of_code(self, code: str) -> CircleInfo | None:
        with self.engine.connect() as connection:
            row = connection.execute(select(CircleRow).where(CircleRow.invite_code == code)).first()
        return None if row is None else _circle(row)

    def circles_of(self, player_id: str) -> list[CircleInfo]:
        query = (
            select(CircleRow)
            .join(MemberRow, MemberRow.circle_id == CircleRow.id)
            .where(MemberRow.player_id == player_id)
            .order_by(CircleRow.created_at)
        )
        with self.engine.connect() as connection:
            return [_circle(row) for row in connection.execute(query).all()]

    def members(self, circle_id: str) -> list[Member]:
        query = (
            select(MemberRow.player_id, MemberRow.name, MemberRow.joined_at)
            .where(MemberRow.circle_id == circle_id)
            .order_by(MemberRow.joined_at, MemberRow.name)
        )
        with self.engine.connect() as connection:
            return [Member(r[0], r[1], seconds_of(r[2])) for r in connection.execute(query).all()]

    def join_circle(self, circle_id: str, player_id: str, name: str, now: float) -> str:
        """``"joined"``, ``"member"`` (already one) or ``"name-taken"`` (by another member)."""
        try:
            with self._writer, self.engine.begin() as connection:
                already = connection.execute(
                    select(MemberRow.name).where(
                        MemberRow.circle_id == circle_id, MemberRow.player_id == player_id
                    )
                ).first()
                if already is not None:
                    return "member"
                connection.execute(
                    insert(MemberRow).values(
                        circle_id=circle_id, player_id=player_id, name=name, joined_at=moment(now)
                    )
                )
        except IntegrityError:
            return "name-taken"
        return "joined"

    def rename_member(self, circle_id: str, player_id: str, name: str) -> bool:
        """False when another member has that name."""
        try:
            with self._writer, self.engine.begin() as connection:
                connection.execute(
                    update(MemberRow)
                    .where(MemberRow.circle_id == circle_id, MemberRow.player_id == player_id)
                    .values(name=name)
                )
        except IntegrityError:
            return False
        return True

    def leave_circle(self, circle_id: str, player_id: str) -> bool:
        """The player leaves (their rating in the circle with them); False if not in it."""
        with self._writer, self.engine.begin() as connection:
            gone = connection.execute(
                delete(MemberRow).where(
                    MemberRow.circle_id == circle_id, MemberRow.player_id == player_id
                )
            ).rowcount
            connection.execute(
                delete(RatingRow).where(
                    RatingRow.circle_id == circle_id, RatingRow.player_id == player_id
                )
            )
            return bool(gone)

    def circle_tables(self, circle_id: str) -> list[tuple[str, str, str]]:
        """(game id, status, invitation code) of the circle's tables not over, the newest
        first."""
        query = (
            select(GameRow.id, GameRow.status, GameRow.invite_code)
            .where(GameRow.circle_id == circle_id, GameRow.status != "over")
            .order_by(GameRow.created_at.desc())
        )
        with self.engine.connect() as connection:
            return [(r[0], r[1], r[2]) for r in connection.execute(query).all()]

    # --- ratings -------------------------------------------------------------------------

    def ratings(self, circle_id: str) -> dict[str, tuple[float, float, int]]:
        """Player -> (mu, sigma, games) in a circle (:data:`OVERALL`: over all)."""
        query = select(RatingRow.player_id, RatingRow.mu, RatingRow.sigma, RatingRow.games).where(
            RatingRow.circle_id == circle_id
        )
        with self.engine.connect() as connection:
            return {r[0]: (r[1], r[2], r[3]) for r in connection.execute(query).all()}

    def rating_of(self, player_id: str) -> dict[str, tuple[float, float, int]]:
        """Circle -> (mu, sigma, games) of one player."""
        query = select(RatingRow.circle_id, RatingRow.mu, RatingRow.sigma, RatingRow.games).where(
            RatingRow.player_id == player_id
        )
        with self.engine.connect() as connection:
            return {r[0]: (r[1], r[2], r[3]) for r in connection.execute(query).all()}

    def rate_game(
        self,
        game_id: str,
        circle_id: str,
        seats: Sequence[RatedSeat],
        new: Rating,
        compute: Callable[[list[Rating]], list[Rating]],
        now: float,
    ) -> bool:
        """Rate a finished game once, in its circle and over all: read the seats' players'
        ratings (``new`` for a first game; a bot seat's is its fixed one), ``compute`` the
        ratings after the game (in seat order), and store each player's and its change, in
        one transaction. False when it was rated already (by another process)."""
        try:
            with self._writer, self.engine.begin() as connection:
                for scope in (circle_id, OVERALL):
                    people = [s.player_id for s in seats if s.player_id is not None]
                    rows = connection.execute(
                        _locked(
                            select(
                                RatingRow.player_id, RatingRow.mu, RatingRow.sigma, RatingRow.games
                            ).where(RatingRow.circle_id == scope, RatingRow.player_id.in_(people)),
                            connection,
                        )
                    ).all()
                    held = {r[0]: (r[1], r[2], r[3]) for r in rows}
                    before = [
                        s.fixed if s.player_id is None else held.get(s.player_id, (*new, 0))[:2]
                        for s in seats
                    ]
                    after = compute([(b[0], b[1]) for b in before])  # type: ignore[index]
                    for seat, was, now_is in zip(seats, before, after, strict=True):
                        if seat.player_id is None:
                            continue
                        assert was is not None
                        games = held.get(seat.player_id, (0.0, 0.0, 0))[2] + 1
                        values = {"mu": now_is[0], "sigma": now_is[1], "games": games}
                        if seat.player_id in held:
                            connection.execute(
                                update(RatingRow)
                                .where(
                                    RatingRow.player_id == seat.player_id,
                                    RatingRow.circle_id == scope,
                                )
                                .values(**values)
                            )
                        else:
                            connection.execute(
                                insert(RatingRow).values(
                                    player_id=seat.player_id, circle_id=scope, **values
                                )
                            )
                        connection.execute(
                            insert(RatingChangeRow).values(
                                game_id=game_id,
                                player_id=seat.player_id,
                                circle_id=scope,
                                seat=seat.seat,
                                mu_before=was[0],
                                sigma_before=was[1],
                                mu_after=now_is[0],
                                sigma_after=now_is[1],
                                at=moment(now),
                            )
                        )
        except IntegrityError:
            return False
        return True

    def rating_changes(
        self, *, game_id: str | None = None, player_id: str | None = None
    ) -> list[dict[str, Any]]:
        """The stored changes of a game's or a player's ratings, in the order they were made."""
        query = select(RatingChangeRow).order_by(RatingChangeRow.id)
        if game_id is not None:
            query = query.where(RatingChangeRow.game_id == game_id)
        if player_id is not None:
            query = query.where(RatingChangeRow.player_id == player_id)
        with self.engine.connect() as connection:
            return [dict(row) for row in connection.execute(query).mappings().all()]

    def unrated_games(self) -> list[str]:
        """Finished games of a circle with a winner and no rating yet, the oldest first."""
        rated = select(RatingChangeRow.game_id)
        query = (
            select(GameRow.id)
            .where(
                GameRow.status == "over",
                GameRow.circle_id.is_not(None),
                GameRow.winner.is_not(None),
                GameRow.id.not_in(rated),
            )
            .order_by(GameRow.finished_at)
        )
        with self.engine.connect() as connection:
            return list(connection.execute(query).scalars().all())

    def finished_games(
        self, player_id: str, circle_ids: Sequence[str] | None = None
    ) -> list[FinishedGame]:
        """The player's finished games (in these circles only, when given), the latest first."""
        query = (
            select(
                GameRow.id,
                GameRow.circle_id,
                GameRow.players,
                GameRow.winner,
                GameRow.ending,
                GameRow.finished_at,
            )
            .join(SeatRow, SeatRow.game_id == GameRow.id)
            .where(SeatRow.player_id == player_id, GameRow.status == "over")
            .order_by(GameRow.finished_at.desc())
        )
        if circle_ids is not None:
            query = query.where(GameRow.circle_id.in_(list(circle_ids)))
        with self.engine.connect() as connection:
            games = connection.execute(query).all()
            ids = [g[0] for g in games]
            seats = connection.execute(
                select(
                    SeatRow.game_id,
                    SeatRow.seat,
                    SeatRow.player_id,
                    SeatRow.name,
                    SeatRow.kind,
                    SeatRow.level,
                )
                .where(SeatRow.game_id.in_(ids))
                .order_by(SeatRow.game_id, SeatRow.seat)
            ).all()
        by_game: dict[str, list[tuple[int, str | None, str | None, str, str | None]]] = {}
        for game_id, seat, player, name, kind, level in seats:
            by_game.setdefault(game_id, []).append((seat, player, name, kind, level))
        return [
            FinishedGame(
                g[0],
                g[1],
                g[2],
                g[3],
                g[4],
                None if g[5] is None else seconds_of(g[5]),
                tuple(by_game.get(g[0], [])),
            )
            for g in games
        ]

    def actions_of_seats(self, pairs: Sequence[tuple[str, int]]) -> list[dict[str, Any]]:
        """The actions made by these (game, seat) pairs."""
        from .tables import ActionRow

        found: list[dict[str, Any]] = []
        with self.engine.connect() as connection:
            for game_id, seat in pairs:
                query = select(ActionRow.action).where(
                    ActionRow.game_id == game_id, ActionRow.seat == seat
                )
                found.extend(dict(a) for a in connection.execute(query).scalars().all())
        return found

    # --- leaving for good ----------------------------------------------------------------

    def delete_player(self, player_id: str, former: str, now: float) -> None:
        """Forget a player: their keys, circles and ratings; their seats stay, named
        ``former`` ("a former player") and no longer theirs."""
        with self._writer, self.engine.begin() as connection:
            connection.execute(
                update(PlayerKeyRow)
                .where(PlayerKeyRow.player_id == player_id, PlayerKeyRow.revoked_at.is_(None))
                .values(revoked_at=moment(now))
            )
            connection.execute(delete(MemberRow).where(MemberRow.player_id == player_id))
            connection.execute(delete(RatingRow).where(RatingRow.player_id == player_id))
            connection.execute(
                update(SeatRow).where(SeatRow.player_id == player_id).values(name=former)
            )
            connection.execute(
                update(PlayerRow)
                .where(PlayerRow.id == player_id)
                .values(name=former, deleted_at=moment(now))
            )


def _circle(row: Any) -> CircleInfo:
    return CircleInfo(row.id, row.name, row.creator_id, row.invite_code, seconds_of(row.created_at))


def _locked(query: Any, connection: Any) -> Any:
    """``query`` locking its rows on PostgreSQL (two games ending at once rate one after the
    other); SQLite's writers already take turns."""
    return query.with_for_update() if connection.dialect.name == "postgresql" else query
