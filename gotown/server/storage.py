"""Storage: a small synchronous store over the tables of :mod:`gotown.server.tables`.

A game is stored as its record: options, seed, seats (with hashed tokens) and the list of
actions in the order they were applied. The live :class:`~gotown.engine.Game` is never stored;
it is rebuilt by replaying the actions. The store is synchronous; the service calls it from a
worker thread so that the event loop never waits on the database.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, delete, event, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from .storage_commit import GroupCommit
from .storage_people import PlayerStore
from .storage_ratings import RatingStore
from .storage_turns import TurnRecord, TurnStore, write_turn
from .tables import (
    CLAIM_SEAT,
    CLAIM_STANDIN,
    END_GAME,
    INSERT_ACTION,
    STAMP,
    ActionRow,
    GameRow,
    ReviewRow,
    SeatRow,
    utc_now,
)

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


@dataclass
class StoredSeat:
    seat: int
    kind: str
    level: str | None
    name: str | None
    token_hash: str | None
    #: The player whose seat it is (None: a seat taken without a player's key, or a bot's).
    player_id: str | None = None
    #: Turns in a row whose deadline passed (turn-based tables).
    missed: int = 0
    #: A bot plays this seat's turn because its deadline passed; the seat is its person's
    #: again when the turn ends (services/deadlines.py).
    standin: bool = False

    @property
    def is_free(self) -> bool:
        return self.kind == "human" and self.token_hash is None


@dataclass
class StoredGame:
    id: str
    players: int
    seed: int
    options: dict[str, Any]
    language: str
    invite_code: str
    status: str
    seats: list[StoredSeat]
    actions: list[dict[str, Any]] = field(default_factory=list)
    rematch_of: str | None = None
    rematch_id: str | None = None
    #: Turn-based tables: seconds per turn (None: live), what a missed turn does ("end" or
    #: "bot:LEVEL"), after how many missed turns in a row the bot keeps the seat.
    pace: int | None = None
    on_timeout: str | None = None
    missed_limit: int | None = None
    #: The deadline of the turn under way (a Unix time; None: none) and that turn's number.
    deadline: float | None = None
    deadline_turn: int | None = None
    #: The circle of friends it was made from (its end counts for their ratings).
    circle_id: str | None = None


#: What a game's record looks like now, in short: status, rematch, number of actions and every
#: seat (number, kind, level, name, token hash). Equal stamps mean equal records (the rest of a
#: record never changes), so comparing one with the database tells whether a copy is current.
SeatStamp = tuple[int, str, str | None, str | None, str | None, str | None, bool]
Stamp = tuple[str, str | None, int, tuple[SeatStamp, ...]]


def stamp_of(game: StoredGame) -> Stamp:
    """The stamp of a record held in memory (compare with :meth:`Store.stamp`)."""
    return (
        game.status,
        game.rematch_id,
        len(game.actions),
        tuple(
            (s.seat, s.kind, s.level, s.name, s.token_hash, s.player_id, s.standin)
            for s in game.seats
        ),
    )


class ConflictError(Exception):
    """Another writer got there first (an action at that version is already stored)."""


class SeatChangedError(ConflictError):
    """The seat is no longer played as the action said (a person took it back from its bot,
    or it was handed to a bot), on another process since this one looked."""


#: SQLite's ``synchronous`` levels a store may run at (see :class:`Store`).
SQLITE_SYNCHRONOUS = ("full", "normal")


class Store(PlayerStore, TurnStore, RatingStore):
    """The database. On SQLite it runs in WAL mode with ``synchronous`` at ``FULL`` by default:
    each commit (one acknowledged action) waits until the log is on disk, so that an action the
    server answered survives an operating-system crash or a power loss, not only a crash of the
    process. ``normal`` syncs only at checkpoints: still safe against a crash of the process,
    faster on slow disks, but the last actions acknowledged before a power loss may be lost.
    ``benchmarks/load.py`` measures either (``GOTOWN_SQLITE_SYNCHRONOUS=normal``)."""

    def __init__(self, database_url: str, sqlite_synchronous: str = "full") -> None:
        if sqlite_synchronous not in SQLITE_SYNCHRONOUS:
            raise ValueError(f"sqlite_synchronous must be one of {', '.join(SQLITE_SYNCHRONOUS)}")
        self.url = database_url
        sqlite = database_url.startswith("sqlite")
        kwargs: dict[str, Any] = {"future": True}
        if sqlite:
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
        else:
            kwargs["pool_pre_ping"] = True
        self.engine: Engine = create_engine(database_url, **kwargs)
        if sqlite:
            level = sqlite_synchronous.upper()
            event.listen(self.engine, "connect", lambda c, r: _sqlite_pragmas(c, r, level))
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        #: For a read of one statement: no transaction, so no BEGIN nor ROLLBACK round trips
        #: around it (PostgreSQL: a stamp took four round trips with the ping, now two).
        self._reads = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        writer = threading.Lock()
        self._writer: contextlib.AbstractContextManager[Any] = (
            writer if sqlite else contextlib.nullcontext()
        )
        #: Actions are stored together on SQLite (PostgreSQL commits them side by side).
        self._appends = GroupCommit(self.engine, writer) if sqlite else None

    def migrate(self, revision: str = "head") -> None:
        """Bring the schema to the newest migration (Alembic, ``migrations/``), or to
        ``revision`` (tests start from an older schema). A database at the newest already is
        only read (Alembic is not even imported: a restart answers sooner)."""
        newest = newest_revision()
        if revision == "head" and newest is not None and self._revision() == newest:
            return
        from alembic import command
        from alembic.config import Config
        from sqlalchemy import inspect

        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with self.engine.connect() as connection:
            sqlite = connection.dialect.name == "sqlite"
            if sqlite:
                # SQLite alters a table by copying it and dropping the old one, which the
                # seats and actions refer to: foreign keys are off meanwhile (the pragma only
                # takes effect outside a transaction), and checked before the commit.
                connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
                connection.commit()
            try:
                with connection.begin():
                    config.attributes["connection"] = connection
                    tables = set(inspect(connection).get_table_names())
                    if "games" in tables and "alembic_version" not in tables:
                        command.stamp(config, "0001")  # made by create_all before migrations
                    command.upgrade(config, revision)
                    if sqlite:
                        broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
                        if broken:
                            raise RuntimeError(f"the migration broke foreign keys: {broken}")
            finally:
                if sqlite:
                    connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                    connection.commit()

    def _revision(self) -> str | None:
        """The database's migration, or None (never migrated, or not known)."""
        try:
            with self._reads.connect() as connection:
                row = connection.exec_driver_sql("SELECT version_num FROM alembic_version").first()
        except Exception:  # (no such table yet: Alembic makes it)
            return None
        return None if row is None else str(row[0])

    def dispose(self) -> None:
        self.engine.dispose()

    def session(self) -> Session:
        return self._sessions()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Session]:
        """A session in a write transaction, committed at the end (rolled back on an error).

        On SQLite the write transactions of this process take turns on a lock. SQLite admits
        one writer at a time; a second one that finds the database locked waits in SQLite's
        busy handler, which sleeps and polls (sleeps of up to 100 ms), so writers from several
        threads form convoys: 200 appends a second from the service's threads had a p99 of
        50 ms and a maximum of 0.75 s, and 400 a second a maximum of 1.4 s, where taking turns
        on a lock gave 10 ms and 22 ms, 24 ms and 40 ms. PostgreSQL locks rows, not the
        database: no lock there."""
        with self._writer, self.session() as s, s.begin():
            yield s

    # --- games -------------------------------------------------------------------------------

    def create_game(self, game: StoredGame) -> None:
        with self.transaction() as s:
            s.add(
                GameRow(
                    id=game.id,
                    players=game.players,
                    seed=game.seed,
                    options=game.options,
                    language=game.language,
                    invite_code=game.invite_code,
                    status=game.status,
                    rematch_of=game.rematch_of,
                    pace=game.pace,
                    on_timeout=game.on_timeout,
                    missed_limit=game.missed_limit,
                    circle_id=game.circle_id,
                )
            )
            s.flush()
            for seat in game.seats:
                s.add(
                    SeatRow(
                        game_id=game.id,
                        seat=seat.seat,
                        kind=seat.kind,
                        level=seat.level,
                        name=seat.name,
                        token_hash=seat.token_hash,
                        player_id=seat.player_id,
                    )
                )

    def load_game(self, game_id: str) -> StoredGame | None:
        with self.session() as s:
            row = s.get(GameRow, game_id)
            if row is None:
                return None
            seats = s.scalars(
                select(SeatRow).where(SeatRow.game_id == game_id).order_by(SeatRow.seat)
            ).all()
            actions = s.scalars(
                select(ActionRow).where(ActionRow.game_id == game_id).order_by(ActionRow.seq)
            ).all()
            return StoredGame(
                id=row.id,
                players=row.players,
                seed=row.seed,
                options=dict(row.options),
                language=row.language,
                invite_code=row.invite_code,
                status=row.status,
                seats=[
                    StoredSeat(
                        r.seat,
                        r.kind,
                        r.level,
                        r.name,
                        r.token_hash,
                        r.player_id,
                        r.missed,
                        r.standin,
                    )
                    for r in seats
                ],
                actions=[dict(a.action) for a in actions],
                rematch_of=row.rematch_of,
                rematch_id=row.rematch_id,
                pace=row.pace,
                on_timeout=row.on_timeout,
                missed_limit=row.missed_limit,
                deadline=None if row.deadline_at is None else _aware(row.deadline_at).timestamp(),
                deadline_turn=row.deadline_turn,
                circle_id=row.circle_id,
            )

    def stamp(self, game_id: str) -> Stamp | None:
        """The game's :data:`Stamp` as stored now (None for no such game): one small query, so
        that a process can check its copy of a game before answering from it."""
        with self._reads.connect() as connection:
            rows = connection.execute(STAMP, {"b_game": game_id}).all()
        if not rows:
            return None
        first = rows[0]
        return (
            first[0],
            first[1],
            int(first[2]),
            tuple((r[3], r[4], r[5], r[6], r[7], r[8], bool(r[9])) for r in rows),
        )

    def game_id_for_invite(self, code: str) -> str | None:
        with self.session() as s:
            return s.scalar(select(GameRow.id).where(GameRow.invite_code == code))

    def game_ids_with_status(self, status: str) -> list[str]:
        """The ids of the games with this status, the newest first."""
        with self.session() as s:
            query = (
                select(GameRow.id)
                .where(GameRow.status == status)
                .order_by(GameRow.created_at.desc(), GameRow.id)
            )
            return list(s.scalars(query).all())

    def game_ids_to_resume(self) -> list[str]:
        """The ids of the games under way with a bot's seat (or a bot standing in for a
        person): those whose bots may have a move to make at a start, the newest first. (The
        others wait for their people: they are loaded when asked for.)"""
        with self.session() as s:
            with_bots = select(SeatRow.game_id).where(
                (SeatRow.kind == "bot") | SeatRow.standin.is_(True)
            )
            query = (
                select(GameRow.id)
                .where(GameRow.status == "playing", GameRow.id.in_(with_bots))
                .order_by(GameRow.created_at.desc(), GameRow.id)
            )
            return list(s.scalars(query).all())

    # --- reviews ------------------------------------------------------------------------------

    def load_review(self, game_id: str, seat: int | None) -> dict[str, Any] | None:
        """A finished game's review of ``seat`` (None: no seat's mistakes), if it was kept."""
        with self._reads.connect() as connection:
            row = connection.execute(
                select(ReviewRow.data).where(
                    ReviewRow.game_id == game_id, ReviewRow.seat == (-1 if seat is None else seat)
                )
            ).first()
        return None if row is None else dict(row[0])

    def store_review(self, game_id: str, seat: int | None, data: dict[str, Any]) -> None:
        """Keep a finished game's review (a newer one of the same seat replaces it: one computed
        by code that reviews otherwise)."""
        key = {"game_id": game_id, "seat": -1 if seat is None else seat}
        with self.transaction() as s:
            s.execute(delete(ReviewRow).where(ReviewRow.game_id == game_id,
                                              ReviewRow.seat == key["seat"]))  # fmt: skip
            s.add(ReviewRow(**key, data=data))

    def set_status(self, game_id: str, status: str, was: str | None = None) -> bool:
        """Set the status (only if it is ``was`` now, when given); False when it was not."""
        with self.transaction() as s:
            query = update(GameRow).where(GameRow.id == game_id)
            if was is not None:
                query = query.where(GameRow.status == was)
            result = s.execute(query.values(status=status))
            return bool(result.rowcount)  # type: ignore[attr-defined]

    def start_game(self, game_id: str, turn: TurnRecord | None) -> bool:
        """Start a full lobby (only from the lobby) with its first turn's bookkeeping, in one
        transaction; False when it was started already."""
        with self._writer, self.engine.begin() as connection:
            started = connection.execute(
                update(GameRow)
                .where(GameRow.id == game_id, GameRow.status == "lobby")
                .values(status="playing")
            ).rowcount
            if started and turn is not None:
                write_turn(connection, game_id, turn)
            return bool(started)

    def set_rematch(self, game_id: str, rematch_id: str) -> bool:
        """Link a rematch; False when another one was linked first."""
        with self.transaction() as s:
            result = s.execute(
                update(GameRow)
                .where(GameRow.id == game_id, GameRow.rematch_id.is_(None))
                .values(rematch_id=rematch_id)
            )
            return bool(result.rowcount)  # type: ignore[attr-defined]

    # --- seats -------------------------------------------------------------------------------

    def take_seat(
        self,
        game_id: str,
        seat: int,
        name: str,
        token_hash: str,
        *,
        from_bot: bool = False,
        player_id: str | None = None,
    ) -> bool:
        """Give a free human seat to a person (``from_bot``: a seat a bot was given, that no
        person holds, becomes theirs; ``player_id``: the player whose seat it is); False if
        someone took or changed it first."""
        with self.transaction() as s:
            result = s.execute(
                update(SeatRow)
                .where(
                    SeatRow.game_id == game_id,
                    SeatRow.seat == seat,
                    SeatRow.kind == ("bot" if from_bot else "human"),
                    SeatRow.token_hash.is_(None),
                    _not_over(game_id),
                )
                .values(
                    kind="human", level=None, name=name, token_hash=token_hash, player_id=player_id
                )
            )
            return bool(result.rowcount)  # type: ignore[attr-defined]

    def set_seat_kind(
        self,
        game_id: str,
        seat: int,
        kind: str,
        level: str | None,
        was: tuple[str, str | None] | None = None,
    ) -> bool:
        """Make the seat a person's or a bot's; with ``was`` = (kind, token hash) only if the
        seat is still that (nobody took or changed it meanwhile). False when it was not."""
        with self.transaction() as s:
            query = update(SeatRow).where(
                SeatRow.game_id == game_id, SeatRow.seat == seat, _not_over(game_id)
            )
            if was is not None:
                was_kind, was_token = was
                query = query.where(
                    SeatRow.kind == was_kind,
                    SeatRow.token_hash.is_(None)
                    if was_token is None
                    else SeatRow.token_hash == was_token,
                )
            result = s.execute(query.values(kind=kind, level=level))
            return bool(result.rowcount)  # type: ignore[attr-defined]

    # --- actions -----------------------------------------------------------------------------

    def append_action(
        self,
        game_id: str,
        seq: int,
        seat: int,
        action: dict[str, Any],
        *,
        ends: bool = False,
        kind: str | None = None,
        turn: TurnRecord | None = None,
    ) -> None:
        """Store the action made on version ``seq``, and with ``ends`` (it ended the game) the
        status "over" in the same transaction: both or neither. ConflictError if that version
        is taken; with ``kind`` ("human" or "bot": who made it), SeatChangedError if the seat
        is not of that kind, checked in the same transaction (its row stays locked until the
        action is stored: a seat taken back at that moment elsewhere waits, then sees it).
        ``turn``: the turn-based bookkeeping the action causes (:mod:`.storage_turns`), in the
        same transaction; ``kind`` "standin" is a bot playing a person's timed-out turn."""
        values = {"b_game": game_id, "b_seq": seq, "b_seat": seat, "b_action": action,
                  "b_kind": kind, "b_created_at": utc_now()}  # fmt: skip

        def append(connection: Connection) -> None:
            claim = CLAIM_STANDIN if kind == "standin" else CLAIM_SEAT
            if kind is not None and not connection.execute(claim, values).rowcount:
                raise SeatChangedError(f"seat {seat} is no longer played by a {kind}")
            # the action first: a taken version fails before the status is set
            connection.execute(INSERT_ACTION, values)
            if ends:
                connection.execute(END_GAME, values)
            if turn is not None:
                write_turn(connection, game_id, turn)

        try:
            if self._appends is not None:
                self._appends.run(append)
            else:
                with self.engine.begin() as connection:
                    append(connection)
        except IntegrityError as exc:
            raise ConflictError(f"an action at version {seq} is already stored") from exc


