"""The engine's own layering: no import hides in a function, and the imports the
``engine-core`` contract of ``.importlinter`` skips are type hints only."""

from __future__ import annotations

import ast
from pathlib import Path

import gotown.engine

ENGINE = Path(gotown.engine.__file__).parent
#: The imports the contract skips: the core's parts name the game in type hints only.
TYPE_ONLY = {"generator.py": {"game"}, "legality.py": {"game"}, "observer.py": {"game"}}


def _imported(node: ast.Import | ast.ImportFrom) -> set[str]:
    if isinstance(node, ast.ImportFrom):
        return {node.module or ""}
    return {alias.name for alias in node.names}


def _type_checking_imports(tree: ast.Module) -> set[str]:
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import | ast.ImportFrom):
                    found |= _imported(inner)
    return found


def test_no_engine_module_imports_inside_a_function_or_class() -> None:
    for path in sorted(ENGINE.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                inner = [n for n in ast.walk(node) if isinstance(n, ast.Import | ast.ImportFrom)]
                assert not inner, f"{path.name}: {node.name} imports {_imported(inner[0])}"


def test_type_checking_imports_are_only_the_ones_the_contract_skips() -> None:
    for path in sorted(ENGINE.glob("*.py")):
        found = _type_checking_imports(ast.parse(path.read_text()))
        assert found == TYPE_ONLY.get(path.name, set()), path.name


def test_the_contract_skips_exactly_those_imports() -> None:
    config = (ENGINE.parents[1] / ".importlinter").read_text()
    section = config.split("[importlinter:contract:engine-core]")[1].split("\n[")[0]
    skipped = {line.split("->")[0].strip() for line in section.splitlines() if "->" in line}
    assert skipped == {f"gotown.engine.{name[:-3]}" for name in TYPE_ONLY}
