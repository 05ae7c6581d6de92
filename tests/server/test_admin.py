"""``gotown admin``: a backup taken during play restores to a server that goes on with every
game (SQLite's online backup; PostgreSQL's pg_dump and pg_restore); the tables, a table
closed, a record exported, retention; every command's help and exit statuses."""

from __future__ import annotations

import datetime as dt
import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from sqlalchemy import text
from sqlalchemy.engine import make_url

from gotown.cli import main
from gotown.engine import Record
from gotown.server.config import Settings
from gotown.server.storage import Store

from .helpers import (
    REDIS_URL,
    create_database_if_missing,
    new_game,
    play_one,
    play_to_end,
    running,
    state,
    wait_until,
)


def admin(command: str, *args: str, database_url: str, **env: str) -> Result:
    """``gotown admin COMMAND`` on ``database_url``; a game id in ``args`` follows ``--`` (an id
    may begin with -)."""
    return CliRunner().invoke(
        main, ["admin", command, "--database-url", database_url, *args],
        env=env, catch_exceptions=False,
    )  # fmt: skip


def _games_in_play(client: Any, count: int) -> dict[str, dict[int, str]]:
    """``count`` games of two people, and one against a bot, a few moves in."""
    games: dict[str, dict[int, str]] = {}
    rng = random.Random(3)
    for i in range(count):
        kinds = ["human", "bot"] if i == 0 else ["human", "human"]
        game_id, tokens = new_game(client, kinds, seed=100 + i)
        games[game_id] = tokens
        for _ in range(3 + i):
            st = state(client, game_id, tokens[0])
            if st["view"]["active"] in tokens:
                play_one(client, game_id, tokens, rng)
    return games


