"""Load on the web table: many simultaneous two-person games through real WebSockets.

Starts ``gotown serve`` (one process, or two sharing a database and a Redis broadcast), creates
``--games`` games of two persons' seats, opens both seats' sockets for the whole run, then makes
``--rate`` actions a second for ``--seconds``: each time a random game whose seat to act is not
waiting for an answer plays one of its legal actions, chosen at random, over HTTP as the page
sends it (with the events it holds), or over its socket (all but one in ``--http-share``). It
reports the actions a second achieved against the target, the time from an action's sending to
the update reaching the *other* seat's socket (median, p99, max), the HTTP answers' p99, the
errors (they must be 0), the server's memory per open game, its CPU (and per action) and the
longest pause of its garbage collector (which the server logs when it stops). With two
processes the seats of a game sit on different processes, so every update crosses the
broadcast.

    .venv/bin/python benchmarks/load.py --games 1000 --rate 200 --seconds 60
    .venv/bin/python benchmarks/load.py --database-url postgresql+psycopg://postgres@127.0.0.1/load
    .venv/bin/python benchmarks/load.py --processes 2 --database-url postgresql+psycopg://... \\
        --broadcast-url redis://127.0.0.1:6379/3

"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import httpx2 as httpx
from rich.progress import Progress
from serving import free_port, served_env, start_server
from websockets.asyncio.client import ClientConnection, connect

TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Seat:
    game_id: str
    token: str
    base: str
    socket: ClientConnection | None = None
    state: dict[str, Any] | None = None


@dataclass
class Table:
    seats: list[Seat]
    busy: bool = False  # an action is on its way; the next waits for its update
    version: int = 0  # the newest version either seat has been sent
    over: bool = False


@dataclass
class Figures:
    sent: int = 0
    latencies: list[float] = field(default_factory=list)
    http: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    #: (game, version) -> when the action that makes that version was sent, and by whom
    waiting: dict[tuple[str, int], tuple[float, str]] = field(default_factory=dict)


def _gc_pauses(log: Path, window: tuple[float, float]) -> tuple[float, float] | None:
    """The longest garbage-collection pause (ms) that the server logged when it stopped, over
    its whole life and within ``window`` (wall-clock start and end of the measured load)."""
    text = log.read_text()
    found = re.search(r"garbage collection: longest pause ([0-9.]+) ms", text)
    if not found:
        return None
    within = [
        float(ms)
        for end, _generation, ms in re.findall(r"([0-9.]+)/([0-9])/([0-9.]+)", text)
        if window[0] <= float(end) <= window[1]
    ]
    return float(found.group(1)), max(within, default=0.0)


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


async def _post(http: httpx.AsyncClient, url: str, body: dict[str, Any]) -> Any:
    """POST, tried again (up to twice) when the connection broke: a kept connection that the
    server closed just as it was reused, with every create and join under way at once."""
    for attempt in range(3):
        try:
            return (await http.post(url, json=body)).raise_for_status().json()
        except httpx.TransportError:
            if attempt == 2:
                raise
            await asyncio.sleep(0.5)
    raise AssertionError("unreachable")


async def _create(http: httpx.AsyncClient, bases: list[str], index: int) -> Table:
    body = {"seats": [{"kind": "human"}, {"kind": "human"}], "name": f"A{index}"}
    created = await _post(http, f"{bases[0]}/api/games", body)
    code = created["invite_url"].rsplit("/", 1)[1]
    other = bases[-1]  # with two processes, the second seat sits on the other one
    joined = await _post(
        http,
        f"{other}/api/games/{created['game_id']}/join",
        {"code": code, "name": f"B{index}"},
    )
    return Table(
        [
            Seat(created["game_id"], created["token"], bases[0]),
            Seat(created["game_id"], joined["token"], other),
        ]
    )


async def _open_socket(seat: Seat) -> None:
    """Connect the seat's socket (patiently: a loaded server accepts slowly) and say who it is."""
    ws_base = seat.base.replace("http", "ws", 1)
    seat.socket = await connect(f"{ws_base}/ws/games/{seat.game_id}", open_timeout=120)
    await seat.socket.send(json.dumps({"token": seat.token}))


async def _listen(table: Table, seat: Seat, figures: Figures) -> None:
    """Keep the seat's newest state; time the updates that answer the other seat's actions."""
    assert seat.socket is not None
    async for raw in seat.socket:
        message = json.loads(raw)
        if message.get("type") == "error":
            figures.errors.append(f"socket: {message.get('code')}: {message.get('message')}")
            table.busy = False
            continue
        if message.get("type") != "state":
            continue
        state = message["state"]
        seat.state = state
        table.version = max(table.version, state["version"])
        key = (seat.game_id, state["version"])
        sent = figures.waiting.get(key)
        if sent is not None and sent[1] != seat.token:  # the other seat has it
            del figures.waiting[key]
            figures.latencies.append(time.monotonic() - sent[0])
            table.busy = False
        if state.get("status") == "over" or (state.get("view") or {}).get("over"):
            table.over = True


