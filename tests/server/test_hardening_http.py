"""Pages and answers under hostile eyes: security headers, and no secret in the access log."""

from __future__ import annotations

import base64
import hashlib
import logging
import re

import pytest
from fastapi.testclient import TestClient

from gotown.server import logs

from .helpers import invite_code


@pytest.mark.parametrize("path", ["/", "/j/abc", "/rules/en", "/static/js/main.js", "/api/meta"])
def test_every_answer_carries_the_security_headers(client: TestClient, path: str) -> None:
    r = client.get(path)
    policy = r.headers["content-security-policy"]
    assert "script-src 'self';" in policy and "frame-ancestors 'none'" in policy
    assert "'unsafe-inline'" not in policy and "style-src 'self'" in policy
    assert "connect-src 'self'" in policy
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["x-content-type-options"] == "nosniff"


def test_refusals_carry_them_too(client: TestClient) -> None:
    refused = client.get("/api/games/nope/state")
    assert refused.status_code == 404 and refused.headers["x-frame-options"] == "DENY"
    assert "script-src 'self';" in refused.headers["content-security-policy"]


def test_the_api_docs_are_served_from_the_site_under_a_policy_of_its_own(
    client: TestClient,
) -> None:
    """/docs loads Swagger UI from this server (no CDN) and allows only this site: its one
    inline script by its hash, never 'unsafe-inline'."""
    docs = client.get("/docs")
    assert docs.status_code == 200 and docs.headers["x-content-type-options"] == "nosniff"
    policy = docs.headers["content-security-policy"]
    assert len(docs.headers.get_list("content-security-policy")) == 1
    assert "'unsafe-inline'" not in policy and "style-src 'self';" in policy
    assert "http" not in policy and "*" not in policy and "frame-ancestors 'none'" in policy
    (inline,) = re.findall(r"<script>(.*?)</script>", docs.text, flags=re.DOTALL)
    digest = base64.b64encode(hashlib.sha256(inline.encode()).digest()).decode()
    assert f"script-src 'self' 'sha256-{digest}';" in policy
    sources = re.findall(r'(?:src|href)="([^"]+)"', docs.text)
    assert sources and all(source.startswith("/") for source in sources), sources
    for source in sources:
        assert client.get(source).status_code == 200, source
    assert "SwaggerUIBundle" in client.get("/docs/assets/swagger-ui-bundle.js").text
    assert client.get("/redoc").status_code == 404  # (ReDoc would need a CDN)


def _access(path: str) -> logging.LogRecord:
    """A record as uvicorn's access logger makes it."""
    return logging.LogRecord(
        logs.ACCESS_LOGGER, logging.INFO, __file__, 1,
        '%s - "%s %s HTTP/%s" %d', ("127.0.0.1:5000", "GET", path, "1.1", 200), None,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("/j/Zx81-secret", "/j/***"),
        ("/api/invitations/Zx81-secret", "/api/invitations/***"),
        ("/api/invitations/Zx81-secret/qr.svg", "/api/invitations/***/qr.svg"),
        (
            "/api/games/g1/state?events_from=3&token=t0k3n",
            "/api/games/g1/state?events_from=3&token=***",
        ),
        ("/api/games/g1/state", "/api/games/g1/state"),
    ],
)
def test_the_logs_redacts_invitation_codes_and_tokens(path: str, shown: str) -> None:
    record = _access(path)
    assert logs.RedactSecrets().filter(record)
    assert record.getMessage() == f'127.0.0.1:5000 - "GET {shown} HTTP/1.1" 200'


def test_the_app_redacts_what_uvicorn_logs(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    created = client.post("/api/games", json={"seats": [{"kind": "human"}] * 2, "name": "A"})
    code = invite_code(created.json())
    with caplog.at_level(logging.INFO, logger=logs.ACCESS_LOGGER):
        logging.getLogger(logs.ACCESS_LOGGER).info(
            '%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "GET", f"/j/{code}", "1.1", 200
        )
    assert code not in caplog.text and '"GET /j/*** HTTP/1.1" 200' in caplog.text
