"""The OpenAPI schema made as strict as the services' checks where the wire models cannot say
it themselves (:mod:`~gotown.server.schemas` depends on pydantic only, not on the engine nor
the bots): a bot's level is one of the bots' levels, a person's seat takes none, each R23
option takes the values the engine takes, and ``first_player`` is one of the game's seats.

A client generating requests from the schema then never sends one that the server refuses
for its content; the test suite checks it with schemathesis (``test_openapi_conformance``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI

from gotown.bots import LEVELS
from gotown.engine import OPTION_CHOICES

from .. import schemas


def _options_schema() -> dict[str, Any]:
    properties: dict[str, Any] = {
        name: {"enum": list(choices)} for name, choices in OPTION_CHOICES.items()
    }
    properties["turn_limit"] = {
        "anyOf": [
            {"type": "integer", "minimum": 1, "maximum": schemas.MAX_TURN_LIMIT},
            {"type": "null"},
        ]
    }
    return {"type": "object", "properties": properties, "additionalProperties": False}


def _first_player_among_the_seats() -> list[dict[str, Any]]:
    """For 2 and 3 seats: ``first_player`` is ``random`` or a seat's number."""
    rules = []
    for seats in (2, 3):
        choices = ["random", *range(seats)]
        rules.append(
            {
                "if": {"properties": {"seats": {"maxItems": seats}}, "required": ["seats"]},
                "then": {
                    "properties": {"options": {"properties": {"first_player": {"enum": choices}}}}
                },
            }
        )
    return rules


def refine(schema: dict[str, Any], levels: Sequence[str] = LEVELS) -> dict[str, Any]:
    """``schema`` (FastAPI's) with the constraints of the module's docstring added; ``levels``:
    the bot levels the server seats (the trained policies it offers included)."""
    models = schema["components"]["schemas"]
    seat = models["SeatSpec"]
    seat["properties"]["level"]["anyOf"] = [{"enum": list(levels)}, {"type": "null"}]
    # A person's seat (the default kind) takes no level.
    seat["if"] = {"not": {"properties": {"kind": {"const": "bot"}}, "required": ["kind"]}}
    seat["then"] = {"properties": {"level": {"type": "null"}}}
    hand_over = models["HandOverIn"]["properties"]["level"]
    hand_over["enum"] = list(levels)
    create = models["CreateGameIn"]
    create["properties"]["options"] = {**create["properties"]["options"], **_options_schema()}
    create["allOf"] = _first_player_among_the_seats()
    return schema


def install(app: FastAPI) -> None:
    """Serve the refined schema at ``/openapi.json`` (made once, on first request)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            service = getattr(app.state, "service", None)  # (set while the app runs)
            levels = service.bots.levels() if service is not None else LEVELS
            app.openapi_schema = refine(build(), levels)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
