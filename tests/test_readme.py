"""The README's quick start names real scripts, which the CI runs (its examples and every other
command: tests/test_docs_commands.py)."""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_quick_start_commands_exist_and_are_executable() -> None:
    quick = README.split("## Quick start", 1)[1].split("##", 1)[0]
    commands = re.findall(r"^(scripts/\w+)", quick, flags=re.M)
    assert commands == ["scripts/serve", "scripts/test"]
    for command in commands:
        assert os.access(ROOT / command, os.X_OK), command
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "scripts/test" in ci
