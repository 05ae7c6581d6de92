"""HTTP API of the web table, on SQLite and on PostgreSQL."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gotown.engine import Action, Game, Options
from gotown.engine.errors import InvalidOptionsError
from gotown.server.config import Settings

from ..helpers import (
    act,
    auth,
    error_of,
    invite_code,
    new_game,
    play_to_end,
    refused,
    running,
    state,
    wait_until,
)


def _engine_game(client: TestClient, game_id: str) -> Game:
    """The same game, replayed independently from the stored record."""
    service = client.app.state.service  # type: ignore[attr-defined]
    stored = service.store.load_game(game_id)
    game = Game.new(
        players=stored.players, seed=stored.seed, options=Options.from_json(stored.options)
    )
    for data in stored.actions:
        game.apply(Action.from_json(data))
    return game


# --- creating and joining ---


def test_create_game_gives_the_creator_a_seat_and_an_invitation(client: TestClient) -> None:
    r = client.post(
        "/api/games",
        json={
            "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "easy"}],
            "name": "Anna",
            "options": {"win_floors": 4, "milkshake_stacking": "merge"},
            "language": "fr",
        },
    )
    assert r.status_code == 201, r.text
    created = r.json()
    assert created["seat"] == 0 and created["token"]
    assert "/j/" in created["invite_url"] and created["token"] in created["play_url"]
    lobby = client.get(f"/api/games/{created['game_id']}/lobby").json()
    assert lobby["status"] == "lobby" and lobby["language"] == "fr"
    assert lobby["options"]["win_floors"] == 4 and lobby["options"]["milkshake_stacking"] == "merge"
    assert [(s["kind"], s["taken"]) for s in lobby["seats"]] == [
        ("human", True),
        ("human", False),
        ("bot", True),
    ]
    assert "token" not in json.dumps(lobby).lower().replace("token_", "")
    qr = client.get(f"/api/invitations/{invite_code(created)}/qr.svg")
    assert qr.status_code == 200 and qr.headers["content-type"].startswith("image/svg+xml")
    assert "<svg" in qr.text and 'xmlns="http://www.w3.org/2000/svg"' in qr.text
    by_code = client.get(f"/api/invitations/{invite_code(created)}")
    assert by_code.json()["game_id"] == created["game_id"]


def test_joining_fills_seats_and_starts_the_game(client: TestClient) -> None:
    created = client.post(
        "/api/games", json={"seats": [{"kind": "human"}, {"kind": "human"}], "name": "Anna"}
    ).json()
    gid, code = created["game_id"], invite_code(created)
    error_of(
        client.post(f"/api/games/{gid}/join", json={"code": "nope", "name": "Eve"}),
        403,
        "wrong-invitation",
    )
    error_of(
        client.post(f"/api/games/{gid}/join", json={"code": code, "name": "Eve", "seat": 0}),
        409,
        "seat-taken",
    )
    st = state(client, gid, created["token"])
    assert st["status"] == "lobby" and st["view"] is None
    error_of(act(client, gid, created["token"], 0, {"type": "end-turn"}), 409, "not-started")
    j = client.post(f"/api/games/{gid}/join", json={"code": code, "name": "Bob"})
    assert j.status_code == 200 and j.json()["seat"] == 1
    error_of(
        client.post(f"/api/games/{gid}/join", json={"code": code, "name": "Eve"}),
        409,
        "no-free-seat",
    )
    st = state(client, gid, created["token"])
    assert st["status"] == "playing" and st["view"]["players"] == 2
    assert [s["name"] for s in st["lobby"]["seats"]] == ["Anna", "Bob"]


def test_a_long_unknown_level_is_refused_without_echoing_it(client: TestClient) -> None:
    long = "x" * 5000
    for kind in ("bot", "human"):
        body = {"seats": [{"kind": "human"}, {"kind": kind, "level": long}], "name": "Ann"}
        error = error_of(client.post("/api/games", json=body), 422, "invalid-request")
        assert "level" in error["message"] and len(error["message"]) < 200, error
    gid, tokens = new_game(client, ["human", "human"])
    r = client.post(f"/api/games/{gid}/seats/1/bot", json={"level": long}, headers=auth(tokens[0]))
    error = error_of(r, 422, "invalid-request")
    assert "level" in error["message"] and len(error["message"]) < 200, error


def test_bad_creations_are_refused_with_reasons(client: TestClient) -> None:
    error_of(client.post("/api/games", json={"seats": [{"kind": "human"}]}), 422, "invalid-request")
    error_of(
        client.post("/api/games", json={"seats": [{"kind": "bot", "level": "godlike"}] * 2}),
        422,
        "unknown-level",
    )
    error_of(
        client.post(
            "/api/games", json={"seats": [{"kind": "human"}] * 2, "options": {"win_floors": 9}}
        ),
        422,
        "invalid-options",
    )
    error_of(
        client.post(
            "/api/games", json={"seats": [{"kind": "human"}] * 2, "options": {"first_player": 3}}
        ),
        422,
        "invalid-options",
    )


# --- what each seat sees ---


def test_each_seat_sees_exactly_its_own_view(client: TestClient) -> None:
    gid, tokens = new_game(client, ["human", "human", "human"], seed=11)

    def check(_seat: int, _mine: dict[str, Any]) -> None:
        game = _engine_game(client, gid)
        for seat, token in tokens.items():
            st = state(client, gid, token)
            assert st["seat"] == seat
            assert st["view"] == game.view(seat).to_json()
            if seat != game.active:
                assert st["legal"] == []
            else:
                assert st["legal"] == [a.to_json() for a in game.legal_actions()]
        public = state(client, gid)
        assert public["seat"] is None and public["legal"] == []
        assert public["view"] == game.public_view().to_json()
        assert public["view"]["hand"] is None
        for event in public["view"]["events"]:
            if event["type"] in ("draw", "stolen"):
                assert event["card"] is None

    final = play_to_end(client, gid, tokens, seed=3, on_state=check, max_actions=60)
    assert final is not None


def test_the_public_view_never_shows_a_hand_card_in_a_whole_game(client: TestClient) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=5)
    final = play_to_end(client, gid, tokens, seed=9)
    assert final["status"] == "over"
    public = state(client, gid)
    assert public["view"]["hand"] is None
    drawn = [e for e in public["view"]["events"] if e["type"] in ("draw", "stolen")]
    assert drawn and all(e["card"] is None for e in drawn)
    assert public["view"]["over"] is True and public["view"]["winner"] in (0, 1)


def test_r22_every_hand_is_shown_to_every_seat_and_spectator_once_the_game_is_over(
    client: TestClient,
) -> None:
    gid, tokens = new_game(client, ["human", "human", "human"], seed=7)

    def none_shown_yet(_seat: int, _mine: dict[str, Any]) -> None:
        for token in [*tokens.values(), None]:
            assert state(client, gid, token)["view"]["hands"] is None  # (R22: private)

    final = play_to_end(client, gid, tokens, seed=4, on_state=none_shown_yet, max_actions=400)
    assert final["status"] == "over"
    game = _engine_game(client, gid)  # (the game replayed apart from the server)
    truth = [sorted(cards) for cards in game.to_position()["hands"]]
    assert any(truth)
    laid_down = state(client, gid)["view"]["hands"]
    assert [sorted(cards) for cards in laid_down] == truth
    for token in tokens.values():
        assert state(client, gid, token)["view"]["hands"] == laid_down
    for token in (tokens[1], None):  # the replay's last step too, and no step before it
        frames = client.get(f"/api/games/{gid}/replay", headers=auth(token)).json()["frames"]
        assert frames[-1]["view"]["hands"] == laid_down
        assert all(frame["view"]["hands"] is None for frame in frames[:-1])


# --- refusals ---


def test_refusals_leave_the_game_unchanged(client: TestClient) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=2)
    st = state(client, gid, tokens[0])
    active = st["view"]["active"]
    other = 1 - active
    before = state(client, gid, tokens[active])
    v = before["version"]
    error_of(act(client, gid, None, v, {"type": "end-turn"}), 401, "missing-token")
    error_of(act(client, gid, "not-a-token", v, {"type": "end-turn"}), 403, "wrong-token")
    turn = error_of(act(client, gid, tokens[other], v, {"type": "end-turn"}), 409, "not-your-turn")
    assert turn["message"] == f"it is seat {active}'s turn, not yours"  # as the view counts
    error_of(act(client, gid, tokens[active], v + 5, {"type": "end-turn"}), 409, "stale-version")
    error_of(act(client, gid, tokens[active], v, {"type": "teleport"}), 422, "invalid-action")
    error_of(
        act(client, gid, tokens[active], v, {"type": "jackhammer", "target": other}),
        422,
        "illegal-action",
    )
    err = error_of(
        act(client, gid, tokens[active], v, {"type": "build", "cards": ["1", "1"]}),
        422,
        "illegal-action",
    )
    assert err["rule"]
    r = client.post(
        f"/api/games/{gid}/actions",
        content=b'{"version": 0, "action": ',
        headers={**auth(tokens[active]), "content-type": "application/json"},
    )
    error_of(r, 400, "malformed-json")
    # Good JSON that does not say it is JSON: the message names the header, not the fields.
    body = json.dumps({"version": v, "action": {"type": "end-turn"}}).encode()
    for kind, said in (("text/plain", "'text/plain'"), (None, "without one")):
        headers = auth(tokens[active]) | ({"content-type": kind} if kind else {})
        r = client.post(f"/api/games/{gid}/actions", content=body, headers=headers)
        message = error_of(r, 422, "invalid-request")["message"]
        assert "Content-Type: application/json" in message and said in message, message
    error_of(
        client.post(
            f"/api/games/{gid}/actions",
            json={"action": {"type": "end-turn"}},
            headers=auth(tokens[active]),
        ),
        422,
        "invalid-request",
    )
    error_of(
        client.post(
            f"/api/games/{gid}/actions",
            json={"version": v, "action": {}, "extra": 1},
            headers=auth(tokens[active]),
        ),
        422,
        "invalid-request",
    )
    error_of(client.get(f"/api/games/{gid}/state", headers=auth("forged")), 403, "wrong-token")
    error_of(client.get("/api/games/nope/state"), 404, "unknown-game")
    error_of(client.get("/api/nothing-here"), 404, "http-404")
    after = state(client, gid, tokens[active])
    assert after == before


def test_a_duplicate_action_is_refused_as_stale(client: TestClient) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=4)
    st = state(client, gid, tokens[0])
    active = st["view"]["active"]
    body = {"version": st["version"], "action": {"type": "end-turn"}}
    first = client.post(f"/api/games/{gid}/actions", json=body, headers=auth(tokens[active]))
    assert first.status_code == 200
    second = client.post(f"/api/games/{gid}/actions", json=body, headers=auth(tokens[active]))
    err = error_of(second, 409, "stale-version")
    assert "version" in err["message"]
    assert state(client, gid, tokens[0])["version"] == st["version"] + 1


def test_a_finished_game_refuses_actions(client: TestClient) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=6)
    final = play_to_end(client, gid, tokens, seed=2)
    winner = final["view"]["winner"]
    error_of(
        act(client, gid, tokens[winner], final["version"], {"type": "end-turn"}), 409, "game-over"
    )


def test_oversized_bodies_are_refused(database_url: str) -> None:
    settings = Settings(
        database_url=database_url, bot_delay=0, rate_limit_per_minute=0, max_body_bytes=512
    )
    with running(settings) as client:
        big = {"seats": [{"kind": "human"}] * 2, "name": "A", "options": {"x": "y" * 2000}}
        error_of(client.post("/api/games", json=big), 413, "body-too-large")

        def chunks() -> Any:
            for _ in range(10):
                yield b" " * 100

        r = client.post(
            "/api/games", content=chunks(), headers={"content-type": "application/json"}
        )
        error_of(r, 413, "body-too-large")
        assert client.post("/api/games", json={"seats": [{"kind": "human"}] * 2}).status_code == 201


def test_meta_describes_every_option_the_engine_takes(client: TestClient) -> None:
    """R23: /api/meta lists each option with its default and the values the engine accepts."""
    options = client.get("/api/meta").json()["options"]
    defaults = Options()
    assert set(options) == set(Options.__dataclass_fields__)
    for name, meta in options.items():
        assert meta["default"] == getattr(defaults, name), name
        if meta["choices"] is not None:
            assert meta["default"] in meta["choices"], name
            for choice in meta["choices"]:
                Options.from_json({name: choice})
            with pytest.raises(InvalidOptionsError, match=name):
                Options.from_json({name: "no such value"})
        else:
            Options.from_json({name: meta["minimum"]})
            with pytest.raises(InvalidOptionsError, match=name):
                Options.from_json({name: meta["minimum"] - 1})
            if meta["nullable"]:
                Options.from_json({name: None})
    assert options["turn_limit"]["minimum"] == 1 and options["turn_limit"]["nullable"]
    created = client.post(
        "/api/games",
        json={"seats": [{"kind": "human"}] * 2, "options": {"turn_limit": 1}},
    )
    assert created.status_code == 201


# --- persistence ---


def test_stopping_and_starting_the_server_loses_nothing(settings: Settings) -> None:
    with running(settings) as client:
        gid, tokens = new_game(client, ["human", "human"], seed=8)
        import random

        rng = random.Random(1)
        from ..helpers import choose

        for _ in range(12):
            st = state(client, gid, tokens[0])
            active = st["view"]["active"]
            mine = state(client, gid, tokens[active])
            assert (
                act(
                    client, gid, tokens[active], mine["version"], choose(mine["legal"], rng)
                ).status_code
                == 200
            )
        before = {seat: state(client, gid, tok) for seat, tok in tokens.items()}
    with running(settings) as client:
        after = {seat: state(client, gid, tok) for seat, tok in tokens.items()}
        for seat in tokens:
            assert after[seat]["view"] == before[seat]["view"]
            assert after[seat]["legal"] == before[seat]["legal"]
        final = play_to_end(client, gid, tokens, seed=4)
        assert final["status"] == "over"
    with running(settings) as client:
        assert state(client, gid)["status"] == "over"


def test_bots_resume_after_a_restart(settings: Settings) -> None:
    slow = settings.with_(bot_delay=3600.0)
    with running(slow) as client:
        gid, tokens = new_game(
            client, ["human", "bot"], seed=12, options={"win_floors": 4, "first_player": 0}
        )
        st = state(client, gid, tokens[0])
        assert st["view"]["active"] == 0
        assert act(client, gid, tokens[0], st["version"], {"type": "end-turn"}).status_code == 200
        assert state(client, gid, tokens[0])["view"]["active"] == 1  # the bot waits (long delay)
    with running(settings) as client:
        st = wait_until(
            client, gid, tokens[0], lambda s: s["view"]["active"] == 0 or s["status"] == "over"
        )
        assert st["version"] > 1


# --- bots, hints, replays, rematches, hand-over ---


def test_a_bot_game_plays_itself_to_the_end(client: TestClient) -> None:
    r = client.post(
        "/api/games",
        json={
            "seats": [
                {"kind": "bot", "level": "random"},
                {"kind": "bot", "level": "easy"},
                {"kind": "bot", "level": "medium"},
            ],
            "seed": 3,
            "options": {"win_floors": 4},
        },
    )
    created = r.json()
    assert created["token"] is None and created["seat"] is None
    st = wait_until(client, created["game_id"], None, lambda s: s["status"] == "over", polls=20000)
    assert st["view"]["winner"] is not None or st["view"]["over"]


def test_person_against_bot(client: TestClient) -> None:
    gid, tokens = new_game(client, ["human", "bot"], seed=21, level="medium")
    final = play_to_end(client, gid, tokens, seed=5)
    assert final["status"] == "over"
    seats_seen = {e["seat"] for e in final["view"]["events"] if e["type"] == "action"}
    assert seats_seen == {0, 1}


def test_a_bots_seed_does_not_give_away_the_deal(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R22: a table's bot is seeded from the game's seed by a one-way hash; the seed it gets is
    no simple function of the game's (the earlier ``seed + 7919 * (seat + 1)`` gave the game's
    seed, hence the whole deal, to any bot that subtracted)."""
    import gotown.bots as bots
    from gotown.server.services.bots import bot_seed

    seeds: list[int] = []
    real = bots.make_bot

    def spy(level: str, seed: int) -> object:
        seeds.append(seed)
        return real(level, seed)

    monkeypatch.setattr(bots, "make_bot", spy)
    gid, tokens = new_game(client, ["human", "bot"], seed=21, level="random")
    play_to_end(client, gid, tokens, seed=5)
    assert seeds and set(seeds) == {bot_seed(21, 1)}
    assert bot_seed(21, 1) != 21 + 7919 * 2  # (the seed the bot had before)
    assert len({bot_seed(game, seat) for game in range(50) for seat in range(4)}) == 200


