"""A long game, on the server and in the page: does one update's work grow with the game?

Starts ``gotown serve`` as ``scripts/serve`` does (the engine and the bots' search compiled by
``scripts/build-engine`` when this machine can; ``--pure``: their sources) on a fresh SQLite
file, with seeds allowed (a known deal) and no rate limit (thousands of moves are played fast;
the attack below stays within the default limits anyway). Its games: two people who only end
their turns (seed 1, seat 0 first: both hands fill up with cards they could play, so it is no
stalemate, R20b, and runs on towards its turn limit), both seats' sockets open and every move
sent as the page sends it (HTTP, with its version and the events held). A short game stops at
the first of the turns asked for, a long one goes on to each of the others; there, the same
figures of both are taken in turns (a busy machine's load then weighs on both alike):

* **server** (``--turns``): a seat's state with the events it lacks only
  (``GET /state?events_from=N``: what a socket's push builds), ``--samples`` times, and
  ``--moves`` moves timed to their answer and to the other seat's socket;
* **page** (``--page-turns``; Debian's Chromium through Playwright): the seat's table opened
  on each game (time to the drawn table) and one kept open on the long game since the first
  turn, each ``update()`` (a state joined and drawn) timed in the page over those moves, the
  JS heap after a garbage collection (``Performance.getMetrics`` JSHeapUsedSize) and the
  elements;
* **attack** (``--attack-actions``, 0: none): from an address of its own, 32 spectator sockets
  on the long game and one end turn every 2 s, beside a normal player's table (a person
  against a ``medium`` bot, from another address, ``--attack-seconds`` alone and as long
  beside the attack, in halves taken in turns): the person's move to its answer, and the
  bot's reply (the person's end of turn to their turn again, the bot's delay of 0.6 s a move
  included): median, p95, max.

The long game's figures are printed beside the short one's, with their ratio (near 1: the
work does not grow with the game).

    .venv/bin/python benchmarks/long_game.py
    .venv/bin/python benchmarks/long_game.py --turns 100,3000 --page-turns 100,3000 \\
        --attack-actions 0
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import httpx2 as httpx
from playwright.async_api import Browser, CDPSession, Page, ViewportSize, async_playwright
from rich.console import Console
from rich.progress import Progress
from rich.table import Table
from serving import free_port, start_server
from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
LAPTOP: ViewportSize = {"width": 1280, "height": 900}
#: Each client's own source address (the server keeps its limits per address); the browser's
#: is 127.0.0.1.
PLAYERS, ATTACKER, NORMAL = "127.0.0.5", "127.0.0.2", "127.0.0.9"

# Marks the first frame with the table drawn (as benchmarks/page_speed.py).
MARK_DRAWN = """
new MutationObserver((_, seen) => {
  if (!document.getElementById("status")) return;
  seen.disconnect();
  requestAnimationFrame(() => setTimeout(() => performance.mark("gotown:drawn")));
}).observe(document, { childList: true, subtree: true });
"""

# Times each update() of the open table, in the page (the socket's handler calls it by name).
WRAP_UPDATES = """() => {
  const table = gotown.table();
  const update = table.update.bind(table);
  window.updateTimes = [];
  table.update = (state) => {
    const start = performance.now();
    update(state);
    window.updateTimes.push(performance.now() - start);
  };
}"""


def _ints(_ctx: Any, _param: Any, value: str) -> list[int]:
    try:
        return sorted({int(v) for v in value.split(",") if v.strip()})
    except ValueError:
        raise click.BadParameter(f"{value!r}: whole numbers separated by commas") from None


def _q(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


@dataclass
class Seat:
    token: str
    socket: ClientConnection | None = None
    #: When each version's state reached this seat's socket (``time.monotonic()``).
    arrived: dict[int, float] = field(default_factory=dict)
    moved: asyncio.Event = field(default_factory=asyncio.Event)


async def _open_socket(
    base: str, game_id: str, token: str | None, address: str
) -> ClientConnection:
    ws = await connect(
        f"{base.replace('http', 'ws', 1)}/ws/games/{game_id}",
        local_addr=(address, 0),
        max_size=None,
        open_timeout=60,
    )
    await ws.send(json.dumps({"token": token}))
    return ws


async def _listen(seat: Seat) -> None:
    assert seat.socket is not None
    async for raw in seat.socket:
        message = json.loads(raw)
        if message.get("type") == "state":
            seat.arrived[message["state"]["version"]] = time.monotonic()
            seat.moved.set()


class LongGame:
    """The table of two people who only end their turns; its figures as it goes on."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.seats: list[Seat] = []
        self.version = self.events = self.turn = self.active = 0
        self.id = self.play_url = ""
        self.tasks: list[asyncio.Task[None]] = []

    async def create(self, http: httpx.AsyncClient) -> None:
        body = {
            "seats": [{"kind": "human"}, {"kind": "human"}],
            "seed": 1,
            "options": {"first_player": 0},
            "name": "Ann",
        }
        created = (await http.post(f"{self.base}/api/games", json=body)).raise_for_status().json()
        self.id, self.play_url = created["game_id"], created["play_url"]
        code = created["invite_url"].rsplit("/", 1)[1]
        joined = await http.post(
            f"{self.base}/api/games/{self.id}/join", json={"code": code, "name": "Bob"}
        )
        tokens = [created["token"], joined.raise_for_status().json()["token"]]
        state = (await http.get(f"{self.base}/api/games/{self.id}/state")).json()
        self._held(state)
        for token in tokens:
            seat = Seat(token, await _open_socket(self.base, self.id, token, PLAYERS))
            self.seats.append(seat)
            self.tasks.append(asyncio.create_task(_listen(seat)))

    def _held(self, state: dict[str, Any]) -> None:
        view = state["view"]
        self.version, self.turn, self.active = state["version"], view["turn"], view["active"]
        self.events = state["events_from"] + len(view["events"])

    async def move(self, http: httpx.AsyncClient) -> tuple[float, float]:
        """One end of turn as the page sends it: seconds to its answer and to the other seat's
        socket."""
        other = self.seats[(self.active + 1) % len(self.seats)]
        body = {"version": self.version, "action": {"type": "end-turn"}, "events_from": self.events}
        headers = {"X-Seat-Token": self.seats[self.active].token}
        began = time.monotonic()
        answer = await http.post(
            f"{self.base}/api/games/{self.id}/actions", json=body, headers=headers
        )
        answered = time.monotonic()
        state = answer.raise_for_status().json()
        if state["status"] != "playing":
            raise click.ClickException(f"the long game ended at version {state['version']}")
        self._held(state)
        async with asyncio.timeout(60):
            while self.version not in other.arrived:
                other.moved.clear()
                await other.moved.wait()
        return answered - began, other.arrived.pop(self.version) - began

    async def play_to(
        self, http: httpx.AsyncClient, turn: int, advance: Callable[[], None], *, actions: int = 0
    ) -> None:
        """End turns until the game is at ``turn`` and holds ``actions`` actions."""
        while self.turn < turn or self.version < actions:
            await self.move(http)
            advance()

    async def state_times(self, http: httpx.AsyncClient, samples: int) -> list[float]:
        """Seconds to a seat's state holding only the events it lacks, ``samples`` times."""
        times = []
        headers = {"X-Seat-Token": self.seats[0].token}
        for _ in range(samples):
            began = time.monotonic()
            r = await http.get(
                f"{self.base}/api/games/{self.id}/state",
                params={"events_from": self.events},
                headers=headers,
            )
            r.raise_for_status()
            times.append(time.monotonic() - began)
        return times

    async def close(self) -> None:
        for seat in self.seats:
            if seat.socket is not None:
                await seat.socket.close()
        for task in self.tasks:
            task.cancel()


