"""The garbage collector's pauses: timed, and fewer once the server has started."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from gotown.server import gcwatch
from gotown.server.config import Settings

from .helpers import running


@pytest.fixture
def thresholds() -> Iterator[None]:
    before = gc.get_threshold()
    yield
    gc.set_threshold(*before)


def test_every_collection_is_timed_by_generation() -> None:
    watch = gcwatch.GcWatch()
    watch.install()
    try:
        gc.collect(0)
        gc.collect()
    finally:
        watch.remove()
    assert watch.count[0] >= 1 and watch.count[2] >= 1
    assert watch.longest[2] > 0
    assert watch not in gc.callbacks
    summary = watch.summary()
    assert "longest pause" in summary and "full collections" in summary


def test_long_pauses_are_kept_with_their_time(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter([10.0, 10.5, 20.0, 20.001])
    monkeypatch.setattr(gcwatch.time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(gcwatch.time, "time", lambda: 1234.5)
    watch = gcwatch.GcWatch()
    watch("start", {"generation": 2})
    watch("stop", {"generation": 2})
    watch("start", {"generation": 0})
    watch("stop", {"generation": 0})
    assert list(watch.long_pauses) == [(1234.5, 2, 0.5)]  # the short one is only counted
    assert watch.count == [1, 0, 1]
    assert "1234.500/2/500.0" in watch.summary()


@pytest.mark.usefixtures("thresholds")
def test_a_started_server_has_frozen_its_start_up_and_raised_the_thresholds(
    tmp_path: Path,
) -> None:
    gc.set_threshold(700, 10, 10)
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'gc.sqlite3'}",
        rate_limit_per_minute=0,
        worker_processes=False,
    )
    with running(settings) as client:
        assert client.get("/api/meta").status_code == 200
        assert gc.get_threshold() == gcwatch.THRESHOLDS
        assert gc.get_freeze_count() > 0
        assert any(isinstance(c, gcwatch.GcWatch) for c in gc.callbacks)
    assert not any(isinstance(c, gcwatch.GcWatch) for c in gc.callbacks)
