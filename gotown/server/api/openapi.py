"""The OpenAPI schema made as strict as the services' checks where the wire models cannot say
it themselves (:mod:`~gotown.server.schemas` depends on pydantic only, not on the engine nor
the bots): a bot's level is one of the bots' levels, a person's seat takes none, each R23
option takes the values the engine takes, ``first_player`` is one of the game's seats, a table
of bots only asks for at most its turn limit, a missed turn's rule (``on_timeout``,
``missed_limit``) comes only with a ``pace``, an action has the fields of its type (FORMAT.md),
and a ``seed`` is admitted only by a server that lets clients choose it.

A client generating requests from the schema then never sends one that the server refuses
for its content; the test suite checks it with schemathesis (``test_openapi_conformance``).

The interactive documentation (Swagger UI at ``/docs``) works offline: its script and style
are served from the ``swagger-ui-bundle-v2`` package, and the page runs under a policy that
allows only this site, its one inline script admitted by its hash (no ``'unsafe-inline'``).
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from starlette.middleware.gzip import GZipMiddleware
from swagger_ui_bundle import swagger_ui_path

from gotown.bots import LEVELS
from gotown.engine import CODES, OPTION_CHOICES

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


#: Each action type's fields (FORMAT.md, "Actions"; ``gotown.engine.Action.from_json``), a
#: dog's target optional; ``tests/server/api/test_openapi.py`` checks them against the engine's.
_TARGET = {"type": "integer", "minimum": 0, "maximum": 3}
ACTION_FIELDS: dict[str, dict[str, Any]] = {
    "build": {"cards": {"type": "array", "items": {"enum": list(CODES)}, "minItems": 2,
                        "maxItems": 2}},
    "steal": {"card": {"enum": list(CODES)}, "target": _TARGET},
    "dog": {"floor": {"type": "integer", "minimum": 0, "maximum": 63}, "target?": _TARGET},
    "bone": {"target": _TARGET, "floor": {"type": "integer", "minimum": 0, "maximum": 63}},
    "jackhammer": {"target": _TARGET},
    "wrecking-ball": {"target": _TARGET},
    "thief": {"target": _TARGET},
    "super-thief": {},
    "milkshake": {"target": _TARGET},
    "donut-truck": {},
    "end-turn": {},
}  # fmt: skip


def action_schema() -> dict[str, Any]:
    """An action: one of the types, with exactly the fields of its type."""
    shapes = []
    for kind, fields in ACTION_FIELDS.items():
        properties = {"type": {"const": kind}, **{f.rstrip("?"): v for f, v in fields.items()}}
        required = ["type", *(f for f in fields if not f.endswith("?"))]
        shapes.append({"type": "object", "properties": properties, "required": required,
                       "additionalProperties": False})  # fmt: skip
    return {"oneOf": shapes}


def _bots_only_turn_limit() -> dict[str, Any]:
    """A table whose every seat is a bot asks for at most its turn limit."""
    every_seat_a_bot = {
        "properties": {
            "seats": {"items": {"properties": {"kind": {"const": "bot"}}, "required": ["kind"]}}
        },
        "required": ["seats"],
    }
    limit = {"type": "integer", "minimum": 1, "maximum": schemas.BOTS_ONLY_TURN_LIMIT}
    return {
        "if": every_seat_a_bot,
        "then": {
            "properties": {
                "options": {"properties": {"turn_limit": {"anyOf": [limit, {"type": "null"}]}}}
            }
        },
    }


def refine(
    schema: dict[str, Any], levels: Sequence[str] = LEVELS, *, allow_seed: bool = False
) -> dict[str, Any]:
    """``schema`` (FastAPI's) with the constraints of the module's docstring added; ``levels``:
    the bot levels the server seats (the trained policies it offers included); ``allow_seed``:
    whether the server lets clients choose the seed (else the schema admits none)."""
    models = schema["components"]["schemas"]
    action = models["ActionIn"]["properties"]["action"]
    models["ActionIn"]["properties"]["action"] = {
        **{k: v for k, v in action.items() if k not in ("type", "additionalProperties")},
        **action_schema(),
    }
    seat = models["SeatSpec"]
    seat["properties"]["level"]["anyOf"] = [{"enum": list(levels)}, {"type": "null"}]
    # A person's seat (the default kind) takes no level.
    seat["if"] = {"not": {"properties": {"kind": {"const": "bot"}}, "required": ["kind"]}}
    seat["then"] = {"properties": {"level": {"type": "null"}}}
    hand_over = models["HandOverIn"]["properties"]["level"]
    hand_over["enum"] = list(levels)
    create = models["CreateGameIn"]
    create["properties"]["options"] = {**create["properties"]["options"], **_options_schema()}
    create["allOf"] = [*_first_player_among_the_seats(), _bots_only_turn_limit()]
    if not allow_seed:
        create["properties"].pop("seed", None)
    # A missed turn is ended or played by a bot of a level; both only for a turn-based table.
    create["properties"]["on_timeout"]["anyOf"] = [
        {"enum": ["end", *(f"bot:{level}" for level in levels)]},
        {"type": "null"},
    ]
    create["allOf"].append(
        {
            "if": {"properties": {"pace": {"type": "null"}}},
            "then": {
                "properties": {"on_timeout": {"type": "null"}, "missed_limit": {"type": "null"}}
            },
        }
    )
    return schema


#: Where Swagger UI's files are served from (the package's copy of its release).
DOCS_ASSETS = "/docs/assets"


def docs_page(openapi_url: str, title: str) -> tuple[bytes, str]:
    """The documentation page (FastAPI's Swagger UI page, its files from :data:`DOCS_ASSETS`,
    no OAuth redirect, no online validator), and the Content-Security-Policy it needs: this
    site only, and the page's inline script by its SHA-256 (CSP level 2)."""
    page = get_swagger_ui_html(
        openapi_url=openapi_url,
        title=title,
        swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
        swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
        swagger_favicon_url="/static/icons/icon.svg",
        oauth2_redirect_url=None,
        swagger_ui_parameters={"validatorUrl": None},
    )
    body = bytes(page.body)
    inline = re.findall(rb"<script>(.*?)</script>", body, flags=re.DOTALL)
    hashes = "".join(
        f" 'sha256-{base64.b64encode(hashlib.sha256(script).digest()).decode()}'"
        for script in inline
    )
    policy = (
        f"default-src 'self'; script-src 'self'{hashes}; style-src 'self'; "
        "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
        "form-action 'self'; frame-ancestors 'none'"
    )
    return body, policy


def install(app: FastAPI) -> None:
    """Serve the refined schema at ``/openapi.json`` (made once, on first request), and the
    documentation at ``/docs`` with its files (the app is made with ``docs_url=None``)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            service = getattr(app.state, "service", None)  # (set while the app runs)
            levels = service.bots.levels() if service is not None else LEVELS
            settings = getattr(app.state, "settings", None)
            allow_seed = bool(settings is not None and settings.allow_seed)
            app.openapi_schema = refine(build(), levels, allow_seed=allow_seed)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    body, policy = docs_page(app.openapi_url or "/openapi.json", f"{app.title} - API")

    async def docs() -> HTMLResponse:
        return HTMLResponse(body, headers={"Content-Security-Policy": policy})

    app.add_api_route("/docs", docs, methods=["GET"], include_in_schema=False)
    files = StaticFiles(directory=str(swagger_ui_path))
    app.mount(DOCS_ASSETS, GZipMiddleware(files, minimum_size=1024, compresslevel=6))
