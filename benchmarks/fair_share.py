"""A normal player beside each way a handful of clients could take the server's shared pools
(issue 44): what the normal player still gets.

Each attack runs against a server of its own (``gotown serve`` on a fresh SQLite file, as
``scripts/serve`` runs it: the compiled engine where it builds, the default settings but for
what an attack needs), from addresses of the loopback interface (the server keeps its limits
per address): the normal player is 127.0.0.2, the attackers 127.0.1.1, 127.0.1.2, ...

* **bots**: ``--bot-addresses`` addresses (3), each with ``--bot-tables`` tables (6) of one
  person and three ``expert`` bots whose person ends each turn as soon as it may. The normal
  player (a person and a ``medium`` bot) ends ``--replies`` turns and times each answer of
  its bot (its end of turn to its turn again, the bot delay of 0.6 s included), first on the
  idle server, then beside the attack. Target: median and p95 under attack within twice the
  idle median (the bot's think time).
* **hints**: 4 addresses, each keeping two hints in flight (the most an address may have
  waiting) on tables of its own, ending a turn after each answer so that the next hint is new
  work. The normal player asks a hint on its turn every 5 s for a minute.
* **reviews**: 4 addresses, each keeping two reviews in flight, each of another finished
  game of 600 actions or so (stored beforehand, as any finished games; each a new review).
  The normal player asks the review of one of its finished games (100 to 200 actions) every
  5 s for a minute, the next of its games once one is answered.
* **bots-only tables**: 2 addresses each start as many tables of bots only as they may, with
  a ``turn_limit`` of 10,000; then the normal player starts one (with the server's default
  limit).
* **sockets**: the server under a limit of 200 open files (``ulimit -n``); 8 addresses each
  open as many sockets as the server takes, as spectators of a game, then (a second round)
  as the seats of tables of their own. Then the normal player opens the socket of its seat.

    .venv/bin/python benchmarks/fair_share.py
    .venv/bin/python benchmarks/fair_share.py --only bots --replies 20
    .venv/bin/python benchmarks/fair_share.py --code /tmp/gotown-before   # an earlier commit

(``--code DIR``: serve another tree of the project, e.g. ``git archive COMMIT | tar -x -C
DIR`` with ``DIR/.venv`` a link to this checkout's ``.venv``: the figures before a change.)
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import random
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import httpx2 as httpx
from rich.console import Console
from rich.progress import Progress
from rich.table import Table
from serving import free_port, served_env, start_server, stop_server
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

NORMAL = "127.0.0.2"
BOT_DELAY = 0.6
END_TURN = {"type": "end-turn"}
SCENARIOS = ("bots", "hints", "reviews", "bots-only", "sockets")


def attacker(index: int) -> str:
    return f"127.0.1.{index + 1}"


def http_from(base: str, address: str) -> httpx.AsyncClient:
    # (A kept connection is dropped before uvicorn's 5 s would close it: one reused as the
    # server closes it fails the request, a race of the client's that browsers retry.)
    transport = httpx.AsyncHTTPTransport(
        local_address=address, limits=httpx.Limits(keepalive_expiry=2), retries=2
    )
    return httpx.AsyncClient(base_url=base, timeout=300, transport=transport)


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


@dataclass
class Server:
    base: str
    folder: Path

    @property
    def ws(self) -> str:
        return self.base.replace("http", "ws", 1)


@contextlib.asynccontextmanager
async def serving(
    env: dict[str, str],
    extra: dict[str, str] | None = None,
    nofile: int | None = None,
    before: Callable[[Path], None] | None = None,
) -> AsyncIterator[Server]:
    """A server of its own (``before(folder)`` first: what its database holds at the start)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        url = f"sqlite:///{folder / 'fair.sqlite3'}"
        if before is not None:
            await asyncio.to_thread(before, folder)
        port = free_port()
        server_env = {**env, "GOTOWN_DATABASE_URL": url, "GOTOWN_BOT_DELAY": str(BOT_DELAY),
                      **(extra or {})}  # fmt: skip
        server = await asyncio.to_thread(
            start_server, port, server_env, folder / "server.log", nofile=nofile
        )
        try:
            yield Server(f"http://127.0.0.1:{port}", folder)
        finally:
            await asyncio.to_thread(stop_server, server)


