"""Circles of friends and ratings on one scale for people and bots (services/circles.py)."""

from __future__ import annotations

import random

import pytest
from fastapi.testclient import TestClient
from openskill.models import PlackettLuce

from gotown.bots import make_bot
from gotown.engine import Game
from gotown.server.services.circles import bot_ratings, new_rating, plays_like, ranks, rate

from ..helpers import auth, error_of, invite_code, service_of, wait_until


def player(client: TestClient, name: str) -> dict[str, str]:
    r = client.post("/api/players", json={"name": name})
    assert r.status_code == 201, r.text
    return {"X-Player-Key": r.json()["key"]}


def me(client: TestClient, key: dict[str, str]) -> str:
    player_id: str = client.get("/api/me", headers=key).json()["player_id"]
    return player_id


def circle_of(client: TestClient, names: list[str]) -> tuple[str, list[dict[str, str]]]:
    keys = [player(client, name) for name in names]
    made = client.post("/api/circles", json={"name": "Family"}, headers=keys[0])
    assert made.status_code == 201, made.text
    code = made.json()["invite_url"].rsplit("/c/", 1)[1]
    for key in keys[1:]:
        joined = client.post(f"/api/circle-invitations/{code}/join", json={}, headers=key)
        assert joined.status_code == 201, joined.text
    return made.json()["circle_id"], keys


def circle_table(
    client: TestClient, circle_id: str, keys: list[dict[str, str]], bots: int, seed: int
) -> str:
    """A table of the circle: its members' seats, then bots; every person hands their seat to a
    bot, which plays it to the end (the seat stays theirs for the ratings)."""
    seats = [{"kind": "human"}] * len(keys) + [{"kind": "bot", "level": "easy"}] * bots
    created = client.post(
        "/api/games",
        json={"name": "p0", "seats": seats, "seed": seed, "circle_id": circle_id,
              "options": {"win_floors": 4}},
        headers=keys[0],
    )  # fmt: skip
    assert created.status_code == 201, created.text
    game = created.json()
    tokens = {0: game["token"]}
    for seat, key in enumerate(keys[1:], start=1):
        j = client.post(
            f"/api/games/{game['game_id']}/join",
            json={"code": invite_code(game), "name": f"p{seat}", "seat": seat},
            headers=key,
        )
        assert j.status_code == 200, j.text
        tokens[seat] = j.json()["token"]
    for seat, token in tokens.items():
        r = client.post(
            f"/api/games/{game['game_id']}/seats/{seat}/bot",
            json={"level": "easy"},
            headers=auth(token),
        )
        assert r.status_code == 200, r.text
    wait_until(client, game["game_id"], None, lambda st: st["status"] == "over")
    rated_once_done(client)
    return str(game["game_id"])


def rated_once_done(client: TestClient) -> None:
    """Wait (bounded) until the ratings of the games that ended are stored."""
    import time

    circles = service_of(client).circles
    for _ in range(2000):
        if not circles._tasks:
            return
        time.sleep(0.005)
    raise AssertionError("the ratings were not stored")


def ending(client: TestClient, game_id: str) -> str:
    reason: str = client.get(f"/api/games/{game_id}/state").json()["view"]["reason"]
    return reason


def test_a_circle_is_made_joined_and_left_with_names_unique_in_it(client: TestClient) -> None:
    circle_id, (ann, bob, cleo) = circle_of(client, ["Ann", "Bob", "Cleo"])
    view = client.get(f"/api/circles/{circle_id}", headers=ann).json()
    assert [m["name"] for m in view["members"]] == ["Ann", "Bob", "Cleo"]
    assert {row["level"] for row in view["leaderboard"]} >= set(bot_ratings())
    code = view["invite_url"].rsplit("/c/", 1)[1]
    dave = player(client, "Ann")  # the same name as a member's
    r = client.post(f"/api/circle-invitations/{code}/join", json={}, headers=dave)
    error_of(r, 409, "name-taken")
    r = client.post(f"/api/circle-invitations/{code}/join", json={"name": "Dave"}, headers=dave)
    assert r.status_code == 201
    # Only the creator removes another; anyone leaves.
    bob_id, cleo_id = me(client, bob), me(client, cleo)
    error_of(client.delete(f"/api/circles/{circle_id}/members/{cleo_id}", headers=bob), 403,
             "not-creator")  # fmt: skip
    assert (
        client.delete(f"/api/circles/{circle_id}/members/{bob_id}", headers=bob).status_code == 204
    )
    assert (
        client.delete(f"/api/circles/{circle_id}/members/{cleo_id}", headers=ann).status_code == 204
    )
    names = [
        m["name"] for m in client.get(f"/api/circles/{circle_id}", headers=ann).json()["members"]
    ]
    assert names == ["Ann", "Dave"]
    error_of(client.get(f"/api/circles/{circle_id}", headers=bob), 404, "unknown-circle")
    assert client.patch(f"/api/circles/{circle_id}/members/me", json={"name": "Dave"},
                        headers=ann).status_code == 409  # fmt: skip