@dataclass
class Tab:
    """A seat's table open in the browser, its updates timed."""

    page: Page
    cdp: CDPSession
    opened_ms: float


async def _open_tab(browser: Browser, game: LongGame) -> Tab:
    context = await browser.new_context(viewport=LAPTOP)
    await context.add_init_script(MARK_DRAWN)
    page = await context.new_page()
    cdp = await context.new_cdp_session(page)
    await cdp.send("Performance.enable")
    await page.goto(game.play_url)
    await _caught_up(page, game.version)
    drawn = await page.evaluate("performance.getEntriesByName('gotown:drawn')[0].startTime")
    await page.evaluate(WRAP_UPDATES)
    return Tab(page, cdp, float(drawn))


async def _caught_up(page: Page, version: int) -> None:
    """Poll until the page shows ``version`` (the page's CSP refuses wait_for_function)."""
    async with asyncio.timeout(600):
        while await page.evaluate("Number(document.body.dataset.version || -1)") < version:
            await asyncio.sleep(0.02)
        await page.wait_for_selector("#status")


async def _page_figures(tab: Tab) -> dict[str, float]:
    times: list[float] = await tab.page.evaluate("window.updateTimes.splice(0)")
    await tab.cdp.send("HeapProfiler.collectGarbage")
    metrics = {
        m["name"]: m["value"] for m in (await tab.cdp.send("Performance.getMetrics"))["metrics"]
    }
    elements = await tab.page.evaluate("document.getElementsByTagName('*').length")
    return {
        "update median ms": _median(times),
        "update p95 ms": _q(times, 0.95),
        "JS heap MB": metrics["JSHeapUsedSize"] / 2**20,
        "DOM nodes": metrics["Nodes"],
        "elements": float(elements),
        "updates": float(len(times)),
    }


