"""Play (:mod:`gotown.server.services.play`): creating, joining and acting; seeds, names,
turn limits and versions."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gotown.engine import Game, Options
from gotown.server import schemas
from gotown.server.config import Settings
from gotown.server.services.bots import BOTS_ONLY_TURN_LIMIT
from gotown.server.services.tokens import hash_token
from gotown.server.storage import StoredGame, StoredSeat

from ..helpers import (
    auth,
    end_current_turn,
    end_turn,
    error_of,
    invite_code,
    new_game,
    refused,
    running,
    service_of,
    state,
    store_end_turns,
    wait_until,
)


def test_a_client_cannot_choose_the_seed_by_default(database_url: str) -> None:
    """Whoever knows the seed can deal the game again and see every hand (R22)."""
    settings = Settings(database_url=database_url, bot_delay=0, rate_limit_per_minute=0)
    assert settings.allow_seed is False
    with running(settings) as client:
        body = {"seats": [{"kind": "human"}] * 2, "name": "Eve", "seed": 42}
        r = client.post("/api/games", json=body)
        assert r.status_code == 422, r.text
        error = r.json()["error"]
        assert error["code"] == "seed-not-allowed" and "seed" in error["message"]
        del body["seed"]
        assert client.post("/api/games", json=body).status_code == 201


def test_odd_characters_in_codes_and_names_are_refused_cleanly(client: TestClient) -> None:
    """Found by schemathesis: a non-ASCII invitation code made the join a 500."""
    created = client.post(
        "/api/games", json={"seats": [{"kind": "human"}] * 2, "name": "Anna"}
    ).json()
    gid = created["game_id"]
    r = client.post(f"/api/games/{gid}/join", json={"code": "ééé", "name": "Bob"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "wrong-invitation", r.text
    r = client.post(f"/api/games/{gid}/join", json={"code": "\u009f", "name": "Bob"})
    assert r.status_code == 422 and "code" in r.json()["error"]["message"], r.text
    code = created["invite_url"].rsplit("/", 1)[1]
    for name in ("\u0001Bob", "Bob\u0000", "   "):
        r = client.post(f"/api/games/{gid}/join", json={"code": code, "name": name})
        assert r.status_code == 422, r.text
        assert "name" in r.json()["error"]["message"]
    surrogate = b'{"code": "x", "name": "\\ud915"}'
    r = client.post(
        f"/api/games/{gid}/join", content=surrogate, headers={"content-type": "application/json"}
    )
    assert r.status_code == 422, r.text
    r = client.post("/api/games", json={"seats": [{"kind": "human"}] * 2, "name": "  "})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid-name", r.text
    # Nothing of that reached the game.
    lobby = client.get(f"/api/games/{gid}/lobby").json()
    assert [s["name"] for s in lobby["seats"]] == ["Anna", None]


def test_a_game_s_seed_is_drawn_from_63_bits(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seed drawn from 31 bits could be found by trying every one against a hand and a few
    draws, and with it every hand; 63 bits is the width of the engine's own seed chain."""
    import secrets

    from gotown.engine import Options

    widths: list[int] = []

    def widest_randbits(k: int) -> int:
        widths.append(k)
        return (1 << k) - 1  # the widest seed of that many bits, so that storing it is tested

    monkeypatch.setattr(secrets, "randbits", widest_randbits)
    created = client.post("/api/games", json={"seats": [{"kind": "human"}] * 2, "name": "A"})
    assert created.status_code == 201, created.text
    gid = created.json()["game_id"]
    assert widths == [63]
    stored = client.app.state.service.store.load_game(gid)  # type: ignore[attr-defined]
    assert stored.seed == 2**63 - 1
    join = {"code": created.json()["invite_url"].rsplit("/", 1)[1], "name": "B"}
    assert client.post(f"/api/games/{gid}/join", json=join).status_code == 200
    dealt = Game.new(players=2, seed=2**63 - 1, options=Options.from_json(stored.options))
    token = created.json()["token"]
    assert state(client, gid, token)["view"] == dealt.view(0).to_json()


