"""The build: the engine and the bots' search compiled to C extensions by mypyc when they can
be, pure Python otherwise.

Everything else about the package is in pyproject.toml; this file only decides the extension
modules. The engine's modules (standard-library Python, checked by mypy --strict) and the
search's (:data:`COMPILED_MODULES`) are compiled with mypyc when mypy (mypyc) and a C compiler
are there, and ``GOTOWN_PURE`` is not ``1``. Otherwise, or when the compilation fails, the
package is pure Python: same sources, same behaviour, slower (``gotown.engine.COMPILED`` and
``gotown.bots.COMPILED`` say which build was loaded).

mypy is not a build requirement (a machine without a compiler must still install the project,
and mypy's runtime has binary parts): an isolated build (plain ``pip install .``) installs the
pure engine; ``pip install --no-build-isolation .`` in an environment with mypy (the ``dev``
extra) compiles it. An editable install (``pip install -e``, which ``scripts/bootstrap`` makes)
never compiles: compiled modules beside the sources would hide every later edit (the engine
would notice and load the sources, see ``gotown/engine/_build.py``). ``scripts/build-engine``
compiles a copy of the package beside the working tree, for measuring and testing.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
#: The modules mypyc compiles, by package (each package one shared library). The engine's: the
#: rules and their state, where the time goes. Not compiled: ``__init__`` and ``_build`` (which
#: choose the build at import), and modules that play no part in a game's hot loop: views and
#: the observer (a frozen dataclass compiled by mypyc does not pickle, and views go to the
#: bots' worker processes), records and the conformance runner. The bots': the search, its
#: deals and its rollout policy, half of a search's time when only the engine was compiled
#: (``docs/research/2026-11-26-engine-speed.md``).
COMPILED_MODULES = {
    "engine": [
        "actions.py", "cards.py", "errors.py", "game.py", "generator.py", "legality.py",
        "options.py", "outcome.py", "position.py", "zones.py",
    ],
    "bots": ["ismcts.py", "rules.py", "sampling.py"],
}  # fmt: skip
#: Written beside the compiled modules: the hash of each module's source they were built from.
STAMP = "_compiled.json"


#: The setup commands that build extension modules (metadata alone needs none).
BUILDS = {"build", "build_ext", "bdist_wheel", "install"}


def _say(message: str) -> None:
    print(f"gotown build: {message}", file=sys.stderr)


def _why_pure() -> str | None:
    """Why the engine is not compiled in this build, or None when it is."""
    if os.environ.get("GOTOWN_PURE") == "1":
        return "GOTOWN_PURE=1"
    if any(arg.startswith("editable") for arg in sys.argv):
        return "an editable install (scripts/build-engine compiles a copy)"
    if not BUILDS.intersection(sys.argv):
        return "no build asked for"
    try:
        import mypyc.build  # noqa: F401
    except ImportError:
        return "mypy (mypyc) is not installed"
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler})"
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").is_file():
        return f"no Python headers ({include}/Python.h)"
    return None


def source_hashes(package: str) -> dict[str, str]:
    here = ROOT / "gotown" / package
    return {
        name: hashlib.sha256((here / name).read_bytes()).hexdigest()
        for name in COMPILED_MODULES[package]
    }


class BuildEngine(build_ext):
    """build_ext that falls back to the pure engine when compiling fails, and stamps the
    compiled modules with the sources they came from."""

    def run(self) -> None:
        if not self.extensions:
            return
        try:
            super().run()
        except Exception as exc:  # (a compiler error, a missing header...)
            _say(f"compiling the engine failed, installing the pure-Python engine: {exc}")
            self.extensions = []
            for path in self.get_outputs():
                Path(path).unlink(missing_ok=True)
            return
        for package in COMPILED_MODULES:
            out = ROOT / "gotown" if self.inplace else Path(self.build_lib) / "gotown"
            stamp = source_hashes(package)
            (out / package).mkdir(parents=True, exist_ok=True)
            (out / package / STAMP).write_text(json.dumps(stamp, indent=1) + "\n", "utf-8")

    def get_outputs(self) -> list[str]:
        outputs: list[str] = super().get_outputs()
        if self.extensions and not self.inplace:
            for package in COMPILED_MODULES:
                outputs.append(str(Path(self.build_lib) / "gotown" / package / STAMP))
        return outputs


def extensions() -> list[Any]:
    reason = _why_pure()
    if reason is not None:
        if reason != "no build asked for":
            _say(f"the pure-Python engine ({reason})")
        return []
    from mypyc.build import mypycify

    groups = [
        ([f"gotown/{package}/{name}" for name in names], f"gotown.{package}._native")
        for package, names in COMPILED_MODULES.items()
    ]
    _say(f"compiling with mypyc: {', '.join(path for paths, _ in groups for path in paths)}")
    os.chdir(ROOT)  # (mypyc takes paths relative to the project)
    try:
        return list(
            mypycify(
                [path for paths, _ in groups for path in paths],
                opt_level="3",
                separate=list(groups),
                target_dir="build/mypyc",
            )
        )
    except (Exception, SystemExit) as exc:  # (mypyc reports type errors by exiting)
        _say(f"mypyc could not compile the engine, installing the pure-Python engine: {exc!r}")
        return []


setup(ext_modules=extensions(), cmdclass={"build_ext": BuildEngine})
