"""How soon a crashed server answers again, and its bots move: the restart's budget.

Starts ``gotown serve`` as ``scripts/serve`` runs it (the compiled engine where it builds) on a
fresh SQLite file and fills it: ``--games`` open games of two people (both seats taken) and
``--bot-tables`` tables of a person and a ``medium`` bot at the bot's turn (the person has
ended their turn). Then, ``--restarts`` times: the server is killed (SIGKILL, a crash: nothing
is stored on the way out) and started again, and the benchmark measures, from the start of the
new process:

* the first answer of ``/healthz`` (every 10 ms; target 1.5 s) and of ``/readyz``, and the CPU
  time the process spent until the first;
* when each bot table's bot has moved (its state's version, asked once the server answers):
  the first and the last, counted from ``/healthz``'s answer (target 1 s).

Then the import budget: what importing the server (``gotown.server.main``, as uvicorn does)
costs, module by module (``python -X importtime``), the largest first.

    .venv/bin/python benchmarks/restart.py
    .venv/bin/python benchmarks/restart.py --games 1000 --bot-tables 50 --restarts 5
    .venv/bin/python benchmarks/restart.py --code /tmp/gotown-before   # an earlier commit
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click
import httpx2 as httpx
from rich.progress import Progress
from serving import free_port, served_env, start_server

TICKS = os.sysconf("SC_CLK_TCK")
END_TURN = {"type": "end-turn"}


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


async def _fill(base: str, games: int, bot_tables: int) -> list[tuple[str, str, int]]:
    """The open games, and the bot tables at their bot's turn: (game, token, version)."""
    limits = httpx.Limits(max_connections=20, keepalive_expiry=2)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as http:

        async def person_game(i: int) -> None:
            created = (
                await http.post(
                    "/api/games",
                    json={"seats": [{"kind": "human"}, {"kind": "human"}], "name": f"A{i}"},
                )
            ).json()
            code = created["invite_url"].rsplit("/", 1)[1]
            await http.post(f"/api/games/{created['game_id']}/join",
                            json={"code": code, "name": f"B{i}"})  # fmt: skip

        async def bot_table(i: int) -> tuple[str, str, int]:
            body = {"seats": [{"kind": "human"}, {"kind": "bot", "level": "medium"}],
                    "name": f"P{i}", "options": {"first_player": 0}}  # fmt: skip
            created = (await http.post("/api/games", json=body)).json()
            headers = {"X-Seat-Token": created["token"]}
            state = await http.get(f"/api/games/{created['game_id']}/state", headers=headers)
            version = state.json()["version"]
            moved = await http.post(f"/api/games/{created['game_id']}/actions", headers=headers,
                                    json={"version": version, "action": END_TURN})  # fmt: skip
            return created["game_id"], created["token"], moved.json()["version"]

        for start in range(0, games, 50):
            await asyncio.gather(*(person_game(i) for i in range(start, min(games, start + 50))))
        return list(await asyncio.gather(*(bot_table(i) for i in range(bot_tables))))


async def _first_answer(base: str, path: str, began: float, deadline: float) -> float:
    async with httpx.AsyncClient(base_url=base, timeout=1) as http:
        while time.monotonic() < deadline:
            try:
                if (await http.get(path)).status_code == 200:
                    return time.monotonic() - began
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.01)
    raise click.ClickException(f"{path} did not answer within the deadline")


async def _bots_moved(base: str, tables: list[tuple[str, str, int]], since: float) -> list[float]:
    """Seconds from ``since`` until each table's bot had moved (asked every 20 ms)."""
    moved: dict[str, float] = {}
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        deadline = time.monotonic() + 60
        while len(moved) < len(tables) and time.monotonic() < deadline:
            for game_id, token, version in tables:
                if game_id in moved:
                    continue
                state = await http.get(f"/api/games/{game_id}/state",
                                       headers={"X-Seat-Token": token})  # fmt: skip
                if state.status_code == 200 and state.json()["version"] > version:
                    moved[game_id] = time.monotonic() - since
            await asyncio.sleep(0.02)
    if len(moved) < len(tables):
        raise click.ClickException(f"{len(tables) - len(moved)} bots never moved")
    return sorted(moved.values())


def _start(port: int, env: dict[str, str], log: Path) -> tuple[subprocess.Popen[bytes], float]:
    command = [sys.executable, "-m", "gotown.cli", "serve", "--port", str(port)]
    began = time.monotonic()
    with log.open("ab") as out:
        server = subprocess.Popen(command, env=env, cwd=log.parent, stdout=subprocess.DEVNULL,
                                  stderr=out)  # fmt: skip
    return server, began


async def _turns_ended(base: str, tables: list[tuple[str, str, int]]) -> list[tuple[str, str, int]]:
    """Each table's person ends the turn again once the bot's turn is over: its bot is to move
    (for the next crash). A table whose game has ended is left out."""
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:

        async def end(game_id: str, token: str, version: int) -> tuple[str, str, int] | None:
            headers = {"X-Seat-Token": token}
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                state = (await http.get(f"/api/games/{game_id}/state", headers=headers)).json()
                view = state["view"]
                if view["over"]:
                    return None
                if view["active"] == view["seat"]:
                    moved = await http.post(
                        f"/api/games/{game_id}/actions",
                        headers=headers,
                        json={"version": state["version"], "action": END_TURN},
                    )
                    if moved.status_code == 200:
                        return game_id, token, moved.json()["version"]
                await asyncio.sleep(0.05)
            raise click.ClickException(f"the bot of {game_id} never ended its turn")

        ended = await asyncio.gather(*(end(*table) for table in tables))
        return [table for table in ended if table is not None]


