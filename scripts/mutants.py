"""A sampled mutation run: do the engine's tests notice a wrong line?

Makes N random one-token mutations of ``gotown/engine`` (flip a comparison, an operator, a
boolean operator or a returned bool, move a small number by one), runs the engine's tests
against each in a scratch copy of the repository with a time-out, and prints the score and
the mutants that survived. A mutant that does not compile is drawn again; a time-out counts
as killed. Seedable, so a run can be repeated.

    .venv/bin/python scripts/mutants.py -n 150 --seed 1 --jobs 2

(mutmut was the other choice; it mutates every site, which at this test suite's speed takes
hours, and it wants to own the test command; a sample gives the figure in a known time.)
"""

from __future__ import annotations

import argparse
import io
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import tokenize
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = "gotown/engine"

#: Token swaps: each operator or name to what it becomes.
SWAPS = {
    "==": "!=", "!=": "==", "<": "<=", "<=": "<", ">": ">=", ">=": ">",
    "+": "-", "-": "+", "+=": "-=", "-=": "+=", "//": "*", "%": "//",
    "True": "False", "False": "True", "and": "or", "or": "and", "is": "is not",
    "in": "not in",
}  # fmt: skip


@dataclass(frozen=True)
class Site:
    path: str  # relative to the repository
    line: int  # 1-based
    col: int
    old: str
    new: str

    def describe(self) -> str:
        return f"{self.path}:{self.line}: {self.old!r} -> {self.new!r}"


@dataclass(frozen=True)
class Outcome:
    site: Site
    killed: bool
    seconds: float
    detail: str


def sites_of(path: Path, relative: str) -> list[Site]:
    """Every place in one file where a swap or a small-number change applies (not in strings
    or comments; a swap that breaks the syntax, as in ``for x not in y``, is drawn again)."""
    source = path.read_text()
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    out: list[Site] = []
    for index, tok in enumerate(tokens):
        text = tok.string
        before = tokens[index - 1].string if index else ""
        line, col = tok.start
        if tok.type == tokenize.OP and text in SWAPS:
            if text in ("-", "+") and before in ("(", "[", ",", "=", "return", ":"):
                continue  # a sign, not an operator
            out.append(Site(relative, line, col, text, SWAPS[text]))
        elif tok.type == tokenize.NAME and text in SWAPS:
            if text == "is" and tokens[index + 1].string == "not":
                out.append(Site(relative, line, col, "is not", "is"))
                continue
            if text == "in" and before == "not":
                continue
            out.append(Site(relative, line, col, text, SWAPS[text]))
        elif tok.type == tokenize.NUMBER and text.isdigit() and int(text) < 100:
            out.append(Site(relative, line, col, text, str(int(text) + 1)))
    return out


def mutate(source: str, site: Site) -> str:
    lines = source.splitlines(keepends=True)
    text = lines[site.line - 1]
    assert text[site.col : site.col + len(site.old)] == site.old, site
    lines[site.line - 1] = text[: site.col] + site.new + text[site.col + len(site.old) :]
    return "".join(lines)


def compiles(source: str) -> bool:
    try:
        compile(source, "<mutant>", "exec")
    except SyntaxError:
        return False
    return True


def scratch_copy(into: Path) -> Path:
    """The parts of the repository the tests need, copied (the mutant is written there)."""
    repo = into / "repo"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for name in ("gotown", "tests", "scripts", "benchmarks"):
        shutil.copytree(ROOT / name, repo / name, ignore=ignore)
    for name in ("pyproject.toml", ".importlinter"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, repo / name)
    # (the shared scenarios sit beside the repository: tests/engine/helpers.py)
    if (ROOT.parent / "shared").is_dir():
        (into / "shared").symlink_to(ROOT.parent / "shared")
    return repo


def run_tests(repo: Path, tests: list[str], timeout: float) -> tuple[int | None, float]:
    """The tests' exit code (None on time-out) and the seconds they took, stopping at the
    first failure."""
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    start = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=repo, env=env, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - start
    return done.returncode, time.perf_counter() - start


def check_the_copy_is_tested(repo: Path) -> None:
    """The tests must import the scratch copy, not the installed repository."""
    where = subprocess.run(
        [sys.executable, "-c", "import gotown.engine as e; print(e.__file__)"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not Path(where).resolve().is_relative_to(repo.resolve()):
        raise SystemExit(f"mutants: the tests would import {where}, not the scratch copy")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--mutants", type=int, default=150, help="how many (default 150)")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed (default 0)")
    parser.add_argument("--jobs", type=int, default=1, help="mutants tested at once")
    parser.add_argument(
        "--timeout", type=float, default=None, help="seconds per mutant (default: 3x the clean run)"
    )
    parser.add_argument(
        "tests", nargs="*", default=["tests/engine"], help="pytest arguments (tests/engine)"
    )
    args = parser.parse_args(argv)
    if args.mutants < 1 or args.jobs < 1:
        parser.error("--mutants and --jobs take a number from 1")

    from rich.progress import Progress

    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="gotown-mutants-") as tmp:
        repos = [scratch_copy(Path(tmp) / str(job)) for job in range(args.jobs)]
        check_the_copy_is_tested(repos[0])
        # Mutants are made from the copy: the repository may change while they run.
        files = sorted((repos[0] / TARGET).rglob("*.py"))
        sites = [s for f in files for s in sites_of(f, str(f.relative_to(repos[0])))]
        code, clean = run_tests(repos[0], args.tests, timeout=3600)
        if code != 0:
            print(f"mutants: the tests fail without a mutant (exit {code}): fix that first")
            return 2
        timeout = args.timeout or 3 * clean + 30
        print(f"{len(sites)} sites in {len(files)} files; clean run {clean:.0f} s")
        chosen: list[tuple[Site, str]] = []
        order = rng.sample(sites, len(sites))
        for site in order:
            if len(chosen) == args.mutants:
                break
            mutant = mutate((repos[0] / site.path).read_text(), site)
            if compiles(mutant):
                chosen.append((site, mutant))
        free = list(repos)
        results: list[Outcome] = []

        def test_one(item: tuple[Site, str]) -> Outcome:
            site, mutant = item
            repo = free.pop()
            path = repo / site.path
            original = path.read_text()
            try:
                path.write_text(mutant)
                code, seconds = run_tests(repo, args.tests, timeout)
            finally:
                path.write_text(original)
                free.append(repo)
            detail = "time-out" if code is None else f"exit {code}"
            return Outcome(site, code != 0, seconds, detail)

        start = time.perf_counter()
        with Progress() as progress, ThreadPoolExecutor(args.jobs) as pool:
            task = progress.add_task("mutants", total=len(chosen))
            for outcome in pool.map(test_one, chosen):
                results.append(outcome)
                progress.advance(task)
                if not outcome.killed:  # said at once, so that a long run can be read as it goes
                    progress.console.print(f"survived: {outcome.site.describe()}")
                if len(results) % 10 == 0:
                    alive = sum(not r.killed for r in results)
                    progress.console.print(f"{len(results)} done, {alive} survived so far")
        elapsed = time.perf_counter() - start
    survivors = [r for r in results if not r.killed]
    killed = len(results) - len(survivors)
    print(f"score: {killed} of {len(results)} killed ({100 * killed / len(results):.1f}%),"
          f" seed {args.seed}, {elapsed / 60:.1f} min; survivors:")  # fmt: skip
    for outcome in survivors:
        print(f"  {outcome.site.describe()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
