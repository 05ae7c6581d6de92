"""Which build of the engine a process runs: the modules mypyc compiled, or their sources.

A compiled build (``pip install .`` where a C compiler is, or ``scripts/build-engine``) has an
extension module beside the source of each module it compiled, and a stamp, ``_compiled.json``,
with the hash of each source they were compiled from. Python prefers an extension module to a
source, so this module, imported by the package before any other, makes the sources win when

- ``GOTOWN_PURE=1`` is set (to run the pure-Python engine where the compiled one is installed);
- a source no longer matches the stamp (edited since the build): the compiled modules would run
  code that is no longer there. A ``RuntimeWarning`` says so, once.

Both builds behave the same (the engine's tests, scenarios and perft counts run against each);
``gotown.engine.COMPILED`` says which one was loaded. This module is never compiled itself.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from importlib.machinery import EXTENSION_SUFFIXES, ModuleSpec
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
PACKAGE = __name__.rpartition(".")[0]
STAMP = "_compiled.json"


def stale_sources(stamp: dict[str, str], here: Path = HERE) -> list[str]:
    """The stamped sources in ``here`` whose content differs from the build's (or that are
    missing)."""
    stale = []
    for name, digest in sorted(stamp.items()):
        try:
            data = (here / name).read_bytes()
        except OSError:
            stale.append(name)
            continue
        if hashlib.sha256(data).hexdigest() != digest:
            stale.append(name)
    return stale


class SourceFinder:
    """Finds the modules of ``package`` (in ``here``) as their sources, ahead of their compiled
    extensions."""

    def __init__(self, here: Path = HERE, package: str = PACKAGE) -> None:
        self.here = here
        self.package = package

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        package, _, leaf = fullname.rpartition(".")
        source = self.here / f"{leaf}.py"
        if package != self.package or not source.is_file():
            return None
        return importlib.util.spec_from_file_location(fullname, source)


def choose(here: Path = HERE, package: str = PACKAGE, pure_because: str | None = None) -> str:
    """Decide which build the modules of ``package`` (the engine, or the bots' search, which
    :mod:`gotown.bots._build` hands to this function) load from: ``"compiled"`` when there is a
    compiled build to use and no ``pure_because`` reason not to, ``"pure"`` otherwise
    (installing a :class:`SourceFinder` when compiled modules are there but must not be
    used)."""
    suffixes = tuple(EXTENSION_SUFFIXES)
    if not any(path.name.endswith(suffixes) for path in here.iterdir()):
        return "pure"
    try:
        stamp = json.loads((here / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        stamp = None
    reason = pure_because
    if reason is None and os.environ.get("GOTOWN_PURE") == "1":
        reason = "GOTOWN_PURE=1"
    elif reason is None and (not isinstance(stamp, dict) or (stale := stale_sources(stamp, here))):
        names = ", ".join(stale) if isinstance(stamp, dict) else STAMP
        reason = f"edited since the build: {names}"
        warnings.warn(
            f"{package}: the compiled build is older than its sources ({names}); running "
            "the sources (rebuild it: scripts/build-engine)",
            RuntimeWarning,
            stacklevel=3,
        )
    if reason is None:
        return "compiled"
    if not any(
        isinstance(finder, SourceFinder) and finder.package == package for finder in sys.meta_path
    ):
        sys.meta_path.insert(0, SourceFinder(here, package))
    return "pure"


#: The build this process loads the engine's modules from: "compiled" or "pure".
BUILD = choose()