def test_hint_suggests_legal_actions(client: TestClient) -> None:
    gid, tokens = new_game(
        client, ["human", "human"], seed=13, options={"win_floors": 4, "first_player": 0}
    )
    st = state(client, gid, tokens[0])
    r = client.get(f"/api/games/{gid}/hint", headers=auth(tokens[0]))
    assert r.status_code == 200, r.text
    hint = r.json()
    assert hint["version"] == st["version"] and 1 <= len(hint["hints"]) <= 3
    for item in hint["hints"]:
        assert item["action"] in st["legal"]
        assert 0.0 <= item["win_probability"] <= 1.0
    error_of(client.get(f"/api/games/{gid}/hint", headers=auth(tokens[1])), 409, "not-your-turn")
    error_of(client.get(f"/api/games/{gid}/hint"), 401, "missing-token")


def test_replay_steps_through_every_action(client: TestClient) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=14)
    error_of(client.get(f"/api/games/{gid}/replay"), 409, "not-over")
    final = play_to_end(client, gid, tokens, seed=7)
    public = client.get(f"/api/games/{gid}/replay").json()
    assert len(public["frames"]) == final["version"] + 1
    assert public["frames"][0]["action"] is None
    assert all(f["view"]["hand"] is None for f in public["frames"])
    assert all(
        e.get("card") is None
        for f in public["frames"]
        for e in f["view"]["events"]
        if e["type"] in ("draw", "stolen")
    )
    assert public["frames"][-1]["view"]["over"] is True
    own = client.get(f"/api/games/{gid}/replay", headers=auth(tokens[0])).json()
    assert own["seat"] == 0
    game = _engine_game(client, gid)
    assert own["frames"][-1]["view"]["hand"] == list(game.view(0).hand or ())
    events = [e for f in own["frames"] for e in f["view"]["events"]]
    assert events == game.view(0).to_json()["events"]


