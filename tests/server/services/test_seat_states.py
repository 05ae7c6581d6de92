"""What each seat is shown (:mod:`gotown.server.services.seat_states`): the state's own fields."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from starlette.testclient import WebSocketTestSession

from gotown.engine import Action, Game, Options
from gotown.server import schemas
from gotown.server.services import seat_states as seat_states_module
from gotown.server.storage import StoredGame

from ..helpers import (
    EventCounter,
    ViewRecorder,
    auth,
    end_turn,
    new_game,
    next_state,
    on_loop,
    play_to_end,
    record_of,
    service_of,
    state,
    store_end_turns,
)


def test_the_lobby_has_no_frozen_turns(client: TestClient) -> None:
    r = client.post("/api/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]})
    assert r.status_code == 201, r.text
    st = state(client, r.json()["game_id"])
    assert st["view"] is None and st["frozen_turns"] is None


#: Seed 1, seat 0 first: two people who only end their turns fill their hands to 8 and still
#: hold cards they could play, so the game is no stalemate (R20b) and goes on to its turn limit.
ENDLESS = {"seed": 1, "options": {"first_player": 0}}


def _random_game(data: st.DataObject) -> Game:
    """A game of random legal actions with long runs of ended turns, from a new deal or from a
    position (whose events then start with an action, no turn's start before it)."""
    game = Game.new(
        players=data.draw(st.integers(2, 4)),
        seed=data.draw(st.integers(0, 2**31)),
        options=Options(win_floors=data.draw(st.sampled_from([4, 5]))),
    )
    if data.draw(st.booleans()):
        for _ in range(data.draw(st.integers(0, 30))):
            if not game.is_over:
                game.apply(data.draw(st.sampled_from(game.legal_actions())))
        if not game.is_over:
            game = Game.from_position(game.to_position())
    return game


@hypothesis_settings(max_examples=60, deadline=None)
@given(st.data())
def test_the_kept_frozen_count_is_the_engine_s_at_every_step(data: st.DataObject) -> None:
    """``FrozenCount`` read on event by event (in chunks of any size, as states are built) is
    ``View.frozen_turns`` after every action, for every seat and a spectator alike."""
    game = _random_game(data)
    count = seat_states_module.FrozenCount()
    for _ in range(data.draw(st.integers(1, 12))):
        if game.is_over:
            break
        if data.draw(st.booleans()):  # a run of ended turns
            actions = [Action.end_turn()] * data.draw(st.integers(1, 40))
        else:
            actions = [data.draw(st.sampled_from(game.legal_actions()))]
        for action in actions:
            if game.is_over:
                break
            game.apply(action if game.is_legal(action) else game.legal_actions()[0])
            if data.draw(st.integers(0, 3)) == 0:
                continue  # read later, with the next ones
            count = count.at(game)
            for seat in (None, *range(game.players)):
                assert count.turns == game.view(seat).frozen_turns
    assert count.at(game).turns == game.public_view().frozen_turns
    # A game that holds fewer events than were read is read again from its start.
    fresh = Game.new(players=game.players, seed=0)
    assert count.at(fresh).turns == fresh.public_view().frozen_turns == 0


def test_the_state_counts_the_turns_that_held_nothing_but_their_end(client: TestClient) -> None:
    """``frozen_turns`` is the engine's ``View.frozen_turns`` for every seat and a spectator,
    over HTTP and pushed to a socket, past the events a state reads in the event loop."""
    gid, tokens = new_game(client, ["human", "human"], **ENDLESS)  # type: ignore[arg-type]
    game = service_of(client).registry.get(gid).game  # type: ignore[union-attr]
    counts = []
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"token": None})
        pushed = next_state(ws)
        for _ in range(150):  # 300 events: more than EVENTS_BUILT_IN_LOOP from the start
            r = end_turn(client, gid, tokens[pushed["view"]["active"]], pushed["version"])
            assert r.status_code == 200, r.text
            pushed = next_state(ws)
            game = service_of(client).registry.get(gid).game  # type: ignore[union-attr]
            assert pushed["frozen_turns"] == game.public_view().frozen_turns
            assert r.json()["frozen_turns"] == pushed["frozen_turns"]
            counts.append(pushed["frozen_turns"])
    assert game.event_count > seat_states_module.EVENTS_BUILT_IN_LOOP
    for seat, token in ((0, tokens[0]), (1, tokens[1]), (None, None)):
        assert state(client, gid, token)["frozen_turns"] == game.view(seat).frozen_turns
    # Once both hands are full (R7b), every ended turn adds one.
    assert counts == sorted(counts) and counts[-1] == counts[-2] + 1 > 140


