"""The package and the app factory (main.py): importing the server does no work; the factory
reads its settings from the environment."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient


def test_importing_the_server_does_no_work() -> None:
    import subprocess
    import sys

    code = (
        "import sys, gotown.server as s; "
        "assert callable(s.run); "
        "heavy = {'uvicorn', 'sqlalchemy', 'fastapi'} & set(sys.modules); "
        "assert not heavy, heavy"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_app_factory_reads_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gotown.server.main import create_app_from_env

    monkeypatch.setenv("GOTOWN_DATABASE_URL", f"sqlite:///{tmp_path / 'env.sqlite3'}")
    app = create_app_from_env()
    with TestClient(app) as client:
        assert client.get("/healthz").json() == {"ok": True}
    assert (tmp_path / "env.sqlite3").exists()
