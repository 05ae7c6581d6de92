"""The engine's two builds: which one a process loads, and what both must do alike.

``scripts/test`` runs the engine's tests twice: on the sources, and on the engine compiled by
mypyc (``scripts/build-engine``) with ``GOTOWN_EXPECT_BUILD=compiled``.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import pickle
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

import gotown
import gotown.engine
from gotown.engine import Action, Game, Options, Position
from gotown.engine import game as game_module

PACKAGE = Path(gotown.__file__).resolve().parent
REPORT = (
    "import json, gotown.engine as e; "
    "print(json.dumps([e.COMPILED, e.game.__file__, e.actions.__file__]))"
)


def test_compiled_says_which_build_was_loaded() -> None:
    compiled = gotown.engine.COMPILED
    assert compiled == (not str(game_module.__file__).endswith(".py"))
    expected = os.environ.get("GOTOWN_EXPECT_BUILD")
    if expected is not None:
        assert expected in ("compiled", "pure")
        assert compiled == (expected == "compiled"), f"expected the {expected} engine"


def _copy_engine(tmp_path: Path) -> Path:
    """The package's ``__init__`` and its engine, as this process loaded them, in tmp_path;
    with a compiled build there (a stamp and an extension module) even where there is none:
    an unreadable extension that must never be loaded."""
    root = tmp_path / "site"
    (root / "gotown").mkdir(parents=True)
    shutil.copy(PACKAGE / "__init__.py", root / "gotown" / "__init__.py")
    engine = root / "gotown" / "engine"
    shutil.copytree(PACKAGE / "engine", engine, ignore=shutil.ignore_patterns("__pycache__"))
    if not (engine / "_compiled.json").exists():
        (engine / f"game{EXTENSION_SUFFIXES[0]}").write_bytes(b"not a shared object")
        digest = hashlib.sha256((engine / "game.py").read_bytes()).hexdigest()
        (engine / "_compiled.json").write_text(json.dumps({"game.py": digest}))
    return root


def _load(root: Path, **env: str) -> tuple[bool, str, str, str]:
    """COMPILED, where game and actions loaded from, and the warnings, in a fresh process."""
    environ = {k: v for k, v in os.environ.items() if k not in ("GOTOWN_PURE", "PYTHONPATH")}
    done = subprocess.run(
        [sys.executable, "-W", "always", "-c", REPORT],
        env={**environ, "PYTHONPATH": str(root), **env},
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    compiled, game_file, actions_file = json.loads(done.stdout)
    return compiled, game_file, actions_file, done.stderr


def test_an_engine_edited_since_its_build_loads_from_its_sources(tmp_path: Path) -> None:
    root = _copy_engine(tmp_path)
    source = root / "gotown" / "engine" / "game.py"
    source.write_text(source.read_text() + "\n# edited after the build\n")
    compiled, game_file, actions_file, warnings = _load(root)
    assert not compiled
    assert game_file == str(source)
    assert actions_file.endswith("actions.py")  # (all from the sources, not some of them)
    assert "RuntimeWarning" in warnings and "game.py" in warnings
    assert "scripts/build-engine" in warnings


def test_gotown_pure_loads_the_sources_without_a_warning(tmp_path: Path) -> None:
    root = _copy_engine(tmp_path)
    compiled, game_file, _, warnings = _load(root, GOTOWN_PURE="1")
    assert not compiled
    assert game_file == str(root / "gotown" / "engine" / "game.py")
    assert "Warning" not in warnings


def test_games_options_and_positions_pickle_and_copy() -> None:
    # The server hands games and their parts to worker processes; a frozen dataclass compiled
    # by mypyc cannot be unpickled field by field (Options says how to rebuild itself).
    options = Options(win_floors=4, dogs_per_floor="unlimited", turn_limit=40)
    game = Game.new(players=3, seed=11, options=options)
    game.apply(game.legal_actions()[0])
    for value in (options, game, game.plain(), game.legal_actions(), Action.thief(2)):
        assert pickle.loads(pickle.dumps(value)) == value
        assert copy.deepcopy(value) == value
    again = pickle.loads(pickle.dumps(game))
    assert again.legal_actions() == game.legal_actions()
    assert isinstance(again.plain(), Position)


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: Game.new(players="2"), "2 to 4 players"),
        (lambda: Game.new(players=2, seed=1.5), "seed must be an integer"),
        (lambda: Game.new(players=2, options=[4]), "options must be an object"),
        (lambda: Options.from_json({"win_floors": 4.0}), "win_floors"),
        (lambda: Game.new(2).apply("3+6"), "not an action"),
        (lambda: Game.new(2).view(1.0), "does not exist"),
    ],
)
def test_wrong_types_get_the_engine_s_errors_in_both_builds(call: object, error: str) -> None:
    # The compiled engine checks the declared type of every argument with a bare TypeError: the
    # entry points that validate what a client sends take ``object`` and say what is wrong.
    assert callable(call)
    with pytest.raises(gotown.engine.GoTownError, match=error):
        call()


def test_the_builds_benchmark_measures_with_the_engine_it_loaded() -> None:
    from script_modules import BENCHMARKS, load_script

    bench = load_script(BENCHMARKS, "engine_builds")
    played = bench.random_play(2, 0.05)
    assert played["compiled"] == gotown.engine.COMPILED
    assert played["actions_per_s"] > 0
    decided = bench.decision_times(2, 2, 20)
    assert decided["compiled"] == gotown.engine.COMPILED
    assert len(decided["times"]) == 2 and all(t > 0 for t in decided["times"])


def test_gotown_bench_says_which_build_it_measured() -> None:
    from gotown.tournament.bench import play_random_games

    assert play_random_games(2, 0.05).compiled == gotown.engine.COMPILED