def _state_at(ws: WebSocketTestSession, version: int) -> dict[str, Any]:
    """The socket's next state of ``version`` (a seat's coming and going pushes states too)."""
    while (pushed := next_state(ws))["version"] < version:
        pass
    return pushed


def test_a_long_game_s_state_reads_only_its_new_events(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A state of a game of 5,000 actions (4,990 turns in a row held nothing but their end)
    converts the events it sends and those since the last state, never the game's history:
    each move's states cost no more than at the game's start. Its first state after a load
    reads the history once, in the view worker."""
    gid, tokens = new_game(client, ["human", "human"], **ENDLESS)  # type: ignore[arg-type]
    game = store_end_turns(client, gid, 5000)  # (the server forgets it: loaded at next use)
    assert not game.is_over and game.public_view().frozen_turns > 4900
    converted: list[tuple[bool, int]] = []  # (in the event loop, events)
    events = Game.events

    def counting(game: Game, seat: int | None, start: int = 0) -> list[Any]:
        out = events(game, seat, start)
        converted.append((on_loop(), len(out)))
        return out

    monkeypatch.setattr(Game, "events", counting)
    with (
        client.websocket_connect(f"/ws/games/{gid}") as spectator,
        client.websocket_connect(f"/ws/games/{gid}") as seat1,
    ):
        spectator.send_json({"token": None})
        seat1.send_json({"token": tokens[1]})
        held = {"spectator": next_state(spectator), "seat1": next_state(seat1)}
        assert held["spectator"]["frozen_turns"] == game.public_view().frozen_turns
        assert max(n for loop, n in converted if loop) <= seat_states_module.EVENTS_BUILT_IN_LOOP
        for _ in range(4):
            converted.clear()
            me = game.active
            r = client.post(
                f"/api/games/{gid}/actions",
                json={
                    "version": game.version,
                    "action": {"type": "end-turn"},
                    "events_from": game.event_count,
                },
                headers=auth(tokens[me]),
            )
            assert r.status_code == 200, r.text
            game.apply(Action.end_turn())
            pushed = [_state_at(ws, game.version) for ws in (spectator, seat1)]
            new = game.event_count - r.json()["events_from"]
            # Three states (the answer and two pushes) of two new events, and the count once.
            assert sum(n for _, n in converted) <= 4 * new, converted
            for answer, seat in ((r.json(), me), (pushed[0], None), (pushed[1], 1)):
                assert answer["frozen_turns"] == game.view(seat).frozen_turns
                assert len(answer["view"]["events"]) == new


def test_nothing_of_a_hand_reaches_a_spectator_or_another_seat_anywhere(client: TestClient) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=9)
    hand0 = state(client, gid, tokens[0])["view"]["hand"]
    assert hand0
    for token in (None, tokens[1]):
        headers = {"X-Seat-Token": token} if token else {}
        for path in ("state", "lobby", "replay", "hint", "chances"):
            r = client.get(f"/api/games/{gid}/{path}", headers=headers)
            text = r.text
            assert tokens[0] not in text
            if path == "state":
                assert r.json()["view"]["hand"] != hand0 or token is None
                if token is None:
                    assert r.json()["view"]["hand"] is None


def test_the_spectator_link_does_not_give_away_the_invitation(client: TestClient) -> None:
    """Watching must not be a way to take a free seat: the invitation is for seats only."""
    created = client.post(
        "/api/games", json={"seats": [{"kind": "human"}] * 3, "name": "Anna"}
    ).json()
    gid, code = created["game_id"], created["invite_url"].rsplit("/", 1)[1]
    assert client.get(f"/api/games/{gid}/lobby").json()["invite_url"] is None
    assert state(client, gid)["lobby"]["invite_url"] is None
    assert code not in client.get(f"/api/games/{gid}/lobby").text
    assert client.get(f"/api/games/{gid}/qr.svg").status_code == 404
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"token": None})
        first = ws.receive_json()
        assert first["type"] == "state" and code not in json.dumps(first)
    # A seat, and whoever holds the code, get it.
    token = created["token"]
    assert client.get(f"/api/games/{gid}/lobby", headers=auth(token)).json()["invite_url"]
    assert state(client, gid, token)["lobby"]["invite_url"].endswith("/j/" + code)
    assert client.get(f"/api/invitations/{code}").json()["invite_url"].endswith("/j/" + code)
    qr = client.get(f"/api/invitations/{code}/qr.svg")
    assert qr.status_code == 200 and "<svg" in qr.text
    assert client.get("/api/invitations/nope/qr.svg").status_code == 404
    wrong = client.get(f"/api/games/{gid}/lobby", headers=auth("nope"))
    assert wrong.status_code == 403


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


@pytest.mark.parametrize("seat", [None, 0, 1, 2, 3])
def test_replay_frames_are_exactly_those_of_a_whole_view_after_every_action(
    thief_game: Game, seat: int | None
) -> None:
    stored = record_of(thief_game)
    new = seat_states_module.replay_frames(stored, seat)
    assert new.model_dump_json() == _frames_the_old_way(stored, seat).model_dump_json()
    assert len(new.frames) == thief_game.version + 1


@pytest.mark.parametrize("seat", [None, 1])
def test_a_replay_converts_each_event_once(
    thief_game: Game, seat: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = record_of(thief_game)
    counter = EventCounter(monkeypatch)
    seat_states_module.replay_frames(stored, seat)
    # A whole view per frame converted some 15,000 events for this game's 262.
    assert 0 < counter.converted <= 2 * thief_game.event_count


def test_the_replay_route_converts_each_event_once(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    gid, tokens = new_game(client, ["human", "bot"], seed=11, options={"first_player": 1})

    play_to_end(client, gid, tokens, seed=4)
    game = client.app.state.service.registry.get(gid).game  # type: ignore[attr-defined]
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

    play_to_end(client, gid, tokens, seed=5)
    built: list[int | None] = []
    frames = seat_states_module.replay_frames

    def counted(stored: Any, seat: int | None) -> Any:
        built.append(seat)
        return frames(stored, seat)

    monkeypatch.setattr(seat_states_module, "replay_frames", counted)
    answers = {}
    for token in (None, tokens[0], None, tokens[0], None):
        r = client.get(f"/api/games/{gid}/replay", headers=auth(token))
        assert r.status_code == 200, r.text
        assert answers.setdefault(token, r.json()) == r.json()
    assert sorted(built, key=str) == [0, None]  # once for the spectator, once for seat 0
    assert answers[None]["seat"] is None and answers[tokens[0]]["seat"] == 0
    assert answers[None]["frames"] != answers[tokens[0]]["frames"]  # seat 0 sees its hand


def test_a_long_game_s_full_views_are_built_off_the_event_loop_once_per_version(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=63, options={"first_player": 0})
    game = store_end_turns(client, gid, 600)
    assert game.event_count > 1000
    recorder = ViewRecorder(monkeypatch)
    encoded: list[tuple[bool, int]] = []  # (on the loop, events)
    dump_json = schemas.StateOut.model_dump_json

    def encoding(self: schemas.StateOut, **kwargs: Any) -> str:
        encoded.append((on_loop(), len(self.view["events"]) if self.view else 0))
        return dump_json(self, **kwargs)

    monkeypatch.setattr(schemas.StateOut, "model_dump_json", encoding)
    me = game.active
    answers = [state(client, gid, tokens[me]) for _ in range(3)]
    tail = state(client, gid, tokens[me], events_from=1)  # nearly every event, all the same
    spectator = state(client, gid)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_json({"token": tokens[me]})
        pushed = next_state(ws)
    built = recorder.with_events()
    # What they hold is the seat's (the spectator's) view, every event included.
    full = game.view(me).to_json()
    assert all(a["view"] == full and a["events_from"] == 0 for a in answers)
    assert pushed["view"] == full
    assert tail["events_from"] == 1 and tail["view"] == {**full, "events": full["events"][1:]}
    assert spectator["view"] == game.public_view().to_json()
    # Each view holding events was built once for its seat, in the view worker.
    assert sorted((b[2] for b in built), key=str) == [me, None], built
    assert all(name.startswith("gotown-view") and not loop for name, loop, _s, _n in built)
    # And every long state was encoded there too.
    long = [on_loop for on_loop, events in encoded if events > 1000]
    assert len(long) == 6 and not any(long)
