"""``gotown tournament``: bad input is a usage error (exit 2) before any game is played."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import gotown.tournament.tournament as tournament_module
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
        ({"turns": 7}, ["game 1 is malformed: 7 turns, more than the turn limit of 6"]),
        ({"think": [10**400, 0.0]}, ["game 1 is malformed: think"]),  # (no float holds it)
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


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("hard:iterations=0", ["'hard:iterations=0'", "iterations must be a whole number from 1"]),
        ("hard:iters=5", ["unknown parameter 'iters'", "hard takes iterations"]),
        ("random:noise=0.5", ["random takes no parameters"]),
        ("easy:noise=2", ["noise must be a number from 0 to 1, not '2'"]),
        ("hard:epsilon=0.1,epsilon=0.2", ["epsilon is given twice"]),
        ("hard:", ["no parameter after ':'"]),
        ("grandmaster:iterations=5", ["unknown bot level 'grandmaster'"]),
    ],
)
def test_a_bad_bot_spec_is_refused_up_front(
    no_game: list[int], spec: str, words: list[str]
) -> None:
    _assert_usage_error(_run("random", spec, "--games", "2"), "BOTS", *words)
    assert not no_game


@pytest.mark.parametrize(
    ("option", "words"),
    [
        ("win_floor=4", ["unknown option 'win_floor'"]),
        ("win_floors=3", ["option win_floors: 3 is not 4 or 5 (R23)"]),
        ("dog_placement=anywhere", ["option dog_placement: 'anywhere' is not"]),
        ("milkshake_blocks_refill=no", ["option milkshake_blocks_refill: 'no' is not true or"]),
        ("first_player=1", ["option first_player is the tournament's own", "seats rotate"]),
        ("turn_limit=50", ["option turn_limit is the tournament's own", "--turn-limit"]),
        ("win_floors", ["'win_floors' is not NAME=VALUE"]),
    ],
)
def test_a_bad_rule_option_is_refused_up_front(
    no_game: list[int], option: str, words: list[str]
) -> None:
    _assert_usage_error(_run("random", "easy", "--option", option), "--option", *words)
    assert not no_game


def test_an_option_given_twice_is_refused(no_game: list[int]) -> None:
    result = _run("random", "easy", "--option", "win_floors=4", "--option", "win_floors=5")
    _assert_usage_error(result, "--option", "option win_floors is given twice")
    assert not no_game


@pytest.mark.parametrize("placement", ["dog_placement=any", 'dog_placement="any"'])
def test_rule_options_are_played_saved_and_shown(tmp_path: Path, placement: str) -> None:
    out = tmp_path / "t.json"
    result = _run("random", "easy", "--games", "2", "--turn-limit", "6", "--json", str(out),
                  "--option", "win_floors=4", "--option", placement,
                  "--option", "milkshake_blocks_refill=false")  # fmt: skip
    assert result.exit_code == 0, result.output
    shown = 'rule options win_floors=4, dog_placement="any", milkshake_blocks_refill=false.'
    assert shown in " ".join(result.output.split())
    options = {"win_floors": 4, "dog_placement": "any", "milkshake_blocks_refill": False}
    assert json.loads(out.read_text())["options"] == options
    plain = _run("random", "easy", "--games", "2", "--turn-limit", "6", "--option", "win_floors=5")
    assert plain.exit_code == 0 and "rule options" not in plain.output  # the default: none


def test_resuming_with_other_options_or_bots_is_refused_naming_the_difference(
    tmp_path: Path,
) -> None:
    out = tmp_path / "t.json"
    args = ["--games", "4", "--turn-limit", "6", "--json", str(out)]
    result = _run("easy:noise=0", "random", *args, "--option", "win_floors=4")
    assert result.exit_code == 0, result.output
    before = out.read_text()
    assert json.loads(before)["lineup"] == ["easy:noise=0", "random"]
    result = _run("easy:noise=0", "random", *args, "--resume")
    _assert_usage_error(result, "cannot resume", "option win_floors=4, not the default win_floors")
    result = _run("easy", "random", *args, "--option", "win_floors=4", "--resume")
    _assert_usage_error(result, "cannot resume", "lineup", "'easy:noise=0'")
    assert out.read_text() == before
    result = _run("easy:noise=0", "random", *args, "--option", "win_floors=4", "--resume")
    assert result.exit_code == 0, result.output


def test_bots_with_parameters_play_under_their_specs(tmp_path: Path) -> None:
    out, hard = tmp_path / "t.json", "hard:iterations=3,rollout_turns=2"
    result = _run(hard, hard, "easy:noise=0", "--games", "3", "--turn-limit", "6",
                  "--json", str(out))  # fmt: skip
    assert result.exit_code == 0, result.output
    for name in (hard, f"{hard}#2", "easy:noise=0"):
        assert f"| {name} |" in result.output
    data = json.loads(out.read_text())
    assert data["lineup"] == [hard, hard, "easy:noise=0"]
    assert [e["level"] for e in data["entries"]] == ["hard", "hard", "easy"]


def test_stalemates_are_counted_apart_in_the_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gotown.engine import Game

    stuck = {  # two hands of 8 that can do nothing: only ending the turn, for ever (R7b, R21)
        "players": 2, "active": 0, "towers": [[], []], "draw": ["8", "7"],
        "hands": [["1"] * 4 + ["2"] * 4, ["3"] * 4 + ["4"] * 3 + ["bone"]],
    }  # fmt: skip

    def deal(players: int, seed: int, index: int, turn_limit: int, options: object) -> Game:
        if index % 2:  # the odd games are played as dealt
            return real_deal(players, seed, index, turn_limit, options)
        return Game.from_position({**stuck, "options": {"turn_limit": turn_limit}})

    real_deal = tournament_module.deal
    monkeypatch.setattr(tournament_module, "deal", deal)
    out = tmp_path / "t.json"
    result = _run("random", "easy", "--games", "4", "--turn-limit", "6", "--json", str(out))
    assert result.exit_code == 0, result.output
    assert "2 in a stalemate, R20b; 2 at the turn limit of 6" in " ".join(result.output.split())
    data = json.loads(out.read_text())
    assert (data["no_winner"], data["stalemates"], data["at_turn_limit"]) == (4, 2, 2)
    assert [r["ending"] for r in data["results"]] == ["stalemate", "turn-limit"] * 2
    assert data["format"] == 5


def test_the_help_tells_the_bot_parameters_and_rule_options() -> None:
    result = CliRunner().invoke(main, ["tournament", "--help"])
    text = " ".join(result.output.split())
    for words in ("LEVEL:NAME=VALUE[,NAME=VALUE...]", "iterations", "rollout_turns", "noise",
                  "depend on the machine's speed", "--option NAME=VALUE", "win_floors=4",
                  "stalemate", "R20b"):  # fmt: skip
        assert words.lower() in text.lower(), words


def test_a_bot_is_named_and_resumed_by_its_canonical_spec(tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    args = ["--games", "2", "--turn-limit", "6", "--json", str(out)]
    result = _run("easy:noise=0.50", "medium:noise=0", *args)
    assert result.exit_code == 0, result.output
    assert "| easy:noise=0.5 |" in result.output and "| medium |" in result.output
    assert json.loads(out.read_text())["lineup"] == ["easy:noise=0.5", "medium"]
    result = _run("easy:noise=.5", "medium", "--games", "4", *args[2:], "--resume")
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["games"] == 4


def test_an_option_nested_too_deeply_is_a_usage_error(no_game: list[int]) -> None:
    _assert_usage_error(_run("easy", "random", "--option", "bone_targets=" + "[" * 100_000),
                        "--option", "nested too deeply")  # fmt: skip


def test_saved_options_with_a_default_spelled_out_resume(tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    args = ["--games", "2", "--turn-limit", "6", "--json", str(out)]
    assert _run("easy", "random", *args).exit_code == 0
    data = json.loads(out.read_text())
    data["options"] = {"dog_placement": "own"}  # the default, written out by another tool
    out.write_text(json.dumps(data))
    result = _run("easy", "random", "--games", "4", *args[2:], "--resume")
    assert result.exit_code == 0, result.output


def test_resuming_a_file_nested_too_deeply_is_refused(tmp_path: Path, no_game: list[int]) -> None:
    out = tmp_path / "t.json"
    out.write_text("[" * 100_000 + "]" * 100_000)
    result = _run("random", "easy", "--games", "2", "--json", str(out), "--resume")
    _assert_usage_error(result, "--json", "cannot resume", "nested too deeply")
    assert not no_game


def test_resuming_with_fewer_games_than_saved_is_refused_and_keeps_them(tmp_path: Path) -> None:
    out = _saved(tmp_path)
    saved = out.read_text()
    result = _run("random", "easy", "--games", "1", "--turn-limit", "6", "--json", str(out),
                  "--resume")  # fmt: skip
    _assert_usage_error(result, "--games", "holds games up to number 2", "--games 2 or more")
    assert out.read_text() == saved


@pytest.mark.parametrize("seconds", ["nan", "inf"])
def test_max_seconds_must_be_a_number(no_game: list[int], seconds: str) -> None:
    result = _run("random", "easy", "--games", "2", "--max-seconds", seconds)
    _assert_usage_error(result, "--max-seconds", "is not a finite number")
    assert not no_game


def test_a_stop_before_one_whole_block_writes_no_plot_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--max-seconds can end a tournament before a whole block of seat orders: no games to
    plot (matplotlib would refuse an empty box plot)."""
    real = tournament_module.play_game
    clock = [0.0]

    def slow(*args: object, **kwargs: object) -> object:
        clock[0] += 100.0  # each game "takes" 100 s
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(tournament_module, "play_game", slow)
    monkeypatch.setattr(tournament_module.time, "perf_counter", lambda: clock[0])
    plot = tmp_path / "p.png"
    result = _run("random", "easy", "random", "--games", "6", "--turn-limit", "4",
                  "--max-seconds", "150", "--plot", str(plot))  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.output.startswith("| bot")  # the table, of 0 games
    assert "no plot: no whole block of 3 games was played in time" in result.output
    assert not plot.exists()