def test_a_name_must_be_printable_through_and_through(client: TestClient) -> None:
    """Found in review: only control characters and lone surrogates were refused, although the
    error asks for printable characters: an invisible name (a zero-width space, a byte order
    mark), one that turns the text after it right to left (U+202E), soft hyphens, private-use,
    tag and unassigned characters, separators other than the space all passed."""
    created = client.post(
        "/api/games", json={"seats": [{"kind": "human"}] * 2, "name": "Anna Lee"}
    ).json()
    gid, code = created["game_id"], invite_code(created)
    for name in (
        "\u200b",
        "\u202eevil",
        "Bob\ufeff",
        "Bo\u00adb",
        "\ue000",
        "\U000e0041",
        "\u2028Bob",
        "B\u2029ob",
        "Bob\u0378",
        "Bob\u00a0Lee",
    ):
        assert not name.isprintable()
        body = {"seats": [{"kind": "human"}] * 2, "name": name}
        message = refused(client.post("/api/games", json=body), 422, "invalid-request")
        assert message.startswith("name: ") and "printable" in message, message
        r = client.post(f"/api/games/{gid}/join", json={"code": code, "name": name})
        message = refused(r, 422, "invalid-request")
        assert message.startswith("name: ") and "printable" in message, message
    assert [s["name"] for s in client.get(f"/api/games/{gid}/lobby").json()["seats"]] == [
        "Anna Lee",
        None,
    ]
    # Spaces inside a name are printable; those around it are trimmed, as before.
    r = client.post(f"/api/games/{gid}/join", json={"code": code, "name": "  Bob de Vries "})
    assert r.status_code == 200, r.text
    assert [s["name"] for s in client.get(f"/api/games/{gid}/lobby").json()["seats"]] == [
        "Anna Lee",
        "Bob de Vries",
    ]


