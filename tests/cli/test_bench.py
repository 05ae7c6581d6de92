"""``gotown bench``: the speed benchmark's output (its figures live in the README, not here)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from gotown.cli import main
from gotown.tournament.bench import play_random_games


def test_bench_json_prints_one_object_with_the_documented_fields() -> None:
    result = CliRunner().invoke(
        main, ["bench", "--players", "2", "--seconds", "0.2", "--json", "--no-reference"]
    )
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1
    data = json.loads(lines[0])
    for key in ("players", "games", "actions", "seconds", "games_per_s", "actions_per_s"):
        assert key in data
    assert data["players"] == 2 and data["games"] >= 1
    assert data["actions"] >= data["games"]


def test_bench_plays_every_game_to_its_end() -> None:
    result = play_random_games(players=3, seconds=0.1, seed=5)
    assert result.games >= 1
    assert result.actions_per_game == round(result.actions / result.games, 1)


def test_bench_rejects_a_player_count_outside_r1() -> None:
    result = CliRunner().invoke(main, ["bench", "--players", "5", "--seconds", "0.1"])
    assert result.exit_code == 2
    assert "5" in result.output


def test_help_is_offered_on_every_command() -> None:
    runner = CliRunner()
    top = runner.invoke(main, ["--help"])
    assert top.exit_code == 0
    for command in ("scenarios", "bench", "serve", "tournament"):
        assert command in top.output
        sub = runner.invoke(main, [command, "--help"])
        assert sub.exit_code == 0 and "Usage" in sub.output, command


def test_serve_help_points_to_every_setting_and_the_readme_names_them_all() -> None:
    """``gotown serve`` takes most settings from GOTOWN_* variables: its help names the main
    ones and the server's README, which names every variable the settings read."""
    import dataclasses
    import re
    from pathlib import Path

    from gotown.server.config import Settings

    root = Path(__file__).resolve().parents[2]
    source = (root / "gotown" / "server" / "config.py").read_text()
    names = set(re.findall(r"GOTOWN_[A-Z_]*[A-Z]", source))
    for field in dataclasses.fields(Settings):  # the ones read by name, in a loop
        variable = f"GOTOWN_{field.name.upper()}"
        if (
            field.name.startswith("max_")
            and getattr(Settings.from_env({variable: "7"}), field.name) == 7
        ):
            names.add(variable)
    readme = (root / "gotown" / "server" / "README.md").read_text()
    assert len(names) >= 12 and not [n for n in sorted(names) if n not in readme]
    help_text = " ".join(CliRunner().invoke(main, ["serve", "--help"]).output.split())
    for variable in ("GOTOWN_BROADCAST_URL", "GOTOWN_WORKER_PROCESSES", "GOTOWN_BOT_DELAY"):
        assert variable in help_text
    assert "gotown/server/README.md" in help_text


def test_serve_refuses_a_bad_setting_in_the_environment_before_it_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gotown.server

    def refuse(**_: object) -> None:
        raise AssertionError("the server started")

    monkeypatch.setattr(gotown.server, "run", refuse)
    result = CliRunner().invoke(main, ["serve"], env={"GOTOWN_RATE_LIMIT": "lots"})
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit)
    assert "GOTOWN_RATE_LIMIT='lots': not a whole number" in result.output

    result = CliRunner().invoke(main, ["serve", "--database-url", "nonsense"])
    assert result.exit_code == 2 and "Invalid value for --database-url" in result.output