async def create(http: httpx.AsyncClient, seats: list[dict[str, Any]], **extra: Any) -> Any:
    body = {"seats": seats, "name": "P", **extra}
    answer = await http.post("/api/games", json=body)
    answer.raise_for_status()
    return answer.json()


async def two_seats(http: httpx.AsyncClient) -> tuple[str, list[str]]:
    """A table of two persons' seats, both held by this client: its id and the seats' tokens."""
    created = await create(http, [{"kind": "human"}, {"kind": "human"}])
    code = created["invite_url"].rsplit("/", 1)[1]
    joined = await http.post(
        f"/api/games/{created['game_id']}/join", json={"code": code, "name": "Q"}
    )
    return created["game_id"], [created["token"], joined.raise_for_status().json()["token"]]


# --- bots --------------------------------------------------------------------------------------


async def flood_table(server: Server, address: str, stop: asyncio.Event) -> int:
    """A person and three ``expert`` bots; the person ends each turn as soon as it may."""
    async with http_from(server.base, address) as http:
        created = await create(http, [{"kind": "human"}] + [{"kind": "bot", "level": "expert"}] * 3)
    ends = 0
    url = f"{server.ws}/ws/games/{created['game_id']}"
    async with connect(url, local_addr=(address, 0), open_timeout=60) as ws:
        await ws.send(json.dumps({"token": created["token"]}))
        while not stop.is_set():
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), 1))
            except TimeoutError:
                continue
            state = message.get("state") if message["type"] == "state" else None
            if state and state["status"] == "over":
                break
            if state and state["legal"]:
                turn = {"type": "action", "version": state["version"], "action": END_TURN}
                await ws.send(json.dumps(turn))
                ends += 1
    return ends


async def bot_answers(server: Server, replies: int) -> list[float]:
    """Seconds from the normal player's end of turn to its ``medium`` bot's move."""
    async with http_from(server.base, NORMAL) as http:
        created = await create(
            http, [{"kind": "human"}, {"kind": "bot", "level": "medium"}],
            options={"first_player": 0},
        )  # fmt: skip
    times: list[float] = []
    sent: tuple[int, float] | None = None
    url = f"{server.ws}/ws/games/{created['game_id']}"
    async with connect(url, local_addr=(NORMAL, 0), open_timeout=60) as ws:
        await ws.send(json.dumps({"token": created["token"]}))
        while len(times) < replies:
            message = json.loads(await ws.recv())
            if message["type"] != "state":
                continue
            state = message["state"]
            if state["status"] == "over":
                break  # (rare: a new table then)
            if sent is not None and state["version"] >= sent[0] + 2:
                times.append(time.monotonic() - sent[1])
                sent = None
            if state["legal"] and sent is None:
                sent = (state["version"], time.monotonic())
                turn = {"type": "action", "version": state["version"], "action": END_TURN}
                await ws.send(json.dumps(turn))
    if len(times) < replies:
        times += await bot_answers(server, replies - len(times))
    return times


async def attack_bots(env: dict[str, str], opts: dict[str, Any]) -> dict[str, Any]:
    async with serving(env) as server:
        idle = await bot_answers(server, opts["replies"])
        stop = asyncio.Event()
        floods = [
            asyncio.create_task(flood_table(server, attacker(a), stop))
            for a in range(opts["bot_addresses"])
            for _ in range(opts["bot_tables"])
        ]
        await asyncio.sleep(8)  # the attack under way
        attacked = await bot_answers(server, opts["replies"])
        stop.set()
        ends = sum(await asyncio.gather(*floods))
    think = statistics.median(idle)
    return {
        "idle_median": think,
        "idle_p95": percentile(idle, 0.95),
        "median": statistics.median(attacked),
        "p95": percentile(attacked, 0.95),
        "max": max(attacked),
        "attacker_end_turns": ends,
        "met": statistics.median(attacked) <= 2 * think and percentile(attacked, 0.95) <= 2 * think,
    }