@dataclass
class Normal:
    """A normal player's figures: their moves to the answer, their bot's replies."""

    moves: list[float] = field(default_factory=list)
    replies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def add(self, other: Normal) -> None:
        self.moves += other.moves
        self.replies += other.replies
        self.errors += other.errors


async def _normal_player(base: str, seconds: float, rng: random.Random) -> Normal:
    """A person against a ``medium`` bot, from an address of its own, for ``seconds``: each
    turn a random legal action sent as the page sends it, a new game when one ends."""
    figures = Normal()
    deadline = time.monotonic() + seconds
    transport = httpx.AsyncHTTPTransport(local_address=NORMAL)
    async with httpx.AsyncClient(transport=transport, timeout=60) as http:
        while time.monotonic() < deadline:
            body = {"seats": [{"kind": "human"}, {"kind": "bot", "level": "medium"}]}
            created = (await http.post(f"{base}/api/games", json={**body, "name": "Nora"})).json()
            game_id, token = created["game_id"], created["token"]
            ws = await _open_socket(base, game_id, token, NORMAL)
            try:
                await _play(http, ws, base, game_id, token, deadline, rng, figures)
            finally:
                await ws.close()
    return figures


async def _play(
    http: httpx.AsyncClient,
    ws: ClientConnection,
    base: str,
    game_id: str,
    token: str,
    deadline: float,
    rng: random.Random,
    figures: Normal,
) -> None:
    held, acted, ended_at = 0, -1, None
    while time.monotonic() < deadline:
        try:
            async with asyncio.timeout(max(0.1, deadline - time.monotonic())):
                message = json.loads(await ws.recv())
        except TimeoutError:
            return
        if message.get("type") != "state":
            continue
        state = message["state"]
        if state["view"] is None:
            continue
        held = max(held, state["events_from"] + len(state["view"]["events"]))
        if state["status"] == "over":
            return
        if not state["legal"] or state["version"] <= acted:
            continue  # (not this seat's turn, or a state of a version acted on: presence)
        acted = state["version"]
        now = time.monotonic()
        if ended_at is not None:
            figures.replies.append(now - ended_at)
        action = rng.choice(state["legal"])
        body = {"version": state["version"], "action": action, "events_from": held}
        began = time.monotonic()
        r = await http.post(
            f"{base}/api/games/{game_id}/actions", json=body, headers={"X-Seat-Token": token}
        )
        done = time.monotonic()
        if r.status_code != 200:
            figures.errors.append(f"{r.status_code}: {r.text[:100]}")
            ended_at = None
            continue
        figures.moves.append(done - began)
        answer = r.json()
        held = max(held, answer["events_from"] + len(answer["view"]["events"]))
        ended_at = done if answer["legal"] == [] and answer["status"] == "playing" else None


