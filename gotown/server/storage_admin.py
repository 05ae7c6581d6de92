"""The operator's side of the store: backups and restores, the schema's revision, the tables
open, one game's record, and deleting games (a table closed, retention).

Backups are taken while the server runs:

- SQLite: SQLite's online backup API copies the database page by page into a new file, a
  consistent snapshot even while actions are written (WAL mode: the writers never wait for it);
  the copy is written beside the target and renamed into place once whole, mode 0600.
- PostgreSQL: ``pg_dump --format=custom`` (one consistent snapshot too) and
  ``pg_restore --clean --if-exists --single-transaction`` back, run with the URL's user, host
  and database; the password goes through the environment, never the command line.

Deleting a game deletes every row that refers to it (each table with a foreign key to
``games``, found from the tables' models, so a table added later is covered) and the rematch
links to it, in one transaction.
"""

from __future__ import annotations

import datetime as dt
import functools
import os
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import delete, func, or_, select, text, update
from sqlalchemy.engine import URL, make_url

from .storage import MIGRATIONS, Store
from .tables import ActionRow, Base, GameRow, SeatRow


class AdminError(Exception):
    """An operator's request that cannot be done: the message says why and what to do."""


# --- the schema ------------------------------------------------------------------------------


@functools.cache
def head_revision() -> str:
    """The newest migration this code knows (``migrations/versions``)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    if head is None:  # pragma: no cover - the package ships its migrations
        raise AdminError("no migration found")
    return head


def schema_revision(store: Store) -> str | None:
    """The database's migration (None: never migrated). Raises SQLAlchemy's errors when the
    database does not answer."""
    with store.engine.connect() as connection:
        try:
            row = connection.execute(text("SELECT version_num FROM alembic_version")).first()
        except Exception:
            connection.rollback()
            if "alembic_version" in _table_names(store):
                raise
            return None
    return None if row is None else str(row[0])


def _table_names(store: Store) -> set[str]:
    from sqlalchemy import inspect

    with store.engine.connect() as connection:
        return set(inspect(connection).get_table_names())


def count_games(store: Store) -> int:
    """How many games the database holds (0 for a database never migrated)."""
    if "games" not in _table_names(store):
        return 0
    with store.session() as s:
        return int(s.scalar(select(func.count()).select_from(GameRow)) or 0)


# --- backups -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Backup:
    path: Path
    bytes: int
    games: int
    method: str  # "sqlite-online-backup" | "pg_dump"


def is_sqlite(store: Store) -> bool:
    return make_url(store.url).get_backend_name() == "sqlite"


def sqlite_path(store: Store) -> Path:
    database = make_url(store.url).database
    if not database or database == ":memory:":
        raise AdminError("an in-memory SQLite database cannot be backed up or restored")
    return Path(database)


def backup(store: Store, target: Path) -> Backup:
    """A consistent copy of the whole database in ``target`` (replaced when it exists)."""
    games = count_games(store)
    target = target.resolve()
    if not target.parent.is_dir():
        raise AdminError(f"{target.parent} is not a directory")
    if is_sqlite(store):
        _sqlite_backup(sqlite_path(store), target)
        method = "sqlite-online-backup"
    else:
        _pg_run("pg_dump", store.url, ["--format=custom", "--no-owner", "--no-privileges"],
                output=target)  # fmt: skip
        method = "pg_dump"
    return Backup(target, target.stat().st_size, games, method)


def _sqlite_backup(source: Path, target: Path) -> None:
    if not source.is_file():
        raise AdminError(f"no SQLite database at {source}")
    handle, partial = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    os.close(handle)
    try:
        os.chmod(partial, 0o600)  # (names, token hashes and seeds: the operator's only)
        src = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=30)
        dst = sqlite3.connect(partial)
        try:
            src.backup(dst)
            # One file, whole: no write-ahead log beside it to forget.
            dst.execute("PRAGMA journal_mode=DELETE")
            check = dst.execute("PRAGMA quick_check").fetchone()
            if check is None or check[0] != "ok":
                raise AdminError(f"the copy of {source} fails SQLite's check: {check}")
        finally:
            dst.close()
            src.close()
        os.replace(partial, target)
    finally:
        Path(partial).unlink(missing_ok=True)


def restore(store: Store, source: Path, *, replace: bool = False) -> int:
    """Make the database a copy of the backup ``source``, then migrate it to this code's
    schema; answers the number of games restored. Refused when the database holds games,
    unless ``replace``. Every server on the database must be stopped first: they hold games
    in memory that the restore would contradict."""
    if not source.is_file():
        raise AdminError(f"no backup file at {source}")
    held = count_games(store)
    if held and not replace:
        raise AdminError(
            f"the database holds {held} games: restoring would replace them all (add --replace "
            "to do so, after stopping every server on it)"
        )
    if is_sqlite(store):
        _sqlite_restore(source, sqlite_path(store))
    else:
        _pg_run("pg_restore", store.url,
                ["--clean", "--if-exists", "--no-owner", "--no-privileges",
                 "--single-transaction", "--exit-on-error", str(source)])  # fmt: skip
    store.dispose()  # (connections opened before the restore saw the old database)
    store.migrate()
    return count_games(store)


def _sqlite_restore(source: Path, target: Path) -> None:
    try:
        src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
        try:
            names = {row[0] for row in src.execute("SELECT name FROM sqlite_master")}
        finally:
            src.close()
    except sqlite3.DatabaseError as exc:
        raise AdminError(f"{source} is not a SQLite database: {exc}") from None
    if not {"games", "alembic_version"} <= names:
        raise AdminError(f"{source} is not a GoTown database (no games or alembic_version)")
    target.parent.mkdir(parents=True, exist_ok=True)
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    dst = sqlite3.connect(target, timeout=30)
    try:
        src.backup(dst)
        dst.execute("PRAGMA journal_mode=WAL")  # (as the server runs it)
    finally:
        dst.close()
        src.close()


def libpq_environment(url: str) -> tuple[str, dict[str, str]]:
    """The connection string a PostgreSQL tool takes for a SQLAlchemy URL, with no password in
    it, and the environment that carries the password (``PGPASSWORD``)."""
    parsed: URL = make_url(url)
    if parsed.get_backend_name() != "postgresql":
        raise AdminError(f"not a PostgreSQL URL: {parsed.render_as_string(hide_password=True)}")
    env = dict(os.environ)
    if parsed.password is not None:
        env["PGPASSWORD"] = str(parsed.password)
    plain = parsed.set(drivername="postgresql", password=None)
    return plain.render_as_string(hide_password=False), env


def _pg_run(tool: str, url: str, arguments: Sequence[str], output: Path | None = None) -> None:
    program = shutil.which(tool)
    if program is None:
        raise AdminError(
            f"{tool} is not installed here (Debian: apt-get install postgresql-client, of the "
            "server's major version or newer); or run it where PostgreSQL runs, as in "
            "docs/deploy.md"
        )
    dsn, env = libpq_environment(url)
    command = [program, *arguments, f"--dbname={dsn}"]
    if output is None:
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    else:
        handle, partial = tempfile.mkstemp(prefix=f".{output.name}.", dir=output.parent)
        os.close(handle)
        os.chmod(partial, 0o600)
        done = subprocess.run([*command, f"--file={partial}"], env=env, capture_output=True,
                              text=True, check=False)  # fmt: skip
        if done.returncode == 0:
            os.replace(partial, output)
        Path(partial).unlink(missing_ok=True)
    if done.returncode != 0:
        raise AdminError(f"{tool} failed (exit {done.returncode}): {done.stderr.strip()}")


# --- tables ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TableSummary:
    id: str
    status: str
    players: int
    seats: list[dict[str, Any]]
    actions: int
    created_at: dt.datetime
    last_change: dt.datetime

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "players": self.players,
            "seats": self.seats,
            "actions": self.actions,
            "created_at": _utc(self.created_at).isoformat(),
            "last_change": _utc(self.last_change).isoformat(),
        }


def _utc(moment: dt.datetime) -> dt.datetime:
    """Stored times as aware UTC (SQLite gives them back naive)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.UTC)