def test_rematch_keeps_the_seats(client: TestClient) -> None:
    gid, tokens = new_game(client, ["human", "human", "bot"], seed=15)
    error_of(client.post(f"/api/games/{gid}/rematch", headers=auth(tokens[0])), 409, "not-over")
    play_to_end(client, gid, tokens, seed=8)
    first = client.post(f"/api/games/{gid}/rematch", headers=auth(tokens[1]))
    assert first.status_code == 200, first.text
    new_id = first.json()["game_id"]
    assert first.json()["seat"] == 1
    assert state(client, gid)["lobby"]["rematch_id"] == new_id
    second = client.post(f"/api/games/{gid}/rematch", headers=auth(tokens[0])).json()
    assert second["game_id"] == new_id and second["seat"] == 0
    st = state(client, new_id, second["token"])
    assert st["status"] == "playing"
    assert [s["kind"] for s in st["lobby"]["seats"]] == ["human", "human", "bot"]
    assert st["lobby"]["rematch_of"] == gid
    # Asked again (another tab of the same player), the seat is not offered twice, and the
    # error says why: the seat's secret was given once, to the first request.
    error_of(
        client.post(f"/api/games/{gid}/rematch", headers=auth(tokens[0])),
        409,
        "rematch-seat-taken",
    )
    assert state(client, new_id, second["token"])["lobby"]["seats"][0]["kind"] == "human"


