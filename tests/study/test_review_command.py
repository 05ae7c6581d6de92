"""``gotown review RECORD.json``: the text, the JSON and the graph."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from gotown.bots import make_bot
from gotown.bots.review import BASIS, MISTAKE, REVIEW_ITERATIONS, TURNING
from gotown.cli import main
from gotown.engine import Game, Record


def _finished_record(path: Path) -> int:
    """Write a finished two-player game's record to ``path``; its winner."""
    game = Game.new(players=2, seed=5, options={"first_player": 0})
    bots = [make_bot("random", 1), make_bot("medium", 2)]
    while not game.is_over:
        game.apply(bots[game.active].choose(game.view(game.active), game.legal_actions()))
    path.write_text(json.dumps(Record.of(game).to_json()))
    outcome = game.outcome()
    assert outcome is not None and outcome.winner is not None
    return outcome.winner


def test_review_prints_the_turning_points_and_the_mistakes_and_plots(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    winner = _finished_record(record)
    plot = tmp_path / "review.png"
    args = ["review", str(record), "--seat", "0", "--iterations", "16", "--plot", str(plot),
            "--no-progress"]  # fmt: skip
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert f"seat {winner} won" in result.stdout
    assert f"Chances with {BASIS}." in result.stdout
    assert plot.stat().st_size > 1000
    result = CliRunner().invoke(main, [*args, "--json", "--no-plot"])
    data = json.loads(result.stdout)
    assert data["winner"] == winner and data["seat"] == 0 and data["reason"] == "win"
    assert data["chances"][-1][winner] == 1.0  # R20: the game is won
    actions = len(json.loads(record.read_text())["actions"])
    assert len(data["chances"]) == actions + 1 and len(data["turning_points"]) <= 5
    for point in data["turning_points"]:
        assert point["cause"] in ("decision", "draw", "theft") and point["swing"] >= TURNING
    text = CliRunner().invoke(main, [*args, "--no-plot"]).stdout  # (the same seed: the same)
    assert text.count("  action ") == len(data["turning_points"])
    for point in data["turning_points"]:
        assert f"  action {point['index'] + 1}, {point['description']}" in text
    for mistake in data["mistakes"]:
        assert mistake["best_chance"] > mistake["played_chance"]
        assert mistake["loss"] >= MISTAKE and mistake["text"] in text


def test_the_default_budget_is_the_reviews() -> None:
    result = CliRunner().invoke(main, ["review", "--help"])
    assert f"[default: {REVIEW_ITERATIONS}; x>=1]" in " ".join(result.stdout.split())


def test_review_refuses_what_is_not_a_record_or_a_seat(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"actions": 3}')
    result = CliRunner().invoke(main, ["review", str(bad), "--no-plot"])
    assert result.exit_code == 2 and "not a game record" in result.output
    record = tmp_path / "game.json"
    _finished_record(record)
    result = CliRunner().invoke(main, ["review", str(record), "--seat", "3", "--no-plot"])
    assert result.exit_code == 2 and "seat 3: the game has seats 0 to 1 (R1)" in result.output
    result = CliRunner().invoke(main, ["review", str(record), "--plot", str(tmp_path / "r.txt")])
    assert result.exit_code == 2 and "'txt' is not one of" in result.output
    illegal = tmp_path / "illegal.json"
    start = json.loads(record.read_text())
    illegal.write_text(json.dumps({**start, "actions": [{"type": "super-thief"}] * 60}))
    result = CliRunner().invoke(main, ["review", str(illegal), "--no-plot"])
    assert result.exit_code == 2 and "action " in result.output and "of the record" in result.output