def test_a_member_finds_the_invitation_of_a_table_waiting_on_the_circle_page(
    client: TestClient,
) -> None:
    circle_id, (ann, bob) = circle_of(client, ["Ann", "Bob"])
    created = client.post(
        "/api/games",
        json={"name": "Ann", "seats": [{"kind": "human"}] * 2, "circle_id": circle_id},
        headers=ann,
    ).json()
    tables = client.get(f"/api/circles/{circle_id}", headers=bob).json()["tables"]
    assert [(t["game_id"], t["status"]) for t in tables] == [(created["game_id"], "lobby")]
    assert tables[0]["invite_url"] == created["invite_url"]
    # Bob sits by it; the table starts, and its invitation is no longer shown.
    r = client.post(
        f"/api/games/{created['game_id']}/join",
        json={"code": tables[0]["invite_url"].rsplit("/j/", 1)[1], "name": "Bob"},
        headers=bob,
    )
    assert r.status_code == 200, r.text
    tables = client.get(f"/api/circles/{circle_id}", headers=ann).json()["tables"]
    assert [(t["status"], t["invite_url"]) for t in tables] == [("playing", None)]


def test_nothing_of_a_circle_is_shown_to_anyone_outside_it(client: TestClient) -> None:
    circle_id, (ann, bob) = circle_of(client, ["Ann", "Bob"])
    game_id = circle_table(client, circle_id, [ann, bob], bots=0, seed=11)
    stranger = player(client, "Eve")
    ann_id = me(client, ann)
    reads = [
        f"/api/circles/{circle_id}",
        f"/api/circles/{circle_id}/players/{ann_id}",
        f"/api/games/{game_id}/ratings",
    ]
    for path in reads:
        for who in ({}, stranger):
            r = client.get(path, headers=who)
            assert r.status_code in (401, 403, 404), (path, who, r.status_code)
            assert "Ann" not in r.text and ann_id not in r.text
        assert client.get(path, headers=ann).status_code == 200, path
    error_of(client.get("/api/circle-invitations/not-its-code"), 404, "unknown-circle")
    # A stranger can neither sit at the circle's table nor make one of its tables.
    created = client.post(
        "/api/games",
        json={"name": "Ann", "seats": [{"kind": "human"}] * 2, "circle_id": circle_id},
        headers=ann,
    ).json()
    join = f"/api/games/{created['game_id']}/join"
    r = client.post(join, json={"code": invite_code(created), "name": "Eve"}, headers=stranger)
    error_of(r, 403, "not-a-member")
    r = client.post(join, json={"code": invite_code(created), "name": "Eve"})
    error_of(r, 403, "not-a-member")
    r = client.post("/api/games", json={"seats": [{"kind": "human"}] * 2, "name": "Eve",
                                        "circle_id": circle_id}, headers=stranger)  # fmt: skip
    error_of(r, 404, "unknown-circle")


def _recomputed(client: TestClient) -> dict[tuple[str, str], tuple[float, float]]:
    """Every stored rating, recomputed from the stored games with openskill directly."""
    service = service_of(client)
    store = service.store
    model = PlackettLuce()
    changes = store.rating_changes()
    order: list[str] = []
    for row in changes:
        if row["game_id"] not in order:
            order.append(row["game_id"])
    ratings: dict[tuple[str, str], tuple[float, float]] = {}
    for game_id in order:
        stored = store.load_game(game_id)
        game = service.registry.get(game_id).game  # type: ignore[union-attr]
        winner = game.outcome().winner
        for scope in (stored.circle_id, ""):
            teams, fixed = [], []
            for seat in stored.seats:
                if seat.player_id is not None:
                    mu, sigma = ratings.get((seat.player_id, scope), (model.mu, model.sigma))
                    fixed.append(None)
                else:
                    mu, sigma = bot_ratings()[seat.level]
                    fixed.append((mu, sigma))
                teams.append([model.rating(mu=mu, sigma=sigma)])
            after = model.rate(
                teams, ranks=[1 if s == winner else 2 for s in range(stored.players)]
            )
            for seat, team, keep in zip(stored.seats, after, fixed, strict=True):
                if keep is None:
                    ratings[(seat.player_id, scope)] = (team[0].mu, team[0].sigma)
    return ratings


