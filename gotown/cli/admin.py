"""``gotown admin``: what the operator of a server runs beside it (backups, the schema, the open
tables, retention), on the database the server uses (``GOTOWN_DATABASE_URL``)."""

from __future__ import annotations

import datetime as dt
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from ..server.config import Settings
    from ..server.storage import Store

#: Exit statuses of every ``gotown admin`` command.
DONE, FAILED, USAGE, NO_SUCH_GAME = 0, 1, 2, 3
EXIT_CODES = (
    "Exit status: 0 done; 1 failed (the database does not answer, a tool fails: the message "
    "says why); 2 a bad command line or setting; 3 no such game."
)

DATABASE_OPTION = click.option(
    "--database-url", envvar="GOTOWN_DATABASE_URL", default=None, metavar="URL",
    help="The server's database (default: GOTOWN_DATABASE_URL, else the SQLite file "
         "gotown.sqlite3 here).",
)  # fmt: skip


class Failed(click.ClickException):
    exit_code = FAILED


class NoSuchGame(click.ClickException):
    exit_code = NO_SUCH_GAME


@click.group(epilog=EXIT_CODES)
def admin() -> None:
    """Run a GoTown server: backups, the schema, its tables, retention.

    Every command works on the server's database (--database-url, or GOTOWN_DATABASE_URL as the
    server reads it), while the server runs unless it says otherwise. docs/deploy.md says when
    to run which.
    """


def _settings(database_url: str | None) -> Settings:
    from ..server.config import SettingError, Settings

    try:
        return Settings.from_env(database_url=database_url)
    except SettingError as exc:
        if exc.name == "database_url" and exc.variable is None:
            raise click.BadParameter(str(exc), param_hint="--database-url") from None
        raise click.UsageError(f"a setting from the environment: {exc}") from None


@contextmanager
def _store(settings: Settings) -> Iterator[Store]:
    """The store, its errors as messages: an unreachable database exits with 1."""
    from sqlalchemy.exc import SQLAlchemyError

    from ..server.storage import Store
    from ..server.storage_admin import AdminError

    store = Store(settings.database_url, settings.sqlite_synchronous)
    try:
        yield store
    except AdminError as exc:
        raise Failed(str(exc)) from None
    except SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        raise Failed(f"the database does not answer: {reason}") from None
    finally:
        store.dispose()


def _where(settings: Settings) -> str:
    from sqlalchemy.engine import make_url

    return make_url(settings.database_url).render_as_string(hide_password=True)


# --- the schema --------------------------------------------------------------------------------


@admin.command(epilog=EXIT_CODES)
@DATABASE_OPTION
def migrate(database_url: str | None) -> None:
    """Bring the database to this version's schema (a new database: create it).

    A server does it when it starts; with several processes on one database, run this once
    first (the deploy files do), so that they do not all migrate at once.
    """
    from ..server.storage_admin import head_revision, schema_revision

    settings = _settings(database_url)
    with _store(settings) as store:
        before = schema_revision(store)
        store.migrate()
        after = schema_revision(store)
    if before == after:
        click.echo(f"{_where(settings)}: at {after}, this version's schema: nothing to do")
    else:
        click.echo(f"{_where(settings)}: migrated from {before or 'nothing'} to {after}")
    if after != head_revision():  # pragma: no cover - migrate always reaches the head
        raise Failed(f"the database is at {after}, not at {head_revision()}")


# --- backups -----------------------------------------------------------------------------------


@admin.command(epilog=EXIT_CODES)
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@DATABASE_OPTION
def backup(file: Path, database_url: str | None) -> None:
    """Copy the whole database into FILE, while the server runs.

    SQLite: SQLite's online backup (a consistent copy, the players never wait). PostgreSQL:
    pg_dump --format=custom (needs pg_dump here, of the server's major version or newer).
    FILE is written whole or not at all, readable by its owner only. Restore it with
    `gotown admin restore FILE`.
    """
    from ..server.storage_admin import backup as take_backup

    settings = _settings(database_url)
    with _store(settings) as store:
        made = take_backup(store, file)
    click.echo(
        f"{made.path}: {made.games} games, {made.bytes} bytes ({made.method} of {_where(settings)})"
    )
    key = Path(settings.vapid_key_file)
    if key.is_file():
        click.echo(
            f"Keep a copy of {key} beside it once (the push key, which never changes): a "
            "server with another key loses every push subscription."
        )


