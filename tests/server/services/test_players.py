"""Players without a password: a name and a key per device, the tables they sit at on every
device, and device links (services/players.py)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from gotown.server.services.players import digest

from ..helpers import auth, error_of, invite_code, service_of, state


def new_player(client: TestClient, name: str = "Ann") -> dict[str, Any]:
    r = client.post("/api/players", json={"name": name})
    assert r.status_code == 201, r.text
    made: dict[str, Any] = r.json()
    assert len(made["key"]) >= 40 and made["name"] == name
    return made


def key(made: dict[str, Any]) -> dict[str, str]:
    return {"X-Player-Key": made["key"]}


def table(client: TestClient, player: dict[str, Any] | None, **extra: Any) -> dict[str, Any]:
    body = {"name": "Ann", "seats": [{"kind": "human"}, {"kind": "human"}], "seed": 5, **extra}
    r = client.post("/api/games", json=body, headers=key(player) if player else {})
    assert r.status_code == 201, r.text
    created: dict[str, Any] = r.json()
    return created


def test_a_player_is_a_name_and_a_key_kept_only_as_its_digest(client: TestClient) -> None:
    ann = new_player(client)
    r = client.get("/api/me", headers=key(ann))
    assert r.json() == {"player_id": ann["player_id"], "name": "Ann"}
    service = service_of(client)
    assert service.store.key_holder(ann["key"]) is None  # (the key itself is no row's)
    assert service.store.key_holder(digest(ann["key"])).player_id == ann["player_id"]
    renamed = client.patch("/api/me", json={"name": "Annie"}, headers=key(ann))
    assert renamed.json()["name"] == "Annie"
    assert client.get("/api/me", headers=key(ann)).json()["name"] == "Annie"


def test_bad_keys_and_names_are_refused_clearly(client: TestClient) -> None:
    error_of(client.get("/api/me"), 401, "missing-key")
    error_of(client.get("/api/me", headers={"X-Player-Key": "nobody's"}), 403, "wrong-key")
    error_of(client.get("/api/me/games", headers={"X-Player-Key": "x" * 43}), 403, "wrong-key")
    error_of(client.post("/api/players", json={"name": "   "}), 422, "invalid-name")
    error_of(client.post("/api/players", json={"name": "A" * 25}), 422, "invalid-request")
    error_of(client.post("/api/players", json={}), 422, "invalid-request")
    # A made-up "player:" token is a seat token like any other: it opens nothing.
    created = table(client, new_player(client))
    r = client.get(f"/api/games/{created['game_id']}/state", headers=auth("player:x"))
    error_of(r, 403, "wrong-token")


def test_a_seat_taken_with_a_key_opens_with_the_key_on_any_device(client: TestClient) -> None:
    ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
    created = table(client, ann)
    game_id = created["game_id"]
    joined = client.post(
        f"/api/games/{game_id}/join",
        json={"code": invite_code(created), "name": "Bob"},
        headers=key(bob),
    )
    assert joined.status_code == 200, joined.text
    by_token = state(client, game_id, created["token"])
    by_key = client.get(f"/api/games/{game_id}/state", headers=key(ann)).json()
    assert by_key["seat"] == by_token["seat"] == 0 and by_key["view"]["hand"]
    assert client.get(f"/api/games/{game_id}/state", headers=key(bob)).json()["seat"] == 1
    # Acting with the key is acting as the seat.
    active = by_key["view"]["active"]
    player = ann if active == 0 else bob
    mine = client.get(f"/api/games/{game_id}/state", headers=key(player)).json()
    r = client.post(
        f"/api/games/{game_id}/actions",
        json={"version": mine["version"], "action": {"type": "end-turn"}},
        headers=key(player),
    )
    assert r.status_code == 200, r.text
    # A third player has no seat here: a spectator's view is no seat's, an action is refused.
    carla = new_player(client, "Carla")
    error_of(
        client.post(
            f"/api/games/{game_id}/actions",
            json={"version": r.json()["version"], "action": {"type": "end-turn"}},
            headers=key(carla),
        ),
        403,
        "wrong-token",
    )


def test_my_games_lists_every_table_yours_first(client: TestClient) -> None:
    ann, bob = new_player(client, "Ann"), new_player(client, "Bob")
    games = []
    for seed in (3, 4, 5):
        created = table(client, ann, seed=seed)
        client.post(
            f"/api/games/{created['game_id']}/join",
            json={"code": invite_code(created), "name": "Bob"},
            headers=key(bob),
        )
        games.append(created["game_id"])
    alone = table(client, None)  # taken without a key: nobody's list
    listed = client.get("/api/me/games", headers=key(ann)).json()
    assert {g["game_id"] for g in listed["games"]} == set(games)
    assert alone["game_id"] not in {g["game_id"] for g in listed["games"]}
    flags = [g["your_turn"] for g in listed["games"]]
    assert flags == sorted(flags, reverse=True)  # your turn first
    for g in listed["games"]:
        public = state(client, g["game_id"])
        assert g["turn_seat"] == public["view"]["active"] and g["seat"] == 0
        assert g["your_turn"] == (public["view"]["active"] == 0)
        assert g["names"] == ["Ann", "Bob"] and g["play_url"].endswith(f"/g/{g['game_id']}")
    bobs = client.get("/api/me/games", headers=key(bob)).json()["games"]
    assert {g["seat"] for g in bobs} == {1}


def test_a_device_link_carries_the_player_until_it_is_revoked(client: TestClient) -> None:
    ann = new_player(client)
    created = table(client, ann)
    link = client.post("/api/me/links", headers=key(ann))
    assert link.status_code == 201, link.text
    url = link.json()["url"]
    secret = url.rsplit("/d/", 1)[1]
    opened = client.post(f"/api/device-links/{secret}")
    assert opened.status_code == 201, opened.text
    phone = opened.json()
    assert phone["player_id"] == ann["player_id"] and phone["key"] != ann["key"]
    mine = client.get("/api/me/games", headers=key(phone)).json()["games"]
    assert [g["game_id"] for g in mine] == [created["game_id"]]
    seen = client.get(f"/api/games/{created['game_id']}/state", headers=key(phone)).json()
    assert seen["seat"] == 0
    listed = client.get("/api/me/links", headers=key(ann)).json()
    assert [(x["id"], x["devices"], x["url"]) for x in listed] == [(link.json()["id"], 1, None)]
    # Revoked: refused from now on, and the phone's key with it (the laptop's stays).
    assert client.delete(f"/api/me/links/{link.json()['id']}", headers=key(ann)).status_code == 204
    error_of(client.post(f"/api/device-links/{secret}"), 410, "revoked-link")
    error_of(client.get("/api/me/games", headers=key(phone)), 403, "wrong-key")
    assert client.get("/api/me/games", headers=key(ann)).status_code == 200
    error_of(client.post("/api/device-links/not-a-link"), 404, "unknown-link")
    error_of(client.delete("/api/me/links/nope", headers=key(ann)), 404, "unknown-link")
    # Another player cannot revoke it.
    bob = new_player(client, "Bob")
    other = client.post("/api/me/links", headers=key(ann)).json()
    error_of(client.delete(f"/api/me/links/{other['id']}", headers=key(bob)), 404, "unknown-link")