async def _attack(game: LongGame, stop: asyncio.Event, sockets: int) -> dict[str, int]:
    """32 spectator sockets on the long game from one address, and an end turn every 2 s."""
    seen = {"open": 0, "refused": 0, "messages": 0, "turns": 0}

    async def watch() -> None:
        try:
            ws = await _open_socket(game.base, game.id, None, ATTACKER)
        except Exception:
            seen["refused"] += 1
            return
        seen["open"] += 1
        try:
            async for _raw in ws:
                seen["messages"] += 1
        except Exception:
            seen["refused"] += 1
        finally:
            await ws.close()

    watchers = [asyncio.create_task(watch()) for _ in range(sockets)]
    transport = httpx.AsyncHTTPTransport(local_address=ATTACKER)
    async with httpx.AsyncClient(transport=transport, timeout=60) as http:
        while not stop.is_set():
            await game.move(http)
            seen["turns"] += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 2.0)
    for task in watchers:
        task.cancel()
    await asyncio.gather(*watchers, return_exceptions=True)
    return seen


async def _measure(base: str, opts: dict[str, Any], console: Console) -> None:
    turns: list[int] = opts["turns"]
    page_turns: list[int] = opts["page_turns"]
    stops = sorted(set(turns) | set(page_turns))
    short, long = LongGame(base), LongGame(base)
    rng = random.Random(1)
    transport = httpx.AsyncHTTPTransport(local_address=PLAYERS)
    async with (
        httpx.AsyncClient(transport=transport, timeout=120) as http,
        async_playwright() as p,
    ):
        browser = await p.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox"]
        )
        await short.create(http)
        await long.create(http)
        kept: Tab | None = None
        with Progress(console=console, transient=True) as progress:
            task = progress.add_task("moves", total=stops[-1] + stops[0] if stops else 0)
            advance = lambda: progress.advance(task)  # noqa: E731
            if stops:
                await short.play_to(http, stops[0], advance)
                await long.play_to(http, stops[0], advance)
            if page_turns:
                kept = await _open_tab(browser, long)
            for turn in stops[1:]:
                progress.update(task, description=f"playing to turn {turn:,}")
                await long.play_to(http, turn, advance)
                progress.update(task, description=f"measuring at turn {turn:,}")
                tabs = (kept,) if turn in page_turns and kept is not None else ()
                figures = await _compare(http, browser, short, long, tabs, opts, turn in turns)
                _print_comparison(console, short.turn, turn, figures)
            if kept is not None:
                await kept.page.context.close()
        await browser.close()
        if opts["attack_actions"]:
            await _run_attack(long, http, opts, console, rng)
        await short.close()
        await long.close()