@admin.command(epilog=EXIT_CODES)
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--replace", is_flag=True,
              help="Replace a database that holds games (every one of them is lost).")  # fmt: skip
@DATABASE_OPTION
def restore(file: Path, replace: bool, database_url: str | None) -> None:
    """Make the database a copy of the backup FILE, then bring it to this version's schema.

    Stop every server on the database first: each holds games in memory that the restore
    would contradict. Start them again after: every game goes on from the backup.
    """
    from ..server.storage_admin import restore as restore_backup

    settings = _settings(database_url)
    with _store(settings) as store:
        games = restore_backup(store, file, replace=replace)
    click.echo(f"{_where(settings)}: restored from {file}, {games} games")


# --- tables ------------------------------------------------------------------------------------

STATUSES = {
    "open": ("lobby", "playing"),
    "lobby": ("lobby",),
    "playing": ("playing",),
    "over": ("over",),
    "all": ("lobby", "playing", "over"),
}


@admin.command(epilog=EXIT_CODES)
@click.option("--status", type=click.Choice(list(STATUSES)), default="open", show_default=True,
              help="open: in the lobby or playing.")  # fmt: skip
@click.option("--limit", type=click.IntRange(1, 100_000), default=100, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="One JSON object a line.")
@DATABASE_OPTION
def tables(status: str, limit: int, as_json: bool, database_url: str | None) -> None:
    """List the tables, the most recently changed first: id, status, actions, last change,
    seats (a person's name, or bot:LEVEL; a free seat: -)."""
    from ..server.storage_admin import list_tables

    settings = _settings(database_url)
    with _store(settings) as store:
        found = list_tables(store, STATUSES[status], limit)
    if as_json:
        for table in found:
            click.echo(json.dumps(table.to_json()))
        return
    now = dt.datetime.now(dt.UTC)
    for table in found:
        seats = ", ".join(
            f"bot:{s['level']}" if s["kind"] == "bot" else (s["name"] or "-") for s in table.seats
        )
        age = _ago(now - table.last_change)
        click.echo(f"{table.id}  {table.status:<7}  {table.actions:>5} actions  {age:>9}  {seats}")
    click.echo(f"{len(found)} tables ({status})", err=True)


