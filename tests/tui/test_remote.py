"""``gotown play --connect``: the terminal at the same table as a browser seat, through a real
server (started here in a thread) and its public HTTP and WebSocket API."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from live_server import serving
from websockets.asyncio.client import connect

from gotown.engine import Action
from gotown.server.config import Settings
from gotown.tui import words
from gotown.tui.client import LinkError, Seat, take_seat
from gotown.tui.remote import RemoteApp
from gotown.tui.remote_plain import hint_now, play_remote_plain
from gotown.tui.session import LocalSession, Setup
from gotown.tui.widgets import ActionList

from .helpers import log_text, message_text, screen_text, wait_until

SIZE = (80, 24)


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("remote") / "gotown.sqlite3"
    settings = Settings(
        database_url=f"sqlite:///{db}", bot_delay=0.05, rate_limit_per_minute=0, allow_seed=True
    )
    with serving(settings) as url:
        yield url


def create_game(server_url: str, **options: Any) -> dict[str, Any]:
    """A game of two people's seats; the creator ("Web", a browser) takes seat 0."""
    body = {"seats": [{"kind": "human"}, {"kind": "human"}], "name": "Web", "seed": 5,
            "options": options}  # fmt: skip
    response = httpx2.post(f"{server_url}/api/games", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


class BrowserSeat:
    """The browser's seat, on the same WebSocket the page uses: every message it is sent."""

    def __init__(self, server_url: str, created: dict[str, Any]) -> None:
        self.url = server_url.replace("http://", "ws://") + f"/ws/games/{created['game_id']}"
        self.token = created["token"]
        self.messages: list[dict[str, Any]] = []

    async def run(self) -> None:
        async with connect(self.url) as ws:
            await ws.send(json.dumps({"token": self.token}))
            async for text in ws:
                self.messages.append(json.loads(text))

    def actions_seen(self) -> list[tuple[int, dict[str, Any]]]:
        return [
            (event["seat"], event["action"])
            for message in self.messages
            if message["type"] == "state" and message["state"]["view"]
            for event in message["state"]["view"]["events"]
            if event["type"] == "action"
        ]


def test_links_that_give_no_seat_are_refused_with_the_reason(server_url):
    with pytest.raises(LinkError, match="neither an invitation"):
        take_seat(f"{server_url}/w/abc", "T")
    with pytest.raises(LinkError, match="no seat token"):
        take_seat(f"{server_url}/g/abc", "T")
    with pytest.raises(LinkError, match="not an http"):
        take_seat("ftp://x/j/abc", "T")
    with pytest.raises(LinkError):
        take_seat(f"{server_url}/j/no-such-code", "T")


@pytest.mark.anyio
async def test_a_terminal_move_reaches_the_browser_seat_and_survives_a_reconnection(server_url):
    created = create_game(server_url, first_player=1)
    seat = await asyncio.to_thread(take_seat, created["invite_url"], "Term")
    assert seat.game_id == created["game_id"]
    browser = BrowserSeat(server_url, created)
    listening = asyncio.create_task(browser.run())
    app = RemoteApp(seat)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: app.view is not None and app.view.is_my_turn)
            await pilot.pause()
            text = screen_text(app)
            assert "Web" in text and "Term (you)" in text
            hand = app.view.hand or ()
            assert len(hand) == 6  # dealt 5, drew 1 (R4, R7b)

            # A refused move: the server's reason and rule, and nothing sent to the browser.
            missing = next(c for c in ("jackhammer", "wrecking-ball", "thief") if c not in hand)
            version = app.view.version
            app.query_one("#command").focus()
            await pilot.press(*f"{missing}@0", "enter")
            await wait_until(pilot, lambda: "Refused" in screen_text(app))
            assert f"you hold no {missing} card (R1" in screen_text(app)
            assert app.view.version == version

            # A move typed here reaches the browser's socket.
            await pilot.press(*"end", "enter")
            await wait_until(pilot, lambda: (1, {"type": "end-turn"}) in browser.actions_seen())
            await wait_until(pilot, lambda: app.view.active == 0)

            # The connection drops: the terminal comes back by itself, holding its events.
            old = app.socket
            await old.close()
            await wait_until(pilot, lambda: app.socket is not None and app.socket is not old)
            async with connect(browser.url) as ws:  # the browser ends its turn
                await ws.send(json.dumps({"token": browser.token}))
                first = json.loads(await ws.recv())["state"]
                await ws.send(json.dumps({"type": "action", "version": first["version"],
                                          "action": {"type": "end-turn"}}))  # fmt: skip
                await wait_until(pilot, lambda: app.view.active == 1)
            events = [e.to_json() for e in app.view.events]
            public = httpx2.get(
                f"{server_url}/api/games/{seat.game_id}/state",
                headers={"X-Seat-Token": seat.token},
            ).json()["view"]["events"]
            assert events == public  # no event lost or doubled across the reconnection
    finally:
        listening.cancel()


