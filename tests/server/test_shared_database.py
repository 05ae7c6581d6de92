"""Several processes sharing one database and one Redis: a process that served a game earlier
(and so holds it in memory) answers and acts on the database's facts, not on its old copy, even
when it holds no socket of the game or when a notice is lost."""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest
import redis
from fastapi.testclient import TestClient

from gotown.server.config import Settings
from gotown.server.pubsub import Notice
from gotown.server.redis_changes import changes_key
from gotown.server.services import GameService
from gotown.server.services.tokens import hash_token

from .helpers import (
    REDIS_URL,
    auth,
    bots_idle,
    choose,
    invite_code,
    new_game,
    play_one,
    running,
    slow_bots,
    state,
)
from .services.test_presence import _hand_over, _refused, _state_where


def _service(client: TestClient) -> GameService:
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    return service


def _lose_notices(monkeypatch: pytest.MonkeyPatch, client: TestClient) -> None:
    """Every notice this process publishes is lost (as in a Redis blip): nobody hears of it."""

    async def lost(_notice: Notice) -> None:
        return None

    monkeypatch.setattr(_service(client).pubsub, "publish", lost)


def _end_turn(client: TestClient, game_id: str, token: str, version: int) -> Any:
    return client.post(
        f"/api/games/{game_id}/actions",
        json={"version": version, "action": {"type": "end-turn"}},
        headers=auth(token),
    )


def _lobby(client: TestClient, game_id: str) -> dict[str, Any]:
    r = client.get(f"/api/games/{game_id}/lobby")
    assert r.status_code == 200, r.text
    lobby: dict[str, Any] = r.json()
    return lobby


def test_a_process_that_read_a_game_follows_actions_made_on_another(settings: Settings) -> None:
    shared = settings.with_(broadcast_url=REDIS_URL)
    with running(shared) as one, running(shared) as two:
        gid, tokens = new_game(one, ["human", "human"], seed=51)
        # One serves the game over HTTP (it now holds it in memory) and holds no socket of it.
        assert state(one, gid, tokens[0])["version"] == 0
        assert _lobby(one, gid)["status"] == "playing"
        rng = random.Random(5)
        for _ in range(3):
            version = play_one(two, gid, tokens, rng)
        assert version == 3
        # One answers with the other's changes...
        seen = state(one, gid)
        assert seen["version"] == 3
        assert seen["view"] == state(two, gid)["view"]
        for seat in (0, 1):
            assert state(one, gid, tokens[seat])["view"] == state(two, gid, tokens[seat])["view"]
        # ...and accepts an action made on the version it showed (no "stale-version").
        assert play_one(one, gid, tokens, rng) == 4
        assert state(two, gid)["version"] == 4
        # Back and forth: each process takes the other's last move into account.
        assert play_one(two, gid, tokens, rng) == 5
        assert play_one(one, gid, tokens, rng) == 6


