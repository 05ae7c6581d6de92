"""How long a table's bot takes to answer while another address floods the server with bots.

Starts ``gotown serve`` on a free port (a fresh SQLite file, ``GOTOWN_BOT_DELAY`` 0.6 s), then:
a *victim* (a person and one ``medium`` bot, created from the address 127.0.0.2) ends its
turn ``--replies`` times and times each answer of its bot, first on an idle server, then while
a *flooder* (127.0.0.1) plays ``--tables`` tables of one person and three ``--level`` bots,
ending its turn as soon as it may. The bots of tables with people share two workers (and an
express one for a light address), taken in the order of least service by address, then by
table (``gotown/server/fairgate.py``), processes unless ``GOTOWN_WORKER_PROCESSES=false`` is
set (``gotown/server/workers.py``); the answer includes the 0.6 s bot delay, during which the
bot thinks. ``benchmarks/fair_share.py`` measures the same beside three flooding addresses,
with the other attacks on the shared pools.

    .venv/bin/python benchmarks/bot_flood.py --tables 6 --level expert --replies 6

(Linux: the victim's requests leave from 127.0.0.2, an address of the loopback interface.)
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import click
import httpx2 as httpx
from serving import free_port, start_server
from websockets.asyncio.client import connect

BOT_DELAY = 0.6
END_TURN = {"type": "end-turn"}


async def _flood(base: str, ws_base: str, level: str, stop: asyncio.Event) -> int:
    """One table of a person and three ``level`` bots whose person ends its turns at once."""
    async with httpx.AsyncClient(base_url=base, timeout=120) as http:
        seats = [{"kind": "human"}] + [{"kind": "bot", "level": level}] * 3
        created = (await http.post("/api/games", json={"seats": seats, "name": "F"})).json()
    ends = 0
    async with connect(f"{ws_base}/ws/games/{created['game_id']}") as ws:
        await ws.send(json.dumps({"token": created["token"]}))
        while not stop.is_set():
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), 1))
            except TimeoutError:
                continue
            state = message.get("state") if message["type"] == "state" else None
            if state and state["legal"]:
                turn = {"type": "action", "version": state["version"], "action": END_TURN}
                await ws.send(json.dumps(turn))
                ends += 1
    return ends


async def _answers(base: str, ws_base: str, replies: int) -> list[float]:
    """Seconds from the victim's end of turn to its ``medium`` bot's move, ``replies`` times."""
    transport = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
    async with httpx.AsyncClient(base_url=base, timeout=120, transport=transport) as http:
        body = {
            "seats": [{"kind": "human"}, {"kind": "bot", "level": "medium"}],
            "name": "V",
            "options": {"first_player": 0},
        }
        created = (await http.post("/api/games", json=body)).json()
    times: list[float] = []
    sent: tuple[int, float] | None = None
    async with connect(f"{ws_base}/ws/games/{created['game_id']}") as ws:
        await ws.send(json.dumps({"token": created["token"]}))
        while len(times) < replies:
            message = json.loads(await ws.recv())
            if message["type"] != "state":
                continue
            state = message["state"]
            if sent is not None and state["version"] >= sent[0] + 2:  # the bot moved
                times.append(time.monotonic() - sent[1])
                sent = None
            if state["legal"] and sent is None and len(times) < replies:
                sent = (state["version"], time.monotonic())
                turn = {"type": "action", "version": state["version"], "action": END_TURN}
                await ws.send(json.dumps(turn))
    return times


async def _measure(port: int, tables: int, level: str, replies: int) -> dict[str, Any]:
    base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    idle = await _answers(base, ws_base, replies)
    stop = asyncio.Event()
    floods = [asyncio.create_task(_flood(base, ws_base, level, stop)) for _ in range(tables)]
    await asyncio.sleep(8)  # the flood under way
    flooded = await _answers(base, ws_base, replies)
    stop.set()
    ends = await asyncio.gather(*floods)
    return {"idle": idle, "flooded": flooded, "flood_end_turns": sum(ends)}


@click.command()
@click.option("--tables", default=6, show_default=True, help="the flooder's tables")
@click.option(
    "--level",
    type=click.Choice(["random", "easy", "medium", "hard", "expert"]),
    default="expert",
    show_default=True,
    help="the flooder's bots (three a table)",
)
@click.option("--replies", default=6, show_default=True, help="answers timed, idle and flooded")
def main(tables: int, level: str, replies: int) -> None:
    """Time a table's bot while one address floods the server with tables of bots."""
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "GOTOWN_BOT_DELAY": str(BOT_DELAY),
            "GOTOWN_DATABASE_URL": f"sqlite:///{Path(tmp) / 'flood.sqlite3'}",
        }
        server = start_server(port, env, None)
        try:
            result = asyncio.run(_measure(port, tables, level, replies))
        finally:
            server.terminate()
            server.wait(10)
    for name in ("idle", "flooded"):
        times = result[name]
        shown = ", ".join(f"{t:.1f}" for t in times)
        click.echo(
            f"{name:8} medium's answer: mean {statistics.mean(times):.2f} s, "
            f"max {max(times):.2f} s ({shown}; {BOT_DELAY} s of it the bot delay)"
        )
    click.echo(f"the flooder ended {result['flood_end_turns']} turns at {tables} tables of "
               f"three {level} bots")  # fmt: skip


if __name__ == "__main__":
    main()