# --- hints ---------------------------------------------------------------------------------------


@dataclass
class Asked:
    """What one client asked for and got."""

    answered: list[float] = field(default_factory=list)
    refused: int = 0
    failed: list[str] = field(default_factory=list)

    @property
    def asked(self) -> int:
        return len(self.answered) + self.refused + len(self.failed)


async def state_of(http: httpx.AsyncClient, game_id: str, token: str) -> Any:
    answer = await http.get(f"/api/games/{game_id}/state", headers={"X-Seat-Token": token})
    return answer.raise_for_status().json()


async def hint_flood(server: Server, address: str, stop: asyncio.Event, got: Asked) -> None:
    """One of the attacker's two hints in flight: a table of its own; a hint, then a turn
    ended (so that the next hint is new work), again and again."""
    async with http_from(server.base, address) as http:
        game_id, tokens = await two_seats(http)
        while not stop.is_set():
            state = await state_of(http, game_id, tokens[0])
            if state["status"] != "playing":
                game_id, tokens = await two_seats(http)
                continue
            token = tokens[state["view"]["active"]]
            began = time.monotonic()
            answer = await http.get(f"/api/games/{game_id}/hint", headers={"X-Seat-Token": token})
            if answer.status_code == 200:
                got.answered.append(time.monotonic() - began)
            elif answer.status_code == 429:
                got.refused += 1
                await asyncio.sleep(0.5)  # (the rate limit: 240 requests a minute)
            else:
                got.failed.append(f"{answer.status_code} {answer.text[:80]}")
            body = {"version": state["version"], "action": END_TURN}
            await http.post(f"/api/games/{game_id}/actions", json=body,
                            headers={"X-Seat-Token": token})  # fmt: skip


async def normal_hints(server: Server, seconds: float, every: float) -> Asked:
    """The normal player's table against a ``medium`` bot: a hint on its turn every ``every``
    seconds, then its turn ended."""
    got = Asked()
    async with http_from(server.base, NORMAL) as http:
        created = await create(
            http, [{"kind": "human"}, {"kind": "bot", "level": "medium"}],
            options={"first_player": 0},
        )  # fmt: skip
        game_id, token = created["game_id"], created["token"]
        headers = {"X-Seat-Token": token}
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            slot = time.monotonic() + every
            state = await state_of(http, game_id, token)
            while state["status"] == "playing" and not state["legal"]:
                await asyncio.sleep(0.3)
                state = await state_of(http, game_id, token)
            if state["status"] != "playing":
                created = await create(http, [{"kind": "human"}, {"kind": "bot"}],
                                       options={"first_player": 0})  # fmt: skip
                game_id, token = created["game_id"], created["token"]
                headers = {"X-Seat-Token": token}
                continue
            began = time.monotonic()
            answer = await http.get(f"/api/games/{game_id}/hint", headers=headers)
            if answer.status_code == 200:
                got.answered.append(time.monotonic() - began)
            elif answer.status_code == 429:
                got.refused += 1
            else:
                got.failed.append(f"{answer.status_code} {answer.text[:80]}")
            body = {"version": state["version"], "action": END_TURN}
            await http.post(f"/api/games/{game_id}/actions", json=body, headers=headers)
            await asyncio.sleep(max(0.0, slot - time.monotonic()))
    return got


