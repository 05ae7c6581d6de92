"""The stored side of turn-based tables: each game's turn under way and its deadline, the
notices waiting to go out, and how both are claimed so that each fires exactly once.

Every change here is written in the transaction of the action (or the claim) that causes it:
a turn that begins stores its deadline and its "your turn" notice with the action that began
it, so that neither can be lost between two writes, whatever happens to the process. A
deadline or a reminder is claimed by a conditional update (only while it is still the one that
fell due), and a notice by setting a short claim time: with several processes on one database,
the first to claim it does the work; the others find nothing to do.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import and_, case, delete, func, insert, or_, select, tuple_, update
from sqlalchemy.engine import Connection

from .tables import ActionRow, GameRow, NoticeRow, SeatRow

#: How long a process holds a notice it is sending before another may send it (a process
#: killed while sending leaves it to the others after this).
NOTICE_CLAIM_SECONDS = 120.0


def moment(seconds: float) -> dt.datetime:
    """A Unix time as stored: an aware UTC datetime."""
    return dt.datetime.fromtimestamp(seconds, dt.UTC)


def seconds_of(value: dt.datetime) -> float:
    """A stored time as a Unix time (SQLite gives back naive UTC datetimes)."""
    return (value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)).timestamp()


@dataclass(frozen=True)
class NoticeDue:
    """A notice to write: the seat's pending one is replaced by it."""

    seat: int
    kind: str  # your-turn | reminder | ended
    turn: int
    due: float


@dataclass(frozen=True)
class TurnRecord:
    """What an action leaves for the turn-based bookkeeping, written with it
    (:func:`write_turn`): the seat whose turn it is now (None once over), the turn's deadline
    and reminder (None: none), the seats whose stand-in or missed count changes, and the
    notices it causes."""

    now: float
    turn_seat: int | None
    turn: int
    turn_changed: bool = True  # False: only the seats' counts change (a turn that goes on)
    deadline: float | None = None
    reminder: float | None = None
    over: bool = False
    winner: int | None = None  # once over: the winning seat (None: no winner)
    ending: str | None = None  # once over: "win", "stalemate" or "turn-limit"
    seats: tuple[tuple[int, int, bool], ...] = ()  # (seat, missed, standin)
    notices: tuple[NoticeDue, ...] = field(default=())


def apply_turn(record: TurnRecord, game: Any) -> None:
    """Make the stored game held in memory (a :class:`~gotown.server.storage.StoredGame`) what
    :func:`write_turn` made of its row."""
    for seat, missed, standin in record.seats:
        game.seats[seat].missed = missed
        game.seats[seat].standin = standin
    if record.turn_changed:
        game.deadline = record.deadline
        game.deadline_turn = None if record.deadline is None else record.turn


def write_turn(connection: Connection, game_id: str, record: TurnRecord) -> None:
    """Write ``record`` for ``game_id`` on ``connection`` (inside the caller's transaction)."""
    for seat, missed, standin in record.seats:
        connection.execute(
            update(SeatRow)
            .where(SeatRow.game_id == game_id, SeatRow.seat == seat)
            .values(missed=missed, standin=standin)
        )
    for notice in record.notices:
        put_notice(connection, game_id, notice, record.now)
    if not record.turn_changed:
        return
    values: dict[str, Any] = {
        "turn_seat": record.turn_seat,
        "updated_at": moment(record.now),
        "deadline_at": None if record.deadline is None else moment(record.deadline),
        "deadline_turn": None if record.deadline is None else record.turn,
        "reminder_at": None if record.reminder is None else moment(record.reminder),
    }
    if record.over:
        values.update(finished_at=moment(record.now), winner=record.winner, ending=record.ending)
    connection.execute(update(GameRow).where(GameRow.id == game_id).values(**values))


def put_notice(connection: Connection, game_id: str, notice: NoticeDue, now: float) -> None:
    """Make ``notice`` the seat's pending one (at most one per table and seat)."""
    connection.execute(
        delete(NoticeRow).where(NoticeRow.game_id == game_id, NoticeRow.seat == notice.seat)
    )
    connection.execute(
        insert(NoticeRow).values(
            game_id=game_id,
            seat=notice.seat,
            kind=notice.kind,
            turn=notice.turn,
            due_at=moment(notice.due),
            attempts=0,
            claimed_until=None,
            sent_to=[],
            created_at=moment(now),
        )
    )