def _ago(delta: dt.timedelta) -> str:
    seconds = max(0, int(delta.total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds // size} {unit} ago"
    return f"{seconds} s ago"


@admin.command(epilog=EXIT_CODES)
@click.argument("game_id")
@click.option("--export", "export_to", type=click.Path(dir_okay=False, path_type=Path),
              help="Write its record to this file first.")  # fmt: skip
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@DATABASE_OPTION
def close(game_id: str, export_to: Path | None, yes: bool, database_url: str | None) -> None:
    """Close the table GAME_ID for good: its record is deleted (its seats, its moves).

    With GOTOWN_BROADCAST_URL=redis://, every server is told at once and closes its sockets of
    the game; a single server (memory://) finds it gone at its next move there. Its links then
    answer "no such game". An id that begins with - follows --: gotown admin close -- -Ab3.
    """
    from ..server.storage_admin import delete_games, export_record

    settings = _settings(database_url)
    with _store(settings) as store:
        if store.load_game(game_id) is None:
            raise NoSuchGame(f"there is no game {game_id!r} in {_where(settings)}")
        if export_to is not None:
            _write_json(export_record(store, game_id), export_to)
        if not yes:
            if not sys.stdin.isatty():
                raise click.UsageError("closing deletes the game: add --yes to confirm")
            click.confirm(f"Delete game {game_id} for good?", abort=True)
        delete_games(store, [game_id])
    told = _tell_servers(settings, game_id)
    click.echo(f"closed {game_id}: deleted{'; the servers were told' if told else ''}")


def _tell_servers(settings: Settings, game_id: str) -> bool:
    """Tell the servers sharing Redis that ``game_id`` changed (they look, and find it gone);
    False with memory:// (no way to reach the process)."""
    import asyncio
    from urllib.parse import urlparse

    if urlparse(settings.broadcast_url).scheme not in ("redis", "rediss"):
        return False
    from ..server.pubsub import Notice, PubSub
    from ..server.redis_changes import ChangeCounts

    async def tell() -> None:
        counts = ChangeCounts(settings.broadcast_url)
        pubsub = PubSub(settings.broadcast_url)
        await pubsub.connect()
        try:
            await counts.mark(game_id)
            await pubsub.publish(Notice(game_id, 0, "lobby", "gotown-admin"))
        finally:
            await pubsub.disconnect()
            await counts.close()

    try:
        asyncio.run(tell())
    except Exception as exc:
        click.echo(f"warning: the servers could not be told through Redis ({exc!r})", err=True)
        return False
    return True


@admin.command(epilog=EXIT_CODES)
@click.argument("game_id")
@click.argument("file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@DATABASE_OPTION
def export(game_id: str, file: Path | None, database_url: str | None) -> None:
    """Write the record of GAME_ID to FILE (else print it): its players, options, seed and
    moves, as `gotown review FILE` and `gotown play --replay FILE` read it.

    The seed deals every card: the record of a game still played shows every hand. Keep it
    from its players until the game is over. An id that begins with - follows --.
    """
    from ..server.storage_admin import AdminError, export_record

    settings = _settings(database_url)
    with _store(settings) as store:
        try:
            record = export_record(store, game_id)
        except AdminError as exc:
            raise NoSuchGame(f"{exc} in {_where(settings)}") from None
    if file is None:
        click.echo(json.dumps(record))
    else:
        _write_json(record, file)
        click.echo(f"{file}: {len(record['actions'])} actions of game {game_id}", err=True)


def _write_json(data: Any, file: Path) -> None:
    try:
        file.write_text(json.dumps(data) + "\n", encoding="utf-8")
    except OSError as exc:
        raise Failed(f"cannot write {file}: {exc.strerror or exc}") from None


# --- retention ---------------------------------------------------------------------------------


@admin.command(epilog=EXIT_CODES)
@click.option(
    "--retention-days",
    type=click.FloatRange(min=0),
    default=None,
    help="Finished games older than this (default: GOTOWN_RETENTION_DAYS; 0: none).",
)
@click.option(
    "--abandoned-days",
    type=click.FloatRange(min=0),
    default=None,
    help="Unfinished games unchanged this long (default: GOTOWN_ABANDONED_DAYS; 0: none).",
)
@click.option("--dry-run", is_flag=True, help="Count what would go; delete nothing.")
@DATABASE_OPTION
def purge(
    retention_days: float | None,
    abandoned_days: float | None,
    dry_run: bool,
    database_url: str | None,
) -> None:
    """Delete the games kept long enough now (the server does it every hour when
    GOTOWN_RETENTION_DAYS or GOTOWN_ABANDONED_DAYS is set)."""
    from ..server import retention
    from ..server.storage_admin import expired_games

    settings = _settings(database_url)
    changes = {"retention_days": retention_days, "abandoned_days": abandoned_days}
    settings = settings.with_(**{k: v for k, v in changes.items() if v is not None})
    if not (settings.retention_days or settings.abandoned_days):
        raise click.UsageError(
            "no retention set: give --retention-days or --abandoned-days (or set "
            "GOTOWN_RETENTION_DAYS, GOTOWN_ABANDONED_DAYS)"
        )
    now = dt.datetime.now(dt.UTC)
    with _store(settings) as store:
        if dry_run:
            finished, unchanged = retention.cutoffs(settings, now)
            found = expired_games(store, finished, unchanged, limit=1_000_000)
            click.echo(f"{len(found)} games would be deleted")
            return
        deleted = retention.purge(store, settings, now)
    click.echo(f"{len(deleted)} games deleted")