async def attack_hints(env: dict[str, str], opts: dict[str, Any]) -> dict[str, Any]:
    async with serving(env) as server:
        stop = asyncio.Event()
        attackers = Asked()
        floods = [
            asyncio.create_task(hint_flood(server, attacker(a), stop, attackers))
            for a in range(4)
            for _ in range(2)
        ]
        await asyncio.sleep(5)
        normal = await normal_hints(server, opts["seconds"], 5.0)
        stop.set()
        await asyncio.gather(*floods, return_exceptions=True)
    return {**asked_figures(normal), "attackers_answered": len(attackers.answered),
            "attackers_refused": attackers.refused}  # fmt: skip


def asked_figures(got: Asked) -> dict[str, Any]:
    return {
        "asked": got.asked,
        "answered": len(got.answered),
        "refused": got.refused,
        "failed": got.failed[:3],
        "median": statistics.median(got.answered) if got.answered else float("nan"),
        "max": max(got.answered, default=float("nan")),
        "met": bool(got.answered) and got.refused == 0 and not got.failed,
    }


# --- reviews -------------------------------------------------------------------------------------


@dataclass
class Finished:
    game_id: str
    token: str
    actions: int


def seed_finished(folder: Path, long_games: int, short_games: int) -> dict[str, list[Finished]]:
    """Finished games in the server's database before it starts: ``long_games`` of four seats
    and about 600 actions (the attackers'), ``short_games`` of two seats and 100 to 200
    actions (the normal player's), their seats' tokens known."""
    from sqlalchemy import insert

    from gotown.engine import Game, Options
    from gotown.server.storage import Store, StoredGame, StoredSeat
    from gotown.server.tables import ActionRow

    store = Store(f"sqlite:///{folder / 'fair.sqlite3'}", "normal")
    store.migrate()
    made: dict[str, list[Finished]] = {"long": [], "short": []}
    rng = random.Random(44)
    plan = [("long", 4, 600, 500, 0.95)] * long_games + [("short", 2, 120, 100, 0.8)] * short_games
    for kind, players, limit, least, patience in plan:
        while True:
            seed = rng.getrandbits(63)
            game = Game.new(players=players, seed=seed, options=Options(turn_limit=limit))
            while not game.is_over:
                legal = game.legal_actions()
                ends = [a for a in legal if a.type == "end-turn"]
                game.apply(ends[0] if ends and rng.random() < patience else rng.choice(legal))
            if least <= game.version <= 3 * least:
                break
        token = secrets.token_urlsafe(24)
        game_id = secrets.token_urlsafe(8)
        seats = [
            StoredSeat(s, "human", None, f"P{s}", hashlib.sha256(
                (token if s == 0 else secrets.token_urlsafe(24)).encode()).hexdigest())
            for s in range(players)
        ]  # fmt: skip
        record = StoredGame(
            id=game_id, players=players, seed=seed, options=game.options.to_json(),
            language="en", invite_code=secrets.token_urlsafe(9), status="over", seats=seats,
        )  # fmt: skip
        store.create_game(record)
        rows = [
            {"game_id": game_id, "seq": i, "seat": 0, "action": a}
            for i, a in enumerate(_actions_of(game))
        ]
        with store.engine.begin() as connection:
            connection.execute(insert(ActionRow), rows)
        made[kind].append(Finished(game_id, token, game.version))
    store.dispose()
    return made


def _actions_of(game: Any) -> list[dict[str, Any]]:
    from gotown.engine import Record

    return [a.to_json() for a in Record.of(game).actions]


async def review_flood(
    server: Server, address: str, games: list[Finished], stop: asyncio.Event, got: Asked
) -> None:
    """One of the attacker's two reviews in flight, each of another game (and seat)."""
    async with http_from(server.base, address) as http:
        for game in games:
            for seat in (None, 0, 1, 2, 3):
                if stop.is_set():
                    return
                params = {} if seat is None else {"seat": seat}
                began = time.monotonic()
                answer = await http.get(f"/api/games/{game.game_id}/review", params=params)
                if answer.status_code == 200:
                    got.answered.append(time.monotonic() - began)
                elif answer.status_code == 429:
                    got.refused += 1
                    await asyncio.sleep(0.5)
                else:
                    got.failed.append(f"{answer.status_code} {answer.text[:80]}")
                    await asyncio.sleep(0.5)


