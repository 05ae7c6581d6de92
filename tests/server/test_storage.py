"""The database schema comes from Alembic migrations that match the storage models."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import MetaData, Table, event, inspect

from gotown.server.config import SettingError, Settings
from gotown.server.storage import ConflictError, Store, StoredGame, StoredSeat, stamp_of
from gotown.server.tables import Base, utc_now


def _differences(store: Store) -> list[object]:
    with store.engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        return list(compare_metadata(context, Base.metadata))


def test_migrations_build_the_schema_of_the_models(database_url: str) -> None:
    store = Store(database_url)
    try:
        store.migrate()
        store.migrate()  # a second run changes nothing
        assert _differences(store) == []
        tables = set(inspect(store.engine).get_table_names())
        assert {"games", "seats", "actions", "alembic_version"} <= tables
    finally:
        store.dispose()


def _store_as_of_old(store: Store, game: StoredGame) -> None:
    """Store ``game`` in a database at an older schema: only the columns it has."""
    metadata = MetaData()
    games = Table("games", metadata, autoload_with=store.engine)
    seats = Table("seats", metadata, autoload_with=store.engine)
    row = {"id": game.id, "players": game.players, "seed": game.seed, "options": game.options,
           "language": game.language, "invite_code": game.invite_code, "status": game.status,
           "rematch_of": game.rematch_of, "rematch_id": game.rematch_id,
           "created_at": utc_now()}  # fmt: skip
    with store.engine.begin() as conn:
        conn.execute(games.insert().values(**row))
        for seat in game.seats:
            conn.execute(seats.insert().values(
                game_id=game.id, seat=seat.seat, kind=seat.kind, level=seat.level,
                name=seat.name, token_hash=seat.token_hash))  # fmt: skip


def test_a_database_made_before_migrations_is_adopted(database_url: str) -> None:
    store = Store(database_url)
    try:
        store.migrate("0001")  # the schema of those days, made without Alembic's table
        with store.engine.begin() as conn:
            conn.exec_driver_sql("DROP TABLE alembic_version")
        game = StoredGame(
            id="g", players=2, seed=1, options={}, language="en", invite_code="c",
            status="lobby", seats=[StoredSeat(0, "human", None, None, None)],
        )  # fmt: skip
        _store_as_of_old(store, game)
        store.migrate()
        assert _differences(store) == []
        loaded = store.load_game("g")
        assert loaded is not None and loaded.invite_code == "c"
    finally:
        store.dispose()


def test_the_stamp_follows_every_write_and_conditional_writes_check_first(
    database_url: str,
) -> None:
    store = Store(database_url)
    try:
        store.migrate()
        game = StoredGame(
            id="s", players=2, seed=1, options={}, language="en", invite_code="cs",
            status="lobby", seats=[StoredSeat(0, "human", None, "A", "ha"),
                                   StoredSeat(1, "human", None, None, None)],
        )  # fmt: skip
        store.create_game(game)
        assert store.stamp("missing") is None
        stamps = [store.stamp("s")]
        assert stamps[0] == stamp_of(game)
        # A seat handed over only while it is still what was decided on.
        assert not store.set_seat_kind("s", 1, "bot", "easy", ("human", "someone"))
        assert not store.set_seat_kind("s", 1, "bot", "easy", ("bot", None))
        assert store.stamp("s") == stamps[-1]
        assert store.take_seat("s", 1, "B", "hb")
        stamps.append(store.stamp("s"))
        assert not store.set_seat_kind("s", 1, "bot", "easy", ("human", None))
        assert store.set_seat_kind("s", 1, "bot", "easy", ("human", "hb"))
        stamps.append(store.stamp("s"))
        # A status changed only from the one expected.
        assert not store.set_status("s", "playing", "over")
        assert store.set_status("s", "playing", "lobby")
        stamps.append(store.stamp("s"))
        store.append_action("s", 0, 0, {"type": "end-turn"})
        stamps.append(store.stamp("s"))
        assert store.set_rematch("s", "r")
        stamps.append(store.stamp("s"))
        assert len(set(stamps)) == len(stamps)  # every write changed it
        loaded = store.load_game("s")
        assert loaded is not None and stamp_of(loaded) == stamps[-1]
        store.link_seat("s", 0, "p1")  # a seat's player is in the stamp too
        stamps.append(store.stamp("s"))
        assert stamps[-1] != stamps[-2]
        loaded = store.load_game("s")
        assert loaded is not None and stamp_of(loaded) == stamps[-1]
        assert stamps[-1] == (
            "playing", "r", 1,
            ((0, "human", None, "A", "ha", "p1", False),
             (1, "bot", "easy", "B", "hb", None, False)),
        )  # fmt: skip
    finally:
        store.dispose()


def test_the_seed_migration_upgrades_a_database_at_0001_keeping_its_games(
    database_url: str,
) -> None:
    """0002 widens the seed to 64 bits in a database made at 0001 (SQLite copies the table, which
    seats and actions refer to), keeping every game; a 63-bit seed fits afterwards."""
    from sqlalchemy import BigInteger, Integer

    def seed_type(store: Store) -> object:
        [column] = [c for c in inspect(store.engine).get_columns("games") if c["name"] == "seed"]
        return column["type"]

    store = Store(database_url)
    try:
        store.migrate("0001")
        assert isinstance(seed_type(store), Integer)
        assert not isinstance(seed_type(store), BigInteger)
        old = StoredGame(
            id="old", players=2, seed=2**31 - 1, options={"win_floors": 4}, language="fr",
            invite_code="co", status="playing",
            seats=[StoredSeat(0, "human", None, "A", "ha"),
                   StoredSeat(1, "bot", "easy", None, None)],
        )  # fmt: skip
        _store_as_of_old(store, old)
        store.append_action("old", 0, 0, {"type": "end-turn"})
        old.actions = [{"type": "end-turn"}]
        store.migrate()
        assert isinstance(seed_type(store), BigInteger)
        assert _differences(store) == []
        assert store.load_game("old") == old
        big = StoredGame(
            id="big", players=2, seed=2**63 - 1, options={}, language="en", invite_code="cb",
            status="lobby", seats=[StoredSeat(0, "human", None, None, None)],
        )  # fmt: skip
        store.create_game(big)
        loaded = store.load_game("big")
        assert loaded is not None and loaded.seed == 2**63 - 1
        if store.engine.dialect.name == "sqlite":  # turned off for the copy, and on again
            with store.engine.connect() as conn:
                assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    finally:
        store.dispose()


@pytest.fixture
def store(database_url: str) -> Iterator[Store]:
    """A store whose schema is made."""
    made = Store(database_url)
    try:
        made.migrate()
        yield made
    finally:
        made.dispose()


def test_a_seat_is_taken_from_a_bot_only_when_asked_and_nobody_holds_it(store: Store) -> None:
    seats = [StoredSeat(0, "human", None, "A", "ha"), StoredSeat(1, "bot", "easy", None, None),
             StoredSeat(2, "bot", "easy", None, "hc")]  # fmt: skip
    store.create_game(StoredGame(id="b", players=3, seed=1, options={}, language="en",
                                 invite_code="cb", status="lobby", seats=seats))  # fmt: skip
    assert not store.take_seat("b", 1, "B", "hb")  # a join takes free human seats only
    assert not store.take_seat("b", 2, "C", "hx", from_bot=True)  # held: its person's
    assert not store.take_seat("b", 0, "X", "hx", from_bot=True)  # not a bot's
    assert store.take_seat("b", 1, "B", "hb", from_bot=True)
    loaded = store.load_game("b")
    assert loaded is not None
    assert [(s.kind, s.level, s.name, s.token_hash) for s in loaded.seats] == [
        ("human", None, "A", "ha"), ("human", None, "B", "hb"), ("bot", "easy", None, "hc")
    ]  # fmt: skip


def test_a_finished_game_s_seats_are_not_changed(store: Store) -> None:
    """Even by a process that has not yet seen the end (its checks were done before)."""
    seats = [StoredSeat(0, "human", None, "A", "ha"), StoredSeat(1, "bot", "easy", None, None)]
    store.create_game(StoredGame(id="o", players=2, seed=1, options={}, language="en",
                                 invite_code="co", status="playing", seats=seats))  # fmt: skip
    assert store.set_status("o", "over", "playing")
    assert not store.take_seat("o", 1, "B", "hb", from_bot=True)
    assert not store.set_seat_kind("o", 0, "bot", "easy")
    assert not store.set_seat_kind("o", 1, "human", None)
    loaded = store.load_game("o")
    assert loaded is not None
    assert [(s.kind, s.name) for s in loaded.seats] == [("human", "A"), ("bot", None)]


@pytest.mark.parametrize(("setting", "pragma"), [(None, 2), ("full", 2), ("normal", 1)])
def test_sqlite_syncs_every_commit_to_disk_unless_told_otherwise(
    tmp_path: Path, setting: str | None, pragma: int
) -> None:
    """FULL (2) by default: an acknowledged action survives a power loss; NORMAL (1) on request."""
    settings = Settings.from_env({}, database_url=f"sqlite:///{tmp_path / 'sync.sqlite3'}")
    if setting is not None:
        settings = Settings.from_env({"GOTOWN_SQLITE_SYNCHRONOUS": setting.upper()})
        settings = settings.with_(database_url=f"sqlite:///{tmp_path / 'sync.sqlite3'}")
    store = Store(settings.database_url, settings.sqlite_synchronous)
    try:
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == pragma
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    finally:
        store.dispose()


def test_an_unknown_synchronous_level_is_refused() -> None:
    with pytest.raises(SettingError, match="GOTOWN_SQLITE_SYNCHRONOUS='off'"):
        Settings.from_env({"GOTOWN_SQLITE_SYNCHRONOUS": "off"})


def _playing(store: Store, game_id: str) -> None:
    seats = [StoredSeat(0, "human", None, "A", "ha"), StoredSeat(1, "human", None, "B", "hb")]
    game = StoredGame(id=game_id, players=2, seed=1, options={}, language="en",
                      invite_code=f"c{game_id}", status="playing", seats=seats)  # fmt: skip
    store.create_game(game)


def test_sqlite_actions_waiting_at_once_are_stored_in_one_commit(tmp_path: Path) -> None:
    """GroupCommit: the actions queued while another write holds the lock share one commit;
    the one whose version is taken fails alone, and the others are stored all the same."""
    store = Store(f"sqlite:///{tmp_path / 'group.sqlite3'}")
    commits: list[int] = []
    try:
        store.migrate()
        ids = [f"g{n}" for n in range(6)]
        for game_id in ids:
            _playing(store, game_id)
        store.append_action("g0", 0, 0, {"type": "end"}, kind="human")
        event.listen(store.engine, "commit", lambda _c: commits.append(1))
        appends = store._appends
        assert appends is not None
        with ThreadPoolExecutor(len(ids)) as pool:
            with store._writer:  # (another write under way: every append queues meanwhile)
                futures = [
                    pool.submit(store.append_action, game_id, 0, 0, {"type": "end"}, kind="human")
                    for game_id in ids
                ]
                while len(appends._queued) < len(ids):
                    threading.Event().wait(0.01)
            with pytest.raises(ConflictError):
                futures[0].result()  # (g0's version 0 was stored before)
            for future in futures[1:]:
                future.result()
        # One commit that failed on g0's taken version, then each alone: five.
        assert len(commits) == len(ids) - 1
        commits.clear()
        with ThreadPoolExecutor(len(ids)) as pool:
            with store._writer:
                futures = [
                    pool.submit(store.append_action, game_id, 1, 1, {"type": "end"}, kind="human")
                    for game_id in ids
                ]
                while len(appends._queued) < len(ids):
                    threading.Event().wait(0.01)
            for future in futures:
                future.result()
        assert len(commits) == 1
        for game_id in ids:
            stamp = store.stamp(game_id)
            assert stamp is not None and stamp[2] == 2
    finally:
        store.dispose()


def test_sqlite_writers_of_one_process_take_turns_instead_of_polling(tmp_path: Path) -> None:
    """Store.transaction: with SQLite's busy handler off, writers from many threads at once
    would fail with "database is locked"; taking turns, every write is stored."""
    store = Store(f"sqlite:///{tmp_path / 'turns.sqlite3'}")
    event.listen(store.engine, "connect", lambda c, _r: c.execute("PRAGMA busy_timeout=0"))
    try:
        store.migrate()
        ids = [f"t{n}" for n in range(8)]
        for game_id in ids:
            seats = [
                StoredSeat(0, "human", None, "A", "ha"),
                StoredSeat(1, "human", None, "B", "hb"),
            ]
            game = StoredGame(id=game_id, players=2, seed=1, options={}, language="en",
                              invite_code=f"c{game_id}", status="playing", seats=seats)  # fmt: skip
            store.create_game(game)

        def play(game_id: str) -> None:
            for seq in range(40):
                store.append_action(game_id, seq, seq % 2, {"type": "end"}, kind="human")

        with ThreadPoolExecutor(len(ids)) as pool:
            list(pool.map(play, ids))  # re-raises a write's error
        for game_id in ids:
            stamp = store.stamp(game_id)
            assert stamp is not None and stamp[2] == 40
    finally:
        store.dispose()
