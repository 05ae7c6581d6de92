"""The bots' two builds: the search compiled by mypyc with the engine, or its sources.

``scripts/test`` runs these tests twice: on the sources, and on the build of
``scripts/build-engine`` with ``GOTOWN_EXPECT_BUILD=compiled``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import gotown
import gotown.bots
import gotown.engine
from gotown.bots import ismcts

PACKAGE = Path(gotown.__file__).resolve().parent
REPORT = """
import json, gotown.engine as e, gotown.bots as b
from gotown.engine import Game
game = Game.new(2, seed=4)
bot = b.bot_from_spec("hard:iterations=30", seed=1)
action = bot.choose(game.view(game.active), game.legal_actions())
print(json.dumps([e.COMPILED, b.COMPILED, b.ismcts.__file__, action.to_json()]))
"""


def test_compiled_says_which_build_was_loaded() -> None:
    compiled = gotown.bots.COMPILED
    assert compiled == (not str(ismcts.__file__).endswith(".py"))
    assert not compiled or gotown.engine.COMPILED  # (never the compiled search on pure rules)
    expected = os.environ.get("GOTOWN_EXPECT_BUILD")
    if expected is not None:
        assert compiled == (expected == "compiled"), f"expected the {expected} search"


def test_the_search_loads_its_sources_whenever_the_engine_does(tmp_path: Path) -> None:
    # Compiled, the search calls the compiled engine's classes directly and refuses the
    # sources' (a TypeError at the first call). A copy of the package as this process loaded
    # it, with its engine edited since the build (or never built): the engine runs its
    # sources, so the search must too, even with a stamp that fits its own sources (and an
    # unreadable extension when this build has none: it must never be loaded).
    root = tmp_path / "site"
    (root / "gotown").mkdir(parents=True)
    shutil.copy(PACKAGE / "__init__.py", root / "gotown" / "__init__.py")
    for package in ("engine", "bots"):
        shutil.copytree(
            PACKAGE / package,
            root / "gotown" / package,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    bots = root / "gotown" / "bots"
    if not (bots / "_compiled.json").exists():
        (bots / f"ismcts{EXTENSION_SUFFIXES[0]}").write_bytes(b"not a shared object")
        digest = hashlib.sha256((bots / "ismcts.py").read_bytes()).hexdigest()
        (bots / "_compiled.json").write_text(json.dumps({"ismcts.py": digest}))
    game = root / "gotown" / "engine" / "game.py"
    game.write_text(game.read_text() + "\n# edited after the build\n")
    environ = {k: v for k, v in os.environ.items() if k not in ("GOTOWN_PURE", "PYTHONPATH")}
    done = subprocess.run(
        [sys.executable, "-c", REPORT],
        env={**environ, "PYTHONPATH": str(root)},
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    engine_compiled, bots_compiled, ismcts_file, action = json.loads(done.stdout)
    assert (engine_compiled, bots_compiled) == (False, False)
    assert ismcts_file == str(bots / "ismcts.py")
    assert isinstance(action, dict) and action["type"]
