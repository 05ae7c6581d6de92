"""``gotown tournament``: bad input is a usage error (exit 2) before any game is played."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import gotown.analysis.tournament as tournament_module
from gotown.cli import main


@pytest.fixture
def no_game(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Fails the test if a game starts; the list of games started stays empty."""
    started: list[int] = []

    def refuse(*args: object) -> None:
        started.append(1)
        raise AssertionError("a game was played before the input was checked")

    monkeypatch.setattr(tournament_module, "play_game", refuse)
    return started


def _run(*args: str) -> Result:
    return CliRunner().invoke(main, ["tournament", "--no-progress", "--workers", "1", *args])


def _assert_usage_error(result: Result, *words: str) -> None:
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)  # click's error, not a traceback
    assert "Traceback" not in result.output and "Error: Invalid value for" in result.output
    for word in words:
        assert word in result.output, (word, result.output)


def test_five_bots_without_players_are_refused(no_game: list[int]) -> None:
    result = _run("random", "random", "random", "random", "random", "--games", "2")
    _assert_usage_error(result, "BOTS", "5 seats", "2 to 4 players (R1)")
    _assert_usage_error(_run("random", "--games", "2"), "BOTS", "1 seat (one per bot")
    assert not no_game


@pytest.mark.parametrize(
    ("where", "problem"), [("missing/x.json", "does not exist"), ("a-file/x.json", "not a folder")]
)
def test_a_json_file_that_cannot_be_written_is_refused_up_front(
    tmp_path: Path, no_game: list[int], where: str, problem: str
) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    path = str(tmp_path / where)
    result = _run("random", "easy", "--games", "2", "--json", path)
    _assert_usage_error(result, "--json", path, problem)
    result = _run("random", "easy", "--games", "2", "--json", path, "--resume")
    _assert_usage_error(result, "--json", path, problem)
    assert not no_game


def test_checking_the_json_file_leaves_a_saved_tournament_alone(
    tmp_path: Path, no_game: list[int]
) -> None:
    out = tmp_path / "t.json"
    out.write_text('{"results": []}')  # not this tournament's: refused, and left as it was
    result = _run("random", "easy", "--games", "2", "--json", str(out), "--resume")
    _assert_usage_error(result, "cannot resume")
    assert out.read_text() == '{"results": []}' and sorted(tmp_path.iterdir()) == [out]
    assert not no_game


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("p.xyz", ["--plot", "p.xyz", "'xyz' is not one of", "png", "svg", "pdf"]),
        ("plot", ["--plot", "no extension"]),
        ("missing/p.png", ["--plot", "missing", "does not exist"]),
    ],
)
def test_a_plot_that_cannot_be_written_is_refused_up_front(
    tmp_path: Path, no_game: list[int], name: str, words: list[str]
) -> None:
    result = _run("random", "easy", "--games", "2", "--plot", str(tmp_path / name))
    _assert_usage_error(result, *words)
    assert not no_game


def test_a_plot_format_in_capitals_is_accepted(tmp_path: Path) -> None:
    plot = tmp_path / "p.SVG"
    result = _run("random", "easy", "--games", "2", "--turn-limit", "4", "--plot", str(plot))
    assert result.exit_code == 0, result.output
    assert plot.read_text().lstrip().startswith("<?xml")


def _saved(tmp_path: Path) -> Path:
    out = tmp_path / "t.json"
    result = _run("random", "easy", "--games", "2", "--turn-limit", "6", "--json", str(out))
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"think": [0.0]}, ["game 1 is malformed: think"]),
        ({"times": [[]]}, ["game 1 is malformed: times"]),
        ({"winner": 7}, ["game 1 is malformed: winner 7"]),
        ({"index": 0}, ["game 0 appears twice"]),
    ],
)
def test_resuming_from_a_malformed_file_is_refused_naming_game_and_field(
    tmp_path: Path, change: dict[str, object], words: list[str]
) -> None:
    out = _saved(tmp_path)
    data = json.loads(out.read_text())
    data["results"][1].update(change)
    out.write_text(json.dumps(data))
    result = _run("random", "easy", "--games", "4", "--turn-limit", "6", "--json", str(out),
                  "--resume")  # fmt: skip
    _assert_usage_error(result, "--json", "cannot resume", *words)
    assert json.loads(out.read_text()) == data


def test_resuming_a_file_of_the_previous_format_says_why_it_cannot(tmp_path: Path) -> None:
    out = _saved(tmp_path)
    data = json.loads(out.read_text())
    del data["format"]  # as written before seat orders and bot seeds changed
    out.write_text(json.dumps(data))
    result = _run("random", "easy", "--games", "4", "--turn-limit", "6", "--json", str(out),
                  "--resume")  # fmt: skip
    _assert_usage_error(result, "cannot resume", "results format", "start a new --json file")


def test_the_help_says_how_the_seats_are_balanced() -> None:
    result = CliRunner().invoke(main, ["tournament", "--help"])
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert "multiple of the number of players" in text and "one game more" in text
