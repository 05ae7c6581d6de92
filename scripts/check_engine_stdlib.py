"""Check that gotown.engine imports nothing outside the standard library (and gotown.engine).

The import-linter contract `engine-no-third-party` forbids the packages the project depends on by
name; this check needs no list: any import from gotown.engine of a top-level module that is not in
the standard library fails it. Run by scripts/test after lint-imports.

    .venv/bin/python scripts/check_engine_stdlib.py
"""

from __future__ import annotations

import sys

import grimp

ENGINE = "gotown.engine"


def main() -> int:
    graph = grimp.build_graph("gotown", include_external_packages=True, cache_dir=None)
    if ENGINE not in graph.modules:
        print(f"check_engine_stdlib: {ENGINE} does not exist yet; nothing to check")
        return 0
    engine_modules = sorted(m for m in graph.modules if m == ENGINE or m.startswith(ENGINE + "."))
    problems: list[str] = []
    for importer in engine_modules:
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            top = imported.split(".")[0]
            if imported == ENGINE or imported.startswith(ENGINE + "."):
                continue
            if top == "gotown":
                problems.append(f"{importer} -> {imported} (only gotown.engine itself is allowed)")
                continue
            if top in sys.stdlib_module_names:
                continue
            for detail in graph.get_import_details(importer=importer, imported=imported) or [{}]:
                line = detail.get("line_number", "?")
                problems.append(f"{importer} -> {imported} (l.{line}): not in the standard library")
    if problems:
        print("gotown.engine must use the standard library only; found:")
        for p in problems:
            print(f"  - {p}")
        return 1
    print(f"check_engine_stdlib: {len(engine_modules)} engine modules import the stdlib only: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