def test_a_seat_that_stays_away_can_be_handed_to_a_bot(client: TestClient) -> None:
    gid, tokens = new_game(
        client, ["human", "human"], seed=16, options={"win_floors": 4, "first_player": 1}
    )
    error_of(
        client.post(f"/api/games/{gid}/seats/1/bot", headers=auth("forged")), 403, "wrong-token"
    )
    r = client.post(
        f"/api/games/{gid}/seats/1/bot", headers=auth(tokens[0]), json={"level": "random"}
    )
    assert r.status_code == 200, r.text
    assert r.json()["seats"][1]["kind"] == "bot"
    st = wait_until(client, gid, tokens[0], lambda s: s["view"]["active"] == 0)
    assert st["version"] >= 1
    error_of(act(client, gid, tokens[1], st["version"], {"type": "end-turn"}), 409, "seat-is-bot")
    assert client.post(f"/api/games/{gid}/reclaim", headers=auth(tokens[1])).status_code == 204
    assert state(client, gid, tokens[1])["lobby"]["seats"][1]["kind"] == "human"


def test_a_person_whose_seat_a_bot_finished_gets_it_back_in_the_rematch(
    client: TestClient,
) -> None:
    gid, tokens = new_game(
        client, ["human", "human"], seed=18, options={"win_floors": 4, "turn_limit": 200}
    )
    r = client.post(
        f"/api/games/{gid}/seats/1/bot", headers=auth(tokens[0]), json={"level": "random"}
    )
    assert r.status_code == 200, r.text
    play_to_end(client, gid, {0: tokens[0]}, seed=9)
    back = client.post(f"/api/games/{gid}/rematch", headers=auth(tokens[1]))
    assert back.status_code == 200, back.text
    assert back.json()["seat"] == 1
    st = state(client, back.json()["game_id"], back.json()["token"])
    assert [s["kind"] for s in st["lobby"]["seats"]] == ["human", "human"]