async def _act(
    table: Table, http: httpx.AsyncClient, figures: Figures, rng: random.Random, use_http: bool
) -> None:
    # (a seat whose own update is still on its way would act on a stale version)
    current = [s for s in table.seats if s.state and s.state["version"] == table.version]
    mover = next((s for s in current if s.state and s.state["legal"]), None)
    if mover is None or mover.state is None:
        return
    state = mover.state
    action = rng.choice(state["legal"])
    version = state["version"]
    table.busy = True
    figures.sent += 1
    figures.waiting[(mover.game_id, version + 1)] = (time.monotonic(), mover.token)
    mover.state = None  # acted on: wait for the next one
    if use_http:
        began = time.monotonic()
        try:
            # As the page sends it: with the events it holds (its socket sent each once).
            held = state["events_from"] + len(state["view"]["events"])
            answer = await http.post(
                f"{mover.base}/api/games/{mover.game_id}/actions",
                json={"version": version, "action": action, "events_from": held},
                headers={"X-Seat-Token": mover.token},
            )
        except httpx.TransportError as exc:  # (counted: not tried again, it may have been made)
            figures.errors.append(f"http {type(exc).__name__}: {exc}")
            figures.waiting.pop((mover.game_id, version + 1), None)
            table.busy = False
            return
        figures.http.append(time.monotonic() - began)
        if answer.status_code != 200:
            figures.errors.append(f"http {answer.status_code}: {answer.text[:120]}")
            figures.waiting.pop((mover.game_id, version + 1), None)
            table.busy = False
    else:
        assert mover.socket is not None
        await mover.socket.send(
            json.dumps({"type": "action", "version": version, "action": action})
        )


def _percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def _run(
    bases: list[str],
    pids: list[int],
    games: int,
    rate: float,
    seconds: float,
    http_share: int,
    during: Callable[[], Awaitable[Any]] | None = None,
) -> dict[str, Any]:
    """The load; ``during``: what another benchmark does to the server while it is under it
    (started as the load begins, awaited after it: its result is the result's ``during``)."""
    rng = random.Random(1)
    figures = Figures()
    # A kept-alive connection is dropped before uvicorn's own 5 s would close it: reusing one
    # the server is closing at that moment fails the request (a ReadError), a race of the
    # client's, which browsers hide by retrying.
    limits = httpx.Limits(max_connections=200, max_keepalive_connections=200, keepalive_expiry=3)
    async with httpx.AsyncClient(timeout=30, limits=limits) as http:
        rss_before = sum(_rss_kb(pid) for pid in pids)
        tables: list[Table] = []
        with Progress(transient=True) as progress:
            task = progress.add_task("games and sockets", total=games)
            for start in range(0, games, 50):
                batch = range(start, min(games, start + 50))
                tables += await asyncio.gather(*(_create(http, bases, i) for i in batch))
                opening = [_open_socket(seat) for table in tables[start:] for seat in table.seats]
                await asyncio.gather(*opening)
                progress.advance(task, len(batch))
        listeners = [
            asyncio.create_task(_listen(table, seat, figures))
            for table in tables
            for seat in table.seats
        ]
        await asyncio.sleep(2)  # every first state in
        rss_after = sum(_rss_kb(pid) for pid in pids)
        cpu_before = sum(_cpu_seconds(pid) for pid in pids)
        began, began_wall = time.monotonic(), time.time()
        beside = None if during is None else asyncio.create_task(during())
        pending: set[asyncio.Task[None]] = set()
        tick = 1 / rate
        next_at = began
        with Progress(transient=True) as progress:
            task = progress.add_task(f"{rate:g} actions/s", total=seconds)
            while (now := time.monotonic()) < began + seconds:
                if now < next_at:
                    await asyncio.sleep(next_at - now)
                    continue
                next_at += tick
                ready = [t for t in tables if not t.busy and not t.over]
                if ready:
                    use_http = http_share > 0 and figures.sent % http_share == 0
                    job = asyncio.create_task(_act(rng.choice(ready), http, figures, rng, use_http))
                    pending.add(job)
                    job.add_done_callback(pending.discard)
                progress.update(task, completed=now - began)
        elapsed = time.monotonic() - began
        window = (began_wall, time.time())
        cpu = sum(_cpu_seconds(pid) for pid in pids) - cpu_before
        await asyncio.sleep(2)  # the last updates
        for job in list(pending):
            await job
        during_result = None if beside is None else await beside
        for listener in listeners:
            listener.cancel()
        for table in tables:
            for seat in table.seats:
                if seat.socket is not None:
                    await seat.socket.close()
    return {
        "games": games,
        "target_actions_per_second": rate,
        "actions_per_second": figures.sent / elapsed,
        "updates_missed": len(figures.waiting),
        "latency_ms": {
            "median": 1000 * _percentile(figures.latencies, 0.5),
            "p99": 1000 * _percentile(figures.latencies, 0.99),
            "max": 1000 * max(figures.latencies, default=float("nan")),
        },
        "http_p99_ms": 1000 * _percentile(figures.http, 0.99),
        "errors": len(figures.errors),
        "first_errors": figures.errors[:5],
        "server_kb_per_game": (rss_after - rss_before) / games,
        "server_cpu_share": cpu / elapsed,
        "server_cpu_ms_per_action": 1000 * cpu / max(1, figures.sent),
        "window": window,
        "during": during_result,
    }