def test_an_action_whose_request_is_cancelled_while_it_is_stored_is_still_made_in_memory(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A socket whose client leaves cancels the action it was making. Once the action is being
    written, the write finishes in its thread whatever happens: the game in memory, the other
    players and the bots must then follow it too, or the table lags its own database (a person
    refused as stale, a bot never told it is its turn)."""
    import contextlib

    from gotown.server import schemas

    gid, tokens = new_game(client, ["human", "bot"], seed=23, options={"first_player": 0})
    service = client.app.state.service  # type: ignore[attr-defined]
    store = service.store
    writing, release = threading.Event(), threading.Event()
    append_action = store.append_action

    def slow_append(*args: Any, **kwargs: Any) -> Any:
        writing.set()
        release.wait(10)
        return append_action(*args, **kwargs)

    monkeypatch.setattr(store, "append_action", slow_append)
    version = state(client, gid, tokens[0])["version"]
    body = schemas.ActionIn.model_validate({"version": version, "action": {"type": "end-turn"}})

    async def leave_while_it_is_written() -> None:
        task = asyncio.ensure_future(service.play.act(gid, tokens[0], body, "http://testserver"))
        await asyncio.to_thread(writing.wait, 10)
        task.cancel()
        release.set()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    client.portal.call(leave_while_it_is_written)  # type: ignore[union-attr]
    monkeypatch.undo()
    for _ in range(1000):  # its thread finishes the write (bounded by count)
        if store.load_game(gid).actions:
            break
        threading.Event().wait(0.01)
    assert store.load_game(gid).actions[version]["type"] == "end-turn"
    # ... and the table follows it: the bot, told it is its turn, plays, and seat 0's turn
    # comes back; the game in memory never lags the database.
    st = wait_until(client, gid, tokens[0], lambda s: s["view"]["active"] == 0)
    assert st["version"] == len(store.load_game(gid).actions) > version + 1


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


def test_a_table_of_bots_only_asks_for_at_most_its_turn_limit(client: TestClient) -> None:
    seats = [{"kind": "bot", "level": "random"}] * 2
    for limit in (BOTS_ONLY_TURN_LIMIT + 1, 10_000):
        r = client.post("/api/games", json={"seats": seats, "options": {"turn_limit": limit}})
        error = r.json()["error"]
        assert r.status_code == 422 and error["code"] == "invalid-options", r.text
        assert "turn_limit" in error["message"] and "300" in error["message"]
    assert _options(client, ["bot", "bot"], {"turn_limit": 300})["turn_limit"] == 300


def test_a_whole_number_written_as_a_float_is_that_number(client: TestClient) -> None:
    """JSON Schema's ``integer`` (and ``enum``) admit 300.0 as 300: so does the server."""
    options = _options(client, ["human", "bot"], {"turn_limit": 300.0, "win_floors": 4.0})
    assert options["turn_limit"] == 300 and options["win_floors"] == 4
    assert type(options["turn_limit"]) is int and type(options["win_floors"]) is int
    refused = client.post(
        "/api/games", json={"seats": [{"kind": "human"}] * 2, "options": {"turn_limit": 2.5}}
    )
    assert refused.status_code == 422, refused.text


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


def test_a_game_of_people_created_without_a_limit_ends_at_the_server_s_ceiling(
    client: TestClient,
) -> None:
    meta = client.get("/api/meta").json()["options"]["turn_limit"]
    assert meta["people_default"] == schemas.MAX_TURN_LIMIT == meta["maximum"]
    gid, tokens = new_game(client, ["human", "human"], seed=61, options={"first_player": 0})
    assert state(client, gid)["lobby"]["options"]["turn_limit"] == schemas.MAX_TURN_LIMIT
    # Turn N ends the game (R23): one turn is one ended turn here (nobody plays a card).
    game = store_end_turns(client, gid, schemas.MAX_TURN_LIMIT - 1)
    st = state(client, gid, tokens[game.active])
    assert st["status"] == "playing" and st["view"]["turn"] == schemas.MAX_TURN_LIMIT
    r = end_turn(client, gid, tokens[game.active], game.version)
    assert r.status_code == 200, r.text
    final = r.json()
    assert final["status"] == "over" and final["view"]["winner"] is None
    assert final["view"]["events"][-1] == {"type": "end", "winner": None, "reason": "turn-limit"}
    r = end_turn(client, gid, tokens[0], final["version"])
    assert r.status_code == 409 and r.json()["error"]["code"] == "game-over"


def test_a_game_stored_with_no_limit_before_the_ceiling_replays_as_it_was(
    client: TestClient,
) -> None:
    """The ceiling is written in a new game's options: a record stored before it (null) still
    replays exactly, past the ceiling, and plays on."""
    service = service_of(client)
    stored = StoredGame(
        id="oldgame",
        players=2,
        seed=62,
        options=Options(first_player=0).to_json(),
        language="en",
        invite_code="oldcode",
        status="playing",
        seats=[StoredSeat(i, "human", None, f"P{i}", hash_token(f"tok{i}")) for i in (0, 1)],
    )
    assert stored.options["turn_limit"] is None
    service.store.create_game(stored)
    game = store_end_turns(client, "oldgame", schemas.MAX_TURN_LIMIT + 3)
    st = state(client, "oldgame", f"tok{game.active}")
    assert st["status"] == "playing" and st["version"] == schemas.MAX_TURN_LIMIT + 3
    assert st["lobby"]["options"]["turn_limit"] is None
    assert st["view"] == game.view(game.active).to_json()
    r = end_turn(client, "oldgame", f"tok{game.active}", game.version)
    assert r.status_code == 200 and r.json()["status"] == "playing", r.text


def test_the_ceiling_is_documented_in_the_openapi_schema(client: TestClient) -> None:
    openapi = client.get("/openapi.json").json()
    options = openapi["components"]["schemas"]["CreateGameIn"]["properties"]["options"]
    assert str(schemas.MAX_TURN_LIMIT) in options["description"]
    assert "no winner" in options["description"] and "R23" in options["description"]
    assert "people_default" in openapi["components"]["schemas"]["OptionOut"]["properties"]
    assert "no winner" in openapi["info"]["description"]


@pytest.mark.parametrize("version", [False, True, "0", 0.5, "1"])
def test_an_action_s_version_must_be_a_whole_number(client: TestClient, version: Any) -> None:
    gid, tokens = new_game(client, ["human", "human"], seed=68, options={"first_player": 0})
    r = client.post(
        f"/api/games/{gid}/actions",
        json={"version": version, "action": {"type": "end-turn"}},
        headers=auth(tokens[0]),
    )
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["code"] == "invalid-request" and error["message"].startswith("version: ")
    assert state(client, gid)["version"] == 0


def test_a_version_written_as_a_whole_float_is_that_number(client: TestClient) -> None:
    """JSON Schema's ``integer`` admits 0.0, so the server takes it as 0 (the OpenAPI schema
    says what is accepted)."""
    gid, tokens = new_game(client, ["human", "human"], seed=68, options={"first_player": 0})
    r = client.post(
        f"/api/games/{gid}/actions",
        json={"version": 0.0, "action": {"type": "end-turn"}, "events_from": 0.0},
        headers=auth(tokens[0]),
    )
    assert r.status_code == 200, r.text
    assert state(client, gid)["version"] == 1


def test_a_chosen_seed_is_any_integer_from_0_below_2_to_the_63_and_nothing_else(
    client: TestClient,
) -> None:
    """The widest seeds round-trip through the store and deal the very game the engine deals."""
    for seed in (0, 2**31, 2**63 - 1):
        gid, tokens = new_game(client, ["human", "human"], seed=seed)
        stored = client.app.state.service.store.load_game(gid)  # type: ignore[attr-defined]
        assert stored.seed == seed
        dealt = Game.new(players=2, seed=seed, options=Options.from_json(stored.options))
        assert state(client, gid, tokens[0])["view"] == dealt.view(0).to_json()
    for bad in (2**63, -1, True, "5", 1.5, 2.0**63):
        body = {"seats": [{"kind": "human"}] * 2, "name": "A", "seed": bad}
        err = error_of(client.post("/api/games", json=body), 422, "invalid-request")
        assert err["message"].startswith("seed: "), err


def test_first_player_and_turn_limit_are_honoured(client: TestClient) -> None:
    """R23: the chosen seat starts; when turn N ends the game ends with no winner."""
    gid, tokens = new_game(
        client, ["human", "human", "human"], options={"first_player": 2, "turn_limit": 4}
    )
    st = state(client, gid, tokens[0])
    assert st["lobby"]["options"]["first_player"] == 2
    assert st["lobby"]["options"]["turn_limit"] == 4
    assert st["view"]["active"] == 2
    for _ in range(20):
        st = state(client, gid, tokens[0])
        if st["status"] == "over":
            break
        end_current_turn(client, gid, tokens[st["view"]["active"]])
    assert st["status"] == "over"
    assert st["view"]["winner"] is None
    assert st["view"]["turn"] == 4
    assert st["view"]["events"][-1] == {"type": "end", "winner": None, "reason": "turn-limit"}


@pytest.mark.parametrize(
    "options",
    [
        {"first_player": 2},  # two seats: 0 and 1
        {"first_player": -1},
        {"first_player": "0"},
        {"turn_limit": 0},
        {"turn_limit": -3},
        {"turn_limit": 2.5},
        {"turn_limit": "ten"},
        {"turn_limit": True},
    ],
)
def test_bad_first_player_or_turn_limit_is_refused(
    client: TestClient, options: dict[str, Any]
) -> None:
    r = client.post("/api/games", json={"seats": [{"kind": "human"}] * 2, "options": options})
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["code"] == "invalid-options"
    assert next(iter(options)) in error["message"]
