"""Refusals: the domain errors the services raise, and the one place that maps them to HTTP.

The services say what kind of refusal it is (:class:`NotFoundError`, :class:`ForbiddenError`,
:class:`ConflictError`, :class:`InvalidError`, :class:`BusyError`, :class:`UnavailableError`,
...) with a short machine code and a sentence for people; they know nothing of HTTP.
:data:`STATUS` gives each kind its status (a WebSocket closes with 4000 + that status), and
:func:`install` registers the handlers that answer ``{"error": {"code", "message", "rule"?}}``.

:data:`CODES` lists every code the server sends: the page has a sentence for each
(``err_{code}`` in every ``static/i18n/*.json``), and a refusal with a code not listed, or listed
under another kind, is a bug caught when it is raised.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match


class DomainError(Exception):
    """A refusal: a short machine code, a sentence for people, and the rule it applies."""

    def __init__(self, code: str, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        kind = CODES.get(code)
        if kind is None or not isinstance(self, kind):
            raise ValueError(f"error code {code!r} is not a {type(self).__name__} in CODES")
        self.code = code
        self.message = message
        self.rule = rule

    def body(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.rule:
            error["rule"] = self.rule
        return {"error": error}


class MalformedError(DomainError):
    """The request cannot be read (not JSON, a bad first socket message)."""


class UnauthenticatedError(DomainError):
    """It needs a seat's token and came without one."""


class ForbiddenError(DomainError):
    """A token or an invitation code that is not this game's."""


class NotFoundError(DomainError):
    """No such game, seat, invitation or page."""


class ConflictError(DomainError):
    """Not now: the game or the seat is not in a state that allows it."""


class GoneError(DomainError):
    """It was, and was withdrawn for good (a revoked device link)."""


class InvalidError(DomainError):
    """Well-formed, but not a value this accepts (an illegal move names its rule)."""


class BusyError(DomainError):
    """Too much of it under way: try again later; nothing was queued or stored."""


class UnavailableError(DomainError):
    """Something it needs does not answer (the database, Redis, the bots): nothing changed."""


STATUS: dict[type[DomainError], int] = {
    MalformedError: 400,
    UnauthenticatedError: 401,
    ForbiddenError: 403,
    NotFoundError: 404,
    ConflictError: 409,
    GoneError: 410,
    InvalidError: 422,
    BusyError: 429,
    UnavailableError: 503,
}

#: Every error code the server sends, and its kind. The middleware's and the socket's own
#: (``body-too-large``, ``too-many-requests``, ``unknown-message``) are listed for the page.
CODES: dict[str, type[DomainError]] = {
    "bad-request": MalformedError,
    "malformed-json": MalformedError,
    "missing-key": UnauthenticatedError,
    "missing-token": UnauthenticatedError,
    "not-a-member": ForbiddenError,
    "not-creator": ForbiddenError,
    "wrong-key": ForbiddenError,
    "wrong-token": ForbiddenError,
    "wrong-invitation": ForbiddenError,
    "unknown-game": NotFoundError,
    "unknown-invitation": NotFoundError,
    "unknown-language": NotFoundError,
    "unknown-lesson": NotFoundError,
    "unknown-circle": NotFoundError,
    "unknown-link": NotFoundError,
    "unknown-member": NotFoundError,
    "unknown-page": NotFoundError,
    "unknown-subscription": NotFoundError,
    "already-bot": ConflictError,
    "game-over": ConflictError,
    "mail-off": ConflictError,
    "name-taken": ConflictError,
    "push-off": ConflictError,
    "standin-plays": ConflictError,
    "no-free-seat": ConflictError,
    "no-hint": ConflictError,
    "not-over": ConflictError,
    "not-running": ConflictError,
    "not-started": ConflictError,
    "not-your-turn": ConflictError,
    "rematch-seat-taken": ConflictError,
    "seat-is-bot": ConflictError,
    "seat-present": ConflictError,
    "seat-taken": ConflictError,
    "stale-version": ConflictError,
    "revoked-link": GoneError,
    "illegal-action": InvalidError,
    "invalid-action": InvalidError,
    "invalid-name": InvalidError,
    "invalid-options": InvalidError,
    "invalid-pace": InvalidError,
    "invalid-subscription": InvalidError,
    "invalid-request": InvalidError,
    "level-for-person": InvalidError,
    "seed-not-allowed": InvalidError,
    "unknown-level": InvalidError,
    "estimate-busy": BusyError,
    "too-many-bot-tables": BusyError,
    "too-many-requests": BusyError,
    "bots-unavailable": UnavailableError,
    "estimate-failed": UnavailableError,
    "presence-unavailable": UnavailableError,
    "storage-unavailable": UnavailableError,
    # A 404 for a seat in the path, a 422 for one in the body: either kind.
    "unknown-seat": DomainError,
    # Sent by the middleware and the socket, not raised: the page needs their words too.
    "body-too-large": DomainError,
    "unknown-message": DomainError,
}