@click.command()
@click.option("--games", default=1000, show_default=True, help="open games of two persons")
@click.option("--rate", default=200.0, show_default=True, help="target actions a second")
@click.option("--seconds", default=60.0, show_default=True, help="length of the load")
@click.option("--processes", type=click.IntRange(1, 2), default=1, show_default=True)
@click.option("--database-url", default=None, help="SQLAlchemy URL (default: a fresh SQLite file)")
@click.option("--broadcast-url", default=None, help="redis://... (needed by two processes)")
@click.option("--http-share", default=1, show_default=True,
              help="one action in N over HTTP (1: every one, as the page sends them), the "
                   "others over the socket (0: none)")  # fmt: skip
@click.option("--keep-logs", type=click.Path(file_okay=False, exists=True), default=None,
              help="copy the servers' logs into this directory")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def main(
    games: int,
    rate: float,
    seconds: float,
    processes: int,
    database_url: str | None,
    broadcast_url: str | None,
    http_share: int,
    keep_logs: str | None,
    as_json: bool,
) -> None:
    """Hold GAMES open games with both seats' sockets and play RATE random actions a second."""
    if processes > 1 and not broadcast_url:
        raise click.UsageError("two processes share updates through --broadcast-url redis://...")
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **served_env(),  # (as scripts/serve runs it: the compiled engine where it builds)
            "GOTOWN_DATABASE_URL": database_url or f"sqlite:///{Path(tmp) / 'load.sqlite3'}",
            "GOTOWN_RATE_LIMIT": "0",
            # (every simulated client shares one address)
            "GOTOWN_MAX_SOCKETS_PER_CLIENT": "0",
        }
        if broadcast_url:
            env["GOTOWN_BROADCAST_URL"] = broadcast_url
        ports = [free_port() for _ in range(processes)]
        servers = []
        try:
            for port in ports:
                servers.append(start_server(port, env, Path(tmp) / f"server-{port}.log"))
            bases = [f"http://127.0.0.1:{port}" for port in ports]
            pids = [server.pid for server in servers]
            result = asyncio.run(_run(bases, pids, games, rate, seconds, http_share))
        finally:
            for server in servers:
                server.terminate()
                try:
                    server.wait(30)
                except subprocess.TimeoutExpired:
                    server.kill()
                    server.wait()
        window = result["window"]
        pauses = [_gc_pauses(Path(tmp) / f"server-{port}.log", window) for port in ports]
        if keep_logs:
            for port in ports:
                name = f"server-{port}.log"
                shutil.copy(Path(tmp) / name, Path(keep_logs) / name)
    known = [p for p in pauses if p is not None]
    result["gc_longest_pause_ms"] = max((p[0] for p in known), default=None)
    result["gc_longest_pause_under_load_ms"] = max((p[1] for p in known), default=None)
    result["processes"] = processes
    result["database"] = env["GOTOWN_DATABASE_URL"].split(":", 1)[0]
    if as_json:
        click.echo(json.dumps(result))
        return
    latency = result["latency_ms"]
    click.echo(
        f"{games} games, {processes} process(es) on {result['database']}: "
        f"{result['actions_per_second']:.1f} of {rate:g} actions/s; update to the other seat "
        f"median {latency['median']:.1f} ms, p99 {latency['p99']:.1f} ms, max "
        f"{latency['max']:.1f} ms; HTTP p99 {result['http_p99_ms']:.1f} ms; "
        f"errors {result['errors']}, updates missed {result['updates_missed']}; "
        f"{result['server_kb_per_game']:.0f} KB a game; "
        f"{100 * result['server_cpu_share']:.0f}% of a core "
        f"({result['server_cpu_ms_per_action']:.2f} ms of CPU an action); longest GC pause "
        f"{result['gc_longest_pause_under_load_ms']} ms under load "
        f"({result['gc_longest_pause_ms']} ms in the whole run)"
    )
    for error in result["first_errors"]:
        click.echo(f"  error: {error}")


if __name__ == "__main__":
    main()
