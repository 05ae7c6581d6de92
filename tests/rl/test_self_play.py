"""The self-play example, run tiny: a policy trained against earlier copies of itself."""

from __future__ import annotations

import random
from pathlib import Path

import torch
from click.testing import CliRunner
from sb3_contrib import MaskablePPO

from .helpers import load_example

SELF_PLAY = load_example("self_play")


def test_opponents_are_the_latest_generation_or_an_earlier_one() -> None:
    generations = [Path(f"gen-{k}.zip") for k in range(4)]
    rng = random.Random(0)
    assert SELF_PLAY.pick_opponents(generations[:1], 3, 0.0, rng) == ["ppo:path=gen-0.zip"] * 3
    assert set(SELF_PLAY.pick_opponents(generations, 50, 1.0, rng)) == {"ppo:path=gen-3.zip"}
    earlier = SELF_PLAY.pick_opponents(generations, 60, 0.0, rng)
    assert set(earlier) == {f"ppo:path=gen-{k}.zip" for k in range(3)}
    mixed = SELF_PLAY.pick_opponents(generations, 400, 0.5, rng)
    assert 150 < mixed.count("ppo:path=gen-3.zip") < 250


def test_the_example_trains_generations_against_earlier_ones_and_measures_the_last(
    tmp_path: Path,
) -> None:
    args = ["--rounds", "2", "--steps-per-round", "256", "--envs", "2", "--n-steps", "64"]
    args += ["--batch-size", "64", "--eval-games", "2", "--eval-against", "random"]
    result = CliRunner().invoke(SELF_PLAY.main, [*args, "--out-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("round 1: against gen-0: won ")
    assert lines[1].startswith("round 2: against gen-") and "gen-2" not in lines[1].split(":")[1]
    assert lines[2] == "512 steps in " + lines[2].split(" in ")[1]
    assert lines[3].startswith(f"gen-2 vs ppo:path={tmp_path / 'gen-0.zip'}: won ")
    assert lines[4].startswith("gen-2 vs random: won ") and " of 2 " in lines[4]
    first, last = (MaskablePPO.load(tmp_path / f"gen-{k}.zip", device="cpu") for k in (0, 2))
    assert (tmp_path / "gen-1.zip").is_file()
    weights = zip(first.policy.parameters(), last.policy.parameters(), strict=True)
    assert any(not torch.equal(a, b) for a, b in weights)  # (it learned something)