def status_of(error: DomainError) -> int:
    """The HTTP status of a refusal (its kind's)."""
    return next(status for kind, status in STATUS.items() if isinstance(error, kind))


def describe_invalid(errors: Sequence[Any]) -> str:
    """Pydantic's errors as one line naming each wrong field (the first five): what a 422
    ``invalid-request`` says, over HTTP and over the WebSocket alike."""
    parts = []
    for e in errors[:5]:
        where = ".".join(str(p) for p in e.get("loc", ()) if p != "body")
        parts.append(f"{where or 'body'}: {e.get('msg', 'invalid')}")
    return "; ".join(parts)


def describe_unparsable(exc: BaseException | None) -> str:
    """What is wrong with a body (or a socket message) that is not JSON Python can read, as
    far as the error tells: nested too deeply, a number too long, not UTF-8, or not JSON."""
    if isinstance(exc, RecursionError):
        return "not JSON this server reads: arrays and objects are nested too deeply"
    if isinstance(exc, UnicodeDecodeError):
        return "not JSON: the body is not UTF-8 text"
    if isinstance(exc, ValueError) and "digits" in str(exc):
        return (
            "not JSON this server reads: a number has more than "
            f"{sys.get_int_max_str_digits()} digits"
        )
    return "not valid JSON"


def _answer(code: str, message: str, status: int, headers: Any = None) -> JSONResponse:
    body = {"error": {"code": code, "message": message}}
    return JSONResponse(body, status_code=status, headers=headers)


async def _domain_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, DomainError)
    return JSONResponse(exc.body(), status_code=status_of(exc))


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    kind = request.headers.get("content-type", "")
    media = kind.split(";")[0].strip().lower()
    body_errors = any(tuple(e.get("loc", ()))[:1] == ("body",) for e in errors)
    if body_errors and media != "application/json" and not media.endswith("+json"):
        # FastAPI reads a body as JSON only when it says it is: name that, not the fields.
        sent = f"it came as {kind!r}" if kind else "it came without one"
        message = f"send the body as JSON, with Content-Type: application/json ({sent})"
        return _answer("invalid-request", message, 422)
    if any(e.get("type") == "json_invalid" for e in errors):
        return _answer("malformed-json", "the request body is not valid JSON", 400)
    return _answer("invalid-request", describe_invalid(errors), 422)


def allowed_methods(request: Request) -> list[str]:
    """Every method some route of the app answers at the request's path. (Starlette's 405
    names only the first route's methods: a path routed for GET and POST apart said
    ``Allow: GET``.)"""
    routes = request.app.router.routes
    return [
        method
        for method in METHODS
        if any(r.matches({**request.scope, "method": method})[0] == Match.FULL for r in routes)
    ]


#: The methods a route may answer (asked of the router one by one for the ``Allow`` header).
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    cause = exc.__cause__
    if exc.status_code == 400 and isinstance(cause, (RecursionError, ValueError)):
        # FastAPI's "There was an error parsing the body": JSON that json.loads refuses
        # otherwise than as malformed (nested too deeply, a number too long, not UTF-8).
        return _answer("malformed-json", describe_unparsable(cause), 400)
    headers = dict(getattr(exc, "headers", None) or {})
    message = str(exc.detail)
    if exc.status_code == 405:
        allowed = allowed_methods(request)
        if allowed:
            headers["Allow"] = ", ".join(allowed)
            message = f"{request.method} is not answered here: {headers['Allow']}"
    return _answer(f"http-{exc.status_code}", message, exc.status_code, headers or None)


def install(app: FastAPI) -> None:
    """Answer every refusal, and FastAPI's own, as ``{"error": {...}}``."""
    app.add_exception_handler(DomainError, _domain_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
