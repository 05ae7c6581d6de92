"""The Python examples of docs/rl.md run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "rl.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)


def test_the_doc_has_an_example_for_each_interface() -> None:
    text = "\n".join(EXAMPLES)
    assert "gotown.rl.pettingzoo" in text and "GoTown-v0" in text and "python_gotown" in text


@pytest.mark.parametrize("example", [e for e in EXAMPLES if "import" in e.split("\n")[0]])
def test_a_doc_example_runs(example: str) -> None:
    exec(compile(example, str(DOC), "exec"), {})
