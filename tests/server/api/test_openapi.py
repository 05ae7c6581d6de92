"""The OpenAPI schema says no more than the server accepts (gotown/server/api/openapi.py): an
action has its type's fields, a seed only where seeds are allowed, a table of bots only at most
its turn limit. (Schemathesis checks the other direction: test_openapi_conformance.py.)"""

from __future__ import annotations

import random
from typing import Any

import jsonschema
import pytest

from gotown.engine import Game
from gotown.server.api.openapi import ACTION_FIELDS
from gotown.server.config import Settings
from gotown.server.main import create_app
from gotown.server.schemas import BOTS_ONLY_TURN_LIMIT


def _validator(settings: Settings, model: str) -> jsonschema.Draft202012Validator:
    document = create_app(settings).openapi()
    root = {"$ref": f"#/components/schemas/{model}", "components": document["components"]}
    return jsonschema.Draft202012Validator(root)


def _admits(validator: jsonschema.Draft202012Validator, body: Any) -> bool:
    return not list(validator.iter_errors(body))


def test_an_action_is_admitted_only_with_its_type_s_fields() -> None:
    check = _validator(Settings(), "ActionIn")
    for action in ({}, {"type": "build"}, {"type": "end-turn", "target": 1}, {"type": "fly"}):
        assert not _admits(check, {"version": 0, "action": action}), action
    assert _admits(check, {"version": 0, "action": {"type": "dog", "floor": 0}})
    # Every action the engine makes, over whole games of 2 to 4 seats, is admitted.
    seen = set()
    for players in (2, 3, 4):
        for seed in range(6):
            game, rng = Game.new(players=players, seed=seed), random.Random(seed)
            while not game.is_over:
                for action in game.legal_actions():
                    seen.add(action.type)
                    assert _admits(check, {"version": 0, "action": action.to_json()}), action
                game.apply(rng.choice(game.legal_actions()))
    assert seen <= set(ACTION_FIELDS) and len(seen) >= 8


@pytest.mark.parametrize("allow_seed", [False, True])
def test_a_seed_is_admitted_only_where_the_server_allows_it(allow_seed: bool) -> None:
    check = _validator(Settings(allow_seed=allow_seed), "CreateGameIn")
    body = {"seats": [{"kind": "human"}, {"kind": "human"}], "seed": 3}
    assert _admits(check, body) is allow_seed
    assert _admits(check, {"seats": body["seats"]})


def test_a_table_of_bots_only_is_admitted_with_at_most_its_turn_limit() -> None:
    check = _validator(Settings(), "CreateGameIn")
    bots = [{"kind": "bot", "level": "easy"}] * 2
    person = [{"kind": "human"}, {"kind": "bot"}]
    assert _admits(check, {"seats": bots, "options": {"turn_limit": BOTS_ONLY_TURN_LIMIT}})
    assert not _admits(check, {"seats": bots, "options": {"turn_limit": BOTS_ONLY_TURN_LIMIT + 1}})
    assert _admits(check, {"seats": person, "options": {"turn_limit": 10_000}})