async def normal_reviews(
    server: Server, games: list[Finished], seconds: float, every: float
) -> Asked:
    """The normal player asks the review of its seat in one of its finished games every
    ``every`` seconds, the next game once one is answered."""
    got = Asked()
    left = list(games)
    async with http_from(server.base, NORMAL) as http:
        end = time.monotonic() + seconds
        while time.monotonic() < end and left:
            slot = time.monotonic() + every
            game = left[0]
            began = time.monotonic()
            answer = await http.get(
                f"/api/games/{game.game_id}/review",
                params={"seat": 0},
                headers={"X-Seat-Token": game.token},
            )
            if answer.status_code == 200:
                got.answered.append(time.monotonic() - began)
                left.pop(0)
            elif answer.status_code == 429:
                got.refused += 1
            else:
                got.failed.append(f"{answer.status_code} {answer.text[:80]}")
            await asyncio.sleep(max(0.0, slot - time.monotonic()))
    return got


async def attack_reviews(env: dict[str, str], opts: dict[str, Any]) -> dict[str, Any]:
    seeded: dict[str, list[Finished]] = {}

    def seed(folder: Path) -> None:
        # (with the served tree's code: its database schema is the one its server expects)
        command = [sys.executable, __file__, "--seed-into", str(folder)]
        made = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
        for kind, games in json.loads(made.stdout).items():
            seeded[kind] = [Finished(*game) for game in games]

    async with serving(env, before=seed) as server:
        stop = asyncio.Event()
        attackers = Asked()
        long_games = seeded["long"]
        floods = [
            asyncio.create_task(
                review_flood(server, attacker(a), long_games[k::8], stop, attackers)
            )
            for k, a in enumerate(a for a in range(4) for _ in range(2))
        ]
        await asyncio.sleep(5)
        normal = await normal_reviews(server, seeded["short"], opts["seconds"], 5.0)
        stop.set()
        for task in floods:
            task.cancel()
        await asyncio.gather(*floods, return_exceptions=True)
    return {**asked_figures(normal), "attackers_answered": len(attackers.answered),
            "attackers_refused": attackers.refused,
            "actions": statistics.median(g.actions for g in seeded["short"])}  # fmt: skip


# --- tables of bots only -------------------------------------------------------------------------


async def attack_bots_only(env: dict[str, str], opts: dict[str, Any]) -> dict[str, Any]:
    bots = [{"kind": "bot", "level": "random"}] * 2
    async with serving(env) as server:
        held: list[str] = []
        refused: list[str] = []
        for a in range(2):
            async with http_from(server.base, attacker(a)) as http:
                for _ in range(4):
                    answer = await http.post(
                        "/api/games", json={"seats": bots, "options": {"turn_limit": 10_000}}
                    )
                    if answer.status_code == 201:
                        held.append(answer.json()["game_id"])
                    else:
                        refused.append(f"{answer.status_code} {answer.json()['error']['code']}")
        async with http_from(server.base, NORMAL) as http:
            answer = await http.post("/api/games", json={"seats": bots})
            limit = None
            if answer.status_code == 201:
                state = await http.get(f"/api/games/{answer.json()['game_id']}/state")
                limit = state.json()["lobby"]["options"]["turn_limit"]
    return {
        "attackers_tables": len(held),
        "attackers_refused": sorted(set(refused)),
        "normal_status": answer.status_code,
        "normal_turn_limit": limit,
        "met": answer.status_code == 201,
    }


# --- sockets -------------------------------------------------------------------------------------


