"""The speed benchmark runs and prints a row per interface."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from click.testing import CliRunner

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "rl_speed.py"


def test_rl_speed_prints_every_interface_with_a_rate() -> None:
    spec = importlib.util.spec_from_file_location("benchmarks_rl_speed", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = CliRunner().invoke(module.main, ["--seconds", "0.1"])
    assert result.exit_code == 0, result.output
    for interface in ("engine, random play", "PettingZoo AEC", "Gymnasium env.step", "OpenSpiel"):
        line = next(line for line in result.output.splitlines() if interface in line)
        ours = line.split("│")[2].split()[0]  # "7,442" or "7,442 (14,603 actions)"
        assert int(ours.replace(",", "")) > 0
