"""The page (one page serves home, join, table, watch and replay: its script reads the path),
the rules in each language (``/healthz``: routes/health.py). Not in the OpenAPI schema.

The page's files are served twice: under ``/static/v/<version>/`` (the version: a digest of
every file, so a new release has new addresses) for ever (``immutable``), which is where the
page loads them from (its modules import each other by relative addresses, so the whole graph
stays in one version); and under ``/static/`` (the rules pages, the manifest's icons) checked
with the server each time (``no-cache``). Both compressed (gzip) when the browser takes it."""

from __future__ import annotations

import hashlib
import re
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp

from gotown.texts import LANGUAGES, rules_html

from ... import schemas
from ...errors import NotFoundError

STATIC_DIR = Path(str(files("gotown.server") / "static"))
_TEMPLATES = Environment(
    loader=PackageLoader("gotown.server", "templates"),
    autoescape=select_autoescape(["html.jinja"]),
    keep_trailing_newline=True,
)

router = APIRouter(include_in_schema=False)


@cache
def static_version() -> str:
    """A digest of the page's files (their names and contents)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in STATIC_DIR.rglob("*") if p.is_file()):
        digest.update(path.relative_to(STATIC_DIR).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def versioned_prefix() -> str:
    return f"/static/v/{static_version()}"


@cache
def _page_html() -> str:
    html = (STATIC_DIR / "index.html").read_text("utf-8")
    return re.sub(r'((?:src|href)=")/static/', rf"\1{versioned_prefix()}/", html)


def page() -> HTMLResponse:
    return HTMLResponse(_page_html(), headers={"Cache-Control": "no-cache"})


for _path in (
    "/", "/j/{code}", "/g/{game_id}", "/w/{game_id}", "/r/{game_id}", "/d/{secret}",
    "/unsubscribe/{code}", "/c/{code}", "/circle/{circle_id}", "/me",
):  # fmt: skip
    router.add_api_route(_path, page, methods=["GET"])


@router.get("/sw.js")
async def service_worker() -> Response:
    """The page's service worker (``static/sw.js``: it shows the "your turn" notices and opens
    their table). Served at the site's root, as a worker's scope is at most its own folder:
    this one's is the whole site. Checked with the server each time (browsers look for a new
    worker at most a day apart in any case), never under a versioned address: its address is
    what a registration keeps."""
    return FileResponse(
        STATIC_DIR / "sw.js",
        media_type="text/javascript",
        headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"},
    )


class _CachedFiles(StaticFiles):
    """Static files with one Cache-Control for all."""

    def __init__(self, *, cache_control: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cache_control = cache_control

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers["Cache-Control"] = self.cache_control
        return response


def static_files(directory: Path | str, *, immutable: bool) -> ASGIApp:
    """``directory``'s files, gzip-compressed (from 1 KiB; at level 6, as nginx's default,
    about as small as 9 for text and cheaper), kept by browsers for ever when ``immutable``
    (their address changes with them), else checked each time."""
    control = "public, max-age=31536000, immutable" if immutable else "no-cache"
    files = _CachedFiles(directory=directory, cache_control=control)
    return GZipMiddleware(files, minimum_size=1024, compresslevel=6)


@router.get("/rules")
async def rules_default(request: Request) -> RedirectResponse:
    lang = preferred_language(request.headers.get("accept-language", ""))
    return RedirectResponse(f"/rules/{lang}", headers={"Vary": "Accept-Language"})


@cache
def rules_page(lang: str) -> str:
    """The rules page in ``lang``: the article of :mod:`gotown.texts` in the page around it
    (``templates/rules.html.jinja``: its title, the links to the other languages)."""
    article = rules_html(lang)
    title = re.search(r"<h1>(.*?)</h1>", article)
    assert title is not None, f"the rules in {lang!r} have no <h1>"
    template = _TEMPLATES.get_template("rules.html.jinja")
    return template.render(lang=lang, languages=LANGUAGES, title=title[1], article=article.rstrip())


@router.get("/rules/{lang}")
async def rules(lang: str) -> Response:
    if lang not in schemas.LANGUAGES:
        raise NotFoundError("unknown-language", f"no rules page in {lang!r}")
    return HTMLResponse(rules_page(lang))


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