def _moment(value: Any) -> dt.datetime:
    """A time from an expression (SQLite answers text for ``coalesce`` of datetimes)."""
    return dt.datetime.fromisoformat(value) if isinstance(value, str) else value


def _last_change() -> Any:
    """The time a game last changed: its newest action, else its creation."""
    newest = (
        select(func.max(ActionRow.created_at))
        .where(ActionRow.game_id == GameRow.id)
        .scalar_subquery()
    )
    return func.coalesce(newest, GameRow.created_at)


def list_tables(store: Store, statuses: Iterable[str], limit: int = 100) -> list[TableSummary]:
    """The games with these statuses, the most recently changed first."""
    changed = _last_change().label("changed")
    count = (
        select(func.count(ActionRow.id)).where(ActionRow.game_id == GameRow.id).scalar_subquery()
    )
    query = (
        select(GameRow.id, GameRow.status, GameRow.players, GameRow.created_at, count, changed)
        .where(GameRow.status.in_(list(statuses)))
        .order_by(changed.desc(), GameRow.id)
        .limit(limit)
    )
    with store.session() as s:
        rows = s.execute(query).all()
        seats: dict[str, list[dict[str, Any]]] = {row[0]: [] for row in rows}
        if seats:
            for seat in s.scalars(
                select(SeatRow).where(SeatRow.game_id.in_(list(seats))).order_by(SeatRow.seat)
            ):
                seats[seat.game_id].append(
                    {"seat": seat.seat, "kind": seat.kind, "level": seat.level, "name": seat.name}
                )
    return [
        TableSummary(
            row[0], row[1], row[2], seats[row[0]], int(row[4]), _utc(row[3]), _utc(_moment(row[5]))
        )
        for row in rows
    ]


