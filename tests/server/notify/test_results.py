"""The back-off before trying a delivery again (:mod:`gotown.server.notify.results`)."""

from __future__ import annotations

import random

import pytest

from gotown.server.notify.results import MAX_RETRY_AFTER, Backoff, parse_retry_after


def test_the_wait_doubles_with_jitter_up_to_the_cap_then_gives_up() -> None:
    backoff = Backoff(base=30, cap=200, max_attempts=6)
    rng = random.Random(3)
    for attempts, ceiling in [(1, 30), (2, 60), (3, 120), (4, 200), (5, 200)]:
        waits = {backoff.delay(attempts, rng) for _ in range(200)}
        assert all(ceiling / 2 <= w <= ceiling for w in waits), attempts  # type: ignore[operator]
        assert len(waits) > 100  # jitter: not one fixed wait
    assert backoff.delay(6, rng) is None and backoff.delay(7, rng) is None


def test_the_jitter_comes_from_the_random_given() -> None:
    backoff = Backoff()
    assert backoff.delay(2, random.Random(5)) == backoff.delay(2, random.Random(5))
    assert backoff.delay(2, random.Random(5)) != backoff.delay(2, random.Random(6))


def test_a_retry_after_is_a_floor_and_itself_capped() -> None:
    backoff, rng = Backoff(base=30, cap=3600), random.Random(0)
    assert backoff.delay(1, rng, retry_after=600) == 600
    assert 15 <= backoff.delay(1, rng, retry_after=1) <= 30  # type: ignore[operator]
    assert backoff.delay(1, rng, retry_after=10**9) == MAX_RETRY_AFTER


def test_bad_back_offs_are_refused() -> None:
    with pytest.raises(ValueError, match="base"):
        Backoff(base=0)
    with pytest.raises(ValueError, match="max_attempts"):
        Backoff(max_attempts=0)
    with pytest.raises(ValueError, match="attempts"):
        Backoff().delay(0, random.Random())


def test_retry_after_in_seconds_or_as_a_date() -> None:
    now = 1445412420.0  # Wed, 21 Oct 2015 07:27:00 GMT
    assert parse_retry_after("120", now) == 120
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now) == 60
    assert parse_retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now) == 0
    for unreadable in (None, "", "soon", "-5", "1e9", "Wed, 21 Oct 2015 07:28:00"):
        assert parse_retry_after(unreadable, now) is None, unreadable
