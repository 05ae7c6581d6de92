"""``scripts/mutants.py``, the sampled mutation run of the engine: where it mutates and how."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from .helpers import REPO_ROOT

_SPEC = importlib.util.spec_from_file_location("mutants", REPO_ROOT / "scripts" / "mutants.py")
assert _SPEC is not None and _SPEC.loader is not None
mutants = importlib.util.module_from_spec(_SPEC)
sys.modules["mutants"] = mutants
_SPEC.loader.exec_module(mutants)

SOURCE = '''"""A docstring: a == b is not code."""
def f(a, b):
    # a comment: a < b
    if a == b and not a is not None:
        return True
    return [x for x in (a, -1) if x in b] + a - 3
'''


def test_sites_are_operators_names_and_small_numbers_outside_strings_and_comments(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.py"
    path.write_text(SOURCE)
    found = {(s.line, s.old, s.new) for s in mutants.sites_of(path, "m.py")}
    assert found == {
        (4, "==", "!="), (4, "and", "or"), (4, "is not", "is"), (5, "True", "False"),
        (6, "in", "not in"), (6, "in", "not in"), (6, "+", "-"), (6, "-", "+"),
        (6, "3", "4"), (6, "1", "2"),
    }  # fmt: skip


def test_a_mutant_changes_one_token_and_one_that_breaks_the_syntax_is_known(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.py"
    path.write_text(SOURCE)
    sites = mutants.sites_of(path, "m.py")
    by_kind = {(s.line, s.old): s for s in sites}
    flipped = mutants.mutate(SOURCE, by_kind[(4, "==")])
    assert flipped.splitlines()[3] == "    if a != b and not a is not None:"
    assert [a for a, b in zip(flipped.splitlines(), SOURCE.splitlines(), strict=True) if a != b]
    assert mutants.compiles(flipped)
    loop_in = min((s for s in sites if s.old == "in"), key=lambda s: s.col)
    assert not mutants.compiles(mutants.mutate(SOURCE, loop_in))  # for x not in ...: drawn again


def test_the_run_refuses_nonsense_counts(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        mutants.main(["-n", "0"])
    assert info.value.code == 2 and "--mutants" in capsys.readouterr().err