def _other_database(url: str, suffix: str) -> str:
    """A database beside ``url``'s: another SQLite file, or another PostgreSQL database."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return f"sqlite:///{Path(str(parsed.database)).with_name(f'{suffix}.sqlite3')}"
    other = parsed.set(database=f"{parsed.database}_{suffix}").render_as_string(False)
    create_database_if_missing(other)
    store = Store(other)
    try:
        with store.engine.begin() as connection:  # (left by an earlier run)
            connection.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
    finally:
        store.dispose()
    return other


def test_a_backup_made_during_play_restores_to_a_server_that_goes_on(
    settings: Settings, tmp_path: Path
) -> None:
    backup = tmp_path / "gotown.backup"
    with running(settings) as client:
        games = _games_in_play(client, 4)
        # A table of bots only plays on while the backup is taken.
        busy, _ = new_game(client, ["bot", "bot"], seed=9)
        before = {game_id: state(client, game_id)["version"] for game_id in games}
        made = admin("backup", str(backup), database_url=settings.database_url)
        assert made.exit_code == 0, made.output
        assert "5 games" in made.output
        assert backup.stat().st_mode & 0o077 == 0  # (the operator's only)
    restored_url = _other_database(settings.database_url, "restored")
    done = admin("restore", str(backup), database_url=restored_url)
    assert done.exit_code == 0, done.output
    assert "5 games" in done.output
    with running(settings.with_(database_url=restored_url)) as client:
        for game_id, tokens in games.items():
            assert state(client, game_id)["version"] == before[game_id]
            over = play_to_end(client, game_id, tokens, seed=len(tokens))
            assert over["status"] == "over"
        # The bots' table goes on by itself from where the backup caught it.
        wait_until(client, busy, None, lambda st: st["status"] == "over")


def test_restore_refuses_a_database_with_games_and_what_is_no_backup(
    settings: Settings, tmp_path: Path
) -> None:
    with running(settings) as client:
        new_game(client, ["human", "human"])
    backup = tmp_path / "b.backup"
    assert admin("backup", str(backup), database_url=settings.database_url).exit_code == 0
    refused = CliRunner().invoke(
        main, ["admin", "restore", str(backup), "--database-url", settings.database_url]
    )
    assert refused.exit_code == 1
    assert "holds 1 games" in refused.output and "--replace" in refused.output
    replaced = admin("restore", str(backup), "--replace", database_url=settings.database_url)
    assert replaced.exit_code == 0, replaced.output
    junk = tmp_path / "junk.backup"
    junk.write_bytes(b"not a database at all" * 100)
    empty = _other_database(settings.database_url, "empty")
    failed = CliRunner().invoke(main, ["admin", "restore", str(junk), "--database-url", empty])
    assert failed.exit_code == 1 and "Error:" in failed.output
    missing = CliRunner().invoke(
        main, ["admin", "backup", str(tmp_path / "no" / "such.backup"),
               "--database-url", settings.database_url],
    )  # fmt: skip
    assert missing.exit_code == 1 and "is not a directory" in missing.output


def test_tables_lists_the_open_tables(settings: Settings) -> None:
    with running(settings) as client:
        playing, _ = new_game(client, ["human", "human"], names=("Ann", "Bob"))
        lobby = client.post("/api/games", json={"name": "Cy", "seats": [{"kind": "human"}] * 3})
        assert lobby.status_code == 201
        done, tokens = new_game(client, ["human", "human"], seed=11)
        play_to_end(client, done, tokens)
    listed = admin("tables", "--json", database_url=settings.database_url)
    assert listed.exit_code == 0, listed.output
    rows = {row["id"]: row for row in map(json.loads, listed.output.splitlines())}
    assert set(rows) == {playing, lobby.json()["game_id"]}  # (open: not the finished one)
    assert [s["name"] for s in rows[playing]["seats"]] == ["Ann", "Bob"]
    assert rows[lobby.json()["game_id"]]["status"] == "lobby"
    over = admin("tables", "--status", "over", database_url=settings.database_url)
    assert done in over.output and playing not in over.output


def test_export_writes_the_record_that_review_reads(settings: Settings, tmp_path: Path) -> None:
    with running(settings) as client:
        game_id, tokens = new_game(client, ["human", "human"], seed=21)
        play_to_end(client, game_id, tokens)
    file = tmp_path / "game.json"
    exported = admin("export", "--", game_id, str(file), database_url=settings.database_url)
    assert exported.exit_code == 0, exported.output
    record = Record.from_json(json.loads(file.read_text()))
    assert record.replay().is_over
    store = Store(settings.database_url)
    try:
        stored = store.load_game(game_id)
        assert stored is not None
        assert [a.to_json() for a in record.actions] == stored.actions
    finally:
        store.dispose()
    reviewed = CliRunner().invoke(main, ["review", str(file), "--seat", "0", "--json"])
    assert reviewed.exit_code == 0, reviewed.output
    unknown = CliRunner().invoke(
        main, ["admin", "export", "nosuchgame", "--database-url", settings.database_url]
    )
    assert unknown.exit_code == 3 and "no game 'nosuchgame'" in unknown.output


def test_close_deletes_a_table_and_tells_the_servers(settings: Settings, tmp_path: Path) -> None:
    shared = settings.with_(broadcast_url=REDIS_URL)
    with running(shared) as client:
        game_id, tokens = new_game(client, ["human", "human"], seed=31)
        other, other_tokens = new_game(client, ["human", "human"], seed=32)
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            ws.send_json({"token": tokens[0]})
            assert ws.receive_json()["type"] == "state"
            asked = CliRunner().invoke(
                main, ["admin", "close", "--database-url", settings.database_url, "--", game_id],
                env={"GOTOWN_BROADCAST_URL": REDIS_URL}, input="",
            )  # fmt: skip
            assert asked.exit_code == 2 and "--yes" in asked.output  # (no terminal to ask)
            closed = admin("close", "--yes", "--export", str(tmp_path / "c.json"), "--", game_id,
                           database_url=settings.database_url,
                           GOTOWN_BROADCAST_URL=REDIS_URL)  # fmt: skip
            assert closed.exit_code == 0, closed.output
            assert "the servers were told" in closed.output
            # The server's socket of the game hears it is gone, and closes.
            message = ws.receive_json()
            assert message["type"] == "error" and message["error"]["code"] == "unknown-game"
        assert client.get(f"/api/games/{game_id}/state").status_code == 404
        assert json.loads((tmp_path / "c.json").read_text())["seed"] == 31
        # The other table plays on.
        assert play_one(client, other, other_tokens, random.Random(1)) == 1
    again = CliRunner().invoke(
        main, ["admin", "close", "--yes", "--database-url", settings.database_url, "--", game_id]
    )
    assert again.exit_code == 3


def _age(url: str, game_id: str, days: float) -> None:
    """Make ``game_id`` look ``days`` older: its creation, moves and end."""
    store = Store(url)
    try:
        with store.engine.begin() as connection:
            for table, column in (("games", "created_at"), ("games", "finished_at"),
                                  ("games", "updated_at"), ("actions", "created_at")):  # fmt: skip
                key = "id" if table == "games" else "game_id"
                rows = connection.execute(
                    text(f"SELECT {column} FROM {table} WHERE {key} = :g"), {"g": game_id}
                ).all()
                for (value,) in {row for row in rows if row[0] is not None}:
                    moment = dt.datetime.fromisoformat(value) if isinstance(value, str) else value
                    connection.execute(
                        text(f"UPDATE {table} SET {column} = :new WHERE {key} = :g "
                             f"AND {column} = :old"),
                        {"new": moment - dt.timedelta(days=days), "old": value, "g": game_id},
                    )  # fmt: skip
    finally:
        store.dispose()


def test_purge_deletes_what_was_kept_long_enough(settings: Settings) -> None:
    with running(settings) as client:
        old_over, tokens = new_game(client, ["human", "human"], seed=41)
        play_to_end(client, old_over, tokens)
        new_over, tokens = new_game(client, ["human", "human"], seed=42)
        play_to_end(client, new_over, tokens)
        old_open, _ = new_game(client, ["human", "human"], seed=43)
        old_lobby = client.post("/api/games", json={"name": "A", "seats": [{"kind": "human"}] * 2})
        lobby_id = old_lobby.json()["game_id"]
    for game_id in (old_over, old_open, lobby_id):
        _age(settings.database_url, game_id, 40)
    url = settings.database_url
    unset = CliRunner().invoke(main, ["admin", "purge", "--database-url", url])
    assert unset.exit_code == 2 and "no retention set" in unset.output
    dry = admin("purge", "--dry-run", database_url=url, GOTOWN_RETENTION_DAYS="30")
    assert dry.exit_code == 0 and "1 games would be deleted" in dry.output
    kept = admin("purge", database_url=url, GOTOWN_RETENTION_DAYS="30")
    assert "1 games deleted" in kept.output
    left = admin("tables", "--status", "all", "--json", database_url=url)
    assert {json.loads(line)["id"] for line in left.output.splitlines()} == {
        new_over,
        old_open,
        lobby_id,
    }
    abandoned = admin("purge", "--abandoned-days", "30", database_url=url)
    assert "2 games deleted" in abandoned.output
    left = admin("tables", "--status", "all", "--json", database_url=url)
    assert [json.loads(line)["id"] for line in left.output.splitlines()] == [new_over]


def test_the_server_sweeps_expired_games_itself(settings: Settings) -> None:
    from gotown.server import operations

    with running(settings) as client:
        old, tokens = new_game(client, ["human", "human"], seed=51)
        play_to_end(client, old, tokens)
        fresh, _ = new_game(client, ["human", "human"], seed=52)
    _age(settings.database_url, old, 10)
    swept = settings.with_(retention_days=7)
    with pytest.MonkeyPatch.context() as patch:
        # (One pass as soon as it starts, not a minute later.)
        patch.setattr(operations, "RETENTION_FIRST_SECONDS", 0.0)
        with running(swept) as client:
            store = Store(settings.database_url)
            try:
                deadline = time.monotonic() + 30
                while store.load_game(old) is not None:
                    assert time.monotonic() < deadline, "the old game was never deleted"
                    time.sleep(0.01)
                assert store.load_game(fresh) is not None
            finally:
                store.dispose()
            assert client.get(f"/api/games/{old}/state").status_code == 404
            assert client.get(f"/api/games/{fresh}/state").status_code == 200


@pytest.mark.parametrize(
    "command", ["backup", "restore", "migrate", "tables", "close", "export", "purge"]
)
def test_every_command_has_help_and_says_its_exit_statuses(command: str) -> None:
    shown = CliRunner().invoke(main, ["admin", command, "--help"])
    assert shown.exit_code == 0
    assert "Exit status: 0 done; 1 failed" in " ".join(shown.output.split())


def test_a_database_that_does_not_answer_is_exit_status_1() -> None:
    url = "postgresql+psycopg://nobody@127.0.0.1:9/none?connect_timeout=1"
    result = CliRunner().invoke(main, ["admin", "tables", "--database-url", url])
    assert result.exit_code == 1
    assert "the database does not answer" in result.output