async def _compare(
    http: httpx.AsyncClient,
    browser: Browser,
    short: LongGame,
    long: LongGame,
    kept: tuple[Tab, ...],
    opts: dict[str, Any],
    server: bool,
) -> dict[str, tuple[float, float]]:
    """The same figures of the short game and of the long one, taken in turns (a machine's
    load then weighs on both alike): its states and moves, and (``kept``: the long game's page
    kept open) a page opened on each and the kept one, timed over the same moves."""
    games = (short, long)
    out: dict[str, tuple[float, float]] = {}
    if server:
        states: tuple[list[float], list[float]] = ([], [])
        for _ in range(opts["samples"]):
            for game, times in zip(games, states, strict=True):
                times.extend(await game.state_times(http, 1))
        out["state median ms"] = (_median(states[0]) * 1e3, _median(states[1]) * 1e3)
        out["state p95 ms"] = (_q(states[0], 0.95) * 1e3, _q(states[1], 0.95) * 1e3)
    tabs: list[Tab] = []
    if kept:
        tabs = [await _open_tab(browser, short), await _open_tab(browser, long), *kept]
        out["page: open ms"] = (tabs[0].opened_ms, tabs[1].opened_ms)
        for tab, game in zip(tabs, (short, long, long), strict=True):
            await _caught_up(tab.page, game.version)
            await tab.page.evaluate("window.updateTimes = []")
    answers: tuple[list[float], list[float]] = ([], [])
    pushes: tuple[list[float], list[float]] = ([], [])
    for _ in range(opts["moves"]):
        for game, answered, pushed in zip(games, answers, pushes, strict=True):
            answer, push = await game.move(http)
            answered.append(answer)
            pushed.append(push)
    if server:
        for name, values in (("move to its answer", answers), ("move to the other seat", pushes)):
            out[f"{name}: median ms"] = (_median(values[0]) * 1e3, _median(values[1]) * 1e3)
            out[f"{name}: p95 ms"] = (_q(values[0], 0.95) * 1e3, _q(values[1], 0.95) * 1e3)
    if tabs:
        page = []
        for tab, game in zip(tabs, (short, long, long), strict=True):
            await _caught_up(tab.page, game.version)
            page.append(await _page_figures(tab))
        for name in page[0]:
            out[f"page: {name}"] = (page[0][name], page[1][name])
            out[f"page kept open: {name}"] = (page[0][name], page[2][name])
        for tab in tabs[:2]:
            await tab.page.context.close()
    return out


async def _run_attack(
    game: LongGame,
    http: httpx.AsyncClient,
    opts: dict[str, Any],
    console: Console,
    rng: random.Random,
) -> None:
    target, seconds = opts["attack_actions"], opts["attack_seconds"]
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task(f"playing to {target:,} actions", total=target)
        progress.update(task, completed=game.version)
        await game.play_to(http, 0, lambda: progress.advance(task), actions=target)
        # Alone and beside the attack in turns, twice each: a machine's load weighs on both.
        alone, beside = Normal(), Normal()
        seen: dict[str, int] = {}
        for _ in range(2):
            progress.update(task, description=f"a normal player alone ({seconds / 2:g} s)")
            alone.add(await _normal_player(game.base, seconds / 2, rng))
            progress.update(task, description=f"beside the attack ({seconds / 2:g} s)")
            stop = asyncio.Event()
            attack = asyncio.create_task(_attack(game, stop, opts["attack_sockets"]))
            beside.add(await _normal_player(game.base, seconds / 2, rng))
            stop.set()
            for key, value in (await attack).items():
                seen[key] = seen.get(key, 0) + value
    out = Table(
        title=f"A normal player beside {seen['open'] // 2} spectator sockets of one address on "
        f"a game of {target:,} actions and an end turn every 2 s ({seen['turns']} turns, "
        f"{seen['messages']:,} messages pushed, {seen['refused']} sockets refused; twice "
        f"{seconds / 2:g} s each)"
    )
    for column in ("measure", "alone", "beside the attack", "ratio"):
        out.add_column(column, justify="left" if column == "measure" else "right")
    for name, values in (
        ("person's move to its answer, ms", "moves"),
        ("bot's reply, ms", "replies"),
    ):
        a, b = getattr(alone, values), getattr(beside, values)
        out.add_row(f"{name}: count", str(len(a)), str(len(b)), "")
        summaries: tuple[tuple[str, Callable[[list[float]], float]], ...] = (
            ("median", _median),
            ("p95", lambda v: _q(v, 0.95)),
            ("max", lambda v: max(v, default=float("nan"))),
        )
        for label, summary in summaries:
            x, y = summary(a) * 1000, summary(b) * 1000
            out.add_row(f"  {label}", f"{x:.0f}", f"{y:.0f}", f"{y / x:.2f}")
    console.print(out)
    for errors in (alone.errors, beside.errors):
        for error in errors[:5]:
            console.print(f"[red]refused: {error}")


