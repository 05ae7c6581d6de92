"""Found in review: work, games, messages and memory that grew without bound.

- a replay and the chances took time quadratic in the game's length;
- a table of bots only could play for ever, and any turn limit was accepted;
- a spectator's socket opening or closing pushed a state to every socket of the game;
- a game once loaded stayed in memory for ever (unless it ended and its last socket closed).

Work is measured by counting (events converted, store loads, messages), never by time.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gotown.engine import Action, Game, Options
from gotown.server import schemas
from gotown.server.service import BOTS_ONLY_TURN_LIMIT, GameService, _last_turn_end
from gotown.server.settings import Settings
from gotown.server.storage import StoredGame, StoredSeat

from .conftest import (
    REDIS_URL,
    auth,
    bots_idle,
    new_game,
    running,
    slow_bots,
    state,
    wait_until,
)

# --- 1. replays and chances in linear time ------------------------------------------------------

THIEF_PLAYERS, THIEF_SEED = 4, 2


def _thief_game() -> Game:
    """A complete 4-player game that plays thieves whenever it can: cards stolen, seen by the
    thief and its victim only, and the draw pile reshuffled twice."""
    game = Game.new(players=THIEF_PLAYERS, seed=THIEF_SEED, options=Options())
    rng = random.Random(THIEF_SEED)
    while not game.is_over:
        legal = game.legal_actions()
        thieves = [a for a in legal if a.type in ("thief", "super-thief")]
        builds = [a for a in legal if a.type in ("build", "steal")]
        others = [a for a in legal if a.type != "end-turn"]
        if thieves and rng.random() < 0.7:
            action = rng.choice(thieves)
        elif builds:
            action = rng.choice(builds)
        elif others and rng.random() < 0.5:
            action = rng.choice(others)
        else:
            action = Action.end_turn()
        game.apply(action)
    return game


def _stored(
    actions: list[dict[str, Any]],
    players: int = THIEF_PLAYERS,
    seed: int = THIEF_SEED,
    options: Options | None = None,
) -> StoredGame:
    return StoredGame(
        id="g",
        players=players,
        seed=seed,
        options=(options or Options()).to_json(),
        language="en",
        invite_code="c",
        status="over",
        seats=[StoredSeat(i, "human", None, f"P{i}", None) for i in range(players)],
        actions=actions,
    )


def _record(game: Game) -> StoredGame:
    return _stored([a.to_json() for a in game.actions])


@pytest.fixture(scope="module")
def thief_game() -> Game:
    game = _thief_game()
    kinds = [event.type for event in game.events(None)]
    # The premise: a finished game whose views differ by seat (stolen cards) and reshuffles.
    assert (outcome := game.outcome()) is not None and outcome.winner is not None
    assert kinds.count("stolen") >= 5 and kinds.count("reshuffle") >= 2
    return game


def _frames_the_old_way(stored: StoredGame, seat: int | None) -> schemas.ReplayOut:
    """The reference: a whole view after every action, keeping only the new events."""
    game = Game.new(
        players=stored.players, seed=stored.seed, options=Options.from_json(stored.options)
    )
    frames: list[schemas.ReplayFrame] = []
    seen = 0

    def frame(actor: int | None, action: dict[str, Any] | None) -> None:
        nonlocal seen
        view = (game.public_view() if seat is None else game.view(seat)).to_json()
        events = view["events"]
        view["events"] = events[seen:]
        seen = len(events)
        frames.append(
            schemas.ReplayFrame(version=game.version, seat=actor, action=action, view=view)
        )

    frame(None, None)
    for data in stored.actions:
        actor = game.active
        action = Action.from_json(data)
        game.apply(action)
        frame(actor, action.to_json())
    return schemas.ReplayOut(
        game_id=stored.id,
        seat=seat,
        players=stored.players,
        names=[s.name for s in stored.seats],
        frames=frames,
    )


def _last_turn_end_the_old_way(
    stored: StoredGame, seat: int
) -> tuple[int, dict[str, Any], Action] | None:
    game = Game.new(
        players=stored.players, seed=stored.seed, options=Options.from_json(stored.options)
    )
    found: tuple[int, dict[str, Any], Action] | None = None
    for data in stored.actions:
        action = Action.from_json(data)
        if game.active == seat and action.type == "end-turn":
            found = (game.version, game.view(seat).to_json(), action)
        game.apply(action)
    return found


class EventCounter:
    """Wraps ``Game.events``: how many events were converted into a seat's eyes."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.converted = 0
        original = Game.events

        def counting(game: Game, seat: int | None, start: int = 0) -> list[Any]:
            events = original(game, seat, start)
            self.converted += len(events)
            return events

        monkeypatch.setattr(Game, "events", counting)


