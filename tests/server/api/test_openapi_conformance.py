"""The OpenAPI schema says what the server accepts: schemathesis sends what the schema admits
(positive data only, a bounded number of examples per operation) and checks each answer: no
server error, a documented status and body, and no refusal of what the schema admits."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
import schemathesis
import uvicorn
from hypothesis import HealthCheck, given, settings

from gotown.server.config import Settings
from gotown.server.main import create_app

EXAMPLES = 25


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("openapi") / "gotown.sqlite3"
    app = create_app(
        # The seed and tables of bots only at will: server policies, not the schema's matter.
        Settings(
            database_url=f"sqlite:///{db}",
            rate_limit_per_minute=0,
            worker_processes=False,
            allow_seed=True,
            max_bots_only_tables=10_000,
            max_bots_only_tables_per_client=10_000,
        )
    )
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(1000):
        if server.started:
            break
        time.sleep(0.01)
    assert server.started
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=30)


#: The schema, read from an app (nothing runs): one test per operation.
SCHEMA = schemathesis.openapi.from_dict(create_app(Settings()).openapi())
OPERATIONS = {op.ok().label: op.ok() for op in SCHEMA.get_all_operations()}


@pytest.mark.parametrize("label", sorted(OPERATIONS))
def test_the_server_accepts_what_its_schema_admits(base_url: str, label: str) -> None:
    @given(OPERATIONS[label].as_strategy())
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    def check(case: schemathesis.Case) -> None:
        case.call_and_validate(base_url=base_url)

    check()