def _print_comparison(
    console: Console, short: int, long: int, figures: dict[str, tuple[float, float]]
) -> None:
    out = Table(title=f"One update's work at turn {long:,}, beside turn {short:,}")
    out.add_column("measure")
    out.add_column(f"turn {short:,}", justify="right")
    out.add_column(f"turn {long:,}", justify="right")
    out.add_column("ratio", justify="right")
    for name, (a, b) in figures.items():
        if name.endswith("updates"):
            continue
        cells = [f"{v:,.1f}" if v < 100 else f"{v:,.0f}" for v in (a, b)]
        out.add_row(name, *cells, f"{b / a:.2f}" if a else "")
    console.print(out)


def _server_env(pure: bool, folder: Path) -> dict[str, str]:
    """The server's environment: the compiled engine first on its path, as ``scripts/serve``
    builds it (unless ``pure`` or it cannot be compiled), a fresh SQLite file, seeds allowed."""
    env = dict(os.environ)
    if pure:
        env["GOTOWN_PURE"] = "1"
    elif (
        subprocess.run(["bash", str(ROOT / "scripts" / "build-engine")], check=False).returncode
        == 0
    ):
        path = [str(ROOT / "build" / "compiled-engine"), env.get("PYTHONPATH", "")]
        env["PYTHONPATH"] = os.pathsep.join(p for p in path if p)
    return env | {
        "GOTOWN_DATABASE_URL": f"sqlite:///{folder / 'long.sqlite3'}",
        "GOTOWN_ALLOW_SEED": "1",
        "GOTOWN_RATE_LIMIT": "0",
    }


@click.command()
@click.option(
    "--turns",
    default="100,3000,5000",
    callback=_ints,
    show_default=True,
    help="turns at which the server's figures are taken",
)
@click.option(
    "--page-turns",
    default="100,3000",
    callback=_ints,
    show_default=True,
    help="turns at which the page's figures are taken",
)
@click.option("--moves", default=30, show_default=True, help="moves timed at each of them")
@click.option("--samples", default=100, show_default=True, help="states timed at each of them")
@click.option(
    "--attack-actions",
    default=3200,
    show_default=True,
    help="the game's actions when the attack starts (0: no attack)",
)
@click.option(
    "--attack-seconds",
    default=60.0,
    show_default=True,
    help="seconds the normal player plays alone, then beside the attack",
)
@click.option(
    "--attack-sockets",
    default=32,
    show_default=True,
    help="the attacker's spectator sockets (32: the default cap per address)",
)
@click.option("--pure", is_flag=True, help="serve the engine's sources, not the compiled build")
def main(**opts: Any) -> None:
    """Time a state, a move and the page at a long game's early and late turns, and a
    normal player's moves beside an attack by spectator sockets on a long game."""  # fmt: skip
    console = Console()
    folder = Path(tempfile.mkdtemp(prefix="gotown-long-game-"))
    env = _server_env(opts["pure"], folder)
    # (Started from the empty folder: `python -m` puts its directory first on the path, and
    # the repository's root would shadow the compiled build.)
    os.chdir(folder)
    runs = subprocess.run(
        [sys.executable, "-c", "import gotown.engine as e; print(e.__file__, e.COMPILED)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    engine, compiled = runs.stdout.split()
    console.print(f"the server's engine: {engine} ({'' if compiled == 'True' else 'not '}compiled)")
    port = free_port()
    server = start_server(port, env, folder / "server.log")
    try:
        asyncio.run(_measure(f"http://127.0.0.1:{port}", opts, console))
    finally:
        server.terminate()
        server.wait(30)


if __name__ == "__main__":
    main()