@pytest.mark.parametrize("seat", [None, 0, 1, 2, 3])
def test_replay_frames_are_exactly_those_of_a_whole_view_after_every_action(
    thief_game: Game, seat: int | None
) -> None:
    stored = _record(thief_game)
    new = GameService._replay_frames(stored, seat)
    assert new.model_dump_json() == _frames_the_old_way(stored, seat).model_dump_json()
    assert len(new.frames) == thief_game.version + 1


@pytest.mark.parametrize("seat", [None, 1])
def test_a_replay_converts_each_event_once(
    thief_game: Game, seat: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = _record(thief_game)
    counter = EventCounter(monkeypatch)
    GameService._replay_frames(stored, seat)
    # A whole view per frame converted some 15,000 events for this game's 262.
    assert 0 < counter.converted <= 2 * thief_game.event_count


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_the_last_end_of_turn_is_as_before_and_found_in_linear_work(
    thief_game: Game, seat: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = _record(thief_game)
    expected = _last_turn_end_the_old_way(stored, seat)
    assert expected is not None
    counter = EventCounter(monkeypatch)
    found = _last_turn_end(stored, stored.actions, seat)
    assert found is not None
    version, view, action = found
    assert (version, view.to_json(), action) == expected
    assert 0 < counter.converted <= 2 * thief_game.event_count


def test_no_end_of_turn_yet_is_none() -> None:
    stored = _stored([], players=2, seed=3, options=Options(first_player=0))
    assert _last_turn_end(stored, [], 0) is None
    assert _last_turn_end(stored, [Action.end_turn().to_json()], 1) is None
    assert _last_turn_end(stored, [Action.end_turn().to_json()], 0) is not None


def test_the_replay_route_converts_each_event_once(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    gid, tokens = new_game(client, ["human", "bot"], seed=11, options={"first_player": 1})
    from .conftest import play_to_end

    play_to_end(client, gid, tokens, seed=4)
    game = client.app.state.service._games[gid].game  # type: ignore[attr-defined]
    counter = EventCounter(monkeypatch)
    for token in (None, tokens[0]):
        r = client.get(f"/api/games/{gid}/replay", headers=auth(token))
        assert r.status_code == 200, r.text
        assert len(r.json()["frames"]) == game.version + 1
    assert counter.converted <= 2 * 2 * game.event_count


def test_a_finished_game_s_replay_is_built_once_per_seat(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    gid, tokens = new_game(client, ["human", "bot"], seed=12, options={"first_player": 1})
    from .conftest import play_to_end

    play_to_end(client, gid, tokens, seed=5)
    built: list[int | None] = []
    frames = GameService._replay_frames

    def counted(stored: Any, seat: int | None) -> Any:
        built.append(seat)
        return frames(stored, seat)

    monkeypatch.setattr(GameService, "_replay_frames", staticmethod(counted))
    answers = {}
    for token in (None, tokens[0], None, tokens[0], None):
        r = client.get(f"/api/games/{gid}/replay", headers=auth(token))
        assert r.status_code == 200, r.text
        assert answers.setdefault(token, r.json()) == r.json()
    assert sorted(built, key=str) == [0, None]  # once for the spectator, once for seat 0
    assert answers[None]["seat"] is None and answers[tokens[0]]["seat"] == 0
    assert answers[None]["frames"] != answers[tokens[0]]["frames"]  # seat 0 sees its hand


# --- 2. turn limits: a bound, and a limit for tables of bots only -------------------------------


def test_the_meta_and_openapi_advertise_the_turn_limit_bound(client: TestClient) -> None:
    meta = client.get("/api/meta").json()["options"]["turn_limit"]
    assert meta["minimum"] == 1 and meta["maximum"] == schemas.MAX_TURN_LIMIT == 10_000
    assert meta["nullable"] is True and meta["default"] is None
    assert meta["bots_only_default"] == BOTS_ONLY_TURN_LIMIT == 300
    openapi = client.get("/openapi.json").json()["components"]["schemas"]
    assert {"maximum", "bots_only_default"} <= set(openapi["OptionOut"]["properties"])
    assert "10000" in openapi["CreateGameIn"]["properties"]["options"]["description"]


@pytest.mark.parametrize("limit", [schemas.MAX_TURN_LIMIT + 1, 10**30])
def test_a_turn_limit_beyond_the_server_s_bound_is_refused(client: TestClient, limit: int) -> None:
    for kinds in (["human", "human"], ["bot", "bot"]):
        seats = [{"kind": k} for k in kinds]
        r = client.post("/api/games", json={"seats": seats, "options": {"turn_limit": limit}})
        assert r.status_code == 422, r.text
        error = r.json()["error"]
        assert error["code"] == "invalid-options"
        assert "turn_limit" in error["message"] and "10000" in error["message"]


def _options(client: TestClient, kinds: list[str], options: dict[str, Any]) -> dict[str, Any]:
    seats = [{"kind": k, "level": "random"} if k == "bot" else {"kind": "human"} for k in kinds]
    r = client.post("/api/games", json={"seats": seats, "options": options, "name": "Anna"})
    assert r.status_code == 201, r.text
    lobby = client.get(f"/api/games/{r.json()['game_id']}/lobby").json()
    options_now: dict[str, Any] = lobby["options"]
    return options_now


def test_the_bound_itself_is_accepted(client: TestClient) -> None:
    limit = schemas.MAX_TURN_LIMIT
    assert _options(client, ["human", "bot"], {"turn_limit": limit})["turn_limit"] == limit


def test_a_table_of_bots_only_gets_a_turn_limit_and_people_the_ceiling(client: TestClient) -> None:
    assert _options(client, ["bot", "bot"], {})["turn_limit"] == BOTS_ONLY_TURN_LIMIT
    assert _options(client, ["bot"] * 4, {"turn_limit": None})["turn_limit"] == 300
    assert _options(client, ["bot", "bot", "bot"], {"turn_limit": 40})["turn_limit"] == 40
    # A person at the table: the server's ceiling unless asked for less (R23).
    ceiling = schemas.MAX_TURN_LIMIT
    assert _options(client, ["human", "bot"], {})["turn_limit"] == ceiling
    assert _options(client, ["human", "human"], {"turn_limit": None})["turn_limit"] == ceiling
    assert _options(client, ["human", "bot", "bot"], {"turn_limit": 12})["turn_limit"] == 12


def test_a_table_of_bots_only_plays_to_an_end(client: TestClient) -> None:
    gid, _tokens = new_game(client, ["bot", "bot", "bot"], seed=21, options={})
    final = wait_until(client, gid, None, lambda st: st["status"] == "over")
    assert final["lobby"]["options"]["turn_limit"] == BOTS_ONLY_TURN_LIMIT
    assert final["view"]["turn"] <= BOTS_ONLY_TURN_LIMIT


def test_bots_left_alone_in_a_deadlock_stand_still(client: TestClient) -> None:
    # Seed 835 (4 floors): two medium bots reach, within 10 actions, two hands of 8 cards that
    # can do nothing (R7b, R21), at seat 0's turn. A person who hands their seat to a bot
    # leaves a table of bots with the ceiling of a game of people (or none, for a game stored
    # before the ceiling): it must stand still there, not store ten thousand ended turns.
    gid, tokens = new_game(client, ["bot", "human"], seed=835, level="medium")
    me = tokens[1]
    r = client.post(f"/api/games/{gid}/seats/1/bot", headers=auth(me), json={"level": "medium"})
    assert r.status_code == 200, r.text
    live = client.app.state.service._games[gid]  # type: ignore[attr-defined]
    assert bots_idle(live), "the bots went on ending turns in a deadlock"
    st = state(client, gid, me)
    assert st["status"] == "playing"
    assert st["lobby"]["options"]["turn_limit"] == schemas.MAX_TURN_LIMIT
    assert st["view"]["hand_sizes"] == [8, 8] and live.game.is_deadlocked()
    assert st["view"]["active"] == 0
    time.sleep(0.2)
    assert state(client, gid, me)["version"] == st["version"]
    # With a person back at the table the bot plays on (its turn first), and answers every
    # turn the person ends.
    assert client.post(f"/api/games/{gid}/reclaim", headers=auth(me)).status_code == 204
    st = wait_until(client, gid, me, lambda now, v=st["version"]: now["version"] == v + 1)
    for _ in range(2):
        assert st["view"]["active"] == 1 and st["status"] == "playing"
        r = client.post(
            f"/api/games/{gid}/actions",
            json={"version": st["version"], "action": {"type": "end-turn"}},
            headers=auth(me),
        )
        assert r.status_code == 200, r.text
        st = wait_until(client, gid, me, lambda now, v=st["version"]: now["version"] == v + 2)


# --- 3. spectators come and go without a word to the table --------------------------------------


def _settled(service: Any, live: Any, sockets: int) -> None:
    """Wait (bounded by count) until the server handled every socket that closed."""
    for _ in range(2000):
        if live.sockets == sockets and not service._background:
            return
        time.sleep(0.005)
    raise AssertionError(f"{live.sockets} sockets open, {len(service._background)} tasks left")


@pytest.mark.parametrize("broadcast", ["memory", "redis"])
def test_spectators_coming_and_going_push_nothing_to_the_players(
    settings: Settings, broadcast: str
) -> None:
    if broadcast == "redis":  # (no heartbeat during the test: it may tell of presence too)
        settings = settings.with_(broadcast_url=REDIS_URL, presence_ttl=600)
    with running(settings) as client:
        gid, tokens = new_game(client, ["human", "human"], seed=41, options={"first_player": 0})
        service = client.app.state.service  # type: ignore[attr-defined]
        live = service._games[gid]
        with client.websocket_connect(f"/ws/games/{gid}") as player:
            player.send_json({"token": tokens[1]})
            first = player.receive_json()
            assert first["type"] == "state" and first["state"]["version"] == 0
            for _ in range(20):
                with client.websocket_connect(f"/ws/games/{gid}") as watcher:
                    watcher.send_json({"token": None})
                    assert watcher.receive_json()["state"]["seat"] is None
            _settled(service, live, 1)
            # A change now: whatever was pushed to the player before it arrives first.
            r = client.post(
                f"/api/games/{gid}/actions",
                json={"version": 0, "action": {"type": "end-turn"}},
                headers=auth(tokens[0]),
            )
            assert r.status_code == 200, r.text
            received = []
            for _ in range(100):
                message = player.receive_json()
                received.append(message)
                if message["type"] == "state" and message["state"]["version"] == 1:
                    break
            # Only the change itself (there were 40 states: one per watcher opening or closing).
            assert [m["type"] for m in received] == ["state"]


def test_a_player_coming_and_going_is_still_shown_to_the_others(client: TestClient) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=42, options={"first_player": 0})
    service = client.app.state.service  # type: ignore[attr-defined]
    live = service._games[gid]
    with client.websocket_connect(f"/ws/games/{gid}") as player:
        player.send_json({"token": tokens[1]})
        assert player.receive_json()["state"]["lobby"]["seats"][0]["connected"] is False
        with client.websocket_connect(f"/ws/games/{gid}") as other:
            other.send_json({"token": tokens[0]})
            other.receive_json()
            pushed = player.receive_json()["state"]
            assert [s["connected"] for s in pushed["lobby"]["seats"]] == [True, True]
        _settled(service, live, 1)
        pushed = player.receive_json()["state"]
        assert [s["connected"] for s in pushed["lobby"]["seats"]] == [False, True]


# --- 4. games nobody uses leave memory ----------------------------------------------------------


class LoadCounter:
    """Wraps the store's ``load_game``: how many times each game was read from the database."""

    def __init__(self, service: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.loads: list[str] = []
        original = service.store.load_game

        def counting(game_id: str) -> Any:
            self.loads.append(game_id)
            return original(game_id)

        monkeypatch.setattr(service.store, "load_game", counting)


def _everything_seen(client: TestClient, gid: str, tokens: dict[int, str]) -> list[Any]:
    seen: list[Any] = []
    for token in (None, *tokens.values()):
        r = client.get(f"/api/games/{gid}/state", headers=auth(token))
        assert r.status_code == 200, r.text
        seen.append(r.json())
    return seen


def _evict(client: TestClient, service: Any) -> list[str]:
    """Age every game held in memory past the idle time, then sweep once (in the server's
    loop, as the sweeper does)."""
    for live in service._games.values():
        live.used -= service.settings.idle_game_seconds + 1
    evicted: list[str] = client.portal.call(service.evict_idle)  # type: ignore[union-attr]
    return evicted


def test_an_idle_game_leaves_memory_and_comes_back_unchanged(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = client.app.state.service  # type: ignore[attr-defined]
    assert service.settings.idle_game_seconds == 600  # the default
    gid, tokens = new_game(client, ["human", "human"], seed=51, options={"first_player": 0})
    for seat in (0, 1):
        r = client.post(
            f"/api/games/{gid}/actions",
            json={"version": seat, "action": {"type": "end-turn"}},
            headers=auth(tokens[seat]),
        )
        assert r.status_code == 200, r.text
    before = _everything_seen(client, gid, tokens)
    game_before = service._games[gid].game
    # Used a moment ago: it stays.
    assert client.portal.call(service.evict_idle) == []  # type: ignore[union-attr]
    assert gid in service._games
    counter = LoadCounter(service, monkeypatch)
    assert _evict(client, service) == [gid]
    assert gid not in service._games and counter.loads == []
    # The next request reads it from the database, once, and finds it as it was.
    assert _everything_seen(client, gid, tokens) == before
    assert counter.loads == [gid]
    assert service._games[gid].game == game_before
    # And it plays on.
    r = client.post(
        f"/api/games/{gid}/actions",
        json={"version": 2, "action": {"type": "end-turn"}},
        headers=auth(tokens[0]),
    )
    assert r.status_code == 200 and r.json()["version"] == 3, r.text
    assert counter.loads == [gid]


def test_a_game_with_an_open_socket_stays_in_memory(client: TestClient) -> None:
    service = client.app.state.service  # type: ignore[attr-defined]
    gid, tokens = new_game(client, ["human", "human"], seed=52)
    other, _ = new_game(client, ["human", "human"], seed=53)
    for token in (tokens[0], None):  # a seat's socket, and a spectator's
        with client.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.send_json({"token": token})
            assert ws.receive_json()["type"] == "state"
            assert client.get(f"/api/games/{other}/lobby").status_code == 200  # (loaded)
            assert _evict(client, service) == [other]  # an idle game beside it goes
            assert gid in service._games
        _settled(service, service._games[gid], 0)
    # Its last socket closed just now: it stays for the idle time from then on.
    assert client.portal.call(service.evict_idle) == []  # type: ignore[union-attr]
    assert _evict(client, service) == [gid]


def test_a_game_whose_bot_is_playing_stays_in_memory(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = slow_bots(monkeypatch)
    service = client.app.state.service  # type: ignore[attr-defined]
    gid, tokens = new_game(client, ["human", "bot"], seed=54, options={"first_player": 1})
    assert bot.started.wait(30)  # the bot thinks (its task runs)
    assert _evict(client, service) == []
    assert gid in service._games
    bot.release.set()
    st = wait_until(client, gid, tokens[0], lambda st: st["view"]["active"] == 0)
    assert st["version"] == 1
    assert _evict(client, service) == [gid]


def test_idle_games_are_swept_by_the_server_itself(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running(settings.with_(idle_game_seconds=0.2)) as client:
        service = client.app.state.service  # type: ignore[attr-defined]
        gid, tokens = new_game(client, ["human", "human"], seed=55)
        before = _everything_seen(client, gid, tokens)
        for _ in range(2000):  # bounded by count: the sweeper runs every 0.1 s
            if gid not in service._games:
                break
            time.sleep(0.005)
        assert gid not in service._games
        counter = LoadCounter(service, monkeypatch)
        assert _everything_seen(client, gid, tokens)[0] == before[0]
        assert counter.loads[:1] == [gid]


def test_the_idle_time_is_a_setting() -> None:
    assert Settings.from_env({"GOTOWN_IDLE_GAME_SECONDS": "90"}).idle_game_seconds == 90
    assert Settings.from_env({}).idle_game_seconds == 600
    with pytest.raises(ValueError, match="idle_game_seconds"):
        Settings(idle_game_seconds=0)
