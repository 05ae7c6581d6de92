"""A learned player: the example trains MaskablePPO end to end (a tiny run), and the saved
policy is a bot level that the tournament seats."""

from __future__ import annotations

import csv
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

import gotown.bots as bots
from gotown.bots import RandomBot, bot_from_spec, canonical_spec, parse_bot_spec, register_level
from gotown.cli import main as gotown_main
from gotown.engine import Game
from gotown.rl.policy import PPOBot, register_ppo_level

from .helpers import train_tiny_policy


@pytest.fixture(autouse=True)
def own_levels(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test adds levels to a registry of its own, which is dropped after it."""
    monkeypatch.setattr(bots, "EXTRA_LEVELS", {})
    yield


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """The example run small (:func:`~tests.rl.helpers.train_tiny_policy`)."""
    return train_tiny_policy(tmp_path_factory.mktemp("ppo"))


def test_the_example_trains_saves_plots_and_evaluates(trained: tuple[Path, Path, str]) -> None:
    model, curve, output = trained
    assert model.is_file() and (model.parent / "curve.png").is_file()
    assert "trained 2,048 steps" in output
    assert "ppo vs random: won " in output and " of 2 " in output
    rows = list(csv.reader(curve.open()))
    assert rows[0] == ["steps", "seconds", "win_rate"] and len(rows) > 2
    steps = [int(row[0]) for row in rows[1:]]
    seconds = [float(row[1]) for row in rows[1:]]
    assert steps == sorted(steps) and seconds == sorted(seconds) and seconds[0] >= 0
    assert all(0 <= float(row[2]) <= 1 for row in rows[1:])


def test_the_policy_plays_legal_actions_from_any_seat(trained: tuple[Path, Path, str]) -> None:
    register_ppo_level()
    spec = f"ppo:path={trained[0]}"
    assert parse_bot_spec(spec) == ("ppo", {}) and canonical_spec(spec) == spec
    player = bot_from_spec(spec, seed=1)
    assert isinstance(player, PPOBot) and player.name == spec
    other = RandomBot(2)
    for seed in range(3):
        game = Game.new(2, seed, {"turn_limit": 100})
        rng = random.Random(seed)
        ppo_seat = rng.randrange(2)
        while not game.is_over:
            seat = game.active
            chooser = player if seat == ppo_seat else other
            game.apply(chooser.choose(game.view(seat), game.legal_actions()))  # checked


def test_a_policy_refuses_another_player_count(trained: tuple[Path, Path, str]) -> None:
    player = PPOBot(f"ppo:path={trained[0]}", seed=0)
    game = Game.new(3, 0)
    with pytest.raises(ValueError, match="another player count"):
        player.choose(game.view(game.active), game.legal_actions())


def test_the_tournament_command_seats_the_policy(trained: tuple[Path, Path, str]) -> None:
    spec = f"ppo:path={trained[0]}"
    result = CliRunner().invoke(
        gotown_main,
        ["tournament", spec, "random", "--games", "2", "--workers", "1", "--no-progress"],
    )
    assert result.exit_code == 0, result.output
    assert f"| {spec} | 2 |" in result.output


def test_importing_gotown_rl_seats_a_policy_as_a_gymnasium_opponent(
    trained: tuple[Path, Path, str],
) -> None:
    # In a fresh interpreter: the bots alone know no ppo level and import no torch; importing
    # gotown.rl adds the level, and GoTown-v0 then seats the policy by its spec.
    spec = f"ppo:path={trained[0]}"
    code = f"""
import sys
import gymnasium
from gotown.bots import parse_bot_spec
try:
    parse_bot_spec({spec!r})
except ValueError as error:
    print(error)
print("torch" in sys.modules)
import gotown.rl
env = gymnasium.make("GoTown-v0", players=2, opponents=[{spec!r}], seat=0)
observation, info = env.reset(seed=1)
done = False
while not done:
    action = env.action_space.sample(info["action_mask"])
    observation, reward, terminated, truncated, info = env.step(action)
    done = terminated or truncated
print(type(env.unwrapped.bots[1]).__name__, "illegal_action" not in info)
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    refused, torch, seated = run.stdout.splitlines()
    assert refused.endswith(
        "unknown bot level 'ppo'; the levels are random, easy, medium, hard, expert"
    )
    assert (torch, seated) == ("False", "PPOBot True")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("ppo", "write ppo:path=FILE"),
        ("ppo:file=x.zip", "write ppo:path=FILE"),
        ("ppo:path=", "write ppo:path=FILE"),
        ("ppo:path=/no/such/model.zip", "no model file '/no/such/model.zip'"),
    ],
)
def test_a_bad_ppo_spec_is_refused_naming_what_is_wrong(spec: str, message: str) -> None:
    register_ppo_level()
    with pytest.raises(ValueError, match=message):
        parse_bot_spec(spec)
    result = CliRunner().invoke(gotown_main, ["tournament", spec, "random", "--games", "2"])
    assert result.exit_code == 2 and message in result.output


def test_an_added_level_goes_through_every_spec_function() -> None:
    made: list[tuple[str, int]] = []

    def check(spec: str) -> None:
        if spec != "coin:side=heads":
            raise ValueError(f"bot {spec!r}: write coin:side=heads")

    def make(spec: str, seed: int) -> RandomBot:
        made.append((spec, seed))
        return RandomBot(seed)

    with pytest.raises(ValueError, match="unknown bot level 'coin'"):
        parse_bot_spec("coin:side=heads")
    register_level("coin", check, make)
    assert parse_bot_spec("coin:side=heads") == ("coin", {})
    assert canonical_spec("coin:side=heads") == "coin:side=heads"
    assert isinstance(bot_from_spec("coin:side=heads", 7), RandomBot)
    assert made == [("coin:side=heads", 7)]
    with pytest.raises(ValueError, match="write coin:side=heads"):
        bot_from_spec("coin:side=tails", 7)
    with pytest.raises(ValueError, match="cannot be added"):
        register_level("hard", check, make)
