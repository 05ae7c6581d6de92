"""Fairness under a flood of socket messages: what other clients keep of their request rate.

Starts ``gotown serve`` on a free port (a fresh SQLite file unless ``--database-url``), creates a
game, then runs four phases of ``--seconds`` each and measures, in each, how many requests a
second the *other clients* get through and the slowest of them:

1. unloaded: the other clients alone;
2. a flood of 1 socket from one address (127.0.0.3);
3. unloaded again (the unloaded rate is the mean of both: the machine's load drifts);
4. a flood of 10 sockets from one address (127.0.0.4).

A flooding socket watches the game and sends ``{"type": "ping"}`` as fast as it can (reading
whatever comes back); when the server closes it, it connects again at once, until the phase
ends. The flooding sockets run in a process of their own; on one machine it takes CPU from the
server, which a remote flooder does not: ``--flood-nice 10`` lowers its priority.

The other clients ask ``GET /api/games/{id}/state`` in a closed loop (``--concurrency`` at a
time), each request from the next of ``--addresses`` addresses (127.0.2.x, with a kept
connection each), so that their own requests stay under the per-address rate limit: they are
many clients, not one. The server runs with its default limits unless ``--rate-limit`` says
otherwise; ``--broadcast-url redis://...`` counts the rate limit in Redis.

The issue's target: under both floods the other clients keep at least 50% of their unloaded
rate, and none of their requests takes 1 s or more.

    .venv/bin/python benchmarks/flood.py --seconds 10
    .venv/bin/python benchmarks/flood.py --broadcast-url redis://127.0.0.1:6379/9

(Linux: the clients' addresses are addresses of the loopback interface, 127.0.0.0/8.)
"""

from __future__ import annotations

import asyncio
import collections
import json
import multiprocessing
import os
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import httpx2 as httpx
from serving import free_port, start_server
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

TICKS = os.sysconf("SC_CLK_TCK")
PING = json.dumps({"type": "ping"})


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


@dataclass
class Flood:
    """What the flooding sockets of one phase did."""

    connections: int = 0
    messages: int = 0
    answers: int = 0
    closes: collections.Counter[str] = field(default_factory=collections.Counter)


@dataclass
class Phase:
    name: str
    requests: list[float] = field(default_factory=list)  # durations, seconds
    failures: collections.Counter[str] = field(default_factory=collections.Counter)
    elapsed: float = 0.0
    cpu: float = 0.0
    flood: Flood | None = None

    @property
    def rate(self) -> float:
        return len(self.requests) / self.elapsed if self.elapsed else 0.0

    def percentile(self, share: float) -> float:
        ordered = sorted(self.requests)
        if not ordered:
            return float("nan")
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def _others(
    clients: list[httpx.AsyncClient], path: str, concurrency: int, stop: asyncio.Event, phase: Phase
) -> None:
    """The other clients: ``concurrency`` closed loops, each request from the next address."""
    turn = 0

    async def loop() -> None:
        nonlocal turn
        while not stop.is_set():
            client = clients[turn % len(clients)]
            turn += 1
            began = time.monotonic()
            try:
                answer = await client.get(path)
            except httpx.HTTPError as exc:
                phase.failures[type(exc).__name__] += 1
                continue
            took = time.monotonic() - began
            if answer.status_code == 200:
                phase.requests.append(took)
            else:
                phase.failures[f"HTTP {answer.status_code}"] += 1

    await asyncio.gather(*(loop() for _ in range(concurrency)))


async def _flooder(url: str, address: str, stop: asyncio.Event, flood: Flood) -> None:
    """One socket sending pings as fast as it can, connecting again whenever it is closed."""
    while not stop.is_set():
        try:
            async with connect(url, local_addr=(address, 0), open_timeout=10) as ws:
                flood.connections += 1

                async def drain(ws: Any = ws) -> None:
                    async for _ in ws:
                        flood.answers += 1

                reader = asyncio.create_task(drain())
                try:
                    await ws.send(json.dumps({"token": None}))
                    while not stop.is_set():
                        await ws.send(PING)
                        flood.messages += 1
                        if flood.messages % 64 == 0:
                            await asyncio.sleep(0)  # (let the reader and the others run)
                finally:
                    reader.cancel()
                flood.closes["still open"] += 1
        except ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd is not None else "none"
            flood.closes[f"closed {code}"] += 1
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # (refused at the handshake, reset, timed out: try again)
            flood.closes[type(exc).__name__] += 1
            await asyncio.sleep(0.01)


