"""Settings (:mod:`gotown.server.config`): read from the environment, with their bounds."""

from __future__ import annotations

import pytest

from gotown.server.config import Settings


def test_the_seed_setting_comes_from_the_environment() -> None:
    assert Settings.from_env({"GOTOWN_ALLOW_SEED": "1"}).allow_seed is True
    assert Settings.from_env({}).allow_seed is False


def test_the_idle_time_is_a_setting() -> None:
    assert Settings.from_env({"GOTOWN_IDLE_GAME_SECONDS": "90"}).idle_game_seconds == 90
    assert Settings.from_env({}).idle_game_seconds == 600
    with pytest.raises(ValueError, match="idle_game_seconds"):
        Settings(idle_game_seconds=0)


def test_the_new_bounds_are_settings() -> None:
    env = {
        "GOTOWN_MAX_PENDING_ESTIMATES": "5",
        "GOTOWN_MAX_PENDING_ESTIMATES_PER_CLIENT": "3",
        "GOTOWN_MAX_BOTS_ONLY_TABLES": "7",
        "GOTOWN_MAX_BOTS_ONLY_TABLES_PER_CLIENT": "0",
    }
    settings = Settings.from_env(env)
    assert (settings.max_pending_estimates, settings.max_pending_estimates_per_client) == (5, 3)
    assert (settings.max_bots_only_tables, settings.max_bots_only_tables_per_client) == (7, 0)
    defaults = Settings.from_env({})
    assert (defaults.max_pending_estimates, defaults.max_pending_estimates_per_client) == (8, 2)
    assert (defaults.max_bots_only_tables, defaults.max_bots_only_tables_per_client) == (4, 2)
    with pytest.raises(ValueError, match="max_pending_estimates"):
        Settings(max_pending_estimates=0)
    with pytest.raises(ValueError, match="max_bots_only_tables"):
        Settings(max_bots_only_tables=-1)
