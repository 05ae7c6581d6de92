"""The players of the multi-host test, run on their own host: ``python -m tests.deploy.players
play URL GAMES HELD AT`` plays GAMES games through the proxy at URL (the last HELD of them
waiting at version AT until the line ``go`` is read), each seat with its own WebSocket as
the page has, and prints one JSON line a second (``{"acked": N}``) and a report at the end;
``python -m tests.deploy.players probe`` answers ``GET`` requests read from its input (one URL a
line: ``STATUS BODY``), for the test to look at the hosts from where the players are.

A seat moves when its socket says it is its turn; a move is acknowledged by its 200. A move
with no answer (the process died with it, the proxy said 502) is looked up: the seat asks the
state and moves again on the same version only if the game is still there, so a move is never
made twice. A socket that closes connects again through the proxy: at once after 1012 (a
server's restart), after 0.1 s otherwise."""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp

#: One game in four against a bot.
BOT_EVERY = 4
OPTIONS: dict[str, Any] = {}  # (a whole game: five floors to win)


def choose(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A quick player: builds and steals first, other cards sometimes, else ends the turn."""
    builds = [a for a in legal if a["type"] in ("build", "steal")]
    if builds:
        return rng.choice(builds)
    others = [a for a in legal if a["type"] != "end-turn"]
    if others and rng.random() < 0.5:
        return rng.choice(others)
    return next(a for a in legal if a["type"] == "end-turn")


@dataclass
class Seat:
    game: str
    index: int
    seat: int
    token: str
    #: Per version: the move sent and acknowledged, or sent without an answer.
    acked: dict[int, dict[str, Any]] = field(default_factory=dict)
    unanswered: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    answered: set[int] = field(default_factory=set)
    #: How each of its sockets ended (a close code; "error:..." when the connection broke),
    #: its connections, and its attempts that did not connect (the proxy had no process).
    closes: list[str] = field(default_factory=list)
    connections: int = 0
    failed_attempts: int = 0
    over: bool = False
    final_version: int = -1
    #: Where it is (for a test that stalls: what it waits for).
    doing: str = "starting"
    errors: list[str] = field(default_factory=list)


class Players:
    """``games`` games; the last ``held`` of them wait at version ``hold_at`` until the line
    ``go`` is read (so that play goes on for as long as the test needs)."""

    def __init__(self, base: str, games: int, held: int = 0, hold_at: int = 0) -> None:
        self.base = base.rstrip("/")
        self.socket_base = "ws" + self.base[len("http") :]
        self.games = games
        self.held, self.hold_at = held, hold_at
        self.go = asyncio.Event()
        self.seats: list[Seat] = []

    async def _json(
        self,
        session: aiohttp.ClientSession,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
    ) -> tuple[int, Any]:
        headers = {"X-Seat-Token": token} if token else {}
        async with session.request(method, self.base + path, json=body, headers=headers) as r:
            try:
                data = await r.json(content_type=None)
            except (json.JSONDecodeError, aiohttp.ContentTypeError):
                data = None
            return r.status, data

    async def _new_game(self, session: aiohttp.ClientSession, index: int) -> list[Seat]:
        with_bot = index % BOT_EVERY == 0
        seats = [
            {"kind": "human"},
            {"kind": "bot", "level": "easy"} if with_bot else {"kind": "human"},
        ]
        while True:  # (a process stopping at that moment: again)
            try:
                status, made = await self._json(
                    session,
                    "POST",
                    "/api/games",
                    {"name": f"P{index}a", "seats": seats, "options": OPTIONS},
                )
                if status == 201:
                    break
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.1)
        found = [Seat(made["game_id"], index, made["seat"], made["token"])]
        if not with_bot:
            code = made["invite_url"].rsplit("/", 1)[1]
            while True:
                try:
                    status, joined = await self._json(
                        session,
                        "POST",
                        f"/api/games/{made['game_id']}/join",
                        {"code": code, "name": f"P{index}b"},
                    )
                    if status == 200:
                        break
                except aiohttp.ClientError:
                    pass
                await asyncio.sleep(0.1)
            found.append(Seat(made["game_id"], index, joined["seat"], joined["token"]))
        return found

    async def _move(
        self, session: aiohttp.ClientSession, seat: Seat, state: dict[str, Any]
    ) -> None:
        version = state["version"]
        rng = random.Random(f"{seat.index}:{version}")
        action = choose(state["legal"], rng)
        path = f"/api/games/{seat.game}/actions"
        while True:
            seat.doing = f"moving on v{version}"
            try:
                status, body = await self._json(
                    session, "POST", path, {"version": version, "action": action}, seat.token
                )
            except (TimeoutError, aiohttp.ClientError):
                status, body = 0, None
            if status == 200:
                seat.acked[version] = action
                seat.answered.add(version)
                return
            if status == 409:  # (moved already: by this move, sent before without an answer)
                seat.answered.add(version)
                return
            if status in (400, 403, 404, 422):
                seat.errors.append(f"v{version}: {status} {body}")
                seat.answered.add(version)
                return
            # No answer (0, 502, 503, 504): did it go through? Look before moving again.
            seat.unanswered.setdefault(version, []).append(action)
            seat.doing = f"looking after v{version} had no answer"
            await asyncio.sleep(0.05)
            try:
                status, now = await self._json(
                    session, "GET", f"/api/games/{seat.game}/state", token=seat.token
                )
            except (TimeoutError, aiohttp.ClientError):
                continue
            if status == 200 and (now["version"] != version or not now["legal"]):
                return  # (the socket brings the game as it is now)

    async def _play_seat(self, session: aiohttp.ClientSession, seat: Seat) -> None:
        while not seat.over:
            seat.doing = "connecting"
            try:
                ws = await session.ws_connect(
                    self.socket_base + f"/ws/games/{seat.game}", heartbeat=None
                )
            except (TimeoutError, aiohttp.ClientError):
                seat.failed_attempts += 1
                await asyncio.sleep(0.1)
                continue
            seat.connections += 1
            code = "error"
            try:
                async with ws:
                    await ws.send_json({"token": seat.token})
                    seat.doing = "reading"
                    async for message in ws:
                        if message.type != aiohttp.WSMsgType.TEXT:
                            break
                        data = json.loads(message.data)
                        if data["type"] != "state":
                            continue
                        state = data["state"]
                        seat.final_version = max(seat.final_version, state["version"])
                        if state["status"] == "over":
                            seat.over = True
                            break
                        if state["legal"] and state["version"] not in seat.answered:
                            if seat.index >= self.games - self.held and (
                                state["version"] >= self.hold_at and not self.go.is_set()
                            ):
                                seat.doing = f"held at v{state['version']}"
                                await self.go.wait()
                            await self._move(session, seat, state)
                        seat.doing = f"reading after v{state['version']}"
                    code = str(ws.close_code)
            except (TimeoutError, aiohttp.ClientError) as exc:
                code = f"error:{type(exc).__name__}"
            if seat.over:
                break
            seat.closes.append(code)
            await asyncio.sleep(0 if code == "1012" else 0.1)

    async def run(self) -> dict[str, Any]:
        timeout = aiohttp.ClientTimeout(total=15)
        connector = aiohttp.TCPConnector(limit=200)
        async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:
            for index in range(self.games):
                self.seats.extend(await self._new_game(session, index))
            reporter = asyncio.create_task(self._report())
            listener = asyncio.create_task(self._listen())
            await asyncio.gather(*(self._play_seat(session, seat) for seat in self.seats))
            reporter.cancel()
            listener.cancel()
        return {
            "seats": [
                {
                    "game": s.game,
                    "index": s.index,
                    "seat": s.seat,
                    "closes": s.closes,
                    "connections": s.connections,
                    "failed_attempts": s.failed_attempts,
                    "over": s.over,
                    "final_version": s.final_version,
                    "errors": s.errors,
                    "acked": {str(v): a for v, a in s.acked.items()},
                    "unanswered": {str(v): a for v, a in s.unanswered.items()},
                }
                for s in self.seats
            ]
        }

    async def _listen(self) -> None:
        """The line ``go`` on the input lets the held games go on."""
        loop = asyncio.get_running_loop()
        while (await loop.run_in_executor(None, sys.stdin.readline)).strip() != "go":
            pass
        self.go.set()

    async def _report(self) -> None:
        while True:
            acked = sum(len(s.acked) for s in self.seats)
            done = sum(1 for s in self.seats if s.over)
            waiting = [
                {"game": s.game, "seat": s.seat, "version": s.final_version,
                 "connections": s.connections, "closes": s.closes[-3:], "doing": s.doing}
                for s in self.seats if not s.over
            ]  # fmt: skip
            line = {"acked": acked, "over": done, "at": time.time()}
            if len(waiting) <= 4:  # (the last ones: what they wait for, should they stall)
                line["waiting"] = waiting
            print(json.dumps(line), flush=True)
            await asyncio.sleep(0.25)


def probe() -> None:
    """``STATUS BODY`` for each URL read (``0 reason`` when nobody answers)."""
    import urllib.error
    import urllib.request

    for line in sys.stdin:
        url = line.strip()
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                status, body = answer.status, answer.read()
        except urllib.error.HTTPError as refused:
            status, body = refused.code, refused.read()
        except OSError as exc:
            status, body = 0, repr(exc).encode()
        print(status, json.dumps(body.decode("utf-8", "replace")), flush=True)


def main() -> None:
    if sys.argv[1] == "probe":
        probe()
        return
    _, base, games, held, hold_at = sys.argv[1:6]
    report = asyncio.run(Players(base, int(games), int(held), int(hold_at)).run())
    print(json.dumps({"report": report}), flush=True)


if __name__ == "__main__":
    main()
