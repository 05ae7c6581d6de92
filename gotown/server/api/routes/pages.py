"""The page (one page serves home, join, table, watch and replay: its script reads the path),
the rules in each language, and ``/healthz``. Not in the OpenAPI schema."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response

from gotown.texts import rules_html

from ... import schemas
from ...errors import NotFoundError

STATIC_DIR = Path(str(files("gotown.server") / "static"))

router = APIRouter(include_in_schema=False)


def page() -> FileResponse:
    index = STATIC_DIR / "index.html"
    return FileResponse(index, media_type="text/html", headers={"Cache-Control": "no-cache"})


for _path in ("/", "/j/{code}", "/g/{game_id}", "/w/{game_id}", "/r/{game_id}"):
    router.add_api_route(_path, page, methods=["GET"])


@router.get("/rules")
async def rules_default(request: Request) -> RedirectResponse:
    lang = preferred_language(request.headers.get("accept-language", ""))
    return RedirectResponse(f"/rules/{lang}", headers={"Vary": "Accept-Language"})


@router.get("/rules/{lang}")
async def rules(lang: str) -> Response:
    if lang not in schemas.LANGUAGES:
        raise NotFoundError("unknown-language", f"no rules page in {lang!r}")
    return HTMLResponse(rules_html(lang))


@router.get("/healthz")
async def health() -> dict[str, Any]:
    return {"ok": True}


def preferred_language(accept_language: str) -> str:
    """The first language of an Accept-Language header (by its q weights, then its order)
    that the table speaks (:data:`schemas.LANGUAGES`), else English."""
    choices: list[tuple[float, int, str]] = []
    for index, part in enumerate(accept_language.split(",")[:32]):
        tag, _, params = part.strip().partition(";")
        weight = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        code = tag.strip().split("-")[0].lower()  # the primary subtag: "csb" is not "cs"
        if weight > 0 and code in schemas.LANGUAGES:
            choices.append((-weight, index, code))
    return min(choices)[2] if choices else "en"
