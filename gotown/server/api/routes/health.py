"""``/healthz``, ``/readyz`` and ``/metrics``: for load balancers, container engines and the
operator (:mod:`gotown.server.operations`). Not in the OpenAPI schema.

- ``/healthz``: the process answers (liveness); ``{"ok": true}``.
- ``/readyz``: 200 when it should be sent players (database, migrations, Redis, not stopping),
  else 503; the body names each check.
- ``/metrics``: Prometheus's text, only to the bearer of ``GOTOWN_OPERATOR_TOKEN``
  (``Authorization: Bearer TOKEN``: 401 otherwise); without that setting, not here (404) but
  on the operator port, if any.
"""

from __future__ import annotations

import hmac
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from ... import metrics

if TYPE_CHECKING:
    from ...operations import Operations

router = APIRouter(include_in_schema=False)


def _operations(request: Request) -> Operations:
    operations: Operations = request.app.state.operations
    return operations


@router.get("/healthz")
async def health() -> dict[str, Any]:
    return {"ok": True}


@router.get("/readyz")
async def ready(request: Request) -> JSONResponse:
    answer = await _operations(request).readiness()
    return JSONResponse(answer.to_json(), status_code=200 if answer.ready else 503)


@router.get("/metrics")
async def metrics_text(request: Request) -> Response:
    operations = _operations(request)
    token = operations.settings.operator_token
    if not token:
        return Response("not found\n", status_code=404, media_type="text/plain")
    given = request.headers.get("authorization", "")
    scheme, _, credentials = given.partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(
        credentials.strip().encode("utf-8", "surrogatepass"), token.encode()
    ):
        return Response(
            "the operator's token is needed: Authorization: Bearer TOKEN\n",
            status_code=401,
            media_type="text/plain",
            headers={"WWW-Authenticate": 'Bearer realm="gotown-metrics"'},
        )
    return Response(metrics.render(operations.metrics), media_type=metrics.CONTENT_TYPE)