def export_record(store: Store, game_id: str) -> dict[str, Any]:
    """The game's record as ``gotown review`` and ``gotown play --replay`` read it: players,
    options, seed and actions (for a game in the lobby, no action)."""
    stored = store.load_game(game_id)
    if stored is None:
        raise AdminError(f"there is no game {game_id!r}")
    return {
        "players": stored.players,
        "options": stored.options,
        "seed": stored.seed,
        "actions": stored.actions,
    }


# --- deleting games ----------------------------------------------------------------------------


def _referring_columns() -> list[Any]:
    """Every column that refers to ``games.id``, the tables that refer to those first."""
    columns = []
    for table in reversed(Base.metadata.sorted_tables):
        for key in table.foreign_keys:
            if key.column.table.name == GameRow.__tablename__:
                columns.append(key.parent)
    return columns


def delete_games(store: Store, game_ids: Sequence[str]) -> int:
    """Delete these games with every row that refers to them; answers how many were found."""
    if not game_ids:
        return 0
    ids = list(game_ids)
    with store.transaction() as s:
        for column in _referring_columns():
            s.execute(delete(column.table).where(column.in_(ids)))
        s.execute(update(GameRow).where(GameRow.rematch_id.in_(ids)).values(rematch_id=None))
        s.execute(update(GameRow).where(GameRow.rematch_of.in_(ids)).values(rematch_of=None))
        result = s.execute(delete(GameRow).where(GameRow.id.in_(ids)))
        return int(result.rowcount)  # type: ignore[attr-defined]


def expired_games(
    store: Store,
    finished_before: dt.datetime | None,
    unchanged_before: dt.datetime | None,
    limit: int = 500,
) -> list[str]:
    """The games retention deletes now: finished ones that ended before ``finished_before``,
    and unfinished ones unchanged since before ``unchanged_before`` (None: not those)."""
    conditions = []
    changed = _last_change()
    if finished_before is not None:
        ended = func.coalesce(GameRow.finished_at, changed)
        conditions.append((GameRow.status == "over") & (ended < finished_before))
    if unchanged_before is not None:
        conditions.append(
            (GameRow.status != "over")
            & (changed < unchanged_before)
            & (GameRow.updated_at.is_(None) | (GameRow.updated_at < unchanged_before))
        )
    if not conditions:
        return []
    query = select(GameRow.id).where(or_(*conditions)).order_by(GameRow.id).limit(limit)
    with store.session() as s:
        return list(s.scalars(query).all())
