"""The terminal tests run their async pilots on asyncio (anyio's pytest plugin), and read the
rules in English whatever the machine's locale (a test that wants another language says so)."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def english_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    # setenv, not delenv: monkeypatch then also undoes what `gotown play --lang` sets.
    monkeypatch.setenv("GOTOWN_LANG", "en")
