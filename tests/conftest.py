"""Shared pytest settings: a deterministic, database-less Hypothesis profile for CI."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile(
    "gotown",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("gotown")