@functools.cache
def newest_revision() -> str | None:
    """The newest migration in ``migrations/versions``: the one no other follows (read from the
    files' ``revision`` and ``down_revision`` lines, without Alembic); None when that is not
    one (then :meth:`Store.migrate` asks Alembic)."""
    revisions: dict[str, str | None] = {}
    for path in (MIGRATIONS / "versions").glob("[0-9]*.py"):
        text = path.read_text()
        found = re.search(r'^revision[^=]*=\s*"([^"]+)"', text, re.M)
        down = re.search(r'^down_revision[^=]*=\s*(?:"([^"]+)"|None)', text, re.M)
        if found is None or down is None:
            return None
        revisions[found.group(1)] = down.group(1)
    heads = set(revisions) - set(revisions.values())
    return heads.pop() if len(heads) == 1 else None


def sqlite_write_problem(database_url: str) -> str | None:
    """Why the server could not write a SQLite database at ``database_url``, in words naming the
    file, or None (another database, an in-memory one, or a file it may write). SQLite writes
    the file and, beside it, its journal (``-wal`` and ``-shm``): a read-only file, or a folder
    it cannot write in, fails at the first write with "unable to open database file", which
    never says why."""
    from sqlalchemy.engine import make_url

    url = make_url(database_url)
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    if str(url.database).startswith("file:"):  # (a URI: the operator chose its mode)
        return None
    path = Path(str(url.database)).absolute()
    folder = path.parent
    if not folder.is_dir():
        return f"the folder of the database file {path} does not exist"
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        return (
            f"the database file {path} is read-only for this server (it stores every move "
            "there): give its user the right to write it, or start it on another file"
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        return (
            f"the folder {folder} is read-only for this server: SQLite writes its journal "
            f"({path.name}-wal and {path.name}-shm) beside the database file, so the folder "
            "must be writable too"
        )
    return None


def _aware(moment: dt.datetime) -> dt.datetime:
    """A stored time as an aware UTC datetime (SQLite gives back naive ones)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.UTC)


def _not_over(game_id: str) -> Any:
    """The condition that ``game_id`` is not over: a finished game's seats stay as they
    finished it, even when another process ended it a moment before this one wrote."""
    return SeatRow.game_id.in_(
        select(GameRow.id).where(GameRow.id == game_id, GameRow.status != "over")
    )


def _sqlite_pragmas(dbapi_connection: Any, _record: Any, synchronous: str) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA synchronous={synchronous}")
    cursor.close()