@pytest.mark.parametrize("players", [2, 3, 4])
def test_ratings_are_openskill_s_recomputed_from_the_stored_games(
    client: TestClient, players: int
) -> None:
    people = min(players, 3)
    circle_id, keys = circle_of(client, ["Ann", "Bob", "Cleo"][:people])
    rated, unrated = 0, 0
    for seed in range(1, 40):
        game_id = circle_table(client, circle_id, keys, bots=players - people, seed=seed)
        changes = service_of(client).store.rating_changes(game_id=game_id)
        if ending(client, game_id) == "win":
            assert len(changes) == 2 * people  # each person, in the circle and over all
            rated += 1
        else:
            assert changes == []  # a game without a winner counts for nobody
            unrated += 1
        if rated >= 3:
            break
    assert rated >= 3
    expected = _recomputed(client)
    store = service_of(client).store
    for scope in (circle_id, ""):
        for player_id, (mu, sigma, _games) in store.ratings(scope).items():
            assert (mu, sigma) == pytest.approx(expected[(player_id, scope)])
    # The end screen's changes, for a seat of the last game.
    token_key = keys[0]
    shown = client.get(f"/api/games/{game_id}/ratings", headers=token_key).json()
    assert shown["rated"] == (ending(client, game_id) == "win")


def test_a_game_without_a_winner_is_not_rated(client: TestClient) -> None:
    circle_id, keys = circle_of(client, ["Ann", "Bob"])
    created = client.post(
        "/api/games",
        json={"name": "Ann", "seats": [{"kind": "human"}] * 2, "seed": 3, "circle_id": circle_id,
              "options": {"turn_limit": 2}},
        headers=keys[0],
    ).json()  # fmt: skip
    join = f"/api/games/{created['game_id']}/join"
    j = client.post(join, json={"code": invite_code(created), "name": "Bob"}, headers=keys[1])
    assert j.status_code == 200
    for key in (keys[0], keys[1]):
        st = client.get(f"/api/games/{created['game_id']}/state", headers=key).json()
        mine = st["view"]["active"] == st["seat"]
        player_key = key if mine else keys[1 - keys.index(key)]
        st = client.get(f"/api/games/{created['game_id']}/state", headers=player_key).json()
        client.post(f"/api/games/{created['game_id']}/actions",
                    json={"version": st["version"], "action": {"type": "end-turn"}},
                    headers=player_key)  # fmt: skip
    final = wait_until(client, created["game_id"], None, lambda st: st["status"] == "over")
    assert final["view"]["reason"] == "turn-limit"
    assert service_of(client).store.rating_changes(game_id=created["game_id"]) == []


def test_a_player_s_page_counts_their_games(client: TestClient) -> None:
    circle_id, (ann, bob) = circle_of(client, ["Ann", "Bob"])
    for seed in (4, 5, 6):
        circle_table(client, circle_id, [ann, bob], bots=1, seed=seed)
    page = client.get("/api/me/page", headers=ann).json()
    assert page["games"] == 3 and page["wins_by_players"]["3"]["games"] == 3
    heads = {(h["kind"], h["opponent"]): h for h in page["head_to_head"]}
    assert heads[("person", "p1")]["games"] == 3 and heads[("bot", "easy")]["games"] == 3
    assert len(page["recent"]) == 3
    wins = page["wins_by_players"]["3"]["wins"]
    assert wins == sum(g["you_won"] for g in page["recent"])
    if page["rating"] is not None:
        assert page["plays_like"] in bot_ratings() and page["history"]
    bob_id = me(client, bob)
    seen = client.get(f"/api/circles/{circle_id}/players/{bob_id}", headers=ann).json()
    assert seen["name"] == "Bob" and seen["games"] == 3


def test_deleting_a_player_keeps_their_games_under_a_former_player(client: TestClient) -> None:
    circle_id, (ann, bob) = circle_of(client, ["Ann", "Bob"])
    game_id = circle_table(client, circle_id, [ann, bob], bots=0, seed=8)
    assert client.delete("/api/me", headers=bob).status_code == 204
    error_of(client.get("/api/me", headers=bob), 403, "wrong-key")
    stored = service_of(client).store.load_game(game_id)
    assert stored.seats[1].name == "a former player"
    names = [
        m["name"] for m in client.get(f"/api/circles/{circle_id}", headers=ann).json()["members"]
    ]
    assert names == ["Ann"]


def test_a_player_who_plays_as_medium_converges_on_medium_s_rating() -> None:
    """A few hundred rated games of a person who always plays as ``medium`` would, against the
    bots (their fixed ratings): their rating ends within its uncertainty of medium's."""
    rating = new_rating()
    rng = random.Random(7)
    opponents = ["random", "easy", "medium"]
    for index in range(300):
        level = opponents[index % len(opponents)]
        game = Game.new(players=2, seed=rng.getrandbits(32), options={"turn_limit": 300})
        bots = [make_bot("medium", index * 2), make_bot(level, index * 2 + 1)]
        while not game.is_over:
            seat = game.active
            game.apply(bots[seat].choose(game.view(seat), game.legal_actions()))
        winner = game.outcome().winner
        if winner is None:
            continue
        rating, _ = rate([rating, bot_ratings()[level]], ranks(winner, 2), [False, True])
    medium = bot_ratings()["medium"]
    assert abs(rating[0] - medium[0]) <= 2 * (rating[1] ** 2 + medium[1] ** 2) ** 0.5, rating
    assert plays_like(rating) == "medium"  # nearer medium's rating than easy's or hard's
