"""Simulations: reproducible on any number of workers, seats rotated, resumable, and the
one-line JSON form that scripts rely on."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

import gotown.study.simulation as simulate_module
from gotown.cli import main
from gotown.study.findings import mean, proportion, ratio
from gotown.study.games import SPECIAL_CARDS, GameTask, observe_game
from gotown.study.simulation import (
    Configuration,
    load_plan,
    run,
    simulate,
    standard_study,
)


def test_the_same_seed_gives_the_same_games_on_one_worker_or_two() -> None:
    configurations = [Configuration(("random", "easy"), games=10)]
    one = run(configurations, seed=7, workers=1)
    two = run(configurations, seed=7, workers=2)
    for name in ("games", "turns", "holdings", "plays"):
        assert getattr(one, name).equals(getattr(two, name)), name
    other = run(configurations, seed=8, workers=1)
    assert not one.games.equals(other.games)


def test_seat_rotation_puts_every_bot_first_equally_often() -> None:
    games = simulate(bots=["random", "easy", "medium"], games=12, seed=3, workers=1)
    firsts = Counter(lineup.split(",")[0] for lineup in games["lineup"].to_list())
    assert firsts == {"random": 4, "easy": 4, "medium": 4}
    assert games["game"].to_list() == list(range(12))


def test_a_bot_against_itself_wins_at_chance_level_within_the_interval() -> None:
    games = simulate(bots=["random", "random"], games=200, seed=11, workers=2)
    entries = [e for e in games["winner_entry"].to_list() if e is not None]
    found = proportion(sum(e == 0 for e in entries), len(entries))
    low, high = found["ci95"]
    assert low <= 0.5 <= high
    assert found["n"] >= 190  # random games nearly always end with a winner


def test_every_played_special_card_was_held_and_turns_add_up() -> None:
    observed = observe_game(GameTask("t", ("medium", "medium"), (0, 1), 3, 5, 300, {}))
    held = {(h["seat"], h["card"]): h["plays"] for h in observed.holdings}
    for play in observed.plays:
        assert held[(play["seat"], play["card"])] >= 1
    assert sum(held.values()) == len(observed.plays)
    game = observed.game
    assert len(observed.turns) == game["turns"]
    assert sum(t["milkshake"] for t in observed.turns) == game["milkshake_turns"]
    assert sum(t["actions"] for t in observed.turns) == game["card_actions"]
    assert game["winner"] is None or game["floors"][game["winner"]] == 5  # R20


def test_a_run_in_parts_plays_only_the_missing_games_and_equals_one_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(simulate_module, "PART_GAMES", 4)
    configurations = [Configuration(("random", "random"), games=10)]
    whole = run(configurations, seed=2, workers=1)
    first = run(configurations, seed=2, workers=1, out=tmp_path)
    assert first.games.equals(whole.games)
    parts = sorted((tmp_path / "parts").glob("*/*.games.parquet"))
    assert len(parts) == 3
    parts[1].unlink()  # as if stopped before the second part was written
    played: list[int] = []
    observe = simulate_module.observe_game

    def counted(task: GameTask) -> object:
        played.append(task.index)
        return observe(task)

    monkeypatch.setattr(simulate_module, "observe_game", counted)
    again = run(configurations, seed=2, workers=1, out=tmp_path)
    assert played == [4, 5, 6, 7]
    for name in ("games", "turns", "holdings", "plays"):
        assert getattr(again, name).equals(getattr(whole, name)), name


def test_stored_games_of_another_seed_are_refused(tmp_path: Path) -> None:
    configurations = [Configuration(("random", "random"), games=2)]
    run(configurations, seed=1, workers=1, out=tmp_path)
    with pytest.raises(ValueError, match="seed 1, not 2"):
        run(configurations, seed=2, workers=1, out=tmp_path)


def test_the_standard_study_asks_every_question() -> None:
    studies = Counter(c.study for c in standard_study(10))
    assert studies == {"seat": 6, "skill": 3, "option": 14, "card": 24}
    cards = [c for c in standard_study(10) if c.study == "card"]
    assert {c.swap for c in cards} == set(SPECIAL_CARDS)
    assert {c.bots for c in cards} == {("medium",) * players for players in (2, 3, 4)}
    short = [c.bots for c in standard_study(10) if c.options == {"win_floors": 4}]
    assert short == [("random", "random"), ("medium", "medium")]
    pairs = [c.bots for c in standard_study(10, ["hard:iterations=50", "random"])
             if c.study == "skill"]  # fmt: skip
    assert pairs == [("random", "hard:iterations=50")]


def test_a_plan_names_what_is_wrong() -> None:
    plan = load_plan('games = 5\n[[configuration]]\nbots = ["random", "medium"]\n'
                     "options = { win_floors = 4 }\n", 100)  # fmt: skip
    assert plan == [Configuration(("random", "medium"), {"win_floors": 4}, 5)]
    with pytest.raises(ValueError, match="configuration 1: unknown key 'bot'"):
        load_plan('[[configuration]]\nbot = ["random"]\n', 10)
    with pytest.raises(ValueError, match=r"configuration 1: .*2 to 4 players"):
        load_plan('[[configuration]]\nbots = ["random"]\n', 10)
    twice = '[[configuration]]\nbots = ["random", "random"]\n'
    with pytest.raises(ValueError, match="configuration 2: another configuration is named"):
        load_plan(twice * 2, 10)
    with pytest.raises(ValueError, match="win_floors"):
        load_plan('[[configuration]]\nbots = ["random", "random"]\noptions = {win_floors = 3}', 1)


def test_intervals_of_known_cases() -> None:
    assert proportion(50, 100)["ci95"][0] < 0.5 < proportion(50, 100)["ci95"][1]
    assert mean([2.0, 2.0, 2.0])["ci95"] == [2.0, 2.0]
    found = ratio([1, 1, 1], [4, 4, 4])  # every game a quarter: no spread at all
    assert found["rate"] == 0.25 and found["ci95"] == [0.25, 0.25]
    wide = ratio([0, 4], [4, 4])
    assert wide["ci95"][0] < 0.5 < wide["ci95"][1]


def test_the_one_line_json_form(tmp_path: Path) -> None:
    out = tmp_path / "report"
    result = CliRunner().invoke(main, [
        "analyze", "--players", "2", "--bots", "random,random", "--games", "20", "--seed", "1",
        "--out", str(out), "--json", "--workers", "1", "--no-progress",
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["games"] == 20 and data["players"] == 2
    rates, intervals = data["seat_win_rates"], data["seat_win_ci95"]
    assert len(rates) == len(intervals) == 2
    assert sum(rates) + data["no_winner"] == pytest.approx(1.0)
    for rate, (low, high) in zip(rates, intervals, strict=True):
        assert low <= rate <= high
    games = pl.read_parquet(out / "games.parquet")
    assert games.height == 20
    assert data["seat_win_rates"][0] == (games["winner"] == 0).sum() / 20
    assert (out / "turns.parquet").exists()
    html = (out / "report.html").read_text()
    assert "data:image/png;base64," in html and '<img src="plots/' not in html
    markdown = (out / "report.md").read_text()
    assert "](plots/seat_win_rates.png)" in markdown
    assert (out / "plots" / "seat_win_rates.png").stat().st_size > 1000


def test_analyze_refuses_bad_input_by_name(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["analyze", "--bots", "random,wizard", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "unknown bot level 'wizard'" in result.output
    result = runner.invoke(main, ["analyze", "--bots", "random,random", "--option", "win_floors=3",
                                  "--out", str(tmp_path)])  # fmt: skip
    assert result.exit_code == 2 and "win_floors" in result.output


def test_analyze_plays_the_configurations_of_a_plan(tmp_path: Path) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text('games = 3\n[[configuration]]\nbots = ["random", "random"]\n'
                    '[[configuration]]\nname = "short"\nbots = ["easy", "easy", "easy"]\n'
                    "options = { win_floors = 4 }\n")  # fmt: skip
    out = tmp_path / "out"
    args = ["analyze", "--config", str(plan), "--out", str(out), "--json", "--workers", "1",
            "--no-progress"]  # fmt: skip
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    names = [c["name"] for c in data["configurations"]]
    assert names == ["2 players: random, random", "short"]
    assert [c["games"] for c in data["configurations"]] == [3, 3]
    assert data["configurations"][1]["options"] == {"win_floors": 4}
    games = pl.read_parquet(out / "games.parquet")
    assert games.group_by("configuration").len().sort("configuration")["len"].to_list() == [3, 3]
    bad = CliRunner().invoke(main, ["analyze", "--levels", "random,wizard", "--out", str(out)])
    assert bad.exit_code == 2 and "unknown bot level 'wizard'" in bad.output