@pytest.mark.anyio
async def test_the_terminal_waits_in_the_lobby_then_plays_and_asks_the_server_for_a_hint(
    server_url,
):
    body = {"seats": [{"kind": "human"}] * 3, "name": "Web", "seed": 3,
            "options": {"first_player": 1}}  # fmt: skip
    created = httpx2.post(f"{server_url}/api/games", json=body).json()
    seat = await asyncio.to_thread(take_seat, created["invite_url"], "Term")
    app = RemoteApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "Waiting for players: 2 of 3" in screen_text(app))
        assert app.view is None
        code = created["invite_url"].rsplit("/", 1)[1]
        joined = httpx2.post(f"{server_url}/api/games/{created['game_id']}/join",
                             json={"code": code, "name": "Third"})  # fmt: skip
        assert joined.status_code == 200, joined.text
        await wait_until(pilot, lambda: app.view is not None and app.view.is_my_turn)
        await pilot.pause()
        assert "Third" in screen_text(app)
        await pilot.press("h")
        await wait_until(pilot, lambda: "The strong bot's choices" in screen_text(app))


@pytest.mark.anyio
async def test_a_seat_link_plays_a_game_to_its_end_and_the_rematch(server_url):
    """From the seat link the server gave, the terminal builds whenever it can against a
    random bot, to the end of a short game (R20); r then seats it at the rematch."""
    body = {"seats": [{"kind": "bot", "level": "random"}, {"kind": "human"}], "name": "Term",
            "seed": 11, "options": {"first_player": 1, "win_floors": 4}}  # fmt: skip
    created = httpx2.post(f"{server_url}/api/games", json=body).json()
    seat = await asyncio.to_thread(take_seat, created["play_url"], "ignored")
    assert (seat.game_id, seat.token) == (created["game_id"], created["token"])
    app = RemoteApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(300):
            await wait_until(pilot, lambda: app.view is not None and (
                app.view.over or app.view.is_my_turn))  # fmt: skip
            if app.view.over:
                break
            version = app.view.version
            builds = [a for a in app.legal if a.type in ("build", "steal")]
            move = str(builds[0]) if builds else "end"
            app.query_one("#command").focus()
            await pilot.press(*move, "enter")
            await wait_until(pilot, lambda version=version: app.view.version > version)
        assert app.view.over
        await pilot.pause()
        assert "Press r for a rematch" in screen_text(app)
        app.query_one("#actions").focus()
        await pilot.press("r")
        await wait_until(pilot, lambda: app.seat.game_id != seat.game_id and app.view is not None)
        assert not app.view.over and app.view.seat == 1
        assert app.view.version < 5  # the rematch's first moves, not the old game


@pytest.mark.anyio
async def test_plain_mode_at_a_server_table(server_url):
    """--connect --plain: the server's refusal with its rule, a move that reaches the other
    seat, that seat's move told back, and the end of the input leaves the table."""
    import io

    created = create_game(server_url, first_player=1)
    seat = await asyncio.to_thread(take_seat, created["invite_url"], "Term")
    out = io.StringIO()
    typed = io.StringIO("milkshake@1\nend\n")  # a milkshake for oneself: no such move (R18)
    playing = asyncio.create_task(play_remote_plain(seat, typed, out))
    browser = BrowserSeat(server_url, created)
    async with connect(browser.url) as ws:
        await ws.send(json.dumps({"token": browser.token}))
        async for text in ws:
            state = json.loads(text).get("state")
            if state and state["view"] and state["view"]["active"] == 0:
                await ws.send(json.dumps({"type": "action", "version": state["version"],
                                          "action": {"type": "end-turn"}}))  # fmt: skip
                break
        assert await asyncio.wait_for(playing, 30) == 1
    said = out.getvalue()
    assert "Refused: " in said and "(R18)" in said
    assert "You ended the turn." in said and "Web ended the turn." in said
    assert said.count("Your move: ") == 3  # refused, end, then the input ran out
    assert said.rstrip().endswith("No more input: the game stops unfinished.")