def test_a_player_back_for_the_rematch_takes_their_seat_back_from_a_bot(
    client: TestClient,
) -> None:
    """The first to come back may give the free seats to bots (to start); a player of the
    last game who comes after takes their own seat back, in the lobby or in the game."""
    gid, tokens = new_game(client, ["human", "human", "human"], seed=19)
    play_to_end(client, gid, tokens, seed=3)
    anna = client.post(f"/api/games/{gid}/rematch", headers=auth(tokens[0])).json()
    new_id = anna["game_id"]
    r = client.post(f"/api/games/{new_id}/seats/1/bot", headers=auth(anna["token"]))
    assert r.status_code == 200, r.text
    # Bob, in the lobby: his seat again, with his name.
    bob = client.post(f"/api/games/{gid}/rematch", headers=auth(tokens[1]))
    assert bob.status_code == 200, bob.text
    assert bob.json()["game_id"] == new_id and bob.json()["seat"] == 1
    seats = state(client, new_id, bob.json()["token"])["lobby"]["seats"]
    assert [(s["kind"], s["name"]) for s in seats] == [
        ("human", "Anna"), ("human", "Bob"), ("human", None)
    ]  # fmt: skip
    # Cleo's seat given to a bot fills the table: the rematch starts without her...
    r = client.post(f"/api/games/{new_id}/seats/2/bot", headers=auth(anna["token"]))
    assert r.status_code == 200 and state(client, new_id)["status"] == "playing"
    # ... and she takes it back in the game.
    cleo = client.post(f"/api/games/{gid}/rematch", headers=auth(tokens[2]))
    assert cleo.status_code == 200, cleo.text
    st = state(client, new_id, cleo.json()["token"])
    assert st["status"] == "playing" and st["seat"] == 2
    assert [s["kind"] for s in st["lobby"]["seats"]] == ["human", "human", "human"]
    assert st["lobby"]["seats"][2]["name"] == "Cleo"
    play_to_end(client, new_id, {0: anna["token"], 1: bob.json()["token"], 2: cleo.json()["token"]})


