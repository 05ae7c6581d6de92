"""Games to test the learning environments on: random play, and the same position with every
hidden card changed."""

from __future__ import annotations

import importlib.util
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from gotown.engine import Game

#: The option sets whose action spaces differ (targets added), and two that change play only.
OPTION_SETS: list[dict[str, Any]] = [
    {},
    {"dog_placement": "any"},
    {"bone_targets": "any"},
    {"dog_placement": "any", "bone_targets": "any", "dogs_per_floor": "unlimited"},
    {"win_floors": 4, "milkshake_stacking": "stack", "milkshake_blocks_refill": False},
]


def random_positions(
    players: int, seed: int, options: dict[str, Any] | None = None, turn_limit: int = 200
) -> Iterator[Game]:
    """Every position of one game of random legal play (the game itself, as it goes)."""
    rng = random.Random(seed)
    game = Game.new(players, seed, {**(options or {}), "turn_limit": turn_limit})
    yield game
    while not game.is_over:
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
        yield game


def with_hidden_cards_changed(game: Game, seat: int, seed: int) -> Game | None:
    """The same position with the cards ``seat`` cannot see (other hands, the draw pile's order)
    dealt anew at random, hand sizes kept; None when no hidden card could change (R22)."""
    position = game.to_position()
    hidden = [code for s, hand in enumerate(position["hands"]) if s != seat for code in hand]
    hidden += position["draw"]
    rng = random.Random(seed)
    for _ in range(20):
        shuffled = hidden[:]
        rng.shuffle(shuffled)
        changed: dict[str, Any] = {**position, "hands": [], "draw": []}
        taken = 0
        for s, hand in enumerate(position["hands"]):
            if s == seat:
                changed["hands"].append(hand)
            else:
                changed["hands"].append(sorted(shuffled[taken : taken + len(hand)]))
                taken += len(hand)
        changed["draw"] = shuffled[taken:]
        other = Game.from_position(changed)
        if other.to_position() != game.to_position():
            return other
    return None


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load_example(name: str) -> Any:
    """The module of ``examples/NAME.py`` (the examples are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    return example


def train_tiny_policy(folder: Path) -> tuple[Path, Path, str]:
    """The example run small, into ``folder``: 2,048 steps against easy, evaluated in 2 games
    against random. Answers the model file, the learning curve and what the run printed."""
    example = load_example("train_maskable_ppo")
    model, curve = folder / "ppo.zip", folder / "curve.csv"
    args = ["--steps", "2048", "--envs", "2", "--n-steps", "512", "--batch-size", "128"]
    args += ["--window", "4"]
    args += ["--out", str(model), "--curve", str(curve), "--plot", str(folder / "curve.png")]
    args += ["--eval-games", "2", "--eval-against", "random"]
    result = CliRunner().invoke(example.main, args)
    assert result.exit_code == 0, result.output
    return model, curve, result.output
