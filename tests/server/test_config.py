"""Settings (:mod:`gotown.server.config`): read from the environment, with their bounds."""

from __future__ import annotations

from pathlib import Path

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


def test_settings_come_from_the_environment(tmp_path: Path) -> None:
    env = {"GOTOWN_DATABASE_URL": "sqlite:///x.db", "GOTOWN_BOT_DELAY": "0.25"}
    settings = Settings.from_env(env)
    assert settings.database_url == "sqlite:///x.db" and settings.bot_delay == 0.25
    assert Settings.from_env({}, database_url=None).database_url.endswith("gotown.sqlite3")
    assert Settings.from_env({}).broadcast_url == "memory://"
    switches = {"true": True, "1": True, "Yes": True, "off": False, "0": False, "": True}
    for text, value in switches.items():  # (empty: unset, the default)
        assert Settings.from_env({"GOTOWN_WORKER_PROCESSES": text}).worker_processes is value
    assert Settings.from_env({"GOTOWN_MAX_BODY_BYTES": "4096"}).max_body_bytes == 4096
    assert Settings.from_env({"GOTOWN_RATE_LIMIT": "-1"}).rate_limit_per_minute == -1  # no limit


@pytest.mark.parametrize(
    ("variable", "text", "words"),
    [
        ("GOTOWN_RATE_LIMIT", "abc", "not a whole number"),
        ("GOTOWN_BOT_DELAY", "nan", "not a finite number of seconds"),
        ("GOTOWN_BOT_DELAY", "-1", "bot_delay must be >= 0"),
        ("GOTOWN_WORKER_PROCESSES", "maybe", "not one of true, false"),
        ("GOTOWN_ALLOW_SEED", "2", "not one of true, false"),
        ("GOTOWN_MAX_BODY_BYTES", "0", "max_body_bytes must be >= 1"),
        ("GOTOWN_IDLE_GAME_SECONDS", "soon", "not a number of seconds"),
        ("GOTOWN_DATABASE_URL", "nonsense", "database_url must be a database URL"),
        ("GOTOWN_BROADCAST_URL", "http://x", "broadcast_url must be memory:// or redis://"),
    ],
)
def test_a_bad_setting_in_the_environment_is_named(variable: str, text: str, words: str) -> None:
    with pytest.raises(ValueError) as caught:
        Settings.from_env({variable: text})
    assert str(caught.value).startswith(f"{variable}={text!r}: ") and words in str(caught.value)