async def _restart(
    port: int, env: dict[str, str], log: Path, tables: list[tuple[str, str, int]]
) -> tuple[dict[str, float], list[tuple[str, str, int]]]:
    """One start after a crash: its figures, and the tables at their bots' turn again."""
    base = f"http://127.0.0.1:{port}"
    server, began = _start(port, env, log)
    try:
        health = await _first_answer(base, "/healthz", began, began + 60)
        cpu = _cpu_seconds(server.pid)
        answered = began + health
        ready = await _first_answer(base, "/readyz", began, began + 60)
        moves = await _bots_moved(base, tables, answered)
        # (the bots then wait their delay, 0.6 s: the crash comes first)
        tables = await _turns_ended(base, tables)
    finally:
        server.send_signal(signal.SIGKILL)  # (the next start is a crash's)
        server.wait()
    figures = {"healthz": health, "readyz": ready, "cpu": cpu, "first_bot": moves[0],
               "last_bot": moves[-1]}  # fmt: skip
    return figures, tables


def _import_budget(env: dict[str, str], top: int) -> list[tuple[str, float]]:
    """The modules whose import (with what they import) costs the most, in seconds: the
    top-level ones under ``gotown.server.main`` and the project's own."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import gotown.server.main"],
        env=env, cwd=tempfile.gettempdir(), capture_output=True, text=True, check=True,
    )  # fmt: skip
    rows = []
    for line in done.stderr.splitlines()[1:]:
        parts = line.split("|")
        if len(parts) != 3:
            continue
        name = parts[2].rstrip()
        depth = len(name) - len(name.lstrip())
        if depth <= 3 or name.strip().startswith("gotown"):
            rows.append((name.strip(), int(parts[1]) / 1e6, depth))
    whole = next(t for n, t, _ in rows if n == "gotown.server.main")
    listed = sorted(((n, t) for n, t, d in rows if n != "gotown.server.main"),
                    key=lambda row: -row[1])[:top]  # fmt: skip
    return [("gotown.server.main (all of it)", whole), *listed]


@click.command()
@click.option("--games", default=1000, show_default=True, help="open games of two people")
@click.option("--bot-tables", default=20, show_default=True,
              help="tables of a person and a bot, at the bot's turn")  # fmt: skip
@click.option("--restarts", default=5, show_default=True, help="crashes and starts measured")
@click.option("--top", default=12, show_default=True, help="modules shown in the import budget")
@click.option("--code", type=click.Path(file_okay=False, exists=True, path_type=Path),
              default=None,
              help="serve this tree of the project (default: this checkout)")  # fmt: skip
@click.option("--pure", is_flag=True, help="serve the engine's sources, not the compiled build")
@click.option("--keep-log", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="copy the servers' log to this file")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def main(games: int, bot_tables: int, restarts: int, top: int, code: Path | None, pure: bool,
         keep_log: Path | None, as_json: bool) -> None:  # fmt: skip
    """Crash the server and start it again: its first answer, its bots' first moves, and the
    import budget."""
    env = served_env(code, pure=pure)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        # (no rate limit: the benchmark asks every table's state every 20 ms from one address)
        env = {**env, "GOTOWN_DATABASE_URL": f"sqlite:///{folder / 'restart.sqlite3'}",
               "GOTOWN_RATE_LIMIT": "0"}  # fmt: skip
        port = free_port()
        log = folder / "server.log"
        # Filled with bots that wait an hour: they are at their turn when the server dies.
        first = start_server(port, {**env, "GOTOWN_BOT_DELAY": "3600"}, log)
        try:
            tables = asyncio.run(_fill(f"http://127.0.0.1:{port}", games, bot_tables))
        finally:
            first.send_signal(signal.SIGKILL)
            first.wait()
        results = []
        try:
            with Progress(transient=True) as progress:
                task = progress.add_task("crash and start", total=restarts)
                for _ in range(restarts):
                    figures, tables = asyncio.run(_restart(port, env, log, tables))
                    results.append(figures)
                    progress.advance(task)
        finally:
            if keep_log is not None:
                keep_log.write_bytes(log.read_bytes())
        budget = _import_budget(env, top)
    summary = {
        key: {"median": statistics.median(r[key] for r in results),
              "max": max(r[key] for r in results)}
        for key in results[0]
    }  # fmt: skip
    if as_json:
        click.echo(json.dumps({"restarts": results, "summary": summary, "imports": budget}))
        return
    click.echo(f"{games} open games, {bot_tables} bots at their turn; {restarts} crashes and "
               f"starts ({code or 'this checkout'}):")  # fmt: skip
    for key, words in (("healthz", "/healthz answers"), ("readyz", "/readyz answers"),
                       ("cpu", "CPU until /healthz answers"),
                       ("first_bot", "first bot moved, after /healthz"),
                       ("last_bot", "last bot moved, after /healthz")):  # fmt: skip
        click.echo(f"  {words:34} median {summary[key]['median']:.2f} s, max "
                   f"{summary[key]['max']:.2f} s")  # fmt: skip
    click.echo("import budget (seconds, each with what it imports):")
    for name, seconds in budget:
        click.echo(f"  {seconds:6.3f}  {name}")


if __name__ == "__main__":
    main()
