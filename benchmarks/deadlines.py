"""Deadlines at scale: a burst of turn-based tables' deadlines beside live tables under load.

Starts ``gotown serve`` (one process, or two sharing a database and a Redis broadcast) with a
clock that may be moved (``GOTOWN_TEST_CLOCK``), then stores ``--tables`` turn-based tables of
two people at a pace of a day: the idle ones straight through the store (their deadlines two to
seven days ahead), and the ``--due`` ones that matter through the API (created within a minute
or so: their deadlines fall due in the same minute, a day later). It lets those leave the
server's memory (``GOTOWN_IDLE_GAME_SECONDS``), as a day-old table has, then runs
``benchmarks/load.py``'s load on ``--live`` live tables twice: once as it is, and once with the
server's clock moved a day on as the load begins, so that every due deadline falls due at once.

It reports the time from the clock's move until the last of them fired (a missed turn acted on:
the seat's missed turns stored; the database is polled every 0.25 s), until every stand-in had
played its turn, and the live tables' update latency to the other seat (median, p99, max) with
and without the burst.

    .venv/bin/python benchmarks/deadlines.py --database-url postgresql+psycopg://postgres@127.0.0.1/bench_deadlines --reset
    .venv/bin/python benchmarks/deadlines.py --processes 2 --broadcast-url redis://127.0.0.1:6379/3 \\
        --database-url postgresql+psycopg://postgres@127.0.0.1/bench_deadlines --reset
"""  # noqa: E501

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import random
import secrets
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import click
import httpx2 as httpx
from load import _run as run_load
from rich.progress import Progress
from serving import free_port, start_server
from sqlalchemy import func, insert, select

from gotown.server.storage import Store
from gotown.server.tables import GameRow, SeatRow

DAY = 24 * 3600
OPERATOR = "bench-deadlines-operator-token"
#: How long an unused table stays in the server's memory here (instead of 600 s): the tables
#: whose deadlines fall due are a day old, and long gone from it, when they do.
IDLE_SECONDS = 20
#: How long the burst is watched at most (its stand-ins play a few at a time on a process).
BURST_LIMIT = 600.0
#: How often the database is asked how far the burst is (the resolution of its figures; more
#: often, the asking would weigh on the database and on this process's timing of updates).
POLL_EVERY = 0.25