@dataclass(frozen=True)
class Due:
    """A deadline or a reminder that fell due: the game, the turn it is for, and when."""

    game_id: str
    turn: int
    at: float
    seat: int | None = None


@dataclass(frozen=True)
class MissedTurn:
    """A due deadline whose turn is still a person's, as stored: what deciding its effect
    needs, without loading the game (:meth:`TurnStore.missed_turns`)."""

    due: Due
    seat: int
    missed: int  # turns missed in a row before this one
    on_timeout: str | None
    missed_limit: int | None
    version: int  # the game's number of actions


@dataclass(frozen=True)
class BotClaim:
    """A missed turn given to a bot (:meth:`TurnStore.claim_for_bots`): a stand-in for the
    turn (``level`` None), or the bot that keeps the seat."""

    turn: MissedTurn
    level: str | None

    @property
    def missed(self) -> int:
        return self.turn.missed + 1


class _NotTakenError(Exception):
    """A claim's deadline was taken first: its transaction is rolled back."""


class TurnStore:
    """The store's queries for deadlines, reminders and notices (mixed into
    :class:`~gotown.server.storage.Store`, whose engine and write lock they use)."""

    engine: Any
    _writer: Any

    def due_deadlines(self, now: float, limit: int = 100, skip: Sequence[str] = ()) -> list[Due]:
        """Games whose turn's deadline has passed, the earliest first (``skip``: these games'
        left out)."""
        query = (
            select(GameRow.id, GameRow.deadline_turn, GameRow.deadline_at, GameRow.turn_seat)
            .where(GameRow.status == "playing", GameRow.deadline_at <= moment(now))
            .order_by(GameRow.deadline_at)
            .limit(limit)
        )
        if skip:
            query = query.where(GameRow.id.not_in(skip))
        with self.engine.connect() as connection:
            rows = connection.execute(query).all()
        return [Due(r[0], r[1], seconds_of(r[2]), r[3]) for r in rows]

    def is_due(self, due: Due, now: float) -> bool:
        """Whether ``due``'s deadline is still due (no process acted on it yet): one small
        query, where loading the game to see it would cost a few and its replay."""
        query = select(GameRow.id).where(
            GameRow.id == due.game_id,
            GameRow.status == "playing",
            GameRow.deadline_turn == due.turn,
            GameRow.deadline_at <= moment(now),
        )
        with self.engine.connect() as connection:
            return connection.execute(query).first() is not None

    def due_reminders(self, now: float, limit: int = 100) -> list[Due]:
        """Reminders due now of turns whose deadline is still to come (that of a turn whose
        time is up is never sent: the deadline's effect tells more)."""
        query = (
            select(GameRow.id, GameRow.deadline_turn, GameRow.reminder_at, GameRow.turn_seat)
            .where(
                GameRow.status == "playing",
                GameRow.reminder_at <= moment(now),
                GameRow.deadline_at > moment(now),
            )
            .order_by(GameRow.reminder_at)
            .limit(limit)
        )
        with self.engine.connect() as connection:
            rows = connection.execute(query).all()
        return [Due(r[0], r[1], seconds_of(r[2]), r[3]) for r in rows]

    def next_moment(self) -> float | None:
        """The earliest deadline, reminder or notice still to come (None: none); a notice
        that a process claimed comes when its claim ends."""
        notice_moment = case(
            (NoticeRow.claimed_until > NoticeRow.due_at, NoticeRow.claimed_until),
            else_=NoticeRow.due_at,
        )
        queries = [
            select(GameRow.deadline_at)
            .where(GameRow.status == "playing", GameRow.deadline_at.is_not(None))
            .order_by(GameRow.deadline_at)
            .limit(1),
            select(GameRow.reminder_at)
            .where(GameRow.status == "playing", GameRow.reminder_at.is_not(None))
            .order_by(GameRow.reminder_at)
            .limit(1),
            select(func.min(notice_moment)),
        ]
        found: list[float] = []
        with self.engine.connect() as connection:
            for query in queries:
                value = connection.execute(query).scalar()
                if value is not None:
                    found.append(seconds_of(value))
        return min(found) if found else None

    def missed_turns(self, dues: Sequence[Due], now: float) -> list[MissedTurn]:
        """Of ``dues``, the deadlines still due (each its own turn's) whose seat a person
        still plays (not handed to a bot, no stand-in): one query for a batch."""
        if not dues:
            return []
        version = (
            select(func.count(ActionRow.id))
            .where(ActionRow.game_id == GameRow.id)
            .scalar_subquery()
        )
        query = (
            select(
                GameRow.id,
                GameRow.deadline_turn,
                GameRow.on_timeout,
                GameRow.missed_limit,
                SeatRow.seat,
                SeatRow.missed,
                version,
            )
            .join(SeatRow, and_(SeatRow.game_id == GameRow.id, SeatRow.seat == GameRow.turn_seat))
            .where(
                GameRow.id.in_([due.game_id for due in dues]),
                GameRow.status == "playing",
                GameRow.deadline_at <= moment(now),
                SeatRow.kind == "human",
                SeatRow.standin.is_(False),
            )
        )
        with self.engine.connect() as connection:
            rows = {row[0]: row for row in connection.execute(query)}
        found = []
        for due in dues:
            row = rows.get(due.game_id)
            if row is not None and row[1] == due.turn:
                found.append(MissedTurn(due, row[4], row[5], row[2], row[3], int(row[6])))
        return found

    def claim_for_bots(self, claims: Sequence[BotClaim], now: float) -> list[BotClaim]:
        """Take these deadlines and give each seat to its bot (:meth:`claim_timeout`'s
        writes) in one transaction; answers the claims taken. One whose seat changed since
        :meth:`missed_turns` read it, or whose deadline another process took, is left out; on
        PostgreSQL two processes claiming together each take the seats the other has not
        locked (``SKIP LOCKED``) instead of waiting for its transaction. Seats are locked
        before games, as a move's write does, so that the two never wait for each other."""
        wanted = {(c.turn.due.game_id, c.turn.seat, c.turn.missed): c for c in claims}
        if not wanted:
            return []
        seats = (
            select(SeatRow.game_id, SeatRow.seat, SeatRow.missed)
            .where(
                tuple_(SeatRow.game_id, SeatRow.seat, SeatRow.missed).in_(list(wanted)),
                SeatRow.kind == "human",
                SeatRow.standin.is_(False),
            )
            .order_by(SeatRow.game_id)
            .with_for_update(skip_locked=True)
        )
        taken: list[BotClaim] = []
        with self._writer, self.engine.begin() as connection:
            for row in connection.execute(seats).all():
                claim = wanted[(row[0], row[1], row[2])]
                if not connection.execute(_take_deadline(claim.turn.due, now)).rowcount:
                    continue
                seat = update(SeatRow).where(SeatRow.game_id == row[0], SeatRow.seat == row[1])
                if claim.level is None:
                    seat = seat.values(missed=claim.missed, standin=True)
                else:
                    seat = seat.values(
                        kind="bot", level=claim.level, missed=claim.missed, standin=False
                    )
                connection.execute(seat)
                taken.append(claim)
        return taken

    def claim_timeout(
        self, due: Due, seat: int, missed: int, level: str | None, now: float
    ) -> bool:
        """Take the turn's deadline that fell due (only while it is still that turn's) and
        give ``seat`` to a bot, in one transaction: a stand-in for this turn (``level`` None:
        the table's), or, with ``level``, the bot that keeps the seat until its person takes
        it back. False when another process took it, the turn moved on or the seat is no
        longer its person's. The seat is written before the game, as a move's write does."""
        seats = update(SeatRow).where(
            SeatRow.game_id == due.game_id,
            SeatRow.seat == seat,
            SeatRow.kind == "human",
            SeatRow.standin.is_(False),
        )
        if level is None:
            seats = seats.values(missed=missed, standin=True)
        else:
            seats = seats.values(kind="bot", level=level, missed=missed, standin=False)
        try:
            with self._writer, self.engine.begin() as connection:
                if not connection.execute(seats).rowcount:
                    return False
                if not connection.execute(_take_deadline(due, now)).rowcount:
                    raise _NotTakenError  # (the seat's write is rolled back)
                return True
        except _NotTakenError:
            return False

    def claim_reminder(self, due: Due, notice: NoticeDue | None, now: float) -> bool:
        """Take the reminder that fell due (only while it is still that turn's, and its
        deadline still to come) and queue its notice (none for a seat without a player:
        nobody to tell), in one transaction; False when another process took it or the turn
        moved on."""
        with self._writer, self.engine.begin() as connection:
            taken = connection.execute(
                update(GameRow)
                .where(
                    GameRow.id == due.game_id,
                    GameRow.deadline_turn == due.turn,
                    GameRow.reminder_at.is_not(None),
                    GameRow.reminder_at <= moment(now),
                    GameRow.deadline_at > moment(now),
                )
                .values(reminder_at=None)
            ).rowcount
            if taken and notice is not None:
                player = connection.execute(
                    select(SeatRow.player_id).where(
                        SeatRow.game_id == due.game_id, SeatRow.seat == notice.seat
                    )
                ).scalar()
                if player is not None:
                    put_notice(connection, due.game_id, notice, now)
            return bool(taken)

    def claim_notices(self, now: float, limit: int = 50) -> list[dict[str, Any]]:
        """The notices due now, each claimed for :data:`NOTICE_CLAIM_SECONDS` by this call:
        another process's claim that is still running is left alone."""
        free = or_(NoticeRow.claimed_until.is_(None), NoticeRow.claimed_until < moment(now))
        query = (
            select(NoticeRow)
            .where(NoticeRow.due_at <= moment(now), free)
            .order_by(NoticeRow.due_at)
            .limit(limit)
        )
        claimed: list[dict[str, Any]] = []
        with self.engine.connect() as connection:
            rows = connection.execute(query).mappings().all()
        for row in rows:
            with self._writer, self.engine.begin() as connection:
                taken = connection.execute(
                    update(NoticeRow)
                    .where(_same_notice(row), free)
                    .values(claimed_until=moment(now + NOTICE_CLAIM_SECONDS))
                ).rowcount
            if taken:
                claimed.append(dict(row))
        return claimed

    def notice_done(self, notice: dict[str, Any]) -> None:
        """Forget ``notice`` (sent, or given up); a newer one that replaced it stays."""
        with self._writer, self.engine.begin() as connection:
            connection.execute(delete(NoticeRow).where(_same_notice(notice)))

    def notice_later(
        self, notice: dict[str, Any], due: float, attempts: int, sent_to: Sequence[int]
    ) -> None:
        """Try ``notice`` again at ``due`` (unclaimed), keeping to whom it went already."""
        with self._writer, self.engine.begin() as connection:
            connection.execute(
                update(NoticeRow)
                .where(_same_notice(notice))
                .values(
                    due_at=moment(due),
                    attempts=attempts,
                    claimed_until=None,
                    sent_to=list(sent_to),
                )
            )

    def pending_notices(self, game_id: str) -> list[dict[str, Any]]:
        with self.engine.connect() as connection:
            query = select(NoticeRow).where(NoticeRow.game_id == game_id)
            return [dict(row) for row in connection.execute(query).mappings().all()]


def _take_deadline(due: Due, now: float) -> Any:
    """The write that takes ``due``'s deadline: only while it is still that turn's, and due."""
    return (
        update(GameRow)
        .where(
            GameRow.id == due.game_id,
            GameRow.status == "playing",
            GameRow.deadline_turn == due.turn,
            GameRow.deadline_at.is_not(None),
            GameRow.deadline_at <= moment(now),
        )
        .values(deadline_at=None, reminder_at=None, updated_at=moment(now))
    )


def _same_notice(row: Any) -> Any:
    """The condition that a notice row is still ``row`` (not replaced by a newer one)."""
    return and_(
        NoticeRow.game_id == row["game_id"],
        NoticeRow.seat == row["seat"],
        NoticeRow.kind == row["kind"],
        NoticeRow.turn == row["turn"],
        NoticeRow.created_at == row["created_at"],
    )
