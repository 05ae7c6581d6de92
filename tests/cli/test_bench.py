"""``gotown bench``: the speed benchmark's output (its figures live in the README, not here)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from gotown.bench import play_random_games
from gotown.cli import main


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