def _reset(database_url: str, reset: bool) -> None:
    """An empty schema: refused where games are stored already, unless ``reset``."""
    if database_url.startswith("postgresql"):
        from sqlalchemy import create_engine, text
        from sqlalchemy.engine import make_url

        target = make_url(database_url)
        admin = create_engine(target.set(database="postgres"), isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            known = connection.execute(
                text("SELECT 1 FROM pg_database WHERE datname = :name"),
                {"name": target.database},
            ).scalar()
            if not known:
                connection.execute(text(f'CREATE DATABASE "{target.database}"'))
        admin.dispose()
    store = Store(database_url)
    try:
        store.migrate()
        with store.engine.connect() as connection:
            stored = connection.execute(select(func.count()).select_from(GameRow)).scalar()
        if stored and not reset:
            raise click.UsageError(f"the database holds {stored} games: --reset empties it")
        if stored:
            from sqlalchemy import text

            from gotown.server.tables import Base

            Base.metadata.drop_all(store.engine)
            with store.engine.begin() as connection:
                connection.execute(text("DROP TABLE IF EXISTS alembic_version"))
            store.migrate()
    finally:
        store.dispose()


def _store_idle(database_url: str, count: int, now: float, progress: Progress) -> None:
    """``count`` turn-based tables of two people, each at its first turn, straight into the
    store: what a server holds for tables nobody touched today (deadlines in 2 to 7 days)."""
    rng = random.Random(39)
    store = Store(database_url)
    task = progress.add_task("idle tables (the store)", total=count)
    try:
        for start in range(0, count, 1000):
            games, seats = [], []
            for _ in range(min(1000, count - start)):
                game_id = secrets.token_urlsafe(8)
                deadline = now + rng.uniform(2 * DAY, 7 * DAY)
                games.append(
                    {
                        "id": game_id, "players": 2, "seed": rng.getrandbits(63),
                        "options": {"first_player": 0}, "language": "en",
                        "invite_code": secrets.token_urlsafe(9), "status": "playing",
                        "pace": DAY, "on_timeout": "bot:medium", "missed_limit": 3,
                        "turn_seat": 0, "deadline_turn": 1,
                        "deadline_at": dt.datetime.fromtimestamp(deadline, dt.UTC),
                        "reminder_at": dt.datetime.fromtimestamp(deadline - DAY / 4, dt.UTC),
                    }
                )  # fmt: skip
                for seat in (0, 1):
                    seats.append(
                        {
                            "game_id": game_id, "seat": seat, "kind": "human",
                            "name": f"P{seat}", "token_hash": secrets.token_hex(32),
                            "missed": 0, "standin": False,
                        }
                    )  # fmt: skip
            with store.engine.begin() as connection:
                connection.execute(insert(GameRow), games)
                connection.execute(insert(SeatRow), seats)
            progress.advance(task, len(games))
    finally:
        store.dispose()


async def _create_due(
    bases: list[str], count: int, on_timeout: str, progress: Progress
) -> list[str]:
    """``count`` turn-based tables through the API (created by one process, joined on the
    other with two): their ids."""
    task = progress.add_task("tables whose deadlines fall due (the API)", total=count)
    gate = asyncio.Semaphore(16)

    async def one(http: httpx.AsyncClient, index: int) -> str:
        body = {"name": f"A{index}", "seats": [{"kind": "human"}] * 2, "pace": DAY,
                "on_timeout": on_timeout, "options": {"first_player": 0}}  # fmt: skip
        async with gate:
            created = (await http.post(f"{bases[0]}/api/games", json=body)).raise_for_status()
            game_id = created.json()["game_id"]
            code = created.json()["invite_url"].rsplit("/", 1)[1]
            joined = await http.post(
                f"{bases[-1]}/api/games/{game_id}/join", json={"code": code, "name": f"B{index}"}
            )
            joined.raise_for_status()
        progress.advance(task)
        return str(game_id)

    async with httpx.AsyncClient(timeout=60) as http:
        return list(await asyncio.gather(*(one(http, i) for i in range(count))))


async def _tables_in_memory(bases: list[str]) -> int:
    """Tables held in the servers' memory now (their /metrics)."""
    total = 0
    async with httpx.AsyncClient(timeout=30) as http:
        for base in bases:
            text = (
                await http.get(f"{base}/metrics", headers={"Authorization": f"Bearer {OPERATOR}"})
            ).text
            for line in text.splitlines():
                if line.startswith("gotown_tables_open{"):
                    total += int(float(line.rsplit(" ", 1)[1]))
    return total


async def _burst(
    bases: list[str], database_url: str, ids: list[str], limit: float
) -> dict[str, Any]:
    """Move every process's clock a day on and time the deadlines' burst from the database."""
    store = Store(database_url)
    try:
        in_memory = await _tables_in_memory(bases)
        async with httpx.AsyncClient(timeout=30) as http:
            moves = [
                http.post(f"{base}/api/test/clock", json={"advance": DAY + 60}) for base in bases
            ]
            moved = [answer.raise_for_status().json() for answer in await asyncio.gather(*moves)]
        began = time.monotonic()
        server_now = min(m["now"] for m in moved)
        last_fired = back = None
        fired = timed = 0
        while time.monotonic() - began < limit:
            fired, timed = await asyncio.to_thread(_fired_after, store, ids, server_now)
            if fired == len(ids) and last_fired is None:
                last_fired = time.monotonic() - began
            if timed == len(ids):
                back = time.monotonic() - began
                break
            await asyncio.sleep(POLL_EVERY)
        return {
            "due": len(ids),
            "tables_in_memory_before": in_memory,
            "fired": fired,
            "last_fired_s": last_fired,
            "all_back_to_a_person_s": back,
            "back_to_a_person": timed,
        }
    finally:
        store.dispose()


async def _until_forgotten(bases: list[str]) -> None:
    """Wait until the servers hold no table in memory (every one unused for IDLE_SECONDS)."""
    with Progress(transient=True) as progress:
        progress.add_task("tables leaving the servers' memory", total=None)
        for _ in range(10 * IDLE_SECONDS):
            if await _tables_in_memory(bases) == 0:
                return
            await asyncio.sleep(1)
    raise click.ClickException("the servers still hold tables they no longer use")


def _fired_after(store: Store, ids: list[str], moment: float) -> tuple[int, int]:
    """Of the tables ``ids``: how many had their missed turn acted on (seat 0's missed turn
    stored), and how many are back at a person's turn, with a deadline after ``moment`` (the
    server's clock as it was moved: every due deadline was before it)."""
    when = dt.datetime.fromtimestamp(moment, dt.UTC)
    with store.engine.connect() as connection:
        missed = connection.execute(
            select(func.count())
            .select_from(SeatRow)
            .where(SeatRow.game_id.in_(ids), SeatRow.seat == 0, SeatRow.missed >= 1)
        ).scalar()
        timed = connection.execute(
            select(func.count())
            .select_from(GameRow)
            .where(GameRow.id.in_(ids), GameRow.deadline_at > when)
        ).scalar()
    return int(missed or 0), int(timed or 0)


def _stop(servers: list[subprocess.Popen[bytes]]) -> None:
    for server in servers:
        server.terminate()
    for server in servers:
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@click.command()
@click.option("--tables", default=10_000, show_default=True, help="turn-based tables stored")
@click.option("--due", default=1000, show_default=True,
              help="of them, those whose deadlines fall due together")  # fmt: skip
@click.option("--on-timeout", default="bot:medium", show_default=True,
              help='what a missed turn does: "end" or "bot:LEVEL"')  # fmt: skip
@click.option("--live", default=200, show_default=True, help="live tables under load")
@click.option("--rate", default=100.0, show_default=True, help="their actions a second")
@click.option("--seconds", default=60.0, show_default=True,
              help="length of each load (the burst is watched beyond it)")  # fmt: skip
@click.option("--http-share", default=4, show_default=True,
              help="one live action in N over HTTP, the others by socket (0: none)")  # fmt: skip
@click.option("--processes", type=click.IntRange(1, 2), default=1, show_default=True)
@click.option("--database-url", default=None, help="SQLAlchemy URL (default: a fresh SQLite file)")
@click.option("--broadcast-url", default=None, help="redis://... (needed by two processes)")
@click.option("--reset", is_flag=True, help="empty the database first if it holds games")
@click.option("--keep-logs", type=click.Path(file_okay=False, exists=True), default=None,
              help="copy the servers' logs into this directory")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def main(
    tables: int,
    due: int,
    on_timeout: str,
    live: int,
    rate: float,
    seconds: float,
    http_share: int,
    processes: int,
    database_url: str | None,
    broadcast_url: str | None,
    reset: bool,
    keep_logs: str | None,
    as_json: bool,
) -> None:
    """Fire DUE of TABLES turn-based tables' deadlines at once beside LIVE live tables."""
    if processes > 1 and not broadcast_url:
        raise click.UsageError("two processes share updates through --broadcast-url redis://...")
    if not 0 < due <= tables:
        raise click.UsageError("--due is between 1 and --tables")
    with tempfile.TemporaryDirectory() as tmp:
        database_url = database_url or f"sqlite:///{Path(tmp) / 'deadlines.sqlite3'}"
        _reset(database_url, reset)
        env = {
            **os.environ,
            "GOTOWN_DATABASE_URL": database_url,
            "GOTOWN_RATE_LIMIT": "0",
            "GOTOWN_MAX_SOCKETS_PER_CLIENT": "0",
            "GOTOWN_TEST_CLOCK": "1",
            "GOTOWN_OPERATOR_TOKEN": OPERATOR,
            "GOTOWN_IDLE_GAME_SECONDS": str(IDLE_SECONDS),
        }
        if broadcast_url:
            env["GOTOWN_BROADCAST_URL"] = broadcast_url
        ports = [free_port() for _ in range(processes)]
        logs = [Path(tmp) / f"server-{port}.log" for port in ports]
        servers: list[subprocess.Popen[bytes]] = []
        try:
            for port, log in zip(ports, logs, strict=True):
                servers.append(start_server(port, env, log))
            bases = [f"http://127.0.0.1:{port}" for port in ports]
            pids = [server.pid for server in servers]
            with Progress(transient=True) as progress:
                began = time.monotonic()
                _store_idle(database_url, tables - due, time.time(), progress)
                idle_seconds = time.monotonic() - began
                began = time.monotonic()
                ids = asyncio.run(_create_due(bases, due, on_timeout, progress))
                due_seconds = time.monotonic() - began
            load_before = os.getloadavg()[0]
            quiet = asyncio.run(run_load(bases, pids, live, rate, seconds, http_share))
            quiet["machine_load"] = (load_before, os.getloadavg()[0])
            asyncio.run(_until_forgotten(bases))

            async def burst() -> dict[str, Any]:
                return await _burst(bases, database_url, ids, BURST_LIMIT)

            load_before = os.getloadavg()[0]
            loaded = asyncio.run(
                run_load(bases, pids, live, rate, seconds, http_share, during=burst)
            )
            loaded["machine_load"] = (load_before, os.getloadavg()[0])
        finally:
            _stop(servers)
        if keep_logs:
            for log in logs:
                (Path(keep_logs) / log.name).write_bytes(log.read_bytes())
    result = {
        "tables": tables,
        "due": due,
        "on_timeout": on_timeout,
        "processes": processes,
        "database": database_url.split(":", 1)[0],
        "stored_idle_s": idle_seconds,
        "created_due_s": due_seconds,
        "burst": loaded["during"],
        "live": {
            name: {
                "actions_per_second": run["actions_per_second"],
                "latency_ms": run["latency_ms"],
                "http_p99_ms": run["http_p99_ms"],
                "errors": run["errors"],
                "server_cpu_share": run["server_cpu_share"],
                "machine_load": run["machine_load"],
            }
            for name, run in (("without", quiet), ("with", loaded))
        },
    }
    if as_json:
        click.echo(json.dumps(result))
        return
    burst_figures = result["burst"]
    last = burst_figures["last_fired_s"]
    back = burst_figures["all_back_to_a_person_s"]
    click.echo(
        f"{tables} turn-based tables ({tables - due} stored in {idle_seconds:.1f} s, {due} "
        f"made through the API in {due_seconds:.1f} s), {processes} process(es) on "
        f"{result['database']}, on_timeout {on_timeout}; {burst_figures['tables_in_memory_before']}"
        " tables in memory as the clock moved"
    )
    click.echo(
        f"deadlines: {burst_figures['fired']} of {due} fired, the last "
        + (f"{last:.1f} s" if last is not None else "never")
        + " after the clock moved; every table back at a person's turn after "
        + (f"{back:.1f} s" if back is not None else f"never ({burst_figures['back_to_a_person']})")
    )
    for name in ("without", "with"):
        run = result["live"][name]
        latency = run["latency_ms"]
        click.echo(
            f"{live} live tables {name} the burst: {run['actions_per_second']:.1f} of {rate:g} "
            f"actions/s; update to the other seat median {latency['median']:.1f} ms, p99 "
            f"{latency['p99']:.1f} ms, max {latency['max']:.1f} ms; HTTP p99 "
            f"{run['http_p99_ms']:.1f} ms; errors {run['errors']}; "
            f"{100 * run['server_cpu_share']:.0f}% of a core; the machine's load average "
            f"{run['machine_load'][0]:.1f} to {run['machine_load'][1]:.1f} "
            f"on {os.cpu_count()} cores"
        )


if __name__ == "__main__":
    main()