def test_a_free_seat_can_be_given_to_a_bot_to_start(client: TestClient) -> None:
    created = client.post(
        "/api/games", json={"seats": [{"kind": "human"}] * 3, "name": "Anna"}
    ).json()
    gid, tok = created["game_id"], created["token"]
    for seat in (1, 2):
        assert (
            client.post(f"/api/games/{gid}/seats/{seat}/bot", headers=auth(tok)).status_code == 200
        )
    assert state(client, gid, tok)["status"] == "playing"


def test_a_connected_player_cannot_be_replaced(database_url: str) -> None:
    settings = Settings(
        database_url=database_url,
        bot_delay=0,
        rate_limit_per_minute=0,
        absent_seconds=3600,
        allow_seed=True,
    )
    with running(settings) as client:
        gid, tokens = new_game(client, ["human", "human"], seed=17)
        error_of(
            client.post(f"/api/games/{gid}/seats/1/bot", headers=auth(tokens[0])),
            409,
            "seat-present",
        )
        with client.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.send_json({"token": tokens[1]})
            ws.receive_json()
            error_of(
                client.post(f"/api/games/{gid}/seats/1/bot", headers=auth(tokens[0])),
                409,
                "seat-present",
            )


def test_openapi_documents_the_api(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    for path in (
        "/api/games",
        "/api/games/{game_id}/actions",
        "/api/games/{game_id}/state",
        "/api/games/{game_id}/replay",
        "/api/games/{game_id}/hint",
    ):
        assert path in spec["paths"]
    assert "409" in spec["paths"]["/api/games/{game_id}/actions"]["post"]["responses"]


def test_concurrent_actions_on_one_version_apply_once(client: TestClient) -> None:
    from concurrent.futures import ThreadPoolExecutor

    gid, tokens = new_game(client, ["human", "human"], seed=18)
    st = state(client, gid, tokens[0])
    active = st["view"]["active"]

    def send(_: int) -> int:
        r = act(client, gid, tokens[active], st["version"], {"type": "end-turn"})
        return r.status_code

    with ThreadPoolExecutor(max_workers=6) as pool:
        codes = sorted(pool.map(send, range(6)))
    assert codes == [200, 409, 409, 409, 409, 409]
    stored = client.app.state.service.store.load_game(gid)  # type: ignore[attr-defined]
    assert len(stored.actions) == 1
    assert state(client, gid, tokens[0])["version"] == st["version"] + 1


def test_tokens_are_stored_hashed(client: TestClient) -> None:
    from sqlalchemy import text

    _gid, tokens = new_game(client, ["human", "human"], seed=19)
    engine = client.app.state.service.store.engine  # type: ignore[attr-defined]
    with engine.connect() as conn:
        rows = [tuple(map(str, row)) for table in ("games", "seats", "actions")
                for row in conn.execute(text(f"SELECT * FROM {table}"))]  # fmt: skip
    dump = " ".join(" ".join(row) for row in rows)
    for token in tokens.values():
        assert token not in dump


def test_a_failing_bot_does_not_stall_the_table(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    class BrokenBot:
        def choose(self, view: Any, legal: Any) -> Any:
            raise RuntimeError("bot bug")

    from gotown.server.services.bots import Bots

    monkeypatch.setattr(Bots, "bot_for", lambda self, live, seat: BrokenBot())
    gid, tokens = new_game(client, ["human", "bot"], seed=22, options={"first_player": 1})
    st = wait_until(client, gid, tokens[0], lambda s: s["view"]["active"] == 0)
    assert any(e["type"] == "action" and e["seat"] == 1 for e in st["view"]["events"])


def test_a_host_too_long_for_a_qr_code_is_refused_clearly(client: TestClient) -> None:
    """Found in review: without GOTOWN_PUBLIC_BASE_URL the invitation link is built from the
    request's Host, and a link too long for any QR code made the QR route a 500."""
    created = client.post(
        "/api/games", json={"seats": [{"kind": "human"}] * 3, "name": "Anna"}
    ).json()
    code = invite_code(created)
    for length in (2400, 3000, 10_000):
        r = client.get(f"/api/invitations/{code}/qr.svg", headers={"host": "a" * length})
        assert "QR" in refused(r, 400, "bad-request")
    qr = client.get(f"/api/invitations/{code}/qr.svg")
    assert qr.status_code == 200 and "<svg" in qr.text


def test_meta_says_what_a_joker_stands_for(client: TestClient) -> None:
    """R5: the page draws a built joker's value from /api/meta, not from a rule of its own."""
    values = client.get("/api/meta").json()["joker_values"]
    assert values == {str(n): 9 - n for n in range(1, 9)}


def test_meta_serves_the_engine_s_card_table_action_rules_and_languages(
    client: TestClient,
) -> None:
    """Issue 43: a client takes the card facts (R2, R5), each action's rule and the hand cards
    it plays, and the languages from /api/meta, as the engine and the texts state them."""
    from gotown.engine import ACTION_RULES, CARDS, PLAYED_FROM
    from gotown.texts import LANGUAGES

    meta = client.get("/api/meta").json()
    assert meta["cards"] == [card.to_json() for card in CARDS.values()]
    three = next(card for card in meta["cards"] if card["code"] == "3")
    assert (three["partner"], three["pair_colour"], three["rules"]) == ("6", 3, ["R10", "R11"])
    assert meta["actions"] == {
        kind: {"rule": rule, "plays": PLAYED_FROM[kind]} for kind, rule in ACTION_RULES.items()
    }
    assert meta["actions"]["dog"] == {"rule": "R12", "plays": "type"}
    assert meta["actions"]["end-turn"] == {"rule": "R8", "plays": None}
    assert meta["languages"] == list(LANGUAGES)