def _flood_process(
    url: str, address: str, sockets: int, nice: int, started: Any, stop: Any, out: Any
) -> None:
    """The flooding sockets, in a process of their own (so that the other clients' loop does not
    share its CPU with them), ``nice`` more than this one: flood until ``stop`` is set, then put
    what they did in ``out``."""
    os.nice(nice)

    async def run() -> Flood:
        flood = Flood()
        halt = asyncio.Event()
        tasks = [asyncio.create_task(_flooder(url, address, halt, flood)) for _ in range(sockets)]
        while flood.messages == 0:
            await asyncio.sleep(0.05)
        started.set()
        while not stop.is_set():
            await asyncio.sleep(0.05)
        halt.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return flood

    flood = asyncio.run(run())
    out.put((flood.connections, flood.messages, flood.answers, dict(flood.closes)))


async def _phase(
    name: str,
    base: str,
    game_id: str,
    clients: list[httpx.AsyncClient],
    concurrency: int,
    seconds: float,
    pid: int,
    flooders: int,
    flood_address: str,
    nice: int,
) -> Phase:
    phase = Phase(name)
    stop = asyncio.Event()
    process = None
    if flooders:
        context = multiprocessing.get_context("spawn")
        started, halt, out = context.Event(), context.Event(), context.Queue()
        url = f"{base.replace('http', 'ws', 1)}/ws/games/{game_id}"
        process = context.Process(
            target=_flood_process, args=(url, flood_address, flooders, nice, started, halt, out)
        )
        process.start()
        if not await asyncio.to_thread(started.wait, 60):
            raise click.ClickException("the flood did not start within 60 s")
    cpu = _cpu_seconds(pid)
    began = time.monotonic()
    others = asyncio.create_task(
        _others(clients, f"/api/games/{game_id}/state", concurrency, stop, phase)
    )
    await asyncio.sleep(seconds)
    stop.set()
    await others
    phase.elapsed = time.monotonic() - began
    phase.cpu = _cpu_seconds(pid) - cpu
    if process is not None:
        halt.set()
        connections, messages, answers, closes = await asyncio.to_thread(out.get, True, 60)
        await asyncio.to_thread(process.join, 30)
        phase.flood = Flood(connections, messages, answers, collections.Counter(closes))
    return phase


async def _run(
    base: str, pid: int, seconds: float, concurrency: int, addresses: int, nice: int
) -> list[Phase]:
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        body = {"seats": [{"kind": "human"}, {"kind": "human"}], "name": "A"}
        created = (await http.post("/api/games", json=body)).raise_for_status().json()
    game_id = created["game_id"]
    clients = [
        httpx.AsyncClient(
            base_url=base,
            timeout=30,
            transport=httpx.AsyncHTTPTransport(local_address=f"127.0.2.{1 + i}"),
        )
        for i in range(addresses)
    ]
    try:
        plan = [
            ("unloaded", 0, ""),
            ("1 flooder", 1, "127.0.0.3"),
            ("unloaded again", 0, ""),
            ("10 flooders", 10, "127.0.0.4"),
        ]
        return [
            await _phase(name, base, game_id, clients, concurrency, seconds, pid, n, address, nice)
            for name, n, address in plan
        ]
    finally:
        for client in clients:
            await client.aclose()