def test_a_lost_notice_does_not_make_a_current_version_stale(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A heartbeat so slow that it cannot be what brings one up to date here.
    shared = settings.with_(broadcast_url=REDIS_URL, presence_ttl=600)
    with running(shared) as one, running(shared) as two:
        gid, tokens = new_game(one, ["human", "human"], seed=52)
        with one.websocket_connect(f"/ws/games/{gid}") as ws:
            # One holds a socket, so it listens to the game's notices; two's are lost.
            ws.send_json({"token": None})
            assert _state_where(ws)["version"] == 0
            _lose_notices(monkeypatch, two)
            rng = random.Random(6)
            assert play_one(two, gid, tokens, rng) == 1
            assert play_one(two, gid, tokens, rng) == 2
            assert state(one, gid)["version"] == 2
            # The request that found the change also told one's sockets.
            pushed = _state_where(ws, lambda st: st["version"] == 2)
            assert pushed["view"] == state(two, gid, events_from=pushed["events_from"])["view"]
            assert play_one(one, gid, tokens, rng) == 3
            assert state(two, gid)["version"] == 3
            # An action whose version one has never seen (it was played on two, unheard of):
            # accepted, not refused as stale.
            assert play_one(two, gid, tokens, rng) == 4
            active = state(two, gid)["view"]["active"]
            mine = state(two, gid, tokens[active])
            r = one.post(
                f"/api/games/{gid}/actions",
                json={"version": 4, "action": choose(mine["legal"], rng)},
                headers=auth(tokens[active]),
            )
            assert r.status_code == 200, r.text
            assert r.json()["version"] == 5


def test_sockets_catch_up_with_a_change_nobody_announced(settings: Settings) -> None:
    # A quick heartbeat: it checks the database for what no notice announced.
    shared = settings.with_(broadcast_url=REDIS_URL, presence_ttl=0.6)
    with running(shared) as one, running(shared) as two:
        gid, tokens = new_game(one, ["human", "human"], seed=53)
        with one.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.send_json({"token": tokens[0]})
            first = _state_where(ws)
            active = first["view"]["active"]
            # Two counts the change, stores the action and dies before it publishes anything.
            with redis.Redis.from_url(REDIS_URL) as counts:
                counts.incr(changes_key(gid))
            _service(two).store.append_action(gid, 0, active, {"type": "end-turn"})
            pushed = _state_where(ws, lambda st: st["version"] == 1)
            assert pushed["view"]["active"] == 1 - active
            assert (
                pushed["view"]
                == state(two, gid, tokens[0], events_from=pushed["events_from"])["view"]
            )
            # One accepts the next action, made on the version its socket showed.
            r = one.post(
                f"/api/games/{gid}/actions",
                json={"version": 1, "action": {"type": "end-turn"}},
                headers=auth(tokens[1 - active]),
            )
            assert r.status_code == 200, r.text
            assert _state_where(ws, lambda st: st["version"] == 2)["view"]["active"] == active


def test_seats_given_away_on_another_process_are_seen_and_kept(settings: Settings) -> None:
    shared = settings.with_(broadcast_url=REDIS_URL)
    with running(shared) as one, running(shared) as two:
        r = one.post(
            "/api/games",
            json={
                "seats": [{"kind": "human"}] * 3,
                "name": "Anna",
                "seed": 54,
                "options": {"win_floors": 4, "first_player": 0},
            },
        )
        assert r.status_code == 201, r.text
        created = r.json()
        gid, anna, code = created["game_id"], created["token"], invite_code(created)
        before = _lobby(one, gid)
        assert [s["taken"] for s in before["seats"]] == [True, False, False]
        # On two, Anna hands the third seat to a bot.
        assert _hand_over(two, gid, anna, 2).status_code == 200
        seats = _lobby(one, gid)["seats"]
        assert seats[2]["kind"] == "bot" and seats[2]["taken"]
        # One refuses a person the seat two gave away, with the usual refusal.
        r = one.post(f"/api/games/{gid}/join", json={"code": code, "name": "Cleo", "seat": 2})
        _refused(r, 409, "seat-taken")
        assert _lobby(two, gid)["seats"][2]["kind"] == "bot"
        # Bob takes the last free seat on one: every seat is filled, so the game starts.
        r = one.post(f"/api/games/{gid}/join", json={"code": code, "name": "Bob", "seat": 1})
        assert r.status_code == 200, r.text
        bob = r.json()["token"]
        assert state(one, gid, bob)["status"] == "playing"
        assert state(two, gid, bob)["status"] == "playing"
        assert state(two, gid, anna)["legal"]  # Anna (first) can play, on either process
        r = two.post(f"/api/games/{gid}/join", json={"code": code, "name": "Dan"})
        _refused(r, 409, "no-free-seat")


def test_a_seat_joined_on_another_process_is_not_handed_to_a_bot(settings: Settings) -> None:
    # absent_seconds=0: only Bob's open socket may refuse the hand-over.
    shared = settings.with_(broadcast_url=REDIS_URL, absent_seconds=0)
    with running(shared) as one, running(shared) as two:
        r = one.post(
            "/api/games", json={"seats": [{"kind": "human"}] * 2, "name": "Anna", "seed": 55}
        )
        assert r.status_code == 201, r.text
        created = r.json()
        gid, anna, code = created["game_id"], created["token"], invite_code(created)
        assert [s["taken"] for s in _lobby(one, gid)["seats"]] == [True, False]
        # Bob joins on two and opens his socket there.
        r = two.post(f"/api/games/{gid}/join", json={"code": code, "name": "Bob", "seat": 1})
        assert r.status_code == 200, r.text
        bob = r.json()["token"]
        with two.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.send_json({"token": bob})
            _state_where(ws)
            lobby = _lobby(one, gid)
            assert lobby["status"] == "playing"
            assert lobby["seats"][1] == {
                "seat": 1, "kind": "human", "level": None, "name": "Bob", "taken": True,
                "connected": True, "handover_in": None, "missed": 0, "standin": False,
            }  # fmt: skip
            # One knows Bob's token, and does not give his seat away while he is connected.
            assert state(one, gid, bob)["seat"] == 1
            _refused(_hand_over(one, gid, anna, 1), 409, "seat-present", "is connected")
            r = one.post(f"/api/games/{gid}/join", json={"code": code, "name": "Cleo", "seat": 1})
            _refused(r, 409, "no-free-seat")
            seat = state(two, gid, bob)["lobby"]["seats"][1]
            assert (seat["kind"], seat["name"]) == ("human", "Bob")


def test_a_seat_handed_to_a_bot_on_another_process_is_a_bot_s_on_every_process(
    settings: Settings,
) -> None:
    # The bot thinks long enough that it has not moved when Anna tries to.
    shared = settings.with_(broadcast_url=REDIS_URL, bot_delay=60)
    with running(shared) as one, running(shared) as two:
        gid, tokens = new_game(one, ["human", "human"], seed=56, options={"first_player": 0})
        assert state(one, gid, tokens[0])["legal"]
        # Anna hands her own seat to a bot on two; on one she may not play it any more.
        assert _hand_over(two, gid, tokens[0], 0).status_code == 200
        assert state(one, gid, tokens[0])["legal"] == []
        r = _end_turn(one, gid, tokens[0], 0)
        _refused(r, 409, "seat-is-bot")
        # She takes it back on one, and plays there.
        assert one.post(f"/api/games/{gid}/reclaim", headers=auth(tokens[0])).status_code == 204
        assert state(two, gid, tokens[0])["lobby"]["seats"][0]["kind"] == "human"
        r = _end_turn(one, gid, tokens[0], 0)
        assert r.status_code == 200, r.text


# --- races: another process's write lands between a decision and the write it leads to ------------


def test_a_seat_taken_while_it_is_handed_to_a_bot_stays_its_person_s(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = settings.with_(broadcast_url=REDIS_URL, absent_seconds=3600)
    with running(shared) as one, running(shared) as two:
        r = one.post(
            "/api/games", json={"seats": [{"kind": "human"}] * 2, "name": "Anna", "seed": 57}
        )
        gid, anna = r.json()["game_id"], r.json()["token"]
        store = _service(one).store
        hand_over = store.set_seat_kind
        raced: list[bool] = []

        def bob_joins_first(*args: Any) -> bool:
            # One has decided that seat 2 is free; Bob takes it on two just before one writes.
            if not raced:
                raced.append(True)
                assert _service(two).store.take_seat(gid, 1, "Bob", hash_token("bob-token"))
            return hand_over(*args)

        monkeypatch.setattr(store, "set_seat_kind", bob_joins_first)
        # Seat 2 is now Bob's, who left less than absent_seconds ago: not handed to a bot.
        _refused(_hand_over(one, gid, anna, 1), 409, "seat-present", "left less than")
        assert raced
        for client in (one, two):
            seat = state(client, gid, "bob-token")["lobby"]["seats"][1]
            assert (seat["kind"], seat["name"]) == ("human", "Bob")


def test_a_game_whose_last_seats_fill_on_two_processes_at_once_starts(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = settings.with_(broadcast_url=REDIS_URL)
    with running(shared) as one, running(shared) as two:
        r = one.post(
            "/api/games", json={"seats": [{"kind": "human"}] * 3, "name": "Anna", "seed": 58}
        )
        created = r.json()
        gid, code = created["game_id"], invite_code(created)
        store = _service(one).store
        take_seat = store.take_seat
        raced: list[bool] = []

        def cleo_joins_too(*args: Any, **kwargs: Any) -> bool:
            # Cleo takes seat 3 on two, while seat 2 was still free there (so two does not
            # start the game), just before one gives seat 2 to Bob.
            if not raced:
                raced.append(True)
                assert _service(two).store.take_seat(gid, 2, "Cleo", hash_token("cleo-token"))
            return take_seat(*args, **kwargs)

        monkeypatch.setattr(store, "take_seat", cleo_joins_too)
        r = one.post(f"/api/games/{gid}/join", json={"code": code, "name": "Bob", "seat": 1})
        assert r.status_code == 200, r.text
        assert raced
        # Every seat is taken: one started the game, though Cleo's seat was free in its copy.
        assert state(two, gid)["status"] == "playing"
        assert state(one, gid, "cleo-token")["status"] == "playing"


def test_an_action_on_a_version_played_after_the_check_is_accepted(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = settings.with_(broadcast_url=REDIS_URL)
    with running(shared) as one, running(shared) as two:
        gid, tokens = new_game(one, ["human", "human"], seed=59)
        active = state(one, gid)["view"]["active"]
        changes = _service(one).registry.changes
        read = changes.read
        raced: list[bool] = []

        async def check_then_two_moves(game_id: str) -> Any:
            # One checks its copy (current then: its count of changes has not moved), and two
            # moves right after (its notice and its count lost).
            found = await read(game_id)
            if not raced:
                raced.append(True)
                _service(two).store.append_action(gid, 0, active, {"type": "end-turn"})
            return found

        monkeypatch.setattr(changes, "read", check_then_two_moves)
        # The next player saw version 1 (on two) and plays it on one.
        r = one.post(
            f"/api/games/{gid}/actions",
            json={"version": 1, "action": {"type": "end-turn"}},
            headers=auth(tokens[1 - active]),
        )
        assert raced
        assert r.status_code == 200, r.text
        assert r.json()["version"] == 2
        assert state(two, gid)["version"] == 2


def test_a_bot_does_not_play_a_seat_taken_back_on_another_process(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = settings.with_(broadcast_url=REDIS_URL)
    with running(shared) as one, running(shared) as two:
        gid, tokens = new_game(one, ["human", "human"], seed=60, options={"first_player": 0})
        thinking, go = threading.Event(), threading.Event()

        class SlowBot:
            def choose(self, _view: Any, legal: list[Any]) -> Any:
                thinking.set()
                assert go.wait(30)
                return next(a for a in legal if a.type == "end-turn")

        monkeypatch.setattr(_service(two).bots, "bot_for", lambda _live, _seat: SlowBot())
        # Anna hands her seat to a bot on two, and takes it back on one while it thinks.
        assert _hand_over(two, gid, tokens[0], 0).status_code == 200
        assert thinking.wait(30)
        assert one.post(f"/api/games/{gid}/reclaim", headers=auth(tokens[0])).status_code == 204
        go.set()
        assert bots_idle(_service(two), gid)
        # The bot did not move for her: her turn is still hers, on either process.
        for client in (one, two):
            st = state(client, gid, tokens[0])
            assert st["version"] == 0 and st["lobby"]["seats"][0]["kind"] == "human"
            assert st["legal"]


def test_a_bot_move_being_stored_as_its_seat_is_taken_back_elsewhere_is_refused(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The narrowest window: two has checked its copy and is writing its bot's move when the
    seat's person takes it back on one. The database checks the seat with the write."""
    shared = settings.with_(broadcast_url=REDIS_URL)
    with running(shared) as one, running(shared) as two:
        gid, tokens = new_game(one, ["human", "human"], seed=61, options={"first_player": 0})
        store = _service(two).store
        real_append = store.append_action
        reclaimed: list[int] = []

        def append(game_id: str, seq: int, seat: int, action: Any, **kwargs: Any) -> None:
            if game_id == gid and not reclaimed:  # (the bot's move, on its way to the database)
                r = one.post(f"/api/games/{gid}/reclaim", headers=auth(tokens[0]))
                reclaimed.append(r.status_code)
            real_append(game_id, seq, seat, action, **kwargs)

        monkeypatch.setattr(store, "append_action", append)
        assert _hand_over(two, gid, tokens[0], 0).status_code == 200
        assert bots_idle(_service(two), gid)
        assert reclaimed == [204]
        # The bot's move was not stored: her turn at version 0 is hers, and she plays it.
        for client in (one, two):
            st = state(client, gid, tokens[0])
            assert st["version"] == 0 and st["lobby"]["seats"][0]["kind"] == "human"
        r = _end_turn(one, gid, tokens[0], 0)
        assert r.status_code == 200, r.text


def test_a_person_s_move_after_their_seat_was_handed_over_elsewhere_is_refused(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = settings.with_(broadcast_url=REDIS_URL)
    with running(shared) as one, running(shared) as two:
        gid, tokens = new_game(one, ["human", "human"], seed=62, options={"first_player": 0})
        assert state(one, gid, tokens[0])["legal"]
        bot = slow_bots(monkeypatch)  # (the bot that gets the seat waits: nothing else moves)
        store = _service(one).store
        real_append = store.append_action
        handed: list[int] = []

        def append(game_id: str, seq: int, seat: int, action: Any, **kwargs: Any) -> None:
            if game_id == gid and not handed:  # Bob hands Anna's seat over on two just then
                handed.append(_hand_over(two, gid, tokens[1], 0).status_code)
            real_append(game_id, seq, seat, action, **kwargs)

        monkeypatch.setattr(store, "append_action", append)
        r = _end_turn(one, gid, tokens[0], 0)
        assert handed == [200]
        _refused(r, 409, "seat-is-bot")
        assert state(two, gid)["version"] == 0
        bot.release.set()


def test_actions_made_on_another_process_are_applied_to_the_copy_not_replayed(
    settings: Settings,
) -> None:
    """A notice of an action carries the action: the process holding the game's sockets applies
    it to its copy (counted in ``applied``) instead of loading the game and replaying every
    action (counted in ``replays``), and its sockets and answers match the other process's."""
    shared = settings.with_(broadcast_url=REDIS_URL)
    with running(shared) as one, running(shared) as two:
        gid, tokens = new_game(one, ["human", "human"], seed=57)
        registry = _service(two).registry
        with (
            two.websocket_connect(f"/ws/games/{gid}") as first,
            two.websocket_connect(f"/ws/games/{gid}") as second,
        ):
            first.send_json({"token": tokens[0]})
            second.send_json({"token": tokens[1]})
            _state_where(first)
            _state_where(second)
            replays, applied = registry.replays, registry.applied
            rng = random.Random(7)
            for _ in range(5):
                version = play_one(one, gid, tokens, rng)
                for ws in (first, second):
                    _state_where(ws, lambda st, v=version: st["version"] == v)
            assert registry.replays == replays  # no game loaded again
            assert registry.applied == applied + 5
            for seat in (0, 1):
                assert (
                    state(two, gid, tokens[seat])["view"] == state(one, gid, tokens[seat])["view"]
                )
            assert registry.replays == replays  # (nor by the requests' checks)


def test_an_idle_game_costs_its_heartbeats_no_query_and_a_change_one(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each beat reads the shared count of the game's changes (Redis) and asks the database
    only when it moved: sockets open on an idle game cost no query; an action made elsewhere
    (even one whose notice was lost) costs one, and reaches the sockets."""
    shared = settings.with_(broadcast_url=REDIS_URL, presence_ttl=0.3)  # a beat every 0.1 s
    with running(shared) as one, running(shared) as two:
        gid, tokens = new_game(one, ["human", "human"], seed=58)
        store = _service(two).store
        checks: list[str] = []
        real_stamp = store.stamp

        def counted_stamp(game_id: str) -> Any:
            checks.append(game_id)
            return real_stamp(game_id)

        monkeypatch.setattr(store, "stamp", counted_stamp)
        with two.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.send_json({"token": tokens[0]})
            first = _state_where(ws)
            registry = _service(two).registry
            live = registry.get(gid)
            assert live is not None
            for _ in range(200):  # the first beat checks once, and keeps the count it saw
                if live.checked is not None:
                    break
                threading.Event().wait(0.01)
            assert live.checked is not None
            checks.clear()
            threading.Event().wait(1.0)  # some ten beats
            assert checks == []  # idle: no query
            _lose_notices(monkeypatch, one)
            active = first["view"]["active"]
            assert _end_turn(one, gid, tokens[active], 0).status_code == 200
            pushed = _state_where(ws, lambda st: st["version"] == 1)
            assert pushed["view"]["active"] == 1 - active
            with redis.Redis.from_url(REDIS_URL) as counts:  # the change counted twice, the
                for _ in range(500):  # second time after its write: until a beat has seen that
                    if live.checked == int(counts.get(changes_key(gid)) or 0):
                        break
                    threading.Event().wait(0.01)
            assert 1 <= len(checks) <= 2  # one query for each count the beats saw move
            checks.clear()
            threading.Event().wait(0.6)
            assert checks == []  # idle again


def test_a_beat_between_a_change_counted_and_its_write_still_finds_it(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A heartbeat of the other process that reads the count after the change was counted but
    before its write is committed finds nothing in the database; the change (whose notice is
    lost) must still be found at a later beat, not missed until the game changes again."""
    shared = settings.with_(broadcast_url=REDIS_URL, presence_ttl=60)  # the test drives beats
    with running(shared) as one, running(shared) as two:
        gid, tokens = new_game(one, ["human", "human"], seed=58)
        registry = _service(two).registry
        live = two.portal.call(registry.live, gid)
        two.portal.call(registry.catch_up_if_changed, live)  # checked at today's count
        before = live.version
        store = _service(one).store
        real_append = store.append_action
        beats: list[bool] = []

        def append_after_a_beat(*args: Any, **kwargs: Any) -> Any:
            # Counted, not yet written: the other process's heartbeat runs now.
            beats.append(two.portal.call(registry.catch_up_if_changed, live))
            return real_append(*args, **kwargs)

        monkeypatch.setattr(store, "append_action", append_after_a_beat)
        _lose_notices(monkeypatch, one)
        state = one.get(f"/api/games/{gid}/state", headers=auth(tokens[0])).json()
        active = state["view"]["active"]
        assert _end_turn(one, gid, tokens[active], state["version"]).status_code == 200
        assert beats == [False]  # the beat in the window found nothing yet
        assert live.version == before  # and the notice was lost
        assert two.portal.call(registry.catch_up_if_changed, live) is True  # the next beat looks
        assert live.version == before + 1


def test_copies_kept_current_by_their_own_changes_and_notices_ask_the_database_nothing(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes, a seat's socket on each, moves made on both: each process's own change,
    and the other's whose notice it applied, keep its copy checked at the shared count of
    changes, so that neither a request (state, action) nor a heartbeat reads the game's stamp
    from the database (it took a query per request and per beat: two processes spent four
    times the CPU of one an action)."""
    shared = settings.with_(broadcast_url=REDIS_URL, presence_ttl=600)  # the test beats
    with running(shared) as one, running(shared) as two:
        gid, tokens = new_game(one, ["human", "human"], seed=61)
        stamps: list[str] = []
        for client in (one, two):
            store = _service(client).store
            real = store.stamp

            def counted(game_id: str, real: Any = real) -> Any:
                stamps.append(game_id)
                return real(game_id)

            monkeypatch.setattr(store, "stamp", counted)
        with (
            one.websocket_connect(f"/ws/games/{gid}") as a,
            two.websocket_connect(f"/ws/games/{gid}") as b,
        ):
            a.send_json({"token": tokens[0]})
            b.send_json({"token": tokens[1]})
            first = _state_where(a)
            _state_where(b)
            for client in (one, two):  # (every copy checked once)
                _beat(client, gid)
            stamps.clear()
            version, active = first["version"], first["view"]["active"]
            for _ in range(6):
                mover = one if active == 0 else two  # each seat plays on its own process
                r = _end_turn(mover, gid, tokens[active], version)
                assert r.status_code == 200, r.text
                version += 1
                for ws in (a, b):
                    pushed = _state_where(ws, lambda st, v=version: st["version"] == v)
                active = pushed["view"]["active"]
                for client in (one, two):
                    assert state(client, gid, tokens[0])["version"] == version
            for client in (one, two):
                _beat(client, gid)
            assert stamps == []
            # A change whose notice is lost is found at the next beat, with one query.
            _lose_notices(monkeypatch, one)
            mover = one if active == 0 else two
            assert _end_turn(mover, gid, tokens[active], version).status_code == 200
            for client in (one, two):
                _beat(client, gid)
            assert len(stamps) == (1 if mover is one else 0)  # (one missed the notice)
            assert _service(two).registry.get(gid).version == version + 1  # type: ignore[union-attr]


def _beat(client: TestClient, game_id: str) -> None:
    """One heartbeat of the game on this process, now."""
    presence: Any = _service(client).presence
    live = _service(client).registry.get(game_id)
    assert client.portal is not None and live is not None
    client.portal.call(presence._beat, [(live, presence._of(live))])