async def hold_sockets(
    server: Server, address: str, path: str, first: str, most: int, held: list[Any]
) -> Counter:
    """Open sockets from ``address`` until the server refuses one (or ``most``); keep them."""
    closes = Counter()
    for _ in range(most):
        try:
            ws = await connect(f"{server.ws}{path}", local_addr=(address, 0), open_timeout=10)
        except (OSError, InvalidStatus, TimeoutError) as exc:
            closes[type(exc).__name__] += 1
            break
        try:
            await ws.send(first)
            message = json.loads(await asyncio.wait_for(ws.recv(), 10))
        except ConnectionClosed as exc:
            closes[f"closed {exc.rcvd.code if exc.rcvd else 'none'}"] += 1
            break
        except TimeoutError:
            closes["timeout"] += 1
            break
        if message.get("type") == "error":
            closes[message["error"]["code"]] += 1
            await ws.close()
            break
        held.append(ws)
        closes["open"] += 1
    return closes


class Counter(dict[str, int]):
    def __missing__(self, key: str) -> int:
        return 0


async def normal_socket(server: Server) -> tuple[bool, str]:
    """The normal player's new table (against a bot) and its seat's socket: accepted?"""
    async with http_from(server.base, NORMAL) as http:
        created = await create(http, [{"kind": "human"}, {"kind": "bot", "level": "medium"}])
    url = f"{server.ws}/ws/games/{created['game_id']}"
    try:
        async with connect(url, local_addr=(NORMAL, 0), open_timeout=10) as ws:
            await ws.send(json.dumps({"token": created["token"]}))
            message = json.loads(await asyncio.wait_for(ws.recv(), 10))
    except ConnectionClosed as exc:
        return False, f"closed {exc.rcvd.code if exc.rcvd else 'none'}"
    except (OSError, InvalidStatus, TimeoutError) as exc:
        return False, type(exc).__name__
    if message.get("type") == "state":
        return True, "state"
    return False, f"{message.get('error', {}).get('code')}"


async def attack_sockets(env: dict[str, str], opts: dict[str, Any]) -> dict[str, Any]:
    rounds: dict[str, Any] = {}
    for kind in ("spectators", "seats"):
        async with serving(env, nofile=200) as server:
            held: list[Any] = []
            counts: list[Counter] = []
            for a in range(8):
                address = attacker(a)
                async with http_from(server.base, address) as http:
                    game_id, tokens = await two_seats(http)
                first = json.dumps({"token": tokens[0] if kind == "seats" else None})
                counts.append(
                    await hold_sockets(server, address, f"/ws/games/{game_id}", first, 40, held)
                )
            accepted, said = await normal_socket(server)
            still_open = sum(1 for ws in held if ws.close_code is None)
            for ws in held:
                with contextlib.suppress(Exception):
                    await ws.close()
        rounds[kind] = {
            "attackers_open": sum(c["open"] for c in counts),
            "attackers_open_at_the_end": still_open,
            "normal_accepted": accepted,
            "normal_answer": said,
        }
    return {**rounds, "met": all(r["normal_accepted"] for r in rounds.values())}


# --- the report ----------------------------------------------------------------------------------

ATTACKS: dict[str, Callable[[dict[str, str], dict[str, Any]], Awaitable[dict[str, Any]]]] = {
    "bots": attack_bots,
    "hints": attack_hints,
    "reviews": attack_reviews,
    "bots-only": attack_bots_only,
    "sockets": attack_sockets,
}


