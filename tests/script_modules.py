"""Load a script of ``benchmarks/`` or ``docs/research/experiments/`` as a module for a test.

A script imports its neighbours by their plain names (as ``python SCRIPT`` lets it), so each is
registered under its plain name, neighbours first, and worker processes unpickle its tasks by
that name.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
EXPERIMENTS = ROOT / "docs" / "research" / "experiments"


def load_script(folder: Path, name: str, needs: tuple[str, ...] = ()) -> ModuleType:
    """The script ``folder/name.py`` as the module ``name``, after the neighbours it ``needs``."""
    for neighbour in needs:
        load_script(folder, neighbour)
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
