"""The benchmark scripts run, and the ceiling probes really see what they claim to see."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

from click.testing import CliRunner

from gotown.engine import Game, parse_action

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))  # as when a script runs: it imports its neighbour duel.py


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"benchmarks_{name}", BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # worker processes unpickle tasks by module name
    spec.loader.exec_module(module)
    return module


def _position(opponent: list[str]) -> Game:
    """Seat 0 to act with the pair 2+7; the opponent's hand is given, the rest is drawn."""
    return Game.from_position(
        {
            "players": 2,
            "active": 0,
            "hands": [["2", "7", "1", "1", "3"], opponent],
            "towers": [[], []],
            "milkshakes": [0, 0],
        }
    )


def test_seer_medium_keeps_the_pair_exactly_when_the_opponent_can_steal_it() -> None:
    # R11: the floor 2+7 is stolen by a 2 or a 7. medium, counting cards, keeps the pair in
    # both positions; the seer keeps it only when the opponent really holds one.
    ceiling = _load("ceiling")
    for opponent, expected in (
        (["4", "4", "5", "6", "6", "7"], "end"),
        (["4"] * 4 + ["5"] * 2, "2+7"),
    ):
        game = _position(opponent)
        bot = ceiling.SeerMedium(seed=1)
        bot.game = game
        assert bot.choose(game.view(0), game.legal_actions()) == parse_action(expected)


def test_seer_hard_samples_the_opponents_real_hand() -> None:
    ceiling = _load("ceiling")
    game = _position(["4", "4", "5", "6", "6", "7"])
    sampler = ceiling._SeerSampler(game.view(0), game)
    for _ in range(5):
        sample = sampler.sample(random.Random(3))
        assert sample.hands == game.hands
        assert sorted(sample.draw) == sorted(game.draw)


def test_the_ceiling_benchmark_prints_every_line() -> None:
    ceiling = _load("ceiling")
    result = CliRunner().invoke(
        ceiling.main,
        ["--games", "2", "--search-games", "1", "--workers", "1"],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    rows = [[cell.strip() for cell in line.split("│")[1:3]] for line in result.output.splitlines()]
    for probe, opponent in ceiling.RULE_LINES + ceiling.SEARCH_LINES:
        assert [probe, opponent] in rows, result.output


def test_the_medium_ablation_benchmark_prints_every_variant() -> None:
    ablation = _load("medium_ablation")
    result = CliRunner().invoke(
        ablation.main, ["--games", "2", "--workers", "1"], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    for variant in ablation.VARIANTS:
        assert variant in result.output