class CuttableRelay:
    """A TCP relay to the server whose connections a test can cut, as a network would."""

    def __init__(self, target: str) -> None:
        self.host, port = target.removeprefix("http://").split(":")
        self.port = int(port)
        self.links: list[asyncio.StreamWriter] = []

    async def start(self) -> str:
        self.server = await asyncio.start_server(self.relay, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(self.host, self.port)
        self.links += [writer, up_writer]

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                sink.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    def cut(self) -> None:
        for writer in self.links:
            writer.transport.abort()
        self.links.clear()


@pytest.mark.anyio
async def test_plain_mode_comes_back_when_the_connection_drops(server_url):
    import io

    created = create_game(server_url, first_player=1)
    joined = await asyncio.to_thread(take_seat, created["invite_url"], "Term")
    relay = CuttableRelay(server_url)
    seat = Seat(await relay.start(), joined.game_id, joined.token)
    out = io.StringIO()
    playing = asyncio.create_task(play_remote_plain(seat, io.StringIO("end\n"), out))
    browser = BrowserSeat(server_url, created)
    async with connect(browser.url) as ws:
        await ws.send(json.dumps({"token": browser.token}))
        async for text in ws:
            state = json.loads(text).get("state")
            if state and state["view"] and state["view"]["active"] == 0:
                break  # the terminal's end reached the browser
        relay.cut()
        for _ in range(200):
            if "Connection lost: trying again" in out.getvalue():
                break
            await asyncio.sleep(0.05)
        await ws.send(json.dumps({"type": "action", "version": state["version"],
                                  "action": {"type": "end-turn"}}))  # fmt: skip
        assert await asyncio.wait_for(playing, 30) == 1  # asked again; the input had ended
    said = out.getvalue()
    assert "Connection lost: trying again in 0.5 s..." in said
    assert "Web ended the turn." in said
    assert said.count("You ended the turn.") == 1  # the events held were not sent again
    assert said.count("Turn 2: ") == 1


@pytest.mark.anyio
async def test_the_keys_go_to_the_action_list_at_the_first_turn(server_url):
    """Up, Down, End and Enter choose and play an action from the first turn on, as at a table
    of one's own, with nothing typed or clicked before, wherever the keys were until then (in
    a real terminal, not on the list: the pilot's app gives it them as it starts)."""
    created = create_game(server_url, first_player=1)
    seat = await asyncio.to_thread(take_seat, created["invite_url"], "Term")
    browser = BrowserSeat(server_url, created)
    listening = asyncio.create_task(browser.run())
    app = RemoteApp(seat)
    try:
        async with app.run_test(size=SIZE) as pilot:
            app.set_focus(None)  # before the server's first state
            await wait_until(pilot, lambda: app.view is not None and app.view.is_my_turn)
            await pilot.pause()
            assert app.focused is app.query_one(ActionList)
            await pilot.press("down", "end", "enter")  # End: the last offered, end the turn
            await wait_until(pilot, lambda: (1, {"type": "end-turn"}) in browser.actions_seen())
    finally:
        listening.cancel()


def stalemate_moves() -> list[tuple[int, Action]]:
    """The moves of a game that ends stuck (R20b), each with its seat: seed 102, seat 0 playing
    its first legal action each time and easy at seat 1 (the game of test_plain's)."""
    session = LocalSession(Setup(seed=102, bots=("easy",)))
    moves = []
    while not session.is_over:
        seat = session.active
        action = session.bot_choice(seat) if seat else session.legal(0)[0]
        moves.append((seat, action))
        session.play(seat, action)
    assert session.game.outcome() == (None, "stalemate")
    return moves


async def play_browser_moves(server_url: str, created: dict[str, Any],
                             moves: list[tuple[int, Action]]) -> None:  # fmt: skip
    """Seat 0's moves, each sent on the browser's socket once the game has come to it."""
    browser = BrowserSeat(server_url, created)
    done = 0  # the actions played so far (each state holds the events not sent before)
    sent = -1  # the version the last move was made on (a state may come twice at one)
    async with connect(browser.url) as ws:
        await ws.send(json.dumps({"token": browser.token}))
        async for text in ws:
            state = json.loads(text).get("state")
            if not state or not state["view"]:
                continue
            done += sum(e["type"] == "action" for e in state["view"]["events"])
            if state["view"]["over"]:
                return
            mine = done < len(moves) and moves[done][0] == 0 and state["view"]["active"] == 0
            if mine and state["version"] != sent:
                sent, action = state["version"], moves[done][1].to_json()
                await ws.send(json.dumps({"type": "action", "version": state["version"],
                                          "action": action}))  # fmt: skip


def stalemate_game(server_url: str) -> dict[str, Any]:
    body = {"seats": [{"kind": "human"}, {"kind": "human"}], "name": "Web", "seed": 102}
    response = httpx2.post(f"{server_url}/api/games", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def reached(app: RemoteApp, index: int) -> bool:
    """Whether it is the terminal's turn after ``index`` actions of the game."""
    view = app.view
    if view is None or not view.is_my_turn:
        return False
    return sum(e.type == "action" for e in view.events) == index


STUCK = (
    "The game is stuck: nobody can play a card or draw one any more, so it ends with no winner "
    "(R20b)."
)


@pytest.mark.anyio
async def test_r20b_a_stalemate_at_a_server_table_is_said_with_every_hand(server_url):
    """The terminal (seat 1) and a browser (seat 0) play a game to a stalemate: the terminal
    says why nobody won, names R20b, and lays every hand down (R22)."""
    moves = stalemate_moves()
    created = stalemate_game(server_url)
    seat = await asyncio.to_thread(take_seat, created["invite_url"], "Term")
    browser = asyncio.create_task(play_browser_moves(server_url, created, moves))
    app = RemoteApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        for index, (who, action) in enumerate(moves):
            if who != 1:
                continue
            await wait_until(pilot, lambda index=index: reached(app, index))
            app.query_one("#command").focus()
            await pilot.press(*str(action), "enter")
        await wait_until(pilot, lambda: app.view is not None and app.view.over)
        await pilot.pause()
        await browser
        assert app.view.reason == "stalemate"
        assert message_text(app) == f"{STUCK} Press r for a rematch."
        assert "GoTown — Stuck: no winner, R20b" in screen_text(app)
        hands = app.view.hands
        assert hands is not None
        laid = "; ".join(
            f"{name}: {', '.join(words.card_name(c) for c in hand)}"
            for name, hand in zip(("Web", "Term"), hands, strict=True)
        )
        assert log_text(app).endswith(f"{STUCK} Hands at the end: {laid}.")


@pytest.mark.anyio
async def test_r20b_a_stalemate_at_a_server_table_line_by_line(server_url):
    import io

    moves = stalemate_moves()
    created = stalemate_game(server_url)
    seat = await asyncio.to_thread(take_seat, created["invite_url"], "Term")
    browser = asyncio.create_task(play_browser_moves(server_url, created, moves))
    typed = io.StringIO("".join(f"{action}\n" for who, action in moves if who == 1))
    out = io.StringIO()
    assert await asyncio.wait_for(play_remote_plain(seat, typed, out), 60) == 0
    await browser
    said = out.getvalue().splitlines()
    assert said[-1] == STUCK and said[-2].startswith("Hands at the end: Web: ")
    assert said[-3].startswith("Floors from 0.")  # the table, then the hands, then the end
    assert out.getvalue().count("(R20b)") == 1


@pytest.mark.anyio
async def test_plain_mode_s_hint_is_the_server_s_typed_answer(server_url):
    created = create_game(server_url, first_player=1)
    seat = await asyncio.to_thread(take_seat, created["invite_url"], "Term")
    found = await asyncio.to_thread(hint_now, seat)
    assert found and all(isinstance(a, Action) and 0 <= p <= 1 for a, p in found)
    with pytest.raises(LinkError):  # the server's refusal, in its words
        await asyncio.to_thread(hint_now, type(seat)(seat.base, seat.game_id, "wrong"))