def _report(phases: list[Phase]) -> dict[str, Any]:
    unloaded = sum(p.rate for p in phases if p.flood is None) / 2
    out: dict[str, Any] = {}
    for phase in phases:
        entry: dict[str, Any] = {
            "requests_per_second": phase.rate,
            "share_of_unloaded": phase.rate / unloaded if unloaded else float("nan"),
            "median_ms": 1000 * phase.percentile(0.5),
            "p99_ms": 1000 * phase.percentile(0.99),
            "slowest_ms": 1000 * max(phase.requests, default=float("nan")),
            "failures": dict(phase.failures),
            "server_cpu_share": phase.cpu / phase.elapsed,
        }
        if phase.flood is not None:
            flood = phase.flood
            entry["flood"] = {
                "connections": flood.connections,
                "messages_sent": flood.messages,
                "answers": flood.answers,
                "ends": dict(flood.closes),
            }
        out[phase.name] = entry
    return out


@click.command()
@click.option("--seconds", default=10.0, show_default=True, help="length of each phase")
@click.option("--concurrency", default=4, show_default=True,
              help="the other clients' requests under way at once")  # fmt: skip
@click.option("--addresses", default=128, show_default=True, help="the other clients' addresses")
@click.option("--rate-limit", default=None, type=int,
              help="GOTOWN_RATE_LIMIT for the server (default: the server's own)")  # fmt: skip
@click.option("--flood-nice", default=0, show_default=True,
              help="niceness added to the flooding process (it shares this machine's cores with "
                   "the server, which a remote flooder does not)")  # fmt: skip
@click.option("--database-url", default=None, help="SQLAlchemy URL (default: a fresh SQLite file)")
@click.option("--broadcast-url", default=None, help="redis://... (the rate limit counted there)")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def main(
    seconds: float,
    concurrency: int,
    addresses: int,
    rate_limit: int | None,
    flood_nice: int,
    database_url: str | None,
    broadcast_url: str | None,
    as_json: bool,
) -> None:
    """Other clients' request rate and slowest request, unloaded and under floods of 1 and 10
    sockets from one address."""
    if not 1 <= addresses <= 254:
        raise click.UsageError("--addresses: 1 to 254")
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "GOTOWN_DATABASE_URL": database_url or f"sqlite:///{Path(tmp) / 'flood.sqlite3'}",
        }
        if rate_limit is not None:
            env["GOTOWN_RATE_LIMIT"] = str(rate_limit)
        if broadcast_url:
            env["GOTOWN_BROADCAST_URL"] = broadcast_url
        port = free_port()
        server = start_server(port, env, Path(tmp) / "server.log")
        try:
            phases = asyncio.run(
                _run(
                    f"http://127.0.0.1:{port}",
                    server.pid,
                    seconds,
                    concurrency,
                    addresses,
                    flood_nice,
                )
            )
        finally:
            server.terminate()
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                click.echo("the server did not stop within 30 s of SIGTERM: killed", err=True)
                server.kill()
                server.wait()
    result = _report(phases)
    if as_json:
        click.echo(json.dumps(result))
        return
    for name, entry in result.items():
        line = (
            f"{name:>12}: {entry['requests_per_second']:7.1f} requests/s "
            f"({100 * entry['share_of_unloaded']:3.0f}% of unloaded), median "
            f"{entry['median_ms']:.1f} ms, p99 {entry['p99_ms']:.1f} ms, slowest "
            f"{entry['slowest_ms']:.1f} ms, failures {sum(entry['failures'].values())}; "
            f"server {100 * entry['server_cpu_share']:.0f}% of a core"
        )
        click.echo(line)
        if "flood" in entry:
            flood = entry["flood"]
            click.echo(
                f"{'':>14}flood: {flood['connections']} connections, "
                f"{flood['messages_sent']} pings sent, {flood['answers']} answers; ends "
                + ", ".join(f"{k} x{v}" for k, v in sorted(flood["ends"].items()))
            )
    kept = min(e["share_of_unloaded"] for e in result.values())
    slowest = max(e["slowest_ms"] for e in result.values())
    verdict = "met" if kept >= 0.5 and slowest < 1000 else "MISSED"
    click.echo(f"target (>= 50% kept, no request >= 1 s): {verdict}")


if __name__ == "__main__":
    main()