def _line(name: str, r: dict[str, Any]) -> str:
    if name == "bots":
        return (
            f"medium's answer idle median {r['idle_median']:.2f} s (p95 {r['idle_p95']:.2f}); "
            f"beside the attack median {r['median']:.2f} s, p95 {r['p95']:.2f} s, max "
            f"{r['max']:.2f} s; the attackers ended {r['attacker_end_turns']} turns"
        )
    if name in ("hints", "reviews"):
        extra = f" ({r['actions']:.0f}-action games)" if name == "reviews" else ""
        return (
            f"normal player{extra}: {r['answered']} of {r['asked']} answered, {r['refused']} "
            f"refused, median {r['median']:.1f} s, max {r['max']:.1f} s; attackers "
            f"{r['attackers_answered']} answered, {r['attackers_refused']} refused"
            + (f"; failures {r['failed']}" if r["failed"] else "")
        )
    if name == "bots-only":
        return (
            f"attackers hold {r['attackers_tables']} tables (refused: "
            f"{', '.join(r['attackers_refused']) or 'none'}); the normal player's: "
            f"{r['normal_status']}, turn_limit {r['normal_turn_limit']}"
        )
    return "; ".join(
        f"{kind}: attackers opened {k['attackers_open']} ({k['attackers_open_at_the_end']} "
        f"still open), the normal player's seat socket "
        f"{'accepted' if k['normal_accepted'] else 'refused'} ({k['normal_answer']})"
        for kind, k in ((kind, r[kind]) for kind in ("spectators", "seats"))
    )


def _interrupted(_signal: int, _frame: Any) -> None:
    raise KeyboardInterrupt


@click.command()
@click.option("--only", type=click.Choice(SCENARIOS), multiple=True,
              help="run these attacks only (repeatable); default: all")  # fmt: skip
@click.option(
    "--replies", default=12, show_default=True, help="bots: answers timed, idle and attacked"
)
@click.option("--bot-addresses", default=3, show_default=True, help="bots: attacking addresses")
@click.option("--bot-tables", default=6, show_default=True, help="bots: tables per address")
@click.option("--seconds", default=60.0, show_default=True,
              help="hints, reviews: how long the normal player asks")  # fmt: skip
@click.option("--code", type=click.Path(file_okay=False, exists=True, path_type=Path),
              default=None,
              help="serve this tree of the project (default: this checkout)")  # fmt: skip
@click.option("--pure", is_flag=True, help="serve the engine's sources, not the compiled build")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
@click.option("--seed-into", type=click.Path(file_okay=False, path_type=Path), hidden=True)
def main(
    only: tuple[str, ...],
    replies: int,
    bot_addresses: int,
    bot_tables: int,
    seconds: float,
    code: Path | None,
    pure: bool,
    as_json: bool,
    seed_into: Path | None,
) -> None:
    """A normal player's bot, hint, review, table of bots and socket beside an attack on each."""
    if seed_into is not None:  # (the reviews' finished games, in a process of the served code)
        made = seed_finished(seed_into, long_games=80, short_games=12)
        click.echo(json.dumps({k: [[g.game_id, g.token, g.actions] for g in v]
                               for k, v in made.items()}))  # fmt: skip
        return
    signal.signal(signal.SIGTERM, _interrupted)  # (its servers are stopped on the way out)
    env = served_env(code, pure=pure)
    opts = {"replies": replies, "bot_addresses": bot_addresses, "bot_tables": bot_tables,
            "seconds": seconds}  # fmt: skip
    results: dict[str, Any] = {}

    async def run() -> None:
        with Progress(transient=True) as progress:
            task = progress.add_task("attacks", total=len(only or SCENARIOS))
            for name in only or SCENARIOS:
                progress.update(task, description=name)
                results[name] = await ATTACKS[name](env, opts)
                progress.console.print(f"{name}: {_line(name, results[name])}")
                progress.advance(task)

    asyncio.run(run())
    if as_json:
        click.echo(json.dumps(results))
        return
    table = Table(title=f"A normal player beside each attack ({code or 'this checkout'})")
    for column in ("attack", "what the normal player got", "target"):
        table.add_column(column)
    for name, result in results.items():
        table.add_row(name, _line(name, result), "met" if result["met"] else "MISSED")
    Console(width=160).print(table)


if __name__ == "__main__":
    main()
